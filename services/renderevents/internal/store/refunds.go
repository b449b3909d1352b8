package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

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
