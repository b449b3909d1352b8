package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/mcp"
	"github.com/videotpl/platform/services/orgboard/internal/modelgw"
)

// AgentsConfig holds the environment variables of the agents part; its keyring (SEAL_KEYS) and
// outbound allow-list (OUTBOUND_ALLOW_CIDRS) come from pkg/config.
type AgentsConfig struct {
	ModelTimeout      time.Duration `env:"MODEL_TIMEOUT" envDefault:"60s" desc:"time limit of one model call"`
	ToolCallTimeout   time.Duration `env:"TOOL_CALL_TIMEOUT" envDefault:"30s" desc:"time limit of a governed tool call"`
	ToolTestTimeout   time.Duration `env:"TOOL_TEST_TIMEOUT" envDefault:"10s" desc:"time limit of a tool-server connectivity test"`
	ToolDiscoveryTime time.Duration `env:"TOOL_DISCOVERY_TIMEOUT" envDefault:"10s" desc:"time limit of the tool discovery of one server while a run is prepared"`
}

// version names this client to tool servers.
const version = "1.0.0"

func agentDeps(_ context.Context, c Config, log *slog.Logger) (app.AgentDeps, error) {
	policy, err := egress.ParseAllowList(c.OutboundAllow)
	if err != nil {
		return app.AgentDeps{}, err
	}
	ring, err := seal.Load(c.SealKeys, c.Environment.IsDevelopment(), log)
	if err != nil {
		return app.AgentDeps{}, fmt.Errorf("SEAL_KEYS: %w", err)
	}
	transport := policy.Transport()
	return app.AgentDeps{
		Sealer:           ring,
		Models:           modelgw.New(&http.Client{Transport: transport}, c.ModelTimeout),
		Tools:            mcp.New(transport, "videotpl-orgboard", version),
		Outbound:         policy,
		ToolCallTimeout:  c.ToolCallTimeout,
		ToolTestTimeout:  c.ToolTestTimeout,
		DiscoveryTimeout: c.ToolDiscoveryTime,
	}, nil
}

// seedBuiltins inserts the builtin agent profiles that are missing (idempotent).
func seedBuiltins(ctx context.Context, a *app.App, log *slog.Logger) error {
	n, err := a.SeedBuiltinProfiles(ctx)
	if err != nil {
		return fmt.Errorf("seed builtin agent profiles: %w", err)
	}
	if n > 0 {
		log.Info("seeded builtin agent profiles", slog.Int("inserted", n))
	}
	return nil
}
