#!/usr/bin/env bash
# `make check-generated`: runs `make generate` in a clean temporary copy of this checkout (its
# specs, queries and generators as they are in the working tree, gen/ empty but for its module
# files) and compares the result file by file with gen/ here. A file that differs (a hand edit,
# or a spec changed without regenerating), one missing and one extra (stray, untracked or even
# ignored) each fail the check, named. The working tree is not touched.
# It checks the git checkout of the current directory with the tools (bin/tools, node_modules)
# of the checkout holding this script.
set -euo pipefail
TOOLS_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$TOOLS_ROOT/scripts/lib.sh"
cd "$(git rev-parse --show-toplevel)"
# Files under gen/ that no generator writes: the generated code's Go module.
GEN_SOURCES=(gen/go.mod gen/go.sum)
# Build output under gen/ (make sdk compiles the TypeScript SDKs there); not generated, not compared.
GEN_BUILD_OUTPUT=(-path './ts/*/dist')

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
tree=$work/tree
mkdir -p "$tree"
# Every file git tracks or would track, as in the working tree (deleted ones left out), but gen/.
git ls-files -z -co --exclude-standard -- ':(exclude)gen/' |
  while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -C "$tree" -xf -
for f in "${GEN_SOURCES[@]}"; do mkdir -p "$tree/$(dirname "$f")"; cp -p "$f" "$tree/$f"; done
# The directories of gen/ (some generators write into them without creating them).
(cd gen && find . -type d -not \( "${GEN_BUILD_OUTPUT[@]}" -prune \) -print0) | (cd "$tree/gen" && xargs -0 mkdir -p)
# The tools `make tools` built (the check-generated target depends on it): linked, never reinstalled
# here (an npm ci in the copy would empty the linked node_modules).
ln -s "$TOOLS_ROOT/bin" "$tree/bin"
ln -s "$TOOLS_ROOT/node_modules" "$tree/node_modules"

if ! make -C "$tree" --no-print-directory -o tools -o node_modules/.package-lock.json generate >"$work/generate.log" 2>&1; then
  cat "$work/generate.log" >&2
  die "make generate failed in a clean copy of this checkout (above)"
fi

list() { (cd "$1" && find . \( "${GEN_BUILD_OUTPUT[@]}" \) -prune -o \( -type f -o -type l \) -print | sed 's|^\./|gen/|' | LC_ALL=C sort); }
list "$tree/gen" >"$work/want"
list gen >"$work/have"
bad=0
while IFS= read -r f; do
  echo "$f: missing (make generate writes it)"; bad=1
done < <(LC_ALL=C comm -23 "$work/want" "$work/have")
while IFS= read -r f; do
  echo "$f: extra (make generate does not write it)"; bad=1
done < <(LC_ALL=C comm -13 "$work/want" "$work/have")
while IFS= read -r f; do
  cmp -s "$tree/$f" "$f" && continue
  echo "$f: differs from what make generate writes"; bad=1
  diff -u --label "$f (generated)" --label "$f" "$tree/$f" "$f" | head -n 20 | sed 's/^/    /'
done < <(LC_ALL=C comm -12 "$work/want" "$work/have")
if ((bad)); then
  echo "gen/ is not what the specs and queries produce: run 'make generate' (never edit gen/ by hand), delete the extra files, and commit gen/"
  exit 1
fi
log "gen/ is what the specs and queries produce"
