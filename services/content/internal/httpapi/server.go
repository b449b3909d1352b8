package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/specs"
)

func value[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// BasePath is the version prefix every operation is served under.
const BasePath = "/v1"

// HTTPOptions configure NewHTTP.
type HTTPOptions struct {
	Auth      *auth.Authenticator
	Logger    *slog.Logger
	Telemetry *telemetry.Telemetry
	// Ready reports whether the dependencies answer (/readyz).
	Ready func(ctx context.Context) error
	// HTTP bounds the server's timeouts and names the trusted proxies; zero: the defaults.
	HTTP config.HTTP
}

// NewHTTP returns the echo server of the content API on a: pkg/httpx's middleware
// (authentication and validation against the embedded spec, problem+json) with every operation
// mounted under BasePath, and the upload operations allowed their larger bodies.
func NewHTTP(a *app.App, o HTTPOptions) (*echo.Echo, error) {
	doc, err := specs.OpenAPI("content")
	if err != nil {
		return nil, err
	}
	e, err := httpx.New(httpx.Options{Service: "content", Logger: o.Logger, SpecDocument: doc, Auth: o.Auth,
		Ready: o.Ready, Telemetry: o.Telemetry, HTTP: o.HTTP, OperationBodyLimits: uploadBodyLimits(a.Config())})
	if err != nil {
		return nil, err
	}
	s := &Server{app: a}
	contentserver.RegisterHandlersWithBaseURL(e, bodyUploads{contentserver.NewStrictHandler(s, nil), s}, BasePath)
	e.HTTPErrorHandler = aepTooLargeHandler(a, e.HTTPErrorHandler)
	return e, nil
}

// aepUploadRoute is the route of the single-request AEP upload as echo names it.
const aepUploadRoute = BasePath + "/projects/:project_id/aep"

// aepTooLargeHandler answers every 413 of the single-request AEP upload with the way to the
// multipart upload, whatever refused the body: a declared Content-Length above the limit
// (refused before the handler runs), a chunked body that grows past it, or the file part.
func aepTooLargeHandler(a *app.App, next echo.HTTPErrorHandler) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Request().Method == http.MethodPut && c.Path() == aepUploadRoute && tooLarge(err) {
			err = a.AepTooLarge()
		}
		next(err, c)
	}
}

// tooLarge reports whether err refuses a body for its size.
func tooLarge(err error) bool {
	var maxed *http.MaxBytesError
	var he *echo.HTTPError
	return errs.KindOf(err) == errs.TooLarge || errors.As(err, &maxed) ||
		(errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge)
}

// Server implements contentserver.StrictServerInterface.
type Server struct {
	app *app.App
}

var _ contentserver.StrictServerInterface = (*Server)(nil)

// actorOf is the caller of the request as the application sees it. pkg/httpx has
// authenticated every operation of the spec before a handler runs.
func actorOf(ctx context.Context) (domain.Actor, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return domain.Actor{}, errs.E(errs.Unauthenticated, "a bearer token is required")
	}
	service := p.Kind == auth.Service
	a := domain.Actor{UserID: p.UserID, TenantID: p.TenantID, Service: service, Name: p.Name,
		Admin: (!service && p.HasRole(domain.PlatformAdminRole)) || (service && p.HasScope(domain.AdminScope))}
	if a.Name == "" {
		a.Name = "user:" + p.UserID.String()
	}
	return a, nil
}

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
