package domain_test

import (
	"testing"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

func TestPermissionsAreResolvedAlongTheScopeChain(t *testing.T) {
	var (
		owner       = domain.Standing{OrgRole: domain.RoleOwner}
		member      = domain.Standing{OrgRole: domain.RoleMember}
		lead        = domain.Standing{OrgRole: domain.RoleMember, TeamLead: true}
		leadOwner   = domain.Standing{OrgRole: domain.RoleOwner, TeamLead: true}
		leadOfOther = domain.Standing{OrgRole: domain.RoleMember, LeadsSomeTeam: true}
		outsider    = domain.Standing{}
		service     = domain.Standing{ServiceAdmin: true}
		// A Lead flag without a membership (cannot happen in the database) grants nothing.
		strayLead = domain.Standing{TeamLead: true}
	)
	const (
		ok        = errs.Internal // sentinel: allowed
		forbidden = errs.Forbidden
		notFound  = errs.NotFound
	)
	type row struct {
		who      string
		standing domain.Standing
		want     map[domain.Permission]errs.Kind
	}
	all := func(k errs.Kind) map[domain.Permission]errs.Kind {
		m := map[domain.Permission]errs.Kind{}
		for _, p := range domain.AllPermissions {
			m[p] = k
		}
		return m
	}
	memberTable := map[domain.Permission]errs.Kind{
		domain.ViewBoard: ok, domain.ManageWork: ok, domain.ConfigureAgents: forbidden,
		domain.ManageApiKeys: forbidden, domain.ViewAuditLog: forbidden,
		domain.ManageStructure: forbidden, domain.ManageMembers: forbidden,
	}
	leadTable := map[domain.Permission]errs.Kind{
		domain.ViewBoard: ok, domain.ManageWork: ok, domain.ConfigureAgents: ok,
		domain.ManageApiKeys: forbidden, domain.ViewAuditLog: forbidden,
		domain.ManageStructure: forbidden, domain.ManageMembers: forbidden,
	}
	rows := []row{
		{"an Owner holds every permission", owner, all(ok)},
		{"an Owner who is also a Lead holds every permission", leadOwner, all(ok)},
		{"a service with orgboard:admin acts as an Owner", service, all(ok)},
		{"a Member views the board and works on items only", member, memberTable},
		{"a Lead of the team also configures agents", lead, leadTable},
		{"a Lead of another team is a plain Member on this one", leadOfOther, memberTable},
		{"a caller outside the organization learns nothing (404)", outsider, all(notFound)},
		{"a Lead flag without membership grants nothing", strayLead, all(notFound)},
	}
	for _, r := range rows {
		t.Run(r.who, func(t *testing.T) {
			for _, p := range domain.AllPermissions {
				want, listed := r.want[p]
				if !listed {
					t.Fatalf("the table has no entry for %s", p)
				}
				err := domain.Authorize(r.standing, p, "team")
				got := ok
				if err != nil {
					got = errs.KindOf(err)
				}
				if got != want {
					t.Errorf("%s: got %v, want %v (err %v)", p, got, want, err)
				}
			}
		})
	}
}

func TestAnOutsiderGetsTheSameNotFoundAsForAMissingRecord(t *testing.T) {
	err := domain.Authorize(domain.Standing{}, domain.ViewBoard, "work item")
	if err == nil || err.Error() != "not_found: work item not found" {
		t.Fatalf("got %v", err)
	}
}

func TestTheChainListsTheTeamRoleBeforeTheOrganizationRole(t *testing.T) {
	got := domain.Standing{OrgRole: domain.RoleMember, TeamLead: true}.Chain()
	if len(got) != 2 || got[0] != domain.RoleLead || got[1] != domain.RoleMember {
		t.Fatalf("chain %v, want [Lead Member]", got)
	}
}
