# Shared by the scripts: finding and starting the real dependencies.
# shellcheck shell=bash

PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
AMQP_PORT=${AMQP_PORT:-5672}
# The S3 server start_s3 starts, each built from a pinned module the first time:
#   versitygw  (default) Versity's S3 gateway over a directory (tools/versitygw), a real S3
#              implementation (signatures, multipart, presigned part URLs, ETags, Content-MD5)
#              that compiles in a fraction of MinIO's time; every test passes on it;
#   minio      MinIO, compiled from source with go install (MINIO_VERSION).
S3_SERVER=${S3_SERVER:-versitygw}
# Pinned MinIO, installed with `go install` when absent (no prebuilt download is needed).
MINIO_MODULE=github.com/minio/minio
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c

log() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

wait_port() { # host port seconds name
  local i
  for ((i = 0; i < $3 * 10; i++)); do port_open "$1" "$2" && return 0; sleep 0.1; done
  return 1
}

docker_ok() { command -v docker >/dev/null && docker info >/dev/null 2>&1; }

ensure_postgres() {
  port_open "$PG_HOST" "$PG_PORT" && return 0
  if command -v pg_ctlcluster >/dev/null; then
    log "starting the local PostgreSQL"
    local v; v=$(ls /etc/postgresql | sort -V | tail -1)
    pg_ctlcluster --skip-systemctl-redirect "$v" main start || true
  elif docker_ok; then
    log "starting PostgreSQL with docker compose"; docker compose up -d postgres
  fi
  wait_port "$PG_HOST" "$PG_PORT" 60 || die "PostgreSQL does not answer on $PG_HOST:$PG_PORT. Install it (apt-get install postgresql) or run 'docker compose up -d postgres'."
}

ensure_rabbitmq() {
  port_open 127.0.0.1 "$AMQP_PORT" && return 0
  if command -v rabbitmq-server >/dev/null; then
    log "starting the local RabbitMQ"; rabbitmq-server -detached || true
  elif docker_ok; then
    log "starting RabbitMQ with docker compose"; docker compose up -d rabbitmq
  fi
  wait_port 127.0.0.1 "$AMQP_PORT" 90 || die "RabbitMQ does not answer on 127.0.0.1:$AMQP_PORT. Install it (apt-get install rabbitmq-server) or run 'docker compose up -d rabbitmq'."
}

# minio_bin prints the path of the pinned MinIO, installing it first when absent or different.
minio_bin() {
  local bin; bin="$(go env GOPATH)/bin/minio"
  if [[ ! -x $bin ]] || ! go version -m "$bin" 2>/dev/null | grep -q "$MINIO_VERSION"; then
    log "installing MinIO $MINIO_VERSION with go install (first time only; takes a few minutes)"
    GOWORK=off GOFLAGS= go install "$MINIO_MODULE@$MINIO_VERSION" >&2
  fi
  echo "$bin"
}

free_port() {
  local p
  for ((p = ${1:-19000}; p < ${1:-19000} + 1000; p++)); do port_open 127.0.0.1 "$p" || { echo "$p"; return; }; done
  die "no free port"
}

# start_minio DIR: the S3 server of the tests (scripts/test.sh), the one S3_SERVER names.
start_minio() { start_s3 "$@"; }

# start_minio_server DIR: starts MinIO on a free port with data in DIR; sets MINIO_PID and S3
# variables.
start_minio_server() {
  local dir=$1 bin port cport
  bin=$(minio_bin)
  port=$(free_port 19000); cport=$(free_port $((port + 1)))
  export MINIO_ROOT_USER=${MINIO_ROOT_USER:-minioadmin} MINIO_ROOT_PASSWORD=${MINIO_ROOT_PASSWORD:-minioadmin}
  mkdir -p "$dir"
  MINIO_BROWSER=off "$bin" server "$dir/data" --address "127.0.0.1:$port" --console-address "127.0.0.1:$cport" --quiet >"$dir/minio.log" 2>&1 &
  MINIO_PID=$!
  wait_port 127.0.0.1 "$port" 60 || { cat "$dir/minio.log" >&2; die "MinIO did not start"; }
  local i
  for ((i = 0; i < 100; i++)); do curl -fsS "http://127.0.0.1:$port/minio/health/ready" >/dev/null 2>&1 && break; sleep 0.1; done
  export S3_ENDPOINT="http://127.0.0.1:$port" S3_ACCESS_KEY=$MINIO_ROOT_USER S3_SECRET_KEY=$MINIO_ROOT_PASSWORD S3_REGION=us-east-1
}

# start_s3 DIR: starts the S3 server S3_SERVER names on a free port with data in DIR; sets
# S3_PID (and MINIO_PID, the same process) and the S3 variables.
start_s3() {
  case $S3_SERVER in
  minio) start_minio_server "$1" ;;
  versitygw) start_versitygw "$1" ;;
  *) die "S3_SERVER=$S3_SERVER: want minio or versitygw" ;;
  esac
  S3_PID=$MINIO_PID
}

# s3_bin prints the path of the S3 server S3_SERVER names, building it first when absent.
s3_bin() {
  case $S3_SERVER in
  minio) minio_bin ;;
  versitygw) tool_bin versitygw ;;
  *) die "S3_SERVER=$S3_SERVER: want minio or versitygw" ;;
  esac
}

