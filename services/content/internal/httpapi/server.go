package httpapi

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// BasePath is the version prefix every operation is served under.
const BasePath = "/v1"

// Server implements content.StrictServerInterface.
type Server struct {
	app   *app.App
	media Media
}

var _ contentserver.StrictServerInterface = (*Server)(nil)

// New returns the handlers of the catalog core on a; media serves the upload and SVG-preview
// operations (see media.go) and may be nil.
func New(a *app.App, media Media) *Server { return &Server{app: a, media: media} }

// Register mounts every operation of the spec under BasePath on e.
func Register(e *echo.Echo, s *Server) {
	contentserver.RegisterHandlersWithBaseURL(e, contentserver.NewStrictHandler(s, nil), BasePath)
}

// actorOf is the caller of the request as the application sees it. pkg/httpx has
// authenticated every operation of the spec before a handler runs.
func actorOf(ctx context.Context) (domain.Actor, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return domain.Actor{}, errs.E(errs.Unauthenticated, "a bearer token is required")
	}
	a := domain.Actor{UserID: p.UserID, TenantID: p.TenantID, Service: p.Kind == auth.Service,
		Admin: p.IsAdmin(domain.AdminScope), Name: p.Name}
	if a.Name == "" {
		a.Name = "user:" + p.UserID.String()
	}
	return a, nil
}

// ActorOf is actorOf for the media pipeline's handlers.
func ActorOf(ctx context.Context) (domain.Actor, error) { return actorOf(ctx) }

func ptr[T any](v T) *T { return &v }

// mapAll maps every element of in (never returning nil, so lists render as []).
func mapAll[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i := range in {
		out[i] = f(in[i])
	}
	return out
}

func metaOut(m domain.PageMeta) content.PaginationMeta {
	return content.PaginationMeta{Page: m.Page, PageSize: m.PageSize, Total: m.Total, HasMore: m.HasMore}
}
