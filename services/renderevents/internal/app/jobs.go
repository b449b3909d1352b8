package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// GetJob returns a job the caller may see.
func (q *Queries) GetJob(ctx context.Context, actor domain.Actor, id uuid.UUID) (*domain.Job, error) {
	return visible(actor, false, "render job", func() (*domain.Job, error) { return q.store.GetJob(ctx, id) },
		func(j *domain.Job) uuid.UUID { return j.TenantID })
}

// ListJobs lists jobs newest first.
func (q *Queries) ListJobs(ctx context.Context, actor domain.Actor, lp ListParams, f domain.JobFilter) ([]*domain.Job, *string, error) {
	a, err := caller(actor, lp.TenantID, false)
	if err != nil {
		return nil, nil, err
	}
	f.TenantID = a.tenant
	p, fp, err := page(lp.Limit, lp.Cursor, f)
	if err != nil {
		return nil, nil, err
	}
	rows, err := q.store.ListJobs(ctx, f, p)
	if err != nil {
		return nil, nil, err
	}
	rows, next := pageResult(rows, p, fp, func(last *domain.Job) domain.CursorKey { return domain.CursorKey{Time: &last.CreatedAt, ID: last.ID} })
	return rows, next, nil
}

// Timeline returns the life-cycle events of a job the caller may see.
func (q *Queries) Timeline(ctx context.Context, actor domain.Actor, id uuid.UUID) ([]domain.TimelineEntry, error) {
	if _, err := q.GetJob(ctx, actor, id); err != nil {
		return nil, err
	}
	return q.store.Timeline(ctx, id)
}
