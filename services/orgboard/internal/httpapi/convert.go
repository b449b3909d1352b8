package httpapi

import (
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func organizationOut(o domain.Organization) orgboard.Organization {
	out := orgboard.Organization{Id: o.ID, Name: o.Name, CreatedAt: o.CreatedAt, CreatedBy: o.CreatedBy}
	if o.CallerRole != "" {
		r := orgboard.OrgRole(o.CallerRole)
		out.CallerRole = &r
	}
	return out
}

func memberOut(m domain.Member) orgboard.Member {
	out := orgboard.Member{OrganizationId: m.OrganizationID, UserId: m.UserID, Role: orgboard.OrgRole(m.Role), JoinedAt: m.JoinedAt}
	if b := m.Blocked; b != nil {
		out.Blocked = &orgboard.MemberBlock{Cause: orgboard.MemberBlockCause(b.Cause), Reason: b.Reason, Since: b.Since, Until: b.Until}
	}
	return out
}

func invitationOut(now time.Time) func(domain.Invitation) orgboard.Invitation {
	return func(i domain.Invitation) orgboard.Invitation {
		var email *openapi_types.Email
		if i.Email != nil {
			e := openapi_types.Email(*i.Email)
			email = &e
		}
		return orgboard.Invitation{
			Id: i.ID, OrganizationId: i.OrganizationID, Email: email, UserId: i.UserID,
			Role: orgboard.OrgRole(i.Role), Status: orgboard.InvitationStatus(i.Status(now)),
			InvitedBy: i.InvitedBy, CreatedAt: i.CreatedAt, ExpiresAt: i.ExpiresAt,
			AcceptedAt: i.AcceptedAt, Token: i.Token,
		}
	}
}

func divisionOut(d domain.Division) orgboard.Division {
	return orgboard.Division{Id: d.ID, OrganizationId: d.OrganizationID, Name: d.Name, Description: d.Description, CreatedAt: d.CreatedAt}
}

func productOut(p domain.Product) orgboard.Product {
	return orgboard.Product{
		Id: p.ID, OrganizationId: p.OrganizationID, DivisionId: p.DivisionID, Name: p.Name,
		Kind: orgboard.ProductKind(p.Kind), Description: p.Description, IdentityVersion: p.IdentityVersion,
		CreatedAt: p.CreatedAt,
	}
}

func identityOut(i domain.ProductIdentity) orgboard.ProductIdentity {
	return orgboard.ProductIdentity{ProductId: i.ProductID, Content: i.Content, Version: i.Version, UpdatedAt: i.UpdatedAt, UpdatedBy: i.UpdatedBy}
}

func teamOut(t domain.Team) orgboard.Team {
	return orgboard.Team{Id: t.ID, OrganizationId: t.OrganizationID, ProductId: t.ProductID, Name: t.Name, CreatedAt: t.CreatedAt}
}

func leadOut(l domain.TeamLead) orgboard.TeamLead {
	return orgboard.TeamLead{TeamId: l.TeamID, UserId: l.UserID, AssignedAt: l.AssignedAt}
}

func seatOut(s domain.Seat) orgboard.Seat {
	return orgboard.Seat{
		Id: s.ID, OrganizationId: s.OrganizationID, TeamId: s.TeamID, Title: s.Title,
		State: orgboard.SeatState(s.State), UserId: s.UserID, AgentId: s.AgentID, CreatedAt: s.CreatedAt,
	}
}

func workItemOut(w domain.Task) orgboard.WorkItem {
	out := orgboard.WorkItem{
		Id: w.ID, OrganizationId: w.OrganizationID, TeamId: w.TeamID, Type: orgboard.WorkItemType(w.Type),
		Title: w.Title, Description: w.Description, Status: orgboard.WorkItemStatus(w.Status),
		ParentId: w.ParentID, CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
	}
	if w.Assignee != nil {
		out.Assignee = &orgboard.Assignee{Kind: orgboard.AssigneeKind(w.Assignee.Kind), Id: w.Assignee.ID}
	}
	return out
}

func auditEntryOut(e domain.AuditEntry) orgboard.AuditEntry {
	out := orgboard.AuditEntry{
		Id: e.ID, OrganizationId: e.OrganizationID, ActorId: e.ActorID, ActorKind: orgboard.ActorKind(e.ActorKind),
		ActorName: e.ActorName, Action: e.Action, ScopeType: orgboard.AuditEntryScopeType(e.ScopeType),
		ScopeId: e.ScopeID, TargetType: e.TargetType, TargetId: e.TargetID, At: e.At,
	}
	if e.Before != nil {
		b := e.Before
		out.Before = &b
	}
	if e.After != nil {
		a := e.After
		out.After = &a
	}
	return out
}

func auditPageOut(p domain.AuditPage) orgboard.AuditPage {
	out := orgboard.AuditPage{Data: mapSlice(p.Entries, auditEntryOut)}
	if p.Next != nil {
		c := app.EncodeAuditCursor(*p.Next)
		out.NextCursor = &c
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
