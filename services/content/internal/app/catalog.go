package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListTemplates searches the catalog; admins also see unpublished templates.
func (a *App) ListTemplates(ctx context.Context, actor domain.Actor, q domain.TemplateQuery) ([]domain.TemplateCard, domain.PageMeta, error) {
	q.IncludeUnpublished = actor.Admin
	q.TagIDs = domain.Distinct(q.TagIDs)
	if q.Sort == "" {
		q.Sort = domain.SortNewest
	}
	cards, total, err := a.store.ListTemplates(ctx, q)
	if err != nil {
		return nil, domain.PageMeta{}, err
	}
	return cards, q.Page.Meta(total), nil
}

// visibleContainer reads a container the actor may see.
func (a *App) visibleContainer(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Container, error) {
	c, err := a.store.GetContainer(ctx, id)
	if err != nil {
		return domain.Container{}, err
	}
	if !c.VisibleTo(actor) {
		return domain.Container{}, domain.ErrContainerNotFound
	}
	return c, nil
}

// GetTemplate reads a template by id or slug: a value that parses as a UUID is tried as an id
// first, then as a slug.
func (a *App) GetTemplate(ctx context.Context, actor domain.Actor, slugOrID string) (domain.TemplateDetail, error) {
	var (
		c   domain.Container
		err error = domain.ErrContainerNotFound
	)
	if id, perr := uuid.Parse(slugOrID); perr == nil {
		c, err = a.store.GetContainer(ctx, id)
	}
	if errs.KindOf(err) == errs.NotFound {
		c, err = a.store.GetContainerBySlug(ctx, slugOrID)
	}
	if err != nil {
		return domain.TemplateDetail{}, err
	}
	if !c.VisibleTo(actor) {
		return domain.TemplateDetail{}, domain.ErrContainerNotFound
	}
	d := domain.TemplateDetail{Container: c}
	if d.Projects, err = a.store.ListContainerProjects(ctx, c.ID, actor.Admin); err != nil {
		return domain.TemplateDetail{}, err
	}
	if d.Categories, d.Tags, err = a.store.ContainerLinks(ctx, c.ID); err != nil {
		return domain.TemplateDetail{}, err
	}
	return d, nil
}

// ListTemplateProjects lists the projects of a visible template.
func (a *App) ListTemplateProjects(ctx context.Context, actor domain.Actor, id uuid.UUID) ([]domain.ProjectSummary, error) {
	if _, err := a.visibleContainer(ctx, actor, id); err != nil {
		return nil, err
	}
	return a.store.ListContainerProjects(ctx, id, actor.Admin)
}

// ListRelatedTemplates ranks the templates sharing categories or tags with a visible template.
func (a *App) ListRelatedTemplates(ctx context.Context, actor domain.Actor, id uuid.UUID, limit *int) ([]domain.TemplateCard, error) {
	if _, err := a.visibleContainer(ctx, actor, id); err != nil {
		return nil, err
	}
	n := domain.DefaultRelatedLimit
	if limit != nil && *limit > 0 {
		n = min(*limit, domain.MaxPageSize)
	}
	return a.store.ListRelatedTemplates(ctx, id, actor.Admin, n)
}

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

// ListCategories lists every category.
func (a *App) ListCategories(ctx context.Context, _ domain.Actor) ([]domain.Category, error) {
	return a.store.ListCategories(ctx)
}

// CreateCategory creates a category under an existing parent, if any (admin).
func (a *App) CreateCategory(ctx context.Context, actor domain.Actor, c domain.Category) (domain.Category, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.Category{}, err
	}
	if err := c.Validate(); err != nil {
		return domain.Category{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.Category{}, err
	}
	c.ID = id
	if err := a.store.InsertCategory(ctx, c); err != nil {
		return domain.Category{}, err
	}
	return c, nil
}

// ListTags lists every tag.
func (a *App) ListTags(ctx context.Context, _ domain.Actor) ([]domain.Tag, error) {
	return a.store.ListTags(ctx)
}

// errNotFoundAs turns a NotFound of a referenced id into a 400 naming the body field.
func errNotFoundAs(err error, field, msg string) error {
	if errs.KindOf(err) == errs.NotFound {
		return errs.InvalidFields(errs.Field(field, msg))
	}
	return err
}
