package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListScenes lists the scenes of a visible project.
func (a *App) ListScenes(ctx context.Context, actor domain.Actor, projectID uuid.UUID) ([]domain.Scene, error) {
	if _, err := a.visibleProject(ctx, actor, projectID); err != nil {
		return nil, err
	}
	return a.store.ListScenes(ctx, projectID)
}

// CreateScene adds a scene to a project, last unless a sort is given (admin).
func (a *App) CreateScene(ctx context.Context, actor domain.Actor, projectID uuid.UUID, f domain.SceneFields) (domain.Scene, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.Scene{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.Scene{}, err
	}
	var sc domain.Scene
	err = a.store.InTx(ctx, func(s domain.Store) error {
		// The project lock serialises concurrent creations, so "last" stays last.
		if _, err := lockLiveProject(ctx, s, projectID); err != nil {
			return err
		}
		next, err := s.NextSceneSort(ctx, projectID)
		if err != nil {
			return err
		}
		if sc, err = domain.NewScene(id, projectID, f, next, a.now()); err != nil {
			return err
		}
		return s.InsertScene(ctx, sc)
	})
	if err != nil {
		return domain.Scene{}, err
	}
	return sc, nil
}

// GetScene reads a visible scene with its elements.
func (a *App) GetScene(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.SceneFull, error) {
	sc, err := a.visibleScene(ctx, actor, id)
	if err != nil {
		return domain.SceneFull{}, err
	}
	el, err := a.store.SceneElements(ctx, id)
	if err != nil {
		return domain.SceneFull{}, err
	}
	return domain.SceneFull{Scene: sc, SceneElements: el}, nil
}

// UpdateScene changes the fields the patch carries (admin).
func (a *App) UpdateScene(ctx context.Context, actor domain.Actor, id uuid.UUID, f domain.SceneFields) (domain.Scene, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.Scene{}, err
	}
	var sc domain.Scene
	err := a.store.InTx(ctx, func(s domain.Store) error {
		var err error
		if sc, err = s.GetSceneForUpdate(ctx, id); err != nil {
			return err
		}
		if err := sc.Apply(f); err != nil {
			return err
		}
		return s.UpdateScene(ctx, sc)
	})
	if err != nil {
		return domain.Scene{}, err
	}
	return sc, nil
}

// DeleteScene removes a scene with its elements (admin).
func (a *App) DeleteScene(ctx context.Context, actor domain.Actor, id uuid.UUID) error {
	if err := actor.RequireAdmin(); err != nil {
		return err
	}
	return a.store.DeleteScene(ctx, id)
}

// ReorderScenes gives the scenes of the scene's project the order of ordered, which must hold
// each of them exactly once; all or nothing (admin). The project is locked before its scenes,
// as CreateScene does: concurrent reorders of one project queue on that one row instead of
// locking scenes in different orders (which deadlocks).
func (a *App) ReorderScenes(ctx context.Context, actor domain.Actor, sceneID uuid.UUID, ordered []uuid.UUID) error {
	if err := actor.RequireAdmin(); err != nil {
		return err
	}
	return a.store.InTx(ctx, func(s domain.Store) error {
		sc, _, err := s.GetScene(ctx, sceneID)
		if err != nil {
			return err
		}
		if _, err := lockLiveProject(ctx, s, sc.ProjectID); err != nil {
			return err
		}
		current, err := s.LockSceneIDs(ctx, sc.ProjectID)
		if err != nil {
			return err
		}
		if err := domain.CheckReorder(ordered, current); err != nil {
			return err
		}
		return s.SetSceneOrder(ctx, sc.ProjectID, ordered)
	})
}
