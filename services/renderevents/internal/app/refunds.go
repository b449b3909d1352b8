package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// ListRefunds lists refunds due (status due, settled or all), oldest first.
func (q *Queries) ListRefunds(ctx context.Context, actor domain.Actor, lp ListParams, status string) ([]domain.RefundDue, *string, error) {
	a, err := caller(actor, lp.TenantID, false)
	if err != nil {
		return nil, nil, err
	}
	if status == "" {
		status = "due"
	}
	filters := struct {
		T *uuid.UUID `json:"t,omitempty"`
		S string     `json:"s"`
	}{a.tenant, status}
	p, fp, err := page(lp.Limit, lp.Cursor, filters)
	if err != nil {
		return nil, nil, err
	}
	rows, err := q.store.ListRefunds(ctx, a.tenant, status, p)
	if err != nil {
		return nil, nil, err
	}
	rows, next := pageResult(rows, p, fp, func(last domain.RefundDue) domain.CursorKey {
		return domain.CursorKey{Time: &last.DueSince, ID: last.JobID}
	})
	return rows, next, nil
}
