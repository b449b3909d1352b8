// Package sim generates realistic streams of the events of seed 001, for demos, tests and
// benchmarks: tenants with users, plans, API keys and payments, and render jobs going
// through queued, started, progress ticks and completed, failed or cancelled, with
// snapshots. Streams are deterministic for a seed; duplicates and reordering are added on
// request.
package sim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
)

// Exchange kinds a message is published to.
const (
	Events   = "events"   // the durable topic exchange, routing key = event name
	Progress = "progress" // the fanout exchange, routing key render.job.progress.{job_id}
)

// Options shape a stream.
type Options struct {
	Tenants       int         // tenants, each with a user, a plan and an API key (default 1)
	TenantIDs     []uuid.UUID // ids of the first tenants, in order (the others are generated); Tenants is at least their number
	Jobs          int         // render jobs, spread over the tenants
	Running       int         // of the jobs, the last ones that stay started (no terminal event)
	ProgressTicks int         // progress ticks per started job
	Snapshots     int         // snapshots (requested + ready)
	FailRate      float64     // share of jobs that fail (refund required, then refunded)
	CancelRate    float64     // share of jobs that are cancelled
	Identity      bool        // also the lifecycle events of tenants and users (suspension, ban, expiry, revocation)
	Duplicates    float64     // share of messages published twice
	Reorder       int         // shuffle the stream within windows of this many messages (0: in order)
	Seed          uint64
	Start         time.Time // event_time of the first event (default 2025-03-01T12:00:00Z)
}

// Message is one message to publish.
type Message struct {
	Exchange   string // Events or Progress
	RoutingKey string
	EventID    uuid.UUID
	EventType  string
	TenantID   uuid.UUID
	Body       []byte // the envelope JSON
	at         time.Time
	seq        int
}

// Stream is a generated stream with what it is made of.
type Stream struct {
	Messages []Message
	Tenants  []uuid.UUID
	Jobs     []uuid.UUID
}

type gen struct {
	opt Options
	rnd *rand.Rand
	out []Message
	err error
}

// Generate builds a stream.
func Generate(opt Options) (Stream, error) {
	opt.Tenants = max(opt.Tenants, len(opt.TenantIDs), 1)
	if opt.Start.IsZero() {
		opt.Start = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	}
	g := &gen{opt: opt, rnd: rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))}
	var st Stream
	type tenantInfo struct {
		id, user uuid.UUID
	}
	tenants := make([]tenantInfo, opt.Tenants)
	for i := range tenants {
		tenants[i] = tenantInfo{id: g.uuid(), user: g.uuid()}
		if i < len(opt.TenantIDs) {
			tenants[i].id = opt.TenantIDs[i]
		}
		st.Tenants = append(st.Tenants, tenants[i].id)
		g.tenant(i, tenants[i].id, tenants[i].user)
	}
	for i := 0; i < opt.Jobs; i++ {
		t := tenants[i%len(tenants)]
		id := g.uuid()
		st.Jobs = append(st.Jobs, id)
		g.job(i, id, t.id, t.user)
	}
	for i := 0; i < opt.Snapshots; i++ {
		t := tenants[i%len(tenants)]
		g.snapshot(i, t.id, t.user)
	}
	if opt.Identity {
		for i, t := range tenants {
			g.identityLater(i, t.id, t.user)
		}
	}
	if g.err != nil {
		return Stream{}, g.err
	}
	// In order: by event time, ties in generation order.
	sort.SliceStable(g.out, func(a, b int) bool {
		if !g.out[a].at.Equal(g.out[b].at) {
			return g.out[a].at.Before(g.out[b].at)
		}
		return g.out[a].seq < g.out[b].seq
	})
	g.duplicate()
	g.reorder()
	st.Messages = g.out
	return st, nil
}

func (g *gen) uuid() uuid.UUID {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.rnd.UintN(256))
	}
	b[6] = b[6]&0x0f | 0x70 // version 7 layout, random bits
	b[8] = b[8]&0x3f | 0x80
	return uuid.UUID(b)
}

func (g *gen) at(offset time.Duration) time.Time { return g.opt.Start.Add(offset) }

