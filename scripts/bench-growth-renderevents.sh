#!/usr/bin/env bash
# scripts/bench-growth-renderevents.sh (called by make bench-growth): the read endpoints of
# renderevents -- a tenant's job list (first page, a deep page through cursors, filtered by
# state), a job's timeline, daily and monthly usage -- after 100k, 1M and 10M events. The read
# model is loaded with SQL in the shapes the service writes (per job: its row, three timeline
# events, four inbox records; usage per tenant and day and month), each size on top of the
# previous one, since publishing 10M events through the broker would take hours. Per size and
# request: req/s, p50 and p99 at concurrency 32 through `renderevents serve`, and the
# EXPLAIN (ANALYZE, BUFFERS) buffers and plan of the statements the service runs (full plans
# after the table). Prints markdown on stdout.
# GROWTH_SIZES (default "100000 1000000 10000000") and GROWTH_DURATION (default 10s) bound it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_postgres
ensure_rabbitmq
BIN=bin/renderevents
[[ -x $BIN ]] || go build -o "$BIN" ./services/renderevents/cmd/renderevents

SIZES=${GROWTH_SIZES:-100000 1000000 10000000}
DURATION=${GROWTH_DURATION:-10s}
DB=renderevents_growth
SUFFIX=growth-$$
PORT=$(free_port 18093)
WORK=$(mktemp -d)
TENANTS=10
# The tenant whose pages are read: one of ten, each holding a tenth of the jobs.
TENANT=$(psql -qAt -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -c \
  "SELECT (substr(md5('tenant-0'), 1, 12) || '4' || substr(md5('tenant-0'), 14, 3) || '8' || substr(md5('tenant-0'), 18, 15))::uuid")

