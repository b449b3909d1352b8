package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/store"
)

// warm opens every connection of the pool, so that the clients of a race run at once rather
// than one after the other while connections are being made.
func warm(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	conns := make([]*pgxpool.Conn, pool.Config().MaxConns)
	for i := range conns {
		c, err := pool.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	for _, c := range conns {
		c.Release()
	}
}

// race runs fn for 20 clients at once and returns their errors.
func race(fn func(client int) error) []error {
	const clients = 20
	errs := make([]error, clients)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[c] = fn(c)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

func TestConcurrentBatchesMergingTheSameIdentityAndSnapshotRowsInAnyOrderAllCommitAndAgree(t *testing.T) {
	ctx := context.Background()
	st, pool := newStore(t)
	in := app.NewIngest(st)
	tenant := uuid.New()
	users, snaps := make([]uuid.UUID, 6), make([]uuid.UUID, 4)
	for i := range users {
		users[i] = uuid.New()
	}
	for i := range snaps {
		snaps[i] = uuid.New()
	}
	// Each client's batch touches every row, in its own order; the last client's events are
	// the latest, so they own the merged values.
	batches := make([][]domain.Event, 20)
	for c := range batches {
		at := t0.Add(time.Duration(c) * time.Minute)
		var b []domain.Event
		for _, u := range users {
			b = append(b, ev(t, tenant, at, nil, events.IdentityUserBannedV1Payload{UserID: u, TenantID: &tenant,
				BannedBy: uuid.New(), Reason: fmt.Sprintf("client %d", c)}))
		}
		for _, s := range snaps {
			b = append(b, ev(t, tenant, at, nil, events.RenderSnapshotReadyV1Payload{SnapshotID: s,
				ImageURL: fmt.Sprintf("s3://snapshots/%d.png", c)}))
		}
		b = append(b, ev(t, tenant, at, nil, events.IdentityTenantSuspendedV1Payload{TenantID: tenant, Reason: "unpaid"}))
		rand.New(rand.NewPCG(uint64(c), 7)).Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		batches[c] = b
	}
	warm(t, pool)
	for c, err := range race(func(c int) error { return in.ApplyBatch(ctx, batches[c]) }) {
		if err != nil {
			t.Errorf("client %d: %v", c, err)
		}
	}
	n, err := bus.HandledCount(ctx, pool, app.Consumer)
	if err != nil || n != 20*(len(users)+len(snaps)+1) {
		t.Fatalf("%d events applied (%v), want every one of the 20 batches", n, err)
	}
	for _, u := range users {
		var reason string
		if err := pool.QueryRow(ctx, "SELECT ban_reason FROM users WHERE user_id = $1", u).Scan(&reason); err != nil || reason != "client 19" {
			t.Errorf("user %s: ban reason %q (%v), want the latest ban's", u, reason, err)
		}
	}
	for _, s := range snaps {
		var url string
		if err := pool.QueryRow(ctx, "SELECT image_url FROM snapshots WHERE snapshot_id = $1", s).Scan(&url); err != nil || url != "s3://snapshots/19.png" {
			t.Errorf("snapshot %s: image %q (%v), want the latest ready event's", s, url, err)
		}
	}
}

// endpointWithDeliveries registers an endpoint of tenant receiving every event and queues n
// deliveries to it, claimed by a dispatcher.
func endpointWithDeliveries(t *testing.T, st *store.Store, n int) (domain.Endpoint, []domain.Delivery) {
	t.Helper()
	ctx := context.Background()
	secret, err := domain.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	tenant := uuid.New()
	ep, err := st.CreateEndpoint(ctx, domain.Endpoint{ID: uuid.New(), TenantID: tenant, URL: "https://hooks.example.com/x",
		EventTypes: []string{"*"}, Secret: secret, CreatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	evs := make([]domain.Event, n)
	for i := range evs {
		evs[i] = queuedJob(t, tenant, uuid.New(), nil, events.PriceTypeCash)
	}
	if err := app.NewIngest(st).ApplyBatch(ctx, evs); err != nil {
		t.Fatal(err)
	}
	claimed, err := st.ClaimDue(ctx, time.Now().Add(time.Hour), time.Now().Add(2*time.Hour), 100)
	if err != nil || len(claimed) != n {
		t.Fatalf("claimed %d deliveries (%v), want %d", len(claimed), err, n)
	}
	return ep, claimed
}

func TestConcurrentExhaustedDeliveriesAndADeleteOfTheirEndpointAllCommitAndGiveEveryDeliveryUp(t *testing.T) {
	ctx := context.Background()
	st, pool := newStore(t)
	ep, claimed := endpointWithDeliveries(t, st, 19)
	reason := "endpoint answered 500"
	warm(t, pool)
	errs := race(func(c int) error {
		if c == len(claimed) { // the tenant deletes the endpoint meanwhile
			return st.DeleteEndpoint(ctx, ep.ID, time.Now())
		}
		one := 1
		return st.RecordAttempts(ctx, []domain.AttemptRecord{{DeliveryID: claimed[c].ID, EndpointID: ep.ID,
			Status: domain.DeliveryFailed, Attempted: true, ResponseCode: ptrTo(500), LatencyMS: &one, LastError: &reason,
			At: time.Now(), Exhausted: true}}, 1)
	})
	for c, err := range errs {
		if err != nil {
			t.Errorf("client %d: %v", c, err)
		}
	}
	var open, failures int
	var enabled bool
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1 AND status <> 'failed'", ep.ID).Scan(&open)
	_ = pool.QueryRow(ctx, "SELECT enabled, consecutive_failures FROM webhook_endpoints WHERE id = $1", ep.ID).Scan(&enabled, &failures)
	if open != 0 || enabled || failures != len(claimed) {
		t.Fatalf("%d deliveries not given up, endpoint enabled=%v after %d failures; want none, false, %d",
			open, enabled, failures, len(claimed))
	}
}

func ptrTo[T any](v T) *T { return &v }