# tool_bin NAME prints the path of the pinned tool bin/tools/NAME, building it first when
# absent or older than tools/NAME/go.mod (make knows).
tool_bin() {
  make --no-print-directory -s "bin/tools/$1" >&2 || die "building $1 failed"
  echo "$PWD/bin/tools/$1"
}

# start_versitygw DIR: starts versitygw with its POSIX backend on a free port, buckets in
# DIR/data and object metadata in DIR/meta (sidecar files: no extended attributes needed);
# sets MINIO_PID and the S3 variables, with MinIO's default credentials.
start_versitygw() {
  local dir=$1 bin port
  bin=$(tool_bin versitygw)
  port=$(free_port 19000)
  export MINIO_ROOT_USER=${MINIO_ROOT_USER:-minioadmin} MINIO_ROOT_PASSWORD=${MINIO_ROOT_PASSWORD:-minioadmin}
  mkdir -p "$dir/data" "$dir/meta"
  dir=$(cd "$dir" && pwd) # versitygw reads a relative --sidecar as inside the root directory
  ROOT_ACCESS_KEY=$MINIO_ROOT_USER ROOT_SECRET_KEY=$MINIO_ROOT_PASSWORD "$bin" --port "127.0.0.1:$port" \
    --region us-east-1 --quiet --health /health posix --sidecar "$dir/meta" "$dir/data" >"$dir/versitygw.log" 2>&1 &
  MINIO_PID=$!
  wait_port 127.0.0.1 "$port" 60 || { cat "$dir/versitygw.log" >&2; die "versitygw did not start"; }
  local i
  for ((i = 0; i < 100; i++)); do curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
  export S3_ENDPOINT="http://127.0.0.1:$port" S3_ACCESS_KEY=$MINIO_ROOT_USER S3_SECRET_KEY=$MINIO_ROOT_PASSWORD S3_REGION=us-east-1
}

# bench_section NAME FILE: replaces the "## NAME" section of BENCHMARKS.md with FILE (a section
# that starts with that heading), or appends it when there is none.
bench_section() {
  python3 - "$1" "$2" <<'PY'
import re, sys
name, section = sys.argv[1], open(sys.argv[2]).read()
path = "BENCHMARKS.md"
text = open(path).read()
pattern = re.compile(r"^## " + re.escape(name) + r"\n.*?(?=^## |\Z)", re.S | re.M)
text = pattern.sub(lambda _: section, text, count=1) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
open(path, "w").write(text)
PY
  log "figures written to the $1 section of BENCHMARKS.md"
}

# renderevents_bench_env DB SUFFIX PORT: the environment of a renderevents benchmark: database DB,
# exchanges and queues of its own (named with SUFFIX, so that nothing else consumes them), the
# API on 127.0.0.1:PORT, and throwaway secrets.
renderevents_bench_env() {
  export DATABASE_URL="postgres://postgres@${PG_HOST}:${PG_PORT}/$1?sslmode=disable"
  export AMQP_URL=${AMQP_URL:-amqp://guest:guest@127.0.0.1:${AMQP_PORT}/}
  export BUS_SERVICE="renderevents-$2" EVENTS_EXCHANGE="events-$2" PROGRESS_EXCHANGE="render.progress-$2" \
    DEAD_LETTER_EXCHANGE="dead-letter-$2"
  export JWT_HS256_SECRET="bench-secret-bench-secret-bench-secret!"
  export HTTP_ADDR="127.0.0.1:$3" METRICS_ADDR=127.0.0.1:0 LOG_LEVEL=warn
  SEAL_KEYS=bench:$(head -c 32 /dev/urandom | base64)
  export SEAL_KEYS
}

# cpu_ticks PID...: the user + system CPU of the processes in clock ticks (100 a second); a
# process that is gone counts 0.
cpu_ticks() {
  local sum=0 p t
  for p in "$@"; do
    t=$(sed -E 's/.*\) //' "/proc/$p/stat" 2>/dev/null | awk '{print $12 + $13}')
    sum=$((sum + ${t:-0}))
  done
  echo "$sum"
}

# backend_ticks DBURL APP: one line "pid ticks" per client backend connected to DBURL's database
# with application_name APP (any but psql's when APP is empty).
backend_ticks() {
  local p
  for p in $(psql "$1" -Atc "SELECT pid FROM pg_stat_activity WHERE datname = current_database()
      AND backend_type = 'client backend' AND pid <> pg_backend_pid()
      AND $( [[ -n $2 ]] && echo "application_name = '$2'" || echo "application_name <> 'psql'" )"); do
    echo "$p $(cpu_ticks "$p")"
  done
}

# postmaster_pid DBURL: the PostgreSQL server process, the parent of every backend (read from
# the session's own backend while it is connected).
postmaster_pid() {
  psql "$1" -Atq <<'SQL'
SELECT pg_backend_pid() AS bp \gset
\setenv BP :bp
\! awk '{print $4}' /proc/$BP/stat
SQL
}

# reaped_ticks PID: the CPU in clock ticks of PID's children that have ended and been waited
# for; under the postmaster, the whole CPU of each backend that has exited.
reaped_ticks() {
  sed -E 's/.*\) //' "/proc/$1/stat" | awk '{print $14 + $15}'
}

# ticks_since BEFORE AFTER: the ticks the backends of AFTER spent since BEFORE (both files of
# backend_ticks lines; a backend not in BEFORE started since and counts whole).
ticks_since() {
  awk 'NR == FNR { before[$1] = $2; next } { sum += $2 - before[$1] } END { print sum + 0 }' "$1" "$2"
}
