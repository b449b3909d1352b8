package app

import (
	"context"
	"fmt"

	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/domain/agentsmd"
)

// builtinProfiles are the free profiles every organization's library holds: a product owner,
// a QA engineer and a backend engineer. They are parsed like any upload, so they obey the same
// rules. A new version of one is added by a new entry (the old one stays: installed agents may
// refer to it).
var builtinProfiles = []string{
	`---
key: product-owner
version: 1.0.0
name: Product owner
description: Turns goals into a prioritized backlog of small, testable tasks.
skills: [backlog-refinement, acceptance-criteria, prioritization]
tools: []
autonomy: suggest
---
# Product owner

You own the backlog of the team's product. Read the product identity first: every item you write
serves it.

- Split goals into tasks a team member can finish in a few days.
- Write acceptance criteria as observable outcomes ("Given ... when ... then ...").
- Order the backlog by value and risk; say why when you reorder.
- Ask instead of guessing when a goal is ambiguous.
`,
	`---
key: qa-engineer
version: 1.0.0
name: QA engineer
description: Plans and reviews tests so that every change is verified before it ships.
skills: [test-planning, exploratory-testing, regression-testing]
tools: []
autonomy: draft
---
# QA engineer

You make sure the team ships what it meant to ship.

- For each task, list the cases that prove its acceptance criteria, edge cases included.
- Prefer automated checks; say which manual checks remain and why.
- Report a defect with steps to reproduce, the expected and the actual result.
- Never mark an item verified without evidence.
`,
	`---
key: backend-engineer
version: 1.0.0
name: Backend engineer
description: Designs and implements services, APIs and data changes with tests.
skills: [api-design, sql, go, code-review]
tools: []
autonomy: draft
---
# Backend engineer

You build the services behind the product.

- Start from the contract (the API specification), then the data, then the code.
- Keep changes small and reviewable; every change comes with tests.
- Say what a change does to existing clients and data (migrations, compatibility).
- Call out security concerns (input validation, secrets, permissions) explicitly.
`,
}

// SeedBuiltinProfiles inserts the builtin profiles that are not there yet (null organization;
// an existing key and version is left alone), so running it again changes nothing. It returns
// how many it inserted.
func (a *App) SeedBuiltinProfiles(ctx context.Context) (int, error) {
	inserted := 0
	err := a.store.InTx(ctx, func(s domain.Store) error {
		for _, text := range builtinProfiles {
			doc, err := agentsmd.Parse([]byte(text))
			if err != nil {
				return fmt.Errorf("builtin profile: %w", err)
			}
			p := profileFrom(doc)
			p.ID, p.CreatedAt = a.newID(), a.now()
			ok, err := s.InsertBuiltinProfile(ctx, p)
			if err != nil {
				return fmt.Errorf("builtin profile %s %s: %w", p.Key, p.Version, err)
			}
			if ok {
				inserted++
			}
		}
		return nil
	})
	return inserted, err
}

// CountBuiltinProfiles counts the builtin profiles (for operators and tests).
func (a *App) CountBuiltinProfiles(ctx context.Context) (int64, error) {
	return a.store.CountBuiltinProfiles(ctx)
}
