#!/usr/bin/env bash
# make bench-renderevents: 100,000 events through the render-events service beside a bare
# amqp091 consume-and-ack loop on the same broker (the ceiling), then progress-relay latency
# to 100 SSE subscribers. The service (bin/renderevents serve) and the load generator
# (bin/renderevents bench) run as two processes on loopback, on a fresh database and their
# own exchanges and queues. The figures replace the "## renderevents" section of
# BENCHMARKS.md. Bounded: a run takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_postgres
ensure_rabbitmq
BIN=bin/renderevents
[[ -x $BIN ]] || go build -o "$BIN" ./services/renderevents/cmd/renderevents

EVENTS=${BENCH_EVENTS:-100000}
SUBSCRIBERS=${BENCH_SUBSCRIBERS:-100}
DB=renderevents_bench
SUFFIX=bench-$$
PORT=$(free_port 18083)
WORK=$(mktemp -d)

export DATABASE_URL="postgres://postgres@${PG_HOST}:${PG_PORT}/${DB}?sslmode=disable"
export AMQP_URL=${AMQP_URL:-amqp://guest:guest@127.0.0.1:${AMQP_PORT}/}
export BUS_SERVICE="renderevents-${SUFFIX}"
export EVENTS_EXCHANGE="events-${SUFFIX}"
export PROGRESS_EXCHANGE="render.progress-${SUFFIX}"
export DEAD_LETTER_EXCHANGE="dead-letter-${SUFFIX}"
export JWT_HS256_SECRET="bench-secret-bench-secret-bench-secret!"
export HTTP_ADDR="127.0.0.1:${PORT}" METRICS_ADDR=127.0.0.1:0
export LOG_LEVEL=warn
export SEAL_KEYS=bench:$(head -c 32 /dev/urandom | base64)

psql -q -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -c "DROP DATABASE IF EXISTS ${DB} WITH (FORCE)" -c "CREATE DATABASE ${DB}"
"$BIN" migrate 2>"$WORK/migrate.log"

"$BIN" serve 2>"$WORK/serve.log" &
SERVE=$!
cleanup() {
  kill -TERM "$SERVE" 2>/dev/null && wait "$SERVE" 2>/dev/null || true
  "$BIN" bench --cleanup >/dev/null 2>&1 || true
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
log "load generator: ${EVENTS} events, ${SUBSCRIBERS} SSE subscribers (load average ${LOAD_BEFORE})"
"$BIN" bench --events "$EVENTS" --subscribers "$SUBSCRIBERS" --api "http://127.0.0.1:${PORT}" | tee "$WORK/bench.out"
RESULT=$(grep '^RESULT ' "$WORK/bench.out" | sed 's/^RESULT //')
get() { tr ' ' '\n' <<<"$RESULT" | sed -n "s/^$1=//p"; }

SECTION="$WORK/section.md"
{
  echo "## renderevents"
  echo "Run $(date -u +%Y-%m-%dT%H:%MZ) with \`make bench-renderevents\` (scripts/bench-renderevents.sh): \`renderevents serve\` and the"
  echo "load generator \`renderevents bench\` as two processes on loopback, fresh database, RabbitMQ 3 on the same machine"
  echo "(2 cores shared with other work: load average ${LOAD_BEFORE} at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end)."
  echo
  echo "| measure | figure |"
  echo "|---|---|"
  echo "| events published (payments, queued, started, completed/failed/cancelled, refunds, snapshots; 50 tenants) | $(get events) |"
  echo "| ceiling: bare amqp091 consume-and-ack loop, same broker, same messages, same prefetch | $(get ceiling) msg/s |"
  echo "| service: publish -> committed read model (inbox, job, timeline, usage in one transaction per batch) | $(get service) events/s |"
  echo "| ratio service / ceiling (goal >= 0.5) | $(get ratio) |"
  echo "| publishing alone (confirms, 1000 in flight) | $(get publish) msg/s |"
  echo "| progress relay, publish -> SSE frame, $(get subscribers) subscribers on 10 jobs ($(get frames) frames) | p50 $(get p50), p99 $(get p99), max $(get max) |"
  echo "| streams ended by the terminal event | $(get ended)/$(get subscribers) |"
  echo
  echo "Both rates run from the first publish to the last message handled, so both include publishing"
  echo "(persistent messages with publisher confirms). The service acknowledges per batch (up to"
  echo "CONSUMER_BATCH_SIZE=256 deliveries in one transaction, prefetch 1024); the ceiling acknowledges each"
  echo "message and does no work."
  echo
} >"$SECTION"

python3 - "$SECTION" <<'PY'
import re, sys
section = open(sys.argv[1]).read()
path = "BENCHMARKS.md"
text = open(path).read()
pattern = re.compile(r"^## renderevents\n.*?(?=^## |\Z)", re.S | re.M)
text = pattern.sub(lambda _: section, text, count=1) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
open(path, "w").write(text)
PY
log "figures written to the renderevents section of BENCHMARKS.md"
