#!/usr/bin/env bash
# Fails on a breaking change of any spec against the merge-base with main, unless the spec's
# major version (info.version) changed with it. BASE overrides the comparison point.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
base=${BASE:-$(git merge-base HEAD "${MAIN_REF:-main}" 2>/dev/null || true)}
if [[ -z $base ]]; then log "no merge-base with main: nothing to compare"; exit 0; fi
old=$(mktemp -d); trap 'rm -rf "$old"' EXIT
major() { grep -m1 -E '^\s+version:' "$1" | sed -E 's/.*version:\s*"?([0-9]+).*/\1/'; }
fail=0
for spec in specs/openapi/*.yaml specs/asyncapi/events.yaml; do
  if ! git cat-file -e "$base:$spec" 2>/dev/null; then log "$spec is new since $base"; continue; fi
  git show "$base:$spec" >"$old/$(basename "$spec")"
  if [[ $(major "$old/$(basename "$spec")") != "$(major "$spec")" ]]; then
    log "$spec: major version changed; breaking changes allowed"; continue
  fi
  if [[ $spec == specs/openapi/* ]]; then
    if ! bin/tools/oasdiff breaking "$old/$(basename "$spec")" "$spec" --fail-on ERR; then
      echo "breaking change in $spec (against $base)"; fail=1
    fi
  else
    if ! (cd tools && GOWORK=off go run ./asyncdiff "$old/$(basename "$spec")" "../$spec"); then
      echo "breaking change in $spec (against $base)"; fail=1
    fi
  fi
done
exit $fail
