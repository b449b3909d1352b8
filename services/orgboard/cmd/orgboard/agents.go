package main

// The environment of the agents part (issue 8) and the dependencies built from it.

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/mcp"
	"github.com/videotpl/platform/services/orgboard/internal/modelgw"
	"github.com/videotpl/platform/services/orgboard/internal/outbound"
	"github.com/videotpl/platform/services/orgboard/internal/seal"
)

// AgentsConfig holds the environment variables of the agents part.
type AgentsConfig struct {
	SealKeys          string        `env:"ORGBOARD_SEAL_KEYS" desc:"keyring sealing model keys and tool-server headers (AES-256-GCM): kid:base64key[,kid:base64key...], 32-byte keys; the first seals, all open (rotation). Empty: an ephemeral key, so sealed secrets do not survive a restart (development only)" secret:"true"`
	OutboundAllow     string        `env:"OUTBOUND_ALLOW_CIDRS" desc:"comma-separated CIDR ranges tool servers and model gateways may reach although internal (loopback, private, link-local are denied otherwise), e.g. 10.20.0.0/16"`
	ModelTimeout      time.Duration `env:"MODEL_TIMEOUT" envDefault:"60s" desc:"time limit of one model call"`
	ToolCallTimeout   time.Duration `env:"TOOL_CALL_TIMEOUT" envDefault:"30s" desc:"time limit of a governed tool call"`
	ToolTestTimeout   time.Duration `env:"TOOL_TEST_TIMEOUT" envDefault:"10s" desc:"time limit of a tool-server connectivity test"`
	ToolDiscoveryTime time.Duration `env:"TOOL_DISCOVERY_TIMEOUT" envDefault:"10s" desc:"time limit of the tool discovery of one server while a run is prepared"`
}

// version names this client to tool servers.
const version = "1.0.0"

func agentDeps(_ context.Context, c AgentsConfig, log *slog.Logger) (app.AgentDeps, error) {
	policy, err := outbound.ParseAllow(c.OutboundAllow)
	if err != nil {
		return app.AgentDeps{}, fmt.Errorf("OUTBOUND_ALLOW_CIDRS: %w", err)
	}
	var ring *seal.Keyring
	if c.SealKeys == "" {
		log.Warn("ORGBOARD_SEAL_KEYS is not set: sealing with an ephemeral key; stored model keys and tool-server headers will not open after a restart")
		ring = seal.Ephemeral()
	} else if ring, err = seal.ParseKeyring(c.SealKeys); err != nil {
		return app.AgentDeps{}, fmt.Errorf("ORGBOARD_SEAL_KEYS: %w", err)
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
