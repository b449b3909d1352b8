package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// receiver is a tenant's webhook endpoint on loopback that verifies Standard Webhooks
// signatures like a real receiver would.
type receiver struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	secrets  []string // every signature must verify with the first; all are checked
	statuses []int    // answers, in order; the last one repeats
	got      []received
}

type received struct {
	id, signature string
	ts            time.Time
	body          []byte
	verified      []bool // per secret
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{t: t, statuses: statuses}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id, sig := req.Header.Get("webhook-id"), req.Header.Get("webhook-signature")
	sec, err := strconv.ParseInt(req.Header.Get("webhook-timestamp"), 10, 64)
	ts := time.Unix(sec, 0)
	fresh := err == nil && time.Since(ts).Abs() < 5*time.Minute
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := received{id: id, signature: sig, ts: ts, body: body}
	for _, s := range r.secrets {
		rec.verified = append(rec.verified, fresh && domain.Verify(s, id, ts, body, sig))
	}
	r.got = append(r.got, rec)
	status := r.statuses[min(len(r.got)-1, len(r.statuses)-1)]
	if len(rec.verified) == 0 || !rec.verified[0] || req.Header.Get("Content-Type") != "application/json" {
		status = http.StatusUnauthorized // a real receiver refuses a bad signature
	}
	w.WriteHeader(status)
}

func (r *receiver) setSecrets(s ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = s
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func shortRetries(c *Config) { c.WebhookRetrySchedule = "20ms,20ms,20ms" }

func (h *harness) createEndpoint(t *testing.T, tok, url string, types ...string) *api.WebhookEndpointWithSecret {
	t.Helper()
	r, err := h.client.CreateWebhookEndpointWithResponse(context.Background(), &api.CreateWebhookEndpointParams{},
		api.WebhookEndpointCreate{Url: url, EventTypes: types}, authtest.Bearer(tok))
	if err != nil || r.JSON201 == nil {
		t.Fatalf("create endpoint: %v %d %s", err, r.StatusCode(), r.Body)
	}
	return r.JSON201
}

func (h *harness) deliveries(t *testing.T, tok string, endpoint uuid.UUID) []api.WebhookDelivery {
	t.Helper()
	r, err := h.client.ListWebhookDeliveriesWithResponse(context.Background(), endpoint, &api.ListWebhookDeliveriesParams{}, authtest.Bearer(tok))
	if err != nil || r.JSON200 == nil {
		t.Fatalf("deliveries: %v %s", err, r.Body)
	}
	return r.JSON200.Data
}

func queued(t *testing.T, tenant uuid.UUID) sim.Message {
	return message(t, tenant, time.Now().UTC(), events.RenderJobQueuedV1Payload{RenderJobID: uuid.New(),
		SavedProjectID: uuid.New(), PriorityQueue: events.PriorityQueuePaid, PriceType: events.PriceTypeCash, Region: "eu"})
}

func testAWebhookIsSignedRetriedAfterTwo500sDeliveredOnTheThirdTryAndReplayable(t *testing.T, h *harness) {
	rcv := newReceiver(t, 500, 500, 204)
	tenant := uuid.New()
	tok := h.token(tenant)
	ep := h.createEndpoint(t, tok, rcv.srv.URL+"/hooks", "render.job.*")
	if !strings.HasPrefix(ep.Secret, "whsec_") {
		t.Fatalf("secret %q", ep.Secret)
	}
	rcv.setSecrets(ep.Secret)
	get, err := h.client.GetWebhookEndpointWithResponse(context.Background(), ep.Id, authtest.Bearer(tok))
	if err != nil || get.JSON200 == nil || strings.Contains(string(get.Body), ep.Secret) || strings.Contains(string(get.Body), "secret\"") {
		t.Fatalf("the endpoint is not shown, or shown with its secret: %v %s", err, get.Body)
	}

	job := queued(t, tenant)
	other := message(t, tenant, time.Now().UTC(), events.IdentityUserEmailVerifiedV1Payload{UserID: uuid.New(), Email: "a@b.c"})
	h.publish([]sim.Message{job, other})
	eventually(t, 10*time.Second, "three attempts", func() bool { return len(rcv.requests()) >= 3 })
	eventually(t, 5*time.Second, "the delivery to succeed", func() bool {
		ds := h.deliveries(t, tok, ep.Id)
		return len(ds) == 1 && ds[0].Status == api.DeliveryStatusSucceeded
	})
	reqs := rcv.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (the filter matches only the render job event)", len(reqs))
	}
	for i, r := range reqs {
		if r.id != job.EventID.String() || string(r.body) != string(job.Body) || !r.verified[0] {
			t.Errorf("request %d: id %s verified %v body %s", i, r.id, r.verified, r.body)
		}
	}
	d := h.deliveries(t, tok, ep.Id)[0]
	if d.Attempts != 3 || d.ResponseCode == nil || *d.ResponseCode != 204 || d.LatencyMs == nil || d.EventType != events.RenderJobQueuedV1 {
		t.Fatalf("delivery %+v", d)
	}

	replay, err := h.client.ReplayWebhookDeliveryWithResponse(context.Background(), d.Id, nil, authtest.Bearer(tok))
	if err != nil || replay.JSON202 == nil || replay.JSON202.ReplayOf == nil || *replay.JSON202.ReplayOf != d.Id {
		t.Fatalf("replay: %v %s", err, replay.Body)
	}
	eventually(t, 5*time.Second, "the replay", func() bool { return len(rcv.requests()) == 4 })
	if r := rcv.requests()[3]; r.id != job.EventID.String() || !r.verified[0] {
		t.Fatalf("replayed request %+v", r)
	}
	eventually(t, 5*time.Second, "the replay to succeed", func() bool {
		for _, x := range h.deliveries(t, tok, ep.Id) {
			if x.Id == replay.JSON202.Id {
				return x.Status == api.DeliveryStatusSucceeded && x.Attempts == 1
			}
		}
		return false
	})
}

