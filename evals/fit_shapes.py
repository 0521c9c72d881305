"""Fit the learned question-shape reader (``assistant.question.shape_learned``) on readers' labelled questions.

    python -m evals.fit_shapes cv    # CV by batch: learned, the frame rules, and both
    python -m evals.fit_shapes fit   # writes assistant/models/shape.json

The labels: every question of ``evals/datasets/questions_written.jsonl`` (readers' batches W1-W4,
``questions_written.meta.json``) and the earlier hand-written shape sets (``shapes_written*``,
``shape_facts_written``, ``overview_written``, ``lists_written``, ``lists_curated_written``,
``lists_absent_written``, and the first questions of ``lists``, ``lists_followups_written`` and
``followups_meaning_written``). A follow-up's shape is what it asks for itself (``followup_shape``).
Features: TF-IDF of the question's word 1-3-grams and whether it follows an earlier turn. The
frame rules' reading (``assistant.question.shape.detect``) is reported beside it on the same folds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
DATASETS = ROOT / "datasets"
MODEL = ROOT.parent / "assistant" / "models" / "shape.json"
KINDS = ("fact", "list", "compare", "overview")
OLD_SETS = ("shapes_written", "shapes_written_holdout3", "shapes_written_holdout4", "shapes_written_holdout5",
            "shape_facts_written", "overview_written", "lists_written", "lists_curated_written", "lists_absent_written",
            "lists", "lists_followups_written", "followups_meaning_written")
C_REG = 10.0  # inverse L2 strength (CV: 3 and 10 within the spread)


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def labelled() -> list[dict[str, Any]]:
    out = []
    for r in _rows(DATASETS / "questions_written.jsonl"):
        kind = r.get("followup_shape") if r["shape"] == "followup" else r["shape"]
        if kind in KINDS:
            out.append({"question": r["question"], "kind": kind, "history": r.get("history") or [],
                        "batch": r["id"].split("-")[0]})
    for name in OLD_SETS:
        for r in _rows(DATASETS / f"{name}.jsonl"):
            if r.get("previous") and name in ("lists", "lists_followups_written", "followups_meaning_written"):
                continue  # a follow-up on a list keeps the frames' reading (shape.learned_shape)
            kind = r.get("shape") or r.get("type")
            history = [{"role": "user", "content": "(earlier question)"}] if r.get("previous") else []
            if kind in KINDS:
                out.append({"question": r["question"], "kind": kind, "history": history, "batch": "earlier"})
    return out


NGRAMS = (1, 3)  # word n-grams (CV: 1-3 above 1-2 and 1; the MiniLM vector added no gain beyond the spread)
MIN_DF = 2


def features(rows: list[dict[str, Any]]) -> dict[str, Any]:
    from assistant.question.shape import detect

    rules = np.zeros((len(rows), len(KINDS)), np.float32)
    for i, r in enumerate(rows):
        rules[i, KINDS.index(detect(r["question"], previous_was_list=bool(r["history"])).kind)] = 1.0
    return {"text": [r["question"] for r in rows], "follows": np.asarray([1.0 if r["history"] else 0.0 for r in rows]),
            "rules": rules, "y": np.asarray([KINDS.index(r["kind"]) for r in rows]),
            "batch": np.asarray([r["batch"] for r in rows])}


def _fit(texts: list[str], follows: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from assistant.question.shape_learned import TOKEN_PATTERN

    v = TfidfVectorizer(ngram_range=NGRAMS, min_df=MIN_DF, sublinear_tf=True, token_pattern=TOKEN_PATTERN.pattern)
    X = v.fit_transform(texts)
    from scipy.sparse import csr_matrix, hstack

    m = LogisticRegression(C=C_REG, max_iter=5000).fit(hstack([X, csr_matrix(follows[:, None])]).tocsr(), y)
    vocab = {t: int(i) for t, i in v.vocabulary_.items()}
    return {"kinds": list(KINDS), "vocabulary": vocab, "idf": [round(float(x), 5) for x in v.idf_],
            "ngrams": list(NGRAMS), "coef": [[round(float(c), 5) for c in row] for row in m.coef_],
            "bias": [float(b) for b in m.intercept_]}


def _predict(model: dict[str, Any], texts: list[str], follows: np.ndarray) -> np.ndarray:
    from assistant.question.shape_learned import ShapeReader

    r = ShapeReader.from_json(model)
    return np.asarray([model["kinds"].index(r.kind(t, bool(f))) for t, f in zip(texts, follows, strict=True)])


def cv(d: dict[str, Any]) -> dict[str, Any]:
    from sklearn.model_selection import StratifiedKFold

    y, texts = d["y"], d["text"]
    out: dict[str, Any] = {}
    folds: dict[str, list[float]] = {"learned": [], "rules": [], "learned_fact_recall": [], "rules_fact_recall": [],
                                     "learned_not_fact_recall": [], "rules_not_fact_recall": []}
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=39).split(y, y):
        model = _fit([texts[i] for i in tr], d["follows"][tr], y[tr])
        pred = _predict(model, [texts[i] for i in te], d["follows"][te])
        rules = d["rules"][te].argmax(1)
        for name, p in (("learned", pred), ("rules", rules)):
            folds[name].append(float((p == y[te]).mean()))
            folds[f"{name}_fact_recall"].append(float((p[y[te] == 0] == 0).mean()))
            folds[f"{name}_not_fact_recall"].append(float((p[y[te] != 0] != 0).mean()))
    out["5-fold"] = {k: (round(float(np.mean(v)), 3), round(float(np.std(v)), 3)) for k, v in folds.items()}
    for b in np.unique(d["batch"]):  # one batch's wording never seen in fitting
        te, tr = np.flatnonzero(d["batch"] == b), np.flatnonzero(d["batch"] != b)
        model = _fit([texts[i] for i in tr], d["follows"][tr], y[tr])
        pred = _predict(model, [texts[i] for i in te], d["follows"][te])
        out[f"held_out_{b}"] = {"n": int(len(te)), "learned": round(float((pred == y[te]).mean()), 3),
                                "rules": round(float((d["rules"][te].argmax(1) == y[te]).mean()), 3)}
    return out


def fit(d: dict[str, Any], report: dict[str, Any]) -> None:
    model = _fit(d["text"], d["follows"], d["y"])
    model.update({"features": "TF-IDF of word 1-3-grams (sublinear tf, L2) + follows an earlier turn",
                  "rows": int(len(d["y"])), "cv": report})
    MODEL.parent.mkdir(parents=True, exist_ok=True)
    MODEL.write_text(json.dumps(model) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.fit_shapes")
    p.add_argument("cmd", choices=["cv", "fit"])
    args = p.parse_args(argv)
    data = features(labelled())
    report = cv(data)
    print(json.dumps(report, indent=1))
    if args.cmd == "fit":
        fit(data, report)
        print(f"wrote {MODEL}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
