"""Curated list questions: "which papers…" asked as a researcher asks, with a gold set judged by
reading (``evals/datasets/lists_curated_written.jsonl``; helper E1, session 12, issue 21).

    python -m evals.experiments.lists_curated check [--data-dir D]    # validate the rows against the corpus
    assistant eval --dataset lists_curated_written        # list recall / precision beside the baseline
    python -m evals.lists fit --types list,list_written,list_absent,list_curated   # the list rule's CV with them
    python -m evals.experiments.lists_curated variants [--data-dir D]  # other membership rules by meaning, same CV

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
import math
import re
import statistics
import sys
from typing import Any

import numpy as np

from evals.data import DATASETS_DIR, load_for_tuning, norm

PATH = DATASETS_DIR / "lists_curated_written.jsonl"
TYPE = "list_curated"
ABSENT = "list_absent"
TYPES = (TYPE, "overview", ABSENT)


def _works_of(anchor: str, texts: list[tuple[str, str, str]]) -> set[str]:
    a = norm(anchor)
    return {w for t, o, w in texts if a in t or a in o}


def check(docs: dict[str, Any], rows: list[dict[str, Any]] | None = None) -> list[str]:
    """Problems of the curated rows against the stored abstracts (``docs``: doc id -> StoredDoc): an
    anchor that names no work or more than one, a work judged both in and out, a gold set other than
    the works judged in, an absent topic with a gold work or whose ``absent_words`` an abstract writes,
    an unknown type, a question without a '?' or '.' at its end."""
    rows = load_for_tuning(PATH) if rows is None else rows
    texts = [(norm(d.text), " ".join(d.original.split()), d.work_id) for d in docs.values()]
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


# --- other membership rules by meaning, measured by the fit's own CV ---------------------------------
def variant_features(assistant: Any) -> list[dict[str, Any]]:
    """The fit's features (evals.lists.list_features) of list_written, list_curated and list_absent, and
    for a topic no candidate writes, per candidate: fused rank, best chunk cosine, best lexical score,
    the feedback cosine and rank (5 documents), and its best sentence's cosine with the topic."""
    from assistant.collection.topics import candidates, feedback
    from assistant.evidence.scoring import embed
    from assistant.question.shape import detect
    from evals.data import LISTS_ABSENT_WRITTEN_PATH, LISTS_WRITTEN_PATH, resolve_anchors
    from evals.lists import list_features
    from evals.lists_rule import writes_topic

    rows = [r for path in (LISTS_WRITTEN_PATH, LISTS_ABSENT_WRITTEN_PATH, PATH) for r in load_for_tuning(path)
            if r.get("shape") == "list" and not r.get("previous")]
    questions, _ = resolve_anchors(rows, assistant.retriever.docs())
    questions = sorted(questions, key=lambda q: q.id)
    feats, engine = list_features(assistant, questions), assistant.engine
    for f, q in zip(feats, questions, strict=True):
        if writes_topic(f):
            continue
        topic = detect(q.text).topic or q.text
        found = candidates(engine.parts, topic, assistant.settings.collection.candidates)
        feedback(engine.parts, topic, found, 5)
        q_vec = embed(engine.cache.embedder, [topic])[0]
        sentences = engine.cache.get([c.doc.original for c in found])
        f["x"] = [{"w": c.doc.work_id, "rank": c.rank, "dense": c.dense, "lex": c.lexical, "fb": c.feedback,
                   "fb_rank": c.feedback_rank, "sent": float(np.max(v @ q_vec)) if len(v) else 0.0}
                  for c, (_, v) in zip(found, sentences, strict=True)]
    return [f for f in feats if "x" in f]


def _score(f: dict[str, Any], picked: list[str]) -> float:
    from evals.lists_rule import f1_score

    return float(bool(f.get("unwritten")) or not picked) if not f["gold"] else f1_score(picked, f["gold"])


def _best(train: list[dict[str, Any]], grid: list[tuple[Any, ...]], rule: Any) -> tuple[Any, ...]:
    return max(grid, key=lambda c: statistics.fmean(_score(f, rule(f, *c)) for f in train))


