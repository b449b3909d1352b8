package httpapi_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
)

func TestTeamsAreCreatedByOwnersOptionallyUnderAProduct(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	if w.teamA1.ProductId == nil || *w.teamA1.ProductId != w.productA.Id || w.teamA2.ProductId != nil {
		t.Fatalf("teams %+v %+v", w.teamA1, w.teamA2)
	}
	// The seed's case: a Member gets 403 on creating a team (a Lead too).
	must[*orgboard.CreateTeamResponse](t, 403)(c.CreateTeamWithResponse(e.ctx, nil, orgboard.TeamCreate{OrganizationId: w.orgA.Id, Name: "X"}, as(w.memberA)))
	must[*orgboard.CreateTeamResponse](t, 403)(c.CreateTeamWithResponse(e.ctx, nil, orgboard.TeamCreate{OrganizationId: w.orgA.Id, Name: "X"}, as(w.leadA)))
	got := must[*orgboard.GetTeamResponse](t, 200)(c.GetTeamWithResponse(e.ctx, w.teamA1.Id, as(w.memberA))).JSON200
	if got.Name != "A1" {
		t.Fatalf("team %+v", got)
	}
	inOrg := must[*orgboard.ListTeamsResponse](t, 200)(c.ListTeamsWithResponse(e.ctx, &orgboard.ListTeamsParams{OrganizationId: &w.orgA.Id}, as(w.memberA))).JSON200.Data
	if len(inOrg) != 2 || inOrg[0].Name != "A1" || inOrg[1].Name != "A2" {
		t.Fatalf("teams of A %+v", inOrg)
	}
	ofProduct := must[*orgboard.ListTeamsResponse](t, 200)(c.ListTeamsWithResponse(e.ctx, &orgboard.ListTeamsParams{OrganizationId: &w.orgA.Id, ProductId: &w.productA.Id}, as(w.memberA))).JSON200.Data
	if len(ofProduct) != 1 || ofProduct[0].Id != w.teamA1.Id {
		t.Fatalf("teams of the product %+v", ofProduct)
	}
	// Without organization_id: the teams of the caller's organizations only.
	mine := must[*orgboard.ListTeamsResponse](t, 200)(c.ListTeamsWithResponse(e.ctx, &orgboard.ListTeamsParams{}, as(w.ownerB))).JSON200.Data
	if len(mine) != 1 || mine[0].Id != w.teamB.Id {
		t.Fatalf("teams of B's owner %+v", mine)
	}
}

func TestLeadsAreMembersNamedByAnOwnerPerTeam(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	leads := must[*orgboard.ListTeamLeadsResponse](t, 200)(c.ListTeamLeadsWithResponse(e.ctx, w.teamA1.Id, as(w.memberA))).JSON200.Data
	if len(leads) != 1 || leads[0].UserId != w.leadA.user {
		t.Fatalf("leads %+v", leads)
	}
	first := must[*orgboard.SetTeamLeadResponse](t, 200)(c.SetTeamLeadWithResponse(e.ctx, w.teamA2.Id, w.spareA.user, as(w.ownerA))).JSON200
	again := must[*orgboard.SetTeamLeadResponse](t, 200)(c.SetTeamLeadWithResponse(e.ctx, w.teamA2.Id, w.spareA.user, as(w.ownerA))).JSON200
	if !first.AssignedAt.Equal(again.AssignedAt) {
		t.Fatal("setting a Lead twice is not idempotent")
	}
	// Only the first assignment is audited.
	page := must[*orgboard.ListAuditEntriesResponse](t, 200)(c.ListAuditEntriesWithResponse(e.ctx, &orgboard.ListAuditEntriesParams{OrganizationId: w.orgA.Id, Action: ptr("team.lead.assigned"), TargetId: &w.spareA.user}, as(w.ownerA))).JSON200
	if len(page.Data) != 1 || page.Data[0].ScopeType != orgboard.AuditEntryScopeTypeTeam || page.Data[0].ScopeId != w.teamA2.Id {
		t.Fatalf("lead audit %+v", page.Data)
	}
	// The new Lead configures seats on its team only.
	must[*orgboard.CreateSeatResponse](t, 201)(c.CreateSeatWithResponse(e.ctx, nil, orgboard.SeatCreate{TeamId: w.teamA2.Id, Title: "Dev"}, as(w.spareA)))
	must[*orgboard.CreateSeatResponse](t, 403)(c.CreateSeatWithResponse(e.ctx, nil, orgboard.SeatCreate{TeamId: w.teamA1.Id, Title: "Dev"}, as(w.spareA)))
	// A Lead cannot name Leads.
	must[*orgboard.SetTeamLeadResponse](t, 403)(c.SetTeamLeadWithResponse(e.ctx, w.teamA1.Id, w.memberA.user, as(w.leadA)))
	must[*orgboard.RemoveTeamLeadResponse](t, 204)(c.RemoveTeamLeadWithResponse(e.ctx, w.teamA2.Id, w.spareA.user, as(w.ownerA)))
	must[*orgboard.RemoveTeamLeadResponse](t, 404)(c.RemoveTeamLeadWithResponse(e.ctx, w.teamA2.Id, w.spareA.user, as(w.ownerA)))
	must[*orgboard.CreateSeatResponse](t, 403)(c.CreateSeatWithResponse(e.ctx, nil, orgboard.SeatCreate{TeamId: w.teamA2.Id, Title: "Dev"}, as(w.spareA)))
}

