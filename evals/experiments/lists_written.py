"""Written list topics: list questions over the list split's gold groups, phrased by hand as a
researcher asks about a topic in their own words ("which papers route each token to one of
several specialised sub-networks?" for the mixture-of-experts group), not with the abstracts' term.

    python -m evals.experiments.lists_written build [--data-dir D]   # -> evals/datasets/lists_written.jsonl
    assistant eval --dataset lists_written               # list recall / precision beside the baseline
    python -m evals.lists fit --types list,list_written  # the cut-off's CV over both wordings

**How the questions were made.** A helper of session 8 (issue 21) read the gold abstracts of each
group of evals/datasets/lists.jsonl (every work holding a defined term, evals/lists.py) and wrote
one or two questions per coherent group (52 in all, ``lists_written.source.jsonl``): plain
descriptions of what the papers do, common synonyms, varied frames; the group's rare term is not
copied where a person would not know it, well-known names a person would use are kept ("Mamba",
"BERT-style", "ResNets"). Groups whose term is only mentioned in passing by unrelated works
(artificial intelligence, transformer-based models, context transformer) got none. The writer
had read the gold abstracts and is not independent of this project: the set is tuning data, never
a judge. The gold of each question is its group's works, unchanged. Besides, 12 list questions
about topics no abstract is about (type ``list_absent``, gold empty: earthquakes, federated
learning, Roman history; each checked by grepping the corpus for its words): listing nothing is
right, so a rule that lists by meaning is also scored on what it lists when nothing is relevant.

**The overlap check** (mechanical, per question, against its gold group): ``term_share``, the
IDF-weighted share of the term's words (BM25 terms) that the question writes, or of its acronym's
when that is more (a question written with the acronym holds the term); ``rare_share``, the share of the group's ``N_RARE`` most distinctive
words (the BM25 terms weighted by the share of gold works holding them x IDF, held by at least two
gold works) that the question writes; ``bm25_recall``, the share of the gold among BM25's top
|gold| works for the question. A question is kept when ``term_share <= MAX_TERM_SHARE`` and
``rare_share <= MAX_RARE_SHARE``; ``build`` prints the same figures for the list split's own list
questions beside them.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from evals.data import DATASETS_DIR, LISTS_PATH, load_for_tuning, resolve_anchors

if TYPE_CHECKING:
    from assistant.engine import AnswerEngine

SOURCE_PATH = DATASETS_DIR / "lists_written.source.jsonl"
OUT_PATH = DATASETS_DIR / "lists_written.jsonl"
TYPE = "list_written"
ABSENT = "list_absent"  # a list question about a topic no abstract of the corpus is about (gold: none)
N_RARE = 10  # the group's distinctive words looked at (sanity bound: a topic is named by a few words)
MAX_TERM_SHARE = 0.5  # kept: at most half the term's IDF weight written (the reworded set's "one content word" in spirit)
MAX_RARE_SHARE = 0.3  # kept: fewer than a third of the group's distinctive words written
MADE = ("written by hand by a helper (session 8, issue 21) after reading the gold abstracts; "
        "not an independent writer: tuning data, never a judge")


def rare_words(gold_texts: list[str], idf: Any) -> list[str]:
    """The group's ``N_RARE`` most distinctive BM25 terms: share of gold works holding it x IDF."""
    from assistant.evidence.scoring import terms

    df = Counter(t for text in gold_texts for t in set(terms(text)))
    scored = [(df[t] / len(gold_texts) * idf(t), t) for t in df if df[t] >= 2]
    return [t for _, t in sorted(scored, key=lambda x: (-x[0], x[1]))[:N_RARE]]


