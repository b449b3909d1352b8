package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// GetSceneElements reads the elements of a visible scene.
func (a *App) GetSceneElements(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.SceneElements, error) {
	if _, err := a.visibleScene(ctx, actor, id); err != nil {
		return domain.SceneElements{}, err
	}
	return a.store.SceneElements(ctx, id)
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
