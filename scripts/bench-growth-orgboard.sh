#!/usr/bin/env bash
# The orgboard part of make bench-growth (scripts/bench-growth.sh): the board and the move of
# make bench-orgboard in an organization of 5,000, 50,000 and 500,000 work items, always 250 per
# team (the measured boards keep their 250 items; the rest are in other teams). Per size it
# loads GET /api/orgboard/board (20 boards in turn) and PATCH /api/orgboard/tasks/{id}/move at
# concurrency 32 through bin/orgboard bench, and reads what load does not move: the board
# query's plan and the shared buffers it touches (EXPLAIN (ANALYZE, BUFFERS)). Items are seeded
# with COPY (seed --bench), the teams' rows interleaved as they arrive in life. Prints a
# markdown table on stdout (about 2.5 minutes with the defaults). Knobs: BENCH_GROWTH_SIZES ("5000 50000 500000"), BENCH_DURATION
# (10s per request and size), BENCH_CONCURRENCY (32), BENCH_DB_CONNS (16), BENCH_DB
# (orgboard_growth, dropped at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_postgres
command -v jq >/dev/null || die "jq is needed (apt-get install jq)"
[[ -x bin/orgboard ]] || die "bin/orgboard is missing: run make build"

sizes=${BENCH_GROWTH_SIZES:-5000 50000 500000}
duration=${BENCH_DURATION:-10s}
concurrency=${BENCH_CONCURRENCY:-32}
conns=${BENCH_DB_CONNS:-16}
per_team=250
boards=20
db=${BENCH_DB:-orgboard_growth}
admin="postgres://postgres@$PG_HOST:$PG_PORT/postgres?sslmode=disable"
dburl="postgres://postgres@$PG_HOST:$PG_PORT/$db?sslmode=disable"
export DATABASE_URL="$dburl"
export JWT_HS256_SECRET=${JWT_HS256_SECRET:-bench-secret-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}
export LOG_LEVEL=warn
export SEAL_KEYS=bench:$(head -c 32 /dev/urandom | base64)

tmp=$(mktemp -d)
pid=
cleanup() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null
  wait 2>/dev/null
  psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# plan prints the board query's plan shape (its nodes, outermost first), the shared buffers of
# its top node (hit + read, and how many were read) and its execution time, for team $1.
plan() {
  psql "$dburl" -XAtq -c "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
    SELECT id, organization_id, team_id, type, title, description, status, assignee_user_id,
           assignee_seat_id, parent_id, created_by, created_at, updated_at
    FROM work_items WHERE team_id = '$1' ORDER BY created_at, id" |
    jq -r '.[0] as $p | [$p.Plan | .. | objects | select(has("Node Type")) |
      .["Node Type"] + (if .["Index Name"] then " on " + .["Index Name"] else "" end)] | join(" > ") as $shape |
      "\($shape) | \($p.Plan["Shared Hit Blocks"] + $p.Plan["Shared Read Blocks"]) (\($p.Plan["Shared Read Blocks"]) read) | \($p["Execution Time"] * 100 | round / 100)"'
}

echo "| work items in the organization (teams), seed s | board req/s | p50 ms | p99 ms | move req/s | p50 ms | p99 ms | board query plan | shared buffers | execution ms | load average start, end |"
echo "|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|"
for items in $sizes; do
  teams=$(( (items + per_team - 1) / per_team ))
  load_start=$(cut -d' ' -f1 /proc/loadavg)
  log "growth: $items work items across $teams teams (load average $load_start)"
  psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
  bin/orgboard migrate 2>"$tmp/migrate.log" || { cat "$tmp/migrate.log" >&2; die "migrate failed"; }
  seed_start=$SECONDS
  info=$(bin/orgboard seed --bench --teams "$teams" --items "$items")
  seed_s=$((SECONDS - seed_start))
  member=$(jq -r .member_id <<<"$info")
  measured=$(jq -r --argjson n "$boards" '.team_ids[:$n] | join(",")' <<<"$info")
  psql "$dburl" -qc "VACUUM ANALYZE" >/dev/null

  port=$(free_port 18092)
  HTTP_ADDR=127.0.0.1:$port METRICS_ADDR=127.0.0.1:0 DB_MAX_CONNS=$conns bin/orgboard serve 2>"$tmp/serve.log" &
  pid=$!
  wait_port 127.0.0.1 "$port" 30 || { cat "$tmp/serve.log" >&2; die "bin/orgboard serve did not start"; }
  for s in board move; do
    bin/orgboard bench --url "http://127.0.0.1:$port" --scenario "$s" --teams "$measured" --user "$member" \
      --concurrency "$concurrency" --duration "$duration" >"$tmp/$s.json"
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=

  # The plan of a warm board (the load just read it), as a request sees it.
  shape=$(plan "${measured%%,*}")
  row() { jq -r 'def r: . * 100 | round / 100; "\(.rps | floor) | \(.p50_ms | r) | \(.p99_ms | r)"' "$1"; }
  echo "| $items ($teams), $seed_s | $(row "$tmp/board.json") | $(row "$tmp/move.json") | $shape | $load_start, $(cut -d' ' -f1 /proc/loadavg) |"
done
