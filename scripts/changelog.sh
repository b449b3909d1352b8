#!/usr/bin/env bash
# `make changelog`: for every spec whose info.version differs from the base's and that has no
# section "## <spec> <version>" in specs/CHANGELOG.md yet, writes that section from the diff
# against the base (oasdiff changelog for the OpenAPI specs, asyncdiff -changelog for the
# AsyncAPI document), prepends it below the file's introduction and prints it. The section lists
# what changed; whoever raised the version adds why and how to migrate.
#   BASE  the commit to compare with (default: merge-base of HEAD with main, else origin/main)
set -euo pipefail
TOOLS_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$TOOLS_ROOT/scripts/lib.sh"
. "$TOOLS_ROOT/scripts/speclib.sh"
cd "$(git rev-parse --show-toplevel)"
base=$(spec_base)
short=${base:0:12}
SPEC_WORK=$(mktemp -d); trap 'rm -rf "$SPEC_WORK"' EXIT

# changes SPEC OLD: the changes of SPEC since OLD as Markdown list items, breaking ones marked.
changes() {
  local spec=$1 old=$2
  if [[ $spec == specs/asyncapi/* ]]; then
    asyncdiff -changelog "$old" "$spec"
    return
  fi
  oasdiff changelog "$old" "$spec" --format singleline --color never --severity-levels "$OASDIFF_LEVELS" |
    oasdiff_changes | awk -F '\t' '
    { sub(/ \[[a-z0-9-]+\]$/, "", $2) }
    $1 == "error" { print "- " $2 " (breaking)" }
    $1 == "warning" { print "- " $2 " (possibly breaking)" }
    $1 == "info" { print "- " $2 }'
}

entries=$SPEC_WORK/entries.md
: >"$entries"
for spec in "${SPECS[@]}"; do
  name=$(spec_name "$spec")
  git cat-file -e "$base:$spec" 2>/dev/null && [[ -f $spec ]] || continue
  old="$SPEC_WORK/$name.base.yaml"
  git show "$base:$spec" >"$old"
  old_version=$(spec_version "$old") new_version=$(spec_version "$spec")
  if [[ $old_version == "$new_version" ]]; then continue; fi
  if has_changelog_entry "$name" "$new_version"; then
    log "$spec: $SPEC_CHANGELOG already has '## $name $new_version'"; continue
  fi
  list=$(changes "$spec" "$old")
  {
    printf '## %s %s\n\nChanges since %s:\n\n' "$name" "$new_version" "$old_version"
    printf '%s\n\n' "${list:-- no change to operations, messages or schemas}"
  } >>"$entries"
  log "$spec: wrote '## $name $new_version' (changes since $old_version, base $short)"
done
if [[ ! -s $entries ]]; then
  log "no spec has a new info.version without its section in $SPEC_CHANGELOG (against $short): raise info.version first"
  exit 0
fi
cat "$entries"
# Newest first: the new sections go above the first existing one, below the introduction.
[[ -f $SPEC_CHANGELOG ]] || printf '# Spec changelog\n\n' >"$SPEC_CHANGELOG"
awk -v entries="$entries" '
  !done && /^## / { while ((getline line < entries) > 0) print line; done = 1 }
  { print }
  END { if (!done) while ((getline line < entries) > 0) print line }' "$SPEC_CHANGELOG" >"$SPEC_WORK/changelog.md"
cp "$SPEC_WORK/changelog.md" "$SPEC_CHANGELOG"
log "prepended to $SPEC_CHANGELOG: add why and how to migrate, then commit it with the spec"
