// Package migrations holds the goose SQL migrations of the orgboard database.
//
// Numbering: 00001..00099 are the core (organizations, structure, teams, seats, work items,
// audit); 00100 and above are the agents part (agents, profiles, model connections, tool servers,
// runs).
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS
