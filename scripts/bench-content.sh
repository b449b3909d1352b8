#!/usr/bin/env bash
# make bench-content: seeds a dedicated database with 10,000 templates (30,000 projects) and one
# project of 40 scenes x 25 elements, starts bin/content serve on loopback, and loads
#   GET /v1/templates?q=wedding&tag_ids=<tag>&sort=popular   and   GET /v1/projects/<id>/full
# from a second process (bin/content bench) at concurrency 32; each run is set beside the same
# SQL run by pgbench (sent as the service sends it: -M prepared, or -M extended for a statement the
# service plans at every execution; same concurrency and duration) as the ceiling, the two sides
# alternating in 4 rounds so that both see the same minutes of the machine.
# Knobs: BENCH_DB (content_bench), BENCH_TEMPLATES (10000), BENCH_DURATION (20s),
# BENCH_CONCURRENCY (32), BENCH_DB_CONNS (service pool size, 32).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_postgres
ensure_rabbitmq
command -v pgbench >/dev/null || die "pgbench is needed (apt-get install postgresql-client)"
[[ -x bin/content ]] || die "bin/content is missing: run make build (make bench-content does)"

db=${BENCH_DB:-content_bench}
templates=${BENCH_TEMPLATES:-10000}
duration=${BENCH_DURATION:-20s}
concurrency=${BENCH_CONCURRENCY:-32}
admin="postgres://postgres@$PG_HOST:$PG_PORT/postgres?sslmode=disable"
export DATABASE_URL="postgres://postgres@$PG_HOST:$PG_PORT/$db?sslmode=disable"
export JWT_HS256_SECRET=${JWT_HS256_SECRET:-bench-secret-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}
export LOG_LEVEL=warn

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
log "recreating database $db (load average $load_start)"
psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
bin/content migrate 2>/dev/null
log "seeding $templates templates x 3 projects and a project of 40 scenes x 25 elements"
start=$(date +%s.%N)
info=$(bin/content seed --bench "$templates")
log "seeded in $(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)") s: $info"
project=$(jq -r .project_id <<<"$info")
tag=$(jq -r .tag_id <<<"$info")
q=$(jq -r .q <<<"$info")

# The service also runs its media pipeline, which needs object storage: a MinIO of its own.
tmp=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; [[ -n ${MINIO_PID:-} ]] && kill "$MINIO_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
start_minio "$tmp/minio"
port=$(free_port 18081)
HTTP_ADDR=127.0.0.1:$port METRICS_ADDR=127.0.0.1:0 DB_MAX_CONNS=${BENCH_DB_CONNS:-32} BUS_SERVICE=content-bench bin/content serve &
pid=$!
wait_port 127.0.0.1 "$port" 30 || die "bin/content serve did not start"

out=$tmp
bin/content bench --url "http://127.0.0.1:$port" --scenario templates --q "$q" --tag "$tag" \
  --concurrency "$concurrency" --duration "$duration" >"$out/templates.json"
bin/content bench --url "http://127.0.0.1:$port" --scenario full --project "$project" \
  --concurrency "$concurrency" --duration "$duration" >"$out/full.json"

echo
echo "Load average at the start: $load_start; at the end: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)."
echo
echo "| request | service req/s | p50 ms | p99 ms | pgbench tx/s (same SQL) | p50 ms | p99 ms | ratio | ratio per round |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for s in templates full; do
  jq -r '"| \(.scenario) | \(.service.rps|floor) | \(.service.p50_ns/1e6*100|round/100) | \(.service.p99_ns/1e6*100|round/100) | \(.pgbench.rps|floor) | \(.pgbench.p50_ns/1e6*100|round/100) | \(.pgbench.p99_ns/1e6*100|round/100) | \(.ratio*100|round/100) | \([.rounds[].ratio*100|round/100|tostring]|join(", ")) |"' "$out/$s.json"
done
