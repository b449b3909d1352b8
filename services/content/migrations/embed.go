// Package migrations embeds the content service's goose SQL migrations. Numbers 00001..00099
// belong to the catalog core, 00100 and up to the media pipeline.
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS
