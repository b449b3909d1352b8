// Package migrations embeds the goose migrations of the idempotency key table.
package migrations

import "embed"

// FS holds the migrations at its root, as goose expects.
//
//go:embed *.sql
var FS embed.FS
