// Package migrations embeds the content service's goose SQL migrations.
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

// Sets are the migration sets of the content database: the service's own tables, the
// outbox and inbox of pkg/bus and the keys of pkg/idempotency. Each set keeps its own goose
// version table.
func Sets() []pgxdb.Migrations {
	return []pgxdb.Migrations{{Name: "content", FS: FS}, bus.Migrations(), idempotency.Migrations()}
}
