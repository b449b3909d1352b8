package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func folderOut(f domain.FavoriteFolder) content.FavoriteFolder {
	return content.FavoriteFolder{Id: f.ID, Name: f.Name, Description: f.Description, ItemCount: f.ItemCount,
		CreatedAt: f.CreatedAt.UTC()}
}

// ListFavoriteFolders is GET /favorites/folders.
func (s *Server) ListFavoriteFolders(ctx context.Context, _ contentserver.ListFavoriteFoldersRequestObject) (contentserver.ListFavoriteFoldersResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	fs, err := s.app.ListFavoriteFolders(ctx, a)
	if err != nil {
		return nil, err
	}
	return contentserver.ListFavoriteFolders200JSONResponse{Data: mapAll(fs, folderOut)}, nil
}

// CreateFavoriteFolder is POST /favorites/folders.
func (s *Server) CreateFavoriteFolder(ctx context.Context, r contentserver.CreateFavoriteFolderRequestObject) (contentserver.CreateFavoriteFolderResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	f, err := s.app.CreateFavoriteFolder(ctx, a, r.Body.Name, r.Body.Description)
	if err != nil {
		return nil, err
	}
	return contentserver.CreateFavoriteFolder201JSONResponse(folderOut(f)), nil
}

// AddFavoriteContainer is POST /favorites/containers.
func (s *Server) AddFavoriteContainer(ctx context.Context, r contentserver.AddFavoriteContainerRequestObject) (contentserver.AddFavoriteContainerResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.AddFavorite(ctx, a, r.Body.ContainerId, r.Body.FolderId, r.Body.Note); err != nil {
		return nil, err
	}
	return contentserver.AddFavoriteContainer201Response{}, nil
}

// RemoveFavoriteContainer is DELETE /favorites/containers.
func (s *Server) RemoveFavoriteContainer(ctx context.Context, r contentserver.RemoveFavoriteContainerRequestObject) (contentserver.RemoveFavoriteContainerResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.RemoveFavorite(ctx, a, r.Params.ContainerId); err != nil {
		return nil, err
	}
	return contentserver.RemoveFavoriteContainer204Response{}, nil
}
