#!/usr/bin/env bash
# `make run`: dependencies up, databases migrated, demo data loaded, the three services
# started; Ctrl-C stops them all cleanly. Local state lives in .data/ (make clean removes it).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_postgres
ensure_rabbitmq
mkdir -p .data
# Development secrets made once per checkout, never committed: the sealing key keeps sealed
# model keys, tool-server headers and webhook secrets readable across restarts.
touch .data/dev.env
grep -q '^JWT_HS256_SECRET=' .data/dev.env || printf 'JWT_HS256_SECRET=%s\n' "$(head -c 32 /dev/urandom | base64 | tr -d '=+/')" >>.data/dev.env
grep -q '^SEAL_KEYS=' .data/dev.env || printf 'SEAL_KEYS=dev:%s\n' "$(head -c 32 /dev/urandom | base64)" >>.data/dev.env
set -a; . .data/dev.env; set +a
export APP_ENV=development

pids=()
stop() {
  trap - INT TERM EXIT
  log "stopping"
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  # Only the services: a bare `wait` would also wait for MinIO, which is stopped after them.
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ -n ${MINIO_PID:-} ]]; then kill "$MINIO_PID" 2>/dev/null; wait "$MINIO_PID" 2>/dev/null || true; fi
  exit 0
}
trap stop INT TERM EXIT

start_minio .data/minio
export OUTBOUND_ALLOW_CIDRS=${OUTBOUND_ALLOW_CIDRS:-127.0.0.0/8}
export MIGRATE_ON_START=true

for s in content orgboard renderevents; do
  psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -tc "SELECT 1 FROM pg_database WHERE datname = '$s'" | grep -q 1 ||
    psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -qc "CREATE DATABASE $s" >/dev/null
  DATABASE_URL="postgres://postgres@$PG_HOST:$PG_PORT/$s?sslmode=disable" bin/$s migrate
done
DATABASE_URL="postgres://postgres@$PG_HOST:$PG_PORT/content?sslmode=disable" bin/content seed --demo
DATABASE_URL="postgres://postgres@$PG_HOST:$PG_PORT/orgboard?sslmode=disable" bin/orgboard seed --demo

port=8081
for s in content orgboard renderevents; do
  DATABASE_URL="postgres://postgres@$PG_HOST:$PG_PORT/$s?sslmode=disable" HTTP_ADDR="127.0.0.1:$port" METRICS_ADDR="127.0.0.1:$((port + 1010))" bin/$s serve &
  pids+=($!)
  port=$((port + 1))
done
for p in 8081 8082 8083; do wait_port 127.0.0.1 $p 30 || die "a service did not start on :$p"; done

token=$(bin/content token --roles admin,platform-admin --ttl 12h) # a tenant admin who also writes the content catalog
owner=$(bin/orgboard token --sub 00000000-0000-7000-8000-00000000000a --ttl 12h) # the demo organization's Owner
cat <<MSG

  content       http://127.0.0.1:8081/docs   (API base http://127.0.0.1:8081/v1)
  orgboard      http://127.0.0.1:8082/docs
  renderevents  http://127.0.0.1:8083/docs   (API base http://127.0.0.1:8083/v1)
  MinIO         $S3_ENDPOINT (minioadmin / minioadmin)

  An admin token for 12 hours (the platform-admin role writes the content catalog):
    export TOKEN=$token
    curl -H "Authorization: Bearer \$TOKEN" 'http://127.0.0.1:8081/v1/templates?sort=popular'

  The demo organization's Owner on orgboard (…0b is its Lead, …0c a Member):
    export OWNER=$owner
    curl -H "Authorization: Bearer \$OWNER" http://127.0.0.1:8082/api/orgboard/teams

  Render events for the demo: bin/renderevents simulate --jobs 20
  Ctrl-C stops everything.
MSG
wait -n "${pids[@]}" || true
stop
