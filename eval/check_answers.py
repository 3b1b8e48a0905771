#!/usr/bin/env python3
"""Check eval/answers.jsonl against the PDFs' text (poppler's pdftotext).

For every answerable line:
  - the document exists (eval/docs/ first, then the repository's corpus/pdfs/);
  - every listed page exists and its `pdftotext -f N -l N` text (reading order, or else
    `-layout` mode, which keeps table rows together), whitespace-collapsed, contains the
    line's `evidence`:
      * a string: it must be on every listed page, and no other page of the document may
        contain it (so `pages` lists every page with the evidence) unless that page is in
        `ignore_pages` (index or table-of-contents hits);
      * a list (multi-page answers): every listed page must contain at least one item and
        every item must be on at least one listed page.
For every unanswerable line: its `absent` terms (case-insensitive) never all occur in one
document of the set (the documents that the answerable lines use).
Also checks the schema (ids, kinds, follow-ups, counts per kind).

Usage: python3 eval/check_answers.py [--corpus corpus/pdfs] [-v]
Needs poppler-utils (pdftotext, pdfinfo). Exit status 0 when everything passes.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"table", "text", "manual", "multi", "followup", "unanswerable"}
MINIMUM = {"table": 30, "manual": 15, "followup": 8, "unanswerable": 12}
BIDI = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def collapse(s):
    return " ".join(BIDI.sub("", s).split())


class Docs:
    def __init__(self, corpus):
        self.dirs = [os.path.join(HERE, "docs"), corpus]
        self.pages_cache = {}
        self.layout_cache = {}

    def path(self, name):
        for d in self.dirs:
            p = os.path.join(d, name)
            if os.path.isfile(p):
                return p
        return None

    def all_pages(self, name, layout=False):
        cache = self.layout_cache if layout else self.pages_cache
        if name not in cache:
            cmd = ["pdftotext"] + (["-layout"] if layout else []) + [self.path(name), "-"]
            out = subprocess.run(cmd, capture_output=True, text=True, errors="replace").stdout
            pages = out.split("\f")
            if pages and not pages[-1].strip():
                pages = pages[:-1]
            cache[name] = [collapse(p) for p in pages]
        return cache[name]

    def page(self, name, n):
        """Page text in reading order and in -layout mode (table rows stay together)."""
        texts = []
        for mode in ([], ["-layout"]):
            out = subprocess.run(["pdftotext"] + mode + ["-f", str(n), "-l", str(n), self.path(name), "-"],
                                 capture_output=True, text=True, errors="replace").stdout
            texts.append(collapse(out))
        return "\n".join(texts)

    def count(self, name):
        info = subprocess.run(["pdfinfo", self.path(name)], capture_output=True, text=True,
                              errors="replace").stdout
        m = re.search(r"^Pages:\s+(\d+)", info, re.M)
        return int(m.group(1)) if m else len(self.all_pages(name))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=os.path.join(HERE, "answers.jsonl"))
    ap.add_argument("--corpus", default=os.path.join(os.environ.get("LECTERN_CORPUS", os.path.join(HERE, "..", "corpus")), "pdfs"))
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    docs = Docs(args.corpus)
    lines = [json.loads(l) for l in open(args.file, encoding="utf-8") if l.strip()]
    errors, passed = [], 0
    seen = {}
    kinds = Counter()

    def fail(q, msg):
        errors.append(f"{q.get('id', '?')}: {msg}")

    for q in lines:
        n_err = len(errors)
        qid = q.get("id")
        kinds[q.get("kind")] += 1
        if not qid or qid in seen:
            fail(q, "missing or duplicate id")
        if q.get("kind") not in KINDS:
            fail(q, f"bad kind {q.get('kind')!r}")
        if not q.get("question"):
            fail(q, "empty question")
        if "after" in q:
            if q["after"] not in seen:
                fail(q, f"after={q['after']} is not an earlier id")
            if q.get("kind") != "followup":
                fail(q, "has 'after' but kind is not followup")
        elif q.get("kind") == "followup":
            fail(q, "followup without 'after'")
        seen[qid] = q

        if q.get("kind") == "unanswerable":
            if q.get("answer") is not None or q.get("doc") is not None or q.get("pages") != []:
                fail(q, "unanswerable needs answer null, doc null, pages []")
            if not q.get("absent"):
                fail(q, "unanswerable needs 'absent' terms")
            if len(errors) == n_err:
                passed += 1
            continue

        ans = q.get("answer")
        if not isinstance(ans, str) or not ans.strip():
            fail(q, "empty answer")
        elif len(ans.split()) > 8:
            fail(q, f"answer longer than 8 words: {ans!r}")
        name = q.get("doc")
        if not name or not docs.path(name):
            fail(q, f"document not found: {name}")
            continue
        pages = q.get("pages") or []
        if not pages:
            fail(q, "no pages")
            continue
        total = docs.count(name)
        ev = q.get("evidence")
        if not ev:
            fail(q, "no evidence")
            continue
        items = [ev] if isinstance(ev, str) else list(ev)
        found_items = set()
        for p in pages:
            if not (1 <= p <= total):
                fail(q, f"page {p} out of range 1..{total}")
                continue
            text = docs.page(name, p)
            hits = [e for e in items if collapse(e) in text]
            found_items.update(hits)
            if isinstance(ev, str) and not hits:
                fail(q, f"evidence {ev!r} not on page {p}")
            elif not hits:
                fail(q, f"none of the evidence items on page {p}")
        for e in items:
            if e not in found_items:
                fail(q, f"evidence item {e!r} on none of the listed pages")
        if args.verbose and not isinstance(ev, str):
            raw, lay = docs.all_pages(name), docs.all_pages(name, layout=True)
            for e in items:
                more = [i + 1 for i in range(len(raw)) if i + 1 not in pages
                        and (collapse(e) in raw[i] or (i < len(lay) and collapse(e) in lay[i]))]
                if more:
                    print(f"note {qid}: evidence item {e!r} also on pages {more}")
        if isinstance(ev, str):
            ignore = set(q.get("ignore_pages", []))
            raw, lay = docs.all_pages(name), docs.all_pages(name, layout=True)
            elsewhere = [i + 1 for i in range(max(len(raw), len(lay)))
                         if (collapse(ev) in (raw[i] if i < len(raw) else "")
                             or collapse(ev) in (lay[i] if i < len(lay) else ""))
                         and i + 1 not in pages and i + 1 not in ignore]
            if elsewhere:
                fail(q, f"evidence {ev!r} also on unlisted pages {elsewhere}")
        if len(errors) == n_err:
            passed += 1
            if args.verbose:
                print(f"ok   {qid} {name} {pages}")

    # unanswerable: absent terms never co-occur in one document of the set
    set_docs = sorted({q["doc"] for q in lines if q.get("doc") and docs.path(q["doc"])})
    for q in lines:
        if q.get("kind") != "unanswerable" or not q.get("absent"):
            continue
        terms = [t.lower() for t in q["absent"]]
        for name in set_docs:
            full = (" ".join(docs.all_pages(name)) + " " +
                    " ".join(docs.all_pages(name, layout=True))).lower()
            if all(t in full for t in terms):
                fail(q, f"absent terms {q['absent']} all occur in {name}")
                passed -= 1
                break

    for kind, minimum in MINIMUM.items():
        if kinds[kind] < minimum:
            errors.append(f"only {kinds[kind]} {kind} lines (need {minimum})")
    if len(lines) < 90:
        errors.append(f"only {len(lines)} lines (need 90)")

    for e in errors:
        print("FAIL", e)
    print("kinds:", dict(sorted(kinds.items())), "total:", len(lines))
    print("documents:", ", ".join(set_docs))
    print(f"{passed} passed, {len(lines) - passed} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
