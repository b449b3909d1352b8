package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Period is a usage period kind.
type Period string

// Usage periods: UTC calendar days and months of the event_time.
const (
	PeriodDay   Period = "day"
	PeriodMonth Period = "month"
)

// UnknownPriceType is the key of paid amounts of completed jobs without a price_type.
const UnknownPriceType = "unknown"

// UsageKey names one tenant period.
type UsageKey struct {
	TenantID uuid.UUID
	Period   Period
	Start    time.Time // first day of the period, 00:00 UTC
}

// Usage holds the counters of a tenant period (as deltas while events are folded in).
type Usage struct {
	JobsCompleted          int64
	JobsFailed             int64
	JobsCancelled          int64
	RenderComputeSeconds   int64
	OutputSeconds          float64
	OutputBytes            int64
	PaidMinorByPriceType   map[string]int64
	PaymentsSucceeded      int64
	PaymentsSucceededMinor int64
	PaymentsFailed         int64
	PaymentsFailedMinor    int64
	PaymentsRefunded       int64
	PaymentsRefundedMinor  int64
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.JobsCompleted += o.JobsCompleted
	u.JobsFailed += o.JobsFailed
	u.JobsCancelled += o.JobsCancelled
	u.RenderComputeSeconds += o.RenderComputeSeconds
	u.OutputSeconds += o.OutputSeconds
	u.OutputBytes += o.OutputBytes
	for k, v := range o.PaidMinorByPriceType {
		if u.PaidMinorByPriceType == nil {
			u.PaidMinorByPriceType = map[string]int64{}
		}
		u.PaidMinorByPriceType[k] += v
	}
	u.PaymentsSucceeded += o.PaymentsSucceeded
	u.PaymentsSucceededMinor += o.PaymentsSucceededMinor
	u.PaymentsFailed += o.PaymentsFailed
	u.PaymentsFailedMinor += o.PaymentsFailedMinor
	u.PaymentsRefunded += o.PaymentsRefunded
	u.PaymentsRefundedMinor += o.PaymentsRefundedMinor
}

// UsageDeltas accumulates usage by tenant period.
type UsageDeltas map[UsageKey]*Usage

// add counts u in the day and the month of t for tenant.
func (d UsageDeltas) add(tenant uuid.UUID, t time.Time, u Usage) {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	month := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	for _, k := range []UsageKey{{tenant, PeriodDay, day}, {tenant, PeriodMonth, month}} {
		if d[k] == nil {
			d[k] = &Usage{}
		}
		d[k].Add(u)
	}
}

// CountTerminal meters a job's terminal event. Call it only when the event made the job
// terminal (Outcome.Terminal), so that a job counts once whatever is redelivered or comes
// second. A completed job adds its compute and output figures and its paid amount under
// its price type, taken from the completed event, else from what the job knows (queued),
// else "unknown".
func (d UsageDeltas) CountTerminal(ev Event, job *Job) {
	var u Usage
	switch p := ev.Payload.(type) {
	case JobCompleted:
		u.JobsCompleted = 1
		if p.RenderComputeSeconds != nil {
			u.RenderComputeSeconds = int64(*p.RenderComputeSeconds)
		}
		u.OutputSeconds = p.DurationSec
		u.OutputBytes = p.SizeBytes
		priceType, paid := UnknownPriceType, int64(0)
		switch {
		case p.PriceType != nil:
			priceType = *p.PriceType
		case job.PriceType != nil:
			priceType = *job.PriceType
		}
		switch {
		case p.PaidPriceMinor != nil:
			paid = *p.PaidPriceMinor
		case job.PaidPriceMinor != nil:
			paid = *job.PaidPriceMinor
		}
		u.PaidMinorByPriceType = map[string]int64{priceType: paid}
	case JobFailed:
		u.JobsFailed = 1
	case JobCancelled:
		u.JobsCancelled = 1
	default:
		return
	}
	d.add(job.TenantID, ev.Time, u)
}

// CountPayment meters identity.payment.* events in the envelope tenant's periods.
func (d UsageDeltas) CountPayment(ev Event) {
	var u Usage
	switch p := ev.Payload.(type) {
	case PaymentSucceeded:
		u.PaymentsSucceeded, u.PaymentsSucceededMinor = 1, p.AmountMinor
	case PaymentFailed:
		u.PaymentsFailed = 1
		if p.AmountMinor != nil {
			u.PaymentsFailedMinor = *p.AmountMinor
		}
	case PaymentRefunded:
		u.PaymentsRefunded, u.PaymentsRefundedMinor = 1, p.RefundAmountMinor
	default:
		return
	}
	d.add(ev.TenantID, ev.Time, u)
}

// PaymentSucceeded is identity.payment.succeeded.v1 as usage meters it.
type PaymentSucceeded struct {
	AmountMinor int64
}

// PaymentFailed is identity.payment.failed.v1 as usage meters it.
type PaymentFailed struct {
	AmountMinor *int64
}

// UsageRow is the usage of one tenant in one period.
type UsageRow struct {
	Key UsageKey
	Usage
}

// UsageStore reads usage per tenant and period from first to last (first days of periods).
type UsageStore interface {
	ListUsage(ctx context.Context, period Period, first, last time.Time, tenant *uuid.UUID) ([]UsageRow, error)
}
