-- name: InsertPaymentRefund :exec
INSERT INTO payment_refunds (event_id, tenant_id, payment_id, correlation_id, refund_amount_minor, refunded_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (event_id) DO NOTHING;

-- name: ListRefundsDue :many
-- A refund is due for a failed or cancelled job with refund_required; it is settled by
-- the earliest identity.payment.refunded.v1 of the same tenant whose payment_id is the
-- job's payment, or, for a job without a payment, whose correlation_id is the job id.
SELECT j.job_id, j.tenant_id, j.user_id, j.state, j.failed_at_step, j.cancelled_at_step,
       j.price_type, j.paid_price_minor, j.payment_id, j.finished_at AS due_since,
       r.refunded_at AS settled_at, r.payment_id AS settled_by_payment_id, r.refund_amount_minor
FROM render_jobs j
LEFT JOIN payment_refunds r ON r.event_id = (
    SELECT pr.event_id FROM payment_refunds pr
    WHERE pr.tenant_id = j.tenant_id
      AND ((j.payment_id IS NOT NULL AND pr.payment_id = j.payment_id)
           OR (j.payment_id IS NULL AND pr.correlation_id = j.job_id))
    ORDER BY pr.refunded_at, pr.event_id
    LIMIT 1)
WHERE j.state IN ('failed', 'cancelled') AND j.refund_required
  AND (sqlc.narg(tenant_id)::uuid IS NULL OR j.tenant_id = sqlc.narg(tenant_id))
  AND (@status::text = 'all'
       OR (@status::text = 'due' AND r.event_id IS NULL)
       OR (@status::text = 'settled' AND r.event_id IS NOT NULL))
  AND (sqlc.narg(after_time)::timestamptz IS NULL
       OR (j.finished_at, j.job_id) > (sqlc.narg(after_time)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY j.finished_at, j.job_id
LIMIT @max_rows;
