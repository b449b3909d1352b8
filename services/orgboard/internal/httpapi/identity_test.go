package httpapi_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/busapi"
)

// identityBus is a test's topology on the real RabbitMQ, consumed into the shared service by
// the service's identity handlers until the test ends.
type identityBus struct {
	t   *testing.T
	cfg bus.Config
}

func startIdentityBus(t *testing.T) *identityBus {
	t.Helper()
	cfg := bustest.Config(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sub, err := bus.NewSubscriber(cfg, log, busapi.IdentityKeys...)
	if err != nil {
		t.Fatal(err)
	}
	dlq, err := bus.NewDeadLetterPublisher(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	router, err := bus.NewRouter(cfg, dlq, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	bus.Consume(router, "orgboard-identity", sub, busapi.IdentityHandlers(suite.app))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- router.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("router: %v", err)
		}
		_ = sub.Close()
		_ = dlq.Close()
	})
	select {
	case <-router.Running():
	case err := <-done:
		t.Fatalf("router: %v", err)
	}
	return &identityBus{t: t, cfg: cfg}
}

// publish sends envs in order, then an event for nobody, and returns once that one is applied:
// one consumer takes the queue in order, so every event before it has been handled too
// (duplicates included).
func (b *identityBus) publish(envs ...events.EventEnvelope) {
	b.t.Helper()
	last := ban(b.t, uuid.New(), time.Now(), "sentinel", nil)
	bustest.Publish(b.t, b.cfg, append(envs, last)...)
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok, err := bus.Handled(context.Background(), suite.pool, app.IdentityConsumer, last.EventID)
		if err != nil {
			b.t.Fatal(err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatal("the identity events were not applied within 15s")
		}
		time.Sleep(10 * time.Millisecond) // polling the inbox: nothing announces an applied event
	}
}

// ban is an identity.user.banned.v1 of user at eventTime.
func ban(t *testing.T, user uuid.UUID, eventTime time.Time, reason string, until *time.Time) events.EventEnvelope {
	t.Helper()
	env, err := events.NewEvent(uuid.New(), events.IdentityUserBannedV1Payload{UserID: user, BannedBy: uuid.New(),
		Reason: reason, UnblockDate: until})
	if err != nil {
		t.Fatal(err)
	}
	env.EventTime = eventTime.UTC()
	return env
}

func (e *env) tenantUser(name string, tenant uuid.UUID) caller {
	e.t.Helper()
	id, _ := uuid.NewV7()
	return caller{name: name, user: id, token: suite.issuer.Token(e.t, authtest.Subject(id), authtest.Tenant(tenant))}
}

// membersOf lists org's members as c, by user id.
func (e *env) membersOf(c caller, org uuid.UUID) map[uuid.UUID]orgboard.Member {
	e.t.Helper()
	r := must[*orgboard.ListOrganizationMembersResponse](e.t, 200)(e.client.ListOrganizationMembersWithResponse(e.ctx, org, as(c)))
	out := map[uuid.UUID]orgboard.Member{}
	for _, m := range r.JSON200.Data {
		out[m.UserId] = m
	}
	return out
}

