#!/usr/bin/env bash
# make bench-growth: each service's read benchmarks at 1x, 10x and 100x their data, to show that
# the cost of a page does not grow with the size of what it pages through. Each service's script
# prints its table (markdown) and leaves it in bin/bench/growth-<service>.md.
# BENCH_GROWTH_SERVICES narrows the run (default: content orgboard renderevents).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
mkdir -p bin/bench
for s in ${BENCH_GROWTH_SERVICES:-content orgboard renderevents}; do
  log "growth: $s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  scripts/bench-growth-"$s".sh | tee bin/bench/growth-"$s".md
done
