// Package migrations holds the goose SQL migrations of the orgboard database.
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS
