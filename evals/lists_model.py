"""List membership judged by the local model (issue 21, helper K, session 14): for every list
question that goes by meaning (no candidate writes its topic: ``lists_written``, ``lists_absent_written``
and ``lists_curated_written``, as ``python -m evals.lists_curated variants``), the model is asked
which of the top ``n`` candidates (the feedback ranking the shipped rule lists by) are about the
topic (``evals.lists_model_requests``), and rules combining its reply with today's are scored by the same
5-fold CV by topic as ``variants``.

    python -m evals.lists_model collect [--data-dir D] [--n 8] [--words 24] [--minutes 35]   # resumable cache
    python -m evals.lists_model fit                                                         # offline, from the cache
    ... --design point | abstract     # one yes / no request per candidate (its contribution sentence | its abstract)

Result (docs/measurements.md, "Session 14, helper K"): the model's verdicts do not separate the gold
candidates (AUC per question 0.44 list, 0.48 point, 0.52 abstract, vs the feedback cosine's 0.62);
no rule with them beats today's beyond the spread; not adopted.

The cache (``evals/fits/lists_model_cache.jsonl``) holds per question its features (as
``evals.lists._features`` and ``variant_features``), the candidates shown, the model's reply and
llama.cpp's timings; questions are collected interleaved by type, so a partial cache is a fair sample.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import zlib
from pathlib import Path
from typing import Any

FITS = Path(__file__).resolve().parent / "fits"
CACHE = FITS / "lists_model_cache.jsonl"
FIT_PATH = FITS / "lists_model.json"
POINT_CACHE = FITS / "lists_model_point_cache.jsonl"
POINT_FIT_PATH = FITS / "lists_model_point.json"


def _questions(assistant: Any) -> list[Any]:
    """The list questions of the three sets, interleaved by type (each type in a fixed, id-hashed order)."""
    from evals.data import (
        LISTS_ABSENT_WRITTEN_PATH,
        LISTS_WRITTEN_PATH,
        load_for_tuning,
        resolve_anchors,
    )
    from evals.lists_curated import PATH

    rows = [r for path in (LISTS_WRITTEN_PATH, LISTS_ABSENT_WRITTEN_PATH, PATH) for r in load_for_tuning(path)
            if r.get("shape") == "list" and not r.get("previous")]
    questions, _ = resolve_anchors(rows, assistant.retriever.docs())
    by_type: dict[str, list[Any]] = {}
    for q in sorted(questions, key=lambda q: zlib.crc32(q.id.encode())):
        by_type.setdefault(q.type, []).append(q)
    out: list[Any] = []
    for j in range(max(len(v) for v in by_type.values())):
        out += [v[j] for _, v in sorted(by_type.items()) if j < len(v)]
    return out


def _record(assistant: Any, model: Any, q: Any, n: int, words: int, written_too: bool, design: str = "list") -> dict[str, Any]:
    """One question's features, the candidates shown and the model's judgement of them."""
    from assistant.collection.topics import candidates, feedback
    from assistant.evidence.scoring import embed
    from assistant.question.shape import detect
    from evals.lists import _features
    from evals.lists_model_requests import closest_sentence, contribution_sentence
    from evals.lists_rule import _written

    engine = assistant.engine
    [f] = _features(assistant, [q])
    rec = {"id": q.id, "type": q.type, "group": f["group"], "gold": sorted(f["gold"]), "unwritten": f["unwritten"],
           "cands": f["cands"], "baseline": f["baseline"], "fed": {str(k): v for k, v in f["fed"].items()}, "written": _written(f)}
    if rec["written"] and not written_too:
        return rec
    topic = detect(q.text).topic or q.text
    found = candidates(engine.parts, topic, assistant.settings.collection.candidates)
    feedback(engine.parts, topic, found, assistant.settings.collection.meaning_feedback)
    q_vec = embed(engine.cache.embedder, [topic])[0]
    rec["x"] = [{"w": c.doc.work_id, "rank": c.rank, "dense": c.dense, "lex": c.lexical, "fb": c.feedback,
                 "fb_rank": c.feedback_rank} for c in found]
    shown = sorted(found, key=lambda c: c.feedback_rank)[:n]
    if design == "abstract":  # the point request with the abstract itself (its first ``words`` words)
        papers = [c.doc.original for c in shown]
    elif design == "point":
        papers = [contribution_sentence(engine, q_vec, c.doc.original) for c in shown]
    else:
        papers = [closest_sentence(engine, q_vec, c.doc.original) for c in shown]
    t = time.perf_counter()
    reply, picked, scores, timings = (_judge_scored if design == "list" else _point_scored)(model, topic, papers, words)
    rec.update(shown=[c.doc.work_id for c in shown], papers=papers, reply=reply, picked=picked, scores=scores,
               seconds=round(time.perf_counter() - t, 3), timings=timings, n=n, words=words, topic=topic, design=design)
    return rec


def _judge_scored(model: Any, topic: str, papers: list[str], words: int) -> tuple[str, Any, Any, dict[str, Any]]:
    """The local model's verdicts (``evals.lists_model_requests``'s request and grammar) and, per paper,
    log P(yes) - log P(no) from llama.cpp's top log-probabilities (a study-only path into the local
    engine: ``ChatModel.stream`` yields text only)."""
    from evals.lists_model_requests import grammar, messages, parse, verdict_scores

    k, got = len(papers), []
    request = {"messages": messages(topic, papers, words), "max_tokens": 5 * k + 2, "temperature": 0.0, "stream": False,
               "cache_prompt": True, "grammar": grammar(k), "logprobs": True, "top_logprobs": 10}
    engine = model._load()
    with engine.lock:
        engine.server.handle_chat_completions(request, lambda c, got=got: got.append(c) or False)
    [data] = got
    choice = data["choices"][0]
    reply = choice["message"]["content"]
    timings = {k: v for k, v in data.get("timings", {}).items() if k in ("cache_n", "prompt_n", "prompt_ms", "predicted_n", "predicted_ms")}
    return reply, parse(reply, k), verdict_scores((choice.get("logprobs") or {}).get("content") or [], k), timings


def _point_scored(model: Any, topic: str, papers: list[str], words: int) -> tuple[str, Any, Any, dict[str, Any]]:
    """The "point" design: one yes / no request per paper (``evals.lists_model_requests.point_messages``,
    its prefix cached), its score log P(yes) - log P(no) at the one reply token."""
    from evals.lists_model_requests import POINT_GRAMMAR, point_messages, verdict_scores

    engine, replies, scores, timings = model._load(), [], [], {"prompt_n": 0, "prompt_ms": 0.0, "predicted_n": 0, "predicted_ms": 0.0}
    for paper in papers:
        got: list[Any] = []
        request = {"messages": point_messages(topic, paper, words), "max_tokens": 1, "temperature": 0.0, "stream": False,
                   "cache_prompt": True, "grammar": POINT_GRAMMAR, "logprobs": True, "top_logprobs": 10}
        with engine.lock:
            engine.server.handle_chat_completions(request, lambda c, got=got: got.append(c) or False)
        choice = got[0]["choices"][0]
        replies.append(choice["message"]["content"].strip())
        scores += verdict_scores((choice.get("logprobs") or {}).get("content") or [], 1) or [0.0]
        for k in timings:
            timings[k] += got[0].get("timings", {}).get(k, 0)
    return " ".join(replies), [i for i, r in enumerate(replies) if r == "yes"], scores, timings


def _round(v: Any) -> Any:
    if isinstance(v, float):
        return round(v, 6)
    if isinstance(v, list | tuple):
        return [_round(x) for x in v]
    return {k: _round(x) for k, x in v.items()} if isinstance(v, dict) else v


def slim(rec: dict[str, Any]) -> dict[str, Any]:
    """What the fit reads of a record: the per-candidate features ``x`` of the candidates shown only,
    floats to 6 decimals (the cache is committed)."""
    if "x" in rec:
        rec["x"] = [c for c in rec["x"] if c["w"] in set(rec["shown"])]
    return _round(rec)


def collect(data_dir: str | None, n: int, words: int, minutes: float, written_too: bool, out: Path = CACHE,
            design: str = "list") -> int:
    import os

    from evals.lists import open

    assistant = open(data_dir)
    model = assistant.engine.model_factory("local", assistant.settings)
    done = {json.loads(line)["id"] for line in out.read_text().splitlines()} if out.exists() else set()
    stop, count = time.monotonic() + 60 * minutes, 0
    for q in _questions(assistant):
        if q.id in done:
            continue
        if time.monotonic() > stop:
            break
        rec = _record(assistant, model, q, n, words, written_too, design)
        rec["load"] = round(os.getloadavg()[0], 2)
        with out.open("a") as fh:
            fh.write(json.dumps(slim(rec)) + "\n")
        count += 1
        if "reply" in rec:
            print(f"{q.id} {q.type} {rec['seconds']}s {rec['picked']} {[round(x, 1) for x in rec['scores'] or []]} gold={sum(w in rec['gold'] for w in rec['shown'])}/{len(rec['gold'])}",
                  flush=True)
    return count


def load(path: Path = CACHE) -> list[dict[str, Any]]:
    """The cached questions that went by meaning and were judged, their sets as in ``_features``."""
    out = []
    for line in path.read_text().splitlines():
        r = json.loads(line)
        if "reply" not in r or r["written"]:
            continue
        r["gold"], r["fed"] = set(r["gold"]), {int(k): v for k, v in r["fed"].items()}
        out.append(r)
    return out



# --- rules, scored by the 5-fold CV of ``python -m evals.lists_curated variants`` ----------------------
def _yes(f: dict[str, Any]) -> list[str]:
    return [f["shown"][i] for i in f["picked"] or []]


def _now(f: dict[str, Any], ratio: float = 0.85, floor: float = 0.55) -> list[str]:
    from evals.lists_curated import _now as now

    return now(f, 20, ratio, floor, 5)  # the shipped rule by meaning (settings.collection.meaning_*)


def _top_dense(f: dict[str, Any]) -> float:
    return max((dense for _, dense, *_ in f["cands"]), default=0.0)


RULES: dict[str, Any] = {
    # today's list; of the shown candidates only those the model says yes to (the rest kept)
    "now, shown ones only if yes": lambda f, *p: [w for w in _now(f, *p) if w not in f["shown"] or w in _yes(f)],
    # today's list cut to the model's yes (nothing beyond the shown)
    "now and yes": lambda f, *p: [w for w in _now(f, *p) if w in _yes(f)],
    # the model's yes among the shown, nothing when the best chunk cosine is below the floor
    "yes above the floor": lambda f, floor: [] if _top_dense(f) < floor else _yes(f),
    # the model's yes among the best m shown
    "yes among the best m": lambda f, m, floor: [] if _top_dense(f) < floor else [w for w in _yes(f) if w in f["shown"][:m]],
    # control without the model: the best m shown, nothing below the floor
    "best m above the floor (no model)": lambda f, m, floor: [] if _top_dense(f) < floor else f["shown"][:m],
    # the shown candidates whose log P(yes) - log P(no) reaches th
    "score above th": lambda f, th, floor: [] if _top_dense(f) < floor else _scored(f, th),
    # today's list; of the shown candidates only those scoring th or more (the rest kept)
    "now, shown ones only if score": lambda f, th: [w for w in _now(f) if w not in f["shown"] or w in _scored(f, th)],
    # today's list, or nothing when no shown candidate scores th (the model as a detector of absent topics)
    "now, none unless a score": lambda f, th: _now(f) if _scored(f, th) else [],
}
THS = (-2.0, -1.5, -1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0)


def _scored(f: dict[str, Any], th: float) -> list[str]:
    return [w for w, x in zip(f["shown"], f["scores"] or [], strict=False) if x >= th]


def _grids() -> dict[str, list[tuple[Any, ...]]]:
    from evals.lists_rule import FLOORS, RATIOS

    return {"best m above the floor (no model)": [(m, fl) for m in range(1, 7) for fl in (0.0, *FLOORS)],
            "score above th": [(th, fl) for th in THS for fl in (0.0, *FLOORS)],
            "now, shown ones only if score": [(th,) for th in THS],
            "now, none unless a score": [(th,) for th in THS],
            "now, shown ones only if yes": [(r, fl) for r in RATIOS for fl in FLOORS],
            "now and yes": [(r, fl) for r in RATIOS for fl in FLOORS],
            "yes above the floor": [(fl,) for fl in (0.0, *FLOORS)],
            "yes among the best m": [(m, fl) for m in range(1, 7) for fl in (0.0, *FLOORS)]}


def _makers() -> dict[str, Any]:
    from evals.lists_curated import _best

    def fitted(name: str) -> Any:
        def make(train: list[dict[str, Any]]) -> Any:
            chosen = _best(train, _grids()[name], RULES[name])
            return lambda f: RULES[name](f, *chosen)
        return make

    makers: dict[str, Any] = {"settings now": lambda tr: _now, "naive top-k": lambda tr: lambda f: f["baseline"],
                              "naive top-5": lambda tr: lambda f: f["baseline"][:5],
                              "now, shown ones only if yes (settings)": lambda tr: RULES["now, shown ones only if yes"],
                              "now and yes (settings)": lambda tr: RULES["now and yes"],
                              "yes above the floor (settings)": lambda tr: lambda f: RULES["yes above the floor"](f, 0.55)}
    return makers | {f"{name} (refit)": fitted(name) for name in RULES}


def cv(feats: list[dict[str, Any]], folds: int = 5) -> dict[str, Any]:
    """Each rule's held-out mean F1 and per type recall / precision (absent: said none), mean ± sd
    over ``folds`` folds by topic, as ``evals.lists_curated.variants`` (the same CV code)."""
    from evals.lists_curated import cross_validate

    return cross_validate(feats, _makers(), folds)


def judgements(feats: list[dict[str, Any]]) -> dict[str, Any]:
    """How the model's verdicts match the gold among the candidates shown, and how often it says no to all."""
    shown = [(w in f["gold"], w in _yes(f)) for f in feats for w in f["shown"]]
    gold_shown = sum(g for g, _ in shown)
    yes = sum(y for _, y in shown)
    both = sum(g and y for g, y in shown)
    by_type = {}
    for ty in sorted({f["type"] for f in feats}):
        fs = [f for f in feats if f["type"] == ty]
        by_type[ty] = {"questions": len(fs), "all_no": round(statistics.fmean(not _yes(f) for f in fs), 3),
                       "yes_per_question": round(statistics.fmean(len(_yes(f)) for f in fs), 2),
                       "gold_shown_per_question": round(statistics.fmean(sum(w in f["gold"] for w in f["shown"]) for f in fs), 2),
                       "unparsed": sum(f["picked"] is None for f in fs)}
    return {"candidates_shown": len(shown), "gold_shown": gold_shown, "yes": yes,
            "yes_precision": round(both / yes, 3) if yes else None, "yes_recall_of_gold_shown": round(both / gold_shown, 3) if gold_shown else None,
            "gold_rate_shown": round(gold_shown / len(shown), 3), "by_type": by_type}


def _auc(pairs: list[tuple[float, bool]]) -> float | None:
    """P(a gold candidate scores above a non-gold one), ties half (Mann-Whitney)."""
    pos = [x for x, g in pairs if g]
    neg = [x for x, g in pairs if not g]
    if not pos or not neg:
        return None
    return round(sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg)), 3)


def separation(feats: list[dict[str, Any]]) -> dict[str, Any]:
    """Among the shown candidates of questions with gold: how well each signal puts gold above non-gold
    (AUC pooled, and the mean of the per-question AUCs), the model's score beside the cosines and ranks."""
    signals: dict[str, Any] = {"model score": lambda f, j, c: (f["scores"] or [0.0] * len(f["shown"]))[j],
                               "feedback cosine": lambda f, j, c: c["fb"], "best chunk cosine": lambda f, j, c: c["dense"],
                               "feedback rank (negated)": lambda f, j, c: -c["fb_rank"]}
    out = {}
    for name, get in signals.items():
        per, pooled = [], []
        for f in feats:
            if not f["gold"] or not f.get("scores"):
                continue
            x = {c["w"]: c for c in f["x"]}
            pairs = [(float(get(f, j, x[w])), w in f["gold"]) for j, w in enumerate(f["shown"])]
            pooled += pairs
            if (a := _auc(pairs)) is not None:
                per.append(a)
        out[name] = {"pooled": _auc(pooled), "per_question": round(statistics.fmean(per), 3) if per else None, "questions": len(per)}
    return out


def latency(feats: list[dict[str, Any]]) -> dict[str, Any]:
    """The request's seconds (p50 / p90, and the 1-minute load average beside it) and llama.cpp's
    prompt and reply tokens, with the read / write rates they imply."""
    def q(xs: list[float], p: float) -> float | None:
        xs = sorted(xs)
        return round(xs[min(len(xs) - 1, int(p * len(xs)))], 2) if xs else None

    t = [f["timings"] for f in feats if f.get("timings")]
    return {"seconds_p50": q([f["seconds"] for f in feats], 0.5), "seconds_p90": q([f["seconds"] for f in feats], 0.9),
            "load_p50": q([f.get("load", 0.0) for f in feats], 0.5),
            "prompt_tokens_p50": q([x["prompt_n"] for x in t], 0.5), "reply_tokens_p50": q([x["predicted_n"] for x in t], 0.5),
            "read_tokens_per_s_p50": q([1000 * x["prompt_n"] / x["prompt_ms"] for x in t if x.get("prompt_ms")], 0.5),
            "write_tokens_per_s_p50": q([1000 * x["predicted_n"] / x["predicted_ms"] for x in t if x.get("predicted_ms", 0) > 1 and x["predicted_n"] > 1], 0.5)}


def fit(feats: list[dict[str, Any]], cache: Path = CACHE) -> dict[str, Any]:
    design = sorted({f.get("design", "list") for f in feats})
    return {"command": "python -m evals.lists_model fit" + ("" if design == ["list"] else f" --design {design[0]}"),
            "cache": str(cache.relative_to(FITS.parent.parent)),
            "questions": len(feats), "by_type": {t: sum(f["type"] == t for f in feats) for t in sorted({f["type"] for f in feats})},
            "n_shown": sorted({f["n"] for f in feats}), "words": sorted({f["words"] for f in feats}),
            "judgements": judgements(feats), "separation": separation(feats), "latency": latency(feats), "rules": cv(feats)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.lists_model", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["collect", "fit"])
    ap.add_argument("--data-dir", default=None, help="index of the bundled corpus (default: the harness's cache)")
    ap.add_argument("--n", type=int, default=6, help="candidates shown to the model (collect)")
    ap.add_argument("--words", type=int, default=18, help="words of each candidate's sentence (collect)")
    ap.add_argument("--minutes", type=float, default=35.0, help="stop collecting after this long (collect; resumable)")
    ap.add_argument("--design", choices=["list", "point", "abstract"], default="list",
                    help="list: one request, a verdict per paper; point: one yes / no request per paper; abstract: point with "
                         "the abstract's first --words words (each its own cache and fit)")
    ap.add_argument("--written", action="store_true", help="also judge the lists whose words are written (collect)")
    args = ap.parse_args(argv)
    cache, fit_path = {"list": (CACHE, FIT_PATH), "point": (POINT_CACHE, POINT_FIT_PATH),
                       "abstract": (FITS / "lists_model_abstract_cache.jsonl", FITS / "lists_model_abstract.json")}[args.design]
    if args.command == "collect":
        print(json.dumps({"collected": collect(args.data_dir, args.n, args.words, args.minutes, args.written, cache, args.design)}))
        return 0
    result = fit(load(cache), cache)
    fit_path.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
