package httpapi

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// Server implements orgboardserver.StrictServerInterface.
type Server struct {
	app *app.App
}

var _ orgboardserver.StrictServerInterface = (*Server)(nil)

// New returns the handlers of the service.
func New(a *app.App) *Server {
	return &Server{app: a}
}

// Register mounts the handlers on e (built with pkg/httpx, which authenticates and validates
// every request against the spec first); a caller the identity service blocks is refused before
// any of them runs.
func Register(e *echo.Echo, s *Server) {
	orgboardserver.RegisterHandlers(e, orgboardserver.NewStrictHandler(s, []orgboardserver.StrictMiddlewareFunc{s.refuseBlocked}))
}

// ActorOf turns the request's authenticated principal into the domain's actor.
func ActorOf(ctx context.Context) (domain.Actor, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return domain.Actor{}, errs.E(errs.Unauthenticated, "a bearer token is required")
	}
	a := domain.UserActor(p.UserID)
	if p.Kind == auth.Service {
		a = domain.ServiceActor(p.Name, p.HasScope(domain.AdminScope))
	}
	a.TenantID = p.TenantID
	return a, nil
}
