"""Fit the sentence scorer (``assistant.evidence.scorer``) on readers' labelled questions.

    python -m evals.fit_sentences features   # evidence features of every labelled sentence (cached)
    python -m evals.fit_sentences cv         # 5-fold CV by question and leave-one-batch-out figures
    python -m evals.fit_sentences fit        # writes assistant/models/sentence_scorer.json
    python -m evals.fit_sentences cascade --ce   # CV of reading only the first k rows with the cross-encoder

The labels: ``evals/datasets/questions_written.jsonl`` (one-fact questions and fact follow-ups,
each sentence of the abstract that answers labelled A answers / P in part / B background / U
unrelated / C closest to an absent detail; how each batch was made: ``questions_written.meta.json``)
and ``sentences_retrieved_written.jsonl`` (the other abstracts retrieval returns for them, labelled
the same way by other readers). A question is read as the product reads it (``AnswerEngine.analyze``:
the standalone question, retrieval, evidence over the first abstracts read); the abstract that
answers is added to those read when retrieval misses it, so its sentences are scored too.
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
QUESTIONS = DATASETS / "questions_written.jsonl"
RETRIEVED = DATASETS / "sentences_retrieved_written.jsonl"
CACHE = ROOT / "runs" / "_cache" / "sentence_features.npz"
MODEL = ROOT.parent / "assistant" / "models" / "sentence_scorer.json"
CE_OOF = ROOT / "fits" / "sentence_ce_oof.json"
LABEL = {"A": 1.0, "P": 0.5, "B": 0.0, "U": 0.0, "C": 0.0}
# the cross-encoder reads each question's first READS sentences as the model without it ranks them
# (``cascade``, 5-fold CV by question: answered / padding 0.822 ± 0.017 / 0.308 ± 0.024 at 4, 0.822 ±
# 0.016 / 0.301 ± 0.027 reading all 27; 2: 0.787 / 0.321; 3: 0.812 / 0.310), 15.7 ms p50 a question in
# place of 86 (evals/bench_learned.py)
READS = 4
C_REG = 1.0  # inverse L2 strength (CV: 0.01 / 0.1 / 1.0 within the folds' spread; 1.0 the best mean)


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def labelled_facts() -> list[dict[str, Any]]:
    """The labelled one-fact questions (and fact follow-ups), with the retrieved abstracts' labels merged."""
    extra: dict[str, dict[str, str]] = {}
    for r in _rows(RETRIEVED):
        extra.setdefault(r["qid"], {})[r["doc_id"]] = r["labels"]
    out = []
    for r in _rows(QUESTIONS):
        fact = r["shape"] == "fact" or (r["shape"] == "followup" and r.get("followup_shape") == "fact")
        if fact and r.get("labels"):
            out.append({**r, "labels": {**extra.get(r["id"], {}), **r["labels"]}})
    return out


_IDS: dict[int, dict[str, str]] = {}


def _ids(a: Any, corpus: str) -> dict[str, str]:
    """The readers' doc ids of ``corpus`` mapped to the stored abstracts' (SciFact's are "sf" and its
    own id, kept by ingest as ``external_id``; the bundled corpus's are the stored ids)."""
    if corpus != "scifact":
        return {}
    if id(a) not in _IDS:
        _IDS[id(a)] = {f"sf{d.metadata.get('external_id')}": d.doc_id for d in a.retriever.docs().values()}
    return _IDS[id(a)]


def _index(a: Any, corpus: str) -> Any:
    """The assistant with ``corpus`` ingested (the bundled abstracts, or SciFact-2101's corpus)."""
    if not a.stats().get("abstracts"):
        a.ingest([DATASETS / "scifact-2101"] if corpus == "scifact" else None)
    return a


