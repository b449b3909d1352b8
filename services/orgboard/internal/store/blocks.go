package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// OnceInTx implements domain.BlockStore with the bus inbox (bus.HandleOnce): the event id is
// recorded in the transaction fn's changes commit in.
func (s *Store) OnceInTx(ctx context.Context, consumer string, event uuid.UUID, fn func(domain.Store) error) (bool, error) {
	return bus.HandleOnce(ctx, s.pool, consumer, event, func(_ context.Context, tx pgx.Tx) error {
		return fn(s.in(tx))
	})
}

// PutUserBan keeps b unless the user's kept ban comes from a newer event.
func (s *Store) PutUserBan(ctx context.Context, b domain.UserBan) (bool, error) {
	n, err := s.q.UpsertUserBan(ctx, orgboarddb.UpsertUserBanParams{UserID: b.UserID, TenantID: b.TenantID,
		BannedBy: b.BannedBy, Reason: b.Reason, UnblockDate: utcPtr(b.UnblockDate), EventTime: b.Event.Time.UTC(),
		EventID: b.Event.ID})
	return n > 0, err
}

// PutTenantSuspension keeps sp unless the tenant's kept suspension comes from a newer event.
func (s *Store) PutTenantSuspension(ctx context.Context, sp domain.TenantSuspension) (bool, error) {
	n, err := s.q.UpsertTenantSuspension(ctx, orgboarddb.UpsertTenantSuspensionParams{TenantID: sp.TenantID,
		Reason: sp.Reason, SuspendedAt: sp.SuspendedAt.UTC(), EventTime: sp.Event.Time.UTC(), EventID: sp.Event.ID})
	return n > 0, err
}

// CallerBlocks lists the ban of user and the suspension of tenant in one query.
func (s *Store) CallerBlocks(ctx context.Context, user, tenant uuid.UUID) ([]domain.Block, error) {
	rows, err := s.q.ListCallerBlocks(ctx, orgboarddb.ListCallerBlocksParams{UserID: user, TenantID: tenant})
	if err != nil {
		return nil, err
	}
	out := make([]domain.Block, len(rows))
	for i, r := range rows {
		out[i] = blockOf(r)
	}
	return out, nil
}

func blockOf(r orgboarddb.ListCallerBlocksRow) domain.Block {
	return domain.Block{Cause: domain.BlockCause(r.Cause), Reason: r.Reason, Since: r.Since.UTC(), Until: utcPtr(r.Until)}
}

// MemberBlocks maps the members of org to their bans and their tenants' suspensions, in one query.
func (s *Store) MemberBlocks(ctx context.Context, org uuid.UUID) (map[uuid.UUID][]domain.Block, error) {
	rows, err := s.q.ListBlocksOfMembers(ctx, org)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID][]domain.Block, len(rows))
	for _, r := range rows {
		out[r.UserID] = append(out[r.UserID], domain.Block{Cause: domain.BlockCause(r.Cause), Reason: r.Reason,
			Since: r.Since.UTC(), Until: utcPtr(r.Until)})
	}
	return out, nil
}

// utcPtr is t in UTC, or nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
