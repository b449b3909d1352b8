#!/usr/bin/env bash
# make bench-renderevents: the drain of a backlog of 100,000 events by the render-events
# service beside a bare amqp091 consume-and-ack drain of the same messages (the ceiling),
# then progress-relay latency to 1,000 SSE subscribers: with each round's ticks of the ten
# watched jobs published at once (a thousand frames leaving together), then spread over the
# round's interval one job at a time (a hundred at once). The load generator
# (bin/renderevents bench) publishes each backlog before its consumer starts, then starts
# the service (bin/renderevents serve) itself, so that the drain is timed from the process
# start; both run on loopback, on a fresh database and their own exchanges and queues. The
# figures replace the "## renderevents" section of BENCHMARKS.md. Bounded: a run takes
# one to two minutes. Knobs: BENCH_DB (renderevents_bench), BENCH_EVENTS (100000),
# BENCH_SERVE_BIN (the executable whose serve command is measured, e.g. another build to
# compare; default bin/renderevents itself).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_postgres
ensure_rabbitmq
BIN=bin/renderevents
[[ -x $BIN ]] || go build -o "$BIN" ./services/renderevents/cmd/renderevents

EVENTS=${BENCH_EVENTS:-100000}
SUBSCRIBERS=${BENCH_SUBSCRIBERS:-1000}
PHASES=${BENCH_PHASES:-ceiling,drain,relay,relay-spread}
TICK_INTERVAL=${BENCH_TICK_INTERVAL:-100ms}
DB=${BENCH_DB:-renderevents_bench}
SUFFIX=bench-$$
PORT=$(free_port 18083)
WORK=$(mktemp -d)

renderevents_bench_env "$DB" "$SUFFIX" "$PORT"
# Each SSE subscriber is a connection: one descriptor in the load generator, one in the
# service (Go raises the soft limit to the hard one itself; this says so for any shell).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
(( $(ulimit -n) > 2 * SUBSCRIBERS + 256 )) || die "ulimit -n is $(ulimit -n): ${SUBSCRIBERS} subscribers need more descriptors"

psql -q -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -c "DROP DATABASE IF EXISTS ${DB} WITH (FORCE)" -c "CREATE DATABASE ${DB}"
"$BIN" migrate 2>"$WORK/migrate.log"

cleanup() {
  local pid
  pid=$(cat "$WORK/serve.pid" 2>/dev/null || true)
  [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null || true
  "$BIN" bench --cleanup >/dev/null 2>&1 || true
  psql -q -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -c "DROP DATABASE IF EXISTS ${DB} WITH (FORCE)" || true
  rm -rf "$WORK"
}
trap cleanup EXIT

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "load generator: ${EVENTS} events, ${SUBSCRIBERS} SSE subscribers (load average ${LOAD_BEFORE})"
"$BIN" bench --phases "$PHASES" --events "$EVENTS" --subscribers "$SUBSCRIBERS" --tick-interval "$TICK_INTERVAL" --api "http://127.0.0.1:${PORT}" \
  --serve-log "$WORK/serve.log" --serve-pidfile "$WORK/serve.pid" --serve-binary "${BENCH_SERVE_BIN:-}" | tee "$WORK/bench.out" ||
  { tail -20 "$WORK/serve.log" >&2; die "the benchmark failed"; }
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
RESULT=$(grep '^RESULT ' "$WORK/bench.out" | sed 's/^RESULT //')
get() { tr ' ' '\n' <<<"$RESULT" | sed -n "s/^$1=//p"; }

SECTION="$WORK/section.md"
{
  echo "## renderevents"
  echo "Run $(date -u +%Y-%m-%dT%H:%MZ) with \`make bench-renderevents\` (scripts/bench-renderevents.sh): the load generator"
  echo "\`renderevents bench\` and the service it starts (\`renderevents serve\`) as two processes on loopback, fresh"
  echo "database, RabbitMQ on the same machine (load average ${LOAD_BEFORE} at the start, ${LOAD_AFTER} at the end)."
  echo
  echo "| measure | figure |"
  echo "|---|---|"
  echo "| backlog (payments, queued, started, completed/failed/cancelled, refunds, snapshots; 50 tenants), published before its consumer starts | $(get events) events |"
  echo "| ceiling: bare amqp091 drain of the same messages in its own queue, same prefetch, one ack per message, connected as the service is (bus.Dial), from dial to last ack | $(get ceiling) msg/s |"
  echo "| service: drain from process start to the last event visible in the API (inbox, job, timeline, usage; a batch applied in one transaction per group of tenants, two at once) | $(get service) events/s |"
  echo "| ratio service / ceiling (goal >= 0.8) | $(get ratio) |"
  echo "| CPU per message during the ceiling (user + system, dial to last ack): bare consumer; RabbitMQ | $(get cpu_bare); $(get cpu_bare_broker) |"
  echo "| CPU per event during the drain (user + system, process start to the end): service; its PostgreSQL backends; RabbitMQ | $(get cpu_service); $(get cpu_postgres); $(get cpu_broker) |"
  echo "| ratio by CPU: the ceiling's consumer and RabbitMQ / the service, its PostgreSQL and RabbitMQ | $(get ratio_cpu) |"
  echo "| the most the ratio by CPU could be if the service process cost nothing (its PostgreSQL and RabbitMQ work unchanged) | $(get bound_cpu) |"
  echo "| progress relay, publish -> SSE frame, $(get subscribers) subscribers on 10 jobs, each round's 10 ticks published at once | p50 $(get p50), p99 $(get p99), max $(get max) |"
  echo "| progress frames received / published to the subscribers' jobs | $(get frames)/$(get expected) |"
  echo "| the same, each round's ticks published one job at a time, evenly over the round (independent jobs' ticks do not coincide) | p50 $(get spread_p50), p99 $(get spread_p99), max $(get spread_max); frames $(get spread_frames)/$(get spread_expected) |"
  echo "| streams ended by the terminal event, at once; spread | $(get ended)/$(get subscribers); $(get spread_ended)/$(get subscribers) |"
  echo
  echo "Both backlogs are published (persistent, with publisher confirms, at $(get publish) msg/s) before their"
  echo "consumer starts. The service's figure includes its start (connections, declarations) and ends when"
  echo "GET /v1/render-jobs/{id} shows a sentinel job, published behind the backlog, completed and the inbox"
  echo "holds every event of the backlog (exactly once); the dead-letter queue holds none."
  echo
} >"$SECTION"
cat "$SECTION"

bench_section renderevents "$SECTION"
