package main

import (
	"time"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/idempotency"
)

// Config is the service's configuration, from the environment only; each default is written
// once, in its envDefault tag.
type Config struct {
	config.Common
	config.Sealing
	idempotency.Env
	RunJobEnv
	HTTPAddr          string        `env:"HTTP_ADDR" envDefault:":8082" desc:"address the HTTP server listens on"`
	DatabaseURL       string        `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/orgboard?sslmode=disable" desc:"PostgreSQL connection URL of the orgboard database" secret:"true"`
	ModelTimeout      time.Duration `env:"MODEL_TIMEOUT" envDefault:"60s" desc:"time limit of one model call"`
	ToolCallTimeout   time.Duration `env:"TOOL_CALL_TIMEOUT" envDefault:"30s" desc:"time limit of a governed tool call"`
	ToolTestTimeout   time.Duration `env:"TOOL_TEST_TIMEOUT" envDefault:"10s" desc:"time limit of a tool-server connectivity test"`
	ToolDiscoveryTime time.Duration `env:"TOOL_DISCOVERY_TIMEOUT" envDefault:"10s" desc:"time limit of the tool discovery of one server while a run is prepared"`

	// EnvConfig is the bus: the event of every audited change goes out on EVENTS_EXCHANGE
	// through the outbox; consumed events come in through the queue <BUS_SERVICE>.events.
	bus.EnvConfig

	EventsDefaultTenant string `env:"EVENTS_DEFAULT_TENANT_ID" envDefault:"00000000-0000-0000-0000-000000000001" desc:"tenant_id of events caused by a caller without a tenant (a service token bound to none)"`
}

func loadConfig() (Config, error) {
	var c Config
	err := config.Load(&c)
	return c, err
}
