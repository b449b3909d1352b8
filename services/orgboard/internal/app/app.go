// Package app holds the orgboard's use cases: each authorizes the caller, runs in one transaction and audits in it.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// App runs the orgboard's commands and queries.
type App struct {
	store  domain.Store
	sealer domain.Sealer
	models domain.ModelGateway
	tools  domain.ToolClient
	urls   domain.URLPolicy
	limits Limits
	log    *slog.Logger
	clock  func() time.Time
	tenant uuid.UUID
}

// Deps are what an App is built on; every one is required.
type Deps struct {
	Store domain.Store
	// Sealer seals model keys and tool-server headers.
	Sealer domain.Sealer
	// Models calls model connections.
	Models domain.ModelGateway
	// Tools talks to tool servers.
	Tools domain.ToolClient
	// URLs decides which tool-server and model URLs an organization may register.
	URLs   domain.URLPolicy
	Limits Limits
	Logger *slog.Logger
	// Clock is the time source.
	Clock func() time.Time
	// DefaultTenantID is the tenant_id of the events a caller without a tenant causes (a
	// service token bound to none, the seeding).
	DefaultTenantID uuid.UUID
}

// Limits bound the calls the service makes to tool servers and model connections.
type Limits struct {
	// RunClaim is how long an execute's claim on a run holds: after it another execute may take
	// the run over (the first one's process stopped mid-call). Give it more than two model calls.
	RunClaim time.Duration
	// ToolCall bounds a governed tool call.
	ToolCall time.Duration
	// ToolTest bounds a connectivity test.
	ToolTest time.Duration
	// Discovery bounds the tool discovery of one server while a run is prepared.
	Discovery time.Duration
	// RunJob bounds the model calls of an execute answered at once (zero fields take the
	// defaults of DefaultRunJobPolicy).
	RunJob domain.RunJobPolicy
}

// New returns an App on d.
func New(d Deps) *App {
	return &App{store: d.Store, sealer: d.Sealer, models: d.Models, tools: d.Tools, urls: d.URLs,
		limits: d.Limits, log: d.Logger, clock: d.Clock, tenant: d.DefaultTenantID}
}

// now is the current time in UTC at the database's precision, so that what a command returns
// equals what a later read returns.
func (a *App) now() time.Time { return a.clock().UTC().Truncate(time.Microsecond) }

// newID makes a UUIDv7.
func (a *App) newID() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		// NewV7 fails only when the random source does; a v4 id is still unique.
		return uuid.New()
	}
	return id
}

// audit appends the audit entry of rec, done by actor, and publishes its event
// (orgboard.<action>.v1) through s -- the Store of the transaction that makes the change, so
// the entry and the event commit or roll back with it. Every audited change goes through here:
// none can forget its event.
func (a *App) audit(ctx context.Context, s domain.Store, actor domain.Actor, rec domain.Record) error {
	e := domain.NewAuditEntry(a.newID(), actor, rec, a.now())
	if err := s.AppendAudit(ctx, e); err != nil {
		return err
	}
	p, err := auditEvent(e)
	if err != nil {
		return err
	}
	return a.publish(ctx, s, actor, p, e.At)
}

// publish writes the event p, caused by actor at at, to the outbox through s -- the Store of
// the transaction that makes the change, so the event is published if and only if it commits.
func (a *App) publish(ctx context.Context, s domain.Store, actor domain.Actor, p domain.EventPayload, at time.Time) error {
	return s.PublishEvent(ctx, domain.Event{TenantID: a.tenantOf(actor), UserID: actor.UserIDPtr(), At: at, Payload: p})
}

// tenantOf is the tenant of the events actor causes: its token's, or the configured default.
func (a *App) tenantOf(actor domain.Actor) uuid.UUID {
	if actor.TenantID != uuid.Nil {
		return actor.TenantID
	}
	return a.tenant
}

// standing loads what actor holds along scope. A service with the admin scope holds Owner
// everywhere (once the organization is known to exist); any other service token is refused.
func (a *App) standing(ctx context.Context, s domain.Store, actor domain.Actor, scope domain.Scope) (domain.Standing, error) {
	if !actor.IsUser() {
		return callerStanding(actor, domain.Standing{})
	}
	return s.Standing(ctx, scope.OrganizationID, scope.TeamID, actor.UserID)
}

// callerStanding is what actor holds, given what its user holds as read together with the
// record it acts on: the user's standing, Owner for a service with the admin scope, and a
// refusal for any other service token.
func callerStanding(actor domain.Actor, user domain.Standing) (domain.Standing, error) {
	if err := actor.RequireKnown(); err != nil {
		return domain.Standing{}, err
	}
	if !actor.IsUser() {
		return domain.Standing{ServiceAdmin: true}, nil
	}
	return user, nil
}

// authorize checks p for actor at scope; what names the record for the 404 an outsider gets.
func (a *App) authorize(ctx context.Context, s domain.Store, actor domain.Actor, scope domain.Scope, p domain.Permission, what string) (domain.Standing, error) {
	st, err := a.standing(ctx, s, actor, scope)
	if err != nil {
		return st, err
	}
	return st, domain.Authorize(st, p, what)
}

// authorizeOrg is authorize at an organization given by id: a missing organization and one the
// caller is not a member of both answer "organization not found".
func (a *App) authorizeOrg(ctx context.Context, s domain.Store, actor domain.Actor, org uuid.UUID, p domain.Permission) (domain.Standing, error) {
	st, err := a.authorize(ctx, s, actor, domain.OrgScope(org), p, "organization")
	if err != nil {
		return st, err
	}
	if st.ServiceAdmin {
		if _, err := s.GetOrganization(ctx, org); err != nil {
			return st, err
		}
	}
	return st, nil
}

// authorizeBinding is the check of the org-level lists a Lead needs to bind things to its team's
// agents (model connections, tool servers): ConfigureAgents at the organization, or a Lead of
// any of its teams.
func (a *App) authorizeBinding(ctx context.Context, s domain.Store, actor domain.Actor, org uuid.UUID) error {
	st, err := a.standing(ctx, s, actor, domain.OrgScope(org))
	if err != nil {
		return err
	}
	if !st.Member() {
		return errs.E(errs.NotFound, "organization not found")
	}
	if st.ServiceAdmin {
		if _, err := s.GetOrganization(ctx, org); err != nil {
			return err
		}
	}
	if st.Holds(domain.ConfigureAgents) || (st.LeadsSomeTeam && st.OrgRole != "") {
		return nil
	}
	return errs.Ef(errs.Forbidden, "this needs the %s permission", domain.ConfigureAgents)
}

// createdBy is the user recorded as author: the user, or the nil uuid for a service.
func createdBy(actor domain.Actor) uuid.UUID {
	if actor.IsUser() {
		return actor.UserID
	}
	return uuid.Nil
}
