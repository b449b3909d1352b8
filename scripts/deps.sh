#!/usr/bin/env bash
# Makes sure PostgreSQL and RabbitMQ answer; starts the local installations when stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_postgres
ensure_rabbitmq
log "PostgreSQL $PG_HOST:$PG_PORT and RabbitMQ 127.0.0.1:$AMQP_PORT answer"
