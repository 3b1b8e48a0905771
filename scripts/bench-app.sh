#!/usr/bin/env bash
# The desktop app's figures, each beside its baseline in one run: start to an interactive window
# and idle memory (an empty library against one of 1,000 documents), and the chat box's input
# latency (idle against while 50 PDFs are indexing). Runs the real app under Xvfb through
# tauri-driver, like the end-to-end test; run scripts/test.sh once first for the packages and models.
# The 1,000-document library is the search benchmark's synthetic one, generated on first use
# (LECTERN_BENCH_DATA, default /var/tmp/lectern-bench-search) and opened as a copy.
set -euo pipefail
cd "$(dirname "$0")/.."
export LECTERN_TEST_MODELS="${LECTERN_TEST_MODELS:-$PWD/.models}"
export LECTERN_MODELS="$LECTERN_TEST_MODELS"
data="${LECTERN_BENCH_DATA:-/var/tmp/lectern-bench-search}"
if [ ! -f "$data/1000x300/library/library.sqlite" ]; then
  cargo run -p lectern-bench -- search --sizes 1000 --queries 10 --data "$data"
fi
npm run --prefix ui build
# The app runs its indexer over the library it opens and writes to its catalog: it gets a copy
# (indexes and stored PDFs hard-linked, the catalog copied).
library=$(mktemp -d)
trap 'rm -rf "$library"' EXIT
cp -al "$data/1000x300/library/." "$library/"
for f in "$library"/library.sqlite*; do cp --remove-destination "$data/1000x300/library/$(basename "$f")" "$f"; done
LECTERN_BENCH_LIBRARY="$library" \
  cargo nextest run -p lectern-app --test e2e --run-ignored only --no-capture bench_app
