package httpapi_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
)

func TestContainerWrites(t *testing.T) {
	ev := newEnv(t, alone())
	cat := ev.category("weddings", nil)
	tag := ev.tag("elegant")

	t.Run("a container is created unpublished with its links", func(t *testing.T) {
		r, err := ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: "first", Name: "First", PrimaryMode: "video",
			Description: ptr("A first one"), CategoryIds: &[]uuid.UUID{cat}, TagIds: &[]uuid.UUID{tag}}, ev.admin)
		want(t, r, err, 201)
		c := r.JSON201
		if c.IsPublished || c.Slug != "first" || c.Description != "A first one" || c.PrimaryMode != "video" {
			t.Errorf("container %+v", c)
		}
		d, err := ev.c.GetTemplateWithResponse(ctx(t), "first", ev.admin)
		want(t, d, err, 200)
		if len(d.JSON200.Categories) != 1 || len(d.JSON200.Tags) != 1 {
			t.Errorf("links %+v %+v", d.JSON200.Categories, d.JSON200.Tags)
		}
	})
	t.Run("a taken slug is 409", func(t *testing.T) {
		r, err := ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: "first", Name: "Again", PrimaryMode: "video"}, ev.admin)
		want(t, r, err, 409)
	})
	t.Run("an unknown category id is 400 naming its position", func(t *testing.T) {
		r, err := ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: "bad-links", Name: "Bad", PrimaryMode: "video",
			CategoryIds: &[]uuid.UUID{cat, uuid.New()}, TagIds: &[]uuid.UUID{uuid.New()}}, ev.admin)
		want(t, r, err, 400)
		if f := problemFields(r.ApplicationproblemJSON400); !slices.Equal(f, []string{"body.category_ids[1]", "body.tag_ids[0]"}) {
			t.Errorf("fields %v", f)
		}
		g, err := ev.c.GetTemplateWithResponse(ctx(t), "bad-links", ev.admin)
		want(t, g, err, 404) // nothing was written
	})
	t.Run("a slug that breaks the pattern is 400", func(t *testing.T) {
		r, err := ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: "Not A Slug", Name: "x", PrimaryMode: "video"}, ev.admin)
		want(t, r, err, 400)
	})
	t.Run("a NUL character in a text field is 400, not a fault of ours", func(t *testing.T) {
		r, err := ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: "nul", Name: "nul\x00inside", PrimaryMode: "video"}, ev.admin)
		want(t, r, err, 400)
	})
	t.Run("a user without the admin role gets 403", func(t *testing.T) {
		r, err := ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: "mine", Name: "Mine", PrimaryMode: "video"}, ev.user)
		want(t, r, err, 403)
		r, err = ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: "svc", Name: "Svc", PrimaryMode: "video"}, ev.svc)
		want(t, r, err, 403)
	})
	t.Run("a service token with content:admin may write", func(t *testing.T) {
		r, err := ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: "by-service", Name: "Svc", PrimaryMode: "photo"}, ev.svcAdm)
		want(t, r, err, 201)
	})
	t.Run("without a token a write is 401", func(t *testing.T) {
		r, err := ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: "anon", Name: "Anon", PrimaryMode: "video"}, ev.anon)
		want(t, r, err, 401)
	})

	id, _ := ev.container(containerSpec{slug: "patched", name: "Before", description: "keep me", categories: []uuid.UUID{cat}, tags: []uuid.UUID{tag}})
	t.Run("a patch changes only the fields it carries", func(t *testing.T) {
		r, err := ev.c.UpdateContainerWithResponse(ctx(t), id, content.ContainerUpdate{Name: ptr("After"), IsPremium: ptr(true)}, ev.admin)
		want(t, r, err, 200)
		c := r.JSON200
		if c.Name != "After" || !c.IsPremium || c.Description != "keep me" || c.Slug != "patched" {
			t.Errorf("patched %+v", c)
		}
		d, err := ev.c.GetTemplateWithResponse(ctx(t), "patched", ev.admin)
		want(t, d, err, 200)
		if len(d.JSON200.Categories) != 1 || len(d.JSON200.Tags) != 1 {
			t.Error("absent link lists must leave the links unchanged")
		}
	})
	t.Run("given link lists replace the links", func(t *testing.T) {
		r, err := ev.c.UpdateContainerWithResponse(ctx(t), id, content.ContainerUpdate{TagIds: &[]uuid.UUID{}}, ev.admin)
		want(t, r, err, 200)
		d, err := ev.c.GetTemplateWithResponse(ctx(t), "patched", ev.admin)
		want(t, d, err, 200)
		if len(d.JSON200.Tags) != 0 || len(d.JSON200.Categories) != 1 {
			t.Errorf("links %v %v", d.JSON200.Categories, d.JSON200.Tags)
		}
	})
	t.Run("patching to a taken slug is 409", func(t *testing.T) {
		r, err := ev.c.UpdateContainerWithResponse(ctx(t), id, content.ContainerUpdate{Slug: ptr("first")}, ev.admin)
		want(t, r, err, 409)
	})
	t.Run("patching with an unknown tag is 400", func(t *testing.T) {
		r, err := ev.c.UpdateContainerWithResponse(ctx(t), id, content.ContainerUpdate{TagIds: &[]uuid.UUID{uuid.New()}}, ev.admin)
		want(t, r, err, 400)
		if f := problemFields(r.ApplicationproblemJSON400); !slices.Equal(f, []string{"body.tag_ids[0]"}) {
			t.Errorf("fields %v", f)
		}
	})
	t.Run("patching an absent container is 404", func(t *testing.T) {
		r, err := ev.c.UpdateContainerWithResponse(ctx(t), uuid.New(), content.ContainerUpdate{Name: ptr("x")}, ev.admin)
		want(t, r, err, 404)
	})
	t.Run("a user cannot patch", func(t *testing.T) {
		r, err := ev.c.UpdateContainerWithResponse(ctx(t), id, content.ContainerUpdate{Name: ptr("x")}, ev.user)
		want(t, r, err, 403)
	})

	t.Run("publish and unpublish are idempotent and keep the reason", func(t *testing.T) {
		for range 2 {
			r, err := ev.c.PublishContainerWithResponse(ctx(t), id, ev.admin)
			want(t, r, err, 204)
		}
		g, err := ev.c.GetTemplateWithResponse(ctx(t), "patched", ev.user)
		want(t, g, err, 200)
		u, err := ev.c.UnpublishContainerWithResponse(ctx(t), id, content.UnpublishRequest{Reason: ptr("copyright claim")}, ev.admin)
		want(t, u, err, 204)
		g, err = ev.c.GetTemplateWithResponse(ctx(t), "patched", ev.user)
		want(t, g, err, 404)
		var reason string
		if err := ev.pool.QueryRow(ctx(t), "SELECT reason FROM container_publication_log WHERE container_id = $1 AND NOT published", id).Scan(&reason); err != nil || reason != "copyright claim" {
			t.Errorf("kept reason %q, %v", reason, err)
		}
		u, err = ev.c.UnpublishContainerWithBodyWithResponse(ctx(t), id, "application/json", nil, ev.admin)
		want(t, u, err, 204)
	})
	t.Run("a user cannot publish, unpublish or delete", func(t *testing.T) {
		p, err := ev.c.PublishContainerWithResponse(ctx(t), id, ev.user)
		want(t, p, err, 403)
		u, err := ev.c.UnpublishContainerWithResponse(ctx(t), id, content.UnpublishRequest{}, ev.user)
		want(t, u, err, 403)
		d, err := ev.c.DeleteContainerWithResponse(ctx(t), id, ev.user)
		want(t, d, err, 403)
	})
	t.Run("a deleted container disappears and keeps its slug", func(t *testing.T) {
		d, err := ev.c.DeleteContainerWithResponse(ctx(t), id, ev.admin)
		want(t, d, err, 204)
		d, err = ev.c.DeleteContainerWithResponse(ctx(t), id, ev.admin)
		want(t, d, err, 404)
		p, err := ev.c.PublishContainerWithResponse(ctx(t), id, ev.admin)
		want(t, p, err, 404)
		g, err := ev.c.GetTemplateWithResponse(ctx(t), id.String(), ev.admin)
		want(t, g, err, 404)
		r, err := ev.c.CreateContainerWithResponse(ctx(t), nil, content.ContainerCreate{Slug: "patched", Name: "Reuse", PrimaryMode: "video"}, ev.admin)
		want(t, r, err, 409)
	})
}
