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

// Tenant is a tenant as identity events describe it.
type Tenant struct {
	ID               uuid.UUID
	Slug             string
	Kind             string
	Name             *string
	ContactEmail     *string
	Suspended        bool
	SuspendedAt      *time.Time
	SuspensionReason *string
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// User is a user as identity events describe it.
type User struct {
	ID            uuid.UUID
	TenantID      uuid.UUID
	RegisterMode  *string
	Email         *string // the verified email when there is one, else the registered one
	PhoneNumber   *string
	FullName      *string
	EmailVerified bool
	BannedAt      *time.Time
	BannedBy      *uuid.UUID
	BanReason     *string
	UnblockDate   *time.Time
	RegisteredAt  *time.Time
	Plan          *UserPlan
}

// Banned is true after a ban until its unblock_date (when given) has passed at now.
func (u User) Banned(now time.Time) bool {
	return u.BannedAt != nil && (u.UnblockDate == nil || now.Before(*u.UnblockDate))
}

// UserPlan is a user's latest plan.
type UserPlan struct {
	ID              uuid.UUID
	PlanCode        *string
	Expired         bool
	ExpiresAt       *time.Time
	PlanID          *uuid.UUID
	PlanName        *string
	SecondsCharge   *int
	StorageGB       *int
	ParallelRenders *int
	PaymentID       *uuid.UUID
}

// APIKey is a tenant's API key as identity events describe it.
type APIKey struct {
	ID              uuid.UUID
	TenantID        uuid.UUID
	Name            string
	Environment     string
	KeyPrefix       *string
	Last4           *string
	Scopes          []string
	CreatedByUserID *uuid.UUID
	CreatedAt       time.Time
	RevokedAt       *time.Time
	RevokedByUserID *uuid.UUID
	RevokeReason    *string
}

// UsageRow is the usage of one tenant in one period.
type UsageRow struct {
	Key UsageKey
	Usage
}

// RefundDue is a failed or cancelled job that needs a refund, and what settled it.
type RefundDue struct {
	JobID              uuid.UUID
	TenantID           uuid.UUID
	UserID             *uuid.UUID
	State              JobState
	Step               *string
	PriceType          *string
	PaidPriceMinor     *int64
	PaymentID          *uuid.UUID
	DueSince           time.Time
	SettledAt          *time.Time
	SettledByPaymentID *uuid.UUID
	RefundAmountMinor  *int64
}

// JobFilter selects render jobs.
type JobFilter struct {
	TenantID       *uuid.UUID `json:"tenant_id,omitempty"`
	UserID         *uuid.UUID `json:"user_id,omitempty"`
	State          *string    `json:"state,omitempty"`
	SavedProjectID *uuid.UUID `json:"saved_project_id,omitempty"`
	From           *time.Time `json:"from,omitempty"`
	To             *time.Time `json:"to,omitempty"`
}

// SnapshotFilter selects snapshots.
type SnapshotFilter struct {
	TenantID       *uuid.UUID `json:"tenant_id,omitempty"`
	SavedProjectID *uuid.UUID `json:"saved_project_id,omitempty"`
	State          *string    `json:"state,omitempty"`
}

// ReadStore is what the read API needs from the store. Lists return up to Page.Limit+1
// rows after Page.After.
type ReadStore interface {
	GetJob(ctx context.Context, id uuid.UUID) (*Job, error)
	ListJobs(ctx context.Context, f JobFilter, p Page) ([]*Job, error)
	Timeline(ctx context.Context, jobID uuid.UUID) ([]TimelineEntry, error)
	GetSnapshot(ctx context.Context, id uuid.UUID) (Snapshot, error)
	ListSnapshots(ctx context.Context, f SnapshotFilter, now time.Time, p Page) ([]Snapshot, error)
	GetTenant(ctx context.Context, id uuid.UUID) (Tenant, error)
	ListTenants(ctx context.Context, tenant *uuid.UUID, suspended *bool, p Page) ([]Tenant, error)
	ListAPIKeys(ctx context.Context, tenant uuid.UUID, revoked *bool, p Page) ([]APIKey, error)
	GetUser(ctx context.Context, id uuid.UUID) (User, error)
	ListUsage(ctx context.Context, period Period, first, last time.Time, tenant *uuid.UUID) ([]UsageRow, error)
	ListRefunds(ctx context.Context, tenant *uuid.UUID, status string, p Page) ([]RefundDue, error)
}
