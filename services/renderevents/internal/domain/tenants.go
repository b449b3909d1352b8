package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

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

// TenantStore reads tenants, their API keys and users.
type TenantStore interface {
	GetTenant(ctx context.Context, id uuid.UUID) (Tenant, error)
	ListTenants(ctx context.Context, tenant *uuid.UUID, suspended *bool, p Page) ([]Tenant, error)
	ListAPIKeys(ctx context.Context, tenant uuid.UUID, revoked *bool, p Page) ([]APIKey, error)
	GetUser(ctx context.Context, id uuid.UUID) (User, error)
}
