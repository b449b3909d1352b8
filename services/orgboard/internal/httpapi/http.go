package httpapi

import (
	"context"
	"log/slog"

	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain/agentsmd"
	"github.com/videotpl/platform/specs"
)

// HTTPOptions configure NewHTTP.
type HTTPOptions struct {
	Auth      *auth.Authenticator
	Logger    *slog.Logger
	Telemetry *telemetry.Telemetry // nil: a private registry
	// Ready answers /readyz: nil when the database is reachable.
	Ready func(context.Context) error
	// HTTP bounds the server's timeouts and names the trusted proxies; zero: the defaults.
	HTTP config.HTTP
}

// NewHTTP builds the service's echo server (pkg/httpx: authentication, request validation
// against the embedded spec, problem+json) with every operation registered.
func NewHTTP(a *app.App, opts HTTPOptions) (*echo.Echo, error) {
	doc, err := specs.OpenAPI("orgboard")
	if err != nil {
		return nil, err
	}
	e, err := httpx.New(httpx.Options{
		Service:      "orgboard",
		Logger:       opts.Logger,
		SpecDocument: doc,
		Auth:         opts.Auth,
		Telemetry:    opts.Telemetry,
		// AGENTS.md uploads: 413 above agentsmd.MaxSize bytes.
		OperationBodyLimits: map[string]int64{"uploadAgentProfile": agentsmd.MaxSize},
		Ready:               opts.Ready,
		HTTP:                opts.HTTP,
	})
	if err != nil {
		return nil, err
	}
	Register(e, New(a))
	return e, nil
}
