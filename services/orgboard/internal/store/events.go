package store

import (
	"context"
	"errors"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// PublishEvent validates e's payload against the AsyncAPI document, wraps it in the envelope
// (producer orgboard) and writes it to the outbox in the Store's transaction; the forwarder
// moves it to the broker once the transaction commits.
func (s *Store) PublishEvent(ctx context.Context, e domain.Event) error {
	if s.tx == nil {
		return errors.New("store: an event is published in the transaction of its change (InTx)")
	}
	env, err := events.NewEvent(e.TenantID, e.Payload)
	if err != nil {
		return err
	}
	env.UserID = e.UserID
	if !e.At.IsZero() {
		env.EventTime = e.At.UTC()
	}
	return bus.PublishEventsInTx(ctx, s.tx, env)
}
