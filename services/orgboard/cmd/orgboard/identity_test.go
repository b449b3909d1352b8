package main

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
)

func TestTheServedServiceConsumesBansFromItsQueueAndRefusesTheBannedUser(t *testing.T) {
	ctx := context.Background()
	s := serve(t)
	client, issuer, b, svc := s.client, s.issuer, s.bus, s.svc
	user := uuid.New()
	token := authtest.Bearer(issuer.Token(t, authtest.Subject(user), authtest.Tenant(uuid.New())))
	if r, err := client.ListOrganizationsWithResponse(ctx, token); err != nil || r.StatusCode() != http.StatusOK {
		t.Fatalf("before the ban: %v %d", err, r.StatusCode())
	}

	env, err := events.NewEvent(uuid.New(), events.IdentityUserBannedV1Payload{UserID: user, BannedBy: uuid.New(), Reason: "spam"})
	if err != nil {
		t.Fatal(err)
	}
	bustest.Publish(t, b, env)
	deadline := time.Now().Add(15 * time.Second)
	for {
		r, err := client.ListOrganizationsWithResponse(ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		if r.StatusCode() == http.StatusForbidden {
			if !strings.Contains(string(r.Body), "the caller is banned: spam") {
				t.Errorf("refused with %s; want the ban's reason", r.Body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %d 15s after the ban was published", r.StatusCode())
		}
		time.Sleep(20 * time.Millisecond) // polling the API: nothing announces an applied event
	}
	checkMetrics(t, httpxtest.Scrape(t, svc.tel.Registry))
}

// checkMetrics holds what the served service exports, once it has consumed a ban and answered
// requests, to the README's metrics list and to the counts those requests made.
func checkMetrics(t *testing.T, body string) {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	httpxtest.CheckMetricsDocumented(t, string(readme), body)
	for series, least := range map[string]float64{
		`bus_messages_handled_total{event_type="identity.user.banned.v1"}`: 1,
		`db_pool_acquires_total`: 1,
	} {
		if v, ok := httpxtest.Sample(body, series); !ok || v < least {
			t.Errorf("%s = %v (served %v), want at least %v", series, v, ok, least)
		}
	}
	for _, zero := range []string{
		`bus_messages_failed_total{event_type="identity.tenant.suspended.v1"}`,
		`bus_messages_dead_lettered_total{event_type="identity.user.banned.v1"}`,
	} {
		if v, ok := httpxtest.Sample(body, zero); !ok || v != 0 {
			t.Errorf("%s = %v (served %v), want 0", zero, v, ok)
		}
	}
}
