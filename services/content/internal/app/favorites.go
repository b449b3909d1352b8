package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListFavoriteFolders lists the caller's folders.
func (a *App) ListFavoriteFolders(ctx context.Context, actor domain.Actor) ([]domain.FavoriteFolder, error) {
	user, err := actor.RequireUser()
	if err != nil {
		return nil, err
	}
	return a.store.ListFavoriteFolders(ctx, user)
}

// CreateFavoriteFolder creates an empty folder of the caller.
func (a *App) CreateFavoriteFolder(ctx context.Context, actor domain.Actor, name string, description *string) (domain.FavoriteFolder, error) {
	user, err := actor.RequireUser()
	if err != nil {
		return domain.FavoriteFolder{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.FavoriteFolder{}, err
	}
	f, err := domain.NewFavoriteFolder(id, user, name, description, a.now())
	if err != nil {
		return domain.FavoriteFolder{}, err
	}
	if err := a.store.InsertFavoriteFolder(ctx, f); err != nil {
		return domain.FavoriteFolder{}, err
	}
	return f, nil
}

// AddFavorite puts a visible template among the caller's favorites; adding it again only
// updates its folder and note when given.
func (a *App) AddFavorite(ctx context.Context, actor domain.Actor, containerID uuid.UUID, folderID *uuid.UUID, note *string) error {
	user, err := actor.RequireUser()
	if err != nil {
		return err
	}
	var bad []errs.FieldError
	if _, err := a.visibleContainer(ctx, actor, containerID); err != nil {
		if errs.KindOf(err) != errs.NotFound {
			return err
		}
		bad = append(bad, errs.Field("body.container_id", "is not an existing template"))
	}
	if folderID != nil {
		ok, err := a.store.FavoriteFolderOwned(ctx, *folderID, user)
		if err != nil {
			return err
		}
		if !ok {
			bad = append(bad, errs.Field("body.folder_id", "is not one of your folders"))
		}
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return a.store.UpsertFavorite(ctx, domain.Favorite{UserID: user, ContainerID: containerID,
		FolderID: folderID, Note: note, CreatedAt: a.now()})
}

// RemoveFavorite takes a template out of the caller's favorites; absent is no error.
func (a *App) RemoveFavorite(ctx context.Context, actor domain.Actor, containerID uuid.UUID) error {
	user, err := actor.RequireUser()
	if err != nil {
		return err
	}
	return a.store.DeleteFavorite(ctx, user, containerID)
}
