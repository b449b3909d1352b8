// Package store implements the domain's Store on PostgreSQL (sqlc); mcp and modelgw hold the outward adapters.
package store

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// Store runs queries on a pool or inside one transaction; it implements domain.Store.
type Store struct {
	pool *pgxpool.Pool
	q    *orgboarddb.Queries
	// tx is the transaction of a Store made by InTx, nil on the pool.
	tx pgx.Tx
}

var _ domain.Store = (*Store)(nil)

// New returns a Store on pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool, q: orgboarddb.New(pool)} }

// InTx runs fn with a Store bound to a new transaction; committed when fn returns nil. Inside a
// transaction it runs fn in that same transaction.
func (s *Store) InTx(ctx context.Context, fn func(domain.Store) error) error {
	if s.tx != nil {
		return fn(s)
	}
	return pgxdb.WithTx(ctx, s.pool, func(tx pgx.Tx) error {
		return fn(s.in(tx))
	})
}

// in is the Store bound to tx.
func (s *Store) in(tx pgx.Tx) *Store { return &Store{pool: s.pool, q: orgboarddb.New(tx), tx: tx} }

// constraints maps constraint names to the errors callers see.
var constraints = map[string]error{
	"divisions_org_name_key":  errs.E(errs.Conflict, "the organization already has a division of that name"),
	"products_org_name_key":   errs.E(errs.Conflict, "the organization already has a product of that name"),
	"products_division_fkey":  errs.InvalidFields(errs.Field("body.division_id", "is not a division of the organization")),
	"teams_product_fkey":      errs.InvalidFields(errs.Field("body.product_id", "is not a product of the organization")),
	"memberships_pkey":        errs.E(errs.Conflict, "the user is already a member of the organization"),
	"seats_agent_id_key":      errs.E(errs.Conflict, "the seat already has an agent"),
	"product_identities_pkey": errs.E(errs.Conflict, "the identity was changed concurrently"),

	"api_configs_org_name_key":           errs.E(errs.Conflict, "the organization already has a model connection of that name"),
	"tool_servers_org_name_key":          errs.E(errs.Conflict, "the organization already has a tool server of that name"),
	"agent_profiles_org_key_version_key": errs.E(errs.Conflict, "the library already holds this profile_key and version"),
	"agents_seat_id_key":                 errs.E(errs.Conflict, "the seat already has an agent"),
	"agents_api_config_fkey":             errs.E(errs.Conflict, "the model connection is used by an agent"),
	"agents_fallback_api_config_fkey":    errs.E(errs.Conflict, "the model connection is used by an agent as its fallback"),
}

// translate is the store's one reading of database errors (pgxdb.Translate with the constraints
// above): a missing row is NotFound "<what> not found". References carry the organization in
// their keys, so a foreign-key violation no entry names is a body naming a record outside the
// organization: Invalid.
func translate(err error, what string) error {
	if err == nil {
		return nil
	}
	return pgxdb.Translate(err, pgxdb.Errors{NotFound: errs.E(errs.NotFound, what+" not found"),
		Constraints: constraints, ForeignKey: errs.Invalid, Subject: what})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilIDs(s []uuid.UUID) []uuid.UUID {
	if s == nil {
		return []uuid.UUID{}
	}
	return s
}
