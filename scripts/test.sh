#!/usr/bin/env bash
# Runs every module's tests with -race against real PostgreSQL, RabbitMQ and an S3 server
# (S3_SERVER, scripts/lib.sh) started here on a free port with a temporary directory (stopped on exit).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_postgres
ensure_rabbitmq
tmp=$(mktemp -d)
trap '[[ -n ${MINIO_PID:-} ]] && kill "$MINIO_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
start_s3 "$tmp/s3"
export S3_TEST_ENDPOINT=$S3_ENDPOINT S3_TEST_ACCESS_KEY=$S3_ACCESS_KEY S3_TEST_SECRET_KEY=$S3_SECRET_KEY
export PG_TEST_URL=${PG_TEST_URL:-postgres://postgres@$PG_HOST:$PG_PORT/postgres?sslmode=disable}
export AMQP_TEST_URL=${AMQP_TEST_URL:-amqp://guest:guest@127.0.0.1:$AMQP_PORT/}
export NODE_BIN="$PWD/node_modules/.bin"
log "S3 ($S3_SERVER) at $S3_ENDPOINT; running the tests"
# TEST_FLAGS is split like a shell command line, so a quoted pattern stays one argument:
# TEST_FLAGS="-run 'Manifest|Dockerfile'".
eval "flags=(${TEST_FLAGS:-})"
# TEST_PKGS narrows the run to some packages (e.g. TEST_PKGS=./services/orgboard/...); by default
# one go test covers every workspace module, so the closing summary counts them all.
# Every run is recorded as `go test -json` in bin/test-results.json (and printed as go test
# prints it): `make test-timings` says from it where the time went, per package and per test.
mkdir -p bin
results=bin/test-results.json
(cd tools && GOWORK=off go build -o ../bin/testtimings ./testtimings)
: >"$results"
if [[ -z ${TEST_PKGS:-} ]]; then
  (cd tools && GOWORK=off go test -json -count=1 "${flags[@]}" ./...) | tee -a "$results" | bin/testtimings print
  # go test builds and runs the packages in the order given, two at a time (-p defaults to the
  # cores): the longest first, so that e2e (the biggest test binary, then minutes of building
  # images and SDKs and starting services) does not start last and leave one core idle.
  TEST_PKGS="./e2e/... ./services/content/... ./services/orgboard/... ./services/renderevents/... ./pkg/... ./specs/... ./gen/..."
fi
# -count=1: these tests talk to real servers, whose state the test cache cannot see.
# shellcheck disable=SC2086
go test -json -race -count=1 -timeout 20m "${flags[@]}" $TEST_PKGS | tee -a "$results" | bin/testtimings print