// emit wraps p in an envelope and appends it.
func (g *gen) emit(tenant uuid.UUID, user, correlation *uuid.UUID, at time.Time, p events.Payload) {
	if g.err != nil {
		return
	}
	env, err := events.NewEvent(tenant, p)
	if err != nil {
		g.err = fmt.Errorf("sim: %s: %w", p.EventType(), err)
		return
	}
	env.EventID = g.uuid()
	env.EventTime = at.UTC()
	env.UserID, env.CorrelationID = user, correlation
	body, err := json.Marshal(env)
	if err != nil {
		g.err = err
		return
	}
	m := Message{Exchange: Events, RoutingKey: env.EventType, EventID: env.EventID, EventType: env.EventType,
		TenantID: tenant, Body: body, at: env.EventTime, seq: len(g.out)}
	if env.EventType == events.RenderJobProgressV1 {
		m.Exchange = Progress
		m.RoutingKey = "render.job.progress." + p.(events.RenderJobProgressV1Payload).RenderJobID.String()
	}
	g.out = append(g.out, m)
}

func ptr[T any](v T) *T { return &v }

func (g *gen) tenant(i int, tenant, user uuid.UUID) {
	base := time.Duration(i) * time.Millisecond
	g.emit(tenant, nil, nil, g.at(base), events.IdentityTenantCreatedV1Payload{
		TenantID: tenant, Slug: fmt.Sprintf("tenant-%03d", i), Kind: events.TenantKindEnterprise,
		Name: ptr(fmt.Sprintf("Tenant %d", i)), ContactEmail: ptr(fmt.Sprintf("ops%d@example.com", i)),
	})
	g.emit(tenant, &user, nil, g.at(base+time.Second), events.IdentityUserRegisteredV1Payload{
		UserID: user, TenantID: tenant, RegisterMode: events.RegisterModeEmail,
		Email: ptr(fmt.Sprintf("user%d@example.com", i)), FullName: ptr(fmt.Sprintf("User %d", i)),
	})
	g.emit(tenant, &user, nil, g.at(base+2*time.Second), events.IdentityUserEmailVerifiedV1Payload{
		UserID: user, Email: fmt.Sprintf("user%d@example.com", i), TenantID: &tenant,
	})
	planPayment := g.uuid()
	g.emit(tenant, &user, nil, g.at(base+3*time.Second), events.IdentityPaymentSucceededV1Payload{
		PaymentID: planPayment, UserID: user, AmountMinor: 4900, Gateway: events.PaymentGatewayCardGateway,
		Action: events.PaymentActionPlanPurchase, TenantID: &tenant, Currency: ptr("EUR"),
	})
	g.emit(tenant, &user, nil, g.at(base+4*time.Second), events.IdentityPlanActivatedV1Payload{
		UserID: user, UserPlanID: g.uuid(), PlanCode: "pro", ExpiresAt: g.at(30 * 24 * time.Hour), TenantID: &tenant,
		PlanName: ptr("Pro"), SecondsCharge: ptr(3600), StorageGb: ptr(50), ParallelRenders: ptr(2), PaymentID: &planPayment,
	})
	g.emit(tenant, &user, nil, g.at(base+5*time.Second), events.IdentityApiKeyCreatedV1Payload{
		APIKeyID: g.uuid(), TenantID: tenant, Name: "ci", Environment: events.ApiKeyEnvironmentLive,
		CreatedByUserID: user, KeyPrefix: ptr("vt_live"), Last4: ptr("a1b2"), Scopes: []string{"render:write"},
	})
}

