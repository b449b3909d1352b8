package httpapi_test

import (
	"testing"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/videotpl/platform/gen/orgboard"
)

func TestTheCreatorOfAnOrganizationBecomesItsOwner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.user("owner")
	org := must[*orgboard.CreateOrganizationResponse](t, 201)(e.client.CreateOrganizationWithResponse(e.ctx, nil, orgboard.OrganizationCreate{Name: "Acme"}, as(owner))).JSON201
	if org.CreatedBy != owner.user || org.CallerRole == nil || *org.CallerRole != orgboard.OrgRoleOwner {
		t.Fatalf("organization %+v", org)
	}
	got := must[*orgboard.GetOrganizationResponse](t, 200)(e.client.GetOrganizationWithResponse(e.ctx, org.Id, as(owner))).JSON200
	if got.Name != "Acme" || *got.CallerRole != orgboard.OrgRoleOwner {
		t.Fatalf("read back %+v", got)
	}
	members := must[*orgboard.ListOrganizationMembersResponse](t, 200)(e.client.ListOrganizationMembersWithResponse(e.ctx, org.Id, as(owner))).JSON200.Data
	if len(members) != 1 || members[0].UserId != owner.user || members[0].Role != orgboard.OrgRoleOwner {
		t.Fatalf("members %+v", members)
	}
	list := must[*orgboard.ListOrganizationsResponse](t, 200)(e.client.ListOrganizationsWithResponse(e.ctx, as(owner))).JSON200.Data
	if len(list) != 1 || list[0].Id != org.Id {
		t.Fatalf("list %+v", list)
	}
}

func TestAUserListsOnlyTheOrganizationsItBelongsTo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	list := must[*orgboard.ListOrganizationsResponse](t, 200)(e.client.ListOrganizationsWithResponse(e.ctx, as(w.memberA))).JSON200.Data
	if len(list) != 1 || list[0].Id != w.orgA.Id || *list[0].CallerRole != orgboard.OrgRoleMember {
		t.Fatalf("member sees %+v", list)
	}
	// Other tests' organizations are there too: the admin service sees every one, as no member.
	all := must[*orgboard.ListOrganizationsResponse](t, 200)(e.client.ListOrganizationsWithResponse(e.ctx, as(adminService))).JSON200.Data
	seen := map[uuid.UUID]bool{}
	for _, o := range all {
		seen[o.Id] = true
		if o.CallerRole != nil {
			t.Fatalf("an admin service has a role in %+v", o)
		}
	}
	if !seen[w.orgA.Id] || !seen[w.orgB.Id] {
		t.Fatalf("an admin service sees %+v", all)
	}
}

func TestServiceTokensActAsOwnerOnlyWithTheAdminScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	must[*orgboard.GetOrganizationResponse](t, 403)(e.client.GetOrganizationWithResponse(e.ctx, w.orgA.Id, as(plainService)))
	if l := must[*orgboard.ListOrganizationsResponse](t, 200)(e.client.ListOrganizationsWithResponse(e.ctx, as(plainService))).JSON200.Data; len(l) != 0 {
		t.Fatalf("a service token without the admin scope lists %d organizations", len(l))
	}
	must[*orgboard.GetOrganizationResponse](t, 200)(e.client.GetOrganizationWithResponse(e.ctx, w.orgA.Id, as(adminService)))
	must[*orgboard.GetOrganizationResponse](t, 404)(e.client.GetOrganizationWithResponse(e.ctx, uuid.New(), as(adminService)))
	must[*orgboard.CreateTeamResponse](t, 201)(e.client.CreateTeamWithResponse(e.ctx, nil, orgboard.TeamCreate{OrganizationId: w.orgB.Id, Name: "ops"}, as(adminService)))
	// Operations acting for a person need a user token.
	must[*orgboard.CreateOrganizationResponse](t, 403)(e.client.CreateOrganizationWithResponse(e.ctx, nil, orgboard.OrganizationCreate{Name: "x"}, as(adminService)))
	must[*orgboard.GetCartableResponse](t, 403)(e.client.GetCartableWithResponse(e.ctx, &orgboard.GetCartableParams{}, as(adminService)))
	// The admin service is recorded as a service actor with its name.
	page := must[*orgboard.ListAuditEntriesResponse](t, 200)(e.client.ListAuditEntriesWithResponse(e.ctx, &orgboard.ListAuditEntriesParams{OrganizationId: w.orgB.Id, Action: ptr("team.created")}, as(w.ownerB))).JSON200
	last := page.Data[0]
	if last.ActorKind != orgboard.ActorKindService || last.ActorId != nil || last.ActorName == nil || *last.ActorName != "ops-console" {
		t.Fatalf("audit entry of the service %+v", last)
	}
}

