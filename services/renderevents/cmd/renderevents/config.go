package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/idempotency"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/services/renderevents/migrations"
)

// Name is the service's name in logs, metrics, queues and the inbox.
const Name = "renderevents"

// Config is the service's configuration, from the environment only.
type Config struct {
	config.Common
	config.Sealing
	HTTPAddr    string `env:"HTTP_ADDR" envDefault:":8083" desc:"address the HTTP server listens on"`
	DatabaseURL string `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/renderevents?sslmode=disable" desc:"PostgreSQL connection URL of the renderevents database" secret:"true"`

	bus.EnvConfig
	bus.ProgressEnvConfig
	bus.BatchEnvConfig
	idempotency.Env

	ProgressFlushInterval time.Duration `env:"PROGRESS_FLUSH_INTERVAL" envDefault:"250ms" desc:"how often the latest progress of each job is persisted (at most once per interval per job)"`
	SSEKeepAlive          time.Duration `env:"SSE_KEEPALIVE" envDefault:"15s" desc:"idle interval of keep-alive comments on progress streams"`

	WebhookRetrySchedule string        `env:"WEBHOOK_RETRY_SCHEDULE" envDefault:"5s,5m,30m,2h,5h,10h,10h" desc:"pause before each webhook retry (jittered +-50%); attempts = entries + 1"`
	WebhookDisableAfter  int           `env:"WEBHOOK_DISABLE_AFTER" envDefault:"10" desc:"deliveries in a row failing after all retries that disable an endpoint"`
	WebhookPollInterval  time.Duration `env:"WEBHOOK_POLL_INTERVAL" envDefault:"1s" desc:"how often an idle dispatcher looks for due deliveries"`
	WebhookWorkers       int           `env:"WEBHOOK_WORKERS" envDefault:"8" desc:"concurrent webhook attempts per instance"`
}

// Migrations are the migration sets of the database: the bus's outbox and inbox, the
// idempotency keys, then the service's own.
func Migrations() []pgxdb.Migrations {
	return []pgxdb.Migrations{bus.Migrations(), idempotency.Migrations(), {Name: Name, FS: migrations.FS}}
}

// BusConfig is the pkg/bus configuration of c.
func (c Config) BusConfig() bus.Config {
	bc := c.EnvConfig.BusConfig(Name)
	bc.ProgressExchange = c.ProgressExchange
	bc.Prefetch = c.ConsumerPrefetch
	return bc
}

// RetrySchedule parses WEBHOOK_RETRY_SCHEDULE.
func (c Config) RetrySchedule() ([]time.Duration, error) {
	var out []time.Duration
	for _, s := range strings.Split(c.WebhookRetrySchedule, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("WEBHOOK_RETRY_SCHEDULE: %q is not a duration", s)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, errors.New("WEBHOOK_RETRY_SCHEDULE is empty")
	}
	return out, nil
}

func loadConfig() (Config, error) {
	var c Config
	err := config.Load(&c)
	return c, err
}
