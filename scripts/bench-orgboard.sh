#!/usr/bin/env bash
# make bench-orgboard: seeds a dedicated database with a board of 5,000 work items across 20
# teams (bin/orgboard seed --bench), serves it on loopback (bin/orgboard serve) and loads
#   GET /api/orgboard/board?team_id=<team>        (the 20 teams in turn; 250 items each)
#   PATCH /api/orgboard/tasks/<id>/move            (in_progress <-> in_review, audited)
# from a second process (bin/orgboard bench) at concurrency 32. Each is set beside the same SQL
# run by pgbench (-M prepared; with 32 clients, as many as the service's pool and 8, the best being
# the ceiling of the ratio), the two sides alternating in rounds so that both see the same
# minutes of the machine: the statements the service runs per request (the
# caller's blocks, then the board's reads; or the move's transaction with its audit entry and
# outbox row; see below). pgbench picks ids through a small lookup table (bench_teams,
# bench_items: an index probe inside each statement).
# Beside the rates it prints CPU per request, which the load of the minute moves much less: the
# service process (for moves until its outbox is empty), its PostgreSQL backends and the load
# generator, against pgbench's process and backends at the service's pool size. Each round of
# moves also loads the move's floor (bin/orgboard bench-floor: a bare net/http and pgx server
# sending the same two pipelines, nothing else), which says how much of the gap to pgbench is
# Go's and HTTP's rather than the service's.
# Knobs: BENCH_DB (orgboard_bench), BENCH_DURATION (20s per side and request, over all rounds),
# BENCH_ROUNDS (4), BENCH_CONCURRENCY (32),
# BENCH_DB_CONNS (the service's pool, DB_MAX_CONNS: 16, the services' default), BENCH_PGBENCH_CLIENTS
# (further client counts of pgbench, 8), BENCH_TEAMS (20), BENCH_ITEMS (5000); the database is
# dropped at the end unless BENCH_KEEP_DB is set.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_postgres
command -v pgbench >/dev/null || die "pgbench is needed (apt-get install postgresql-client)"
command -v jq >/dev/null || die "jq is needed (apt-get install jq)"
[[ -x bin/orgboard ]] || die "bin/orgboard is missing: run make build (make bench-orgboard does)"

db=${BENCH_DB:-orgboard_bench}
duration=${BENCH_DURATION:-20s}
seconds=${duration%s}
rounds=${BENCH_ROUNDS:-4}
round=$((seconds / rounds))
(( round >= 1 )) || die "BENCH_DURATION ($duration) leaves less than a second to each of $rounds rounds"
concurrency=${BENCH_CONCURRENCY:-32}
conns=${BENCH_DB_CONNS:-16}
# pgbench runs with as many clients as the benchmark's concurrency, as the service's pool and as
# each of BENCH_PGBENCH_CLIENTS; the best is the ceiling.
read -ra clients <<<"$(printf '%s\n' "$concurrency" "$conns" ${BENCH_PGBENCH_CLIENTS:-8} | awk '!seen[$0]++' | tr '\n' ' ')"
teams=${BENCH_TEAMS:-20}
items=${BENCH_ITEMS:-5000}
admin="postgres://postgres@$PG_HOST:$PG_PORT/postgres?sslmode=disable"
dburl="postgres://postgres@$PG_HOST:$PG_PORT/$db?sslmode=disable"
export DATABASE_URL="$dburl"
export JWT_HS256_SECRET=${JWT_HS256_SECRET:-bench-secret-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}
export LOG_LEVEL=warn
export SEAL_KEYS=bench:$(head -c 32 /dev/urandom | base64)

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
tmp_migrate=$(mktemp)
log "recreating database $db (load average $load_start)"
psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
bin/orgboard migrate 2>"$tmp_migrate" || { cat "$tmp_migrate" >&2; die "migrate failed"; }
log "seeding $items work items across $teams teams"
info=$(bin/orgboard seed --bench --teams "$teams" --items "$items")
org=$(jq -r .organization_id <<<"$info")
member=$(jq -r .member_id <<<"$info")
team_ids=$(jq -r '.team_ids | join(",")' <<<"$info")
# Lookup tables for pgbench, which draws integers: n -> team id, n -> item (id, team).
psql "$dburl" -q >/dev/null <<'SQL'
CREATE TABLE bench_teams AS SELECT row_number() OVER (ORDER BY id)::int AS n, id FROM teams;
CREATE UNIQUE INDEX ON bench_teams (n);
CREATE TABLE bench_items AS SELECT row_number() OVER (ORDER BY id)::int AS n, id, team_id FROM work_items;
CREATE UNIQUE INDEX ON bench_items (n);
ANALYZE;
SQL

