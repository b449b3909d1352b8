package bus

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
)

// Service is a service's running messaging: the forwarder that moves its outbox to the broker
// and, when it has handlers, the consumer of its queue <service>.events bound to their event
// types.
type Service struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closers []func() error
	mu      sync.Mutex
	errs    []error
}

// Start starts the consumer of handlers (none when handlers is empty) and the outbox forwarder,
// and returns once the consumer is subscribed. With cfg.AMQPURL empty everything runs in process
// on a watermill GoChannel (development without a broker: nothing survives a restart but the
// outbox rows). Stop ends both.
func Start(ctx context.Context, cfg Config, pool *pgxpool.Pool, handlers Handlers, metrics Metrics, log *slog.Logger) (*Service, error) {
	ctx, cancel := context.WithCancel(ctx)
	s := &Service{cancel: cancel}
	fail := func(err error) (*Service, error) {
		_ = s.Stop()
		return nil, err
	}
	var (
		pub, deadLetters message.Publisher
		sub              message.Subscriber
	)
	if cfg.AMQPURL == "" {
		gc := NewGoChannel(log)
		s.closers = append(s.closers, gc.Close)
		pub, deadLetters, sub = gc, gc, gc
	} else {
		p, err := NewAMQPPublisher(cfg, log)
		if err != nil {
			return fail(fmt.Errorf("bus: publisher: %w", err))
		}
		s.closers = append(s.closers, p.Close)
		pub = p
		if len(handlers) > 0 {
			d, err := NewDeadLetterPublisher(cfg, log)
			if err != nil {
				return fail(fmt.Errorf("bus: dead letters: %w", err))
			}
			s.closers = append(s.closers, d.Close)
			q, err := NewSubscriber(cfg, log, slices.Sorted(maps.Keys(handlers))...)
			if err != nil {
				return fail(fmt.Errorf("bus: subscriber: %w", err))
			}
			s.closers = append(s.closers, q.Close)
			deadLetters, sub = d, q
		}
	}
	if len(handlers) > 0 {
		router, err := NewRouter(cfg, deadLetters, metrics, log, WithPing(pool.Ping))
		if err != nil {
			return fail(fmt.Errorf("bus: router: %w", err))
		}
		Consume(router, cfg.Service+"-events", sub, handlers)
		s.run(func() error { return router.Run(ctx) })
		select {
		case <-router.Running():
		case <-ctx.Done():
			return fail(ctx.Err())
		}
	}
	// After the consumer is subscribed: a GoChannel drops what is published to a topic no one
	// listens to yet.
	s.run(func() error { return RunForwarder(ctx, cfg, pool, pub, log) })
	return s, nil
}

func (s *Service) run(fn func() error) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := fn(); err != nil && !errors.Is(err, context.Canceled) {
			s.mu.Lock()
			s.errs = append(s.errs, err)
			s.mu.Unlock()
		}
	}()
}

// Stop ends the consumer (a message being handled is finished or, when cut, redelivered) and
// the forwarder, then closes the connections.
func (s *Service) Stop() error {
	s.cancel()
	s.wg.Wait()
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i](); err != nil {
			s.errs = append(s.errs, err)
		}
	}
	s.closers = nil
	return errors.Join(s.errs...)
}
