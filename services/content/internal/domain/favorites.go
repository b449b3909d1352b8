package domain

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// FavoriteFolder is a folder of a user's favorite templates.
type FavoriteFolder struct {
	ID          uuid.UUID
	UserID      uuid.UUID
	Name        string
	Description string
	ItemCount   int
	CreatedAt   time.Time
}

// ErrFolderNameTaken is the conflict of a folder name the user already has.
var ErrFolderNameTaken = errs.E(errs.Conflict, "you already have a folder with this name")

// NewFavoriteFolder builds an empty folder of user.
func NewFavoriteFolder(id, user uuid.UUID, name string, description *string, now time.Time) (FavoriteFolder, error) {
	if strings.TrimSpace(name) == "" {
		return FavoriteFolder{}, errs.InvalidFields(errs.Field("body.name", "must not be empty"))
	}
	f := FavoriteFolder{ID: id, UserID: user, Name: name, CreatedAt: now}
	set(&f.Description, description)
	return f, nil
}

// Favorite puts a template among a user's favorites, optionally in a folder with a note.
type Favorite struct {
	UserID      uuid.UUID
	ContainerID uuid.UUID
	FolderID    *uuid.UUID
	Note        *string
	CreatedAt   time.Time
}

// FavoriteStore keeps users' favorite folders and favorites.
type FavoriteStore interface {
	ListFavoriteFolders(ctx context.Context, user uuid.UUID) ([]FavoriteFolder, error)
	InsertFavoriteFolder(ctx context.Context, f FavoriteFolder) error
	FavoriteFolderOwned(ctx context.Context, id, user uuid.UUID) (bool, error)
	UpsertFavorite(ctx context.Context, f Favorite) error
	DeleteFavorite(ctx context.Context, user, container uuid.UUID) error
}
