#!/usr/bin/env bash
# Fails on a breaking change of any spec against the merge-base with main, unless the spec's
# major version (info.version) changed with it.
#   BASE       the commit to compare with (default: merge-base of HEAD and main)
#   NEW_SPECS  a directory holding the new specs/ tree (default: this checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
root=$PWD
base=${BASE:-$(git merge-base HEAD "${MAIN_REF:-main}" 2>/dev/null || true)}
new=${NEW_SPECS:-$root}
if [[ -z $base ]]; then log "no merge-base with main: nothing to compare"; exit 0; fi
old=$(mktemp -d); trap 'rm -rf "$old"' EXIT
major() { awk '/^info:/{i=1} i && /^  version:/{gsub(/["'"'"']/,"",$2); split($2,v,"."); print v[1]; exit}' "$1"; }
fail=0
for spec in specs/openapi/content.yaml specs/openapi/orgboard.yaml specs/openapi/renderevents.yaml specs/asyncapi/events.yaml; do
  if ! git cat-file -e "$base:$spec" 2>/dev/null; then log "$spec is new since $base"; continue; fi
  prev="$old/$(basename "$spec")"
  git show "$base:$spec" >"$prev"
  if [[ $(major "$prev") != "$(major "$new/$spec")" ]]; then
    log "$spec: major version changed; breaking changes allowed"; continue
  fi
  if [[ $spec == specs/openapi/* ]]; then
    "$root/bin/tools/oasdiff" breaking "$prev" "$new/$spec" --fail-on ERR || { echo "breaking change in $spec (against ${base:0:12})"; fail=1; }
  else
    (cd "$root/tools" && GOWORK=off go run ./asyncdiff "$prev" "$new/$spec") || { echo "breaking change in $spec (against ${base:0:12})"; fail=1; }
  fi
done
[[ $fail == 0 ]] && log "no breaking change against ${base:0:12}"
exit $fail
