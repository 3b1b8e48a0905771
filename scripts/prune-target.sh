#!/usr/bin/env bash
# Keeps a long-lived cargo target directory from filling the disk: every test binary is close to
# 1 GB, and each change of features or dependencies leaves the previous one behind under a new hash.
# Removes executables in debug/deps not run for three days (the tests run every current one, and
# relatime refreshes a file's access time at least daily), incremental caches not touched for three
# days, and, if the disk still has less than 15 GB free, the whole directory (a cold build follows).
# Usage: scripts/prune-target.sh TARGET_DIR
set -euo pipefail
target="${1:?usage: prune-target.sh TARGET_DIR}"
[ -d "$target/debug/deps" ] || exit 0
before=$(du -sm "$target" | cut -f1)
find "$target/debug/deps" -maxdepth 1 -type f -executable ! -name '*.so' -atime +3 -delete
find "$target/debug/incremental" -mindepth 1 -maxdepth 1 -type d -mtime +3 -exec rm -rf {} + 2>/dev/null || true
free_gb=$(( $(df --output=avail -k "$target" | tail -1) / 1048576 ))
if [ "$free_gb" -lt 15 ]; then
    echo "prune-target: only $free_gb GB free; removing $target for a cold build"
    rm -rf "$target"
fi
echo "prune-target: $target went from $before MB to $(du -sm "$target" 2>/dev/null | cut -f1 || echo 0) MB"
