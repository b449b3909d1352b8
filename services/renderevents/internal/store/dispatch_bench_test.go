package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/busapi"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/store/sender"
)

// BenchmarkDispatch drains backlogs of 1,000 deliveries to 1 and to 100 loopback endpoints
// (one tenant and one receiver each, answering 200 at once) with the default 8 workers:
// claims, signing, POSTs and recording, the dispatcher's whole path on the real database,
// without the broker. Queuing the backlog (ingestion) is not timed.
func BenchmarkDispatch(b *testing.B) {
	for _, endpoints := range []int{1, 100} {
		b.Run(fmt.Sprintf("endpoints=%d", endpoints), func(b *testing.B) { benchmarkDispatch(b, endpoints) })
	}
}

func benchmarkDispatch(b *testing.B, endpoints int) {
	ctx := context.Background()
	st, _ := newStoreB(b)
	tenants := make([]uuid.UUID, endpoints)
	for i := range tenants {
		rcv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
		}))
		defer rcv.Close()
		secret, err := domain.NewSecret()
		if err != nil {
			b.Fatal(err)
		}
		tenants[i] = uuid.New()
		if _, err := st.CreateEndpoint(ctx, domain.Endpoint{ID: uuid.New(), TenantID: tenants[i], URL: rcv.URL,
			EventTypes: []string{"*"}, Secret: secret, CreatedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	loopback, _ := egress.ParseAllowList("127.0.0.0/8")
	in := app.NewIngest(st)
	const backlog = 1000
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		evs := make([]domain.Event, backlog)
		for i := range evs {
			env, err := events.NewEvent(tenants[i%endpoints], events.RenderJobQueuedV1Payload{RenderJobID: uuid.New(),
				SavedProjectID: uuid.New(), PriorityQueue: events.PriorityQueuePaid, PriceType: events.PriceTypeCash, Region: "eu"})
			if err != nil {
				b.Fatal(err)
			}
			body, _ := json.Marshal(env)
			if evs[i], err = busapi.ParseEvent(body); err != nil {
				b.Fatal(err)
			}
		}
		for lo := 0; lo < backlog; lo += 256 {
			if err := in.ApplyBatch(ctx, evs[lo:min(lo+256, backlog)]); err != nil {
				b.Fatal(err)
			}
		}
		settled := settledCount{want: backlog, all: make(chan struct{})}
		d := app.NewDispatcher(st.ForDispatcher(), sender.New(loopback, 8), app.DispatcherConfig{Observer: &settled}, slog.New(slog.DiscardHandler))
		ctx, stop := context.WithCancel(ctx)
		done := make(chan error)
		b.StartTimer()
		go func() { done <- d.Run(ctx) }()
		<-settled.all
		b.StopTimer()
		stop()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*backlog)/b.Elapsed().Seconds(), "deliveries/s")
}

// settledCount closes all once want deliveries are settled (Settled is called by one goroutine).
type settledCount struct {
	n, want int
	all     chan struct{}
}

func (c *settledCount) Attempted(string, time.Duration) {}
func (c *settledCount) Failed(string)                   {}
func (c *settledCount) Settled(string) {
	if c.n++; c.n == c.want {
		close(c.all)
	}
}
