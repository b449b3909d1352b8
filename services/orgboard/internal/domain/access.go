package domain

import (
	"context"
	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// Permission is a named right checked along the scope chain [team, org].
type Permission string

// The permissions of seed 002 (ViewBoard, ConfigureAgents, ManageApiKeys, ViewAuditLog), plus the
// ones the seed describes without naming: ManageWork (work on items), ManageStructure (teams,
// Leads, divisions, products, product identity) and ManageMembers (invitations).
const (
	ViewBoard       Permission = "ViewBoard"
	ManageWork      Permission = "ManageWork"
	ConfigureAgents Permission = "ConfigureAgents"
	ManageApiKeys   Permission = "ManageApiKeys"
	ViewAuditLog    Permission = "ViewAuditLog"
	ManageStructure Permission = "ManageStructure"
	ManageMembers   Permission = "ManageMembers"
)

// AllPermissions lists every permission, for tables and tests.
var AllPermissions = []Permission{ViewBoard, ManageWork, ConfigureAgents, ManageApiKeys, ViewAuditLog, ManageStructure, ManageMembers}

// Role is held at one level of the scope chain: Owner and Member at the organization, Lead at a
// team.
type Role string

// The roles.
const (
	RoleOwner  Role = "Owner"
	RoleMember Role = "Member"
	RoleLead   Role = "Lead"
)

// ParseOrgRole accepts the organization roles only.
func ParseOrgRole(s string) (Role, bool) {
	switch Role(s) {
	case RoleOwner, RoleMember:
		return Role(s), true
	}
	return "", false
}

// grants is the permission table: the Owner holds all; a Member views the board and works on
// items; a Lead (a Member with the Lead role on a team) also configures the team's agents.
var grants = map[Role]map[Permission]bool{
	RoleOwner: {ViewBoard: true, ManageWork: true, ConfigureAgents: true, ManageApiKeys: true,
		ViewAuditLog: true, ManageStructure: true, ManageMembers: true},
	RoleMember: {ViewBoard: true, ManageWork: true},
	RoleLead:   {ViewBoard: true, ManageWork: true, ConfigureAgents: true},
}

// Grants reports whether role grants p.
func Grants(role Role, p Permission) bool { return grants[role][p] }

// Standing is what a caller holds along the scope chain [team, org] of one request: the
// organization role ("" when the caller is not a member), whether the caller is a Lead of the
// scope's team, and whether it is a service acting as Owner of every organization.
type Standing struct {
	OrgRole Role
	// TeamLead is true when the scope is a team and the caller is one of its Leads.
	TeamLead bool
	// LeadsSomeTeam is true when the caller is a Lead of at least one team of the organization
	// (for org-scoped reads a Lead needs in order to bind things to its team's agents).
	LeadsSomeTeam bool
	// ServiceAdmin is a ServiceToken with the orgboard:admin scope: Owner everywhere.
	ServiceAdmin bool
}

// Member reports whether the caller belongs to the organization (or acts as its Owner).
func (s Standing) Member() bool { return s.ServiceAdmin || s.OrgRole != "" }

// Chain lists the roles held, team level first, then organization level.
func (s Standing) Chain() []Role {
	var chain []Role
	if s.TeamLead && s.OrgRole != "" {
		chain = append(chain, RoleLead)
	}
	switch {
	case s.ServiceAdmin:
		chain = append(chain, RoleOwner)
	case s.OrgRole != "":
		chain = append(chain, s.OrgRole)
	}
	return chain
}

// Holds reports whether any role along the chain grants p.
func (s Standing) Holds(p Permission) bool {
	for _, r := range s.Chain() {
		if Grants(r, p) {
			return true
		}
	}
	return false
}

// Authorize decides a request: nil when allowed; NotFound ("<what> not found", exactly as for a
// record that does not exist) when the caller is outside the organization, so that nothing about
// it is learnt; Forbidden when the caller is a member lacking p.
func Authorize(s Standing, p Permission, what string) error {
	if !s.Member() {
		return errs.E(errs.NotFound, what+" not found")
	}
	if !s.Holds(p) {
		return errs.Ef(errs.Forbidden, "this needs the %s permission", p)
	}
	return nil
}

// Scope is the place of a request in the hierarchy: an organization, and a team of it or none.
type Scope struct {
	OrganizationID uuid.UUID
	TeamID         *uuid.UUID
}

// OrgScope is the scope of an organization.
func OrgScope(org uuid.UUID) Scope { return Scope{OrganizationID: org} }

// TeamScope is the scope of a team of an organization.
func TeamScope(org, team uuid.UUID) Scope { return Scope{OrganizationID: org, TeamID: &team} }

// AccessStore reads what a user holds along the scope chain.
type AccessStore interface {
	// Standing is the user's roles at the organization and, when team is given, at the team.
	Standing(ctx context.Context, org uuid.UUID, team *uuid.UUID, user uuid.UUID) (Standing, error)
}