def features(dirs: dict[str, Path], only: set[str] | None = None) -> dict[str, np.ndarray]:
    from assistant import Assistant
    from assistant.evidence.scorer import features as sentence_features
    from assistant.evidence.scorer import positions
    from assistant.evidence.scoring import embed, score_evidence

    assistants: dict[str, Any] = {}
    X, y, qids, batches, absent, docs_of = [], [], [], [], [], []  # y: where each row is, labelled later
    qvecs, svecs = [], []  # the question's and the sentence's MiniLM vectors, per row (float16)
    for n, r in enumerate(labelled_facts()):
        if only and r["id"].split("-")[0] not in only:
            continue
        corpus = r.get("corpus", "bundled")
        if corpus not in assistants:
            assistants[corpus] = _index(Assistant(data_dir=dirs[corpus]), corpus)
        a = assistants[corpus]
        engine = a.engine
        turn = engine.analyze(r["question"], 5, history=r.get("history") or [])
        stored = a.retriever.docs()
        read = [d for d, _ in turn.hits[: engine.settings.answer.evidence_docs]]
        ids = _ids(a, corpus)  # the readers' doc id -> the stored abstract's
        for key in r["labels"]:
            doc = stored.get(ids.get(key, key))
            if doc is not None and doc.doc_id not in {d.doc_id for d in read}:
                read.append(doc)
        reader_id = {v: k for k, v in ids.items()}
        ev = score_evidence(turn.asked, [d.original for d in read], engine.cache, engine.retriever.idf())
        where = positions(ev)
        for s, (pos, count) in zip(ev.sentences, where, strict=True):
            doc_id = read[s.doc_index].doc_id
            y.append(f"{reader_id.get(doc_id, doc_id)}:{pos}:{count}")
            qids.append(r["id"])
            batches.append(r["id"].split("-")[0])
            absent.append(bool(r.get("absent")))
            docs_of.append(s.doc_index)
        X.append(sentence_features(ev.question, ev.sentences, where))
        if ev.sentences:
            q_vec = embed(engine.cache.embedder, [ev.question])[0]
            qvecs.append(np.repeat(q_vec[None, :], len(ev.sentences), 0).astype(np.float16))
            svecs.append(np.vstack([s.vector for s in ev.sentences]).astype(np.float16))
        if n % 100 == 0:
            print(f"{n} questions, {len(y)} sentences", file=sys.stderr, flush=True)
    data = {"X": np.vstack(X), "where": np.asarray(y), "qid": np.asarray(qids), "batch": np.asarray(batches),
            "absent": np.asarray(absent), "doc": np.asarray(docs_of),
            "qvec": np.vstack(qvecs), "svec": np.vstack(svecs)}
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(CACHE, **data)
    return data


