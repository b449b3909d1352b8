package httpapi_test

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
)

// TestACallerOutsideAnOrganizationLearnsNothingAboutIt: every record of organization A answers
// the owner of organization B exactly as a record that does not exist (404, same problem).
func TestACallerOutsideAnOrganizationLearnsNothingAboutIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c, ctx, b := e.client, e.ctx, as(w.ownerB)
	type call func(id uuid.UUID) (int, []byte, error)
	calls := []struct {
		name string
		id   uuid.UUID
		do   call
	}{
		{"getOrganization", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) { return code(c.GetOrganizationWithResponse(ctx, id, b)) }},
		{"listOrganizationMembers", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.ListOrganizationMembersWithResponse(ctx, id, b))
		}},
		{"listInvitations", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) { return code(c.ListInvitationsWithResponse(ctx, id, b)) }},
		{"createInvitation", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.CreateInvitationWithResponse(ctx, id, nil, orgboard.InvitationCreate{UserId: &w.ownerB.user, Role: orgboard.OrgRoleOwner}, b))
		}},
		{"listDivisions", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.ListDivisionsWithResponse(ctx, &orgboard.ListDivisionsParams{OrganizationId: id}, b))
		}},
		{"createDivision", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.CreateDivisionWithResponse(ctx, nil, orgboard.DivisionCreate{OrganizationId: id, Name: "x"}, b))
		}},
		{"listProducts", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.ListProductsWithResponse(ctx, &orgboard.ListProductsParams{OrganizationId: id}, b))
		}},
		{"createProduct", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.CreateProductWithResponse(ctx, nil, orgboard.ProductCreate{OrganizationId: id, Name: "x", Kind: orgboard.ProductKindProduct}, b))
		}},
		{"getProduct", w.productA.Id, func(id uuid.UUID) (int, []byte, error) { return code(c.GetProductWithResponse(ctx, id, b)) }},
		{"getProductIdentity", w.productA.Id, func(id uuid.UUID) (int, []byte, error) { return code(c.GetProductIdentityWithResponse(ctx, id, b)) }},
		{"setProductIdentity", w.productA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.SetProductIdentityWithResponse(ctx, id, orgboard.ProductIdentityPut{Content: "x"}, b))
		}},
		{"listProductIdentityVersions", w.productA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.ListProductIdentityVersionsWithResponse(ctx, id, b))
		}},
		{"createTeam", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.CreateTeamWithResponse(ctx, nil, orgboard.TeamCreate{OrganizationId: id, Name: "x"}, b))
		}},
		{"listTeams", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.ListTeamsWithResponse(ctx, &orgboard.ListTeamsParams{OrganizationId: &id}, b))
		}},
		{"getTeam", w.teamA1.Id, func(id uuid.UUID) (int, []byte, error) { return code(c.GetTeamWithResponse(ctx, id, b)) }},
		{"listTeamLeads", w.teamA1.Id, func(id uuid.UUID) (int, []byte, error) { return code(c.ListTeamLeadsWithResponse(ctx, id, b)) }},
		{"setTeamLead", w.teamA1.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.SetTeamLeadWithResponse(ctx, id, w.ownerB.user, b))
		}},
		{"removeTeamLead", w.teamA1.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.RemoveTeamLeadWithResponse(ctx, id, w.leadA.user, b))
		}},
		{"createSeat", w.teamA1.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.CreateSeatWithResponse(ctx, nil, orgboard.SeatCreate{TeamId: id, Title: "x"}, b))
		}},
		{"listSeats", w.teamA1.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.ListSeatsWithResponse(ctx, &orgboard.ListSeatsParams{TeamId: id}, b))
		}},
		{"createTask", w.teamA1.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.CreateTaskWithResponse(ctx, nil, orgboard.WorkItemCreate{TeamId: id, Type: orgboard.WorkItemTypeBug, Title: "x"}, b))
		}},
		{"getBoard", w.teamA1.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.GetBoardWithResponse(ctx, &orgboard.GetBoardParams{TeamId: id}, b))
		}},
		{"getTask", w.taskA1.Id, func(id uuid.UUID) (int, []byte, error) { return code(c.GetTaskWithResponse(ctx, id, b)) }},
		{"moveTask", w.taskA1.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.MoveTaskWithResponse(ctx, id, orgboard.WorkItemMove{Status: orgboard.WorkItemStatusInProgress}, b))
		}},
		{"assignTask", w.taskA1.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.AssignTaskWithResponse(ctx, id, orgboard.WorkItemAssign{Assignee: &orgboard.Assignee{Kind: orgboard.AssigneeKindUser, Id: w.ownerB.user}}, b))
		}},
		{"listAuditEntries", w.orgA.Id, func(id uuid.UUID) (int, []byte, error) {
			return code(c.ListAuditEntriesWithResponse(ctx, &orgboard.ListAuditEntriesParams{OrganizationId: id}, b))
		}},
	}
	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			status, body, err := tc.do(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			missingStatus, missingBody, err := tc.do(uuid.New())
			if err != nil {
				t.Fatal(err)
			}
			if status != 404 || missingStatus != 404 {
				t.Fatalf("another organization's record: %d, a missing one: %d; want 404 for both", status, missingStatus)
			}
			if d1, d2 := detail(t, body), detail(t, missingBody); d1 != d2 {
				t.Fatalf("the answers differ: %q vs %q", d1, d2)
			}
		})
	}
	// And nothing changed in A.
	board := must[*orgboard.GetBoardResponse](t, 200)(c.GetBoardWithResponse(ctx, &orgboard.GetBoardParams{TeamId: w.teamA1.Id}, as(w.ownerA))).JSON200
	if len(board.Columns[0].Items) != 1 || board.Columns[0].Items[0].Assignee != nil {
		t.Fatalf("organization A's board changed: %+v", board.Columns[0].Items)
	}
}

func detail(t *testing.T, body []byte) string {
	t.Helper()
	var p struct {
		Title, Detail string
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("not a problem: %s", body)
	}
	return p.Title + ": " + p.Detail
}
