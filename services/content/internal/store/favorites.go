package store

import (
	"context"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListFavoriteFolders lists a user's folders by creation, with their item counts.
func (s *Store) ListFavoriteFolders(ctx context.Context, user uuid.UUID) ([]domain.FavoriteFolder, error) {
	rows, err := s.q.ListFavoriteFolders(ctx, user)
	if err != nil {
		return nil, err
	}
	out := make([]domain.FavoriteFolder, len(rows))
	for i, r := range rows {
		out[i] = domain.FavoriteFolder{ID: r.ID, UserID: user, Name: r.Name, Description: r.Description,
			ItemCount: int(r.ItemCount), CreatedAt: r.CreatedAt}
	}
	return out, nil
}

// InsertFavoriteFolder writes a new folder.
func (s *Store) InsertFavoriteFolder(ctx context.Context, f domain.FavoriteFolder) error {
	return translate(s.q.InsertFavoriteFolder(ctx, contentdb.InsertFavoriteFolderParams{
		ID: f.ID, UserID: f.UserID, Name: f.Name, Description: f.Description, CreatedAt: f.CreatedAt,
	}), nil)
}

// FavoriteFolderOwned reports whether the folder id belongs to user.
func (s *Store) FavoriteFolderOwned(ctx context.Context, id, user uuid.UUID) (bool, error) {
	return s.q.FavoriteFolderOwned(ctx, contentdb.FavoriteFolderOwnedParams{ID: id, UserID: user})
}

// UpsertFavorite adds a favorite, or updates its folder and note when given.
func (s *Store) UpsertFavorite(ctx context.Context, f domain.Favorite) error {
	return translate(s.q.UpsertFavoriteContainer(ctx, contentdb.UpsertFavoriteContainerParams{
		UserID: f.UserID, ContainerID: f.ContainerID, FolderID: f.FolderID, Note: f.Note, CreatedAt: f.CreatedAt,
	}), nil)
}

// DeleteFavorite removes a favorite; removing an absent one is no error.
func (s *Store) DeleteFavorite(ctx context.Context, user, container uuid.UUID) error {
	return s.q.DeleteFavoriteContainer(ctx, contentdb.DeleteFavoriteContainerParams{UserID: user, ContainerID: container})
}
