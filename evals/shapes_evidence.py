"""Overviews the frames miss, detected from the retrieval evidence (helper G2, session 13, #21).

    python -m evals.shapes_evidence features [--data-dir D]   # -> evals/runs/_cache/shape-evidence-features.jsonl (cached)
    python -m evals.shapes_evidence fit                       # 5-fold CV of the rules -> evals/fits/shapes_evidence.json
    python -m evals.shapes_evidence holdout                   # the SQ* batch, once: today and with the logistic rule

An overview asks about a topic that many abstracts address alike, none standing out, and names no
one work; a single fact is usually answered by one abstract that stands out from the rest. After
retrieval the engine knows, for the abstracts it read, each one's relevance as if found alone
(``Turn.relevances``), the cosines of the best hits (``Turn.lists``) and the best sentence of each
abstract read (``Turn.evidence``); and, at the cost of a second retrieval, the list path's relevances of the
best 40 abstracts for the whole question (``topics.candidates``: how many reach the list cut-off). This tool records those for every labelled tuning question the
frames read as a fact and that names no work (``assistant.language.names.names``), and fits a rule
"overview when the evidence is flat" by 5-fold CV with a fact read as an overview weighted high.

Tuning questions only: the facts of shape_facts_written, shapes_written (not SQ*), dev,
paraphrase_written, calibration, generated; the overviews of overview_written and shapes_written
(not SQ*). The SQ* batch ("_holdout2") is judged once, after the fit (``holdout``).

Not shipped: no rule adds overviews at the brief's cost (at most ~1% of facts read as overviews);
figures in docs/measurements.md, "Session 13, helper G2".
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evals.data import load_for_tuning, resolve_path
from evals.shapes_written import PATH as SHAPES_PATH

CACHE = Path(__file__).resolve().parent / "runs" / "_cache" / "shape-evidence-features.jsonl"  # inside the clone (evals/runs/ is ignored)
FIT_PATH = Path(__file__).parent / "fits" / "shapes_evidence.json"
FACT_SPLITS = ("shape_facts_written", "dev", "paraphrase_written", "calibration", "generated")
OVERVIEW_SPLITS = ("overview_written",)
FACT_TYPES = {"lookup", "paraphrase", "numeric", "unanswerable", "short", "fact_written"}
HOLDOUT_PREFIX = "SQ"


def labelled(holdout: bool = False) -> list[dict[str, Any]]:
    """{group, id, question, shape} for the tuning questions (``holdout``: the SQ* batch only)."""
    out: list[dict[str, Any]] = []
    if not holdout:
        for name in FACT_SPLITS + OVERVIEW_SPLITS:
            for r in load_for_tuning(resolve_path(name)[1]):
                t = r.get("type", "")
                shape = "fact" if t in FACT_TYPES else "overview" if t == "overview" else None
                if shape and not r.get("previous"):
                    out.append({"group": name, "id": r["id"], "question": r["question"], "shape": shape})
    for r in load_for_tuning(SHAPES_PATH):
        if r["shape"] in ("fact", "overview") and r["id"].startswith(HOLDOUT_PREFIX) == holdout:
            out.append({"group": f"shapes_written:{r['id'][:2]}", "id": r["id"], "question": r["question"], "shape": r["shape"]})
    seen: set[str] = set()
    return [r for r in out if not (r["question"].lower() in seen or seen.add(r["question"].lower()))]


def evidence_of(engine: Any, question: str, k: int) -> dict[str, Any]:
    """The evidence features of ``question`` as the fact path leaves them (``AnswerEngine.analyze``)."""
    turn = engine.analyze(question, k)
    ids = [d.doc_id for d, _ in turn.hits]
    chunk, abstract = dict(turn.lists.get("chunk", [])), dict(turn.lists.get("abstract", []))
    best = []
    for i in range(len(turn.evidence.texts) if turn.evidence else 0):
        sents = turn.evidence.of_doc(i)
        best.append(max((0.5 * s.lexical + 0.5 * s.dense for s in sents), default=0.0))
    cfg = engine.settings.collection
    from assistant.collection.topics import candidates

    listed = sorted((c.relevance(cfg.lexical_weight) for c in candidates(engine.parts, question, 40)), reverse=True)
    return {"listed": [round(v, 4) for v in listed[:20]], "cutoff": cfg.cutoff, "relevances": [round(r, 4) for r in turn.relevances],
            "outcome": turn.decision.outcome if turn.decision else "refuse",
            "chunk": [round(chunk.get(d, 0.0), 4) for d in ids], "abstract": [round(abstract.get(d, 0.0), 4) for d in ids],
            "chunk_list": [round(s, 4) for _, s in turn.lists.get("chunk", [])[:20]],
            "abstract_list": [round(s, 4) for _, s in turn.lists.get("abstract", [])[:20]],
            "bm25_list": [round(s, 4) for _, s in turn.lists.get("bm25", [])[:20]],
            "sentence": [round(b, 4) for b in best],
            "features": {k2: round(v, 4) for k2, v in (turn.decision.features if turn.decision else {}).items()}}


def features(data_dir: str | None, holdout: bool = False, path: Path = CACHE) -> list[dict[str, Any]]:
    """Every labelled question's frame reading, names and evidence (cached by question)."""
    from assistant.language.names import names
    from assistant.question.shape import detect
    from evals.lists import open

    cached = {}
    if path.exists():
        cached = {json.loads(x)["question"]: json.loads(x) for x in path.read_text().splitlines() if x.strip()}
    rows = labelled(holdout)
    engine = None
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        for r in rows:
            if r["question"] in cached:
                continue
            if engine is None:
                engine = open(data_dir).engine
            r = {**r, "frame": detect(r["question"]).kind, "names": names(r["question"])}
            if r["shape"] == "fact" and (r["frame"] != "fact" or r["names"]) and not holdout:
                continue  # the rule never sees it (a named work, or the frames read another shape)
            r.update(evidence_of(engine, r["question"], 5))
            cached[r["question"]] = r
            out.write(json.dumps(r) + "\n")
            out.flush()
    return [cached[r["question"]] for r in rows if r["question"] in cached]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["features", "fit", "holdout"])
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args(argv)
    if args.command == "features":
        rows = features(args.data_dir)
        print(f"{len(rows)} questions -> {CACHE}")
        return 0
    from evals.shapes_evidence_fit import fit, holdout

    tuning = features(args.data_dir)
    result = fit(tuning) if args.command == "fit" else holdout(features(args.data_dir, holdout=True), tuning)
    if args.command == "fit":
        FIT_PATH.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
