#!/usr/bin/env bash
# make bench-webhooks: signed webhook delivery by the render-events service beside a bare loop
# of signed POSTs (the ceiling), for BENCH_DELIVERIES (10,000) deliveries to one endpoint and
# to 100 endpoints (100 each), live (events entering as the service consumes them) and as a
# backlog the dispatcher drains. The service (bin/renderevents serve, the real
# dispatcher on a fresh database, events arriving through RabbitMQ) and the load generator
# (bin/renderevents bench-webhooks, which also runs the receivers: one loopback HTTP server per
# endpoint, answering 200 at once and checking every signature) are two processes. The figures
# replace the "## webhooks" section of BENCHMARKS.md. Knobs: BENCH_DB (renderevents_bench_webhooks),
# BENCH_BIN (bin/renderevents: the service; the load generator is always bin/renderevents, so two
# builds of the service can be compared with the same one), WEBHOOK_WORKERS (8). Bounded: a run takes about a minute (each phase
# gives up after 2 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_postgres
ensure_rabbitmq
BIN=bin/renderevents
[[ -x $BIN ]] || go build -o "$BIN" ./services/renderevents/cmd/renderevents
SERVICE_BIN=${BENCH_BIN:-$BIN}

DELIVERIES=${BENCH_DELIVERIES:-10000}
ENDPOINTS=${BENCH_ENDPOINTS:-1,100}
DB=${BENCH_DB:-renderevents_bench_webhooks}
SUFFIX=bench-webhooks-$$
PORT=$(free_port 18084)
WORK=$(mktemp -d)

renderevents_bench_env "$DB" "$SUFFIX" "$PORT"
export OUTBOUND_ALLOW_CIDRS=127.0.0.0/8 # the receivers are on loopback
export WEBHOOK_WORKERS=${WEBHOOK_WORKERS:-8}

psql -q -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -c "DROP DATABASE IF EXISTS ${DB} WITH (FORCE)" -c "CREATE DATABASE ${DB}"
"$SERVICE_BIN" migrate 2>"$WORK/migrate.log"

"$SERVICE_BIN" serve 2>"$WORK/serve.log" &
SERVE=$!
cleanup() {
  kill -TERM "$SERVE" 2>/dev/null && wait "$SERVE" 2>/dev/null || true
  "$BIN" bench-webhooks --cleanup >/dev/null 2>&1 || true
  psql -q -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -c "DROP DATABASE IF EXISTS ${DB} WITH (FORCE)" || true
  rm -rf "$WORK"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:${PORT}/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fsS "http://127.0.0.1:${PORT}/readyz" >/dev/null || { cat "$WORK/serve.log" >&2; die "the service did not become ready"; }

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "load generator: ${DELIVERIES} deliveries to ${ENDPOINTS} endpoints, ${WEBHOOK_WORKERS} workers (load average ${LOAD_BEFORE})"
"$BIN" bench-webhooks --deliveries "$DELIVERIES" --endpoints "$ENDPOINTS" --api "http://127.0.0.1:${PORT}" \
  --service-pid "$SERVE" | tee "$WORK/bench.out"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
if grep -q '"level":"ERROR"' "$WORK/serve.log"; then
  grep '"level":"ERROR"' "$WORK/serve.log" | head -5 >&2
  die "the service logged errors during the run"
fi

SECTION="$WORK/section.md"
{
  echo "## webhooks"
  echo "Run $(date -u +%Y-%m-%dT%H:%MZ) with \`make bench-webhooks\` (scripts/bench-webhooks.sh): \`renderevents serve\` (the"
  echo "dispatcher with WEBHOOK_WORKERS=${WEBHOOK_WORKERS}, fresh database, events published to RabbitMQ and consumed by the"
  echo "service) and the load generator \`renderevents bench-webhooks\` as two processes on loopback. The receivers"
  echo "are HTTP servers inside the load generator, one per endpoint, answering 200 at once; they check every"
  echo "signature and timestamp and refuse duplicates, and the service must record each delivery as"
  echo "succeeded after one attempt. The ceiling is a bare loop of signed POSTs of the same bodies to the"
  echo "same receivers with ${WEBHOOK_WORKERS} goroutines on one keep-alive client, in the same run (2 cores shared with"
  echo "other work: load average ${LOAD_BEFORE} at the start, ${LOAD_AFTER} at the end)."
  echo
  echo "- live: events published while the service consumes them, timed from the first publish to the last"
  echo "  receipt, lag from each event's event_time to its receipt (ingestion and dispatch together);"
  echo "- backlog: the receivers hold the first requests until every delivery is queued, then the"
  echo "  dispatcher drains the backlog, timed and lagged from the release (dispatch alone);"
  echo "- CPU: user + system time per delivery over the phase: the service process's (live: ingestion"
  echo "  and dispatch; backlog: dispatch alone), its PostgreSQL backends' (pg), and the load generator's"
  echo "  in the bare loop (its client and the receivers together)."
  echo
  echo "| shape | live deliveries/s | lag p50 | lag p99 | deliveries queued/s | service CPU | pg CPU | backlog deliveries/s | p50 | p99 | service CPU | pg CPU | bare loop POSTs/s | p50 | p99 | client + receivers CPU | ratio live | ratio backlog (goal >= 0.5) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  grep '^RESULT ' "$WORK/bench.out" | sed 's/^RESULT //' | while read -r line; do
    get() { tr ' ' '\n' <<<"$line" | sed -n "s/^$1=//p"; }
    echo "| $(get deliveries) to $(get endpoints) endpoint(s) | $(get live) | $(get lag_p50) | $(get lag_p99) | $(get queued) | $(get live_cpu) | $(get live_pg_cpu) | $(get backlog) | $(get backlog_p50) | $(get backlog_p99) | $(get backlog_cpu) | $(get backlog_pg_cpu) | $(get ceiling) | $(get ceiling_p50) | $(get ceiling_p99) | $(get ceiling_cpu) | $(get live_ratio) | $(get backlog_ratio) |"
  done
  echo
} >"$SECTION"
cat "$SECTION"

bench_section webhooks "$SECTION"
