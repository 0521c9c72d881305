"""Follow-ups that filter a list ("which of these report speed-ups?"): the features of the listed
abstracts for the filter, and the 5-fold CV of the follow-up cut-off.

    python -m evals.list_followups fit [--data-dir D] [--dry-run]   # -> evals/fits/list_followups.json
    python -m evals.list_followups cutoff [--data-dir D] [--features F]   # -> evals/fits/list_followups_answer.json

``cutoff`` (session 14, helper O) refits the same two constants on the whole answer as it is now
(the rule by meaning at its constants, the "none" fallbacks, the quote rule of
``followups.quote_stating``): F1 of the cited works, recall, precision and key points (the topic and
the quotes the answer shows, ``shown``), held out per fold beside the constants in use and the naive
baseline's key points.

A follow-up asks which of the abstracts just listed state something. They are already on the
list's topic, so the bar is not the list's (``collection.cutoff``, fitted on whole-corpus term
lists): an abstract is picked when ``followup_lexical_weight`` x its best sentence's lexical score
for the filter's topic + the rest x its best sentence's cosine with the filter as asked (its verb
kept: "reduce memory use", ``Shape.predicate``) reaches ``followup_cutoff``. Both are chosen on a
grid by 5-fold CV (folds by session) for the mean F1 of the picked works against the gold; a
follow-up whose gold is empty (none of the listed abstracts states it) scores 1 when nothing is
picked, else 0. The sessions: the list split's generated follow-ups (``FL*``) and the hand-written
ones (``datasets/lists_followups_written.jsonl``); the previous list is what the assistant answers
to the session's list question now (as in a conversation), read back from its text.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evals.data import (
    EVALS_DIR,
    FOLLOWUPS_MEANING_WRITTEN_PATH,
    LISTS_PATH,
    load_for_tuning,
    resolve_anchors,
)
from evals.data import FOLLOWUPS_WRITTEN_PATH as FOLLOWUPS_PATH

if TYPE_CHECKING:
    from assistant.engine import AnswerEngine

FIT_PATH = EVALS_DIR / "fits" / "list_followups.json"
MEANING_FIT_PATH = EVALS_DIR / "fits" / "list_followups_meaning.json"
ANSWER_FIT_PATH = EVALS_DIR / "fits" / "list_followups_answer.json"
WEIGHTS = [round(0.1 * i, 1) for i in range(11)]
CUTOFFS = [round(0.1 + 0.01 * i, 2) for i in range(71)]
RATIOS = [round(0.05 * i, 2) for i in range(19)]  # 0: the absolute bar alone (the form before)


def features(assistant: Any) -> list[dict[str, Any]]:
    """Per follow-up: its listed abstracts' (lexical for the topic, cosine with the predicate, cosine
    with the topic, work id), and the gold works."""
    from assistant.collection.followups import docs_of_quotes
    from assistant.collection.topics import rescored
    from assistant.question.conversation import previous_list, standalone_question
    from assistant.question.shape import detect
    from evals.answers import baseline_answer

    rows = [r for path in (LISTS_PATH, FOLLOWUPS_PATH, FOLLOWUPS_MEANING_WRITTEN_PATH) for r in load_for_tuning(path)]
    by_id = {r["id"]: r for r in rows}
    follow = [r for r in rows if r.get("previous") and r.get("shape") == "list"]
    questions, _ = resolve_anchors(follow, assistant.retriever.docs())
    gold, asked, all_docs = {q.id: set(q.gold) for q in questions}, {q.id: q for q in questions}, assistant.retriever.docs()
    engine, out = assistant.engine, []
    for r in follow:
        first = by_id[r["previous"]]["question"]
        prev = assistant.ask(first, backend="extractive")
        history = [{"role": "user", "content": first}, {"role": "assistant", "content": prev.text}]
        shape = detect(r["question"], previous_was_list=True)
        docs = docs_of_quotes(engine.parts, previous_list(history))
        # the naive baseline's key points (the top abstracts' best sentences, evals.answers.baseline_answer)
        naive = baseline_answer(assistant, asked[r["id"]], standalone_question(r["question"], history), all_docs)[0] \
            if r["id"] in asked and r.get("key_points") else float("nan")
        base = {"id": r["id"], "gold": sorted(gold.get(r["id"], set())), "key_points": r.get("key_points", []), "naive_kp": naive}
        if not shape.follow_up or not docs:
            out.append({**base, "cands": [], "detected": shape.follow_up})
            continue
        by_topic = rescored(engine.parts, shape.topic, docs)
        by_predicate = rescored(engine.parts, shape.predicate or shape.topic, docs)
        quotes = _quotes(engine, shape, docs)
        out.append({**base, "detected": True, "topic": shape.topic,
                    "cands": [(t.lexical, p.dense, t.dense, t.doc.work_id, t.mentions, *q)
                              for t, p, q in zip(by_topic, by_predicate, quotes, strict=True)]})
    return out


def _quotes(engine: AnswerEngine, shape: Any, docs: list[Any]) -> list[tuple[str, str]]:
    """Per listed abstract, the sentence the answer quotes on the word path (``followups.quote_stating``,
    as ``collection._follow_up`` calls it) and on the by-meaning path (``followups.closest_in_meaning``)."""
    from assistant.collection.followups import filter_vectors, quote_stating, stating_index
    from assistant.collection.topics import rescored

    found = rescored(engine.parts, shape.topic, docs)
    if shape.predicate and shape.predicate != shape.topic:
        for c, p in zip(found, rescored(engine.parts, shape.predicate, docs), strict=True):
            c.dense = p.dense
    quote_stating(engine.parts, shape, found, q_vecs := filter_vectors(engine.parts, shape))
    out = []
    for c, (spans, vecs) in zip(found, engine.cache.get([c.doc.original for c in found]), strict=True):
        a, b = spans[stating_index(c.doc.original, spans, (vecs @ q_vecs.T).mean(axis=1))] if len(vecs) else c.sentence
        out.append((" ".join(c.quote.split()), " ".join(c.doc.original[a:b].split())))
    return out


def pick(f: dict[str, Any], w: float, t: float, dense: int = 1, ratio: float = 0.0) -> list[str]:
    """The works whose follow-up relevance reaches ``t`` and ``ratio`` x the best listed abstract's
    (``dense``: 1 the predicate's cosine, 2 the topic's; ``ratio`` 0: the absolute bar, in use)."""
    rel = [w * c[0] + (1 - w) * c[dense] for c in f["cands"]]
    bar = max(t, ratio * max(rel, default=0.0))
    return [c[3] for c, r in zip(f["cands"], rel, strict=True) if r >= bar]


def f1(f: dict[str, Any], picked: list[str]) -> float:
    gold = set(f["gold"])
    if not gold:
        return float(not picked)
    hit = len(set(picked) & gold)
    return 2 * hit / (len(set(picked)) + len(gold)) if hit else 0.0


def _rp(feats: list[dict[str, Any]], w: float, t: float, dense: int, ratio: float = 0.0) -> dict[str, float]:
    scored = [f for f in feats if f["gold"]]
    picks = {f["id"]: pick(f, w, t, dense, ratio) for f in feats}
    recall = [len(set(picks[f["id"]]) & set(f["gold"])) / len(f["gold"]) for f in scored]
    precision = [len(set(picks[f["id"]]) & set(f["gold"])) / len(set(picks[f["id"]])) for f in scored if picks[f["id"]]]
    return {"f1": _mean([f1(f, picks[f["id"]]) for f in feats]), "recall": _mean(recall), "precision": _mean(precision),
            "none_listed": _mean([float(not picks[f["id"]]) for f in scored]),
            "empty_gold_right": _mean([float(not picks[f["id"]]) for f in feats if not f["gold"]])}


def _mean(values: list[float]) -> float:
    return round(statistics.fmean(values), 4) if values else float("nan")


def best(feats: list[dict[str, Any]], dense: int, ratios: list[float] | None = None) -> tuple[float, float, float]:
    """The (weight, cut-off, ratio) of best mean F1; ties: no ratio (the simpler form), the lower
    weight, then the higher cut-off (stricter)."""
    return max(((w, t, r) for w in WEIGHTS for t in CUTOFFS for r in (ratios if ratios is not None else RATIOS)),
               key=lambda p: (_mean([f1(f, pick(f, p[0], p[1], dense, p[2])) for f in feats]), -p[2], -p[0], p[1]))


def fit(feats: list[dict[str, Any]], folds: int = 5, now: tuple[float, float] | None = None,
        in_use: tuple[float, ...] | None = None) -> dict[str, Any]:
    ids = sorted(f["id"] for f in feats)
    fold_of = {i: j % folds for j, i in enumerate(ids)}
    out: dict[str, Any] = {"command": "python -m evals.list_followups fit", "questions": len(feats),
                           "detected": sum(f["detected"] for f in feats), "empty_gold": sum(not f["gold"] for f in feats)}
    # "predicate" (in use) / "topic": the cosine with the filter as asked or with its topic, under an
    # absolute bar; "predicate_relative": also a bar relative to the best listed abstract ("ratio"
    # of its relevance, fitted; a filter no abstract writes in full is judged against the best
    # partial statement of it), tried in session 9: held-out F1 within the spread of the absolute.
    for name, dense, ratios in (("predicate", 1, [0.0]), ("topic", 2, [0.0]), ("predicate_relative", 1, None)):
        held = []
        for i in range(folds):
            train = [f for f in feats if fold_of[f["id"]] != i]
            test = [f for f in feats if fold_of[f["id"]] == i]
            w, t, r = best(train, dense, ratios)
            held.append({"fold": i, "weight": w, "cutoff": t, "ratio": r, **_rp(test, w, t, dense, r)})
        w, t, r = best(feats, dense, ratios)
        keys = ("f1", "recall", "precision", "none_listed", "empty_gold_right")
        out[name] = {"chosen": {"weight": w, "cutoff": t, "ratio": r}, "folds": held,
                     "held_out": {k: [_mean([h[k] for h in held if h[k] == h[k]]),
                                      round(statistics.pstdev([h[k] for h in held if h[k] == h[k]]), 4)] for k in keys},
                     "all_with_chosen": _rp(feats, w, t, dense, r)}
    if now is not None:  # the list's own constants (what a follow-up used before its own cut-off)
        out["with_list_constants"] = _rp(feats, now[0], now[1], 2)
    if in_use is not None:  # the follow-up constants in use, on every session (not held out)
        out["with_constants_in_use"] = _rp(feats, *in_use[:2], 1, *in_use[2:])
    return out


# --- the follow-up by meaning (no listed abstract writes the filter's words) -------------------------
MEANING_BARS = [round(0.15 + 0.01 * i, 2) for i in range(46)]  # the abstract's cosine with the filter (COSINES)
MEANING_RATIOS = [0.0] + [round(0.5 + 0.05 * i, 2) for i in range(11)]  # of the best listed abstract's cosine (0: none)
MEANING_MARGINS = [round(0.02 * i, 2) for i in range(11)]  # above the median listed abstract's cosine (0: none)
SETS = {"FL": "lists (generated)", "WF": "lists_followups_written", "MF": "followups_meaning_written"}


# Which cosine the rule by meaning reads (per listed abstract: its best sentence's, with the filter as
# asked, with its topic, or both): "mean" in use (assistant/collection/followups.py); all four are fitted and reported.
COSINES = {"predicate": lambda c: c[1], "topic": lambda c: c[2], "mean": lambda c: (c[1] + c[2]) / 2,
           "min": lambda c: min(c[1], c[2])}


def answered(f: dict[str, Any], w: float, t: float, meaning: tuple[float, ...] | None = None,
             where: str = "unwritten", cosine: str = "mean") -> list[str]:
    """The works the answer cites, as ``collection._follow_up`` answers: those at or above the cut-off;
    else, when some listed abstract writes every filter word, the closest three ("none clearly
    states"); else none ("none mentions"). ``meaning`` (bar, ratio): instead of none (``where``
    "unwritten"), or of either fallback ("unlisted"), the listed abstracts whose ``cosine`` (see
    ``COSINES``; "mean": the mean of their best sentence's cosine with the filter as asked and with
    its topic, in use) reaches the bar, ``ratio`` x the best one's and the median
    listed abstract's + ``margin`` (an abstract that states the filter stands out of a list that
    is all on one topic; a filter none states leaves the list's cosines close together). A fourth
    parameter, the best's lead over the runner-up, was tried (session 12): fitted 0, held-out F1
    gain 0.060 +- 0.033 vs 0.068 +- 0.034 without it."""
    cands = f["cands"]
    rel = [w * c[0] + (1 - w) * c[1] for c in cands]
    listed = [c[3] for c, r in zip(cands, rel, strict=True) if r >= t]
    if listed:
        return listed
    written_apart = any(c[4] for c in cands)
    if meaning is not None and (where == "unlisted" or not written_apart):
        cos = [COSINES[cosine](c) for c in cands]
        bar = max(meaning[0], meaning[1] * max(cos, default=0.0), statistics.median(cos or [0.0]) + meaning[2])
        return [c[3] for c, x in zip(cands, cos, strict=True) if x >= bar]
    if written_apart:
        return [c[3] for _, c in sorted(zip(rel, cands, strict=True), key=lambda rc: -rc[0])[:3]]
    return []


def _scores(feats: list[dict[str, Any]], picks: dict[str, list[str]]) -> dict[str, float]:
    scored = [f for f in feats if f["gold"]]
    hit = {f["id"]: len(set(picks[f["id"]]) & set(f["gold"])) for f in feats}
    return {"f1": _mean([f1(f, picks[f["id"]]) for f in feats]),
            "recall": _mean([hit[f["id"]] / len(f["gold"]) for f in scored]),
            "precision": _mean([hit[f["id"]] / len(set(picks[f["id"]])) for f in scored if picks[f["id"]]]),
            "none_cited": _mean([float(not picks[f["id"]]) for f in scored]),
            "empty_gold_right": _mean([float(not picks[f["id"]]) for f in feats if not f["gold"]]), "n": len(feats)}


def _best_meaning(feats: list[dict[str, Any]], w: float, t: float, where: str, cosine: str) -> tuple[float, ...]:
    """(bar, ratio, margin) of best mean F1; ties: the higher of each, in order (stricter). Only the
    sessions the rule can change are scored (the others answer alike under every setting)."""
    feats = [f for f in feats if not answered(f, w, t)] if where == "unwritten" else feats
    return max(((b, r, m) for b in MEANING_BARS for r in MEANING_RATIOS for m in MEANING_MARGINS),
               key=lambda m: (_mean([f1(f, answered(f, w, t, m, where, cosine)) for f in feats]), *m))


def fit_meaning(feats: list[dict[str, Any]], w: float, t: float, folds: int = 5) -> dict[str, Any]:
    """5-fold CV (folds by session, over every set) of the rule by meaning beside the answer now;
    held-out figures per fold (mean +- sd), the paired F1 gain per fold, and per set (pooled)."""
    feats = [f for f in feats if f["detected"]]
    ids = sorted(f["id"] for f in feats)
    fold_of = {i: j % folds for j, i in enumerate(ids)}
    out: dict[str, Any] = {"command": "python -m evals.list_followups meaning", "sessions": len(feats),
                           "weight": w, "cutoff": t, "sets": {k: sum(f["id"].startswith(k) for f in feats) for k in SETS}}
    out["in_use"], where = "mean", "unwritten"
    for cosine in COSINES:
        held, picks_new, picks_now = [], {}, {}
        for i in range(folds):
            train = [f for f in feats if fold_of[f["id"]] != i]
            test = [f for f in feats if fold_of[f["id"]] == i]
            m = _best_meaning(train, w, t, where, cosine)
            new = {f["id"]: answered(f, w, t, m, where, cosine) for f in test}
            now = {f["id"]: answered(f, w, t) for f in test}
            picks_new |= new
            picks_now |= now
            a, b = _scores(test, new), _scores(test, now)
            held.append({"fold": i, "bar": m[0], "ratio": m[1], "margin": m[2], "new": a, "now": b, "f1_gain": round(a["f1"] - b["f1"], 4)})
        keys = ("f1", "recall", "precision", "none_cited", "empty_gold_right")
        spread = {who: {k: [_mean([h[who][k] for h in held if h[who][k] == h[who][k]]),
                            round(statistics.pstdev([h[who][k] for h in held if h[who][k] == h[who][k]]), 4)] for k in keys}
                  for who in ("new", "now")}
        gains = [h["f1_gain"] for h in held]
        by_set = {name: {"new": _scores(sub, picks_new), "now": _scores(sub, picks_now)}
                  for k, name in SETS.items() if (sub := [f for f in feats if f["id"].startswith(k)])}
        # each set left out of the fit in turn (a set written apart stands for questions nobody has written yet)
        left_out = {}
        for k, name in SETS.items():
            rest, sub = [f for f in feats if not f["id"].startswith(k)], [f for f in feats if f["id"].startswith(k)]
            if sub:
                m = _best_meaning(rest, w, t, where, cosine)
                left_out[name] = {"chosen": m, "new": _scores(sub, {f["id"]: answered(f, w, t, m, where, cosine) for f in sub}),
                                  "now": _scores(sub, {f["id"]: answered(f, w, t) for f in sub})}
        chosen = _best_meaning(feats, w, t, where, cosine)
        out[cosine] = {"chosen": {"bar": chosen[0], "ratio": chosen[1], "margin": chosen[2]}, "folds": held, "held_out": spread,
                      "f1_gain": [_mean(gains), round(statistics.pstdev(gains), 4)], "held_out_by_set": by_set, "set_left_out": left_out,
                      "all_with_chosen": _scores(feats, {f["id"]: answered(f, w, t, chosen, where, cosine) for f in feats})}
    return out


# --- the cut-off refitted on the whole answer (session 14, helper O) --------------------------------
def shown(f: dict[str, Any], w: float, t: float, meaning: tuple[float, ...] | None) -> tuple[list[str], str]:
    """The works the answer cites and the text it shows (the filter's topic, which every head
    names, and each shown abstract's quote), as ``collection._follow_up`` answers: ``answered``'s
    branches, with the "none mentions" answer's closest three shown uncited."""
    cands = f["cands"]
    rel = [w * c[0] + (1 - w) * c[1] for c in cands]
    order = sorted(range(len(cands)), key=lambda i: -rel[i])  # stable: ties keep the list's order, as sorted() there
    cited = answered(f, w, t, meaning)
    listed = [i for i in order if rel[i] >= t]
    if listed or any(c[4] for c in cands) or not cited:  # the word path's quote: listed, closest three (cited or not)
        quotes = [cands[i][5] for i in (listed or order[:3])]
    else:  # by meaning: the sentence closest in meaning
        quotes = [c[6] for c in cands if c[3] in cited]
    return cited, " ".join([f.get("topic", ""), *quotes])


def _answer_scores(feats: list[dict[str, Any]], w: float, t: float, meaning: tuple[float, ...] | None) -> dict[str, float]:
    from evals.metrics import key_point_coverage

    got = {f["id"]: shown(f, w, t, meaning) for f in feats}
    out = _scores(feats, {i: cited for i, (cited, _) in got.items()})
    out["key_points"] = _mean([key_point_coverage(got[f["id"]][1], f["key_points"]) for f in feats if f["key_points"]])
    out["naive_key_points"] = _mean([f["naive_kp"] for f in feats if f["key_points"] and f["naive_kp"] == f["naive_kp"]])
    return out


def fit_answer(feats: list[dict[str, Any]], in_use: tuple[float, float], meaning: tuple[float, ...], folds: int = 5) -> dict[str, Any]:
    """5-fold CV (folds by session) of (``followup_lexical_weight``, ``followup_cutoff``) for the mean
    F1 of the works the whole answer cites (the rule by meaning and the "none" fallbacks as they
    answer now, ``meaning`` = its constants in use), paired per fold against the constants in use;
    key points and the naive baseline's beside. Ties: ``best``'s (lower weight, higher cut-off)."""
    feats = [f for f in feats if f["detected"]]
    ids = sorted(f["id"] for f in feats)
    fold_of = {i: j % folds for j, i in enumerate(ids)}

    def choose(train: list[dict[str, Any]]) -> tuple[float, float]:
        return max(((w, t) for w in WEIGHTS for t in CUTOFFS),
                   key=lambda p: (_mean([f1(f, answered(f, p[0], p[1], meaning)) for f in train]), -p[0], p[1]))

    held = []
    for i in range(folds):
        train, test = [f for f in feats if fold_of[f["id"]] != i], [f for f in feats if fold_of[f["id"]] == i]
        w, t = choose(train)
        new, now = _answer_scores(test, w, t, meaning), _answer_scores(test, *in_use, meaning)
        held.append({"fold": i, "weight": w, "cutoff": t, "new": new, "now": now,
                     "f1_gain": round(new["f1"] - now["f1"], 4), "key_points_gain": round(new["key_points"] - now["key_points"], 4)})
    keys = ("f1", "recall", "precision", "key_points", "naive_key_points", "none_cited", "empty_gold_right")
    spread = {who: {k: [_mean([h[who][k] for h in held if h[who][k] == h[who][k]]),
                        round(statistics.pstdev([h[who][k] for h in held if h[who][k] == h[who][k]]), 4)] for k in keys}
              for who in ("new", "now")}
    w, t = choose(feats)
    return {"command": "python -m evals.list_followups cutoff", "sessions": len(feats), "in_use": list(in_use),
            "meaning_in_use": list(meaning), "chosen": {"weight": w, "cutoff": t}, "folds": held, "held_out": spread,
            **{f"{k}_gain": [_mean(g := [h[f"{k}_gain"] for h in held if h[f"{k}_gain"] == h[f"{k}_gain"]]),
                             round(statistics.pstdev(g), 4) if g else float("nan")] for k in ("f1", "key_points")},
            "all_with_chosen": _answer_scores(feats, w, t, meaning), "all_in_use": _answer_scores(feats, *in_use, meaning),
            "by_set_in_use": {name: _answer_scores(sub, *in_use, meaning) for k, name in SETS.items()
                              if (sub := [f for f in feats if f["id"].startswith(k)])}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.list_followups", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["fit", "meaning", "cutoff"])
    ap.add_argument("--data-dir", default=None, help="index of the bundled corpus (default: the harness's cache)")
    ap.add_argument("--features", default=None, help="a features JSON written by an earlier run (skips the answers)")
    ap.add_argument("--dry-run", action="store_true", help="print, do not write evals/fits/list_followups.json")
    args = ap.parse_args(argv)
    from evals.lists import open

    assistant = open(args.data_dir)
    if args.features and Path(args.features).exists():
        feats = json.loads(Path(args.features).read_text(encoding="utf-8"))
    else:
        feats = features(assistant)
        if args.features:
            Path(args.features).write_text(json.dumps(feats), encoding="utf-8")
    cs = assistant.settings.collection
    if args.command == "cutoff":  # the cut-off on the whole answer -> fits/list_followups_answer.json
        result = fit_answer(feats, (cs.followup_lexical_weight, cs.followup_cutoff),
                            (cs.followup_meaning_bar, cs.followup_meaning_ratio, cs.followup_meaning_margin))
        if not args.dry_run:
            ANSWER_FIT_PATH.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(json.dumps({k: v for k, v in result.items() if k != "folds"}, indent=1))
        return 0
    if args.command == "meaning":
        result = fit_meaning(feats, cs.followup_lexical_weight, cs.followup_cutoff)
        if not args.dry_run:
            MEANING_FIT_PATH.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(json.dumps({k: v if not isinstance(v, dict) else {kk: vv for kk, vv in v.items() if kk != "folds"}
                          for k, v in result.items()}, indent=1))
        return 0
    result = fit(feats, now=(cs.lexical_weight, cs.cutoff),
                 in_use=(cs.followup_lexical_weight, cs.followup_cutoff))
    if not args.dry_run:
        FIT_PATH.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v if not isinstance(v, dict) else {kk: vv for kk, vv in v.items() if kk != "folds"}
                      for k, v in result.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
