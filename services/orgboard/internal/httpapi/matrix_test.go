package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
)

// TestAuthorizationMatrix calls every operation of orgboard.yaml as the Owner of organization A,
// a Lead of team A1 (a Member holding the Lead role there), a plain Member, the Owner of another
// organization, and without a token, and checks each status against the table below.
//
// For the agent operations only the anonymous column is asserted here (401, before any handler
// runs); agents_test.go checks who may call them.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c, ctx := e.client, e.ctx
	n := 0
	unique := func(s string) string { n++; return fmt.Sprintf("%s %d", s, n) }
	freshTask := func() orgboard.WorkItem { return e.task(w.ownerA, w.teamA1.Id, nil, unique("task")) }
	const skip = 0
	type row struct {
		op   string
		want [5]int // Owner, Lead, Member, other organization, anonymous
		call func(who caller) (int, error)
	}
	st := func(r statusCoder, err error) (int, error) {
		if err != nil {
			return 0, err
		}
		return r.StatusCode(), nil
	}
	rows := []row{
		{"createOrganization", [5]int{201, 201, 201, 201, 401}, func(who caller) (int, error) {
			return st(c.CreateOrganizationWithResponse(ctx, nil, orgboard.OrganizationCreate{Name: unique("org")}, as(who)))
		}},
		{"listOrganizations", [5]int{200, 200, 200, 200, 401}, func(who caller) (int, error) {
			return st(c.ListOrganizationsWithResponse(ctx, as(who)))
		}},
		{"getOrganization", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.GetOrganizationWithResponse(ctx, w.orgA.Id, as(who)))
		}},
		{"listOrganizationMembers", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.ListOrganizationMembersWithResponse(ctx, w.orgA.Id, as(who)))
		}},
		{"createInvitation", [5]int{201, 403, 403, 404, 401}, func(who caller) (int, error) {
			invitee := uuid.New()
			return st(c.CreateInvitationWithResponse(ctx, w.orgA.Id, nil, orgboard.InvitationCreate{UserId: &invitee, Role: orgboard.OrgRoleMember}, as(who)))
		}},
		{"listInvitations", [5]int{200, 403, 403, 404, 401}, func(who caller) (int, error) {
			return st(c.ListInvitationsWithResponse(ctx, w.orgA.Id, as(who)))
		}},
		// An invitation addressed to someone else is not found for everyone else.
		{"acceptInvitation", [5]int{404, 404, 404, 404, 401}, func(who caller) (int, error) {
			inv := must[*orgboard.CreateInvitationResponse](t, 201)(c.CreateInvitationWithResponse(ctx, w.orgA.Id,
				nil, orgboard.InvitationCreate{UserId: ptr(uuid.New()), Role: orgboard.OrgRoleMember}, as(w.ownerA))).JSON201
			return st(c.AcceptInvitationWithResponse(ctx, inv.Id, orgboard.InvitationAccept{}, as(who)))
		}},
		{"listDivisions", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.ListDivisionsWithResponse(ctx, &orgboard.ListDivisionsParams{OrganizationId: w.orgA.Id}, as(who)))
		}},
		{"createDivision", [5]int{201, 403, 403, 404, 401}, func(who caller) (int, error) {
			return st(c.CreateDivisionWithResponse(ctx, nil, orgboard.DivisionCreate{OrganizationId: w.orgA.Id, Name: unique("division")}, as(who)))
		}},
		{"listProducts", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.ListProductsWithResponse(ctx, &orgboard.ListProductsParams{OrganizationId: w.orgA.Id}, as(who)))
		}},
		{"createProduct", [5]int{201, 403, 403, 404, 401}, func(who caller) (int, error) {
			return st(c.CreateProductWithResponse(ctx, nil, orgboard.ProductCreate{OrganizationId: w.orgA.Id, Name: unique("product"), Kind: orgboard.ProductKindService}, as(who)))
		}},
		{"getProduct", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.GetProductWithResponse(ctx, w.productA.Id, as(who)))
		}},
		{"getProductIdentity", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.GetProductIdentityWithResponse(ctx, w.productA.Id, as(who)))
		}},
		{"setProductIdentity", [5]int{200, 403, 403, 404, 401}, func(who caller) (int, error) {
			return st(c.SetProductIdentityWithResponse(ctx, w.productA.Id, orgboard.ProductIdentityPut{Content: unique("brief")}, as(who)))
		}},
		{"listProductIdentityVersions", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.ListProductIdentityVersionsWithResponse(ctx, w.productA.Id, as(who)))
		}},
		{"createTeam", [5]int{201, 403, 403, 404, 401}, func(who caller) (int, error) {
			return st(c.CreateTeamWithResponse(ctx, nil, orgboard.TeamCreate{OrganizationId: w.orgA.Id, Name: unique("team")}, as(who)))
		}},
		{"listTeams", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.ListTeamsWithResponse(ctx, &orgboard.ListTeamsParams{OrganizationId: &w.orgA.Id}, as(who)))
		}},
		{"getTeam", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.GetTeamWithResponse(ctx, w.teamA1.Id, as(who)))
		}},
		{"listTeamLeads", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.ListTeamLeadsWithResponse(ctx, w.teamA1.Id, as(who)))
		}},
		{"setTeamLead", [5]int{200, 403, 403, 404, 401}, func(who caller) (int, error) {
			return st(c.SetTeamLeadWithResponse(ctx, w.teamA2.Id, w.spareA.user, as(who)))
		}},
		{"removeTeamLead", [5]int{204, 403, 403, 404, 401}, func(who caller) (int, error) {
			must[*orgboard.SetTeamLeadResponse](t, 200)(c.SetTeamLeadWithResponse(ctx, w.teamA2.Id, w.spareA.user, as(w.ownerA)))
			return st(c.RemoveTeamLeadWithResponse(ctx, w.teamA2.Id, w.spareA.user, as(who)))
		}},
		{"createSeat", [5]int{201, 201, 403, 404, 401}, func(who caller) (int, error) {
			return st(c.CreateSeatWithResponse(ctx, nil, orgboard.SeatCreate{TeamId: w.teamA1.Id, Title: unique("seat")}, as(who)))
		}},
		{"createSeat on a team the Lead does not lead", [5]int{201, 403, 403, 404, 401}, func(who caller) (int, error) {
			return st(c.CreateSeatWithResponse(ctx, nil, orgboard.SeatCreate{TeamId: w.teamA2.Id, Title: unique("seat")}, as(who)))
		}},
		{"listSeats", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.ListSeatsWithResponse(ctx, &orgboard.ListSeatsParams{TeamId: w.teamA1.Id}, as(who)))
		}},
		{"createTask", [5]int{201, 201, 201, 404, 401}, func(who caller) (int, error) {
			return st(c.CreateTaskWithResponse(ctx, nil, orgboard.WorkItemCreate{TeamId: w.teamA1.Id, Type: orgboard.WorkItemTypeStory, Title: unique("story")}, as(who)))
		}},
		{"getTask", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.GetTaskWithResponse(ctx, w.taskA1.Id, as(who)))
		}},
		{"getBoard", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.GetBoardWithResponse(ctx, &orgboard.GetBoardParams{TeamId: w.teamA1.Id}, as(who)))
		}},
		{"moveTask", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.MoveTaskWithResponse(ctx, freshTask().Id, orgboard.WorkItemMove{Status: orgboard.WorkItemStatusInProgress}, as(who)))
		}},
		{"assignTask", [5]int{200, 200, 200, 404, 401}, func(who caller) (int, error) {
			return st(c.AssignTaskWithResponse(ctx, freshTask().Id, orgboard.WorkItemAssign{Assignee: &orgboard.Assignee{Kind: orgboard.AssigneeKindUser, Id: w.memberA.user}}, as(who)))
		}},
		{"getCartable", [5]int{200, 200, 200, 200, 401}, func(who caller) (int, error) {
			return st(c.GetCartableWithResponse(ctx, &orgboard.GetCartableParams{}, as(who)))
		}},
		{"listAuditEntries", [5]int{200, 403, 403, 404, 401}, func(who caller) (int, error) {
			return st(c.ListAuditEntriesWithResponse(ctx, &orgboard.ListAuditEntriesParams{OrganizationId: w.orgA.Id}, as(who)))
		}},
	}
	// The agent operations: only the anonymous column (see the test's comment).
	id, org := uuid.New(), w.orgA.Id
	agents := map[string]func(who caller) (int, error){
		"configureSeatAgent": func(who caller) (int, error) {
			return st(c.ConfigureSeatAgentWithResponse(ctx, w.seatA1.Id, nil, orgboard.AgentConfigure{Name: "Ada", ApiConfigId: id}, as(who)))
		},
		"getSeatAgent": func(who caller) (int, error) { return st(c.GetSeatAgentWithResponse(ctx, w.seatA1.Id, as(who))) },
		"uploadAgentProfile": func(who caller) (int, error) {
			return st(c.UploadAgentProfileWithBodyWithResponse(ctx, &orgboard.UploadAgentProfileParams{OrganizationId: org}, "text/markdown", strings.NewReader("---\nkey: a\n---\nbody"), as(who)))
		},
		"listAgentProfiles": func(who caller) (int, error) {
			return st(c.ListAgentProfilesWithResponse(ctx, &orgboard.ListAgentProfilesParams{OrganizationId: org}, as(who)))
		},
		"listMarketplaceProfiles": func(who caller) (int, error) {
			return st(c.ListMarketplaceProfilesWithResponse(ctx, &orgboard.ListMarketplaceProfilesParams{OrganizationId: org}, as(who)))
		},
		"getAgentProfile": func(who caller) (int, error) { return st(c.GetAgentProfileWithResponse(ctx, id, as(who))) },
		"listAgentProfileVersions": func(who caller) (int, error) {
			return st(c.ListAgentProfileVersionsWithResponse(ctx, "qa", &orgboard.ListAgentProfileVersionsParams{OrganizationId: org}, as(who)))
		},
		"publishAgentProfile": func(who caller) (int, error) {
			return st(c.PublishAgentProfileWithResponse(ctx, id, orgboard.AgentProfilePublish{}, as(who)))
		},
		"unpublishAgentProfile": func(who caller) (int, error) { return st(c.UnpublishAgentProfileWithResponse(ctx, id, as(who))) },
		"forkAgentProfile": func(who caller) (int, error) {
			return st(c.ForkAgentProfileWithResponse(ctx, id, nil, orgboard.AgentProfileFork{OrganizationId: org}, as(who)))
		},
		"installAgentProfile": func(who caller) (int, error) {
			return st(c.InstallAgentProfileWithResponse(ctx, id, nil, orgboard.AgentProfileInstall{OrganizationId: org}, as(who)))
		},
		"createApiConfig": func(who caller) (int, error) {
			return st(c.CreateApiConfigWithResponse(ctx, nil, orgboard.ApiConfigCreate{OrganizationId: org, Name: "stub", Provider: orgboard.ModelProviderStub, Model: "m"}, as(who)))
		},
		"listApiConfigs": func(who caller) (int, error) {
			return st(c.ListApiConfigsWithResponse(ctx, &orgboard.ListApiConfigsParams{OrganizationId: org}, as(who)))
		},
		"deleteApiConfig": func(who caller) (int, error) { return st(c.DeleteApiConfigWithResponse(ctx, id, as(who))) },
		"createToolServer": func(who caller) (int, error) {
			return st(c.CreateToolServerWithResponse(ctx, nil, orgboard.McpServerConfigCreate{OrganizationId: org, Name: "t", Url: "https://tools.example.com/mcp"}, as(who)))
		},
		"listToolServers": func(who caller) (int, error) {
			return st(c.ListToolServersWithResponse(ctx, &orgboard.ListToolServersParams{OrganizationId: org}, as(who)))
		},
		"deleteToolServer": func(who caller) (int, error) { return st(c.DeleteToolServerWithResponse(ctx, id, as(who))) },
		"testToolServerConnectivity": func(who caller) (int, error) {
			return st(c.TestToolServerConnectivityWithResponse(ctx, id, as(who)))
		},
		"prepareAgentRun": func(who caller) (int, error) {
			return st(c.PrepareAgentRunWithResponse(ctx, nil, orgboard.AgentRunCreate{AgentId: id, TaskId: w.taskA1.Id}, as(who)))
		},
		"listAgentRuns": func(who caller) (int, error) {
			return st(c.ListAgentRunsWithResponse(ctx, &orgboard.ListAgentRunsParams{TaskId: w.taskA1.Id}, as(who)))
		},
		"getAgentRun":     func(who caller) (int, error) { return st(c.GetAgentRunWithResponse(ctx, id, as(who))) },
		"executeAgentRun": func(who caller) (int, error) { return st(c.ExecuteAgentRunWithResponse(ctx, id, nil, as(who))) },
		"approveAgentRun": func(who caller) (int, error) {
			return st(c.ApproveAgentRunWithResponse(ctx, id, orgboard.AgentRunApprove{FinalText: "ok"}, as(who)))
		},
		"callAgentTool": func(who caller) (int, error) {
			return st(c.CallAgentToolWithResponse(ctx, id, nil, orgboard.ToolCallRequest{ServerId: id, Tool: "echo"}, as(who)))
		},
	}
	for op, call := range agents {
		rows = append(rows, row{op, [5]int{skip, skip, skip, skip, 401}, call})
	}

	// Every operation of the spec has a row.
	spec, err := orgboardserver.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, r := range rows {
		covered[strings.ToLower(strings.Fields(r.op)[0])] = true
	}
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			if !covered[strings.ToLower(op.OperationID)] {
				t.Errorf("operation %s has no row in the matrix", op.OperationID)
			}
		}
	}

	callers := [5]caller{w.ownerA, w.leadA, w.memberA, w.ownerB, anonymous}
	for _, r := range rows {
		t.Run(r.op, func(t *testing.T) {
			for i, who := range callers {
				if r.want[i] == skip {
					continue
				}
				got, err := r.call(who)
				if err != nil {
					t.Fatalf("as %s: %v", who.name, err)
				}
				if got != r.want[i] {
					t.Errorf("as %s: status %d, want %d", who.name, got, r.want[i])
				}
			}
		})
	}
}
