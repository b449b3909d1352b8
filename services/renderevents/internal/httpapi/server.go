// Package httpapi implements the generated strict server interface of
// specs/openapi/renderevents.yaml: each handler maps the request to an app call and the
// result to the generated response type; failures are pkg/errs errors, which pkg/httpx
// renders as problem+json.
package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// BaseURL is the path prefix of the API (the spec's server URL).
const BaseURL = "/v1"

// Handler implements rendereventsserver.StrictServerInterface.
type Handler struct {
	queries   *app.Queries
	webhooks  *app.Webhooks
	hub       *app.Hub
	keepAlive time.Duration

	endOnce sync.Once
	ending  chan struct{} // closed on shutdown: open streams end, clients reconnect elsewhere
}

var _ rendereventsserver.StrictServerInterface = (*Handler)(nil)

// New returns the handler; keepAlive is the idle interval of SSE comments.
func New(queries *app.Queries, webhooks *app.Webhooks, hub *app.Hub, keepAlive time.Duration) *Handler {
	return &Handler{queries: queries, webhooks: webhooks, hub: hub, keepAlive: keepAlive, ending: make(chan struct{})}
}

// EndStreams ends every open progress stream (graceful shutdown: http.Server.Shutdown
// waits for them otherwise); clients reconnect with Last-Event-ID to another instance.
func (h *Handler) EndStreams() { h.endOnce.Do(func() { close(h.ending) }) }

// Register mounts the handler on e under BaseURL.
func Register(e *echo.Echo, h *Handler) {
	rendereventsserver.RegisterHandlersWithBaseURL(e, rendereventsserver.NewStrictHandler(h, nil), BaseURL)
}

// actorOf resolves the authenticated caller of the request as the application sees it.
func actorOf(ctx context.Context) (domain.Actor, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return domain.Actor{}, errs.E(errs.Unauthenticated, "a bearer token is required")
	}
	return domain.Actor{TenantID: p.TenantID, Service: p.Kind == auth.Service,
		Admin: p.Kind != auth.Service && p.HasRole(auth.AdminRole), Scopes: p.Scopes}, nil
}

func listParams(tenant *uuid.UUID, cursor *string, limit *int) app.ListParams {
	return app.ListParams{TenantID: tenant, Cursor: cursor, Limit: limit}
}
