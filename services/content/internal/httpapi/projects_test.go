package httpapi_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
)

func TestProjectLifecycle(t *testing.T) {
	ev := newEnv(t)
	container, _ := ev.container(containerSpec{slug: "tpl", publish: true})
	draft, _ := ev.container(containerSpec{slug: "draft"})
	server := uuid.New()
	if _, err := ev.pool.Exec(ctx(t), "INSERT INTO project_servers (id, name) VALUES ($1, 'render-1')", server); err != nil {
		t.Fatal(err)
	}

	r, err := ev.c.CreateProjectWithResponse(ctx(t), nil, content.ProjectCreate{ContainerId: container, Name: "Landscape",
		OriginalWidth: 1920, OriginalHeight: 1080, ProjectDurationSec: 42.5, ChooseMode: "free", Aspect: ptr("16:9"),
		ProjectServerId: &server, VipFactor: ptr(2.0)}, ev.admin)
	want(t, r, err, 201)
	p := r.JSON201
	if p.ContainerId != container || p.Aspect != "16:9" || p.FreeFps != 25 || p.VipFactor != 2 || !p.IsPublished ||
		p.ProjectServerId == nil || *p.ProjectServerId != server || p.AepFileUrl != nil {
		t.Errorf("created %+v", p)
	}

	t.Run("creation errors", func(t *testing.T) {
		for name, tc := range map[string]struct {
			body   content.ProjectCreate
			caller content.RequestEditorFn
			status int
			field  string
		}{
			"an unknown container is 400 naming it": {content.ProjectCreate{ContainerId: uuid.New(), Name: "x", OriginalWidth: 1,
				OriginalHeight: 1, ChooseMode: "free"}, ev.admin, 400, "body.container_id"},
			"an unknown render server is 400 naming it": {content.ProjectCreate{ContainerId: container, Name: "x", OriginalWidth: 1,
				OriginalHeight: 1, ChooseMode: "free", ProjectServerId: ptr(uuid.New())}, ev.admin, 400, "body.project_server_id"},
			"a zero width is 400": {content.ProjectCreate{ContainerId: container, Name: "x", OriginalWidth: 0,
				OriginalHeight: 1, ChooseMode: "free"}, ev.admin, 400, "body.original_width"},
			"a user may not create": {content.ProjectCreate{ContainerId: container, Name: "x", OriginalWidth: 1,
				OriginalHeight: 1, ChooseMode: "free"}, ev.user, 403, ""},
		} {
			t.Run(name, func(t *testing.T) {
				r, err := ev.c.CreateProjectWithResponse(ctx(t), nil, tc.body, tc.caller)
				want(t, r, err, tc.status)
				if tc.field != "" && !slices.Contains(problemFields(r.ApplicationproblemJSON400), tc.field) {
					t.Errorf("fields %v, want %s", problemFields(r.ApplicationproblemJSON400), tc.field)
				}
			})
		}
	})
	t.Run("a user reads a project of a published template", func(t *testing.T) {
		g, err := ev.c.GetProjectWithResponse(ctx(t), p.Id, ev.user)
		want(t, g, err, 200)
		if g.JSON200.Name != "Landscape" {
			t.Errorf("project %+v", g.JSON200)
		}
	})
	t.Run("a project of an unpublished template is 404 for users, 200 for admins", func(t *testing.T) {
		hidden := ev.project(draft, "1:1")
		g, err := ev.c.GetProjectWithResponse(ctx(t), hidden, ev.user)
		want(t, g, err, 404)
		g, err = ev.c.GetProjectWithResponse(ctx(t), hidden, ev.admin)
		want(t, g, err, 200)
	})
	t.Run("a patch changes only what it carries", func(t *testing.T) {
		u, err := ev.c.UpdateProjectWithResponse(ctx(t), p.Id, content.ProjectUpdate{Name: ptr("Wide"), FreeFps: ptr(30)}, ev.admin)
		want(t, u, err, 200)
		if u.JSON200.Name != "Wide" || u.JSON200.FreeFps != 30 || u.JSON200.ProjectDurationSec != 42.5 || u.JSON200.Aspect != "16:9" {
			t.Errorf("patched %+v", u.JSON200)
		}
		u, err = ev.c.UpdateProjectWithResponse(ctx(t), p.Id, content.ProjectUpdate{ContainerId: ptr(uuid.New())}, ev.admin)
		want(t, u, err, 400)
		u, err = ev.c.UpdateProjectWithResponse(ctx(t), p.Id, content.ProjectUpdate{Name: ptr("x")}, ev.user)
		want(t, u, err, 403)
		u, err = ev.c.UpdateProjectWithResponse(ctx(t), uuid.New(), content.ProjectUpdate{Name: ptr("x")}, ev.admin)
		want(t, u, err, 404)
	})
	t.Run("a deleted project is gone with its scenes", func(t *testing.T) {
		victim := ev.project(container, "9:16")
		sc := ev.scene(victim, "intro")
		d, err := ev.c.DeleteProjectWithResponse(ctx(t), victim, ev.user)
		want(t, d, err, 403)
		d, err = ev.c.DeleteProjectWithResponse(ctx(t), victim, ev.admin)
		want(t, d, err, 204)
		g, err := ev.c.GetProjectWithResponse(ctx(t), victim, ev.admin)
		want(t, g, err, 404)
		s, err := ev.c.GetSceneWithResponse(ctx(t), sc.Id, ev.admin)
		want(t, s, err, 404)
		d, err = ev.c.DeleteProjectWithResponse(ctx(t), victim, ev.admin)
		want(t, d, err, 404)
	})
}

