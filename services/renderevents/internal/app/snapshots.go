package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// GetSnapshot returns a snapshot the caller may see.
func (q *Queries) GetSnapshot(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Snapshot, error) {
	return visible(actor, false, "snapshot", func() (domain.Snapshot, error) { return q.store.GetSnapshot(ctx, id) },
		func(s domain.Snapshot) uuid.UUID { return s.TenantID })
}

// ListSnapshots lists snapshots newest first.
func (q *Queries) ListSnapshots(ctx context.Context, actor domain.Actor, lp ListParams, f domain.SnapshotFilter) ([]domain.Snapshot, *string, error) {
	a, err := caller(actor, lp.TenantID, false)
	if err != nil {
		return nil, nil, err
	}
	f.TenantID = a.tenant
	p, fp, err := page(lp.Limit, lp.Cursor, f)
	if err != nil {
		return nil, nil, err
	}
	rows, err := q.store.ListSnapshots(ctx, f, q.Now(), p)
	if err != nil {
		return nil, nil, err
	}
	rows, next := pageResult(rows, p, fp, func(last domain.Snapshot) domain.CursorKey {
		return domain.CursorKey{Time: &last.CreatedAt, ID: last.ID}
	})
	return rows, next, nil
}
