#!/usr/bin/env bash
# The desktop app's figures, each beside its baseline in one run: start to an interactive window
# and idle memory (an empty library against one of 1,000 documents), and the chat box's input
# latency (idle against while 50 PDFs are indexing). With `--large`: the window on a library of
# 10,000 documents against one of 1,000 (start, the tree's first paint, scrolling, opening a
# folder, the library's state, instant search). Runs the real app under Xvfb through
# tauri-driver, like the end-to-end test; run scripts/test.sh once first for the packages and models.
# LECTERN_E2E_APP=/usr/bin/lectern-app measures the installed package's release build instead of
# the development build (scripts/package.sh makes the package).
# The libraries are the search benchmark's synthetic ones, generated on first use
# (LECTERN_BENCH_DATA, default /var/tmp/lectern-bench-search) and opened as copies.
set -euo pipefail
cd "$(dirname "$0")/.."
# Built as the tests are (scripts/cargo-env.sh), so that their build is reused.
. scripts/cargo-env.sh
export LECTERN_TEST_MODELS="${LECTERN_TEST_MODELS:-$PWD/.models}"
export LECTERN_MODELS="$LECTERN_TEST_MODELS"
data="${LECTERN_BENCH_DATA:-/var/tmp/lectern-bench-search}"
large=false
[ "${1:-}" = "--large" ] && large=true
if [ ! -f "$data/1000x300/library/library.sqlite" ]; then
  cargo run -p lectern-bench -- search --sizes 1000 --queries 10 --data "$data"
fi
if $large && [ ! -f "$data/1000-3000-10000x300/library/library.sqlite" ]; then
  cargo run -p lectern-bench -- search --sizes 1000,3000,10000 --only 10000 --queries 10 --data "$data"
fi
npm run --prefix ui build
# The app runs its indexer over the library it opens and writes to its catalog: it gets a copy
# (indexes and stored PDFs hard-linked, the catalog copied).
small=$(mktemp -d)
large_library=$(mktemp -d)
trap 'rm -rf "$small" "$large_library"' EXIT
copy() {
  cp -al "$1/." "$2/"
  for f in "$2"/library.sqlite*; do cp --remove-destination "$1/$(basename "$f")" "$f"; done
}
copy "$data/1000x300/library" "$small"
if $large; then
  copy "$data/1000-3000-10000x300/library" "$large_library"
  LECTERN_BENCH_LIBRARY="$small" LECTERN_BENCH_LARGE_LIBRARY="$large_library" \
    cargo nextest run -p lectern-app --test e2e --run-ignored only --no-capture bench_large_library
else
  LECTERN_BENCH_LIBRARY="$small" \
    cargo nextest run -p lectern-app --test e2e --run-ignored only --no-capture bench_app
fi
