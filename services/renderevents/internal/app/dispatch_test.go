package app_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/store/sender"
)

// dueDeliveries is a DispatchStore holding deliveries due at once, to one endpoint.
type dueDeliveries struct {
	target domain.DispatchTarget

	mu       sync.Mutex
	due      []domain.Delivery
	recorded []domain.AttemptRecord
}

func (s *dueDeliveries) ClaimDue(_ context.Context, _, _ time.Time, n int) ([]domain.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n = min(n, len(s.due))
	out := s.due[:n]
	s.due = s.due[n:]
	return out, nil
}

func (s *dueDeliveries) DispatchTargets(context.Context, []uuid.UUID) (map[uuid.UUID]domain.DispatchTarget, error) {
	return map[uuid.UUID]domain.DispatchTarget{s.target.Endpoint.ID: s.target}, nil
}

func (s *dueDeliveries) RecordAttempts(_ context.Context, recs []domain.AttemptRecord, _ int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recorded = append(s.recorded, recs...)
	return nil
}

func (s *dueDeliveries) PurgeDeleted(context.Context, time.Time) (int64, error) { return 0, nil }

// settledCounter closes all once want deliveries are settled.
type settledCounter struct {
	mu   sync.Mutex
	n    int
	want int
	all  chan struct{}
}

func (c *settledCounter) Attempted(string, time.Duration) {}
func (c *settledCounter) Failed(string)                   {}
func (c *settledCounter) Settled(string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n++; c.n == c.want {
		close(c.all)
	}
}

// heldReceiver holds each request until as many are in flight as the dispatcher may send at
// once (or the last one arrived), so that the most it ever sees in flight is exactly the limit
// when the dispatcher uses its concurrency and stays within it.
type heldReceiver struct {
	limit, total int

	mu                      sync.Mutex
	inFlight, most, arrived int
	release                 chan struct{}
	ids                     []string
}

func (r *heldReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.inFlight++
	r.arrived++
	r.most = max(r.most, r.inFlight)
	r.ids = append(r.ids, req.Header.Get("webhook-id"))
	release := r.release
	if r.inFlight == r.limit || r.arrived == r.total {
		close(r.release)
		r.release = make(chan struct{})
	}
	r.mu.Unlock()
	select {
	case <-release:
	case <-time.After(5 * time.Second): // the dispatcher sent fewer at once than it may: fails below
	}
	r.mu.Lock()
	r.inFlight--
	r.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func TestAnEndpointGetsAtMostWorkersDeliveriesAtOnceStartedInEventOrder(t *testing.T) {
	cases := []struct {
		name    string
		workers int
	}{
		{"one worker sends one at a time, in event order", 1},
		{"four workers send four at a time", 4},
	}
	for _, tc := range cases {
		workers := tc.workers
		t.Run(tc.name, func(t *testing.T) {
			const events = 40
			rcv := &heldReceiver{limit: workers, total: events, release: make(chan struct{})}
			srv := httptest.NewServer(rcv)
			defer srv.Close()
			secret, err := domain.NewSecret()
			if err != nil {
				t.Fatal(err)
			}
			ep := domain.Endpoint{ID: uuid.New(), TenantID: uuid.New(), URL: srv.URL, Enabled: true, Secret: secret}
			st := &dueDeliveries{target: domain.DispatchTarget{Endpoint: ep}}
			st.due = pending(ep, events)
			var order []string
			for _, d := range st.due {
				order = append(order, d.EventID.String())
			}
			dispatchAll(t, st, workers, app.DispatcherConfig{Workers: workers,
				Batch: 7 /* divides neither the deliveries nor the workers */}, events)

			if rcv.most != workers {
				t.Errorf("at most %d deliveries were in flight at once, want %d", rcv.most, workers)
			}
			if len(st.recorded) != events || slices.ContainsFunc(st.recorded, func(r domain.AttemptRecord) bool { return !r.Succeeded }) {
				t.Errorf("%d outcomes recorded, want %d successes: %+v", len(st.recorded), events, st.recorded)
			}
			got := slices.Clone(rcv.ids)
			if workers == 1 && !slices.Equal(got, order) {
				t.Errorf("one worker delivered out of event order:\n got %v\nwant %v", got, order)
			}
			slices.Sort(got)
			slices.Sort(order)
			if !slices.Equal(got, order) {
				t.Errorf("the receiver got %d deliveries, want each of the %d events once", len(got), events)
			}
		})
	}
}

func TestDeliveriesToAnEndpointWhoseSecretDoesNotDecodeAreGivenUpUnsent(t *testing.T) {
	sent := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		select {
		case sent <- struct{}{}:
		default:
		}
	}))
	defer srv.Close()
	ep := domain.Endpoint{ID: uuid.New(), TenantID: uuid.New(), URL: srv.URL, Enabled: true, Secret: "whsec_%%%"}
	st := &dueDeliveries{target: domain.DispatchTarget{Endpoint: ep}}
	const events = 3
	st.due = pending(ep, events)
	dispatchAll(t, st, 2, app.DispatcherConfig{Workers: 2}, events)
	select {
	case <-sent:
		t.Error("a delivery was sent unsigned")
	default:
	}
	for _, r := range st.recorded {
		if r.Status != domain.DeliveryFailed || r.Attempted || r.LastError == nil || *r.LastError != "signing failed" {
			t.Errorf("outcome %+v, want failed unattempted with \"signing failed\"", r)
		}
	}
	if len(st.recorded) != events {
		t.Errorf("%d outcomes recorded, want %d", len(st.recorded), events)
	}
}

