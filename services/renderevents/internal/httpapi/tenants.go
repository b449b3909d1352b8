package httpapi

import (
	"context"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func tenantToAPI(t domain.Tenant) api.Tenant {
	return api.Tenant{TenantId: t.ID, Slug: t.Slug, Kind: api.TenantKind(t.Kind), Name: t.Name, ContactEmail: t.ContactEmail,
		Suspended: t.Suspended, SuspendedAt: t.SuspendedAt, SuspensionReason: t.SuspensionReason, CreatedAt: t.CreatedAt,
		UpdatedAt: t.UpdatedAt}
}

// ListTenants implements rendereventsserver.StrictServerInterface.
func (h *Handler) ListTenants(ctx context.Context, req rendereventsserver.ListTenantsRequestObject) (rendereventsserver.ListTenantsResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	rows, next, err := h.queries.ListTenants(ctx, actor, listParams(nil, p.Cursor, p.Limit), p.Suspended)
	if err != nil {
		return nil, err
	}
	out := rendereventsserver.ListTenants200JSONResponse{Data: make([]api.Tenant, len(rows)), NextCursor: next}
	for i, t := range rows {
		out.Data[i] = tenantToAPI(t)
	}
	return out, nil
}

// GetTenant implements rendereventsserver.StrictServerInterface.
func (h *Handler) GetTenant(ctx context.Context, req rendereventsserver.GetTenantRequestObject) (rendereventsserver.GetTenantResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.queries.GetTenant(ctx, actor, req.TenantId)
	if err != nil {
		return nil, err
	}
	return rendereventsserver.GetTenant200JSONResponse(tenantToAPI(t)), nil
}

// ListTenantApiKeys implements rendereventsserver.StrictServerInterface.
func (h *Handler) ListTenantApiKeys(ctx context.Context, req rendereventsserver.ListTenantApiKeysRequestObject) (rendereventsserver.ListTenantApiKeysResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	rows, next, err := h.queries.ListAPIKeys(ctx, actor, req.TenantId, listParams(nil, p.Cursor, p.Limit), p.Revoked)
	if err != nil {
		return nil, err
	}
	out := rendereventsserver.ListTenantApiKeys200JSONResponse{Data: make([]api.ApiKey, len(rows)), NextCursor: next}
	for i, k := range rows {
		out.Data[i] = api.ApiKey{ApiKeyId: k.ID, TenantId: k.TenantID, Name: k.Name, Environment: api.ApiKeyEnvironment(k.Environment),
			KeyPrefix: k.KeyPrefix, Last4: k.Last4, Scopes: k.Scopes, CreatedAt: k.CreatedAt, Revoked: k.RevokedAt != nil,
			RevokedAt: k.RevokedAt, RevokedByUserId: k.RevokedByUserID, RevokeReason: k.RevokeReason}
		if k.CreatedByUserID != nil {
			out.Data[i].CreatedByUserId = *k.CreatedByUserID
		}
	}
	return out, nil
}

// GetUser implements rendereventsserver.StrictServerInterface.
func (h *Handler) GetUser(ctx context.Context, req rendereventsserver.GetUserRequestObject) (rendereventsserver.GetUserResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	u, err := h.queries.GetUser(ctx, actor, req.UserId)
	if err != nil {
		return nil, err
	}
	out := api.User{UserId: u.ID, TenantId: u.TenantID, Email: u.Email, PhoneNumber: u.PhoneNumber, FullName: u.FullName,
		EmailVerified: u.EmailVerified, Banned: u.Banned(h.queries.Now()), BannedBy: u.BannedBy, BanReason: u.BanReason,
		UnblockDate: u.UnblockDate, RegisteredAt: u.RegisteredAt}
	if u.RegisterMode != nil {
		m := api.UserRegisterMode(*u.RegisterMode)
		out.RegisterMode = &m
	}
	if pl := u.Plan; pl != nil {
		status := api.UserPlanStatus("active")
		if pl.Expired {
			status = "expired"
		}
		out.Plan = &api.UserPlan{UserPlanId: pl.ID, PlanCode: pl.PlanCode, Status: status, ExpiresAt: pl.ExpiresAt,
			PlanId: pl.PlanID, PlanName: pl.PlanName, SecondsCharge: pl.SecondsCharge, StorageGb: pl.StorageGB,
			ParallelRenders: pl.ParallelRenders, PaymentId: pl.PaymentID}
	}
	return rendereventsserver.GetUser200JSONResponse(out), nil
}
