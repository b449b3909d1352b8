package store_test

import (
	"context"
	"errors"
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
