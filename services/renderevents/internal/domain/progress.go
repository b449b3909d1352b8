package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// ProgressEventType is the event name of a render job progress tick; ticks are never
// delivered to webhooks.
const ProgressEventType = "render.job.progress.v1"

// Progress is one render.job.progress.v1 tick.
type Progress struct {
	JobID        uuid.UUID
	TenantID     uuid.UUID
	Step         string
	Progress     int
	CurrentFrame *int
	TotalFrames  *int
	EtaSeconds   *int
	Message      *string
	EventTime    time.Time
}

// Newer reports whether p is a later tick than q (ties by progress).
func (p Progress) Newer(q Progress) bool {
	if !p.EventTime.Equal(q.EventTime) {
		return p.EventTime.After(q.EventTime)
	}
	return p.Progress >= q.Progress
}

// ClampProgress bounds a progress figure to 0..100.
func ClampProgress(n int) int { return max(0, min(100, n)) }

// ProgressStore persists the latest progress of jobs; a tick of a terminal job or older
// than the stored one is ignored. It returns the ticks of jobs it does not know yet.
type ProgressStore interface {
	SaveProgress(ctx context.Context, ticks []Progress) (unknown []Progress, err error)
}
