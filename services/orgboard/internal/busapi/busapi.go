// Package busapi is the orgboard service's messaging: the forwarder that moves the outbox (the
// events of every audited change) to the broker, and the consumer of the service's queue, which
// decodes each event and hands it to the application (as httpapi does for HTTP requests).
package busapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/bus"
)

// Bus is the running messaging of the service: the outbox forwarder and, when there are
// handlers, the consumer of the queue <service>.events bound to their event types.
type Bus struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closers []func() error
	mu      sync.Mutex
	errs    []error
}

// Start starts the consumer of handlers (none when handlers is empty) and the forwarder, and
// returns once the consumer is subscribed. With cfg.AMQPURL empty everything runs in process
// on a watermill GoChannel (development without a broker: nothing survives a restart but the
// outbox rows).
func Start(ctx context.Context, cfg bus.Config, pool *pgxpool.Pool, handlers bus.Handlers, metrics bus.Metrics, log *slog.Logger) (*Bus, error) {
	ctx, cancel := context.WithCancel(ctx)
	b := &Bus{cancel: cancel}
	fail := func(err error) (*Bus, error) {
		_ = b.Stop()
		return nil, err
	}
	var (
		pub, deadLetters message.Publisher
		sub              message.Subscriber
	)
	if cfg.AMQPURL == "" {
		gc := bus.NewGoChannel(log)
		b.closers = append(b.closers, gc.Close)
		pub, deadLetters, sub = gc, gc, gc
	} else {
		p, err := bus.NewAMQPPublisher(cfg, log)
		if err != nil {
			return fail(fmt.Errorf("bus: publisher: %w", err))
		}
		b.closers = append(b.closers, p.Close)
		pub = p
		if len(handlers) > 0 {
			d, err := bus.NewDeadLetterPublisher(cfg, log)
			if err != nil {
				return fail(fmt.Errorf("bus: dead letters: %w", err))
			}
			b.closers = append(b.closers, d.Close)
			s, err := bus.NewSubscriber(cfg, log, slices.Sorted(maps.Keys(handlers))...)
			if err != nil {
				return fail(fmt.Errorf("bus: subscriber: %w", err))
			}
			b.closers = append(b.closers, s.Close)
			deadLetters, sub = d, s
		}
	}
	if len(handlers) > 0 {
		router, err := bus.NewRouter(cfg, deadLetters, metrics, log)
		if err != nil {
			return fail(fmt.Errorf("bus: router: %w", err))
		}
		bus.Consume(router, "orgboard-events", sub, handlers)
		b.run(func() error { return router.Run(ctx) })
		select {
		case <-router.Running():
		case <-ctx.Done():
			return fail(ctx.Err())
		}
	}
	// After the consumer is subscribed: a GoChannel drops what is published to a topic no one
	// listens to yet.
	b.run(func() error { return bus.RunForwarder(ctx, cfg, pool, pub, log) })
	return b, nil
}

func (b *Bus) run(fn func() error) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		if err := fn(); err != nil && !errors.Is(err, context.Canceled) {
			b.mu.Lock()
			b.errs = append(b.errs, err)
			b.mu.Unlock()
		}
	}()
}

// Stop ends the consumer (a message being handled is finished or, when cut, redelivered) and
// the forwarder, then closes the connections.
func (b *Bus) Stop() error {
	b.cancel()
	b.wg.Wait()
	for i := len(b.closers) - 1; i >= 0; i-- {
		if err := b.closers[i](); err != nil {
			b.errs = append(b.errs, err)
		}
	}
	b.closers = nil
	return errors.Join(b.errs...)
}
