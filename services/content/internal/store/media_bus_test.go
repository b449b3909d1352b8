package store_test

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

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/mediatest"
	"github.com/videotpl/platform/services/content/internal/store"
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
			pool, _ := pgtest.NewDB(t, mediatest.Migrations()...)
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			c := &calls{seen: make(chan struct{}, 16)}
			handler := func(_ context.Context, _ uuid.UUID, job domain.PreviewJobData) error {
				if c.record(job) == 1 {
					return errors.New("object storage unavailable") // the first attempt fails: retried
				}
				return nil
			}
			mb, err := store.StartMediaBus(context.Background(), busConfig(t, tc.inProcess), pool, handler, nil, log)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = mb.Stop() }()
			preview := uuid.New()
			err = store.NewMedia(store.New(pool)).InMediaTx(context.Background(), func(tx domain.MediaStore) error {
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
	pool, _ := pgtest.NewDB(t, mediatest.Migrations()...)
	cfg := busConfig(t, false)
	c := &calls{seen: make(chan struct{}, 16)}
	handler := func(_ context.Context, _ uuid.UUID, job domain.PreviewJobData) error {
		c.record(job)
		return errors.New("always failing")
	}
	mb, err := store.StartMediaBus(context.Background(), cfg, pool, handler, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = mb.Stop() }()
	preview := uuid.New()
	err = store.NewMedia(store.New(pool)).InMediaTx(context.Background(), func(tx domain.MediaStore) error {
		return tx.EnqueuePreviewJob(context.Background(), uuid.New(), preview)
	})
	if err != nil {
		t.Fatal(err)
	}
	c.wait(t, 3) // the first attempt and MaxRetries (2)

	d := bustest.Read(t, bustest.Channel(t), cfg.DeadLetterQueue(), 1, 30*time.Second)[0]
	if d.Headers[bus.MetaEventType] != domain.PreviewJob || !strings.Contains(string(d.Body), preview.String()) ||
		!strings.Contains(d.Headers[bus.MetaDeadLetterReason].(string), "always failing") {
		t.Fatalf("dead letter %v %s", d.Headers, d.Body)
	}
}