func TestAnInvitationByUserIdIsAcceptedByThatUserOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, invitee, stranger := e.user("owner"), e.user("invitee"), e.user("stranger")
	org := must[*orgboard.CreateOrganizationResponse](t, 201)(e.client.CreateOrganizationWithResponse(e.ctx, nil, orgboard.OrganizationCreate{Name: "Acme"}, as(owner))).JSON201
	inv := must[*orgboard.CreateInvitationResponse](t, 201)(e.client.CreateInvitationWithResponse(e.ctx, org.Id,
		nil, orgboard.InvitationCreate{UserId: &invitee.user, Role: orgboard.OrgRoleMember}, as(owner))).JSON201
	if inv.Status != orgboard.InvitationStatusPending || inv.Token == nil || inv.InvitedBy != owner.user {
		t.Fatalf("invitation %+v", inv)
	}
	// A second pending invitation of the same user conflicts.
	must[*orgboard.CreateInvitationResponse](t, 409)(e.client.CreateInvitationWithResponse(e.ctx, org.Id,
		nil, orgboard.InvitationCreate{UserId: &invitee.user, Role: orgboard.OrgRoleOwner}, as(owner)))
	must[*orgboard.AcceptInvitationResponse](t, 404)(e.client.AcceptInvitationWithResponse(e.ctx, inv.Id, orgboard.InvitationAccept{Token: inv.Token}, as(stranger)))
	m := must[*orgboard.AcceptInvitationResponse](t, 200)(e.client.AcceptInvitationWithResponse(e.ctx, inv.Id, orgboard.InvitationAccept{}, as(invitee))).JSON200
	if m.UserId != invitee.user || m.Role != orgboard.OrgRoleMember || m.OrganizationId != org.Id {
		t.Fatalf("membership %+v", m)
	}
	must[*orgboard.AcceptInvitationResponse](t, 409)(e.client.AcceptInvitationWithResponse(e.ctx, inv.Id, orgboard.InvitationAccept{}, as(invitee)))
	// A member cannot be invited again.
	must[*orgboard.CreateInvitationResponse](t, 409)(e.client.CreateInvitationWithResponse(e.ctx, org.Id,
		nil, orgboard.InvitationCreate{UserId: &invitee.user, Role: orgboard.OrgRoleMember}, as(owner)))
	invs := must[*orgboard.ListInvitationsResponse](t, 200)(e.client.ListInvitationsWithResponse(e.ctx, org.Id, as(owner))).JSON200.Data
	if len(invs) != 1 || invs[0].Status != orgboard.InvitationStatusAccepted || invs[0].Token != nil || invs[0].AcceptedAt == nil {
		t.Fatalf("listed invitations %+v", invs)
	}
	// The new member sees the organization; the identity module audited both steps.
	must[*orgboard.GetOrganizationResponse](t, 200)(e.client.GetOrganizationWithResponse(e.ctx, org.Id, as(invitee)))
	actions := auditActions(t, e, owner, org.Id)
	if actions[0] != "member.joined" || actions[1] != "invitation.created" {
		t.Fatalf("audit actions %v", actions)
	}
}

func TestAnInvitationByEmailIsAcceptedWithItsToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, invitee := e.user("owner"), e.user("invitee")
	org := must[*orgboard.CreateOrganizationResponse](t, 201)(e.client.CreateOrganizationWithResponse(e.ctx, nil, orgboard.OrganizationCreate{Name: "Acme"}, as(owner))).JSON201
	email := openapi_types.Email("dana@example.com")
	inv := must[*orgboard.CreateInvitationResponse](t, 201)(e.client.CreateInvitationWithResponse(e.ctx, org.Id,
		nil, orgboard.InvitationCreate{Email: &email, Role: orgboard.OrgRoleOwner}, as(owner))).JSON201
	must[*orgboard.AcceptInvitationResponse](t, 404)(e.client.AcceptInvitationWithResponse(e.ctx, inv.Id, orgboard.InvitationAccept{}, as(invitee)))
	must[*orgboard.AcceptInvitationResponse](t, 404)(e.client.AcceptInvitationWithResponse(e.ctx, inv.Id, orgboard.InvitationAccept{Token: ptr("inv_wrong")}, as(invitee)))
	m := must[*orgboard.AcceptInvitationResponse](t, 200)(e.client.AcceptInvitationWithResponse(e.ctx, inv.Id, orgboard.InvitationAccept{Token: inv.Token}, as(invitee))).JSON200
	if m.Role != orgboard.OrgRoleOwner {
		t.Fatalf("role %s", m.Role)
	}
	// The new Owner holds the Owner's permissions.
	must[*orgboard.CreateTeamResponse](t, 201)(e.client.CreateTeamWithResponse(e.ctx, nil, orgboard.TeamCreate{OrganizationId: org.Id, Name: "T"}, as(invitee)))
}

func TestAnInvitationNamesExactlyOneInvitee(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, other := e.user("owner"), e.user("other")
	org := must[*orgboard.CreateOrganizationResponse](t, 201)(e.client.CreateOrganizationWithResponse(e.ctx, nil, orgboard.OrganizationCreate{Name: "Acme"}, as(owner))).JSON201
	email := openapi_types.Email("dana@example.com")
	must[*orgboard.CreateInvitationResponse](t, 400)(e.client.CreateInvitationWithResponse(e.ctx, org.Id, nil, orgboard.InvitationCreate{Role: orgboard.OrgRoleMember}, as(owner)))
	must[*orgboard.CreateInvitationResponse](t, 400)(e.client.CreateInvitationWithResponse(e.ctx, org.Id,
		nil, orgboard.InvitationCreate{Email: &email, UserId: &other.user, Role: orgboard.OrgRoleMember}, as(owner)))
}

func auditActions(t *testing.T, e *env, owner caller, org uuid.UUID) []string {
	t.Helper()
	page := must[*orgboard.ListAuditEntriesResponse](t, 200)(e.client.ListAuditEntriesWithResponse(e.ctx, &orgboard.ListAuditEntriesParams{OrganizationId: org, Limit: ptr(100)}, as(owner))).JSON200
	out := make([]string, len(page.Data))
	for i, a := range page.Data {
		out[i] = a.Action
	}
	return out
}

func ptr[T any](v T) *T { return &v }