// refusedAs expects 403 for c on three operations (a list, a write, and the board, which reads
// the blocks with its own reads), with want in the detail.
func (e *env) refusedAs(c caller, want string) {
	e.t.Helper()
	list := must[*orgboard.ListOrganizationsResponse](e.t, 403)(e.client.ListOrganizationsWithResponse(e.ctx, as(c)))
	create := must[*orgboard.CreateTaskResponse](e.t, 403)(e.client.CreateTaskWithResponse(e.ctx, nil,
		orgboard.WorkItemCreate{TeamId: uuid.New(), Type: orgboard.WorkItemTypeTask, Title: "x"}, as(c)))
	board := must[*orgboard.GetBoardResponse](e.t, 403)(e.client.GetBoardWithResponse(e.ctx,
		&orgboard.GetBoardParams{TeamId: uuid.New()}, as(c)))
	// The task changes read the blocks with the task they lock: refused first, before the task
	// (which does not exist) is found missing.
	move := must[*orgboard.MoveTaskResponse](e.t, 403)(e.client.MoveTaskWithResponse(e.ctx, uuid.New(),
		orgboard.WorkItemMove{Status: orgboard.WorkItemStatusInReview}, as(c)))
	assign := must[*orgboard.AssignTaskResponse](e.t, 403)(e.client.AssignTaskWithResponse(e.ctx, uuid.New(),
		orgboard.WorkItemAssign{}, as(c)))
	for _, body := range []string{string(list.Body), string(create.Body), string(board.Body), string(move.Body), string(assign.Body)} {
		if !strings.Contains(body, want) {
			e.t.Errorf("%s refused with %s; want a detail containing %q", c.name, body, want)
		}
	}
}

