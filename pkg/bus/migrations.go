package bus

import (
	"github.com/videotpl/platform/pkg/bus/migrations"
	"github.com/videotpl/platform/pkg/pgxdb"
)

// Migrations creates the outbox (watermill_outbox) and inbox (bus_inbox) tables, versioned
// in goose_bus. A service applies them next to its own:
//
//	pgxdb.Migrate(ctx, url, bus.Migrations(), service.Migrations)
//
// The tables are created here rather than by watermill-sql's auto-initialisation, which
// cannot run inside the caller's transaction and would keep DDL out of the migration history.
func Migrations() pgxdb.Migrations {
	return pgxdb.Migrations{Name: "bus", FS: migrations.FS}
}