tmp=$(mktemp -d)
pid= fpid=
cleanup() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null
  [[ -n $fpid ]] && kill "$fpid" 2>/dev/null
  wait 2>/dev/null
  [[ -n ${BENCH_KEEP_DB:-} ]] || psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
port=$(free_port 18082)
HTTP_ADDR=127.0.0.1:$port METRICS_ADDR=127.0.0.1:0 DB_MAX_CONNS=$conns bin/orgboard serve 2>"$tmp/serve.log" &
pid=$!
wait_port 127.0.0.1 "$port" 30 || { cat "$tmp/serve.log" >&2; die "bin/orgboard serve did not start"; }
psql "$dburl" -qc "CREATE TABLE bench_outbox (LIKE watermill_outbox INCLUDING ALL)" >/dev/null
postmaster=$(postmaster_pid "$dburl")
[[ $postmaster =~ ^[0-9]+$ && -r /proc/$postmaster/stat ]] || die "cannot read the PostgreSQL server's CPU (its process: '$postmaster'); pgbench's backends are counted through it"

# The ceiling runs the statements the service runs per request, as captured from the server's
# log (log_statement = all): the caller's blocks (every operation checks them first), the
# board's team with the caller's standing, and its items, in one pipeline (one round trip, as the
# service sends them); a move's transaction: BEGIN, the caller's blocks and the item locked with
# the caller's standing in one pipeline (one round trip, as the service sends them: a
# transaction's BEGIN travels with its first statements, and a change of a task reads the blocks
# with the task), then in one pipeline update, audit insert, the outbox row of its event
# (orgboard.task.moved.v1, an envelope of the same size, into bench_outbox, a table like the
# outbox that the service's forwarder does not read) and COMMIT (a transaction's last writes
# travel with its COMMIT). Not counted: the forwarder's later work on
# that outbox row.
payload=$(jq -cn --arg data "$(head -c 820 /dev/zero | tr '\0' A)" '{destination_topic: "orgboard.task.moved.v1",
  uuid: "01a20c2b-3124-77a7-ab0b-1e19a0f91eaf", payload: $data, metadata: {event_type: "orgboard.task.moved.v1",
  tenant_id: "6ecc34da-7c05-4a22-ae34-66d5336e56d8", traceparent: "00-644ba1bf4cd7ca8a2b21e32da9f1e084-bd51fa6c08baa1ef-01"}}')
