#!/usr/bin/env bash
# Measures the relevance floors' data: the cosine similarity of the best passage (vector search)
# and the best passage's share of the question's keyword weight (keyword search), for questions the
# documents answer (a JSONL set of `lectern eval`) and for questions they do not (one per line),
# over a folder of a library. Usage:
#   scripts/measure-floor.sh FOLDER ANSWERABLE.jsonl UNANSWERABLE.txt   (lectern on PATH or $LECTERN)
set -euo pipefail
folder=$1 answerable=$2 unanswerable=$3
lectern=${LECTERN:-lectern}
best() {
  "$lectern" search "$1" --folder "$folder" --mode "$2" --k 10 --json |
    python3 -c 'import json,sys; h=json.load(sys.stdin)["hits"]; print(max([x["components"][sys.argv[1]] or 0 for x in h], default=0))' "$3"
}
report() {
  sort -n | python3 -c '
import sys
v = [float(x) for x in sys.stdin]
q = lambda p: v[min(len(v) - 1, int(p * len(v)))]
print(f"{sys.argv[1]:<26} n={len(v):>3}  min {v[0]:.3f}  p10 {q(0.1):.3f}  median {q(0.5):.3f}  p90 {q(0.9):.3f}  max {v[-1]:.3f}")' "$1"
}
answerable() { python3 -c 'import json,sys; [print(json.loads(l)["question"]) for l in open(sys.argv[1]) if l.strip()]' "$answerable"; }
unanswerable() { grep -v '^$' "$unanswerable"; }
for measure in "vector vector cosine" "keyword keyword_share share"; do
  set -- $measure
  answerable | while IFS= read -r q; do best "$q" "$1" "$2"; done | report "answerable, $3"
  unanswerable | while IFS= read -r q; do best "$q" "$1" "$2"; done | report "unanswerable, $3"
done
