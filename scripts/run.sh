#!/usr/bin/env bash
# `make run`: dependencies up, databases migrated, demo data loaded, the three services
# started; Ctrl-C stops them all cleanly. Local state lives in .data/ (make clean removes it).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

# amqp_vhost NAME creates the RabbitMQ vhost NAME (when absent) with every permission for guest,
# through the management API when it answers (the compose broker) or rabbitmqctl (a local
# installation, which needs root); it fails when neither can.
amqp_vhost() {
  local api=http://127.0.0.1:${AMQP_MGMT_PORT:-15672}/api
  if curl -fsS -o /dev/null -u guest:guest "$api/overview" 2>/dev/null; then
    curl -fsS -o /dev/null -u guest:guest -X PUT "$api/vhosts/$1" &&
      curl -fsS -o /dev/null -u guest:guest -X PUT -H 'Content-Type: application/json' \
        -d '{"configure":".*","write":".*","read":".*"}' "$api/permissions/$1/guest"
    return
  fi
  command -v rabbitmqctl >/dev/null || return 1
  # add_vhost fails on an existing vhost before RabbitMQ 3.9; set_permissions fails on none.
  timeout 30 rabbitmqctl -q add_vhost "$1" >/dev/null 2>&1 || true
  timeout 30 rabbitmqctl -q set_permissions -p "$1" guest '.*' '.*' '.*' >/dev/null 2>&1
}
ensure_postgres
ensure_rabbitmq
mkdir -p .data

# This checkout's names on the shared broker and database server, so that two checkouts, or a
# test run, never consume each other's events or share a database: RUN_NAME (default
# run_<user>_<hash of the checkout's path>) names a RabbitMQ vhost, and prefixes the databases
# (<RUN_NAME>_content, ...). Without a way to create the vhost (the management API or
# rabbitmqctl), the exchanges and queues on the default vhost carry the prefix instead.
user=$(id -un); user=${user,,}
RUN_NAME=${RUN_NAME:-run_${user//[^a-z0-9]/_}_$(printf %s "$PWD" | sha256sum | cut -c1-6)}
[[ $RUN_NAME =~ ^[a-z][a-z0-9_]{0,47}$ ]] || die "RUN_NAME=$RUN_NAME: want a lowercase letter, then at most 47 lowercase letters, digits or underscores"
bus_prefix=
if amqp_vhost "$RUN_NAME"; then
  export AMQP_URL="amqp://guest:guest@127.0.0.1:$AMQP_PORT/$RUN_NAME"
  bus_env="AMQP_URL=$AMQP_URL"
  bus_where="RabbitMQ vhost $RUN_NAME"
else
  bus_prefix=$RUN_NAME.
  export AMQP_URL="amqp://guest:guest@127.0.0.1:$AMQP_PORT/" EVENTS_EXCHANGE=${bus_prefix}events \
    DEAD_LETTER_EXCHANGE=${bus_prefix}dead-letter PROGRESS_EXCHANGE=${bus_prefix}render.progress
  bus_env="EVENTS_EXCHANGE=$EVENTS_EXCHANGE PROGRESS_EXCHANGE=$PROGRESS_EXCHANGE"
  bus_where="RabbitMQ vhost / with exchanges and queues named $bus_prefix* (no management API or rabbitmqctl to create a vhost)"
fi
log "isolated as $RUN_NAME: $bus_where; databases ${RUN_NAME}_content, ${RUN_NAME}_orgboard, ${RUN_NAME}_renderevents"
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
  # Only the services: a bare `wait` would also wait for the S3 server, stopped after them.
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ -n ${S3_PID:-} ]]; then kill "$S3_PID" 2>/dev/null; wait "$S3_PID" 2>/dev/null || true; fi
  exit 0
}
trap stop INT TERM EXIT

start_s3 ".data/$S3_SERVER"
export OUTBOUND_ALLOW_CIDRS=${OUTBOUND_ALLOW_CIDRS:-127.0.0.0/8}
export MIGRATE_ON_START=true

db_url() { echo "postgres://postgres@$PG_HOST:$PG_PORT/${RUN_NAME}_$1?sslmode=disable"; }
for s in content orgboard renderevents; do
  psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -tc "SELECT 1 FROM pg_database WHERE datname = '${RUN_NAME}_$s'" | grep -q 1 ||
    psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -qc "CREATE DATABASE ${RUN_NAME}_$s" >/dev/null
  DATABASE_URL=$(db_url "$s") bin/$s migrate
done
DATABASE_URL=$(db_url content) bin/content seed --demo
DATABASE_URL=$(db_url orgboard) bin/orgboard seed --demo

port=8081
for s in content orgboard renderevents; do
  DATABASE_URL=$(db_url "$s") BUS_SERVICE=$bus_prefix$s HTTP_ADDR="127.0.0.1:$port" METRICS_ADDR="127.0.0.1:$((port + 1010))" bin/$s serve &
  pids+=($!)
  port=$((port + 1))
done
for p in 8081 8082 8083; do wait_port 127.0.0.1 $p 30 || die "a service did not start on :$p"; done

token=$(bin/content token --roles admin,platform-admin --ttl 12h) # a tenant admin who also writes the content catalog
owner=$(bin/orgboard token --sub 00000000-0000-7000-8000-00000000000a --ttl 12h) # the demo organization's Owner
tenant=00000000-0000-7000-8000-0000000000d1 # the tenant whose render events the demo simulates
retoken=$(bin/renderevents token --tenant $tenant --roles admin --ttl 12h)
cat <<MSG

  content       http://127.0.0.1:8081/docs   (API base http://127.0.0.1:8081/v1)
  orgboard      http://127.0.0.1:8082/docs
  renderevents  http://127.0.0.1:8083/docs   (API base http://127.0.0.1:8083/v1)
  S3            $S3_ENDPOINT ($S3_SERVER, $S3_ACCESS_KEY / $S3_SECRET_KEY)
  isolated as   $RUN_NAME: $bus_where,
                databases ${RUN_NAME}_content, ${RUN_NAME}_orgboard, ${RUN_NAME}_renderevents

  An admin token for 12 hours (the platform-admin role writes the content catalog):
    export TOKEN=$token
    curl -H "Authorization: Bearer \$TOKEN" 'http://127.0.0.1:8081/v1/templates?sort=popular'

  The demo organization's Owner on orgboard (…0b is its Lead, …0c a Member):
    export OWNER=$owner
    curl -H "Authorization: Bearer \$OWNER" http://127.0.0.1:8082/api/orgboard/teams

  Render events: an admin of tenant $tenant registers a webhook (http://127.0.0.1 URLs are
  allowed here), then a simulated stream for that tenant prints the job and event ids it publishes:
    export RETOKEN=$retoken
    curl -H "Authorization: Bearer \$RETOKEN" -H 'Content-Type: application/json' \\
      -d '{"url":"http://127.0.0.1:9000/hook","event_types":["render.job.*"]}' http://127.0.0.1:8083/v1/webhook-endpoints
    $bus_env bin/renderevents simulate --tenant $tenant --jobs 5
    curl -H "Authorization: Bearer \$RETOKEN" http://127.0.0.1:8083/v1/webhook-endpoints/<id>/deliveries
  Ctrl-C stops everything.
MSG
wait -n "${pids[@]}" || true
stop
