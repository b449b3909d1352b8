package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

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