func testDuringASecretRotationDeliveriesCarryBothSignatures(t *testing.T, h *harness) {
	rcv := newReceiver(t, 200)
	tenant := uuid.New()
	tok := h.token(tenant)
	ep := h.createEndpoint(t, tok, rcv.srv.URL, "*")
	rot, err := h.client.RotateWebhookEndpointSecretWithResponse(context.Background(), ep.Id, nil, authtest.Bearer(tok))
	if err != nil || rot.JSON200 == nil || rot.JSON200.Secret == ep.Secret {
		t.Fatalf("rotate: %v %s", err, rot.Body)
	}
	if d := time.Until(rot.JSON200.PreviousSecretExpiresAt); d < 23*time.Hour || d > 25*time.Hour {
		t.Errorf("overlap ends in %s, want 24h", d)
	}
	// Both secrets are stored sealed with the service's keyring, never in the clear.
	var secret, previous []byte
	if err := h.pool.QueryRow(context.Background(), "SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1", ep.Id).
		Scan(&secret, &previous); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stored []byte
		plain  string
	}{{secret, rot.JSON200.Secret}, {previous, ep.Secret}} {
		key := strings.TrimPrefix(c.plain, domain.SecretPrefix)
		if kid, err := seal.KeyID(c.stored); err != nil || kid != "test" || bytes.Contains(c.stored, []byte(key)) {
			t.Fatalf("stored secret %q (kid %q, %v) is not sealed with the keyring", c.stored, kid, err)
		}
	}
	rcv.setSecrets(rot.JSON200.Secret, ep.Secret)
	h.publish([]sim.Message{queued(t, tenant)})
	eventually(t, 10*time.Second, "the delivery", func() bool { return len(rcv.requests()) == 1 })
	r := rcv.requests()[0]
	sigs := strings.Fields(r.signature)
	if len(sigs) != 2 || !r.verified[0] || !r.verified[1] {
		t.Fatalf("signature header %q verified %v, want two signatures, new and old", r.signature, r.verified)
	}
	if !domain.Verify(rot.JSON200.Secret, r.id, r.ts, r.body, sigs[0]) || !domain.Verify(ep.Secret, r.id, r.ts, r.body, sigs[1]) {
		t.Errorf("signatures %q are not the new secret's then the old one's", r.signature)
	}
}