// identityLater emits the events that end things: a failed payment, a ban, an expired
// plan, a revoked key and (for the first tenant) a suspension, after every job.
func (g *gen) identityLater(i int, tenant, user uuid.UUID) {
	end := g.at(time.Duration(g.opt.Jobs+10)*time.Second + 10*time.Minute + time.Duration(i)*time.Millisecond)
	other := g.uuid()
	g.emit(tenant, &user, nil, end, events.IdentityPaymentFailedV1Payload{
		PaymentID: g.uuid(), UserID: user, Gateway: "CardGateway", FailureReason: "card declined",
		TenantID: &tenant, AmountMinor: ptr(int64(990)), Currency: ptr("EUR"), Action: ptr("BalanceCharge"),
	})
	g.emit(tenant, &other, nil, end.Add(time.Second), events.IdentityUserRegisteredV1Payload{
		UserID: other, TenantID: tenant, RegisterMode: events.RegisterModeSocialProvider,
	})
	g.emit(tenant, &user, nil, end.Add(2*time.Second), events.IdentityUserBannedV1Payload{
		UserID: other, BannedBy: user, Reason: "spam", TenantID: &tenant,
	})
	planID := g.uuid()
	g.emit(tenant, &other, nil, end.Add(3*time.Second), events.IdentityPlanActivatedV1Payload{
		UserID: other, UserPlanID: planID, PlanCode: "trial", ExpiresAt: end.Add(time.Hour), TenantID: &tenant,
	})
	g.emit(tenant, &other, nil, end.Add(4*time.Second), events.IdentityPlanExpiredV1Payload{
		UserID: other, UserPlanID: planID, TenantID: &tenant, PlanCode: ptr("trial"), DaysOverdue: ptr(0),
	})
	key := g.uuid()
	g.emit(tenant, &user, nil, end.Add(5*time.Second), events.IdentityApiKeyCreatedV1Payload{
		APIKeyID: key, TenantID: tenant, Name: "temp", Environment: events.ApiKeyEnvironmentTest, CreatedByUserID: user,
	})
	g.emit(tenant, &user, nil, end.Add(6*time.Second), events.IdentityApiKeyRevokedV1Payload{
		APIKeyID: key, TenantID: tenant, RevokedByUserID: user, Reason: "rotated",
	})
	if i == 0 && g.opt.Tenants > 1 {
		g.emit(tenant, nil, nil, end.Add(7*time.Second), events.IdentityTenantSuspendedV1Payload{
			TenantID: tenant, Reason: "unpaid invoice", SuspendedAt: ptr(end.Add(7 * time.Second)),
		})
	}
}

var steps = []events.Step{events.StepPreparing, events.StepTemplateCache, events.StepJsxGen, events.StepMusic,
	events.StepRendering, events.StepValidating, events.StepOptimisation, events.StepVideo, events.StepMixing,
	events.StepFinal, events.StepUploading}

func (g *gen) job(i int, id, tenant, user uuid.UUID) {
	t0 := g.at(10*time.Second + time.Duration(i)*time.Second)
	project := g.uuid()
	payment := g.uuid()
	price := int64(500 + 100*(i%10))
	frames := 300 + 30*(i%10)
	nodes := []uuid.UUID{g.uuid(), g.uuid()}
	outcome := "completed"
	switch r := g.rnd.Float64(); {
	case i >= g.opt.Jobs-g.opt.Running:
		outcome = "running"
	case i%3 == 1 && g.opt.FailRate > 0 && r < g.opt.FailRate*3:
		outcome = "failed"
	case i%3 == 2 && g.opt.CancelRate > 0 && r < g.opt.CancelRate*3:
		outcome = "cancelled"
	}
	g.emit(tenant, &user, nil, t0.Add(-time.Second), events.IdentityPaymentSucceededV1Payload{
		PaymentID: payment, UserID: user, AmountMinor: price, Gateway: events.PaymentGatewayCardGateway,
		Action: events.PaymentActionProjectRender, TenantID: &tenant, Currency: ptr("EUR"),
	})
	g.emit(tenant, &user, &payment, t0, events.RenderJobQueuedV1Payload{
		RenderJobID: id, SavedProjectID: project, PriorityQueue: events.PriorityQueuePaid, PriceType: events.PriceTypeCash,
		Region: "eu-central", PriorityScore: ptr(50), PaidPriceMinor: &price, DurationSec: ptr(30.0),
		Resolution: ptr("1920x1080"), HasMusic: ptr(true),
	})
	started := t0.Add(2 * time.Second)
	g.emit(tenant, &user, &payment, started, events.RenderJobStartedV1Payload{
		RenderJobID: id, StartedAt: started, NodeIDs: nodes, Region: ptr("eu-central"), TotalFrames: &frames,
	})
	ticks := g.opt.ProgressTicks
	last := 0
	for k := 1; k <= ticks; k++ {
		pct := k * 100 / (ticks + 1)
		if (outcome == "failed" || outcome == "cancelled") && k > ticks/2 {
			break
		}
		last = pct
		frame := frames * pct / 100
		g.emit(tenant, &user, &payment, started.Add(time.Duration(k)*100*time.Millisecond), events.RenderJobProgressV1Payload{
			RenderJobID: id, Step: steps[(k-1)*len(steps)/max(ticks, 1)], Progress: pct, CurrentFrame: &frame,
			TotalFrames: &frames, EtaSeconds: ptr((ticks - k) * 2), Message: ptr("rendering"),
		})
	}
	end := started.Add(time.Duration(ticks+1)*100*time.Millisecond + time.Second)
	switch outcome {
	case "running":
	case "completed":
		g.emit(tenant, &user, &payment, end, events.RenderJobCompletedV1Payload{
			RenderJobID: id, ExportID: g.uuid(), OutputURL: fmt.Sprintf("s3://exports/%s.mp4", id), DurationSec: 30,
			SizeBytes: int64(8<<20 + i), SavedProjectID: &project, Resolution: ptr("1920x1080"), Width: ptr(1920),
			Height: ptr(1080), RenderComputeSeconds: ptr(60 + i%30), NodeIDsUsed: nodes, PriceType: ptr("Cash"),
			PaidPriceMinor: &price, ThumbnailURL: ptr(fmt.Sprintf("https://cdn.example.com/%s.jpg", id)),
		})
	case "failed":
		g.emit(tenant, &user, &payment, end, events.RenderJobFailedV1Payload{
			RenderJobID: id, FailedAtStep: events.StepRendering, ErrorMessage: "node lost", ErrorCode: ptr("NODE_LOST"),
			RetryCount: ptr(3), RefundRequired: true, PriceType: ptr("Cash"), PaidPriceMinor: &price, NodeIDsAttempted: nodes,
			SavedProjectID: &project,
		})
		if i%2 == 1 { // half of the failed jobs are refunded already
			g.emit(tenant, &user, &payment, end.Add(time.Minute), events.IdentityPaymentRefundedV1Payload{
				PaymentID: payment, UserID: user, RefundAmountMinor: price, Reason: "render failed", TenantID: &tenant,
				Currency: ptr("EUR"), RefundedTo: ptr(events.RefundedToOriginalMethod),
			})
		}
	case "cancelled":
		g.emit(tenant, &user, &payment, end, events.RenderJobCancelledV1Payload{
			RenderJobID: id, CancelledByUserID: user, CancelledAtStep: ptr(string(events.StepRendering)),
			ProgressWhenCancelled: ptr(last), RefundRequired: true,
		})
	}
}

