package httpapi

import (
	"context"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
)

// ListRefundsDue implements rendereventsserver.StrictServerInterface.
func (h *Handler) ListRefundsDue(ctx context.Context, req rendereventsserver.ListRefundsDueRequestObject) (rendereventsserver.ListRefundsDueResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	status := ""
	if p.Status != nil {
		status = string(*p.Status)
	}
	rows, next, err := h.queries.ListRefunds(ctx, actor, listParams(p.TenantId, p.Cursor, p.Limit), status)
	if err != nil {
		return nil, err
	}
	out := rendereventsserver.ListRefundsDue200JSONResponse{Data: make([]api.RefundDue, len(rows)), NextCursor: next}
	for i, r := range rows {
		d := api.RefundDue{JobId: r.JobID, TenantId: r.TenantID, UserId: r.UserID, State: api.RefundDueState(r.State),
			PriceType: r.PriceType, PaidPriceMinor: r.PaidPriceMinor, PaymentId: r.PaymentID, DueSince: r.DueSince,
			Settled: r.SettledAt != nil, SettledAt: r.SettledAt, SettledByPaymentId: r.SettledByPaymentID,
			RefundAmountMinor: r.RefundAmountMinor}
		if r.Step != nil {
			s := api.Step(*r.Step)
			d.Step = &s
		}
		out.Data[i] = d
	}
	return out, nil
}
