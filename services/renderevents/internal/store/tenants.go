package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func tenantFromRow(r db.Tenant) domain.Tenant {
	t := domain.Tenant{ID: r.TenantID, Slug: deref(r.Slug), Kind: deref(r.Kind), Name: r.Name, ContactEmail: r.ContactEmail,
		Suspended: r.Suspended, SuspendedAt: utc(r.SuspendedAt), SuspensionReason: r.SuspensionReason, UpdatedAt: r.UpdatedAt.UTC()}
	if r.CreatedAt != nil {
		t.CreatedAt = r.CreatedAt.UTC()
	}
	return t
}

// GetTenant implements domain.ReadStore.
func (s *Store) GetTenant(ctx context.Context, id uuid.UUID) (domain.Tenant, error) {
	r, err := s.q.GetTenant(ctx, id)
	if err != nil {
		return domain.Tenant{}, translate(err, "tenant")
	}
	return tenantFromRow(r), nil
}

// ListTenants implements domain.ReadStore.
func (s *Store) ListTenants(ctx context.Context, tenant *uuid.UUID, suspended *bool, p domain.Page) ([]domain.Tenant, error) {
	_, slug, id := after(p)
	rows, err := s.q.ListTenants(ctx, db.ListTenantsParams{TenantID: tenant, Suspended: suspended, AfterSlug: slug,
		AfterID: id, MaxRows: maxRows(p)})
	if err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	out := make([]domain.Tenant, len(rows))
	for i, r := range rows {
		out[i] = tenantFromRow(r)
	}
	return out, nil
}

// ListAPIKeys implements domain.ReadStore.
func (s *Store) ListAPIKeys(ctx context.Context, tenant uuid.UUID, revoked *bool, p domain.Page) ([]domain.APIKey, error) {
	at, _, id := after(p)
	rows, err := s.q.ListAPIKeys(ctx, db.ListAPIKeysParams{TenantID: tenant, Revoked: revoked, AfterTime: at, AfterID: id,
		MaxRows: maxRows(p)})
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	out := make([]domain.APIKey, len(rows))
	for i, r := range rows {
		k := domain.APIKey{ID: r.ApiKeyID, TenantID: r.TenantID, Name: deref(r.Name), Environment: deref(r.Environment),
			KeyPrefix: r.KeyPrefix, Last4: r.Last4, Scopes: r.Scopes, CreatedByUserID: r.CreatedByUserID,
			RevokedAt: utc(r.RevokedAt), RevokedByUserID: r.RevokedByUserID, RevokeReason: r.RevokeReason}
		if r.CreatedAt != nil {
			k.CreatedAt = r.CreatedAt.UTC()
		}
		if k.Scopes == nil {
			k.Scopes = []string{}
		}
		out[i] = k
	}
	return out, nil
}

// GetUser implements domain.ReadStore: the user and its latest plan (two queries).
func (s *Store) GetUser(ctx context.Context, id uuid.UUID) (domain.User, error) {
	r, err := s.q.GetUser(ctx, id)
	if err != nil {
		return domain.User{}, translate(err, "user")
	}
	u := domain.User{ID: r.UserID, TenantID: r.TenantID, RegisterMode: r.RegisterMode, Email: r.Email,
		PhoneNumber: r.PhoneNumber, FullName: r.FullName, EmailVerified: r.EmailVerified, BannedAt: utc(r.BannedAt),
		BannedBy: r.BannedBy, BanReason: r.BanReason, UnblockDate: utc(r.UnblockDate), RegisteredAt: utc(r.RegisteredAt)}
	if r.VerifiedEmail != nil {
		u.Email = r.VerifiedEmail
	}
	pl, err := s.q.GetCurrentPlan(ctx, id)
	switch {
	case err == nil:
		u.Plan = &domain.UserPlan{ID: pl.UserPlanID, PlanCode: pl.PlanCode, Expired: pl.ExpiredAt != nil,
			ExpiresAt: utc(pl.ExpiresAt), PlanID: pl.PlanID, PlanName: pl.PlanName, SecondsCharge: intp(pl.SecondsCharge),
			StorageGB: intp(pl.StorageGb), ParallelRenders: intp(pl.ParallelRenders), PaymentID: pl.PaymentID}
	case !errors.Is(err, pgx.ErrNoRows):
		return domain.User{}, fmt.Errorf("user plan: %w", err)
	}
	return u, nil
}
