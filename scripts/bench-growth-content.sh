#!/usr/bin/env bash
# The catalog search of make bench-content (GET /v1/templates?q=wedding&tag_ids=<tag>&sort=popular)
# at 10,000, 100,000 and 1,000,000 templates: per size, a fresh database seeded by
# `content seed --bench N` (COPY, indexes built after the load), bin/content serve, and
# `content bench --explain` (concurrency 32, pgbench on the same SQL as the ceiling, and the
# statement's EXPLAIN (ANALYZE, BUFFERS): its plan and the shared buffers of the page and of
# the total, the per-request cost that the load on the machine does not move). Prints a
# markdown table on stdout. Called by scripts/bench-growth.sh; needs bin/content (make build).
# Knobs: BENCH_GROWTH_SIZES ("10000 100000 1000000"), BENCH_DURATION (10s), BENCH_CONCURRENCY
# (32), BENCH_DB (content_growth).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_postgres
ensure_rabbitmq
command -v pgbench >/dev/null || die "pgbench is needed (apt-get install postgresql-client)"
[[ -x bin/content ]] || die "bin/content is missing: run make build"

db=${BENCH_DB:-content_growth}
sizes=${BENCH_GROWTH_SIZES:-10000 100000 1000000}
duration=${BENCH_DURATION:-10s}
concurrency=${BENCH_CONCURRENCY:-32}
admin="postgres://postgres@$PG_HOST:$PG_PORT/postgres?sslmode=disable"
export DATABASE_URL="postgres://postgres@$PG_HOST:$PG_PORT/$db?sslmode=disable"
export JWT_HS256_SECRET=${JWT_HS256_SECRET:-bench-secret-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}
export LOG_LEVEL=warn

tmp=$(mktemp -d)
pid=
cleanup() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null
  [[ -n ${S3_PID:-} ]] && kill "$S3_PID" 2>/dev/null
  wait 2>/dev/null
  psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
start_s3 "$tmp/s3"

rows=()
for n in $sizes; do
  log "growth: $n templates (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
  bin/content migrate 2>/dev/null
  start=$(date +%s.%N)
  info=$(bin/content seed --bench "$n")
  seeded=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  tag=$(jq -r .tag_id <<<"$info")
  q=$(jq -r .q <<<"$info")
  matches=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM containers WHERE is_published AND deleted_at IS NULL
    AND search @@ websearch_to_tsquery('english', '$q') AND tag_ids @> ARRAY['$tag']::uuid[]")
  log "seeded in $seeded s; $matches templates match"

  port=$(free_port 18091)
  HTTP_ADDR=127.0.0.1:$port METRICS_ADDR=127.0.0.1:0 DB_MAX_CONNS=32 BUS_SERVICE=content-growth bin/content serve &
  pid=$!
  wait_port 127.0.0.1 "$port" 30 || die "bin/content serve did not start"
  load_start=$(cut -d' ' -f1 /proc/loadavg)
  bin/content bench --url "http://127.0.0.1:$port" --scenario templates --q "$q" --tag "$tag" --explain \
    --concurrency "$concurrency" --duration "$duration" --warmup 2s >"$tmp/$n.json"
  load_end=$(cut -d' ' -f1 /proc/loadavg)
  kill "$pid" && wait "$pid" 2>/dev/null || true
  pid=

  rows+=("$(jq -r --arg n "$n" --arg seeded "$seeded" --arg matches "$matches" --arg load "$load_start -> $load_end" '
    (.plans[0]) as $p | ($p.subplans // [] | map(select(.name | startswith("InitPlan"))) | .[0]) as $total |
    "| \($n) | \($seeded) | \($matches) | \(.service.rps|floor) | \(.service.p50_ns/1e6*100|round/100) | \(.service.p99_ns/1e6*100|round/100) | \(.pgbench.rps|floor) | \(.ratio*100|round/100) | \($p.buffers - ($total.buffers // 0)) | \($total.buffers // "-") | \($p.time_ms*100|round/100) | \($load) |"' "$tmp/$n.json")")
  plans+=("$(jq -r --arg n "$n" '.plans[0] as $p | "- \($n): page `\($p.shape)`" + ($p.subplans // [] | map("; \(.name): `\(.shape)`") | join(""))' "$tmp/$n.json")")
done

echo "| templates | seed s | matching | service req/s | p50 ms | p99 ms | pgbench tx/s | ratio | page buffers | total buffers | SQL ms (EXPLAIN ANALYZE) | load average |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
printf '%s\n' "${rows[@]}"
echo
echo "Plans (EXPLAIN ANALYZE, shared buffers hit or read per request):"
printf '%s\n' "${plans[@]}"
