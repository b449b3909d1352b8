// Package httpapi implements the generated strict server interface of
// specs/openapi/renderevents.yaml: each handler maps the request to an app call and the
// result to the generated response type; failures are pkg/errs errors, which pkg/httpx
// renders as problem+json.
package httpapi

import (
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/services/renderevents/internal/app"
)

// BaseURL is the path prefix of the API (the spec's server URL).
const BaseURL = "/v1"

// Handler implements api.StrictServerInterface.
type Handler struct {
	queries   *app.Queries
	webhooks  *app.Webhooks
	hub       *app.Hub
	keepAlive time.Duration

	endOnce sync.Once
	ending  chan struct{} // closed on shutdown: open streams end, clients reconnect elsewhere
}

var _ rendereventsserver.StrictServerInterface = (*Handler)(nil)

// New returns the handler; keepAlive is the idle interval of SSE comments (15s when 0).
func New(queries *app.Queries, webhooks *app.Webhooks, hub *app.Hub, keepAlive time.Duration) *Handler {
	if keepAlive <= 0 {
		keepAlive = 15 * time.Second
	}
	return &Handler{queries: queries, webhooks: webhooks, hub: hub, keepAlive: keepAlive, ending: make(chan struct{})}
}

// EndStreams ends every open progress stream (graceful shutdown: http.Server.Shutdown
// waits for them otherwise); clients reconnect with Last-Event-ID to another instance.
func (h *Handler) EndStreams() { h.endOnce.Do(func() { close(h.ending) }) }

// Register mounts the handler on e under BaseURL.
func Register(e *echo.Echo, h *Handler) {
	rendereventsserver.RegisterHandlersWithBaseURL(e, rendereventsserver.NewStrictHandler(h, nil), BaseURL)
}

func listParams(tenant *uuid.UUID, cursor *string, limit *int) app.ListParams {
	return app.ListParams{TenantID: tenant, Cursor: cursor, Limit: limit}
}
