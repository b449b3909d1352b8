package domain_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func ptr[T any](v T) *T { return &v }

func fields(err error) []string {
	e, ok := errs.As(err)
	if !ok {
		return nil
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Field)
	}
	return out
}

func TestCheckReorderAcceptsExactlyTheProjectsScenes(t *testing.T) {
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	current := []uuid.UUID{a, b, c}
	cases := []struct {
		name    string
		ordered []uuid.UUID
		bad     []string
	}{
		{"a permutation passes", []uuid.UUID{c, a, b}, nil},
		{"a missing scene fails", []uuid.UUID{c, a}, []string{"body.ordered_ids"}},
		{"a repeated scene fails at its second place", []uuid.UUID{c, a, b, a}, []string{"body.ordered_ids[3]"}},
		{"a foreign scene fails at its place", []uuid.UUID{c, a, b, uuid.New()}, []string{"body.ordered_ids[3]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := domain.CheckReorder(tc.ordered, current)
			if tc.bad == nil {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			if errs.KindOf(err) != errs.Invalid {
				t.Fatalf("kind %v, want invalid", errs.KindOf(err))
			}
			if got := fields(err); len(got) != len(tc.bad) || got[0] != tc.bad[0] {
				t.Errorf("fields %v, want %v", got, tc.bad)
			}
		})
	}
}

func TestAContainerPatchChangesOnlyWhatItCarries(t *testing.T) {
	now := time.Now()
	c, err := domain.NewContainer(uuid.New(), domain.ContainerFields{Slug: ptr("a-b"), Name: ptr("A"), PrimaryMode: ptr("video"),
		Description: ptr("keep")}, now)
	if err != nil {
		t.Fatal(err)
	}
	if c.IsPublished {
		t.Error("a new container must be unpublished")
	}
	if err := c.Apply(domain.ContainerFields{Name: ptr("B")}, now); err != nil {
		t.Fatal(err)
	}
	if c.Name != "B" || c.Description != "keep" || c.Slug != "a-b" {
		t.Errorf("patched %+v", c)
	}
	if err := c.Apply(domain.ContainerFields{Slug: ptr("Bad Slug")}, now); errs.KindOf(err) != errs.Invalid {
		t.Errorf("bad slug: %v", err)
	}
	if _, err := domain.NewContainer(uuid.New(), domain.ContainerFields{Name: ptr("x")}, now); len(fields(err)) != 2 {
		t.Errorf("missing slug and mode: %v", err)
	}
}

func TestUnknownIDsNameTheirPositions(t *testing.T) {
	known, unknown := uuid.New(), uuid.New()
	got := domain.UnknownIDs("category_ids", []uuid.UUID{known, unknown, known}, []uuid.UUID{known})
	if len(got) != 1 || got[0].Field != "body.category_ids[1]" {
		t.Errorf("got %+v", got)
	}
}

func TestPageMetaTellsWhetherMoreFollow(t *testing.T) {
	cases := []struct {
		number, size *int
		total        int
		want         domain.PageMeta
	}{
		{nil, nil, 45, domain.PageMeta{Page: 1, PageSize: 20, Total: 45, HasMore: true}},
		{ptr(3), nil, 45, domain.PageMeta{Page: 3, PageSize: 20, Total: 45, HasMore: false}},
		{ptr(2), ptr(500), 150, domain.PageMeta{Page: 2, PageSize: 100, Total: 150, HasMore: false}},
		{ptr(1), ptr(100), 101, domain.PageMeta{Page: 1, PageSize: 100, Total: 101, HasMore: true}},
	}
	for _, tc := range cases {
		if got := domain.NewPageRequest(tc.number, tc.size).Meta(tc.total); got != tc.want {
			t.Errorf("got %+v, want %+v", got, tc.want)
		}
	}
}

func TestVisibility(t *testing.T) {
	user, admin := domain.Actor{UserID: uuid.New()}, domain.Actor{Admin: true}
	cases := []struct {
		v           domain.Visibility
		user, admin bool
	}{
		{domain.Visibility{ProjectPublished: true, ContainerPublished: true}, true, true},
		{domain.Visibility{ProjectPublished: true}, false, true},
		{domain.Visibility{ProjectPublished: true, ContainerPublished: true, ContainerDeleted: true}, false, false},
	}
	for _, tc := range cases {
		if tc.v.VisibleTo(user) != tc.user || tc.v.VisibleTo(admin) != tc.admin {
			t.Errorf("%+v: user %v admin %v", tc.v, tc.v.VisibleTo(user), tc.v.VisibleTo(admin))
		}
	}
}

func TestColorElementsTakeKnownAttributesOnly(t *testing.T) {
	scene := domain.Scene{ID: uuid.New(), ProjectID: uuid.New()}
	c, err := domain.NewColorElement(uuid.New(), scene, domain.ColorFields{ElementKey: ptr("bg")})
	if err != nil || c.AttrValue != "fill" {
		t.Fatalf("default attribute: %+v %v", c, err)
	}
	if err := c.Apply(domain.ColorFields{AttrValue: ptr("glow")}); errs.KindOf(err) != errs.Invalid {
		t.Errorf("glow accepted: %v", err)
	}
}

func TestCommentsNeedExactlyOneTarget(t *testing.T) {
	id := uuid.New()
	for _, tc := range []struct {
		c  domain.Comment
		ok bool
	}{
		{domain.Comment{Content: "x", BlogID: &id}, true},
		{domain.Comment{Content: "x"}, false},
		{domain.Comment{Content: "x", BlogID: &id, ContainerID: &id}, false},
		{domain.Comment{Content: "x", BlogID: &id, Rate: ptr(5.5)}, false},
	} {
		if err := tc.c.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc.c, err)
		}
	}
}

func TestGroupBySceneKeepsEachScenesOrderWhateverTheInputOrder(t *testing.T) {
	s1, s2 := domain.Scene{ID: uuid.New()}, domain.Scene{ID: uuid.New()}
	content := func(scene domain.Scene, key string) domain.ContentElement {
		return domain.ContentElement{ID: uuid.New(), SceneID: scene.ID, Key: key}
	}
	keys := func(cs []domain.ContentElement) string {
		out := ""
		for _, c := range cs {
			out += c.Key
		}
		return out
	}
	for name, contents := range map[string][]domain.ContentElement{
		"grouped":     {content(s1, "a"), content(s1, "b"), content(s2, "c")},
		"interleaved": {content(s1, "a"), content(s2, "c"), content(s1, "b")},
	} {
		t.Run(name, func(t *testing.T) {
			full := domain.GroupByScene([]domain.Scene{s1, s2, {ID: uuid.New()}}, contents, nil, nil, nil, nil, nil)
			if keys(full[0].Contents) != "ab" || keys(full[1].Contents) != "c" || full[2].Contents == nil || len(full[2].Contents) != 0 {
				t.Errorf("scene lists %q %q %v", keys(full[0].Contents), keys(full[1].Contents), full[2].Contents)
			}
			if full[0].Colors == nil || full[0].Characters == nil {
				t.Error("empty lists must be empty, not nil")
			}
			full[0].Contents = append(full[0].Contents, content(s1, "z"))
			if keys(full[1].Contents) != "c" {
				t.Error("appending to one scene's list wrote into another's")
			}
		})
	}
}
