package busapi_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/content/internal/busapi"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/store"
	"github.com/videotpl/platform/services/content/migrations"
)

// busConfig isolates a test on the broker, or runs it in process when inProcess.
func busConfig(t *testing.T, inProcess bool) bus.Config {
	t.Helper()
	cfg := bustest.Config(t)
	cfg.Retry = bus.RetryConfig{MaxRetries: 2, InitialInterval: 10 * time.Millisecond, MaxInterval: 50 * time.Millisecond}
	if inProcess {
		cfg.AMQPURL = ""
	}
	return cfg
}

// calls records the jobs a handler saw.
type calls struct {
	mu   sync.Mutex
	jobs []domain.PreviewJobData
	seen chan struct{}
}

func (c *calls) record(job domain.PreviewJobData) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.jobs = append(c.jobs, job)
	c.seen <- struct{}{}
	return len(c.jobs)
}

func (c *calls) wait(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-c.seen:
		case <-time.After(30 * time.Second):
			t.Fatalf("the handler was not called %d times", n)
		}
	}
}

func TestAPreviewJobWrittenToTheOutboxReachesItsHandlerWithRetries(t *testing.T) {
	for _, tc := range []struct {
		name      string
		inProcess bool
	}{
		{"through RabbitMQ", false},
		{"in process (GoChannel)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool, _ := pgtest.NewDB(t, migrations.Sets()...)
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			c := &calls{seen: make(chan struct{}, 16)}
			handler := func(_ context.Context, _ uuid.UUID, job domain.PreviewJobData) error {
				if c.record(job) == 1 {
					return errors.New("object storage unavailable") // the first attempt fails: retried
				}
				return nil
			}
			mb, err := busapi.Start(context.Background(), busConfig(t, tc.inProcess), pool, handler, nil, log)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = mb.Stop() }()
			preview := uuid.New()
			err = store.New(pool).InTx(context.Background(), func(tx domain.Store) error {
				return tx.EnqueuePreviewJob(context.Background(), uuid.New(), preview)
			})
			if err != nil {
				t.Fatal(err)
			}
			c.wait(t, 2)
			if c.jobs[0].SvgPreviewID != preview || c.jobs[1].SvgPreviewID != preview {
				t.Fatalf("jobs %v", c.jobs)
			}
		})
	}
}

func TestAPreviewJobThatKeepsFailingIsDeadLettered(t *testing.T) {
	pool, _ := pgtest.NewDB(t, migrations.Sets()...)
	cfg := busConfig(t, false)
	c := &calls{seen: make(chan struct{}, 16)}
	handler := func(_ context.Context, _ uuid.UUID, job domain.PreviewJobData) error {
		c.record(job)
		return errors.New("always failing")
	}
	mb, err := busapi.Start(context.Background(), cfg, pool, handler, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = mb.Stop() }()
	preview := uuid.New()
	err = store.New(pool).InTx(context.Background(), func(tx domain.Store) error {
		return tx.EnqueuePreviewJob(context.Background(), uuid.New(), preview)
	})
	if err != nil {
		t.Fatal(err)
	}
	c.wait(t, 3) // the first attempt and MaxRetries (2)

	d := nextDeadLetter(t, cfg)
	if d.Headers[bus.MetaEventType] != domain.PreviewJob || !strings.Contains(string(d.Body), preview.String()) ||
		!strings.Contains(d.Headers[bus.MetaDeadLetterReason].(string), "always failing") {
		t.Fatalf("dead letter %v %s", d.Headers, d.Body)
	}
}

func TestACommandWhoseDataIsNoPreviewIsDeadLetteredWithoutReachingTheHandler(t *testing.T) {
	pool, _ := pgtest.NewDB(t, migrations.Sets()...)
	cfg := busConfig(t, false)
	c := &calls{seen: make(chan struct{}, 16)}
	handler := func(_ context.Context, _ uuid.UUID, job domain.PreviewJobData) error {
		c.record(job)
		return nil
	}
	mb, err := busapi.Start(context.Background(), cfg, pool, handler, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = mb.Stop() }()
	err = pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		env, err := bus.NewEnvelope(domain.PreviewJob, uuid.New(), map[string]string{"preview": "not an id"})
		if err != nil {
			return err
		}
		return bus.PublishEventsInTx(context.Background(), tx, env)
	})
	if err != nil {
		t.Fatal(err)
	}
	d := nextDeadLetter(t, cfg)
	if !strings.Contains(string(d.Body), "not an id") || !strings.Contains(d.Headers[bus.MetaDeadLetterReason].(string), "svg_preview_id") {
		t.Fatalf("dead letter %v %s", d.Headers, d.Body)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.jobs) != 0 {
		t.Fatalf("the handler ran for %v", c.jobs)
	}
}

// nextDeadLetter waits (up to 30 s) for a message in the service's dead-letter queue.
func nextDeadLetter(t *testing.T, cfg bus.Config) amqp.Delivery {
	t.Helper()
	conn, err := amqp.Dial(cfg.AMQPURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, ok, err := ch.Get(cfg.DeadLetterQueue(), true)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatal("no dead letter")
		}
		time.Sleep(50 * time.Millisecond) // polling the queue: the dead letter is published after the last attempt
	}
}
