package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus/bustest"
)

// boardOf is a fresh organization with one team and one task, owned by a user whose token
// names tenant.
func (e *env) boardOf(tenant uuid.UUID) (owner caller, org orgboard.Organization, task orgboard.WorkItem) {
	e.t.Helper()
	id, _ := uuid.NewV7()
	owner = caller{name: "owner", user: id, token: suite.issuer.Token(e.t, authtest.Subject(id), authtest.Tenant(tenant))}
	org = *must[*orgboard.CreateOrganizationResponse](e.t, 201)(e.client.CreateOrganizationWithResponse(e.ctx, nil,
		orgboard.OrganizationCreate{Name: "Events"}, as(owner))).JSON201
	team := e.team(owner, org.Id, nil, "Board")
	return owner, org, e.task(owner, team.Id, nil, "Ship it")
}

// movedEvents reads task.moved events of task from deliveries until n arrived (others are
// skipped), decoding each with the generated types; a redelivery (the same event id) counts once.
func movedEvents(t *testing.T, deliveries <-chan amqp.Delivery, task uuid.UUID, n int) []events.OrgboardTaskMovedV1Payload {
	t.Helper()
	seen := map[uuid.UUID]bool{}
	var out []events.OrgboardTaskMovedV1Payload
	deadline := time.After(60 * time.Second)
	for len(out) < n {
		var d amqp.Delivery
		select {
		case d = <-deliveries:
		case <-deadline:
			t.Fatalf("%d of %d task.moved events of %s within 60s", len(out), n, task)
		}
		env, payload, err := events.DecodeEvent(d.Body)
		if err != nil {
			t.Fatalf("the event does not decode with the generated types: %v\n%s", err, d.Body)
		}
		p, ok := payload.(events.OrgboardTaskMovedV1Payload)
		if !ok || d.RoutingKey != events.OrgboardTaskMovedV1 || env.EventType != events.OrgboardTaskMovedV1 {
			t.Fatalf("routing key %s, event %s, payload %T", d.RoutingKey, env.EventType, payload)
		}
		if p.TargetID == nil || *p.TargetID != task || seen[env.EventID] {
			continue
		}
		seen[env.EventID] = true
		out = append(out, p)
	}
	return out
}

func TestABoardMovePublishesTaskMovedOnTheEventsExchange(t *testing.T) {
	e := newEnv(t)
	deliveries := bustest.BindEvents(t, suite.bus, events.OrgboardTaskMovedV1)
	tenant := uuid.New()
	owner, org, task := e.boardOf(tenant)

	must[*orgboard.MoveTaskResponse](t, 200)(e.client.MoveTaskWithResponse(e.ctx, task.Id,
		orgboard.WorkItemMove{Status: orgboard.WorkItemStatusInProgress}, as(owner)))

	d := bustest.Receive(t, deliveries, 30*time.Second)
	if d.Exchange != suite.bus.EventsExchange || d.RoutingKey != "orgboard.task.moved.v1" {
		t.Fatalf("delivered from %s with key %s", d.Exchange, d.RoutingKey)
	}
	env, payload, err := events.DecodeEvent(d.Body)
	if err != nil {
		t.Fatalf("the event does not decode with the generated types: %v\n%s", err, d.Body)
	}
	p, ok := payload.(events.OrgboardTaskMovedV1Payload)
	if !ok {
		t.Fatalf("payload %T", payload)
	}
	if env.Producer == nil || *env.Producer != events.ProducerOrgboard || env.TenantID != tenant ||
		env.UserID == nil || *env.UserID != owner.user {
		t.Errorf("envelope producer %v, tenant %s, user %v; want orgboard, %s, %s", env.Producer, env.TenantID, env.UserID, tenant, owner.user)
	}
	if p.OrganizationID != org.Id || p.ScopeType != events.OrgboardScopeTypeTeam || p.ScopeID != task.TeamId ||
		p.TargetID == nil || *p.TargetID != task.Id || p.ActorKind != events.OrgboardActorKindUser ||
		p.ActorID == nil || *p.ActorID != owner.user || p.ActorName != nil {
		t.Errorf("ids %+v", p)
	}
	if p.BeforeStatus == nil || *p.BeforeStatus != "backlog" || p.AfterStatus == nil || *p.AfterStatus != "in_progress" {
		t.Errorf("before %v, after %v; want backlog, in_progress", p.BeforeStatus, p.AfterStatus)
	}
	// The event names the audit entry written in the same transaction.
	page := must[*orgboard.ListAuditEntriesResponse](t, 200)(e.client.ListAuditEntriesWithResponse(e.ctx, &orgboard.ListAuditEntriesParams{
		OrganizationId: org.Id, Action: ptr("task.moved"), TargetId: &task.Id}, as(owner))).JSON200
	if len(page.Data) != 1 || page.Data[0].Id != p.AuditEntryID || !page.Data[0].At.Equal(env.EventTime) {
		t.Errorf("audit entries %+v, want the one of event %s at %s", page.Data, p.AuditEntryID, env.EventTime)
	}
}

func TestABrokerOutageDuringTwentyMovesLosesNoneOfTheirEvents(t *testing.T) {
	e := newEnv(t)
	deliveries := bustest.BindEvents(t, suite.bus, events.OrgboardTaskMovedV1) // straight to the broker
	owner, org, task := e.boardOf(uuid.New())

	suite.proxy.Cut() // the service's way to the broker
	restored := false
	defer func() {
		if !restored {
			suite.proxy.Restore()
		}
	}()
	statuses := []orgboard.WorkItemStatus{orgboard.WorkItemStatusInProgress, orgboard.WorkItemStatusBacklog}
	for i := range 20 {
		must[*orgboard.MoveTaskResponse](t, 200)(e.client.MoveTaskWithResponse(e.ctx, task.Id,
			orgboard.WorkItemMove{Status: statuses[i%2]}, as(owner)))
	}
	// The broker is not a readiness dependency: the events wait in the outbox.
	ready, err := http.Get(suite.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	_ = ready.Body.Close()
	if ready.StatusCode != http.StatusOK {
		t.Errorf("/readyz %d during the outage, want 200", ready.StatusCode)
	}
	suite.proxy.Restore()
	restored = true

	got := movedEvents(t, deliveries, task.Id, 20)
	page := must[*orgboard.ListAuditEntriesResponse](t, 200)(e.client.ListAuditEntriesWithResponse(e.ctx, &orgboard.ListAuditEntriesParams{
		OrganizationId: org.Id, Action: ptr("task.moved"), TargetId: &task.Id, Limit: ptr(100)}, as(owner))).JSON200
	audited := map[uuid.UUID]bool{}
	for _, a := range page.Data {
		audited[a.Id] = true
	}
	for _, p := range got {
		if !audited[p.AuditEntryID] {
			t.Errorf("event of audit entry %s, which is not among the task's moves", p.AuditEntryID)
		}
		delete(audited, p.AuditEntryID)
	}
	if len(audited) != 0 || len(page.Data) != 20 {
		t.Fatalf("%d moves audited, %d of them without an event", len(page.Data), len(audited))
	}
}
