// Package store is the orgboard's PostgreSQL adapter: it runs the sqlc queries of gen/db/orgboard,
// maps their rows to domain types (sqlc types never leave this package) and reads PostgreSQL
// errors in one place (translate, with the table of its constraints).
package store

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/pgxdb"
)

// Store runs queries on a pool or inside one transaction.
type Store struct {
	db orgboarddb.DBTX
	q  *orgboarddb.Queries
}

// New returns a Store on db: a *pgxpool.Pool for reads, a pgx.Tx inside a transaction.
func New(db orgboarddb.DBTX) *Store { return &Store{db: db, q: orgboarddb.New(db)} }

// DB exposes the connection or transaction, for other stores of this service (the agents part)
// that must join the same transaction.
func (s *Store) DB() orgboarddb.DBTX { return s.db }

// InTx runs fn with a Store bound to a new transaction on pool; committed when fn returns nil.
func InTx(ctx context.Context, pool *pgxpool.Pool, fn func(*Store) error) error {
	return pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error { return fn(New(tx)) })
}

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
