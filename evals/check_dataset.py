"""Check the dev question set against the abstracts corpus.

Usage: python -m evals.check_dataset [path]   (default: evals/datasets/dev.jsonl)
Importable: check(path) -> list of problems (empty when the file is valid).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR, DEFAULT_PATH = ROOT / "data" / "abstracts", ROOT / "evals" / "datasets" / "dev.jsonl"
TYPES = ("lookup", "paraphrase", "numeric", "multi", "followup", "unanswerable")
SPLITS = ("tune", "test")
STR_FIELDS, LIST_FIELDS = ("id", "question", "type", "split"), ("gold_anchors", "key_points")
MINIMA = (100, 16, 10)  # questions in all, unanswerable ones, adjacent unanswerable ones


def norm(text: str) -> str:
    return " ".join(text.split())


def load_paragraphs(corpus_dir: Path = CORPUS_DIR) -> list[str]:
    """Distinct abstracts, whitespace-normalised, without the lone 'Daily Papers' header lines."""
    seen: dict[str, None] = {}
    for f in sorted(corpus_dir.glob("*.txt")):
        for block in re.split(r"\n\s*\n", f.read_text(encoding="utf-8")):
            text = norm(" ".join(ln for ln in block.splitlines() if ln.strip() != "Daily Papers"))
            if text:
                seen[text] = None
    return list(seen)


def locate(anchor: Any, paras: list[str], where: str, problems: list[str]) -> list[int]:
    """Distinct abstracts containing the anchor: 1 is normal, 2 means two versions of a paper."""
    hits = [i for i, p in enumerate(paras) if norm(str(anchor)) in p]
    if not 8 <= len(str(anchor).split()) <= 20:
        problems.append(f"{where}: anchor should have 8-20 words: {anchor!r}")
    if not hits or len(hits) > 2:
        problems.append(f"{where}: anchor matches {len(hits)} distinct abstracts: {anchor!r}")
    elif len(hits) == 2:
        print(f"note {where}: anchor found in 2 versions of a paper: {str(anchor)[:40]!r}")
    return hits


def check_record(rec: dict[str, Any], where: str, paras: list[str], problems: list[str]) -> None:
    bad = [f for f in STR_FIELDS if not isinstance(rec.get(f), str)]
    bad += [f for f in LIST_FIELDS if not isinstance(rec.get(f), list)]
    bad += [] if "previous" in rec else ["previous"]
    if bad or rec["type"] not in TYPES or rec["split"] not in SPLITS or not rec["question"].strip():
        problems.append(f"{where}: bad or missing fields {bad or ['type/split/question']}")
        return
    qtype, anchors, points = rec["type"], rec["gold_anchors"], rec["key_points"]
    gold: list[int] = []
    for anchor in anchors:
        hits = locate(anchor, paras, where, problems)
        if hits and hits[0] in gold:
            problems.append(f"{where}: two gold anchors point to the same abstract")
        gold += hits
    if "near_anchor" in rec:
        if qtype != "unanswerable":
            problems.append(f"{where}: near_anchor only belongs on unanswerable questions")
        locate(rec["near_anchor"], paras, where, problems)
    if qtype == "unanswerable":
        if anchors or points:
            problems.append(f"{where}: unanswerable question has gold anchors or key points")
        return
    if not anchors or (qtype == "multi" and not 2 <= len(anchors) <= 4):
        problems.append(f"{where}: {len(anchors)} gold anchors (multi: 2-4, others: >= 1)")
    if not 1 <= len(points) <= 3:
        problems.append(f"{where}: needs 1-3 key points, has {len(points)}")
    for point in map(str, points):
        if len(point.split()) > 4:
            problems.append(f"{where}: key point longer than 4 words: {point!r}")
        if gold and not any(point.lower() in paras[i].lower() for i in gold):
            problems.append(f"{where}: key point not in any gold abstract: {point!r}")


def check(path: str | Path = DEFAULT_PATH) -> list[str]:
    """Validate the file; print counts per type and split; return the problems found."""
    paras, problems = load_paragraphs(), list[str]()
    splits: dict[str, str] = {}
    counts: Counter[tuple[str, str]] = Counter()
    adjacent = 0
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            rec = None
        if not isinstance(rec, dict):
            problems.append(f"line {lineno}: not a JSON object")
            continue
        qid, prev, qtype, split = (str(rec.get(k)) for k in ("id", "previous", "type", "split"))
        where = f"line {lineno} ({qid})"
        check_record(rec, where, paras, problems)
        if qid in splits:
            problems.append(f"{where}: duplicate id")
        if qtype == "followup" and splits.get(prev) != split:
            problems.append(f"{where}: previous {prev!r} is not an earlier id with the same split")
        elif qtype != "followup" and rec.get("previous") is not None:
            problems.append(f"{where}: previous must be null unless type is followup")
        splits[qid] = split
        counts[(qtype, split)] += 1
        adjacent += int(qtype == "unanswerable" and "near_anchor" in rec)
    rows = {t: [counts[(t, s)] for s in SPLITS] for t in TYPES}
    problems += [f"type {t!r} is missing from a split" for t, row in rows.items() if 0 in row]
    total, unanswerable = sum(counts.values()), sum(rows["unanswerable"])
    if any(n < m for n, m in zip((total, unanswerable, adjacent), MINIMA, strict=True)):
        problems.append(f"too few: total/unanswerable/adjacent {total}/{unanswerable}/{adjacent}")
    print(f"{'type':<14}{'tune':>6}{'test':>6}{'total':>7}")
    for t, (tune, test) in rows.items():
        print(f"{t:<14}{tune:>6}{test:>6}{tune + test:>7}")
    print(f"{'all':<14}{'':>12}{total:>7}  ({adjacent} adjacent unanswerable)")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    problems = check(args[0] if args else DEFAULT_PATH)
    for problem in problems:
        print(f"PROBLEM {problem}")
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
