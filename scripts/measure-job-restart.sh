#!/usr/bin/env bash
# A job of PDFs added over `lectern serve`, followed by `lectern jobs tail` from another process
# while the server is killed part way and started again: prints the entries the tail printed,
# the job's log in the catalog, and how many of them the tail missed (docs/figures.md, "Indexing
# jobs"). Usage: scripts/measure-job-restart.sh [PDF files or directories] (default: corpus/pdfs).
# Needs a built `lectern` (LECTERN, default target/debug/lectern) and the models
# (LECTERN_MODELS). Runs in a temporary library, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
LECTERN=${LECTERN:-target/debug/lectern}
if [ $# -eq 0 ]; then set -- corpus/pdfs; fi
HOME_DIR=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$HOME_DIR"' EXIT
export LECTERN_KEYRING=off
lectern() { "$LECTERN" --home "$HOME_DIR" "$@"; }

serve() {
    lectern serve --listen 127.0.0.1:0 2>"$HOME_DIR/serve.$1.log" &
    SERVER=$!
    until grep -q "serving the library at" "$HOME_DIR/serve.$1.log"; do sleep 0.2; done
    BASE=$(grep -o 'http://[^ ]*/v1' "$HOME_DIR/serve.$1.log" | head -1)
}

TOKEN=$(lectern serve --show-token)
lectern folder create Jobs >/dev/null
serve 1
PATHS=$(python3 -c 'import json,os,sys; print(json.dumps([os.path.realpath(p) for p in sys.argv[1:]]))' "$@")
JOB=$(curl -sf "$BASE/jobs" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d "{\"folder\": \"Jobs\", \"paths\": $PATHS}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
echo "job $JOB: $(find "$@" -name '*.pdf' | wc -l) PDF file(s)"
lectern jobs tail "$JOB" --json >"$HOME_DIR/tail.jsonl" &
TAIL=$!

# Killed once a quarter of the documents are read, and started again.
TOTAL=$(lectern jobs show "$JOB" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["documents"])')
while [ "$(lectern jobs show "$JOB" --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["documents"]-j["left"])')" -lt $((TOTAL / 4)) ]; do
    sleep 0.5
done
kill -9 "$SERVER"; wait "$SERVER" 2>/dev/null || true
echo "server killed at $(lectern jobs show "$JOB" --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["documents"]-j["left"], "of", j["documents"], "documents")')"
serve 2
wait "$TAIL" || true
kill "$SERVER"

lectern jobs show "$JOB"
python3 - "$HOME_DIR/tail.jsonl" <<EOF
import json, sqlite3, sys
tailed = [json.loads(line)["id"] for line in open(sys.argv[1])]
db = sqlite3.connect("$HOME_DIR/library.sqlite")
logged = [r[0] for r in db.execute("SELECT id FROM job_events WHERE job_id = ? ORDER BY id", ("$JOB",))]
print(f"entries in the job's log: {len(logged)}; printed by the tail: {len(tailed)}; "
      f"missed: {len(set(logged) - set(tailed))}; printed twice: {len(tailed) - len(set(tailed))}")
EOF
