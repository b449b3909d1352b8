package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

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