tenant=$(cat /proc/sys/kernel/random/uuid)
blocks="SELECT 'user_banned'::text AS cause, reason, event_time AS since, unblock_date AS until FROM user_bans WHERE user_id = :member::uuid UNION ALL SELECT 'tenant_suspended'::text, reason, suspended_at, NULL::timestamptz FROM tenant_suspensions WHERE tenant_id = :tenant::uuid;"
cat >"$tmp/board.sql" <<SQL
\set t random(1, :teams)
\\startpipeline
$blocks
SELECT t.id, t.organization_id, t.product_id, t.name, t.created_at, m.role, EXISTS (SELECT 1 FROM team_leads l WHERE l.team_id = t.id AND l.user_id = m.user_id) AS team_lead, EXISTS (SELECT 1 FROM team_leads l WHERE l.organization_id = m.organization_id AND l.user_id = m.user_id) AS leads_some_team FROM teams t LEFT JOIN memberships m ON m.organization_id = t.organization_id AND m.user_id = :member WHERE t.id = (SELECT id FROM bench_teams WHERE n = :t);
SELECT id, organization_id, team_id, type, title, description, status, assignee_user_id, assignee_seat_id, parent_id, created_by, created_at, updated_at FROM work_items WHERE team_id = (SELECT id FROM bench_teams WHERE n = :t) ORDER BY created_at, id;
\\endpipeline
SQL
cat >"$tmp/move.sql" <<SQL
\set i random(1, :items)
\\startpipeline
BEGIN;
$blocks
SELECT w.id, w.organization_id, w.team_id, w.type, w.title, w.description, w.status, w.assignee_user_id, w.assignee_seat_id, w.parent_id, w.created_by, w.created_at, w.updated_at, m.role, EXISTS (SELECT 1 FROM team_leads l WHERE l.team_id = w.team_id AND l.user_id = m.user_id) AS team_lead, EXISTS (SELECT 1 FROM team_leads l WHERE l.organization_id = m.organization_id AND l.user_id = m.user_id) AS leads_some_team FROM work_items w LEFT JOIN memberships m ON m.organization_id = w.organization_id AND m.user_id = :member WHERE w.id = (SELECT id FROM bench_items WHERE n = :i) FOR UPDATE OF w;
\\endpipeline
\\startpipeline
UPDATE work_items SET status = CASE status WHEN 'in_progress' THEN 'in_review' ELSE 'in_progress' END, updated_at = now() WHERE id = (SELECT id FROM bench_items WHERE n = :i);
INSERT INTO audit_entries (id, organization_id, actor_id, actor_kind, actor_name, action, scope_type, scope_id, target_type, target_id, before, after, at) VALUES (gen_random_uuid(), :org, :member, 'user', NULL, 'task.moved', 'team', (SELECT team_id FROM bench_items WHERE n = :i), 'work_item', (SELECT id FROM bench_items WHERE n = :i), '{"status": "in_progress"}', '{"status": "in_review"}', now());
INSERT INTO bench_outbox (uuid, payload, metadata) VALUES (gen_random_uuid()::text, '$payload', '{}');
END;
\\endpipeline
SQL

# The floor of the move: a bare Go server (net/http, pgx) sending the same two pipelines and
# nothing else (bin/orgboard bench-floor), loaded by the same load generator after the service in
# each round: how far Go and HTTP alone stay from pgbench on this machine.
fport=$(free_port 18083)
DB_MAX_CONNS=$conns bin/orgboard bench-floor --addr "127.0.0.1:$fport" --user "$member" --outbox-payload "$payload" 2>"$tmp/floor.log" &
fpid=$!
wait_port 127.0.0.1 "$fport" 30 || { cat "$tmp/floor.log" >&2; die "bin/orgboard bench-floor did not start"; }

TIMEFORMAT='%U %S'

# service_round S R: one round of the service on request S, with its CPU per request: the
# service process, its PostgreSQL backends and the load generator (bash's time: user + system).
# Each round begins with a second of unmeasured load, every worker at once (the load generator's
# --warmup), as pgbench's first second is not counted; CPU is per request made, the warm-up's
# among them, as pgbench's is per transaction of its whole run.
# A move's events reach the broker through the outbox after their transactions: the service's
# figure is only honest if its forwarder kept up, so the rows still waiting when the load stops
# are counted, and its CPU counts until the outbox is empty.
service_round() {
  local s=$1 r=$2 label=${3:-$1} at=${4:-$port} proc=${5:-$pid}
  local out=$tmp/$label.svc.$r backlog=0 drained left=0
  backend_ticks "$dburl" "" >"$out.pg0"
  local svc0; svc0=$(cpu_ticks "$proc")
  { time bin/orgboard bench --url "http://127.0.0.1:$at" --scenario "$s" --teams "$team_ids" --user "$member" \
    --concurrency "$concurrency" --duration "${round}s" >"$out.json"; } 2>"$out.loadgen"
  if [[ $s == move ]]; then
    backlog=$(psql "$dburl" -Atc "SELECT count(*) FROM watermill_outbox")
    drained=$SECONDS
    while (( $(psql "$dburl" -Atc "SELECT count(*) FROM watermill_outbox") > 0 && SECONDS - drained < 120 )); do sleep 0.2; done
    left=$(psql "$dburl" -Atc "SELECT count(*) FROM watermill_outbox")
  fi
  local svc1; svc1=$(cpu_ticks "$proc")
  backend_ticks "$dburl" "" >"$out.pg1"
  jq --argjson svc "$((svc1 - svc0))" --argjson pg "$(ticks_since "$out.pg0" "$out.pg1")" \
    --arg lg "$(tail -1 "$out.loadgen")" --argjson backlog "$backlog" --argjson left "$left" \
    '. + {svc_ticks: $svc, pg_ticks: $pg, loadgen_s: ($lg | split(" ") | map(tonumber) | add),
          backlog: $backlog, left: $left}' "$out.json" >"$out.cpu.json"
}