func (g *gen) snapshot(i int, tenant, user uuid.UUID) {
	id := g.uuid()
	project := g.uuid()
	t0 := g.at(5*time.Second + time.Duration(i)*time.Second)
	cached := i%4 == 3
	g.emit(tenant, &user, nil, t0, events.RenderSnapshotRequestedV1Payload{
		SnapshotID: id, SavedProjectID: project, SceneKey: fmt.Sprintf("scene-%d", i%5), FrameNumber: 12 * i, Cached: &cached,
	})
	g.emit(tenant, &user, nil, t0.Add(800*time.Millisecond), events.RenderSnapshotReadyV1Payload{
		SnapshotID: id, ImageURL: fmt.Sprintf("https://cdn.example.com/snap/%s.png", id), SavedProjectID: &project,
		SceneKey: ptr(fmt.Sprintf("scene-%d", i%5)), FrameNumber: ptr(12 * i), Width: ptr(1280), Height: ptr(720),
		SizeBytes: ptr(120_000), DurationMs: ptr(640), ExpiresAt: ptr(t0.Add(24 * time.Hour)),
	})
}

// duplicate inserts a second copy of a share of the messages a little later in the stream.
func (g *gen) duplicate() {
	if g.opt.Duplicates <= 0 {
		return
	}
	out := make([]Message, 0, len(g.out)*2)
	var pending []Message
	for _, m := range g.out {
		out = append(out, m)
		if len(pending) > 0 && g.rnd.IntN(2) == 0 {
			out = append(out, pending[0])
			pending = pending[1:]
		}
		if g.rnd.Float64() < g.opt.Duplicates {
			pending = append(pending, m)
		}
	}
	g.out = append(out, pending...)
}

// reorder shuffles the stream within consecutive windows.
func (g *gen) reorder() {
	w := g.opt.Reorder
	if w <= 1 {
		return
	}
	for start := 0; start < len(g.out); start += w {
		win := g.out[start:min(start+w, len(g.out))]
		g.rnd.Shuffle(len(win), func(a, b int) { win[a], win[b] = win[b], win[a] })
	}
}
