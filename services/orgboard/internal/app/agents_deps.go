package app

import (
	"time"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/orgboard/internal/mcp"
	"github.com/videotpl/platform/services/orgboard/internal/modelgw"
)

// AgentDeps are the dependencies of the agents part of the service: the keyring that
// seals secrets, the model gateway, the tool-server client and the outbound URL policy. Both
// clients must be built on the policy's transport (cmd/orgboard/agents.go does so).
type AgentDeps struct {
	// Sealer seals model keys and tool-server headers (AES-256-GCM).
	Sealer *seal.Keyring
	// Models calls model connections (chat-completions) and the stub provider.
	Models *modelgw.Gateway
	// Tools talks to MCP tool servers.
	Tools *mcp.Client
	// Outbound decides which URLs may be registered (nil: public addresses only).
	Outbound *egress.Policy
	// ToolCallTimeout bounds a governed tool call (30 s by default).
	ToolCallTimeout time.Duration
	// ToolTestTimeout bounds a connectivity test (10 s by default).
	ToolTestTimeout time.Duration
	// DiscoveryTimeout bounds the tool discovery of one server while a run is prepared (10 s by
	// default).
	DiscoveryTimeout time.Duration
}

func (d AgentDeps) toolCallTimeout() time.Duration {
	return orDefault(d.ToolCallTimeout, 30*time.Second)
}
func (d AgentDeps) toolTestTimeout() time.Duration {
	return orDefault(d.ToolTestTimeout, 10*time.Second)
}
func (d AgentDeps) discoveryTimeout() time.Duration {
	return orDefault(d.DiscoveryTimeout, 10*time.Second)
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// errNotConfigured answers when the service runs without the agents' dependencies (a wiring
// fault: cmd/orgboard always provides them).
var errNotConfigured = errs.E(errs.Internal, "the agents part of the service is not configured")

func (d AgentDeps) sealer() (*seal.Keyring, error) {
	if d.Sealer == nil {
		return nil, errNotConfigured
	}
	return d.Sealer, nil
}

func (d AgentDeps) models() (*modelgw.Gateway, error) {
	if d.Models == nil {
		return nil, errNotConfigured
	}
	return d.Models, nil
}

func (d AgentDeps) tools() (*mcp.Client, error) {
	if d.Tools == nil {
		return nil, errNotConfigured
	}
	return d.Tools, nil
}