def overlaps(engine: AnswerEngine, question: str, names: list[list[str]], gold: set[str], rare: list[str]) -> dict[str, float]:
    from assistant.evidence.scoring import coverage, terms

    q = set(terms(question))
    idf = engine.idf()
    ranked = engine.retriever.signals(question, 3 * len(gold) + 10, names=["bm25"]).get("bm25", [])
    docs = engine.retriever.fetch([d for d, _ in ranked])
    top = list(dict.fromkeys(docs[d].work_id for d, _ in ranked if d in docs))[: len(gold)]
    return {"term_share": round(max(coverage(words, q, idf) for words in names), 3),
            "rare_share": round(sum(t in q for t in rare) / len(rare), 3) if rare else 0.0,
            "bm25_recall": round(len(set(top) & gold) / len(gold), 3) if gold else 0.0}


def _groups() -> dict[str, dict[str, Any]]:
    """Term -> the list split's term-worded list row for it (its gold anchors, acronym)."""
    rows = load_for_tuning(LISTS_PATH)
    return {r["term"]: r for r in rows if r.get("type") == "list" and "topic" not in r}


def build(data_dir: str | None = None) -> dict[str, Any]:
    from assistant.evidence.scoring import terms
    from evals.lists import open

    assistant = open(data_dir)
    engine, docs = assistant.engine, assistant.retriever.docs()
    by_work = {d.work_id: d.original for d in docs.values()}
    groups = _groups()
    source = [json.loads(line) for line in SOURCE_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]
    meta = groups
    figures: dict[str, list[dict[str, float]]] = {"written": [], "written_kept": [], "lists": []}
    rows = []

    def measure(question: str, row: dict[str, Any]) -> dict[str, float]:
        [q], _ = resolve_anchors([row], docs)
        names = [terms(row["term"])] + ([terms(row["acronym"])] if row.get("acronym") else [])
        rare = rare_words([by_work[w] for w in q.gold if w in by_work], engine.idf())
        return overlaps(engine, question, names, q.gold, rare)

    for i, s in enumerate(source, 1):
        if s["term"] is None:  # a topic no abstract is about: nothing should be listed
            rows.append({"id": f"WA{i:03d}", "question": s["question"], "type": ABSENT, "shape": "list", "split": "lists",
                         "gold_anchors": [], "key_points": [], "previous": None, "term": None, "made": MADE})
            continue
        row = meta[s["term"]]
        fig = measure(s["question"], row)
        figures["written"].append(fig)
        if fig["term_share"] <= MAX_TERM_SHARE and fig["rare_share"] <= MAX_RARE_SHARE:
            figures["written_kept"].append(fig)
            rows.append({"id": f"WL{i:03d}", "question": s["question"], "type": TYPE, "shape": "list", "split": "lists",
                         "gold_anchors": row["gold_anchors"], "key_points": [], "previous": None, "term": row["term"],
                         "acronym": row.get("acronym"), "made": MADE, "overlap": fig})
    for r in load_for_tuning(LISTS_PATH):
        if r.get("shape") == "list" and not r.get("previous") and r.get("term") in meta:
            figures["lists"].append(measure(r["question"], meta[r["term"]]) | {"type": r["type"]})
    OUT_PATH.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return {"written": len(source), "kept": len(rows), "absent": sum(r["type"] == ABSENT for r in rows), "bounds": {"term_share": MAX_TERM_SHARE, "rare_share": MAX_RARE_SHARE},
            "mean_overlap": {name: _means(figs) for name, figs in figures.items()}
            | {f"lists:{t}": _means([f for f in figures["lists"] if f["type"] == t]) for t in ("list", "list_reworded")},
            "dropped": [s["question"] for s, f in zip([s for s in source if s["term"]], figures["written"], strict=True)
                        if f["term_share"] > MAX_TERM_SHARE or f["rare_share"] > MAX_RARE_SHARE]}


def _means(figs: list[dict[str, Any]]) -> dict[str, float]:
    keys = ("term_share", "rare_share", "bm25_recall")
    return {"n": len(figs), **{k: round(statistics.fmean(f[k] for f in figs), 3) if figs else float("nan") for k in keys}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.experiments.lists_written", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["build"])
    ap.add_argument("--data-dir", default=None, help="index of the bundled corpus (default: the harness's cache)")
    args = ap.parse_args(argv)
    print(json.dumps(build(args.data_dir), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
