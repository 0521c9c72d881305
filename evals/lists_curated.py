"""Curated list questions: "which papers…" asked as a researcher asks, with a gold set judged by
reading (``evals/datasets/lists_curated_written.jsonl``; helper E1, session 12, issue 21).

    python -m evals.lists_curated check [--data-dir D]    # validate the rows against the corpus
    assistant eval --dataset lists_curated_written        # list recall / precision beside the baseline
    python -m evals.lists fit --types list,list_curated,list_absent   # the list rule's CV with them

**Why.** ``lists_written`` takes as gold every work that writes a defined term, so many of its gold
works mention the term in passing and a list of the abstracts really about the topic scores low
there. Users ask about topics the collection covers a handful of times ("which papers here study
X?"), and the right list is the few abstracts that are about it.

**How the rows were made.** For each of 25 topics the corpus covers, the writer searched the
corpus several ways (the assistant's hybrid search for a description of the topic, k 8-15, and
regular expressions for the topic's usual words over every abstract) and read each candidate:
``judged_in`` are the abstracts whose main contribution or a stated finding is about the topic,
``judged_out`` the candidates read and left out (a passing mention, a neighbouring subject). The
question was then written in the writer's own words, mostly without the abstracts' rare terms
(type ``list_curated``); three of the topics are asked once more as overviews (type
``overview``). Six topics no abstract is about (type ``list_absent``, gold empty) carry the words
that would name them (``absent_words``), none of which any abstract writes. The writer works on
this project and read the candidates: tuning data, never a judge (each row's ``made``).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from evals.data import DATASETS_DIR, _norm, load_for_tuning

PATH = DATASETS_DIR / "lists_curated_written.jsonl"
TYPE = "list_curated"
ABSENT = "list_absent"
TYPES = (TYPE, "overview", ABSENT)


def _works_of(anchor: str, texts: list[tuple[str, str, str]]) -> set[str]:
    a = _norm(anchor)
    return {w for t, o, w in texts if a in t or a in o}


def check(docs: dict[str, Any], rows: list[dict[str, Any]] | None = None) -> list[str]:
    """Problems of the curated rows against the stored abstracts (``docs``: doc id -> StoredDoc): an
    anchor that names no work or more than one, a work judged both in and out, a gold set other than
    the works judged in, an absent topic with a gold work or whose ``absent_words`` an abstract writes,
    an unknown type, a question without a '?' or '.' at its end."""
    rows = load_for_tuning(PATH) if rows is None else rows
    texts = [(_norm(d.text), " ".join(d.original.split()), d.work_id) for d in docs.values()]
    problems: list[str] = []
    for r in rows:
        rid = r["id"]
        if r.get("type") not in TYPES:
            problems.append(f"{rid}: type {r.get('type')!r} not in {TYPES}")
        if not r["question"].rstrip().endswith(("?", ".")):
            problems.append(f"{rid}: the question does not end a sentence")
        judged: dict[str, set[str]] = {}
        for key in ("judged_in", "judged_out", "gold_anchors"):
            judged[key] = set()
            for anchor in r.get(key, []):
                works = _works_of(anchor, texts)
                if len(works) != 1:
                    problems.append(f"{rid}: {key} anchor names {len(works)} works: {anchor[:50]!r}")
                judged[key] |= works
        if judged["judged_in"] & judged["judged_out"]:
            problems.append(f"{rid}: judged both in and out: {sorted(judged['judged_in'] & judged['judged_out'])}")
        if judged["gold_anchors"] != judged["judged_in"]:
            problems.append(f"{rid}: gold differs from the works judged in")
        if r.get("type") == ABSENT:
            if judged["gold_anchors"]:
                problems.append(f"{rid}: an absent topic with gold works")
            for word in r.get("absent_words", []):
                pattern = re.compile(rf"\b{re.escape(word)}", re.I)
                if any(pattern.search(o) for _, o, _ in texts):
                    problems.append(f"{rid}: an abstract writes {word!r}")
        elif not judged["judged_in"]:
            problems.append(f"{rid}: no work judged in")
    return problems


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    gold = [len(r["judged_in"]) for r in rows if r["type"] == TYPE]
    return {"rows": len(rows), "by_type": {t: sum(r["type"] == t for r in rows) for t in TYPES},
            "gold_sizes": {"min": min(gold), "max": max(gold), "mean": round(sum(gold) / len(gold), 2)},
            "judged_out": sum(len(r["judged_out"]) for r in rows if r["type"] == TYPE)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.lists_curated", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["check"])
    ap.add_argument("--data-dir", default=None, help="index of the bundled corpus (default: the harness's cache)")
    args = ap.parse_args(argv)
    from evals.lists import _open

    rows = load_for_tuning(PATH)
    problems = check(_open(args.data_dir).retriever.docs(), rows)
    print(json.dumps({"problems": problems, **summary(rows)}, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
