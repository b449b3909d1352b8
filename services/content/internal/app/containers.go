package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// checkLinks names every category and tag id of f that does not exist.
func (a *App) checkLinks(ctx context.Context, s domain.Store, f domain.ContainerFields) error {
	var bad []errs.FieldError
	if f.CategoryIDs != nil && len(*f.CategoryIDs) > 0 {
		known, err := s.ExistingCategoryIDs(ctx, *f.CategoryIDs)
		if err != nil {
			return err
		}
		bad = append(bad, domain.UnknownIDs("category_ids", *f.CategoryIDs, known)...)
	}
	if f.TagIDs != nil && len(*f.TagIDs) > 0 {
		known, err := s.ExistingTagIDs(ctx, *f.TagIDs)
		if err != nil {
			return err
		}
		bad = append(bad, domain.UnknownIDs("tag_ids", *f.TagIDs, known)...)
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

func distinctLinks(f *domain.ContainerFields) (cats, tags *[]uuid.UUID) {
	if f.CategoryIDs != nil {
		d := domain.Distinct(*f.CategoryIDs)
		cats = &d
	}
	if f.TagIDs != nil {
		d := domain.Distinct(*f.TagIDs)
		tags = &d
	}
	return cats, tags
}

// CreateContainer creates an unpublished container with its links (admin).
func (a *App) CreateContainer(ctx context.Context, actor domain.Actor, f domain.ContainerFields) (domain.Container, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.Container{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.Container{}, err
	}
	c, err := domain.NewContainer(id, f, a.now())
	if err != nil {
		return domain.Container{}, err
	}
	err = a.store.InTx(ctx, func(s domain.Store) error {
		if err := a.checkLinks(ctx, s, f); err != nil {
			return err
		}
		if err := s.InsertContainer(ctx, c); err != nil {
			return err
		}
		cats, tags := distinctLinks(&f)
		return s.SetContainerLinks(ctx, c.ID, cats, tags)
	})
	if err != nil {
		return domain.Container{}, err
	}
	return c, nil
}

// lockLiveContainer locks a container that is not deleted.
func lockLiveContainer(ctx context.Context, s domain.Store, id uuid.UUID) (domain.Container, error) {
	c, err := s.GetContainerForUpdate(ctx, id)
	if err != nil {
		return domain.Container{}, err
	}
	if c.DeletedAt != nil {
		return domain.Container{}, domain.ErrContainerNotFound
	}
	return c, nil
}

// UpdateContainer changes the fields the patch carries (admin).
func (a *App) UpdateContainer(ctx context.Context, actor domain.Actor, id uuid.UUID, f domain.ContainerFields) (domain.Container, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.Container{}, err
	}
	var c domain.Container
	err := a.store.InTx(ctx, func(s domain.Store) error {
		var err error
		if c, err = lockLiveContainer(ctx, s, id); err != nil {
			return err
		}
		if err := c.Apply(f, a.now()); err != nil {
			return err
		}
		if err := a.checkLinks(ctx, s, f); err != nil {
			return err
		}
		if err := s.UpdateContainer(ctx, c); err != nil {
			return err
		}
		cats, tags := distinctLinks(&f)
		return s.SetContainerLinks(ctx, c.ID, cats, tags)
	})
	if err != nil {
		return domain.Container{}, err
	}
	return c, nil
}

// DeleteContainer soft-deletes a container (admin); its slug stays reserved.
func (a *App) DeleteContainer(ctx context.Context, actor domain.Actor, id uuid.UUID) error {
	if err := actor.RequireAdmin(); err != nil {
		return err
	}
	return a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := lockLiveContainer(ctx, s, id); err != nil {
			return err
		}
		return s.SoftDeleteContainer(ctx, id, a.now())
	})
}

// SetPublished publishes or unpublishes a container (admin); every call is logged with its
// reason. Repeating the current state is no error.
func (a *App) SetPublished(ctx context.Context, actor domain.Actor, id uuid.UUID, published bool, reason string) error {
	if err := actor.RequireAdmin(); err != nil {
		return err
	}
	return a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := lockLiveContainer(ctx, s, id); err != nil {
			return err
		}
		return s.SetContainerPublished(ctx, id, published, reason, actor.Name, a.now())
	})
}
