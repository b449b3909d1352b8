package httpapi_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
)

func TestFavoritesBelongToTheTokensUser(t *testing.T) {
	ev := newEnv(t)
	tpl, _ := ev.container(containerSpec{slug: "tpl", publish: true})
	draft, _ := ev.container(containerSpec{slug: "draft"})

	f, err := ev.c.CreateFavoriteFolderWithResponse(ctx(t), nil, content.FavoriteFolderCreate{Name: "Weddings", Description: ptr("for June")}, ev.user)
	want(t, f, err, 201)
	folder := f.JSON201
	if folder.Name != "Weddings" || folder.ItemCount != 0 {
		t.Errorf("folder %+v", folder)
	}
	t.Run("a folder name is unique per user", func(t *testing.T) {
		r, err := ev.c.CreateFavoriteFolderWithResponse(ctx(t), nil, content.FavoriteFolderCreate{Name: "Weddings"}, ev.user)
		want(t, r, err, 409)
		r, err = ev.c.CreateFavoriteFolderWithResponse(ctx(t), nil, content.FavoriteFolderCreate{Name: "Weddings"}, ev.other)
		want(t, r, err, 201)
	})
	t.Run("adding twice is harmless and counts once", func(t *testing.T) {
		for range 2 {
			r, err := ev.c.AddFavoriteContainerWithResponse(ctx(t), nil, content.FavoriteContainerCreate{ContainerId: tpl, FolderId: &folder.Id, Note: ptr("nice")}, ev.user)
			want(t, r, err, 201)
		}
		l, err := ev.c.ListFavoriteFoldersWithResponse(ctx(t), ev.user)
		want(t, l, err, 200)
		if len(l.JSON200.Data) != 1 || l.JSON200.Data[0].ItemCount != 1 {
			t.Errorf("folders %+v", l.JSON200.Data)
		}
	})
	t.Run("another user's folders stay theirs", func(t *testing.T) {
		l, err := ev.c.ListFavoriteFoldersWithResponse(ctx(t), ev.other)
		want(t, l, err, 200)
		if len(l.JSON200.Data) != 1 || l.JSON200.Data[0].ItemCount != 0 {
			t.Errorf("other's folders %+v", l.JSON200.Data)
		}
		r, err := ev.c.AddFavoriteContainerWithResponse(ctx(t), nil, content.FavoriteContainerCreate{ContainerId: tpl, FolderId: &folder.Id}, ev.other)
		want(t, r, err, 400)
		if fs := problemFields(r.ApplicationproblemJSON400); len(fs) != 1 || fs[0] != "body.folder_id" {
			t.Errorf("fields %v", fs)
		}
	})
	t.Run("an unknown or unpublished template is 400 naming container_id", func(t *testing.T) {
		for _, id := range []uuid.UUID{uuid.New(), draft} {
			r, err := ev.c.AddFavoriteContainerWithResponse(ctx(t), nil, content.FavoriteContainerCreate{ContainerId: id}, ev.user)
			want(t, r, err, 400)
			if fs := problemFields(r.ApplicationproblemJSON400); len(fs) != 1 || fs[0] != "body.container_id" {
				t.Errorf("fields %v", fs)
			}
		}
	})
	t.Run("removing is idempotent", func(t *testing.T) {
		for range 2 {
			r, err := ev.c.RemoveFavoriteContainerWithResponse(ctx(t), &content.RemoveFavoriteContainerParams{ContainerId: tpl}, ev.user)
			want(t, r, err, 204)
		}
		l, err := ev.c.ListFavoriteFoldersWithResponse(ctx(t), ev.user)
		want(t, l, err, 200)
		if l.JSON200.Data[0].ItemCount != 0 {
			t.Errorf("after removal %+v", l.JSON200.Data)
		}
	})
	t.Run("a service token has no user: 403", func(t *testing.T) {
		l, err := ev.c.ListFavoriteFoldersWithResponse(ctx(t), ev.svc)
		want(t, l, err, 403)
		c, err := ev.c.CreateFavoriteFolderWithResponse(ctx(t), nil, content.FavoriteFolderCreate{Name: "svc"}, ev.svcAdm)
		want(t, c, err, 403)
		a, err := ev.c.AddFavoriteContainerWithResponse(ctx(t), nil, content.FavoriteContainerCreate{ContainerId: tpl}, ev.svc)
		want(t, a, err, 403)
		r, err := ev.c.RemoveFavoriteContainerWithResponse(ctx(t), &content.RemoveFavoriteContainerParams{ContainerId: tpl}, ev.svc)
		want(t, r, err, 403)
	})
	t.Run("without a token it is 401", func(t *testing.T) {
		l, err := ev.c.ListFavoriteFoldersWithResponse(ctx(t), ev.anon)
		want(t, l, err, 401)
	})
}
