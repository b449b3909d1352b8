package domain

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// BlockCause says why the identity service keeps a user out.
type BlockCause string

// The causes of a block.
const (
	// BlockUserBanned is a ban of the user (identity.user.banned.v1).
	BlockUserBanned BlockCause = "user_banned"
	// BlockTenantSuspended is a suspension of the user's tenant (identity.tenant.suspended.v1).
	BlockTenantSuspended BlockCause = "tenant_suspended"
)

// Block is the latest ban of a user, or the latest suspension of a tenant, as the identity
// service announced it. A ban lasts until its Until (none: no end); a suspension has no end,
// since the identity events announce none.
type Block struct {
	Cause  BlockCause
	Reason string
	// Since is when it took effect: the ban event's event_time, the suspension's suspended_at
	// (or its event_time).
	Since time.Time
	// Until is the ban's unblock_date; nil for a ban without end and for a suspension.
	Until *time.Time
}

// ActiveAt reports whether the block holds at now: always, unless its Until has come. A ban
// whose unblock_date is at or before its event time (identity lifting a ban) holds never.
func (b Block) ActiveAt(now time.Time) bool {
	return b.Until == nil || now.Before(*b.Until)
}

// Refusal is the 403 a blocked caller gets, saying why and until when.
func (b Block) Refusal() error {
	switch b.Cause {
	case BlockTenantSuspended:
		return errs.Ef(errs.Forbidden, "the caller's tenant is suspended since %s: %s", b.Since.UTC().Format(time.RFC3339), b.Reason)
	default:
		if b.Until != nil {
			return errs.Ef(errs.Forbidden, "the caller is banned until %s: %s", b.Until.UTC().Format(time.RFC3339), b.Reason)
		}
		return errs.Ef(errs.Forbidden, "the caller is banned: %s", b.Reason)
	}
}

// FirstActive is the block of blocks that refuses a caller at now (a ban before a suspension),
// or nil when none holds.
func FirstActive(blocks []Block, now time.Time) *Block {
	var found *Block
	for i := range blocks {
		b := blocks[i]
		if !b.ActiveAt(now) {
			continue
		}
		if found == nil || (found.Cause != BlockUserBanned && b.Cause == BlockUserBanned) {
			found = &b
		}
	}
	return found
}

// IdentityEvent identifies an event of the identity service: its id for the inbox, its time
// for ordering.
type IdentityEvent struct {
	ID   uuid.UUID
	Time time.Time
}

// UserBan is an identity.user.banned.v1 event.
type UserBan struct {
	Event       IdentityEvent
	UserID      uuid.UUID
	TenantID    *uuid.UUID
	BannedBy    uuid.UUID
	Reason      string
	UnblockDate *time.Time
}

// Block is the ban as a block, in effect from its event's time.
func (b UserBan) Block() Block {
	return Block{Cause: BlockUserBanned, Reason: b.Reason, Since: b.Event.Time, Until: b.UnblockDate}
}

// TenantSuspension is an identity.tenant.suspended.v1 event.
type TenantSuspension struct {
	Event    IdentityEvent
	TenantID uuid.UUID
	Reason   string
	// SuspendedAt is the payload's suspended_at, or the event's time when it has none.
	SuspendedAt time.Time
}

// BlockStore keeps the bans and suspensions the identity service announced.
type BlockStore interface {
	// OnceInTx runs fn with a Store bound to a transaction that also records event (by id) in
	// the inbox of consumer, so the effect and the record commit together. For an event recorded
	// before it runs nothing and returns false.
	OnceInTx(ctx context.Context, consumer string, event uuid.UUID, fn func(Store) error) (bool, error)
	// PutUserBan keeps b unless a ban of a newer event (event_time, then event id) is kept; it
	// reports whether b was kept.
	PutUserBan(ctx context.Context, b UserBan) (bool, error)
	// PutTenantSuspension keeps s unless a suspension of a newer event is kept.
	PutTenantSuspension(ctx context.Context, s TenantSuspension) (bool, error)
	// CallerBlocks lists the ban of user and the suspension of tenant, ended ones included.
	CallerBlocks(ctx context.Context, user, tenant uuid.UUID) ([]Block, error)
	// MemberBlocks maps the members of org to their bans and their tenants' suspensions, ended
	// ones included; members with neither are absent.
	MemberBlocks(ctx context.Context, org uuid.UUID) (map[uuid.UUID][]Block, error)
}