# pgbench_round S C R: one round of pgbench on S's SQL with C clients, on connections of its
# own that start cold (new backends load catalog caches and prepare the statements): it runs one
# second longer than the round, and only the transactions that end after that second, and after
# every client's first transaction, are counted. CPU (its process, and its backends as the
# postmaster counts them once they have exited) is per transaction of the whole run.
pgbench_round() {
  local s=$1 c=$2 r=$3 run=$1-c$2-$3 t0 reaped0
  mkdir -p "$tmp/pgb-$run"
  sleep 0.2 # the backends of the script's psql calls just before have ended and been waited for
  reaped0=$(reaped_ticks "$postmaster")
  t0=$(date +%s.%N)
  (cd "$tmp/pgb-$run" && { time pgbench -n -M prepared -c "$c" -j 2 -T "$((round + 1))" -l --log-prefix=tx \
    -D teams="$teams" -D items="$items" -D org="$org" -D member="$member" -D tenant="$tenant" -f "$tmp/$s.sql" "$dburl" >"$tmp/$run.txt" 2>&1; } 2>"$tmp/$run.time") &
  local pgb=$! total
  wait "$pgb" || { cat "$tmp/$run.txt" >&2; die "pgbench failed"; }
  # pgbench's backends have exited with it; the postmaster has their whole CPU once it has
  # waited for them, which it does at once (no other session starts or ends meanwhile).
  sleep 0.3
  total=$(( $(reaped_ticks "$postmaster") - reaped0 ))
  # Log lines: client, transaction, latency (us), script, end (s), end (us).
  cat "$tmp/pgb-$run"/tx.* | awk -v t0="$t0" -v lat="$tmp/$run.lat" '
    { end = $5 + $6 / 1e6; n++; ends[n] = end; lats[n] = $3
      if (!($1 in first) || end < first[$1]) first[$1] = end
      if (end > last) last = end }
    END { cut = t0 + 1; for (k in first) if (first[k] > cut) cut = first[k]
          for (i = 1; i <= n; i++) if (ends[i] > cut) { m++; print lats[i] > lat }
          printf "{\"tx\": %d, \"all\": %d, \"seconds\": %.6f}\n", m, n, last - cut }' >"$tmp/$run.count"
  jq --argjson c "$c" --argjson pg "$total" --arg t "$(tail -1 "$tmp/$run.time")" \
    '. + {clients: $c, pg_ticks: $pg, process_s: ($t | split(" ") | map(tonumber) | add)}' \
    "$tmp/$run.count" >"$tmp/$run.json"
}

# The two sides alternate in rounds (service, then pgbench at each client count, for each
# request), so that both see the same minutes of the machine; the best pgbench is the ceiling of
# the ratio.
for ((r = 1; r <= rounds; r++)); do
  for s in board move; do
    log "round $r/$rounds: $s, service then pgbench (${clients[*]} clients), ${round}s each"
    service_round "$s" "$r"
    [[ $s == move ]] && service_round move "$r" floor "$fport" "$fpid"
    for c in "${clients[@]}"; do pgbench_round "$s" "$c" "$r"; done
  done
done
kill "$pid" "$fpid"; wait "$pid" "$fpid" 2>/dev/null || true; pid= fpid=

