package app

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// Queries answers the read API.
type Queries struct {
	store domain.ReadStore
	now   func() time.Time
}

// NewQueries returns the read use cases.
func NewQueries(store domain.ReadStore) *Queries { return &Queries{store: store, now: time.Now} }

// Now is the clock the read models are judged by (snapshot expiry, bans).
func (q *Queries) Now() time.Time { return q.now().UTC() }

// ListParams are the common parameters of a list request.
type ListParams struct {
	TenantID *uuid.UUID
	Cursor   *string
	Limit    *int
}

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

// GetTenant returns a tenant the caller may see.
func (q *Queries) GetTenant(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Tenant, error) {
	a, err := caller(actor, nil, false)
	if err != nil {
		return domain.Tenant{}, err
	}
	if !a.sees(id) {
		return domain.Tenant{}, notFound("tenant")
	}
	return q.store.GetTenant(ctx, id)
}

// ListTenants lists tenants by slug; a caller bound to a tenant sees only its own.
func (q *Queries) ListTenants(ctx context.Context, actor domain.Actor, lp ListParams, suspended *bool) ([]domain.Tenant, *string, error) {
	a, err := caller(actor, nil, false)
	if err != nil {
		return nil, nil, err
	}
	filters := struct {
		T *uuid.UUID `json:"t,omitempty"`
		S *bool      `json:"s,omitempty"`
	}{a.tenant, suspended}
	p, fp, err := page(lp.Limit, lp.Cursor, filters)
	if err != nil {
		return nil, nil, err
	}
	rows, err := q.store.ListTenants(ctx, a.tenant, suspended, p)
	if err != nil {
		return nil, nil, err
	}
	rows, next := pageResult(rows, p, fp, func(last domain.Tenant) domain.CursorKey { return domain.CursorKey{Text: &last.Slug, ID: last.ID} })
	return rows, next, nil
}

// ListAPIKeys lists the API keys of a tenant the caller may see, newest first.
func (q *Queries) ListAPIKeys(ctx context.Context, actor domain.Actor, tenant uuid.UUID, lp ListParams, revoked *bool) ([]domain.APIKey, *string, error) {
	if _, err := q.GetTenant(ctx, actor, tenant); err != nil {
		return nil, nil, err
	}
	filters := struct {
		T uuid.UUID `json:"t"`
		R *bool     `json:"r,omitempty"`
	}{tenant, revoked}
	p, fp, err := page(lp.Limit, lp.Cursor, filters)
	if err != nil {
		return nil, nil, err
	}
	rows, err := q.store.ListAPIKeys(ctx, tenant, revoked, p)
	if err != nil {
		return nil, nil, err
	}
	rows, next := pageResult(rows, p, fp, func(last domain.APIKey) domain.CursorKey { return domain.CursorKey{Time: &last.CreatedAt, ID: last.ID} })
	return rows, next, nil
}

// GetUser returns a user the caller may see.
func (q *Queries) GetUser(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.User, error) {
	return visible(actor, false, "user", func() (domain.User, error) { return q.store.GetUser(ctx, id) },
		func(u domain.User) uuid.UUID { return u.TenantID })
}

// Usage bounds.
const (
	DefaultUsageDays   = 30
	MaxUsageDays       = 366
	DefaultUsageMonths = 12
	MaxUsageMonths     = 120
)

// DailyUsage lists usage per tenant and UTC day in [from, to] (dates at 00:00 UTC);
// defaults: the last 30 days up to today.
func (q *Queries) DailyUsage(ctx context.Context, actor domain.Actor, tenant *uuid.UUID, from, to *time.Time) ([]domain.UsageRow, error) {
	a, err := caller(actor, tenant, false)
	if err != nil {
		return nil, err
	}
	today := truncateDay(q.Now())
	last := today
	if to != nil {
		last = truncateDay(*to)
	}
	first := last.AddDate(0, 0, -(DefaultUsageDays - 1))
	if from != nil {
		first = truncateDay(*from)
	}
	if first.After(last) {
		return nil, errs.InvalidFields(errs.Field("query.from", "must not be after to"))
	}
	if days := int(last.Sub(first).Hours()/24) + 1; days > MaxUsageDays {
		return nil, errs.InvalidFields(errs.Field("query.from", "the period is longer than 366 days"))
	}
	return q.store.ListUsage(ctx, domain.PeriodDay, first, last, a.tenant)
}

// MonthlyUsage lists usage per tenant and UTC month in [from, to] (first days of months);
// defaults: the last 12 months up to the current one.
func (q *Queries) MonthlyUsage(ctx context.Context, actor domain.Actor, tenant *uuid.UUID, from, to *time.Time) ([]domain.UsageRow, error) {
	a, err := caller(actor, tenant, false)
	if err != nil {
		return nil, err
	}
	now := q.Now()
	last := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	if to != nil {
		last = *to
	}
	first := last.AddDate(0, -(DefaultUsageMonths - 1), 0)
	if from != nil {
		first = *from
	}
	if first.After(last) {
		return nil, errs.InvalidFields(errs.Field("query.from", "must not be after to"))
	}
	months := (last.Year()-first.Year())*12 + int(last.Month()-first.Month()) + 1
	if months > MaxUsageMonths {
		return nil, errs.InvalidFields(errs.Field("query.from", "the period is longer than 120 months"))
	}
	return q.store.ListUsage(ctx, domain.PeriodMonth, first, last, a.tenant)
}

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

func truncateDay(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
