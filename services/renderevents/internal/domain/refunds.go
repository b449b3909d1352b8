package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// PaymentRefunded is identity.payment.refunded.v1 as usage meters it and refunds settle.
type PaymentRefunded struct {
	PaymentID         uuid.UUID
	RefundAmountMinor int64
}

// RefundDue is a failed or cancelled job that needs a refund, and what settled it.
type RefundDue struct {
	JobID              uuid.UUID
	TenantID           uuid.UUID
	UserID             *uuid.UUID
	State              JobState
	Step               *string
	PriceType          *string
	PaidPriceMinor     *int64
	PaymentID          *uuid.UUID
	DueSince           time.Time
	SettledAt          *time.Time
	SettledByPaymentID *uuid.UUID
	RefundAmountMinor  *int64
}

// RefundStore reads refunds due (status due, settled or all).
type RefundStore interface {
	ListRefunds(ctx context.Context, tenant *uuid.UUID, status string, p Page) ([]RefundDue, error)
}
