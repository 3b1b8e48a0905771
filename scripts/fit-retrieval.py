#!/usr/bin/env python3
"""Honest folds for the weights of hybrid search (issue 66): each weight is fitted on one part of a
question set and reported on another that shares no document with it, both ways, and one part is
kept aside and scored only in totals, never question by question.

    scripts/fit-retrieval.py QUESTIONS.jsonl --folder F [--lectern BIN] [-- LECTERN_ARGS...]

The parts are those of `lectern eval --part` (by the answering document's file name): A is 1/2,
B is 2/4 and the part kept aside is 4/4 (parts nest: 2/4 and 4/4 make 2/2). On each of A and B the
weights are fitted by coordinate descent from the library's own (`Tuning::FITTED`,
src/tuning.rs) over the grids below, on folder-scope hybrid page R@5 (MRR breaks ties, then
the library's value); the other part reports them. LECTERN_ARGS go before `eval` (for instance
`--home DIR`). Prints Markdown tables for docs/figures.md.
"""

import argparse
import os
import re
import subprocess
import sys

FITTED = {"vector_weight": 0.25, "keyword_full": 0.3, "name_weight": 0.2, "statement_boost": 1.5}
GRIDS = {
    "vector_weight": [0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7],
    "keyword_full": [0.1, 0.2, 0.3, 0.5, 1.0],
    "name_weight": [0.0, 0.1, 0.2, 0.3, 0.5],
    "statement_boost": [0.0, 1.5],
}
FOLDS = {"A": "1/2", "B": "2/4"}
ASIDE = "4/4"
ROW = re.compile(r"^folder\s+all (vector|keyword|hybrid)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")


def evaluate(args, part, tuning, cache={}):
    """Folder-scope figures of every mode on `part` with `tuning`: {mode: (n, R@1, R@5, R@10, R@20, MRR)}."""
    key = (part, tuple(sorted(tuning.items())))
    if key in cache:
        return cache[key]
    tune = ",".join(f"{k}={v}" for k, v in sorted(tuning.items()))
    command = [args.lectern, *args.rest, "eval", args.questions, "--folder", args.folder, "--part", part, "--tune", tune]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    rows = {}
    for line in done.stdout.splitlines():
        match = ROW.match(line)
        if match:
            rows[match[1]] = (int(match[2]), *(float(x) for x in match.groups()[2:]))
    if "hybrid" not in rows:
        sys.exit(f"no 'folder all hybrid' row in the output of {' '.join(command)}:\n{done.stdout}")
    cache[key] = rows
    return rows


def objective(rows):
    """What a fit maximises: hybrid R@5, then MRR."""
    hybrid = rows["hybrid"]
    return (hybrid[2], hybrid[5])


def fit(args, part):
    """The weights coordinate descent finds on `part`, one pass in the order of GRIDS."""
    tuning = dict(FITTED)
    for name, grid in GRIDS.items():
        scored = []
        for value in grid:
            trial = dict(tuning, **{name: value})
            scored.append((objective(evaluate(args, part, trial)), value == FITTED[name], value))
        tuning[name] = max(scored)[2]
        print(f"  {part}: {name} = {tuning[name]} ({max(scored)[0]})", file=sys.stderr)
    return tuning


def figures(rows, mode="hybrid"):
    n, r1, r5, r10, r20, mrr = rows[mode]
    return f"{r1:.3f} | {r5:.3f} | {r10:.3f} | {r20:.3f} | {mrr:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions")
    parser.add_argument("--folder", required=True)
    parser.add_argument("--lectern", default=os.environ.get("LECTERN", "lectern"))
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: len(argv) - len(rest) - (1 if rest or "--" in argv else 0)])
    args.rest = rest

    fitted = {}
    for fold, part in FOLDS.items():
        print(f"fitting on {fold} (part {part})", file=sys.stderr)
        fitted[fold] = fit(args, part)

    names = list(GRIDS)
    print("Weights, the library's and those fitted on each part:\n")
    print("| weights | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    print("| the library's | " + " | ".join(str(FITTED[n]) for n in names) + " |")
    for fold in FOLDS:
        print(f"| fitted on {fold} | " + " | ".join(str(fitted[fold][n]) for n in names) + " |")

    print("\nFolder-scope hybrid search, each part with the weights fitted on the other (unseen) and on itself (seen):\n")
    print("| part | questions | weights | R@1 | R@5 | R@10 | R@20 | MRR |")
    print("|---|---|---|---|---|---|---|---|")
    for fold, part in FOLDS.items():
        other = next(f for f in FOLDS if f != fold)
        rows = evaluate(args, part, FITTED)
        n = rows["hybrid"][0]
        print(f"| {fold} ({part}) | {n} | the library's | {figures(rows)} |")
        print(f"| {fold} ({part}) | {n} | fitted on {other} (unseen) | {figures(evaluate(args, part, fitted[other]))} |")
        print(f"| {fold} ({part}) | {n} | fitted on {fold} (seen) | {figures(evaluate(args, part, fitted[fold]))} |")

    print(f"\nThe part kept aside ({ASIDE}), in totals only; hybrid beside vector at every depth:\n")
    print("| weights | mode | questions | R@1 | R@5 | R@10 | R@20 | MRR |")
    print("|---|---|---|---|---|---|---|---|")
    for label, tuning in [("the library's", FITTED)] + [(f"fitted on {f}", t) for f, t in fitted.items()]:
        rows = evaluate(args, ASIDE, tuning)
        for mode in ("hybrid", "vector"):
            print(f"| {label} | {mode} | {rows[mode][0]} | {figures(rows, mode)} |")


if __name__ == "__main__":
    main()
