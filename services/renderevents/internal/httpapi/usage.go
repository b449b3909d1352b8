package httpapi

import (
	"context"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func usageToAPI(rows []domain.UsageRow) api.UsageList {
	out := api.UsageList{Data: make([]api.Usage, len(rows))}
	for i, r := range rows {
		period := r.Key.Start.Format(time.DateOnly)
		if r.Key.Period == domain.PeriodMonth {
			period = r.Key.Start.Format("2006-01")
		}
		paid := r.PaidMinorByPriceType
		if paid == nil {
			paid = map[string]int64{}
		}
		out.Data[i] = api.Usage{TenantId: r.Key.TenantID, Period: period, PeriodStart: openapi_types.Date{Time: r.Key.Start},
			JobsCompleted: r.JobsCompleted, JobsFailed: r.JobsFailed, JobsCancelled: r.JobsCancelled,
			RenderComputeSeconds: r.RenderComputeSeconds, OutputSeconds: r.OutputSeconds, OutputBytes: r.OutputBytes,
			PaidMinorByPriceType: paid,
			Payments: api.PaymentTotals{SucceededCount: r.PaymentsSucceeded, SucceededAmountMinor: r.PaymentsSucceededMinor,
				FailedCount: r.PaymentsFailed, FailedAmountMinor: r.PaymentsFailedMinor,
				RefundedCount: r.PaymentsRefunded, RefundedAmountMinor: r.PaymentsRefundedMinor}}
	}
	return out
}

func dateOf(d *openapi_types.Date) *time.Time {
	if d == nil {
		return nil
	}
	t := d.Time
	return &t
}

// GetDailyUsage implements rendereventsserver.StrictServerInterface.
func (h *Handler) GetDailyUsage(ctx context.Context, req rendereventsserver.GetDailyUsageRequestObject) (rendereventsserver.GetDailyUsageResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := h.queries.DailyUsage(ctx, actor, req.Params.TenantId, dateOf(req.Params.From), dateOf(req.Params.To))
	if err != nil {
		return nil, err
	}
	return rendereventsserver.GetDailyUsage200JSONResponse(usageToAPI(rows)), nil
}

func monthOf(field string, s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := time.Parse("2006-01", *s)
	if err != nil {
		return nil, errs.InvalidFields(errs.Field(field, "must be a month YYYY-MM"))
	}
	return &t, nil
}

// GetMonthlyUsage implements rendereventsserver.StrictServerInterface.
func (h *Handler) GetMonthlyUsage(ctx context.Context, req rendereventsserver.GetMonthlyUsageRequestObject) (rendereventsserver.GetMonthlyUsageResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	from, err := monthOf("query.from", req.Params.From)
	if err != nil {
		return nil, err
	}
	to, err := monthOf("query.to", req.Params.To)
	if err != nil {
		return nil, err
	}
	rows, err := h.queries.MonthlyUsage(ctx, actor, req.Params.TenantId, from, to)
	if err != nil {
		return nil, err
	}
	return rendereventsserver.GetMonthlyUsage200JSONResponse(usageToAPI(rows)), nil
}