export DATABASE_URL="postgres://postgres@${PG_HOST}:${PG_PORT}/${DB}?sslmode=disable"
export AMQP_URL=${AMQP_URL:-amqp://guest:guest@127.0.0.1:${AMQP_PORT}/}
export BUS_SERVICE="renderevents-${SUFFIX}"
export EVENTS_EXCHANGE="events-${SUFFIX}"
export PROGRESS_EXCHANGE="render.progress-${SUFFIX}"
export DEAD_LETTER_EXCHANGE="dead-letter-${SUFFIX}"
export JWT_HS256_SECRET="bench-secret-bench-secret-bench-secret!"
export HTTP_ADDR="127.0.0.1:${PORT}" METRICS_ADDR=127.0.0.1:0
export LOG_LEVEL=warn DB_MAX_CONNS=32
export SEAL_KEYS=bench:$(head -c 32 /dev/urandom | base64)

sql() { psql -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U postgres "$@"; }
sql -d postgres -c "DROP DATABASE IF EXISTS ${DB} WITH (FORCE)" -c "CREATE DATABASE ${DB}"
"$BIN" migrate 2>"$WORK/migrate.log"
"$BIN" serve 2>"$WORK/serve.log" &
SERVE=$!
cleanup() {
  kill -TERM "$SERVE" 2>/dev/null && wait "$SERVE" 2>/dev/null || true
  "$BIN" bench --cleanup >/dev/null 2>&1 || true
  sql -d postgres -c "DROP DATABASE IF EXISTS ${DB} WITH (FORCE)" || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# seed FROM TO: the jobs FROM+1..TO, four events each (queued, started, completed / failed /
# cancelled, and the payment), created over the last 365 days.
seed() {
  sql -d "$DB" -v lo="$1" -v hi="$2" -v tenants="$TENANTS" <<'SQL'
BEGIN;
-- Version-4 ids (the API's uuid format), derived from a name so that each size extends the last.
CREATE FUNCTION pg_temp.id(name text) RETURNS uuid LANGUAGE sql IMMUTABLE AS
$$ SELECT (substr(md5(name), 1, 12) || '4' || substr(md5(name), 14, 3) || '8' || substr(md5(name), 18, 15))::uuid $$;
CREATE TEMP TABLE seed_jobs ON COMMIT DROP AS
SELECT k,
       pg_temp.id('job-' || k) AS job_id,
       pg_temp.id('tenant-' || (k % :tenants)) AS tenant_id,
       pg_temp.id('user-' || (k % 5000)) AS user_id,
       CASE (k / :tenants) % 20 WHEN 0 THEN 'failed' WHEN 1 THEN 'cancelled' ELSE 'completed' END AS state,
       date_trunc('second', now()) - ((k::bigint * 7919) % 31536000) * interval '1 second' AS t
FROM generate_series(:lo + 1, :hi) AS k;

INSERT INTO render_jobs (job_id, tenant_id, user_id, state, state_rank, step, progress, saved_project_id,
    priority_queue, price_type, paid_price_minor, region, resolution, duration_sec, node_ids, node_ids_src,
    current_frame, total_frames, refund_required, export_id, output_url, output_duration_sec, output_size_bytes,
    render_compute_seconds, failed_at_step, cancelled_at_step, error_message, terminal_event_id,
    created_at, queued_at, started_at, finished_at, updated_at)
SELECT job_id, tenant_id, user_id, state, 3, CASE state WHEN 'completed' THEN 'uploading' ELSE 'rendering' END,
       CASE state WHEN 'completed' THEN 100 ELSE 40 END, pg_temp.id('project-' || (k % 20000)),
       'paid', 'plan', 0, 'eu', '1080p', 30, ARRAY[pg_temp.id('node-' || (k % 40))], 2,
       720, 900, CASE WHEN state <> 'completed' THEN true END,
       CASE state WHEN 'completed' THEN pg_temp.id('export-' || k) END,
       CASE state WHEN 'completed' THEN 's3://renders/' || job_id || '.mp4' END,
       CASE state WHEN 'completed' THEN 30 END, CASE state WHEN 'completed' THEN 52428800 END,
       CASE state WHEN 'completed' THEN 95 END,
       CASE state WHEN 'failed' THEN 'rendering' END, CASE state WHEN 'cancelled' THEN 'rendering' END,
       CASE state WHEN 'failed' THEN 'node lost' END, pg_temp.id('event-' || k || '-3'),
       t, t, t + interval '5 seconds', t + interval '100 seconds', t + interval '100 seconds'
FROM seed_jobs;

INSERT INTO render_job_events (job_id, event_id, event_type, event_time, received_at, applied, data)
SELECT j.job_id, pg_temp.id('event-' || j.k || '-' || e.n), e.type, j.t + e.after, j.t + e.after, true,
       jsonb_build_object('render_job_id', j.job_id, 'saved_project_id', pg_temp.id('project-' || (j.k % 20000)),
                          'region', 'eu', 'priority_queue', 'paid', 'price_type', 'plan')
FROM seed_jobs j
CROSS JOIN LATERAL (VALUES
    (1, 'render.job.queued.v1', interval '0'),
    (2, 'render.job.started.v1', interval '5 seconds'),
    (3, 'render.job.' || j.state || '.v1', interval '100 seconds')) AS e(n, type, after);

INSERT INTO bus_inbox (consumer, event_id, handled_at)
SELECT 'renderevents', pg_temp.id('event-' || k || '-' || n), t
FROM seed_jobs, generate_series(1, 4) AS n;

INSERT INTO usage_periods AS u (tenant_id, period, period_start, jobs_completed, jobs_failed, jobs_cancelled,
    render_compute_seconds, output_seconds, output_bytes, paid_minor_by_price, payments_succeeded,
    payments_succeeded_minor)
SELECT tenant_id, p.period, date_trunc(p.period, t AT TIME ZONE 'UTC')::date,
       count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'failed'),
       count(*) FILTER (WHERE state = 'cancelled'), 95 * count(*) FILTER (WHERE state = 'completed'),
       30 * count(*) FILTER (WHERE state = 'completed'), 52428800 * count(*) FILTER (WHERE state = 'completed'),
       jsonb_build_object('plan', 0), count(*), 0
FROM seed_jobs CROSS JOIN (VALUES ('day'), ('month')) AS p(period)
GROUP BY 1, 2, 3
ON CONFLICT (period, period_start, tenant_id) DO UPDATE SET
    jobs_completed = u.jobs_completed + excluded.jobs_completed,
    jobs_failed = u.jobs_failed + excluded.jobs_failed,
    jobs_cancelled = u.jobs_cancelled + excluded.jobs_cancelled,
    render_compute_seconds = u.render_compute_seconds + excluded.render_compute_seconds,
    output_seconds = u.output_seconds + excluded.output_seconds,
    output_bytes = u.output_bytes + excluded.output_bytes,
    payments_succeeded = u.payments_succeeded + excluded.payments_succeeded;
COMMIT;
VACUUM ANALYZE render_jobs, render_job_events, bus_inbox, usage_periods;
SQL
}

for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:${PORT}/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fsS "http://127.0.0.1:${PORT}/readyz" >/dev/null || { cat "$WORK/serve.log" >&2; die "the service did not become ready"; }

echo "### renderevents: reads against the size of the read model"
echo
echo "Run $(date -u +%Y-%m-%dT%H:%MZ); a tenant's requests (one of ${TENANTS} tenants, each with a tenth of the"
echo "jobs), concurrency 32 for ${DURATION} each; buffers and plan of EXPLAIN (ANALYZE, BUFFERS) of each statement."
echo
echo "| events | request | req/s | p50 ms | p99 ms | errors | buffers | plan |"
echo "|---:|---|---:|---:|---:|---:|---|---|"
done_jobs=0
for events in $SIZES; do
  jobs=$((events / 4))
  began=$(date +%s)
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  seed "$done_jobs" "$jobs" >"$WORK/seed.log" 2>&1 || { cat "$WORK/seed.log" >&2; die "seeding failed"; }
  done_jobs=$jobs
  log "seeded ${events} events in $(($(date +%s) - began)) s (load average ${load_before} -> $(cut -d' ' -f1-3 /proc/loadavg))"
  "$BIN" bench-reads --api "http://127.0.0.1:${PORT}" --tenant "$TENANT" --label "$events" \
    --duration "$DURATION" --plans "$WORK/plans.md"
  log "measured ${events} events (load average $(cut -d' ' -f1-3 /proc/loadavg))"
done
echo
echo "<details><summary>Plans</summary>"
echo
cat "$WORK/plans.md"
echo "</details>"