func testASuspendedTenantGetsNoDeliveries(t *testing.T, h *harness) {
	rcv := newReceiver(t, 200)
	tenant := uuid.New()
	tok := h.token(tenant)
	ep := h.createEndpoint(t, tok, rcv.srv.URL, "render.*", "identity.*")
	msgs := []sim.Message{
		message(t, tenant, time.Now().UTC(), events.IdentityTenantSuspendedV1Payload{TenantID: tenant, Reason: "unpaid"}),
		queued(t, tenant),
	}
	h.publish(msgs)
	h.waitApplied(msgs...)
	// A marker event of another tenant with an endpoint proves the dispatcher ran meanwhile.
	other := uuid.New()
	otherRcv := newReceiver(t, 200)
	otherTok := h.token(other)
	otherRcv.setSecrets(h.createEndpoint(t, otherTok, otherRcv.srv.URL, "*").Secret)
	h.publish([]sim.Message{queued(t, other)})
	eventually(t, 10*time.Second, "the other tenant's delivery", func() bool { return len(otherRcv.requests()) == 1 })
	if n := len(rcv.requests()); n != 0 {
		t.Fatalf("the suspended tenant's endpoint got %d requests", n)
	}
	if ds := h.deliveries(t, tok, ep.Id); len(ds) != 0 {
		t.Fatalf("deliveries were queued for a suspended tenant: %+v", ds)
	}
}

func TestAnEndpointThatKeepsFailingIsDisabledAndReplayIsRefused(t *testing.T) {
	h := start(t, func(c *Config) { c.WebhookRetrySchedule = "10ms"; c.WebhookDisableAfter = 2 })
	rcv := newReceiver(t, 500)
	tenant := uuid.New()
	tok := h.token(tenant)
	ep := h.createEndpoint(t, tok, rcv.srv.URL, "*")
	rcv.setSecrets(ep.Secret)
	h.publish([]sim.Message{queued(t, tenant), queued(t, tenant), queued(t, tenant)})
	eventually(t, 10*time.Second, "the endpoint to be disabled", func() bool {
		r, err := h.client.GetWebhookEndpointWithResponse(context.Background(), ep.Id, authtest.Bearer(tok))
		return err == nil && r.JSON200 != nil && !r.JSON200.Enabled && r.JSON200.DisabledReason != nil
	})
	var failed []api.WebhookDelivery
	eventually(t, 5*time.Second, "every delivery to fail", func() bool {
		failed = failed[:0]
		for _, d := range h.deliveries(t, tok, ep.Id) {
			if d.Status == api.DeliveryStatusFailed {
				failed = append(failed, d)
			}
		}
		return len(failed) == 3
	})
	r, err := h.client.ReplayWebhookDeliveryWithResponse(context.Background(), failed[0].Id, nil, authtest.Bearer(tok))
	if err != nil || r.StatusCode() != http.StatusConflict {
		t.Fatalf("replay to a disabled endpoint: %v %d", err, r.StatusCode())
	}
	enabled := true
	u, err := h.client.UpdateWebhookEndpointWithResponse(context.Background(), ep.Id, api.WebhookEndpointUpdate{Enabled: &enabled}, authtest.Bearer(tok))
	if err != nil || u.JSON200 == nil || !u.JSON200.Enabled || u.JSON200.DisabledReason != nil {
		t.Fatalf("re-enable: %v %s", err, u.Body)
	}
}

