package httpapi

import (
	"context"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// endpointToAPI never carries the secret.
func endpointToAPI(e domain.Endpoint) api.WebhookEndpoint {
	return api.WebhookEndpoint{Id: e.ID, TenantId: e.TenantID, Url: e.URL, EventTypes: e.EventTypes, Description: e.Description,
		Enabled: e.Enabled, DisabledReason: e.DisabledReason, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
		SecretRotatedAt: e.SecretRotatedAt, PreviousSecretExpiresAt: e.PreviousSecretExpiresAt}
}

func deliveryToAPI(d domain.Delivery) api.WebhookDelivery {
	return api.WebhookDelivery{Id: d.ID, EndpointId: d.EndpointID, EventId: d.EventID, EventType: d.EventType,
		Status: api.DeliveryStatus(d.Status), Attempts: d.Attempts, ResponseCode: d.ResponseCode, LatencyMs: d.LatencyMS,
		LastError: d.LastError, NextAttemptAt: d.NextAttemptAt, LastAttemptAt: d.LastAttemptAt, ReplayOf: d.ReplayOf,
		CreatedAt: d.CreatedAt}
}

// CreateWebhookEndpoint implements rendereventsserver.StrictServerInterface.
func (h *Handler) CreateWebhookEndpoint(ctx context.Context, req rendereventsserver.CreateWebhookEndpointRequestObject) (rendereventsserver.CreateWebhookEndpointResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	in := app.EndpointInput{}
	if b := req.Body; b != nil {
		types := b.EventTypes
		in = app.EndpointInput{URL: &b.Url, EventTypes: &types, Description: b.Description}
	}
	ep, err := h.webhooks.CreateEndpoint(ctx, actor, req.Params.TenantId, in)
	if err != nil {
		return nil, err
	}
	e := endpointToAPI(ep)
	return rendereventsserver.CreateWebhookEndpoint201JSONResponse{Id: e.Id, TenantId: e.TenantId, Url: e.Url, EventTypes: e.EventTypes,
		Description: e.Description, Enabled: e.Enabled, DisabledReason: e.DisabledReason, CreatedAt: e.CreatedAt,
		UpdatedAt: e.UpdatedAt, SecretRotatedAt: e.SecretRotatedAt, PreviousSecretExpiresAt: e.PreviousSecretExpiresAt,
		Secret: ep.Secret}, nil
}

// ListWebhookEndpoints implements rendereventsserver.StrictServerInterface.
func (h *Handler) ListWebhookEndpoints(ctx context.Context, req rendereventsserver.ListWebhookEndpointsRequestObject) (rendereventsserver.ListWebhookEndpointsResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	rows, next, err := h.webhooks.ListEndpoints(ctx, actor, listParams(p.TenantId, p.Cursor, p.Limit))
	if err != nil {
		return nil, err
	}
	out := rendereventsserver.ListWebhookEndpoints200JSONResponse{Data: make([]api.WebhookEndpoint, len(rows)), NextCursor: next}
	for i, e := range rows {
		out.Data[i] = endpointToAPI(e)
	}
	return out, nil
}

// GetWebhookEndpoint implements rendereventsserver.StrictServerInterface.
func (h *Handler) GetWebhookEndpoint(ctx context.Context, req rendereventsserver.GetWebhookEndpointRequestObject) (rendereventsserver.GetWebhookEndpointResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	ep, err := h.webhooks.GetEndpoint(ctx, actor, req.EndpointId)
	if err != nil {
		return nil, err
	}
	return rendereventsserver.GetWebhookEndpoint200JSONResponse(endpointToAPI(ep)), nil
}

// UpdateWebhookEndpoint implements rendereventsserver.StrictServerInterface.
func (h *Handler) UpdateWebhookEndpoint(ctx context.Context, req rendereventsserver.UpdateWebhookEndpointRequestObject) (rendereventsserver.UpdateWebhookEndpointResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	in := app.EndpointInput{}
	if b := req.Body; b != nil {
		in = app.EndpointInput{URL: b.Url, EventTypes: b.EventTypes, Description: b.Description, Enabled: b.Enabled}
	}
	ep, err := h.webhooks.UpdateEndpoint(ctx, actor, req.EndpointId, in)
	if err != nil {
		return nil, err
	}
	return rendereventsserver.UpdateWebhookEndpoint200JSONResponse(endpointToAPI(ep)), nil
}

// DeleteWebhookEndpoint implements rendereventsserver.StrictServerInterface.
func (h *Handler) DeleteWebhookEndpoint(ctx context.Context, req rendereventsserver.DeleteWebhookEndpointRequestObject) (rendereventsserver.DeleteWebhookEndpointResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.webhooks.DeleteEndpoint(ctx, actor, req.EndpointId); err != nil {
		return nil, err
	}
	return rendereventsserver.DeleteWebhookEndpoint204Response{}, nil
}

// RotateWebhookEndpointSecret implements rendereventsserver.StrictServerInterface.
func (h *Handler) RotateWebhookEndpointSecret(ctx context.Context, req rendereventsserver.RotateWebhookEndpointSecretRequestObject) (rendereventsserver.RotateWebhookEndpointSecretResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	secret, exp, err := h.webhooks.RotateSecret(ctx, actor, req.EndpointId)
	if err != nil {
		return nil, err
	}
	return rendereventsserver.RotateWebhookEndpointSecret200JSONResponse{Secret: secret, PreviousSecretExpiresAt: exp}, nil
}

// ListWebhookDeliveries implements rendereventsserver.StrictServerInterface.
func (h *Handler) ListWebhookDeliveries(ctx context.Context, req rendereventsserver.ListWebhookDeliveriesRequestObject) (rendereventsserver.ListWebhookDeliveriesResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	var status *string
	if p.Status != nil {
		s := string(*p.Status)
		status = &s
	}
	rows, next, err := h.webhooks.ListDeliveries(ctx, actor, req.EndpointId, listParams(nil, p.Cursor, p.Limit), status)
	if err != nil {
		return nil, err
	}
	out := rendereventsserver.ListWebhookDeliveries200JSONResponse{Data: make([]api.WebhookDelivery, len(rows)), NextCursor: next}
	for i, d := range rows {
		out.Data[i] = deliveryToAPI(d)
	}
	return out, nil
}

// ReplayWebhookDelivery implements rendereventsserver.StrictServerInterface.
func (h *Handler) ReplayWebhookDelivery(ctx context.Context, req rendereventsserver.ReplayWebhookDeliveryRequestObject) (rendereventsserver.ReplayWebhookDeliveryResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	d, err := h.webhooks.Replay(ctx, actor, req.DeliveryId)
	if err != nil {
		return nil, err
	}
	return rendereventsserver.ReplayWebhookDelivery202JSONResponse(deliveryToAPI(d)), nil
}