func TestIdentityEventsKeepBannedUsersAndSuspendedTenantsOut(t *testing.T) {
	b := startIdentityBus(t)

	t.Run("a duplicated and reordered stream of bans and lifts ends with the latest ban by event time", func(t *testing.T) {
		e := newEnv(t)
		owner, banned, lifted := e.user("owner"), e.user("banned"), e.user("lifted")
		org := must[*orgboard.CreateOrganizationResponse](t, 201)(e.client.CreateOrganizationWithResponse(e.ctx, nil,
			orgboard.OrganizationCreate{Name: "Bans"}, as(owner))).JSON201
		e.join(owner, org.Id, banned, orgboard.OrgRoleMember)
		e.join(owner, org.Id, lifted, orgboard.OrgRoleMember)

		t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
		later := time.Now().Add(time.Hour).Truncate(time.Second)
		liftAt := t0.Add(time.Minute)
		// banned: banned for good, lifted, banned again until later (the latest).
		first := ban(t, banned.user, t0, "first", nil)
		lift := ban(t, banned.user, liftAt, "lifted", &liftAt)
		third := ban(t, banned.user, t0.Add(2*time.Minute), "third", &later)
		// lifted: banned for good, then lifted (the latest).
		banL := ban(t, lifted.user, t0, "spam", nil)
		liftL := ban(t, lifted.user, liftAt, "appeal granted", &liftAt)
		b.publish(third, liftL, lift, first, banL, third, lift, liftL, first, banL)

		e.refusedAs(banned, "the caller is banned until "+later.UTC().Format(time.RFC3339)+": third")
		must[*orgboard.ListOrganizationsResponse](t, 200)(e.client.ListOrganizationsWithResponse(e.ctx, as(lifted)))

		ms := e.membersOf(owner, org.Id)
		got := ms[banned.user].Blocked
		if got == nil || got.Cause != orgboard.MemberBlockCauseUserBanned || got.Reason != "third" ||
			!got.Since.Equal(t0.Add(2*time.Minute)) || got.Until == nil || !got.Until.Equal(later) {
			t.Errorf("banned member's block %+v; want user_banned, third, since %s, until %s", got, t0.Add(2*time.Minute), later)
		}
		if ms[lifted.user].Blocked != nil || ms[owner.user].Blocked != nil {
			t.Errorf("lifted member %+v, owner %+v: want no block", ms[lifted.user].Blocked, ms[owner.user].Blocked)
		}
		n, err := bus.HandledCount(e.ctx, suite.pool, app.IdentityConsumer)
		if err != nil || n < 5 {
			t.Errorf("inbox holds %d events (%v); want the 5 distinct ones at least", n, err)
		}
	})

	t.Run("a ban whose unblock_date has passed no longer refuses", func(t *testing.T) {
		e := newEnv(t)
		owner, u := e.user("owner"), e.user("served")
		org := must[*orgboard.CreateOrganizationResponse](t, 201)(e.client.CreateOrganizationWithResponse(e.ctx, nil,
			orgboard.OrganizationCreate{Name: "Served"}, as(owner))).JSON201
		e.join(owner, org.Id, u, orgboard.OrgRoleMember)
		ended := time.Now().Add(-time.Minute)
		b.publish(ban(t, u.user, ended.Add(-time.Hour), "a week off", &ended))
		must[*orgboard.ListOrganizationsResponse](t, 200)(e.client.ListOrganizationsWithResponse(e.ctx, as(u)))
		if m := e.membersOf(owner, org.Id)[u.user]; m.Blocked != nil {
			t.Errorf("member %+v: want no block once the ban ended", m.Blocked)
		}
	})

	t.Run("a suspended tenant's users are refused and their member records say so", func(t *testing.T) {
		e := newEnv(t)
		tenant, other := uuid.New(), uuid.New()
		owner := e.tenantUser("owner", other)
		u := e.tenantUser("suspended tenant's user", tenant)
		v := e.tenantUser("other tenant's user", other)
		org := must[*orgboard.CreateOrganizationResponse](t, 201)(e.client.CreateOrganizationWithResponse(e.ctx, nil,
			orgboard.OrganizationCreate{Name: "Tenants"}, as(owner))).JSON201
		e.join(owner, org.Id, u, orgboard.OrgRoleMember)
		e.join(owner, org.Id, v, orgboard.OrgRoleMember)

		at := time.Now().Add(-time.Minute).Truncate(time.Second)
		env, err := events.NewEvent(tenant, events.IdentityTenantSuspendedV1Payload{TenantID: tenant, Reason: "unpaid invoice", SuspendedAt: &at})
		if err != nil {
			t.Fatal(err)
		}
		b.publish(env, env)

		e.refusedAs(u, "the caller's tenant is suspended since "+at.UTC().Format(time.RFC3339)+": unpaid invoice")
		must[*orgboard.ListOrganizationsResponse](t, 200)(e.client.ListOrganizationsWithResponse(e.ctx, as(v)))
		ms := e.membersOf(owner, org.Id)
		if got := ms[u.user].Blocked; got == nil || got.Cause != orgboard.MemberBlockCauseTenantSuspended ||
			got.Reason != "unpaid invoice" || !got.Since.Equal(at) || got.Until != nil {
			t.Errorf("suspended tenant's member block %+v; want tenant_suspended, unpaid invoice, since %s, no end", got, at)
		}
		if ms[v.user].Blocked != nil {
			t.Errorf("other tenant's member %+v: want no block", ms[v.user].Blocked)
		}
	})

	t.Run("a schema-invalid event is dead-lettered with the reason and changes nothing", func(t *testing.T) {
		e := newEnv(t)
		u := e.user("not banned")
		env := ban(t, u.user, time.Now(), "spam", nil)
		env.Data = []byte(`{"banned_by":"` + uuid.NewString() + `","reason":"spam","unblock_date":"next week"}`)
		b.publish(env)
		d := bustest.Read(t, bustest.Channel(t), b.cfg.DeadLetterQueue(), 1, 10*time.Second)[0]
		reason, _ := d.Headers[bus.MetaDeadLetterReason].(string)
		for _, want := range []string{"invalid identity.user.banned.v1", "data.user_id", "data.unblock_date"} {
			if !strings.Contains(reason, want) {
				t.Errorf("dead letter reason %q; want it to name %q", reason, want)
			}
		}
		if d.Headers[bus.MetaDeadLetterPermanent] != "true" {
			t.Errorf("dead letter permanent = %v; want true (no retry can fix it)", d.Headers[bus.MetaDeadLetterPermanent])
		}
		if ok, err := bus.Handled(e.ctx, suite.pool, app.IdentityConsumer, env.EventID); err != nil || ok {
			t.Errorf("the invalid event is in the inbox (%v, %v); want it not applied", ok, err)
		}
		must[*orgboard.ListOrganizationsResponse](t, 200)(e.client.ListOrganizationsWithResponse(e.ctx, as(u)))
	})
}