func testWebhookURLsAndAccessAreChecked(t *testing.T, h *harness) {
	tenant := uuid.New()
	tok := h.token(tenant)
	ctx := context.Background()
	for _, url := range []string{"https://10.0.0.1/hook", "http://169.254.169.254/latest", "ftp://example.com/x", "https://[::1]:8443/x"} {
		r, err := h.client.CreateWebhookEndpointWithResponse(ctx, &api.CreateWebhookEndpointParams{},
			api.WebhookEndpointCreate{Url: url, EventTypes: []string{"*"}}, authtest.Bearer(tok))
		if err != nil || r.StatusCode() != http.StatusBadRequest || !strings.Contains(string(r.Body), "body.url") {
			t.Errorf("%s: %v %d %s, want 400 naming body.url", url, err, r.StatusCode(), r.Body)
		}
	}
	ep := h.createEndpoint(t, tok, "http://127.0.0.1:1/hook", "render.job.completed.v1")
	// Another tenant neither sees nor changes it; a plain user may not name a tenant.
	stranger := authtest.Bearer(h.token(uuid.New()))
	if r, _ := h.client.GetWebhookEndpointWithResponse(ctx, ep.Id, stranger); r.StatusCode() != http.StatusNotFound {
		t.Errorf("another tenant's endpoint: %d, want 404", r.StatusCode())
	}
	if r, _ := h.client.DeleteWebhookEndpointWithResponse(ctx, ep.Id, stranger); r.StatusCode() != http.StatusNotFound {
		t.Errorf("deleting another tenant's endpoint: %d, want 404", r.StatusCode())
	}
	if r, _ := h.client.ListWebhookEndpointsWithResponse(ctx, &api.ListWebhookEndpointsParams{TenantId: &tenant}, authtest.Bearer(tok)); r.StatusCode() != http.StatusForbidden {
		t.Errorf("tenant_id from a plain user: %d, want 403", r.StatusCode())
	}
	if r, _ := h.client.ListWebhookEndpointsWithResponse(ctx, &api.ListWebhookEndpointsParams{}); r.StatusCode() != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", r.StatusCode())
	}
	list, err := h.client.ListWebhookEndpointsWithResponse(ctx, &api.ListWebhookEndpointsParams{}, authtest.Bearer(tok))
	if err != nil || list.JSON200 == nil || len(list.JSON200.Data) != 1 || strings.Contains(string(list.Body), "whsec_") {
		t.Fatalf("list: %v %s", err, list.Body)
	}
	if r, _ := h.client.DeleteWebhookEndpointWithResponse(ctx, ep.Id, authtest.Bearer(tok)); r.StatusCode() != http.StatusNoContent {
		t.Fatalf("delete: %d", r.StatusCode())
	}
	if r, _ := h.client.GetWebhookEndpointWithResponse(ctx, ep.Id, authtest.Bearer(tok)); r.StatusCode() != http.StatusNotFound {
		t.Errorf("a deleted endpoint: %d, want 404", r.StatusCode())
	}
}

func TestTheServiceRefusesToStartInProductionWithoutSealingKeys(t *testing.T) {
	var cfg Config
	if err := config.Load(&cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Environment, cfg.SealKeys = config.Production, ""
	_, err := NewService(cfg, Deps{Logger: slog.New(slog.DiscardHandler)})
	if !errors.Is(err, seal.ErrNoKeys) {
		t.Fatalf("err = %v, want seal.ErrNoKeys", err)
	}
}

func testConcurrentChangesOfOneEndpointGetNoServerErrorAndLeaveOneOfTheSentFilters(t *testing.T, h *harness) {
	tenant := uuid.New()
	tok := authtest.Bearer(h.token(tenant))
	ep := h.createEndpoint(t, h.token(tenant), "http://127.0.0.1:1/hook", "*")
	ctx := context.Background()
	// Each client replaces the filter with a set of its own, rotates the secret, or switches
	// the endpoint off or on.
	filters := make([][]string, 20)
	for c := range filters {
		filters[c] = []string{fmt.Sprintf("render.job.c%d.v1", c), "identity.*"}
	}
	statuses := make([]int, 20)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for c := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			switch c % 4 {
			case 0:
				r, err := h.client.RotateWebhookEndpointSecretWithResponse(ctx, ep.Id, nil, tok)
				if err == nil {
					statuses[c] = r.StatusCode()
				}
			case 1:
				enabled := c%8 == 1
				r, err := h.client.UpdateWebhookEndpointWithResponse(ctx, ep.Id, api.WebhookEndpointUpdate{Enabled: &enabled}, tok)
				if err == nil {
					statuses[c] = r.StatusCode()
				}
			default:
				types := filters[c]
				r, err := h.client.UpdateWebhookEndpointWithResponse(ctx, ep.Id, api.WebhookEndpointUpdate{EventTypes: &types}, tok)
				if err == nil {
					statuses[c] = r.StatusCode()
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	for c, s := range statuses {
		if s != http.StatusOK {
			t.Errorf("client %d: status %d, want 200", c, s)
		}
	}
	got, err := h.client.GetWebhookEndpointWithResponse(ctx, ep.Id, tok)
	if err != nil || got.JSON200 == nil {
		t.Fatalf("get: %v %s", err, got.Body)
	}
	found := false
	for c, f := range filters {
		if c%4 >= 2 && slices.Equal(f, got.JSON200.EventTypes) {
			found = true
		}
	}
	if !found {
		t.Fatalf("the endpoint's filter %v is none of the sets sent", got.JSON200.EventTypes)
	}
}
