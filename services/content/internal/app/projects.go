package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// checkProjectRefs verifies the container and render server a project points to.
func checkProjectRefs(ctx context.Context, s domain.Store, p domain.Project) error {
	var bad []errs.FieldError
	c, err := s.GetContainer(ctx, p.ContainerID)
	switch {
	case errs.KindOf(err) == errs.NotFound || (err == nil && c.DeletedAt != nil):
		bad = append(bad, errs.Field("body.container_id", "is not an existing template"))
	case err != nil:
		return err
	}
	if p.ProjectServerID != nil {
		ok, err := s.ProjectServerExists(ctx, *p.ProjectServerID)
		if err != nil {
			return err
		}
		if !ok {
			bad = append(bad, errs.Field("body.project_server_id", "is not an existing project server"))
		}
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// CreateProject creates a project in a template (admin).
func (a *App) CreateProject(ctx context.Context, actor domain.Actor, f domain.ProjectFields) (domain.Project, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.Project{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.Project{}, err
	}
	p, err := domain.NewProject(id, f, a.now())
	if err != nil {
		return domain.Project{}, err
	}
	err = a.store.InTx(ctx, func(s domain.Store) error {
		if err := checkProjectRefs(ctx, s, p); err != nil {
			return err
		}
		return s.InsertProject(ctx, p)
	})
	if err != nil {
		return domain.Project{}, err
	}
	return p, nil
}

// GetProject reads a visible project.
func (a *App) GetProject(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Project, error) {
	return a.visibleProject(ctx, actor, id)
}

// lockLiveProject locks a project whose container is not deleted.
func lockLiveProject(ctx context.Context, s domain.Store, id uuid.UUID) (domain.Project, error) {
	p, vis, err := s.GetProjectForUpdate(ctx, id)
	if err != nil {
		return domain.Project{}, err
	}
	if vis.ContainerDeleted {
		return domain.Project{}, domain.ErrProjectNotFound
	}
	return p, nil
}

// UpdateProject changes the fields the patch carries (admin).
func (a *App) UpdateProject(ctx context.Context, actor domain.Actor, id uuid.UUID, f domain.ProjectFields) (domain.Project, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.Project{}, err
	}
	var p domain.Project
	err := a.store.InTx(ctx, func(s domain.Store) error {
		var err error
		if p, err = lockLiveProject(ctx, s, id); err != nil {
			return err
		}
		if err := p.Apply(f, a.now()); err != nil {
			return err
		}
		if f.ContainerID != nil || f.ProjectServerID != nil {
			if err := checkProjectRefs(ctx, s, p); err != nil {
				return err
			}
		}
		return s.UpdateProject(ctx, p)
	})
	if err != nil {
		return domain.Project{}, err
	}
	return p, nil
}

// DeleteProject removes a project with its scenes, elements and stories (admin).
func (a *App) DeleteProject(ctx context.Context, actor domain.Actor, id uuid.UUID) error {
	if err := actor.RequireAdmin(); err != nil {
		return err
	}
	return a.store.DeleteProject(ctx, id)
}

// GetProjectFull reads the whole aggregate of a visible project; non-admins see its published
// preset stories only.
func (a *App) GetProjectFull(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.ProjectFull, error) {
	p, err := a.visibleProject(ctx, actor, id)
	if err != nil {
		return domain.ProjectFull{}, err
	}
	return a.store.ProjectFull(ctx, p, actor.Admin)
}

// ListSharedLayers lists the shared layers of a visible project.
func (a *App) ListSharedLayers(ctx context.Context, actor domain.Actor, projectID uuid.UUID) ([]domain.SharedLayer, error) {
	if _, err := a.visibleProject(ctx, actor, projectID); err != nil {
		return nil, err
	}
	return a.store.ListSharedLayers(ctx, projectID)
}

// CreateSharedLayer adds a shared layer to a project (admin).
func (a *App) CreateSharedLayer(ctx context.Context, actor domain.Actor, projectID uuid.UUID, f domain.SharedLayerFields) (domain.SharedLayer, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.SharedLayer{}, err
	}
	if _, err := a.visibleProject(ctx, actor, projectID); err != nil {
		return domain.SharedLayer{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.SharedLayer{}, err
	}
	l, err := domain.NewSharedLayer(id, projectID, f)
	if err != nil {
		return domain.SharedLayer{}, err
	}
	if err := a.store.InsertSharedLayer(ctx, l); err != nil {
		return domain.SharedLayer{}, err
	}
	return l, nil
}

// ListSharedColors lists the shared colours of a visible project.
func (a *App) ListSharedColors(ctx context.Context, actor domain.Actor, projectID uuid.UUID) ([]domain.SharedColor, error) {
	if _, err := a.visibleProject(ctx, actor, projectID); err != nil {
		return nil, err
	}
	return a.store.ListSharedColors(ctx, projectID)
}
