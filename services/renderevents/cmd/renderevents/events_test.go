package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/services/renderevents/internal/busapi"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// seedStream carries each of the 20 events of seed 001: two tenants (one suspended), users
// registered, verified, banned, plans activated and expired, API keys created and revoked,
// payments succeeded, failed and refunded, jobs completed, failed, cancelled and one still
// running with progress ticks, snapshots requested and ready.
func seedStream(t *testing.T, opt sim.Options) sim.Stream {
	t.Helper()
	base := sim.Options{Tenants: 2, Jobs: 7, Running: 1, ProgressTicks: 4, Snapshots: 3, FailRate: 0.34,
		CancelRate: 0.34, Identity: true, Seed: 42}
	base.Duplicates, base.Reorder = opt.Duplicates, opt.Reorder
	if opt.Seed != 0 {
		base.Seed = opt.Seed
	}
	st, err := sim.Generate(base)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func testEveryEventOfSeed001IsConsumedFromTheBrokerAndShownByTheAPI(t *testing.T, h *harness) {
	st := seedStream(t, sim.Options{})
	types := map[string]bool{}
	for _, m := range st.Messages {
		types[m.EventType] = true
	}
	if len(types) != 20 {
		t.Fatalf("the stream carries %d event types, want the 20 of seed 001", len(types))
	}
	h.publish(st.Messages)
	h.waitApplied(st.Messages...)
	ctx := context.Background()
	admin := h.admin()

	// Render jobs: every outcome, the running one with its last persisted tick.
	jobs := perTenant(t, st.Tenants, func(tn uuid.UUID) ([]api.RenderJob, error) {
		r, err := h.client.ListRenderJobsWithResponse(ctx, &api.ListRenderJobsParams{TenantId: &tn}, admin)
		return data(r, err, func() []api.RenderJob { return r.JSON200.Data })
	})
	states := map[api.JobState]int{}
	for _, j := range jobs {
		states[j.State]++
	}
	if states[api.JobStateCompleted] == 0 || states[api.JobStateFailed] == 0 || states[api.JobStateCancelled] == 0 || states[api.JobStateStarted] != 1 {
		t.Fatalf("job states %v, want completed, failed, cancelled and one started", states)
	}
	running := st.Jobs[len(st.Jobs)-1]
	eventually(t, 10*time.Second, "the running job's last tick to be persisted", func() bool {
		j, err := h.client.GetRenderJobWithResponse(ctx, running, admin)
		return err == nil && j.JSON200 != nil && j.JSON200.Progress == 80 && j.JSON200.Step != nil
	})
	var completed api.RenderJob
	for _, j := range jobs {
		if j.State == api.JobStateCompleted {
			completed = j
		}
	}
	if completed.Output == nil || completed.Progress != 100 || completed.StartedAt == nil || completed.PaymentId == nil ||
		completed.PriceType == nil || *completed.PriceType != "Cash" || len(completed.NodeIds) != 2 {
		t.Errorf("completed job is incomplete: %+v", completed)
	}
	tl, err := h.client.GetRenderJobTimelineWithResponse(ctx, completed.JobId, admin)
	if err != nil || tl.JSON200 == nil || len(tl.JSON200.Data) != 3 {
		t.Fatalf("timeline: %v %s", err, tl.Body)
	}
	for i, want := range []string{events.RenderJobQueuedV1, events.RenderJobStartedV1, events.RenderJobCompletedV1} {
		if e := tl.JSON200.Data[i]; e.EventType != want || !e.Applied {
			t.Errorf("timeline[%d] = %s applied=%v, want %s applied", i, e.EventType, e.Applied, want)
		}
	}

	// Snapshots.
	snaps := perTenant(t, st.Tenants, func(tn uuid.UUID) ([]api.Snapshot, error) {
		r, err := h.client.ListSnapshotsWithResponse(ctx, &api.ListSnapshotsParams{TenantId: &tn}, admin)
		return data(r, err, func() []api.Snapshot { return r.JSON200.Data })
	})
	if len(snaps) != 3 {
		t.Fatalf("%d snapshots, want 3", len(snaps))
	}
	for _, s := range snaps {
		if s.ReadyAt == nil || s.RequestedAt == nil || s.ImageUrl == nil || s.ExpiresAt == nil {
			t.Errorf("snapshot not requested and ready: %+v", s)
		}
	}

	// Tenants, users, API keys.
	var tenants []api.Tenant
	for _, id := range st.Tenants {
		r, err := h.client.GetTenantWithResponse(ctx, id, admin)
		if err != nil || r.JSON200 == nil {
			t.Fatalf("tenant %s: %v %s", id, err, r.Body)
		}
		tenants = append(tenants, *r.JSON200)
	}
	listed, err := h.client.ListTenantsWithResponse(ctx, &api.ListTenantsParams{Limit: ptr(100)}, admin)
	if err != nil || listed.JSON200 == nil {
		t.Fatalf("tenants: %v %s", err, listed.Body)
	}
	for _, id := range st.Tenants {
		if !slices.ContainsFunc(listed.JSON200.Data, func(tn api.Tenant) bool { return tn.TenantId == id }) {
			t.Errorf("tenant %s is not listed", id)
		}
	}
	suspended := 0
	for _, tn := range tenants {
		if tn.Suspended {
			suspended++
		}
	}
	if suspended != 1 {
		t.Errorf("%d tenants suspended, want 1", suspended)
	}
	keys, err := h.client.ListTenantApiKeysWithResponse(ctx, st.Tenants[0], &api.ListTenantApiKeysParams{}, admin)
	if err != nil || keys.JSON200 == nil || len(keys.JSON200.Data) != 2 {
		t.Fatalf("api keys: %v %s", err, keys.Body)
	}
	revoked := 0
	for _, k := range keys.JSON200.Data {
		if k.Revoked {
			revoked++
		}
	}
	if revoked != 1 {
		t.Errorf("%d keys revoked, want 1", revoked)
	}
	users := usersOf(t, st)
	for _, id := range users {
		u, err := h.client.GetUserWithResponse(ctx, id, admin)
		if err != nil || u.JSON200 == nil {
			t.Fatalf("user %s: %v %s", id, err, u.Body)
		}
		switch {
		case u.JSON200.EmailVerified:
			if u.JSON200.Plan == nil || u.JSON200.Plan.Status != "active" || u.JSON200.RegisterMode == nil {
				t.Errorf("verified user: %+v", u.JSON200)
			}
		default:
			if !u.JSON200.Banned || u.JSON200.Plan == nil || u.JSON200.Plan.Status != "expired" {
				t.Errorf("banned user: %+v", u.JSON200)
			}
		}
	}

	// Usage and refunds.
	from := openapi_types.Date{Time: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}
	daily := perTenant(t, st.Tenants, func(tn uuid.UUID) ([]api.Usage, error) {
		r, err := h.client.GetDailyUsageWithResponse(ctx, &api.GetDailyUsageParams{TenantId: &tn, From: &from, To: &from}, admin)
		return data(r, err, func() []api.Usage { return r.JSON200.Data })
	})
	if len(daily) != 2 {
		t.Fatalf("%d daily usage rows, want one per tenant", len(daily))
	}
	var done, failed, cancelled, paySucceeded, payFailed, refunded int64
	for _, u := range daily {
		done, failed, cancelled = done+u.JobsCompleted, failed+u.JobsFailed, cancelled+u.JobsCancelled
		paySucceeded, payFailed, refunded = paySucceeded+u.Payments.SucceededCount, payFailed+u.Payments.FailedCount, refunded+u.Payments.RefundedCount
	}
	if int(done) != states[api.JobStateCompleted] || int(failed) != states[api.JobStateFailed] || int(cancelled) != states[api.JobStateCancelled] {
		t.Errorf("usage counts %d/%d/%d jobs, want %v", done, failed, cancelled, states)
	}
	if paySucceeded != int64(len(st.Jobs)+2) || payFailed != 2 || refunded == 0 {
		t.Errorf("payments succeeded %d failed %d refunded %d", paySucceeded, payFailed, refunded)
	}
	month := perTenant(t, st.Tenants, func(tn uuid.UUID) ([]api.Usage, error) {
		r, err := h.client.GetMonthlyUsageWithResponse(ctx, &api.GetMonthlyUsageParams{TenantId: &tn, From: ptr("2025-03"), To: ptr("2025-03")}, admin)
		return data(r, err, func() []api.Usage { return r.JSON200.Data })
	})
	if len(month) != 2 || month[0].Period != "2025-03" {
		t.Fatalf("monthly usage: %+v", month)
	}
	all := api.ListRefundsDueParamsStatusAll
	refunds := perTenant(t, st.Tenants, func(tn uuid.UUID) ([]api.RefundDue, error) {
		r, err := h.client.ListRefundsDueWithResponse(ctx, &api.ListRefundsDueParams{TenantId: &tn, Status: &all}, admin)
		return data(r, err, func() []api.RefundDue { return r.JSON200.Data })
	})
	if len(refunds) != int(failed+cancelled) {
		t.Errorf("%d refunds, want one per failed or cancelled job (%d)", len(refunds), failed+cancelled)
	}
	settled := 0
	for _, r := range refunds {
		if r.Settled {
			settled++
			if r.RefundAmountMinor == nil || r.SettledByPaymentId == nil || *r.SettledByPaymentId != *r.PaymentId {
				t.Errorf("settled refund %+v", r)
			}
		}
	}
	if settled != int(refunded) {
		t.Errorf("%d refunds settled, want %d (one per identity.payment.refunded.v1)", settled, refunded)
	}
}

func usersOf(t *testing.T, st sim.Stream) []uuid.UUID {
	var out []uuid.UUID
	for _, m := range st.Messages {
		if m.EventType != events.IdentityUserRegisteredV1 {
			continue
		}
		ev, err := busapi.ParseEvent(m.Body)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev.Payload.(events.IdentityUserRegisteredV1Payload).UserID)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// perTenant concatenates what list returns for each tenant (an admin naming the tenant), so
// that a test sees its own tenants' records only on a service other tests use too.
func perTenant[T any](t *testing.T, tenants []uuid.UUID, list func(tenant uuid.UUID) ([]T, error)) []T {
	t.Helper()
	var out []T
	for _, tn := range tenants {
		rows, err := list(tn)
		if err != nil {
			t.Fatalf("tenant %s: %v", tn, err)
		}
		out = append(out, rows...)
	}
	return out
}

// data returns the rows of a 200 answer, else an error with the status and body.
func data[T any](r interface {
	StatusCode() int
}, err error, rows func() []T) ([]T, error) {
	if err != nil {
		return nil, err
	}
	if r.StatusCode() != http.StatusOK {
		return nil, fmt.Errorf("status %d", r.StatusCode())
	}
	return rows(), nil
}

// snapshotOf reads everything the API shows of a stream's read models, as JSON, for
// comparing two services.
func snapshotOf(t *testing.T, h *harness, st sim.Stream) map[string]json.RawMessage {
	t.Helper()
	ctx := context.Background()
	admin := h.admin()
	out := map[string]json.RawMessage{}
	put := func(key string, body []byte, err error) {
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		out[key] = body
	}
	limit := 100
	from := openapi_types.Date{Time: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}
	all := api.ListRefundsDueParamsStatusAll
	for _, tn := range st.Tenants {
		jobs, err := h.client.ListRenderJobsWithResponse(ctx, &api.ListRenderJobsParams{TenantId: &tn, Limit: &limit}, admin)
		put("jobs "+tn.String(), jobs.Body, err)
		snaps, err := h.client.ListSnapshotsWithResponse(ctx, &api.ListSnapshotsParams{TenantId: &tn, Limit: &limit}, admin)
		put("snapshots "+tn.String(), snaps.Body, err)
		tenant, err := h.client.GetTenantWithResponse(ctx, tn, admin)
		put("tenant "+tn.String(), tenant.Body, err)
		daily, err := h.client.GetDailyUsageWithResponse(ctx, &api.GetDailyUsageParams{TenantId: &tn, From: &from, To: &from}, admin)
		put("usage "+tn.String(), daily.Body, err)
		refunds, err := h.client.ListRefundsDueWithResponse(ctx, &api.ListRefundsDueParams{TenantId: &tn, Status: &all, Limit: &limit}, admin)
		put("refunds "+tn.String(), refunds.Body, err)
	}
	for _, id := range usersOf(t, st) {
		u, err := h.client.GetUserWithResponse(ctx, id, admin)
		put("user "+id.String(), u.Body, err)
	}
	for _, tn := range st.Tenants {
		k, err := h.client.ListTenantApiKeysWithResponse(ctx, tn, &api.ListTenantApiKeysParams{}, admin)
		put("keys "+tn.String(), k.Body, err)
	}
	for _, j := range st.Jobs {
		tl, err := h.client.GetRenderJobTimelineWithResponse(ctx, j, admin)
		if err != nil {
			t.Fatal(err)
		}
		// The timeline's event set is the same; applied and received_at depend on arrival.
		var ids []string
		for _, e := range tl.JSON200.Data {
			ids = append(ids, e.EventId.String()+" "+e.EventType)
		}
		b, _ := json.Marshal(ids)
		out["timeline "+j.String()] = b
	}
	return out
}

// inOrder is the shared service; the messy stream goes to a service of its own, since both
// streams carry the same events.
func testDuplicatedAndReorderedDeliveriesGiveTheSameStateAsAnInOrderStream(t *testing.T, inOrder *harness) {
	messy := start(t)
	// A seed of its own: the shared service holds the default stream already.
	plain := seedStream(t, sim.Options{Seed: 43})
	shuffled := seedStream(t, sim.Options{Seed: 43, Duplicates: 0.3, Reorder: 40})
	// Progress ticks are transient and timing-dependent; the read models compared here
	// come from the events exchange.
	plainEvents, messyEvents := onlyEvents(plain.Messages), onlyEvents(shuffled.Messages)
	if len(messyEvents) <= len(plainEvents) {
		t.Fatalf("the messy stream has no duplicates")
	}
	reordered := false
	for i := range plainEvents {
		if plainEvents[i].EventID != messyEvents[i].EventID {
			reordered = true
		}
	}
	if !reordered {
		t.Fatal("the messy stream is not reordered")
	}
	inOrder.publish(plainEvents)
	messy.publish(messyEvents)
	inOrder.waitApplied(plainEvents...)
	messy.waitApplied(messyEvents...)
	var late int
	_ = messy.pool.QueryRow(context.Background(), "SELECT count(*) FROM render_job_events WHERE NOT applied").Scan(&late)
	if late == 0 {
		t.Fatal("no event arrived late in the messy stream: the test would prove nothing")
	}
	want, got := snapshotOf(t, inOrder, plain), snapshotOf(t, messy, shuffled)
	for k := range want {
		var a, b any
		_ = json.Unmarshal(want[k], &a)
		_ = json.Unmarshal(got[k], &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s differs:\nin order: %s\nmessy:    %s", k, want[k], got[k])
		}
	}
}

func testAPoisonMessageGoesToTheDeadLetterQueueWhileTheFollowingOnesAreProcessed(t *testing.T, h *harness) {
	st, err := sim.Generate(sim.Options{Tenants: 1, Jobs: 3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	poison := []struct {
		key, body, reason string
	}{
		{"render.job.started.v1", `{not json`, "invalid event"},
		{"render.job.queued.v1", `{"event_id":"` + uuid.NewString() + `","event_type":"render.job.queued.v1","event_time":"2025-03-01T12:00:00Z","tenant_id":"` +
			uuid.NewString() + `","data":{"saved_project_id":"` + uuid.NewString() + `","priority_queue":"vip","price_type":"Cash","region":"eu"}}`,
			"invalid event: data.render_job_id: is required"},
	}
	for _, p := range poison {
		bustest.PublishRaw(t, h.cfg.EventsExchange, p.key, amqp.Publishing{ContentType: "application/json", Body: []byte(p.body)})
	}
	h.publish(st.Messages)
	h.waitApplied(st.Messages...)

	letters := bustest.Read(t, bustest.Channel(t), h.cfg.BusConfig().DeadLetterQueue(), len(poison), 10*time.Second)
	for i, p := range poison {
		d := letters[i]
		reason, _ := d.Headers[bus.MetaDeadLetterReason].(string)
		if string(d.Body) != p.body || !strings.HasPrefix(reason, p.reason) || d.Headers[bus.MetaDeadLetterPermanent] != "true" {
			t.Errorf("dead letter %d: body %q reason %q permanent %v; want the poison with %q", i, d.Body, reason,
				d.Headers[bus.MetaDeadLetterPermanent], p.reason)
		}
	}
	jobs, err := h.client.ListRenderJobsWithResponse(context.Background(), &api.ListRenderJobsParams{TenantId: &st.Tenants[0]}, h.admin())
	if err != nil || jobs.JSON200 == nil || len(jobs.JSON200.Data) != 3 {
		t.Fatalf("the events after the poison were not all applied: %v %s", err, jobs.Body)
	}

	// A job event of another tenant cannot be applied; its reason is one line.
	job := uuid.New()
	q := message(t, uuid.New(), time.Now().UTC(), events.RenderJobQueuedV1Payload{RenderJobID: job, SavedProjectID: uuid.New(),
		PriorityQueue: events.PriorityQueueVip, PriceType: events.PriceTypePlan, Region: "eu"})
	h.publish([]sim.Message{q})
	h.waitApplied(q)
	h.publish([]sim.Message{message(t, uuid.New(), time.Now().UTC(), events.RenderJobStartedV1Payload{RenderJobID: job,
		StartedAt: time.Now().UTC()})})
	d := bustest.Read(t, bustest.Channel(t), h.cfg.BusConfig().DeadLetterQueue(), 1, 10*time.Second)[0]
	const want = "event cannot be applied; the event's tenant_id differs from the job's tenant"
	if reason, _ := d.Headers[bus.MetaDeadLetterReason].(string); reason != want {
		t.Errorf("reason %q, want %q", reason, want)
	}
}
