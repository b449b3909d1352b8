#!/usr/bin/env bash
# The spec-change gate (`make breaking`, run by `make test`). Compares every spec in the working
# tree (uncommitted edits count) with the same spec at the base commit, and fails on a breaking
# change unless the spec's major version (info.version) changed with it. A new major version
# still lists every breaking change it brings, and needs a section "## <spec> <version>" in
# specs/CHANGELOG.md (`make changelog` writes it). Every line names the spec it speaks of.
# A first upper bound (maxLength, maxItems, maxProperties, maximum) on a request value or an
# event field that had none is possibly breaking, not breaking: it is printed as a warning and
# does not fail (scripts/oasdiff-levels.txt lowers oasdiff's rules to warnings; asyncdiff rates
# it so). Lowering a bound that exists stays breaking.
#   BASE  the commit to compare with (default: merge-base of HEAD with main, else origin/main)
# It checks the git checkout of the current directory with the tools of the checkout holding
# this script (bin/tools/oasdiff, tools/asyncdiff).
set -euo pipefail
TOOLS_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$TOOLS_ROOT/scripts/lib.sh"
. "$TOOLS_ROOT/scripts/speclib.sh"
cd "$(git rev-parse --show-toplevel)"
base=$(spec_base)
short=${base:0:12}
SPEC_WORK=$(mktemp -d); trap 'rm -rf "$SPEC_WORK"' EXIT

# breaking_changes SPEC OLD LABEL: prints each breaking change of SPEC against OLD, one a line
# prefixed by the spec and LABEL; returns 1 when there is any, 2 when the comparison failed.
breaking_changes() {
  local spec=$1 old=$2 label=$3 out rc=0
  if [[ $spec == specs/asyncapi/* ]]; then
    out=$(asyncdiff "$old" "$spec" 2>&1) || rc=$?
    if ((rc > 1)); then
      sed "s|^|$spec: |" <<<"$out"
    elif [[ -n $out ]]; then
      # asyncdiff prints its warnings (a first upper bound on a field) after the breaking changes.
      awk -v spec="$spec" -v label="$label" '
        sub(/^possibly breaking: /, "") { print spec ": possibly breaking (a warning, not failing): " $0; next }
        { print spec ": " label ": " $0 }' <<<"$out"
    fi
  else
    out=$(oasdiff breaking "$old" "$spec" --format singleline --color never --fail-on ERR \
      --severity-levels "$OASDIFF_LEVELS" 2>&1) || rc=$?
    if ((rc > 1)); then
      sed "s|^|$spec: |" <<<"$out"
    else
      # oasdiff names the operation, the property and the rule; keep it, prefixed by the spec.
      oasdiff_changes <<<"$out" | awk -F '\t' -v spec="$spec" -v label="$label" '
        $1 == "error" { print spec ": " label ": " $2 }
        $1 == "warning" { print spec ": possibly breaking (a warning, not failing): " $2 }'
    fi
  fi
  if ((rc > 1)); then echo "$spec: could not compare it with $short"; return 2; fi
  return "$rc"
}

fail=0
for spec in "${SPECS[@]}"; do
  name=$(spec_name "$spec")
  if ! git cat-file -e "$base:$spec" 2>/dev/null; then echo "$spec: new since $short, nothing to compare"; continue; fi
  if [[ ! -f $spec ]]; then echo "$spec: breaking change: removed (it exists in $short)"; fail=1; continue; fi
  old="$SPEC_WORK/$name.base.yaml"
  git show "$base:$spec" >"$old"
  old_version=$(spec_version "$old") new_version=$(spec_version "$spec")
  if [[ ${old_version%%.*} != "${new_version%%.*}" ]]; then
    echo "$spec: new major version $new_version (was $old_version in $short): its breaking changes are allowed"
    rc=0; breaking_changes "$spec" "$old" "allowed breaking change" || rc=$?
    ((rc == 2)) && fail=1
    ((rc == 0)) && echo "$spec: no breaking change against $short"
    if has_changelog_entry "$name" "$new_version"; then
      echo "$spec: $SPEC_CHANGELOG has the section '## $name $new_version'"
    else
      echo "$spec: a new major version needs the section '## $name $new_version' in $SPEC_CHANGELOG: run 'make changelog', then say there why and how to migrate"
      fail=1
    fi
    continue
  fi
  rc=0; breaking_changes "$spec" "$old" "breaking change" || rc=$?
  case $rc in
    0) echo "$spec: no breaking change against $short" ;;
    1) echo "$spec: breaking against $short: keep the old behaviour, or raise the major version (info.version, now $new_version) and add its changelog section"; fail=1 ;;
    *) fail=1 ;;
  esac
done
exit $fail
