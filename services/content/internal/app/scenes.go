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

// GetSceneElements reads the elements of a visible scene.
func (a *App) GetSceneElements(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.SceneElements, error) {
	if _, err := a.visibleScene(ctx, actor, id); err != nil {
		return domain.SceneElements{}, err
	}
	return a.store.SceneElements(ctx, id)
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
// each of them exactly once; all or nothing (admin).
func (a *App) ReorderScenes(ctx context.Context, actor domain.Actor, sceneID uuid.UUID, ordered []uuid.UUID) error {
	if err := actor.RequireAdmin(); err != nil {
		return err
	}
	return a.store.InTx(ctx, func(s domain.Store) error {
		sc, err := s.GetSceneForUpdate(ctx, sceneID)
		if err != nil {
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

// CreateContent adds a content element to a scene (admin).
func (a *App) CreateContent(ctx context.Context, actor domain.Actor, sceneID uuid.UUID, f domain.ContentFields) (domain.ContentElement, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.ContentElement{}, err
	}
	sc, err := a.visibleScene(ctx, actor, sceneID)
	if err != nil {
		return domain.ContentElement{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.ContentElement{}, err
	}
	e, err := domain.NewContentElement(id, sc, f)
	if err != nil {
		return domain.ContentElement{}, err
	}
	if err := a.store.InsertContent(ctx, e); err != nil {
		return domain.ContentElement{}, err
	}
	return e, nil
}

// UpdateContent changes the fields the patch carries (admin).
func (a *App) UpdateContent(ctx context.Context, actor domain.Actor, id uuid.UUID, f domain.ContentFields) (domain.ContentElement, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.ContentElement{}, err
	}
	var e domain.ContentElement
	err := a.store.InTx(ctx, func(s domain.Store) error {
		var err error
		if e, err = s.GetContentForUpdate(ctx, id); err != nil {
			return err
		}
		if err := e.Apply(f); err != nil {
			return err
		}
		return s.UpdateContent(ctx, e)
	})
	if err != nil {
		return domain.ContentElement{}, err
	}
	return e, nil
}

// DeleteContent removes a content element (admin).
func (a *App) DeleteContent(ctx context.Context, actor domain.Actor, id uuid.UUID) error {
	if err := actor.RequireAdmin(); err != nil {
		return err
	}
	return a.store.DeleteContent(ctx, id)
}

// CreateColor adds a colour element to a scene (admin).
func (a *App) CreateColor(ctx context.Context, actor domain.Actor, sceneID uuid.UUID, f domain.ColorFields) (domain.ColorElement, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.ColorElement{}, err
	}
	sc, err := a.visibleScene(ctx, actor, sceneID)
	if err != nil {
		return domain.ColorElement{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.ColorElement{}, err
	}
	c, err := domain.NewColorElement(id, sc, f)
	if err != nil {
		return domain.ColorElement{}, err
	}
	if err := a.store.InsertColor(ctx, c); err != nil {
		return domain.ColorElement{}, err
	}
	return c, nil
}

// UpdateColor changes the fields the patch carries (admin).
func (a *App) UpdateColor(ctx context.Context, actor domain.Actor, id uuid.UUID, f domain.ColorFields) (domain.ColorElement, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.ColorElement{}, err
	}
	var c domain.ColorElement
	err := a.store.InTx(ctx, func(s domain.Store) error {
		var err error
		if c, err = s.GetColorForUpdate(ctx, id); err != nil {
			return err
		}
		if err := c.Apply(f); err != nil {
			return err
		}
		return s.UpdateColor(ctx, c)
	})
	if err != nil {
		return domain.ColorElement{}, err
	}
	return c, nil
}

// DeleteColor removes a colour element (admin).
func (a *App) DeleteColor(ctx context.Context, actor domain.Actor, id uuid.UUID) error {
	if err := actor.RequireAdmin(); err != nil {
		return err
	}
	return a.store.DeleteColor(ctx, id)
}
