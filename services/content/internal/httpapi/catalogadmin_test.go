package httpapi_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// The catalog is shared by every tenant: only a platform administrator (or a service with
// content:admin) writes it; a tenant's own admin role is no more than a user's here.
func TestOnlyAPlatformAdminWritesTheSharedCatalog(t *testing.T) {
	ev := newEnv(t)
	project := ev.publishedProject("catalog-admin")
	scene := ev.scene(project, "opening")
	draft, _ := ev.container(containerSpec{slug: "catalog-admin-draft"})
	// An admin of another tenant than the one the project's creator belongs to: no tenant owns
	// a project of the catalog, so no tenant's admin may change it.
	otherTenantAdmin := authtest.Bearer(ev.jwt(uuid.New(), uuid.New(), "admin"))
	// A token holding both roles is a platform admin.
	both := authtest.Bearer(ev.jwt(uuid.New(), ev.tenantID, "admin", domain.PlatformAdminRole))

	writes := map[string]func(caller content.RequestEditorFn) (response, error){
		"create a container": func(c content.RequestEditorFn) (response, error) {
			slug := "catalog-admin-" + uuid.NewString()[:8]
			return ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: slug, Name: "n", PrimaryMode: "video"}, c)
		},
		"publish a container": func(c content.RequestEditorFn) (response, error) {
			return ev.c.PublishContainerWithResponse(ctx(t), draft, c)
		},
		"create a category": func(c content.RequestEditorFn) (response, error) {
			slug := "catalog-admin-" + uuid.NewString()[:8]
			return ev.c.CreateCategoryWithResponse(ctx(t), nil, content.Category{Slug: &slug, Name: ptr("n")}, c)
		},
		"create a music track": func(c content.RequestEditorFn) (response, error) {
			return ev.c.CreateMusicTrackWithResponse(ctx(t), nil, content.MusicTrack{Name: ptr("n"), Url: ptr("https://cdn.example/a.mp3")}, c)
		},
		"update a project": func(c content.RequestEditorFn) (response, error) {
			return ev.c.UpdateProjectWithResponse(ctx(t), project, content.ProjectUpdate{Name: ptr("Renamed")}, c)
		},
		"add a shared layer to a project": func(c content.RequestEditorFn) (response, error) {
			return ev.c.CreateSharedLayerWithResponse(ctx(t), project, nil, content.SharedLayer{Key: ptr("l-" + uuid.NewString()[:8])}, c)
		},
		"reorder a project's scenes": func(c content.RequestEditorFn) (response, error) {
			return ev.c.ReorderScenesWithResponse(ctx(t), scene.Id, content.ReorderScenesRequest{OrderedIds: []uuid.UUID{scene.Id}}, c)
		},
		"add an element to a scene": func(c content.RequestEditorFn) (response, error) {
			return ev.c.CreateSceneContentWithResponse(ctx(t), scene.Id, nil, content.SceneContentElement{Key: ptr("e-" + uuid.NewString()[:8])}, c)
		},
	}
	callers := []struct {
		name    string
		caller  content.RequestEditorFn
		allowed bool
	}{
		{"the tenant's own admin", ev.tenantAdmin, false},
		{"another tenant's admin", otherTenantAdmin, false},
		{"a user", ev.user, false},
		{"a platform admin", ev.admin, true},
		{"a token with both roles", both, true},
		{"a service token with content:admin", ev.svcAdm, true},
	}
	for _, c := range callers {
		for name, write := range writes {
			t.Run(c.name+" may "+map[bool]string{true: "", false: "not "}[c.allowed]+name, func(t *testing.T) {
				r, err := write(c.caller)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case c.allowed && (r.StatusCode() < 200 || r.StatusCode() > 299):
					t.Errorf("status %d, want a success", r.StatusCode())
				case !c.allowed && r.StatusCode() != 403:
					t.Errorf("status %d, want 403", r.StatusCode())
				}
			})
		}
	}
	t.Run("the refusal names the role that is needed", func(t *testing.T) {
		r, err := ev.c.DeleteProjectWithResponse(ctx(t), project, ev.tenantAdmin)
		want(t, r, err, 403)
		if d := problemDetail(r.ApplicationproblemJSON403); d == "" || !strings.Contains(d, domain.PlatformAdminRole) {
			t.Errorf("detail %q does not name %s", d, domain.PlatformAdminRole)
		}
	})
	t.Run("a tenant's admin sees the catalog as a user does: no drafts", func(t *testing.T) {
		unpublished, _ := ev.container(containerSpec{slug: "catalog-admin-hidden"})
		r, err := ev.c.GetTemplateWithResponse(ctx(t), unpublished.String(), ev.tenantAdmin)
		want(t, r, err, 404)
		r, err = ev.c.GetTemplateWithResponse(ctx(t), unpublished.String(), ev.admin)
		want(t, r, err, 200)
	})
}