func TestSeatsAreHumanOrOpenUntilAnAgentTakesThem(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	human := must[*orgboard.CreateSeatResponse](t, 201)(c.CreateSeatWithResponse(e.ctx, nil, orgboard.SeatCreate{
		TeamId: w.teamA1.Id, Title: "Frontend", State: ptr(orgboard.SeatCreateStateHuman), UserId: &w.memberA.user}, as(w.ownerA))).JSON201
	if human.State != orgboard.SeatStateHuman || *human.UserId != w.memberA.user || human.AgentId != nil || human.OrganizationId != w.orgA.Id {
		t.Fatalf("human seat %+v", human)
	}
	if w.seatA1.State != orgboard.SeatStateOpen || w.seatA1.UserId != nil {
		t.Fatalf("open seat %+v", w.seatA1)
	}
	must[*orgboard.CreateSeatResponse](t, 400)(c.CreateSeatWithResponse(e.ctx, nil, orgboard.SeatCreate{TeamId: w.teamA1.Id, Title: "X", State: ptr(orgboard.SeatCreateStateHuman)}, as(w.ownerA)))
	must[*orgboard.CreateSeatResponse](t, 400)(c.CreateSeatWithResponse(e.ctx, nil, orgboard.SeatCreate{TeamId: w.teamA1.Id, Title: "X", UserId: &w.memberA.user}, as(w.ownerA)))
	must[*orgboard.CreateSeatResponse](t, 403)(c.CreateSeatWithResponse(e.ctx, nil, orgboard.SeatCreate{TeamId: w.teamA1.Id, Title: "X"}, as(w.memberA)))
	e.flipSeatToAI(w.seatA1.Id)
	seats := must[*orgboard.ListSeatsResponse](t, 200)(c.ListSeatsWithResponse(e.ctx, &orgboard.ListSeatsParams{TeamId: w.teamA1.Id}, as(w.memberA))).JSON200.Data
	if len(seats) != 2 || seats[0].Id != w.seatA1.Id || seats[0].State != orgboard.SeatStateAi || seats[0].AgentId == nil || seats[1].Id != human.Id {
		t.Fatalf("seats %+v", seats)
	}
}

func TestASeatHoldsOneAgentAndAnAgentOneSeat(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	agent := uuid.New()
	other := must[*orgboard.CreateSeatResponse](t, 201)(e.client.CreateSeatWithResponse(e.ctx, nil, orgboard.SeatCreate{TeamId: w.teamA1.Id, Title: "Dev"}, as(w.ownerA))).JSON201
	set := "UPDATE seats SET state = 'ai', agent_id = $2 WHERE id = $1"
	tx, err := e.pool.Begin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(e.ctx) //nolint:errcheck
	if _, err := tx.Exec(e.ctx, "SET LOCAL session_replication_role = replica"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(e.ctx, set, w.seatA1.Id, agent); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(e.ctx, set, other.Id, agent); err == nil {
		t.Fatal("one agent took two seats")
	}
	if _, err := e.pool.Exec(e.ctx, "UPDATE seats SET state = 'ai' WHERE id = $1", other.Id); err == nil {
		t.Fatal("a seat became ai without an agent")
	}
}