// countedRecords is dueDeliveries counting the transactions outcomes are recorded in.
type countedRecords struct {
	dueDeliveries
	transactions int
}

func (s *countedRecords) RecordAttempts(ctx context.Context, recs []domain.AttemptRecord, disableAfter int) error {
	s.mu.Lock()
	s.transactions++
	s.mu.Unlock()
	return s.dueDeliveries.RecordAttempts(ctx, recs, disableAfter)
}

func TestOutcomesEndingTogetherAreRecordedInOneTransaction(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	secret, err := domain.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	ep := domain.Endpoint{ID: uuid.New(), TenantID: uuid.New(), URL: srv.URL, Enabled: true, Secret: secret}
	st := &countedRecords{dueDeliveries: dueDeliveries{target: domain.DispatchTarget{Endpoint: ep}}}
	const events = 64
	st.due = pending(ep, events)
	dispatchAll(t, st, 8, app.DispatcherConfig{Batch: events}, events)
	// 64 answers at once over loopback take a few milliseconds; outcomes recorded as each
	// ends would take dozens of transactions.
	if st.transactions > 8 {
		t.Errorf("%d outcomes recorded in %d transactions, want them gathered into a few", len(st.recorded), st.transactions)
	}
}

// pending is n deliveries to ep, one event each, waiting for their first attempt.
func pending(ep domain.Endpoint, n int) []domain.Delivery {
	out := make([]domain.Delivery, 0, n)
	for range n {
		out = append(out, domain.Delivery{ID: uuid.New(), EndpointID: ep.ID, TenantID: ep.TenantID, EventID: uuid.New(),
			EventType: "render.job.queued.v1", Body: []byte(`{}`), Status: domain.DeliveryPending})
	}
	return out
}

// dispatchAll runs a dispatcher of store with cfg, sending over loopback with up to conns
// connections per host, until its n deliveries are settled (10 s at most), then stops it.
func dispatchAll(t *testing.T, store domain.DispatchStore, conns int, cfg app.DispatcherConfig, n int) {
	t.Helper()
	loopback, _ := egress.ParseAllowList("127.0.0.0/8")
	settled := settledCounter{all: make(chan struct{}), want: n}
	cfg.Observer = &settled
	d := app.NewDispatcher(store, sender.New(loopback, conns), cfg, slog.New(slog.DiscardHandler))
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()
	select {
	case <-settled.all:
	case <-time.After(10 * time.Second):
		t.Error("the deliveries were not all settled within 10 s")
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