def _now(f: dict[str, Any], k: int, ratio: float, floor: float, fb: int) -> list[str]:
    from evals.lists_rule import pick

    return pick(f, 0.0, 1.0, 0, k, ratio, floor, True, fb)  # the shipped rule by meaning (weight / cut-off unused)


def _knee(f: dict[str, Any], key: str, k: int, floor: float) -> list[str]:
    """The ``k`` best by ``key``, cut at the largest drop between neighbours."""
    xs = sorted(f["x"], key=lambda c: -c[key])[:k]
    if max(c["dense"] for c in f["x"]) < floor:
        return []
    gaps = [xs[j][key] - xs[j + 1][key] for j in range(len(xs) - 1)]
    return [c["w"] for c in xs[: int(np.argmax(gaps)) + 1]] if gaps else [c["w"] for c in xs]


def _ratio(f: dict[str, Any], key: str, k: int, ratio: float, floor: float) -> list[str]:
    if max(c["dense"] for c in f["x"]) < floor:
        return []
    xs = sorted(f["x"], key=lambda c: -c[key])[:k]
    return [c["w"] for c in xs if c[key] >= ratio * xs[0][key]]


def _gated(f: dict[str, Any], k: int, ratio: float, fb: int, lexical: float, high: float, low: float) -> list[str]:
    """The shipped rule with its floor ``high`` for a topic a sentence partly writes (best lexical
    score >= ``lexical``: the asker used the abstracts' words, so what they do not write is missing)
    and ``low`` for one in the asker's own words."""
    return _now(f, k, ratio, high if max(c["lex"] for c in f["x"]) >= lexical else low, fb)


def _x(f: dict[str, Any]) -> np.ndarray:
    xs = f["x"]
    top = {k: max(c[k] for c in xs) for k in ("dense", "sent", "fb", "lex")}
    return np.array([[math.log1p(c["rank"]), math.log1p(c["fb_rank"]), c["dense"], c["sent"], c["fb"], c["dense"] - top["dense"],
                      c["sent"] - top["sent"], c["fb"] - top["fb"], top["dense"], top["sent"], c["lex"], top["lex"]] for c in xs])


def _logistic(train: list[dict[str, Any]], l2: float = 1.0) -> Any:
    """A logistic membership model (Newton's method, L2 ``l2``) over ``_x``, and its threshold by
    mean F1 on ``train``; returns the rule."""
    a = np.vstack([_x(f) for f in train])
    y = np.array([float(c["w"] in f["gold"]) for f in train for c in f["x"]])
    mu, sd = a.mean(0), a.std(0) + 1e-9
    z = np.hstack([np.ones((len(a), 1)), (a - mu) / sd])
    w, reg = np.zeros(z.shape[1]), l2 * np.diag([0.0] + [1.0] * a.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-z @ w))
        w -= np.linalg.solve((z * (p * (1 - p))[:, None]).T @ z + reg, z.T @ (p - y) + reg @ w)

    def rule(f: dict[str, Any], th: float) -> list[str]:
        p = 1 / (1 + np.exp(-(np.hstack([np.ones((len(f["x"]), 1)), (_x(f) - mu) / sd]) @ w)))
        return [f["x"][j]["w"] for j in np.argsort(-p)[:25] if p[j] >= th]

    th = _best(train, [(t,) for t in (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6)], rule)
    return lambda f: rule(f, *th)