func TestScenesAndReorder(t *testing.T) {
	ev := newEnv(t)
	project := ev.publishedProject("tpl")
	other := ev.publishedProject("other")
	a, b, c := ev.scene(project, "a"), ev.scene(project, "b"), ev.scene(project, "c")
	foreign := ev.scene(other, "x")
	if a.Sort != 1 || b.Sort != 2 || c.Sort != 3 {
		t.Fatalf("new scenes go last: sorts %d %d %d", a.Sort, b.Sort, c.Sort)
	}

	t.Run("a scene key is unique in its project", func(t *testing.T) {
		r, err := ev.c.CreateSceneWithResponse(ctx(t), project, nil, content.SceneCreate{Key: "a", Title: "again"}, ev.admin)
		want(t, r, err, 409)
		r, err = ev.c.CreateSceneWithResponse(ctx(t), other, nil, content.SceneCreate{Key: "a", Title: "elsewhere"}, ev.admin)
		want(t, r, err, 201)
	})
	t.Run("scenes of an absent project are 404", func(t *testing.T) {
		r, err := ev.c.CreateSceneWithResponse(ctx(t), uuid.New(), nil, content.SceneCreate{Key: "k", Title: "t"}, ev.admin)
		want(t, r, err, 404)
		l, err := ev.c.ListProjectScenesWithResponse(ctx(t), uuid.New(), ev.user)
		want(t, l, err, 404)
	})
	t.Run("a user may not create scenes", func(t *testing.T) {
		r, err := ev.c.CreateSceneWithResponse(ctx(t), project, nil, content.SceneCreate{Key: "u", Title: "t"}, ev.user)
		want(t, r, err, 403)
	})
	t.Run("a scene patch changes only what it carries", func(t *testing.T) {
		r, err := ev.c.UpdateSceneWithResponse(ctx(t), b.Id, content.SceneUpdate{Title: ptr("Middle"), ManualColorSelection: ptr(true)}, ev.admin)
		want(t, r, err, 200)
		if s := r.JSON200; s.Title != "Middle" || !s.ManualColorSelection || s.Key != "b" || s.Sort != 2 {
			t.Errorf("patched %+v", s)
		}
	})
	order := func(t *testing.T) []uuid.UUID {
		t.Helper()
		l, err := ev.c.ListProjectScenesWithResponse(ctx(t), project, ev.user)
		want(t, l, err, 200)
		var ids []uuid.UUID
		for _, s := range l.JSON200.Data {
			ids = append(ids, s.Id)
		}
		return ids
	}
	t.Run("reorder gives the listed order", func(t *testing.T) {
		r, err := ev.c.ReorderScenesWithResponse(ctx(t), a.Id, content.ReorderScenesRequest{OrderedIds: []uuid.UUID{c.Id, a.Id, b.Id}}, ev.admin)
		want(t, r, err, 204)
		if got := order(t); !slices.Equal(got, []uuid.UUID{c.Id, a.Id, b.Id}) {
			t.Errorf("order %v", got)
		}
	})
	for name, ids := range map[string][]uuid.UUID{
		"a missing scene":            {a.Id, b.Id},
		"a scene of another project": {a.Id, b.Id, c.Id, foreign.Id},
		"a repeated scene":           {a.Id, b.Id, c.Id, c.Id},
		"an unknown id":              {a.Id, b.Id, uuid.New()},
	} {
		t.Run("reorder with "+name+" is 400 and changes nothing", func(t *testing.T) {
			r, err := ev.c.ReorderScenesWithResponse(ctx(t), a.Id, content.ReorderScenesRequest{OrderedIds: ids}, ev.admin)
			want(t, r, err, 400)
			if got := order(t); !slices.Equal(got, []uuid.UUID{c.Id, a.Id, b.Id}) {
				t.Errorf("order changed to %v", got)
			}
		})
	}
	t.Run("reorder through an absent scene is 404; a user gets 403", func(t *testing.T) {
		r, err := ev.c.ReorderScenesWithResponse(ctx(t), uuid.New(), content.ReorderScenesRequest{OrderedIds: []uuid.UUID{a.Id}}, ev.admin)
		want(t, r, err, 404)
		r, err = ev.c.ReorderScenesWithResponse(ctx(t), a.Id, content.ReorderScenesRequest{OrderedIds: []uuid.UUID{c.Id, a.Id, b.Id}}, ev.user)
		want(t, r, err, 403)
	})
	t.Run("a deleted scene is gone", func(t *testing.T) {
		d, err := ev.c.DeleteSceneWithResponse(ctx(t), c.Id, ev.admin)
		want(t, d, err, 204)
		g, err := ev.c.GetSceneWithResponse(ctx(t), c.Id, ev.user)
		want(t, g, err, 404)
		d, err = ev.c.DeleteSceneWithResponse(ctx(t), c.Id, ev.admin)
		want(t, d, err, 404)
	})
}
