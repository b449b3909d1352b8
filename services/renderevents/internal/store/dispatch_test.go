package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func TestTheDispatchersKeptSecretsFollowRotationDeletionAndTheirBinding(t *testing.T) {
	ctx := context.Background()
	st, pool := newStore(t)
	d := st.ForDispatcher()
	target := func(id uuid.UUID) domain.DispatchTarget {
		t.Helper()
		targets, err := d.DispatchTargets(ctx, []uuid.UUID{id})
		if err != nil {
			t.Fatal(err)
		}
		return targets[id]
	}

	const first, second = "whsec_Zmlyc3Qtc2VjcmV0LW9mLXRoZS1lbmRwb2ludA==", "whsec_c2Vjb25kLXNlY3JldC1vZi10aGUtZW5kcG9pbnQ="
	ep, err := st.CreateEndpoint(ctx, endpoint(first))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // opened, then kept
		if got := target(ep.ID).Endpoint; got.Secret != first || got.PreviousSecret != "" {
			t.Fatalf("before the rotation: secrets %q, %q", got.Secret, got.PreviousSecret)
		}
	}

	now := time.Now().UTC()
	if _, err := st.RotateSecret(ctx, ep.ID, second, now.Add(domain.SecretOverlap), now); err != nil {
		t.Fatal(err)
	}
	if got := target(ep.ID).Endpoint; got.Secret != second || got.PreviousSecret != first {
		t.Fatalf("after the rotation: secrets %q, %q, want the new one and the previous", got.Secret, got.PreviousSecret)
	}

	// The endpoint's sealed secret copied into another endpoint's row opens there no more than
	// it does without the dispatcher.
	other, err := st.CreateEndpoint(ctx, endpoint("whsec_b3RoZXI="))
	if err != nil {
		t.Fatal(err)
	}
	target(other.ID)
	secret, _ := storedSecrets(t, pool, ep.ID)
	if _, err := pool.Exec(ctx, "UPDATE webhook_endpoints SET secret = $1 WHERE id = $2", secret, other.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := d.DispatchTargets(ctx, []uuid.UUID{other.ID}); !errors.Is(err, seal.ErrOpen) {
		t.Fatalf("a secret moved to another endpoint opened for the dispatcher: %v", err)
	}

	if err := st.DeleteEndpoint(ctx, ep.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := target(ep.ID); !got.Deleted || got.Endpoint.Secret != "" || got.Endpoint.PreviousSecret != "" {
		t.Fatalf("a deleted endpoint: deleted=%v, secrets %q, %q; want deleted, none", got.Deleted, got.Endpoint.Secret,
			got.Endpoint.PreviousSecret)
	}
}

func TestAClaimedDeliveryIsClaimedAgainOnlyOnceItsLeaseEndedAndARetryOnlyWhenDue(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	base := time.Now()
	ep, claimed := endpointWithDeliveries(t, st, 3) // claimed at base+1h, leased until base+2h
	ids := func(ds []domain.Delivery) []uuid.UUID {
		out := make([]uuid.UUID, len(ds))
		for i, d := range ds {
			out[i] = d.ID
		}
		return out
	}
	claim := func(at, until time.Duration) []uuid.UUID {
		t.Helper()
		got, err := st.ClaimDue(ctx, base.Add(at), base.Add(until), 10)
		if err != nil {
			t.Fatal(err)
		}
		return ids(got)
	}

	if got := claim(90*time.Minute, 3*time.Hour); len(got) != 0 {
		t.Fatalf("%d leased deliveries were claimed again within their lease", len(got))
	}
	// The dispatcher holding them died: once the lease ends they are claimed again, in order.
	if got, want := claim(2*time.Hour+time.Minute, 4*time.Hour), ids(claimed); !slices.Equal(got, want) {
		t.Fatalf("after the lease: claimed %v, want %v", got, want)
	}

	// The first is recorded as failed, to be retried at base+5h: the end of its lease does not
	// make it due, its next attempt does.
	next, reason := base.Add(5*time.Hour), "endpoint answered 500"
	if err := st.RecordAttempts(ctx, []domain.AttemptRecord{{DeliveryID: claimed[0].ID, EndpointID: ep.ID,
		Status: domain.DeliveryRetrying, Attempted: true, LastError: &reason, NextAttemptAt: &next, At: base}}, 10); err != nil {
		t.Fatal(err)
	}
	if got, want := claim(4*time.Hour+time.Minute, 6*time.Hour), ids(claimed[1:]); !slices.Equal(got, want) {
		t.Fatalf("after the second lease: claimed %v, want the two not recorded %v", got, want)
	}
	got, err := st.ClaimDue(ctx, base.Add(5*time.Hour+time.Minute), base.Add(7*time.Hour), 10)
	if err != nil || len(got) != 1 || got[0].ID != claimed[0].ID || got[0].Attempts != 1 {
		t.Fatalf("when its retry is due: claimed %+v (%v), want the retried delivery after 1 attempt", got, err)
	}
}