def with_labels(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The rows' labels from the label files (features are cached apart from them): 1 answers,
    0.5 in part, 0 otherwise (an abstract no reader labelled: 0), -1 labels that do not line up."""
    labels = {r["id"]: r["labels"] for r in labelled_facts()}
    y = []
    for q, where in zip(data["qid"], data["where"], strict=True):
        doc, pos, count = where.rsplit(":", 2)
        lbl = labels.get(str(q), {}).get(doc)
        y.append(LABEL.get(lbl[int(pos)], 0.0) if lbl and len(lbl) == int(count) else (-1.0 if lbl else 0.0))
    return {**data, "y": np.asarray(y, np.float32)}


def _fit(X: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression

    mean, scale = X.mean(0), X.std(0) + 1e-6
    w = np.where(y == 0.5, 0.5, 1.0)  # an answer in part counts half
    m = LogisticRegression(C=C_REG, max_iter=5000).fit((X - mean) / scale, (y >= 0.5).astype(int), sample_weight=w)
    return {"mean": mean.tolist(), "scale": scale.tolist(), "coef": m.coef_[0].tolist(), "bias": float(m.intercept_[0])}


def _prob(model: dict[str, Any], X: np.ndarray) -> np.ndarray:
    z = ((X - np.asarray(model["mean"])) / np.asarray(model["scale"])) @ np.asarray(model["coef"]) + model["bias"]
    return 1.0 / (1.0 + np.exp(-z))


def shown(p: np.ndarray, doc: np.ndarray, second: float, other: float) -> list[int]:
    """The indices ``SentenceScorer.pick`` shows (same rule, over one question's rows)."""
    order = list(np.argsort(-p, kind="stable"))
    lead = order[0]
    same = [j for j in order if j != lead and doc[j] == doc[lead]][:1]
    out = [lead, *[j for j in same if p[j] >= second]]
    others = [j for j in order if doc[j] != doc[lead] and p[j] >= other]
    return out + others[:1]


def answer_figures(p: np.ndarray, d: dict[str, np.ndarray], second: float, other: float) -> dict[str, float]:
    """Per answerable question: an answering sentence shown (A or P), share of shown sentences
    that carry nothing asked (B, U, or an unlabelled abstract), sentences shown."""
    hit, pad, count = [], [], []
    for q in np.unique(d["qid"]):
        m = np.flatnonzero(d["qid"] == q)
        yq = d["y"][m]
        if (yq < 0).any() or yq.max() < 1.0:
            continue
        idx = shown(p[m], d["doc"][m], second, other)
        lab = yq[idx]
        hit.append(float((lab >= 0.5).any()))
        pad.append(float((lab < 0.5).mean()))
        count.append(len(idx))
    return {"answered": float(np.mean(hit)), "padding": float(np.mean(pad)), "sentences": float(np.mean(count)),
            "questions": len(hit)}


MISSED_COST = 2.0  # a question whose answering sentence is not shown costs this many padded answers (the
# project's harm order: a missing answer is worse than a padded one)


def _best_bars(p: np.ndarray, d: dict[str, np.ndarray]) -> tuple[float, float]:
    """The bars that maximise MISSED_COST x answered - padding over the given rows (a grid)."""
    best, bars = -9.0, (1.0, 1.0)
    for second in (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 1.01):
        for other in (0.6, 0.7, 0.8, 0.9, 1.01):
            f = answer_figures(p, d, second, other)
            value = MISSED_COST * f["answered"] - f["padding"]
            if value > best:
                best, bars = value, (second, other)
    return bars


def cv(d: dict[str, np.ndarray], folds: int = 5) -> dict[str, Any]:
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    keep = d["y"] >= 0
    d = {k: v[keep] for k, v in d.items()}
    X, y, g = d["X"], d["y"], d["qid"]
    p = np.zeros(len(y))
    per_fold: dict[str, list[float]] = {"auc": [], "auc_baseline": []}
    for tr, te in GroupKFold(folds).split(X, y, g):
        model = _fit(X[tr], y[tr])
        p[te] = _prob(model, X[te])
        per_fold["auc"].append(roc_auc_score(y[te] == 1, p[te]))
        per_fold["auc_baseline"].append(roc_auc_score(y[te] == 1, 0.5 * X[te][:, 0] + 0.5 * X[te][:, 1]))
        sub = {k: v[te] for k, v in d.items()}
        second, other = _best_bars(p[te], sub)  # in-fold bars only for the spread of the figures
        for name, value in answer_figures(p[te], sub, second, other).items():
            per_fold.setdefault(name, []).append(value)
        base = 0.5 * X[te][:, 0] + 0.5 * X[te][:, 1]
        for name, value in answer_figures(base, sub, 9.0, 9.0).items():
            per_fold.setdefault("baseline_one_" + name, []).append(value)
    out = {k: (round(float(np.mean(v)), 3), round(float(np.std(v)), 3)) for k, v in per_fold.items()}
    # leave one batch (one writer's instructions) out: questions worded as that writer would
    for b in np.unique(d["batch"]):
        te, tr = d["batch"] == b, d["batch"] != b
        model = _fit(X[tr], y[tr])
        pb = _prob(model, X[te])
        sub = {k: v[te] for k, v in d.items()}
        second, other = _best_bars(_prob(model, X[tr]), {k: v[tr] for k, v in d.items()})
        out[f"held_out_{b}"] = {"auc": round(float(roc_auc_score(y[te] == 1, pb)), 3), "bars": [second, other],
                                **{k: round(v, 3) for k, v in answer_figures(pb, sub, second, other).items()}}
    return out


def with_ce(d: dict[str, np.ndarray], oof: Path) -> dict[str, np.ndarray]:
    """The rows with the sentence cross-encoder's out-of-fold logit as one more feature, ``ce``
    (``evals.train_sentence_ce cv``: each row's probability from a model that never saw its question)."""
    p = json.loads(oof.read_text(encoding="utf-8"))["p"]
    keys = [f"{q}|{w}" for q, w in zip(d["qid"], d["where"], strict=True)]
    missing = [k for k in keys if k not in p]
    if missing:
        raise SystemExit(f"{oof}: no probability for {len(missing)} rows (first {missing[0]}): rerun evals.train_sentence_ce cv")
    prob = np.clip(np.asarray([p[k] for k in keys], np.float64), 1e-5, 1 - 1e-5)
    return {**d, "X": np.hstack([d["X"], np.log(prob / (1 - prob))[:, None].astype(np.float32)])}


def cascaded(cheap: np.ndarray, full: np.ndarray, qid: np.ndarray, k: int) -> np.ndarray:
    """``full`` for each question's ``k`` rows the model without the cross-encoder ranks first, 0 for
    the rest (what ``SentenceScorer.probabilities`` gives when it reads only those with the
    cross-encoder); ``k`` 0: ``full`` everywhere."""
    if not k:
        return full
    out = np.zeros_like(full)
    for q in np.unique(qid):
        m = np.flatnonzero(qid == q)
        top = m[np.argsort(-cheap[m], kind="stable")[:k]]
        out[top] = full[top]
    return out


def cascade_cv(d: dict[str, np.ndarray], ks: list[int], folds: int = 5) -> dict[str, Any]:
    """5-fold CV by question of the scorer read through a cascade: the model without the
    cross-encoder's feature (the last column) chooses each question's ``k`` rows, the full model
    scores them; bars fitted on the training folds. Per ``k``: AUC over all rows, the answer
    figures, and the cross-encoder's pairs per question."""
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    keep = d["y"] >= 0
    d = {k: v[keep] for k, v in d.items()}
    X, y, g = d["X"], d["y"], d["qid"]
    per: dict[int, dict[str, list[float]]] = {k: {} for k in ks}
    for tr, te in GroupKFold(folds).split(X, y, g):
        cheap_m, full_m = _fit(X[tr][:, :-1], y[tr]), _fit(X[tr], y[tr])
        sub_tr = {k: v[tr] for k, v in d.items()}
        sub_te = {k: v[te] for k, v in d.items()}
        for k in ks:
            p_tr = cascaded(_prob(cheap_m, X[tr][:, :-1]), _prob(full_m, X[tr]), g[tr], k)
            p_te = cascaded(_prob(cheap_m, X[te][:, :-1]), _prob(full_m, X[te]), g[te], k)
            second, other = _best_bars(p_tr, sub_tr)
            f = per[k]
            f.setdefault("auc", []).append(roc_auc_score(y[te] == 1, p_te))
            for name, value in answer_figures(p_te, sub_te, second, other).items():
                f.setdefault(name, []).append(value)
            n = np.unique(g[te], return_counts=True)[1]
            f.setdefault("pairs", []).append(float(np.minimum(n, k).mean() if k else n.mean()))
    return {str(k): {name: (round(float(np.mean(v)), 3), round(float(np.std(v)), 3)) for name, v in f.items()}
            for k, f in per.items()}


def fit(d: dict[str, np.ndarray], report: dict[str, Any] | None = None, ce: str | None = None,
        reads: int = READS) -> dict[str, Any]:
    keep = d["y"] >= 0
    d = {k: v[keep] for k, v in d.items()}
    model = _fit(d["X"], d["y"])
    second, other = _best_bars(_prob(model, d["X"]), d)
    from assistant.evidence.scorer import FEATURES

    out = {"model": model, "features": list(FEATURES) + (["ce"] if ce else []), "bars": {"second": second, "other": other},
           "rows": int(len(d["y"])), "questions": int(len(np.unique(d["qid"]))), "cv": report or {}}
    if ce:
        out["cross_encoder"] = ce
        out["prefilter"], out["reads"] = _fit(d["X"][:, :-1], d["y"]), reads
    MODEL.parent.mkdir(parents=True, exist_ok=True)
    MODEL.write_text(json.dumps(out, indent=1) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.fit_sentences")
    p.add_argument("cmd", choices=["features", "cv", "fit", "cascade"])
    p.add_argument("--bundled-dir", type=Path, default=ROOT / "runs" / "_cache" / "sentences-bundled")
    p.add_argument("--scifact-dir", type=Path, default=ROOT / "runs" / "_cache" / "scifact-fit")
    p.add_argument("--refresh", action="store_true", help="recompute the features even when cached")
    p.add_argument("--batches", help="recompute only these batches' rows (comma-separated), keeping the others cached")
    p.add_argument("--ce", nargs="?", const=str(CE_OOF), default=None,
                   help="add the sentence cross-encoder's logit as a feature (its out-of-fold probabilities; the"
                        " fitted scorer then runs assistant/models/sentence_ce.onnx)")
    p.add_argument("--cascade", default="0,3,4,5,6,8,10",
                   help="cascade: the cross-encoder's rows per question to compare (0: every row)")
    p.add_argument("--reads", type=int, default=READS,
                   help="fit: the cross-encoder's sentences per question (the cascade; 0: every one)")
    args = p.parse_args(argv)
    dirs = {"bundled": args.bundled_dir, "scifact": args.scifact_dir}
    if args.batches and CACHE.exists():
        only = set(args.batches.split(","))
        old = dict(np.load(CACHE, allow_pickle=False))
        keep = ~np.isin(old["batch"], list(only))
        new = features(dirs, only)
        data = {k: np.concatenate([old[k][keep], new[k]]) for k in new}
        np.savez_compressed(CACHE, **data)
    elif args.refresh or not CACHE.exists() or args.cmd == "features":
        data = features(dirs)
    else:
        data = dict(np.load(CACHE, allow_pickle=False))
    if args.cmd == "features":
        return 0
    data = with_labels(data)
    if args.ce:
        data = with_ce(data, Path(args.ce))
    if args.cmd == "cascade":
        if not args.ce:
            raise SystemExit("cascade compares readings with the cross-encoder: give --ce")
        print(json.dumps(cascade_cv(data, [int(k) for k in args.cascade.split(",")]), indent=1))
        return 0
    report = cv(data)
    print(json.dumps(report, indent=1))
    if args.cmd == "fit":
        fit(data, report, "sentence_ce.onnx" if args.ce else None, args.reads)
        print(f"wrote {MODEL}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
