// Package busapi is the service's inbound bus port: its part of the batching consumer of the
// durable events queue and the consumer of this instance's progress queue, which decode
// events into domain values and hand them to internal/app.
package busapi

import (
	"context"
	"encoding/binary"
	"errors"
	"log/slog"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// BindingKeys bind the service queue to every render and identity event.
var BindingKeys = []string{"render.#", "identity.#"}

// Applier folds events into the read models (app.Ingest).
type Applier interface {
	ApplyBatch(ctx context.Context, evs []domain.Event) error
	ApplyOne(ctx context.Context, ev domain.Event) error
}

// EventsConsumer consumes the service's durable queue <service>.events in batches (pkg/bus).
type EventsConsumer = bus.BatchConsumer[domain.Event]

// NewEventsConsumer returns the consumer of the service's events: deliveries applied by
// apply in batches, one transaction per batch; a schema-invalid or unappliable event
// (app.ErrPoison) is dead-lettered on dlq with the reason, and ping tells a database that
// does not answer from a bad event. metrics may be nil.
func NewEventsConsumer(cfg bus.Config, batch bus.BatchConfig, apply Applier, ping func(context.Context) error,
	dlq message.Publisher, metrics bus.Metrics, log *slog.Logger) (*EventsConsumer, error) {
	return bus.NewBatchConsumer(cfg, batch, eventsApplier{apply: apply, ping: ping}, dlq, metrics, log, BindingKeys...)
}

// eventsApplier is the service's part of the batch consumer.
type eventsApplier struct {
	apply Applier
	ping  func(context.Context) error
}

// Decode parses and validates an event against the AsyncAPI document.
func (a eventsApplier) Decode(body []byte) (domain.Event, bool, error) {
	ev, err := ParseEvent(body)
	if err != nil {
		return domain.Event{}, false, err
	}
	// Progress belongs on the progress exchange: there is nothing to keep of it here.
	return ev, ev.Type == events.RenderJobProgressV1, nil
}

// PartitionKey puts a tenant's events in one transaction of a batch: the rows an event
// changes (its job, usage, users, snapshots) are its tenant's, so concurrent transactions
// of a batch do not wait for each other's locks, and a tenant's events keep their order.
func (a eventsApplier) PartitionKey(ev domain.Event) uint64 {
	return binary.BigEndian.Uint64(ev.TenantID[8:])
}

func (a eventsApplier) ApplyBatch(ctx context.Context, evs []domain.Event) error {
	return a.apply.ApplyBatch(ctx, evs)
}

func (a eventsApplier) ApplyOne(ctx context.Context, ev domain.Event) error {
	err := a.apply.ApplyOne(ctx, ev)
	if errors.Is(err, app.ErrPoison) {
		return bus.Permanent(err)
	}
	return err
}

func (a eventsApplier) Ping(ctx context.Context) error { return a.ping(ctx) }
