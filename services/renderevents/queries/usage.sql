-- name: AddUsage :exec
-- Adds each row's deltas to its tenant period (element i of every array is row i's);
-- paid_minor_by_price merges key by key. The rows are inserted, and their periods locked, in
-- the order given: every transaction gives them in one order, so that none waits for
-- another's rows in the opposite order. A key may appear once.
INSERT INTO usage_periods (tenant_id, period, period_start, jobs_completed, jobs_failed, jobs_cancelled,
                           render_compute_seconds, output_seconds, output_bytes, paid_minor_by_price,
                           payments_succeeded, payments_succeeded_minor, payments_failed, payments_failed_minor,
                           payments_refunded, payments_refunded_minor)
SELECT unnest(@tenant_id::uuid[]), unnest(@period::text[]), unnest(@period_start::date[]),
       unnest(@jobs_completed::bigint[]), unnest(@jobs_failed::bigint[]), unnest(@jobs_cancelled::bigint[]),
       unnest(@render_compute_seconds::bigint[]), unnest(@output_seconds::float8[]), unnest(@output_bytes::bigint[]),
       unnest(@paid_minor_by_price::jsonb[]),
       unnest(@payments_succeeded::bigint[]), unnest(@payments_succeeded_minor::bigint[]),
       unnest(@payments_failed::bigint[]), unnest(@payments_failed_minor::bigint[]),
       unnest(@payments_refunded::bigint[]), unnest(@payments_refunded_minor::bigint[])
ON CONFLICT (period, period_start, tenant_id) DO UPDATE SET
    jobs_completed = usage_periods.jobs_completed + excluded.jobs_completed,
    jobs_failed = usage_periods.jobs_failed + excluded.jobs_failed,
    jobs_cancelled = usage_periods.jobs_cancelled + excluded.jobs_cancelled,
    render_compute_seconds = usage_periods.render_compute_seconds + excluded.render_compute_seconds,
    output_seconds = usage_periods.output_seconds + excluded.output_seconds,
    output_bytes = usage_periods.output_bytes + excluded.output_bytes,
    paid_minor_by_price = COALESCE((
        SELECT jsonb_object_agg(k, total) FROM (
            SELECT k, sum(v::bigint) AS total FROM (
                SELECT key AS k, value AS v FROM jsonb_each_text(usage_periods.paid_minor_by_price)
                UNION ALL
                SELECT key, value FROM jsonb_each_text(excluded.paid_minor_by_price)
            ) pairs GROUP BY k
        ) sums), '{}'::jsonb),
    payments_succeeded = usage_periods.payments_succeeded + excluded.payments_succeeded,
    payments_succeeded_minor = usage_periods.payments_succeeded_minor + excluded.payments_succeeded_minor,
    payments_failed = usage_periods.payments_failed + excluded.payments_failed,
    payments_failed_minor = usage_periods.payments_failed_minor + excluded.payments_failed_minor,
    payments_refunded = usage_periods.payments_refunded + excluded.payments_refunded,
    payments_refunded_minor = usage_periods.payments_refunded_minor + excluded.payments_refunded_minor;

-- name: ListUsage :many
SELECT * FROM usage_periods
WHERE period = @period AND period_start BETWEEN @first::date AND @last::date
  AND (sqlc.narg(tenant_id)::uuid IS NULL OR tenant_id = sqlc.narg(tenant_id))
ORDER BY period_start, tenant_id;
