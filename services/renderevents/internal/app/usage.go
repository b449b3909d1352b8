package app

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// Usage bounds.
const (
	DefaultUsageDays   = 30
	MaxUsageDays       = 366
	DefaultUsageMonths = 12
	MaxUsageMonths     = 120
)

// DailyUsage lists usage per tenant and UTC day in [from, to] (dates at 00:00 UTC);
// defaults: the last 30 days up to today.
func (q *Queries) DailyUsage(ctx context.Context, actor domain.Actor, tenant *uuid.UUID, from, to *time.Time) ([]domain.UsageRow, error) {
	a, err := caller(actor, tenant, false)
	if err != nil {
		return nil, err
	}
	today := truncateDay(q.Now())
	last := today
	if to != nil {
		last = truncateDay(*to)
	}
	first := last.AddDate(0, 0, -(DefaultUsageDays - 1))
	if from != nil {
		first = truncateDay(*from)
	}
	if first.After(last) {
		return nil, errs.InvalidFields(errs.Field("query.from", "must not be after to"))
	}
	if days := int(last.Sub(first).Hours()/24) + 1; days > MaxUsageDays {
		return nil, errs.InvalidFields(errs.Field("query.from", "the period is longer than 366 days"))
	}
	return q.store.ListUsage(ctx, domain.PeriodDay, first, last, a.tenant)
}

// MonthlyUsage lists usage per tenant and UTC month in [from, to] (first days of months);
// defaults: the last 12 months up to the current one.
func (q *Queries) MonthlyUsage(ctx context.Context, actor domain.Actor, tenant *uuid.UUID, from, to *time.Time) ([]domain.UsageRow, error) {
	a, err := caller(actor, tenant, false)
	if err != nil {
		return nil, err
	}
	now := q.Now()
	last := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	if to != nil {
		last = *to
	}
	first := last.AddDate(0, -(DefaultUsageMonths - 1), 0)
	if from != nil {
		first = *from
	}
	if first.After(last) {
		return nil, errs.InvalidFields(errs.Field("query.from", "must not be after to"))
	}
	months := (last.Year()-first.Year())*12 + int(last.Month()-first.Month()) + 1
	if months > MaxUsageMonths {
		return nil, errs.InvalidFields(errs.Field("query.from", "the period is longer than 120 months"))
	}
	return q.store.ListUsage(ctx, domain.PeriodMonth, first, last, a.tenant)
}

func truncateDay(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
