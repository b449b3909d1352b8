package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/services/renderevents/internal/store"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// readyz is /readyz's status and body.
func (h *harness) readyz() (int, string) {
	h.t.Helper()
	resp, err := http.Get(h.url + "/readyz")
	if err != nil {
		h.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestReadinessShowsTheBrokerLossAndItsRecovery(t *testing.T) {
	t.Parallel()
	proxy := bustest.NewProxy(t) // stops after the service
	h := start(t, func(c *Config) { c.AMQPURL = proxy.URL(); c.ConsumerReadyGrace = 0 })
	if code, body := h.readyz(); code != http.StatusOK {
		t.Fatalf("/readyz %d %s before the loss", code, body)
	}

	proxy.Cut()
	deadline := time.Now().Add(15 * time.Second)
	code, body := h.readyz()
	for code == http.StatusOK && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		code, body = h.readyz()
	}
	var problem struct{ Detail string }
	_ = json.Unmarshal([]byte(body), &problem)
	if code != http.StatusServiceUnavailable || !strings.Contains(problem.Detail, "message broker is unreachable since") {
		t.Fatalf("/readyz %d %s after the loss, want 503 naming the broker", code, body)
	}
	// Reads that need only the database still answer.
	tenant := uuid.New()
	jobs, err := h.client.ListRenderJobsWithResponse(t.Context(), &api.ListRenderJobsParams{TenantId: &tenant}, h.admin())
	if err != nil || jobs.StatusCode() != http.StatusOK {
		t.Errorf("listing render jobs during the outage: %v %v", err, jobs)
	}

	proxy.Restore()
	deadline = time.Now().Add(20 * time.Second)
	for code, body = h.readyz(); code != http.StatusOK; code, body = h.readyz() {
		if time.Now().After(deadline) {
			t.Fatalf("/readyz %d %s after the recovery", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The consumer consumes again (published on a connection of its own, as by a producer
	// that did not lose the broker).
	direct := h.cfg
	direct.AMQPURL = bustest.URL()
	pub, err := store.NewPublisher(direct.BusConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pub.Close() })
	st := seedStream(t, sim.Options{})
	if err := pub.Publish(t.Context(), st.Messages, nil); err != nil {
		t.Fatal(err)
	}
	h.waitApplied(st.Messages...)
}
