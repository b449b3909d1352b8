// Package migrations holds the goose SQL migrations of the orgboard database.
package migrations

import (
	"embed"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/idempotency"
	"github.com/videotpl/platform/pkg/pgxdb"
)

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS

// Sets are the migration sets of the orgboard database: the service's own tables, the outbox
// and inbox of pkg/bus and the keys of pkg/idempotency. Each set keeps its own goose version
// table.
func Sets() []pgxdb.Migrations {
	return []pgxdb.Migrations{{Name: "orgboard", FS: FS}, bus.Migrations(), idempotency.Migrations()}
}
