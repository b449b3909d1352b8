package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// containerRow is the shape of the three container lookups.
type containerRow = contentdb.GetContainerRow

func containerFrom(r containerRow) domain.Container {
	return domain.Container{
		ID: r.ID, Slug: r.Slug, Name: r.Name, Description: r.Description, Keywords: r.Keywords,
		NewsText: r.NewsText, Image: r.Image, Demo: r.Demo, FullDemo: r.FullDemo, MiniDemo: r.MiniDemo,
		IsPublished: r.IsPublished, IsPremium: r.IsPremium, IsMockup: r.IsMockup,
		PrimaryMode: r.PrimaryMode, RateAvg: r.RateAvg, RateCount: int(r.RateCount),
		UseCount: r.UseCount, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, DeletedAt: r.DeletedAt,
	}
}

// GetContainer reads a container whatever its state.
func (s *Store) GetContainer(ctx context.Context, id uuid.UUID) (domain.Container, error) {
	r, err := s.q.GetContainer(ctx, id)
	if err != nil {
		return domain.Container{}, translate(err, domain.ErrContainerNotFound)
	}
	return containerFrom(r), nil
}

// GetContainerForUpdate reads and locks a container.
func (s *Store) GetContainerForUpdate(ctx context.Context, id uuid.UUID) (domain.Container, error) {
	r, err := s.q.GetContainerForUpdate(ctx, id)
	if err != nil {
		return domain.Container{}, translate(err, domain.ErrContainerNotFound)
	}
	return containerFrom(containerRow(r)), nil
}

// GetContainerBySlug reads a container by slug whatever its state.
func (s *Store) GetContainerBySlug(ctx context.Context, slug string) (domain.Container, error) {
	r, err := s.q.GetContainerBySlug(ctx, slug)
	if err != nil {
		return domain.Container{}, translate(err, domain.ErrContainerNotFound)
	}
	return containerFrom(containerRow(r)), nil
}

// InsertContainer writes a new container.
func (s *Store) InsertContainer(ctx context.Context, c domain.Container) error {
	err := s.q.InsertContainer(ctx, contentdb.InsertContainerParams{
		ID: c.ID, Slug: c.Slug, Name: c.Name, Description: c.Description, Keywords: c.Keywords,
		NewsText: c.NewsText, Image: c.Image, Demo: c.Demo, FullDemo: c.FullDemo, MiniDemo: c.MiniDemo,
		IsPublished: c.IsPublished, IsPremium: c.IsPremium, IsMockup: c.IsMockup,
		PrimaryMode: c.PrimaryMode, RateAvg: c.RateAvg, RateCount: i32(c.RateCount),
		UseCount: c.UseCount, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	})
	return translate(err, nil)
}

// UpdateContainer writes the writable fields of a container.
func (s *Store) UpdateContainer(ctx context.Context, c domain.Container) error {
	err := s.q.UpdateContainer(ctx, contentdb.UpdateContainerParams{
		ID: c.ID, Slug: c.Slug, Name: c.Name, Description: c.Description, PrimaryMode: c.PrimaryMode,
		IsPremium: c.IsPremium, IsMockup: c.IsMockup, UpdatedAt: c.UpdatedAt,
	})
	return translate(err, nil)
}

// SetContainerLinks replaces the given link sets and their copies on the container row. A set
// is replaced in place (links outside it removed, missing ones added), so sending the links the
// container has already changes nothing; the caller holds the container's lock.
func (s *Store) SetContainerLinks(ctx context.Context, id uuid.UUID, categories, tags *[]uuid.UUID) error {
	if categories == nil && tags == nil {
		return nil
	}
	if categories != nil {
		if err := s.q.RemoveContainerCategoriesOutside(ctx, contentdb.RemoveContainerCategoriesOutsideParams{ContainerID: id, CategoryIds: *categories}); err != nil {
			return translate(err, nil)
		}
		if err := s.q.AddContainerCategories(ctx, contentdb.AddContainerCategoriesParams{ContainerID: id, CategoryIds: *categories}); err != nil {
			return translate(err, nil)
		}
	}
	if tags != nil {
		if err := s.q.RemoveContainerTagsOutside(ctx, contentdb.RemoveContainerTagsOutsideParams{ContainerID: id, TagIds: *tags}); err != nil {
			return translate(err, nil)
		}
		if err := s.q.AddContainerTags(ctx, contentdb.AddContainerTagsParams{ContainerID: id, TagIds: *tags}); err != nil {
			return translate(err, nil)
		}
	}
	cats, ts, err := s.ContainerLinks(ctx, id)
	if err != nil {
		return err
	}
	p := contentdb.SetContainerLinkArraysParams{ID: id, CategoryIds: make([]uuid.UUID, len(cats)), TagIds: make([]uuid.UUID, len(ts))}
	for i, c := range cats {
		p.CategoryIds[i] = c.ID
	}
	for i, t := range ts {
		p.TagIds[i] = t.ID
	}
	return s.q.SetContainerLinkArrays(ctx, p)
}

// SetContainerPublished publishes or unpublishes a container and logs it with the reason.
func (s *Store) SetContainerPublished(ctx context.Context, id uuid.UUID, published bool, reason, actor string, at time.Time) error {
	if err := s.q.SetContainerPublished(ctx, contentdb.SetContainerPublishedParams{ID: id, IsPublished: published, UpdatedAt: at}); err != nil {
		return err
	}
	logID, err := uuid.NewV7()
	if err != nil {
		return err
	}
	return s.q.InsertPublicationLog(ctx, contentdb.InsertPublicationLogParams{
		ID: logID, ContainerID: id, Published: published, Reason: reason, Actor: actor, At: at,
	})
}

// SoftDeleteContainer marks a container deleted.
func (s *Store) SoftDeleteContainer(ctx context.Context, id uuid.UUID, at time.Time) error {
	return s.q.SoftDeleteContainer(ctx, contentdb.SoftDeleteContainerParams{ID: id, DeletedAt: &at})
}
