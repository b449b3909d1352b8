// Package migrations holds the goose SQL migrations of the renderevents database.
package migrations

import "embed"

// FS holds every migration, applied in file-name order.
//
//go:embed *.sql
var FS embed.FS
