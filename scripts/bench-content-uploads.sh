#!/usr/bin/env bash
# The single-request AEP upload: PUT /v1/projects/{id}/aep of a BENCH_UPLOAD_MB (200) MiB file,
# streamed by curl from a second process through bin/content serve into the S3 server, set
# beside a plain S3 PutObject of the same file by the same client (curl --aws-sigv4) into the
# same S3 server as the ceiling. The S3 server is the tests' (start_s3 of scripts/lib.sh:
# versitygw unless S3_SERVER=minio), named in the output. Memory: the service's peak RSS
# (VmHWM of /proc/<pid>/status, reset before each upload through clear_refs) against its
# resident size before the upload; a service that buffered the file would peak above the
# file's size.
# Knobs: BENCH_UPLOAD_MB (200), BENCH_RUNS (3), BENCH_DB (content_uploads_bench), S3_SERVER,
# S3_UPLOAD_PART_SIZE / S3_UPLOAD_CONCURRENCY (the service's streaming parts, 8 MiB x 2).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_postgres
ensure_rabbitmq
for tool in curl jq psql md5sum; do command -v $tool >/dev/null || die "$tool is needed"; done
log "building bin/content"
go build -o bin/content ./services/content/cmd/content

mb=${BENCH_UPLOAD_MB:-200}
runs=${BENCH_RUNS:-3}
db=${BENCH_DB:-content_uploads_bench}
admin="postgres://postgres@$PG_HOST:$PG_PORT/postgres?sslmode=disable"

tmp=$(mktemp -d)
pid=
cleanup() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null
  [[ -n ${S3_PID:-} ]] && kill "$S3_PID" 2>/dev/null
  wait 2>/dev/null
  psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1
  # The service's queues, where rabbitmqctl reaches the broker (their names are fixed, so a
  # broker it cannot reach keeps one pair, reused by the next run).
  if [[ -n ${BUS_SERVICE:-} ]] && command -v rabbitmqctl >/dev/null; then
    for q in "$BUS_SERVICE.events" "$BUS_SERVICE.dead-letter"; do timeout 20 rabbitmqctl -q delete_queue "$q" >/dev/null 2>&1 || true; done
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
log "starting $S3_SERVER"
start_s3 "$tmp/s3"

export DATABASE_URL="postgres://postgres@$PG_HOST:$PG_PORT/$db?sslmode=disable"
export JWT_HS256_SECRET=bench-secret-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
export LOG_LEVEL=warn S3_BUCKET_TEMPLATES=bench-templates S3_BUCKET_MEDIA=bench-media
export BUS_SERVICE=content-uploads-bench EVENTS_EXCHANGE=events-uploads-bench

log "recreating database $db"
psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
bin/content migrate 2>/dev/null

port=$(free_port 18181)
HTTP_ADDR=127.0.0.1:$port METRICS_ADDR=127.0.0.1:0 bin/content serve &
pid=$!
base="http://127.0.0.1:$port"
for ((i = 0; i < 300; i++)); do curl -fs "$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fs "$base/readyz" >/dev/null || die "bin/content serve is not ready"

token=$(bin/content token --roles platform-admin)
auth=(-H "Authorization: Bearer $token")
container=$(curl -fsS "${auth[@]}" -H 'Content-Type: application/json' \
  -d '{"slug":"bench-upload","name":"Bench upload","primary_mode":"video"}' "$base/v1/containers" | jq -r .id)
project=$(curl -fsS "${auth[@]}" -H 'Content-Type: application/json' \
  -d "{\"container_id\":\"$container\",\"name\":\"bench 16:9\",\"original_width\":1920,\"original_height\":1080,\"project_duration_sec\":30,\"choose_mode\":\"free\"}" \
  "$base/v1/projects" | jq -r .id)

file=$tmp/bench.aep
log "writing a $mb MiB file"
head -c $((mb * 1024 * 1024)) /dev/urandom >"$file"
want=$(md5sum "$file" | cut -d' ' -f1)
s3auth=(--aws-sigv4 "aws:amz:${S3_REGION}:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
curl -fsS -X PUT "${s3auth[@]}" "$S3_ENDPOINT/bench-direct" >/dev/null

kb() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$pid/status"; }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
load() { cut -d' ' -f1 /proc/loadavg; }
rss_before=$(kb VmRSS)
: >"$tmp/service" && : >"$tmp/direct" && : >"$tmp/hwm" && : >"$tmp/runs"
for ((r = 1; r <= runs; r++)); do
  load_start=$(load)
  # Reset the peak RSS so VmHWM is this upload's (needs Linux >= 4.0 and the right to write it).
  echo 5 >"/proc/$pid/clear_refs" 2>/dev/null || log "cannot reset VmHWM: the peak covers the whole life of the process"
  read -r code secs < <(curl -sS -o "$tmp/resp.json" -w '%{http_code} %{time_total}\n' -X PUT "${auth[@]}" -H 'Expect:' \
    -F "file=@$file;type=application/octet-stream" "$base/v1/projects/$project/aep")
  [[ $code == 200 ]] || die "upload answered $code: $(cat "$tmp/resp.json")"
  [[ $(jq -r .aep_file_md5 "$tmp/resp.json") == "$want" ]] || die "the recorded MD5 is not the file's"
  echo "$secs" >>"$tmp/service"
  hwm=$(kb VmHWM)
  echo "$hwm" >>"$tmp/hwm"
  read -r code dsecs < <(curl -sS -o /dev/null -w '%{http_code} %{time_total}\n' -T "$file" "${s3auth[@]}" "$S3_ENDPOINT/bench-direct/run-$r.aep")
  [[ $code == 200 ]] || die "the direct PutObject answered $code"
  echo "$dsecs" >>"$tmp/direct"
  echo "$r $secs $dsecs $hwm $load_start $(load)" >>"$tmp/runs"
done

svc=$(median <"$tmp/service")
dir=$(median <"$tmp/direct")
hwm=$(sort -n "$tmp/hwm" | tail -1)
echo
setting() { [[ -n ${!1:-} ]] && echo "${!1}" || bin/content help 2>&1 | awk -v k="$1" '$1 == k {print $2}'; }
echo "$mb MiB file into $S3_SERVER, $runs runs; the service's parts: $(($(setting S3_UPLOAD_PART_SIZE) >> 20)) MiB x $(setting S3_UPLOAD_CONCURRENCY) in flight"
echo
echo "| run | service s | PutObject s | ratio | service peak RSS MiB | load average start -> end |"
echo "|---:|---:|---:|---:|---:|---|"
awk '{printf "| %d | %.2f | %.2f | %.2f | %.0f | %s -> %s |\n", $1, $2, $3, $3 / $2, $4 / 1024, $5, $6}' "$tmp/runs"
echo
echo "Median time; peak RSS = highest VmHWM of the runs."
echo
echo "| path | time s | MiB/s | service peak RSS MiB (before: $((rss_before / 1024))) | ratio to PutObject |"
echo "|---|---:|---:|---:|---:|"
awk -v mb="$mb" -v s="$svc" -v d="$dir" -v h="$hwm" -v srv="$S3_SERVER" 'BEGIN {
  printf "| PUT /v1/projects/{id}/aep (curl -> service -> %s, MD5 on the way) | %.2f | %.0f | %.0f | %.2f |\n", srv, s, mb / s, h / 1024, d / s
  printf "| S3 PutObject (curl -> %s) | %.2f | %.0f | - | 1.00 |\n", srv, d, mb / d
}'
