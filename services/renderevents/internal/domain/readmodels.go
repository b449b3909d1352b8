package domain

import (
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
