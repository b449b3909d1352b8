// Package app holds the orgboard's use cases: each command authorizes the caller along the scope
// chain [team, org] (domain.Authorize), runs in one transaction (store.InTx) and writes its audit
// entry in that same transaction (App.audit).
//
// The agents part of the service (issue 8) lives in files named agents*.go of this package; its
// dependencies are the AgentDeps struct (agents_deps.go), which New keeps in App.agents.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/store"
)

// App runs the orgboard's commands and queries.
type App struct {
	pool   *pgxpool.Pool
	log    *slog.Logger
	clock  func() time.Time
	agents AgentDeps
}

// Options configure New; zero values take defaults.
type Options struct {
	Logger *slog.Logger
	// Clock is the time source (time.Now by default).
	Clock func() time.Time
	// Agents are the dependencies of the agents part (issue 8).
	Agents AgentDeps
}

// New returns an App on pool.
func New(pool *pgxpool.Pool, opts Options) *App {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &App{pool: pool, log: opts.Logger, clock: opts.Clock, agents: opts.Agents}
}

// Pool is the database pool (readiness checks, other stores of the service).
func (a *App) Pool() *pgxpool.Pool { return a.pool }

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

// read is a Store on the pool, for queries outside a transaction.
func (a *App) read() *store.Store { return store.New(a.pool) }

// inTx runs fn in one transaction.
func (a *App) inTx(ctx context.Context, fn func(*store.Store) error) error {
	return store.InTx(ctx, a.pool, fn)
}

// audit appends the audit entry of rec, done by actor, through s -- the Store of the
// transaction that makes the change, so the entry commits or rolls back with it.
func (a *App) audit(ctx context.Context, s *store.Store, actor domain.Actor, rec domain.Record) error {
	return s.AppendAudit(ctx, domain.NewAuditEntry(a.newID(), actor, rec, a.now()))
}

// standing loads what actor holds along scope. A service with the admin scope holds Owner
// everywhere (once the organization is known to exist); any other service token is refused.
func (a *App) standing(ctx context.Context, s *store.Store, actor domain.Actor, scope domain.Scope) (domain.Standing, error) {
	if err := actor.RequireKnown(); err != nil {
		return domain.Standing{}, err
	}
	if !actor.IsUser() {
		return domain.Standing{ServiceAdmin: true}, nil
	}
	return s.Standing(ctx, scope.OrganizationID, scope.TeamID, actor.UserID)
}

// authorize checks p for actor at scope; what names the record for the 404 an outsider gets.
func (a *App) authorize(ctx context.Context, s *store.Store, actor domain.Actor, scope domain.Scope, p domain.Permission, what string) (domain.Standing, error) {
	st, err := a.standing(ctx, s, actor, scope)
	if err != nil {
		return st, err
	}
	return st, domain.Authorize(st, p, what)
}

// authorizeOrg is authorize at an organization given by id: a missing organization and one the
// caller is not a member of both answer "organization not found".
func (a *App) authorizeOrg(ctx context.Context, s *store.Store, actor domain.Actor, org uuid.UUID, p domain.Permission) (domain.Standing, error) {
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

// createdBy is the user recorded as author: the user, or the nil uuid for a service.
func createdBy(actor domain.Actor) uuid.UUID {
	if actor.IsUser() {
		return actor.UserID
	}
	return uuid.Nil
}
