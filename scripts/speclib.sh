# Shared by breaking.sh and changelog.sh: the specs, their versions, the base they are compared
# with and the tools that compare them. Run from the top of the checkout being checked.
# shellcheck shell=bash

SPECS=(specs/openapi/content.yaml specs/openapi/orgboard.yaml specs/openapi/renderevents.yaml specs/asyncapi/events.yaml)
SPEC_CHANGELOG=specs/CHANGELOG.md
# The severities the gate gives oasdiff's rules where they differ from oasdiff's own: a first
# upper bound on a request value is a warning (see breaking.sh).
OASDIFF_LEVELS=$TOOLS_ROOT/scripts/oasdiff-levels.txt

# spec_name FILE: the name a changelog section uses (content, orgboard, renderevents, events).
spec_name() { basename "$1" .yaml; }

# spec_version FILE: the document's info.version.
spec_version() {
  awk '/^info:/ { inside = 1; next } inside && /^[^ #]/ { exit }
       inside && /^  version:/ { v = $2; gsub(/["'"'"']/, "", v); print v; exit }' "$1"
}

# spec_base: the commit the specs are compared with. BASE when given; otherwise the merge-base of
# HEAD with the default branch as the checkout has it: the local main, else origin/main (a CI
# clone may have either or both). Dies with how to give one when there is none.
spec_base() {
  if [[ -n ${BASE:-} ]]; then
    git rev-parse --verify -q "$BASE^{commit}" ||
      die "BASE=$BASE is not a commit of this checkout (fetch it first, e.g. git fetch origin main)"
    return
  fi
  local ref
  for ref in refs/heads/main refs/remotes/origin/main; do
    git rev-parse --verify -q "$ref^{commit}" >/dev/null || continue
    git merge-base HEAD "$ref" ||
      die "HEAD has no common history with ${ref#refs/*/} (a shallow clone? git fetch --unshallow). Give the commit to compare the specs with: make test BASE=<commit>"
    return
  done
  die "no base to compare the specs with: this checkout has neither a local main nor origin/main. Give one: make test BASE=<commit or branch>, e.g. BASE=origin/main after git fetch origin main"
}

# has_changelog_entry NAME VERSION: the changelog has the section "## NAME VERSION".
has_changelog_entry() {
  [[ -f $SPEC_CHANGELOG ]] && awk -v want="## $1 $2" '{ sub(/[ \t\r]+$/, "") } $0 == want { found = 1; exit } END { exit !found }' "$SPEC_CHANGELOG"
}

# oasdiff_changes: reads oasdiff's singleline output and prints one "<level>\t<change>" line per
# change (level error, warning or info), the change naming its operation first, as in
# "GET /templates: the response property `data/items/slug` became optional ... [rule-id]". The
# explanation oasdiff adds after "[rule-id]." for some rules is left out.
oasdiff_changes() {
  sed -nE \
    -e 's/^(error|warning|info) at [^,]*, in API ([A-Z]+ [^ ]+) (.*) (\[[a-z0-9-]+\])\.( .*)?$/\1\t\2: \3 \4/p' -e t \
    -e 's/^(error|warning|info) at [^,]*, (.*) (\[[a-z0-9-]+\])\.( .*)?$/\1\t\2 \3/p'
}

# asyncdiff ARGS...: our AsyncAPI comparer (tools/asyncdiff), built into bin/tools when its
# sources are newer than the binary.
asyncdiff() {
  local bin=$TOOLS_ROOT/bin/tools/asyncdiff
  if [[ ! -x $bin || -n $(find "$TOOLS_ROOT/tools/asyncdiff" "$TOOLS_ROOT/tools/go.mod" "$TOOLS_ROOT/tools/go.sum" -newer "$bin" -print -quit) ]]; then
    (cd "$TOOLS_ROOT/tools" && GOWORK=off go build -o "$bin" ./asyncdiff) || return 2
  fi
  "$bin" "$@"
}

# oasdiff ARGS...: the pinned oasdiff (make tools builds it).
oasdiff() {
  [[ -x $TOOLS_ROOT/bin/tools/oasdiff ]] || die "bin/tools/oasdiff is missing: run 'make tools'"
  "$TOOLS_ROOT/bin/tools/oasdiff" "$@"
}