def variants(feats: list[dict[str, Any]], folds: int = 5) -> dict[str, Any]:
    """Each rule's held-out mean F1 and per type recall / precision (absent: said none), mean ± sd
    over ``folds`` folds by topic (as ``python -m evals.lists fit``), each fold's constants fitted
    on the others."""
    from evals.lists_rule import FLOORS, RANKS, RATIOS

    rules: dict[str, Any] = {
        "settings now": lambda tr: lambda f: _now(f, 20, 0.85, 0.55, 5),
        "shipped rule refit": lambda tr: _fitted(tr, [(k, r, fl, fb) for k in RANKS[1:] for r in RATIOS for fl in FLOORS
                                                      for fb in (0, 3, 5)], _now),
        "knee on feedback cosine": lambda tr: _fitted(tr, [("fb", k, fl) for k in (4, 6, 8, 10, 12, 15) for fl in FLOORS], _knee),
        "knee on best sentence": lambda tr: _fitted(tr, [("sent", k, fl) for k in (4, 6, 8, 10, 12, 15) for fl in FLOORS], _knee),
        "ratio on best sentence": lambda tr: _fitted(tr, [("sent", k, r, fl) for k in (4, 6, 8, 10, 15, 20)
                                                          for r in (0.7, 0.8, 0.85, 0.9, 0.95) for fl in FLOORS], _ratio),
        "lexically gated floor": lambda tr: _fitted(tr, [(k, r, fb, lx, hi, lo) for k in (6, 10, 20) for r in (0.6, 0.7, 0.8, 0.85)
                                                         for fb in (3, 5) for lx in (0.2, 0.25, 0.3, 0.35)
                                                         for hi in (0.5, 0.55, 0.6) for lo in (0.0, 0.4, 0.45, 0.5)], _gated),
        "logistic membership": _logistic}
    return cross_validate(feats, rules, folds)


def cross_validate(feats: list[dict[str, Any]], rules: dict[str, Any], folds: int = 5) -> dict[str, Any]:
    """Each rule's held-out mean F1 and per type F1 / recall / precision (absent: said none), mean ±
    sd over ``folds`` folds by topic; ``rules`` maps a name to a function of the training features
    that returns the rule (features -> picked ids). Shared with ``evals.lists_model``."""
    from evals.lists_metrics import defined_values, mean_sd, scores

    groups = sorted({f["group"] for f in feats})
    fold_of = {g: j % folds for j, g in enumerate(groups)}
    types = sorted({f["type"] for f in feats})
    out: dict[str, Any] = {}
    for name, make in rules.items():
        per: dict[str, list[float]] = {"f1": []}
        for i in range(folds):
            rule = make([f for f in feats if fold_of[f["group"]] != i])
            test = [f for f in feats if fold_of[f["group"]] == i]
            per["f1"].append(statistics.fmean(_score(f, rule(f)) for f in test))
            for ty in types:
                held = [f for f in test if f["type"] == ty]
                if held and ty == ABSENT:
                    per.setdefault(f"{ty} said_none", []).append(statistics.fmean(_score(f, rule(f)) for f in held))
                elif held:
                    per.setdefault(f"{ty} f1", []).append(statistics.fmean(_score(f, rule(f)) for f in held))
                    rp = [scores(rule(f), f["gold"]) for f in held]
                    per.setdefault(f"{ty} recall", []).append(statistics.fmean(r for r, _ in rp))
                    per.setdefault(f"{ty} precision", []).extend(mean_sd(defined_values([p for _, p in rp]))[:1])
        out[name] = {k: mean_sd([x for x in v if x == x]) for k, v in per.items()}  # (a fold without a defined precision: nan)
    return out


def _fitted(train: list[dict[str, Any]], grid: list[tuple[Any, ...]], rule: Any) -> Any:
    chosen = _best(train, grid, rule)
    return lambda f: rule(f, *chosen)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.experiments.lists_curated", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["check", "variants"])
    ap.add_argument("--data-dir", default=None, help="index of the bundled corpus (default: the harness's cache)")
    args = ap.parse_args(argv)
    from evals.lists import open

    assistant = open(args.data_dir)
    if args.command == "variants":
        feats = variant_features(assistant)
        print(json.dumps({"command": "python -m evals.experiments.lists_curated variants", "questions": len(feats),
                          "by_type": {t: sum(f["type"] == t for f in feats) for t in sorted({f["type"] for f in feats})},
                          "rules": variants(feats)}, indent=1))
        return 0
    rows = load_for_tuning(PATH)
    problems = check(assistant.retriever.docs(), rows)
    print(json.dumps({"problems": problems, **summary(rows)}, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
