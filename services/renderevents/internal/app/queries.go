package app

import (
	"time"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// Queries answers the read API; its use cases live in the files of their groups (jobs,
// snapshots, tenants, usage, refunds).
type Queries struct {
	store domain.ReadStore
	now   func() time.Time
}

// NewQueries returns the read use cases.
func NewQueries(store domain.ReadStore) *Queries { return &Queries{store: store, now: time.Now} }

// Now is the clock the read models are judged by (snapshot expiry, bans).
func (q *Queries) Now() time.Time { return q.now().UTC() }
