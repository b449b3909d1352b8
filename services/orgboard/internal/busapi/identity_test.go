package busapi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/orgboard/internal/busapi"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

type recorder struct {
	bans        []domain.UserBan
	suspensions []domain.TenantSuspension
}

func (r *recorder) ApplyUserBan(_ context.Context, b domain.UserBan) error {
	r.bans = append(r.bans, b)
	return nil
}

func (r *recorder) ApplyTenantSuspension(_ context.Context, s domain.TenantSuspension) error {
	r.suspensions = append(r.suspensions, s)
	return nil
}

func event(t *testing.T, p events.Payload) events.EventEnvelope {
	t.Helper()
	env, err := events.NewEvent(uuid.New(), p)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestIdentityEventsBecomeBansAndSuspensions(t *testing.T) {
	var r recorder
	h := busapi.IdentityHandlers(&r)
	user, tenant := uuid.New(), uuid.New()
	until := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	banned := event(t, events.IdentityUserBannedV1Payload{UserID: user, BannedBy: uuid.New(), Reason: "spam", UnblockDate: &until})
	suspended := event(t, events.IdentityTenantSuspendedV1Payload{TenantID: tenant, Reason: "unpaid"})
	for _, env := range []events.EventEnvelope{banned, suspended} {
		if err := h[env.EventType](context.Background(), env); err != nil {
			t.Fatalf("%s: %v", env.EventType, err)
		}
	}
	if len(r.bans) != 1 || r.bans[0].UserID != user || r.bans[0].Event.ID != banned.EventID ||
		!r.bans[0].Event.Time.Equal(banned.EventTime) || r.bans[0].UnblockDate == nil || !r.bans[0].UnblockDate.Equal(until) {
		t.Errorf("bans %+v; want the ban of %s until %s", r.bans, user, until)
	}
	// A suspension without suspended_at takes effect at the event's time.
	if len(r.suspensions) != 1 || r.suspensions[0].TenantID != tenant || !r.suspensions[0].SuspendedAt.Equal(suspended.EventTime) {
		t.Errorf("suspensions %+v; want the one of %s since %s", r.suspensions, tenant, suspended.EventTime)
	}
}

func TestAnIdentityEventThatDoesNotConformIsPermanentlyRefused(t *testing.T) {
	var r recorder
	h := busapi.IdentityHandlers(&r)
	wrongProducer := event(t, events.IdentityTenantSuspendedV1Payload{TenantID: uuid.New(), Reason: "x"})
	p := events.Producer("render-orchestrator")
	wrongProducer.Producer = &p
	noUser := event(t, events.IdentityUserBannedV1Payload{UserID: uuid.New(), BannedBy: uuid.New(), Reason: "x"})
	noUser.Data = []byte(`{"banned_by":"` + uuid.NewString() + `","reason":"x"}`)
	for _, tc := range []struct {
		env  events.EventEnvelope
		want string
	}{
		{wrongProducer, "producer: must be identity-service"},
		{noUser, "data.user_id"},
	} {
		err := h[tc.env.EventType](context.Background(), tc.env)
		if !bus.IsPermanent(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a permanent error naming %q", tc.env.EventType, err, tc.want)
		}
	}
	if len(r.bans)+len(r.suspensions) != 0 {
		t.Errorf("applied %+v %+v; want nothing", r.bans, r.suspensions)
	}
}
