package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func after(p domain.Page) (*time.Time, *string, *uuid.UUID) {
	if p.After == nil {
		return nil, nil, nil
	}
	id := p.After.ID
	return p.After.Time, p.After.Text, &id
}

func maxRows(p domain.Page) int32 { return int32(p.Limit + 1) }

// GetJob implements domain.ReadStore.
func (s *Store) GetJob(ctx context.Context, id uuid.UUID) (*domain.Job, error) {
	r, err := s.q.GetJob(ctx, id)
	if err != nil {
		return nil, translate(err, "render job")
	}
	return jobFromRow(r), nil
}

// ListJobs implements domain.ReadStore.
func (s *Store) ListJobs(ctx context.Context, f domain.JobFilter, p domain.Page) ([]*domain.Job, error) {
	at, _, id := after(p)
	rows, err := s.q.ListJobs(ctx, db.ListJobsParams{TenantID: f.TenantID, UserID: f.UserID, State: f.State,
		SavedProjectID: f.SavedProjectID, FromTime: f.From, ToTime: f.To, AfterTime: at, AfterID: id, MaxRows: maxRows(p)})
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	out := make([]*domain.Job, len(rows))
	for i, r := range rows {
		out[i] = jobFromRow(r)
	}
	return out, nil
}

// Timeline implements domain.ReadStore.
func (s *Store) Timeline(ctx context.Context, jobID uuid.UUID) ([]domain.TimelineEntry, error) {
	rows, err := s.q.ListTimeline(ctx, jobID)
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	out := make([]domain.TimelineEntry, len(rows))
	for i, r := range rows {
		out[i] = domain.TimelineEntry{JobID: r.JobID, EventID: r.EventID, EventType: r.EventType, EventTime: r.EventTime.UTC(),
			ReceivedAt: r.ReceivedAt.UTC(), Applied: r.Applied, Data: r.Data}
	}
	return out, nil
}

func snapshotFromRow(r db.Snapshot) domain.Snapshot {
	return domain.Snapshot{ID: r.SnapshotID, TenantID: r.TenantID, UserID: r.UserID, SavedProjectID: r.SavedProjectID,
		SceneKey: r.SceneKey, FrameNumber: intp(r.FrameNumber), Cached: r.Cached, ImageURL: r.ImageUrl,
		ThumbnailURL: r.ThumbnailUrl, Width: intp(r.Width), Height: intp(r.Height), SizeBytes: r.SizeBytes,
		DurationMS: intp(r.DurationMs), ExpiresAt: utc(r.ExpiresAt), RequestedAt: utc(r.RequestedAt),
		ReadyAt: utc(r.ReadyAt), CreatedAt: r.CreatedAt.UTC()}
}

// GetSnapshot implements domain.ReadStore.
func (s *Store) GetSnapshot(ctx context.Context, id uuid.UUID) (domain.Snapshot, error) {
	r, err := s.q.GetSnapshot(ctx, id)
	if err != nil {
		return domain.Snapshot{}, translate(err, "snapshot")
	}
	return snapshotFromRow(r), nil
}

// ListSnapshots implements domain.ReadStore.
func (s *Store) ListSnapshots(ctx context.Context, f domain.SnapshotFilter, now time.Time, p domain.Page) ([]domain.Snapshot, error) {
	at, _, id := after(p)
	rows, err := s.q.ListSnapshots(ctx, db.ListSnapshotsParams{TenantID: f.TenantID, SavedProjectID: f.SavedProjectID,
		State: f.State, Now: now, AfterTime: at, AfterID: id, MaxRows: maxRows(p)})
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	out := make([]domain.Snapshot, len(rows))
	for i, r := range rows {
		out[i] = snapshotFromRow(r)
	}
	return out, nil
}

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

// ListUsage implements domain.ReadStore.
func (s *Store) ListUsage(ctx context.Context, period domain.Period, first, last time.Time, tenant *uuid.UUID) ([]domain.UsageRow, error) {
	rows, err := s.q.ListUsage(ctx, db.ListUsageParams{Period: string(period), First: pgtype.Date{Time: first, Valid: true},
		Last: pgtype.Date{Time: last, Valid: true}, TenantID: tenant})
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	out := make([]domain.UsageRow, len(rows))
	for i, r := range rows {
		paid := map[string]int64{}
		if err := json.Unmarshal(r.PaidMinorByPrice, &paid); err != nil {
			return nil, fmt.Errorf("usage paid amounts: %w", err)
		}
		out[i] = domain.UsageRow{
			Key: domain.UsageKey{TenantID: r.TenantID, Period: domain.Period(r.Period), Start: r.PeriodStart.Time.UTC()},
			Usage: domain.Usage{JobsCompleted: r.JobsCompleted, JobsFailed: r.JobsFailed, JobsCancelled: r.JobsCancelled,
				RenderComputeSeconds: r.RenderComputeSeconds, OutputSeconds: r.OutputSeconds, OutputBytes: r.OutputBytes,
				PaidMinorByPriceType: paid, PaymentsSucceeded: r.PaymentsSucceeded, PaymentsSucceededMinor: r.PaymentsSucceededMinor,
				PaymentsFailed: r.PaymentsFailed, PaymentsFailedMinor: r.PaymentsFailedMinor, PaymentsRefunded: r.PaymentsRefunded,
				PaymentsRefundedMinor: r.PaymentsRefundedMinor},
		}
	}
	return out, nil
}

// ListRefunds implements domain.ReadStore.
func (s *Store) ListRefunds(ctx context.Context, tenant *uuid.UUID, status string, p domain.Page) ([]domain.RefundDue, error) {
	at, _, id := after(p)
	rows, err := s.q.ListRefundsDue(ctx, db.ListRefundsDueParams{TenantID: tenant, Status: status, AfterTime: at, AfterID: id,
		MaxRows: maxRows(p)})
	if err != nil {
		return nil, fmt.Errorf("refunds: %w", err)
	}
	out := make([]domain.RefundDue, len(rows))
	for i, r := range rows {
		d := domain.RefundDue{JobID: r.JobID, TenantID: r.TenantID, UserID: r.UserID, State: domain.JobState(r.State),
			PriceType: r.PriceType, PaidPriceMinor: r.PaidPriceMinor, PaymentID: r.PaymentID, SettledAt: utc(r.SettledAt),
			SettledByPaymentID: r.SettledByPaymentID, RefundAmountMinor: r.RefundAmountMinor}
		if r.DueSince != nil {
			d.DueSince = r.DueSince.UTC()
		}
		d.Step = r.FailedAtStep
		if d.Step == nil {
			d.Step = r.CancelledAtStep
		}
		out[i] = d
	}
	return out, nil
}
