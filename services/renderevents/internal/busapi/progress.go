package busapi

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// ProgressSink receives the progress ticks this instance hears (the hub and the coalescing
// writer).
type ProgressSink func(p domain.Progress)

// ProgressConsumer reads this instance's own auto-delete queue on the progress fanout
// exchange (pkg/bus), so every instance hears every job's ticks.
type ProgressConsumer struct {
	router *message.Router
}

// NewProgressConsumer wires a transient router of pkg/bus to sink. A tick that is not valid
// against the AsyncAPI document (e.g. progress above 100) is dropped: counted in metrics by
// reason and logged at a bounded rate, never retried or dead-lettered, so a producer's bug
// cannot fill a durable queue at tick rate; the next valid tick supersedes it.
func NewProgressConsumer(cfg bus.Config, metrics bus.Metrics, sink ProgressSink, log *slog.Logger) (*ProgressConsumer, error) {
	sub, err := bus.NewProgressSubscriber(cfg, log)
	if err != nil {
		return nil, err
	}
	router, err := bus.NewTransientRouter(cfg, metrics, log)
	if err != nil {
		return nil, err
	}
	bus.Consume(router, cfg.Service+".progress", sub, bus.Handlers{
		events.RenderJobProgressV1: func(_ context.Context, env events.EventEnvelope) error {
			payload, err := events.Decode(env.EventType, env.Data)
			if err != nil {
				return bus.Permanent(err)
			}
			p, ok := payload.(events.RenderJobProgressV1Payload)
			if !ok {
				return bus.Permanent(fmt.Errorf("not a progress tick: %s", env.EventType))
			}
			sink(progressOf(env.TenantID, env.EventTime.UTC(), p))
			return nil
		},
	})
	return &ProgressConsumer{router: router}, nil
}

// Running is closed once the progress queue is consumed.
func (c *ProgressConsumer) Running() <-chan struct{} { return c.router.Running() }

// Run consumes until ctx ends.
func (c *ProgressConsumer) Run(ctx context.Context) error { return c.router.Run(ctx) }
