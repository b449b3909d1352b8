package bus_test

import (
	"strings"
	"testing"
	"time"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/config"
)

// streamService is the configuration of a service that uses every part of the bus.
type streamService struct {
	bus.EnvConfig
	bus.ProgressEnvConfig
	bus.BatchEnvConfig
}

var busKnobs = []string{"AMQP_URL", "BUS_SERVICE", "EVENTS_EXCHANGE", "DEAD_LETTER_EXCHANGE", "CONSUMER_MAX_RETRIES",
	"BUS_QUEUE_TYPE", "PROGRESS_EXCHANGE", "CONSUMER_BATCH_SIZE", "CONSUMER_BATCH_WAIT",
	"CONSUMER_BATCH_CONCURRENCY", "CONSUMER_PREFETCH", "CONSUMER_READY_GRACE"}

func TestTheBusIsConfiguredFromTheEnvironmentWithOneNamePerKnob(t *testing.T) {
	load := func(t *testing.T, env map[string]string) streamService {
		t.Helper()
		for _, k := range busKnobs {
			t.Setenv(k, env[k]) // empty: the default applies
		}
		var c streamService
		if err := config.Load(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}

	t.Run("the defaults are the topology of seed 001, the queues named after the service", func(t *testing.T) {
		c := load(t, nil)
		cfg := c.BusConfig("renderevents")
		if cfg.AMQPURL != bustest.DefaultURL || cfg.Service != "renderevents" || cfg.EventsExchange != events.ExchangeEvents ||
			cfg.DeadLetterExchange != "dead-letter" || cfg.Retry.MaxRetries != 5 || cfg.QueueType != bus.QueueQuorum || c.ProgressExchange != events.ExchangeRenderProgress {
			t.Errorf("config %+v, progress exchange %q", cfg, c.ProgressExchange)
		}
		if cfg.ServiceQueue() != "renderevents.events" || cfg.DeadLetterQueue() != "renderevents.dead-letter" {
			t.Errorf("queues %s and %s", cfg.ServiceQueue(), cfg.DeadLetterQueue())
		}
		if b := c.BatchConfig(); b.Size != 1024 || b.Wait != 20*time.Millisecond || b.Concurrency != 2 || c.ConsumerPrefetch != 4096 || c.ConsumerReadyGrace != 2*time.Minute {
			t.Errorf("batches %+v, prefetch %d", b, c.ConsumerPrefetch)
		}
	})

	t.Run("each knob is read from its variable", func(t *testing.T) {
		c := load(t, map[string]string{"BUS_SERVICE": "renderevents-blue", "EVENTS_EXCHANGE": "events-staging",
			"CONSUMER_MAX_RETRIES": "0", "CONSUMER_BATCH_SIZE": "16", "BUS_QUEUE_TYPE": "classic"})
		cfg := c.BusConfig("renderevents")
		if cfg.ServiceQueue() != "renderevents-blue.events" || cfg.EventsExchange != "events-staging" ||
			cfg.Retry.MaxRetries != 0 || c.BatchConfig().Size != 16 || cfg.QueueType != bus.QueueClassic {
			t.Errorf("config %+v, batches %+v", cfg, c.BatchConfig())
		}
	})

	t.Run("the help lists every knob once", func(t *testing.T) {
		seen := map[string]int{}
		for _, v := range config.Describe(streamService{}) {
			seen[v.Name]++
			if v.Description == "" {
				t.Errorf("%s has no description", v.Name)
			}
		}
		for _, k := range busKnobs {
			if seen[k] != 1 {
				t.Errorf("%s is listed %d times, want once", k, seen[k])
			}
		}
		if len(seen) != len(busKnobs) {
			t.Errorf("listed %v, want %v", seen, busKnobs)
		}
	})
}

func TestAPartOfTheBusRefusesAConfigurationWithoutTheNamesItNeeds(t *testing.T) {
	url := bustest.URL()
	log := testLogger(t)
	tests := []struct {
		name      string
		build     func() error
		complaint string
	}{
		{"a publisher without the events exchange", func() error {
			_, err := bus.NewAMQPPublisher(bus.Config{AMQPURL: url}, log)
			return err
		}, "Config.EventsExchange"},
		{"a progress publisher without the progress exchange", func() error {
			_, err := bus.NewProgressPublisher(bus.Config{AMQPURL: url, EventsExchange: "events"}, log)
			return err
		}, "Config.ProgressExchange"},
		{"dead letters without a service or exchange", func() error {
			_, err := bus.NewDeadLetterPublisher(bus.Config{AMQPURL: url}, log)
			return err
		}, "Config.Service, Config.DeadLetterExchange"},
		{"a subscriber without the events exchange", func() error {
			_, err := bus.NewSubscriber(bus.Config{AMQPURL: url, Service: "s"}, log, "render.#")
			return err
		}, "Config.EventsExchange"},
		{"a batch consumer whose prefetch cannot fill a batch", func() error {
			_, err := bus.NewBatchConsumer[struct{}](bus.Config{AMQPURL: url, Service: "s", EventsExchange: "events", Prefetch: 8},
				bus.BatchConfig{Size: 16}, nil, nil, nil, log, "render.#")
			return err
		}, "prefetch of 8 cannot fill a batch of 16"},
		{"a batch consumer of batches of nothing", func() error {
			_, err := bus.NewBatchConsumer[struct{}](bus.Config{AMQPURL: url, Service: "s", EventsExchange: "events"},
				bus.BatchConfig{}, nil, nil, nil, log, "render.#")
			return err
		}, "batch size must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.build(); err == nil || !strings.Contains(err.Error(), tt.complaint) {
				t.Errorf("error %v, want one naming %q", err, tt.complaint)
			}
		})
	}
}
