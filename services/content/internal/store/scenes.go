package store

import (
	"context"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func sceneFrom(r contentdb.Scene) (domain.Scene, error) {
	s := domain.Scene{ID: r.ID, ProjectID: r.ProjectID, Key: r.Key, Title: r.Title,
		SceneType: r.SceneType, Image: r.Image, Demo: r.Demo, SnapshotURL: r.SnapshotUrl,
		DefaultDurationSec: r.DefaultDurationSec, MinDurationSec: r.MinDurationSec,
		MaxDurationSec: r.MaxDurationSec, OverlapAtEndSec: r.OverlapAtEndSec,
		ManualColorSelection: r.ManualColorSelection, Sort: int(r.Sort), CreatedAt: r.CreatedAt}
	var err error
	s.LocalizedTitle, err = decodeStrings(r.LocalizedTitle)
	return s, err
}

// ListScenes lists a project's scenes by sort.
func (s *Store) ListScenes(ctx context.Context, projectID uuid.UUID) ([]domain.Scene, error) {
	return s.listScenesByProject(ctx, projectID)
}

// GetScene reads a scene and what decides its visibility.
func (s *Store) GetScene(ctx context.Context, id uuid.UUID) (domain.Scene, domain.Visibility, error) {
	r, err := s.q.GetScene(ctx, id)
	if err != nil {
		return domain.Scene{}, domain.Visibility{}, translate(err, domain.ErrSceneNotFound)
	}
	sc, err := sceneFrom(r.Scene)
	return sc, domain.Visibility{ProjectPublished: r.ProjectPublished, ContainerPublished: r.ContainerPublished,
		ContainerDeleted: r.ContainerDeleted}, err
}

// GetSceneForUpdate reads and locks a scene.
func (s *Store) GetSceneForUpdate(ctx context.Context, id uuid.UUID) (domain.Scene, error) {
	r, err := s.q.GetSceneForUpdate(ctx, id)
	if err != nil {
		return domain.Scene{}, translate(err, domain.ErrSceneNotFound)
	}
	return sceneFrom(r)
}

// NextSceneSort is the sort that puts a new scene last.
func (s *Store) NextSceneSort(ctx context.Context, projectID uuid.UUID) (int, error) {
	n, err := s.q.NextSceneSort(ctx, projectID)
	return int(n), err
}

// InsertScene writes a new scene.
func (s *Store) InsertScene(ctx context.Context, sc domain.Scene) error {
	title, err := encode(sc.LocalizedTitle)
	if err != nil {
		return err
	}
	return translate(s.q.InsertScene(ctx, contentdb.InsertSceneParams{
		ID: sc.ID, ProjectID: sc.ProjectID, Key: sc.Key, Title: sc.Title, SceneType: sc.SceneType,
		Image: sc.Image, Demo: sc.Demo, SnapshotUrl: sc.SnapshotURL, LocalizedTitle: title,
		DefaultDurationSec: sc.DefaultDurationSec, MinDurationSec: sc.MinDurationSec,
		MaxDurationSec: sc.MaxDurationSec, OverlapAtEndSec: sc.OverlapAtEndSec,
		ManualColorSelection: sc.ManualColorSelection, Sort: i32(sc.Sort), CreatedAt: sc.CreatedAt,
	}), nil)
}

// UpdateScene writes the patchable fields of a scene.
func (s *Store) UpdateScene(ctx context.Context, sc domain.Scene) error {
	return translate(s.q.UpdateScene(ctx, contentdb.UpdateSceneParams{
		ID: sc.ID, Title: sc.Title, DefaultDurationSec: sc.DefaultDurationSec, Sort: i32(sc.Sort),
		ManualColorSelection: sc.ManualColorSelection,
	}), nil)
}

// DeleteScene removes a scene and its elements.
func (s *Store) DeleteScene(ctx context.Context, id uuid.UUID) error {
	n, err := s.q.DeleteScene(ctx, id)
	if err != nil {
		return err
	}
	if n == 0 {
		return domain.ErrSceneNotFound
	}
	return nil
}

// LockSceneIDs returns the project's scene ids, locked until the transaction ends.
func (s *Store) LockSceneIDs(ctx context.Context, projectID uuid.UUID) ([]uuid.UUID, error) {
	return s.q.LockProjectSceneIDs(ctx, projectID)
}

// SetSceneOrder gives scene n of ordered sort n, in one statement.
func (s *Store) SetSceneOrder(ctx context.Context, projectID uuid.UUID, ordered []uuid.UUID) error {
	return s.q.SetSceneOrder(ctx, contentdb.SetSceneOrderParams{ProjectID: projectID, OrderedIds: ordered})
}

// ExistingSceneIDs returns those of ids that are scenes of the project.
func (s *Store) ExistingSceneIDs(ctx context.Context, projectID uuid.UUID, ids []uuid.UUID) ([]uuid.UUID, error) {
	return s.q.ExistingSceneIDsOfProject(ctx, contentdb.ExistingSceneIDsOfProjectParams{ProjectID: projectID, Ids: ids})
}
