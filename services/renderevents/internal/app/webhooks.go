package app

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// Webhooks manages tenants' webhook endpoints.
type Webhooks struct {
	store    domain.WebhookStore
	policy   *egress.Policy
	resolver egress.Resolver
	now      func() time.Time
	// OnReplay wakes the dispatcher; may be nil.
	OnReplay func()
}

// NewWebhooks returns the webhook use cases; URLs are checked against policy, resolving
// names with resolver (every address must pass; plain http only into the allow-list).
func NewWebhooks(store domain.WebhookStore, policy *egress.Policy, resolver egress.Resolver) *Webhooks {
	return &Webhooks{store: store, policy: policy, resolver: resolver, now: time.Now}
}

// EndpointInput is a create or partial update (nil = unchanged).
type EndpointInput struct {
	URL         *string
	EventTypes  *[]string
	Description *string
	Enabled     *bool
}

// CreateEndpoint registers an endpoint for the caller's tenant (or tenant, for an admin or
// a service token) and returns it with its secret, shown once.
func (w *Webhooks) CreateEndpoint(ctx context.Context, actor domain.Actor, tenant *uuid.UUID, in EndpointInput) (domain.Endpoint, error) {
	a, err := caller(actor, tenant, true)
	if err != nil {
		return domain.Endpoint{}, err
	}
	if a.seesAll() && a.actor.TenantID != uuid.Nil {
		t := a.actor.TenantID // an admin without tenant_id registers for its own tenant
		a.tenant = &t
	}
	if a.seesAll() {
		return domain.Endpoint{}, errs.InvalidFields(errs.Field("query.tenant_id", "names the tenant of the endpoint and is required here"))
	}
	if in.URL == nil || in.EventTypes == nil {
		return domain.Endpoint{}, errs.InvalidFields(errs.Field("body", "url and event_types are required"))
	}
	if err := w.check(ctx, in); err != nil {
		return domain.Endpoint{}, err
	}
	secret, err := domain.NewSecret()
	if err != nil {
		return domain.Endpoint{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return domain.Endpoint{}, err
	}
	now := w.now().UTC()
	ep := domain.Endpoint{ID: id, TenantID: *a.tenant, URL: *in.URL, EventTypes: *in.EventTypes, Enabled: true,
		Secret: secret, CreatedAt: now, UpdatedAt: now}
	if in.Description != nil {
		ep.Description = *in.Description
	}
	return w.store.CreateEndpoint(ctx, ep)
}

func (w *Webhooks) check(ctx context.Context, in EndpointInput) error {
	if in.URL != nil {
		if err := w.policy.CheckURL(ctx, *in.URL, egress.URLRules{Resolver: w.resolver, HTTPSOnly: true}); err != nil {
			return errs.InvalidFields(errs.Field("body.url", err.Error()))
		}
	}
	if in.EventTypes != nil {
		if err := domain.ValidateEventTypes("body.event_types", *in.EventTypes); err != nil {
			return err
		}
	}
	return nil
}

// endpoint returns an endpoint the caller may see (write: may change).
func (w *Webhooks) endpoint(ctx context.Context, actor domain.Actor, id uuid.UUID, write bool) (domain.Endpoint, error) {
	return visible(actor, write, "webhook endpoint", func() (domain.Endpoint, error) { return w.store.GetEndpoint(ctx, id) },
		func(ep domain.Endpoint) uuid.UUID { return ep.TenantID })
}

// GetEndpoint returns an endpoint (without its secret).
func (w *Webhooks) GetEndpoint(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Endpoint, error) {
	return w.endpoint(ctx, actor, id, false)
}

// ListEndpoints lists endpoints newest first.
func (w *Webhooks) ListEndpoints(ctx context.Context, actor domain.Actor, lp ListParams) ([]domain.Endpoint, *string, error) {
	a, err := caller(actor, lp.TenantID, false)
	if err != nil {
		return nil, nil, err
	}
	filters := struct {
		T *uuid.UUID `json:"t,omitempty"`
	}{a.tenant}
	p, fp, err := page(lp.Limit, lp.Cursor, filters)
	if err != nil {
		return nil, nil, err
	}
	rows, err := w.store.ListEndpoints(ctx, a.tenant, p)
	if err != nil {
		return nil, nil, err
	}
	rows, next := pageResult(rows, p, fp, func(last domain.Endpoint) domain.CursorKey {
		return domain.CursorKey{Time: &last.CreatedAt, ID: last.ID}
	})
	return rows, next, nil
}

// UpdateEndpoint applies a partial update. Enabling an endpoint clears its failure count
// and disabled_reason.
func (w *Webhooks) UpdateEndpoint(ctx context.Context, actor domain.Actor, id uuid.UUID, in EndpointInput) (domain.Endpoint, error) {
	if _, err := w.endpoint(ctx, actor, id, true); err != nil {
		return domain.Endpoint{}, err
	}
	if err := w.check(ctx, in); err != nil {
		return domain.Endpoint{}, err
	}
	now := w.now().UTC()
	return w.store.UpdateEndpoint(ctx, id, func(ep *domain.Endpoint) error {
		if in.URL != nil {
			ep.URL = *in.URL
		}
		if in.EventTypes != nil {
			ep.EventTypes = *in.EventTypes
		}
		if in.Description != nil {
			ep.Description = *in.Description
		}
		if in.Enabled != nil {
			switch {
			case *in.Enabled && !ep.Enabled:
				ep.Enabled, ep.DisabledReason, ep.ConsecutiveFailures = true, nil, 0
			case !*in.Enabled && ep.Enabled:
				reason := "disabled on request"
				ep.Enabled, ep.DisabledReason = false, &reason
			}
		}
		ep.UpdatedAt = now
		return nil
	})
}

// DeleteEndpoint deletes an endpoint; its pending deliveries are given up.
func (w *Webhooks) DeleteEndpoint(ctx context.Context, actor domain.Actor, id uuid.UUID) error {
	if _, err := w.endpoint(ctx, actor, id, true); err != nil {
		return err
	}
	return w.store.DeleteEndpoint(ctx, id, w.now().UTC())
}

// RotateSecret makes a new secret; the previous one keeps signing for the overlap.
func (w *Webhooks) RotateSecret(ctx context.Context, actor domain.Actor, id uuid.UUID) (string, time.Time, error) {
	if _, err := w.endpoint(ctx, actor, id, true); err != nil {
		return "", time.Time{}, err
	}
	secret, err := domain.NewSecret()
	if err != nil {
		return "", time.Time{}, err
	}
	now := w.now().UTC()
	exp := now.Add(domain.SecretOverlap)
	if _, err := w.store.RotateSecret(ctx, id, secret, exp, now); err != nil {
		return "", time.Time{}, err
	}
	return secret, exp, nil
}

// ListDeliveries lists an endpoint's deliveries newest first.
func (w *Webhooks) ListDeliveries(ctx context.Context, actor domain.Actor, endpoint uuid.UUID, lp ListParams, status *string) ([]domain.Delivery, *string, error) {
	if _, err := w.endpoint(ctx, actor, endpoint, false); err != nil {
		return nil, nil, err
	}
	filters := struct {
		E uuid.UUID `json:"e"`
		S *string   `json:"s,omitempty"`
	}{endpoint, status}
	p, fp, err := page(lp.Limit, lp.Cursor, filters)
	if err != nil {
		return nil, nil, err
	}
	rows, err := w.store.ListDeliveries(ctx, endpoint, status, p)
	if err != nil {
		return nil, nil, err
	}
	rows, next := pageResult(rows, p, fp, func(last domain.Delivery) domain.CursorKey {
		return domain.CursorKey{Time: &last.CreatedAt, ID: last.ID}
	})
	return rows, next, nil
}

// Replay queues a new delivery of a delivery's event to its endpoint (409 when the
// endpoint is disabled).
func (w *Webhooks) Replay(ctx context.Context, actor domain.Actor, deliveryID uuid.UUID) (domain.Delivery, error) {
	a, err := caller(actor, nil, true)
	if err != nil {
		return domain.Delivery{}, err
	}
	d, err := w.store.GetDelivery(ctx, deliveryID)
	if err != nil {
		return domain.Delivery{}, err
	}
	if !a.sees(d.TenantID) {
		return domain.Delivery{}, notFound("webhook delivery")
	}
	ep, err := w.store.GetEndpoint(ctx, d.EndpointID)
	if err != nil {
		return domain.Delivery{}, err
	}
	if !ep.Enabled {
		return domain.Delivery{}, errs.E(errs.Conflict, "the endpoint is disabled; enable it before replaying")
	}
	id, err := uuid.NewV7()
	if err != nil {
		return domain.Delivery{}, err
	}
	out, err := w.store.InsertReplay(ctx, d, id, w.now().UTC())
	if err == nil && w.OnReplay != nil {
		w.OnReplay()
	}
	return out, err
}
