package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func TestABatchCountsEndpointFailuresInTheOrderItsAttemptsEndedAndDisablesAtTheThreshold(t *testing.T) {
	ctx := context.Background()
	st, pool := newStore(t)
	ep, claimed := endpointWithDeliveries(t, st, 6)
	outcome := func(i int, succeeded bool) domain.AttemptRecord {
		r := domain.AttemptRecord{DeliveryID: claimed[i].ID, EndpointID: ep.ID, Attempted: true, At: time.Now(),
			Status: domain.DeliverySucceeded, Succeeded: succeeded}
		if !succeeded {
			r.Status, r.Exhausted = domain.DeliveryFailed, true
		}
		return r
	}
	state := func() (failures int, enabled bool, open int) {
		t.Helper()
		if err := pool.QueryRow(ctx, "SELECT consecutive_failures, enabled FROM webhook_endpoints WHERE id = $1", ep.ID).
			Scan(&failures, &enabled); err != nil {
			t.Fatal(err)
		}
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'", ep.ID).
			Scan(&open); err != nil {
			t.Fatal(err)
		}
		return failures, enabled, open
	}

	// Ended in this order: a failure, a success (resets the count), two failures.
	batch := []domain.AttemptRecord{outcome(0, false), outcome(1, true), outcome(2, false), outcome(3, false)}
	if err := st.RecordAttempts(ctx, batch, 3); err != nil {
		t.Fatal(err)
	}
	if failures, enabled, open := state(); failures != 2 || !enabled || open != 2 {
		t.Fatalf("after the first batch: %d failures in a row, enabled %v, %d pending; want 2, true, 2", failures, enabled, open)
	}
	if err := st.RecordAttempts(ctx, []domain.AttemptRecord{outcome(4, false)}, 3); err != nil {
		t.Fatal(err)
	}
	if failures, enabled, open := state(); failures != 3 || enabled || open != 0 {
		t.Fatalf("after the third failure in a row: %d failures, enabled %v, %d pending; want 3, false and none", failures, enabled, open)
	}
}
