package app

import (
	"context"
	"log/slog"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// IdentityConsumer names the inbox in which the identity events the service applied are
// recorded.
const IdentityConsumer = "orgboard.identity"

// ApplyUserBan keeps the ban b once (a redelivered event changes nothing), unless the user
// has a ban of a newer event already: the latest ban by event time holds.
func (a *App) ApplyUserBan(ctx context.Context, b domain.UserBan) error {
	var kept bool
	applied, err := a.store.OnceInTx(ctx, IdentityConsumer, b.Event.ID, func(s domain.Store) error {
		var err error
		kept, err = s.PutUserBan(ctx, b)
		return err
	})
	if err != nil {
		return err
	}
	a.log.InfoContext(ctx, "user ban received", slog.String("user_id", b.UserID.String()),
		slog.String("event_id", b.Event.ID.String()), slog.Bool("duplicate", !applied), slog.Bool("kept", kept),
		slog.Bool("active", b.Block().ActiveAt(a.now())))
	return nil
}

// ApplyTenantSuspension keeps the suspension s once, unless the tenant has a suspension of a
// newer event already.
func (a *App) ApplyTenantSuspension(ctx context.Context, s domain.TenantSuspension) error {
	var kept bool
	applied, err := a.store.OnceInTx(ctx, IdentityConsumer, s.Event.ID, func(st domain.Store) error {
		var err error
		kept, err = st.PutTenantSuspension(ctx, s)
		return err
	})
	if err != nil {
		return err
	}
	a.log.InfoContext(ctx, "tenant suspension received", slog.String("tenant_id", s.TenantID.String()),
		slog.String("event_id", s.Event.ID.String()), slog.Bool("duplicate", !applied), slog.Bool("kept", kept))
	return nil
}

// CheckCaller refuses (403, saying why) a user whom the identity service banned, or whose
// tenant it suspended, while that holds. Services are not refused here.
func (a *App) CheckCaller(ctx context.Context, actor domain.Actor) error {
	if !actor.IsUser() {
		return nil
	}
	blocks, err := a.store.CallerBlocks(ctx, actor.UserID, actor.TenantID)
	if err != nil {
		return err
	}
	return a.refuseBlocked(actor, blocks)
}

// refuseBlocked is CheckCaller's decision on the caller's blocks, read by it or with a use
// case's own reads.
func (a *App) refuseBlocked(actor domain.Actor, blocks []domain.Block) error {
	if !actor.IsUser() {
		return nil
	}
	if b := domain.FirstActive(blocks, a.now()); b != nil {
		return b.Refusal()
	}
	return nil
}

// withBlocks sets Blocked on the members of org whose ban, or whose tenant's suspension, holds
// now.
func (a *App) withBlocks(ctx context.Context, s domain.Store, org uuid.UUID, ms []domain.Member) ([]domain.Member, error) {
	blocks, err := s.MemberBlocks(ctx, org)
	if err != nil || len(blocks) == 0 {
		return ms, err
	}
	now := a.now()
	for i := range ms {
		ms[i].Blocked = domain.FirstActive(blocks[ms[i].UserID], now)
	}
	return ms, nil
}
