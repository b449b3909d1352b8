package httpapi

import (
	"context"
	"log/slog"

	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/specs"
)

// HTTPOptions configure NewHTTP.
type HTTPOptions struct {
	Auth      *auth.Authenticator
	Logger    *slog.Logger
	Telemetry *telemetry.Telemetry
	// Ready reports whether the dependencies answer (/readyz).
	Ready func(ctx context.Context) error
	// OperationBodyLimits raise the body limit of named operations (the uploads).
	OperationBodyLimits map[string]int64
}

// NewHTTP returns the echo server of the content API: pkg/httpx's middleware (authentication
// and validation against the embedded spec, problem+json) with every operation of s mounted.
func NewHTTP(s *Server, o HTTPOptions) (*echo.Echo, error) {
	doc, err := specs.OpenAPI("content")
	if err != nil {
		return nil, err
	}
	e, err := httpx.New(httpx.Options{Service: "content", Logger: o.Logger, SpecDocument: doc, Auth: o.Auth,
		Ready: o.Ready, Telemetry: o.Telemetry, OperationBodyLimits: o.OperationBodyLimits})
	if err != nil {
		return nil, err
	}
	Register(e, s)
	return e, nil
}