# Merged over the rounds: rates are requests over summed seconds; pgbench's percentiles are of
# every counted transaction, the service's the median of its rounds'.
pct() { sort -n "$1" | awk -v q="$2" '{v[NR] = $1} END {print v[int((NR - 1) * q / 100) + 1] / 1000}'; }
for s in board move floor; do
  jq -s '{rps: ((map(.requests) | add) / (map(.seconds) | add)), requests: (map(.requests) | add),
    p50_ms: (map(.p50_ms) | sort | .[length / 2 | floor]), p99_ms: (map(.p99_ms) | sort | .[length / 2 | floor]),
    process_us: ((map(.svc_ticks) | add) * 1e4 / (map(.calls) | add)),
    pg_us: ((map(.pg_ticks) | add) * 1e4 / (map(.calls) | add)),
    loadgen_us: ((map(.loadgen_s) | add) * 1e6 / (map(.calls) | add)),
    backlog: (map(.backlog) | max), left: (map(.left) | max), rounds: map(.rps)}' \
    "$tmp/$s".svc.*.cpu.json >"$tmp/$s.service.json"
  [[ $s == floor ]] && continue
  for c in "${clients[@]}"; do
    cat "$tmp/$s-c$c"-*.lat >"$tmp/$s-c$c.lat"
    jq -s --argjson p50 "$(pct "$tmp/$s-c$c.lat" 50)" --argjson p99 "$(pct "$tmp/$s-c$c.lat" 99)" \
      '{clients: .[0].clients, rps: ((map(.tx) | add) / (map(.seconds) | add)), p50_ms: $p50, p99_ms: $p99,
        process_us: ((map(.process_s) | add) * 1e6 / (map(.all) | add)),
        pg_us: ((map(.pg_ticks) | add) * 1e4 / (map(.all) | add)), rounds: map(.tx / .seconds)}' \
      "$tmp/$s-c$c"-*.json >"$tmp/$s-c$c.json"
  done
done

echo
echo "Outbox when a round of moves stopped: at most $(jq .backlog "$tmp/move.service.json") events not yet forwarded;" \
  "at most $(jq .left "$tmp/move.service.json") left after waiting for them."
echo "Load average at the start: $load_start; at the end: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)."
echo
echo "| request (concurrency $concurrency) | service req/s | p50 ms | p99 ms | pgbench same SQL: clients, tx/s, p50 ms, p99 ms | ratio to the best pgbench | ratio per round |"
echo "|---|---:|---:|---:|---|---:|---|"
for s in board move floor; do
  case $s in
    board) name="GET /api/orgboard/board (250 items)" ;;
    move) name="PATCH /api/orgboard/tasks/{id}/move (tx + audit + outbox event)" ;;
    floor) name="floor of the move: a bare Go server (net/http, pgx), the same two pipelines" ;;
  esac
  p=${s/floor/move}
  jq -rs --arg name "$name" '.[0] as $s | .[1:] as $p | ($p | max_by(.rps)) as $best |
    def r: . * 100 | round / 100;
    "| \($name) | \($s.rps|floor) | \($s.p50_ms|r) | \($s.p99_ms|r) | " +
    ([$p[] | "\(.clients): \(.rps|floor), \(.p50_ms|r), \(.p99_ms|r)"] | join("; ")) +
    " | \($s.rps / $best.rps | r) | " +
    ([range(0; $s.rounds | length) as $i | $s.rounds[$i] / ([$p[] | .rounds[$i]] | max) | r | tostring] | join(", ")) + " |"' \
    "$tmp/$s.service.json" $(for c in "${clients[@]}"; do echo "$tmp/$p-c$c.json"; done)
done
echo
echo "CPU per request in microseconds (user + system; the service's until its outbox is empty; pgbench's"
echo "backends as the PostgreSQL server counts them once they have exited, over its whole run):"
echo
echo "| request | service process | its PostgreSQL | load generator | total | pgbench ($conns clients): process, PostgreSQL, total | pgbench total / service total |"
echo "|---|---:|---:|---:|---:|---|---:|"
for s in board move floor; do
  jq -rs --arg name "$s" '.[0] as $s | .[1] as $p | def r: . | round;
    ($s.process_us + $s.pg_us + $s.loadgen_us) as $st | ($p.process_us + $p.pg_us) as $pt |
    "| \($name) | \($s.process_us|r) | \($s.pg_us|r) | \($s.loadgen_us|r) | \($st|r) | \($p.process_us|r), \($p.pg_us|r), \($pt|r) | \($pt / $st * 100 | round / 100) |"' \
    "$tmp/$s.service.json" "$tmp/${s/floor/move}-c$conns.json"
done
