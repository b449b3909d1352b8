package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// SnapshotState is the state of a snapshot as its events and the clock tell it.
type SnapshotState string

// Snapshot states.
const (
	SnapshotRequested SnapshotState = "requested"
	SnapshotReady     SnapshotState = "ready"
	SnapshotExpired   SnapshotState = "expired"
)

// Snapshot is a single-frame scene snapshot.
type Snapshot struct {
	ID             uuid.UUID
	TenantID       uuid.UUID
	UserID         *uuid.UUID
	SavedProjectID *uuid.UUID
	SceneKey       *string
	FrameNumber    *int
	Cached         bool
	ImageURL       *string
	ThumbnailURL   *string
	Width          *int
	Height         *int
	SizeBytes      *int64
	DurationMS     *int
	ExpiresAt      *time.Time
	RequestedAt    *time.Time
	ReadyAt        *time.Time
	// CreatedAt is the earliest event_time of the snapshot (requested_at when known); lists sort by it.
	CreatedAt time.Time
}

// State is requested until ready, then ready until expires_at has passed at now.
func (s Snapshot) State(now time.Time) SnapshotState {
	switch {
	case s.ReadyAt == nil:
		return SnapshotRequested
	case s.ExpiresAt != nil && !now.Before(*s.ExpiresAt):
		return SnapshotExpired
	}
	return SnapshotReady
}

// SnapshotFilter selects snapshots.
type SnapshotFilter struct {
	TenantID       *uuid.UUID `json:"tenant_id,omitempty"`
	SavedProjectID *uuid.UUID `json:"saved_project_id,omitempty"`
	State          *string    `json:"state,omitempty"`
}

// SnapshotStore reads snapshots; lists judge expiry at now.
type SnapshotStore interface {
	GetSnapshot(ctx context.Context, id uuid.UUID) (Snapshot, error)
	ListSnapshots(ctx context.Context, f SnapshotFilter, now time.Time, p Page) ([]Snapshot, error)
}
