"""Which sentence a follow-up on a list quotes, and the key points it loses (helper G3, session 13, #21).

    python -m evals.experiments.followup_quotes collect [--data-dir D] [--out F]   # per follow-up: the answer now, every listed sentence
    python -m evals.experiments.followup_quotes fit [--features F]                 # -> evals/experiments/fits/followup_quotes.json

A follow-up's key points are the gold's phrases (``evals.metrics.key_point_coverage``: found in the
answer's text), so an answer that cites the right abstract but quotes another of its sentences loses
them. ``collect`` asks every follow-up session (the list split's ``FL*``, ``lists_followups_written``,
``followups_meaning_written``) as the assistant answers now, and keeps, for each abstract of the
previous list, every sentence with its cosine with the filter as asked and with its topic (``cited``:
the answer shows it, cited or as the "none mentions" answer's closest three); ``fit`` re-chooses the
quoted sentence of each abstract shown (the set is the answer's: membership is not changed here) by
each rule, and scores the answer's key points, 5-fold CV by
session for a rule with a weight, paired per fold against the sentence quoted now and the naive
baseline (the top-k abstracts' best sentences, ``evals.answers.baseline_answer``).

Per cited abstract it also says where a key point is lost: the quote holds it ("stated"), another
sentence of the abstract does ("wrong sentence"), or none does; and per session whether an uncited
abstract of the list holds it ("not cited").
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from evals.data import (
    EVALS_DIR,
    FOLLOWUPS_MEANING_WRITTEN_PATH,
    LISTS_PATH,
    load_for_tuning,
    resolve_anchors,
)
from evals.data import FOLLOWUPS_WRITTEN_PATH as FOLLOWUPS_PATH
from evals.metrics import key_point_coverage

FIT_PATH = EVALS_DIR / "experiments" / "fits" / "followup_quotes.json"
FEATURES = Path(__file__).resolve().parent / "runs" / "_cache" / "followup-quotes-features.json"  # collect's output, read by fit (inside the clone; evals/runs/ is ignored)
WEIGHTS = [round(0.1 * i, 1) for i in range(11)]


def collect(assistant: Any) -> list[dict[str, Any]]:
    """Per follow-up session: the answer now (text, cited works and quotes) and, per abstract of the
    previous list, its sentences with their cosines (filter as asked, its topic)."""
    from assistant.collection.followups import docs_of_quotes
    from assistant.collection.topics import rescored
    from assistant.evidence.scoring import embed
    from assistant.question.conversation import previous_list, standalone_question
    from assistant.question.shape import detect
    from evals.answers import baseline_answer

    all_docs = assistant.retriever.docs()
    rows = [r for path in (LISTS_PATH, FOLLOWUPS_PATH, FOLLOWUPS_MEANING_WRITTEN_PATH) for r in load_for_tuning(path)]
    by_id = {r["id"]: r for r in rows}
    follow = [r for r in rows if r.get("previous") and r.get("shape") == "list"]
    questions, _ = resolve_anchors(follow, assistant.retriever.docs())
    gold = {q.id: sorted(q.gold) for q in questions}
    asked = {q.id: q for q in questions}
    engine, out = assistant.engine, []
    for r in follow:
        first = by_id[r["previous"]]["question"]
        prev = assistant.ask(first, backend="extractive")
        history = [{"role": "user", "content": first}, {"role": "assistant", "content": prev.text}]
        ans = assistant.ask(r["question"], history=history, backend="extractive")
        shape = detect(r["question"], previous_was_list=True)
        naive = baseline_answer(assistant, asked[r["id"]], standalone_question(r["question"], history), all_docs)[0] \
            if r["id"] in asked and r.get("key_points") else float("nan")
        docs = docs_of_quotes(engine.parts, previous_list(history))
        # what the answer shows of each abstract: a cited line, or the "none mentions" answer's uncited closest
        cited = {i.doc_id: i.text for i in ans.items if i.cited or f"- {i.label} — {i.text}" in ans.text}
        listed = []
        if docs and shape.follow_up:
            q = embed(engine.cache.embedder, [shape.predicate or shape.topic, shape.topic])
            by_topic = rescored(engine.parts, shape.topic, docs)  # the word path's quote now, and whether each writes every topic word
            for d, t, (spans, vecs) in zip(docs, by_topic, engine.cache.get([d.original for d in docs]), strict=True):
                sims = (vecs @ q.T).tolist() if len(vecs) else []
                listed.append({"work": d.work_id, "doc": d.doc_id, "cited": d.doc_id in cited, "quote": cited.get(d.doc_id, ""),
                               "mentions": t.mentions, "lexical_quote": " ".join(t.quote.split()),
                               "sentences": [" ".join(d.original[a:b].split()) for a, b in spans],
                               "cos": [[round(x, 5) for x in s] for s in sims]})
        out.append({"id": r["id"], "question": r["question"], "key_points": r.get("key_points", []), "gold": gold.get(r["id"], []),
                    "topic": shape.topic, "predicate": shape.predicate, "detected": shape.follow_up, "text": ans.text, "refused": ans.refused, "caveat_kind": ans.caveat_kind, "naive_kp": naive,
                    "cited_works": sorted({c.doc_id for c in ans.citations}), "listed": listed})
    return out


# --- the sentence rules -----------------------------------------------------------------------------
# Each rule: (abstract, session, params) -> the sentence it quotes. "now" is the answer's quote where it
# shows the abstract, else what it would quote (the word path's lexical best, the closest by meaning).
def now(it: dict[str, Any], f: dict[str, Any], *_: Any) -> str:
    if it["quote"]:
        return it["quote"]
    return _argmax(it, [sum(c) / 2 for c in it["cos"]]) if f["caveat_kind"] == "list_by_meaning" else it["lexical_quote"]


def _argmax(it: dict[str, Any], keys: list[Any]) -> str:
    return it["sentences"][max(range(len(keys)), key=lambda j: keys[j])]


def _close(a: str, b: str) -> bool:
    """Two stems are close forms of one word when equal or one extends the other (English derives by
    suffixing: "reduc"/"reduct", "speed"/"speedup", "fast"/"faster"); a stem under four letters
    extends into unrelated words ("use"/"user") and must match whole."""
    short, long_ = sorted((a, b), key=len)
    return a == b or (len(short) >= 4 and long_.startswith(short))


def stated_score(sentence: str, q_terms: list[str], idf: Any) -> float:
    """The IDF-weighted share of the filter's terms (as asked, then its topic's) that ``sentence``
    writes in the same or a close form (``_close``)."""
    from assistant.evidence.scoring import terms

    have, weights = set(terms(sentence)), [idf(t) for t in q_terms]
    hit = sum(w for t, w in zip(q_terms, weights, strict=True) if any(_close(t, h) for h in have))
    return hit / sum(weights) if sum(weights) else 0.0


def rules(idf: Any) -> dict[str, tuple[Any, list[Any]]]:
    """name -> (rule, its grid of params; fitted by 5-fold CV where it has more than one)."""
    from assistant.collection.followups import own_claim
    from assistant.collection.topics import has_run
    from assistant.evidence.scoring import coverage, terms

    def weighed(it: dict[str, Any], f: dict[str, Any], p: tuple[float, float]) -> str:
        """w x the close-form share of the filter's words + (1 - w) x the mean cosine + v for the
        first person; ties by the cosine."""
        w, v = p
        ts = list(dict.fromkeys(terms(f["predicate"] or f["topic"]) + terms(f["topic"])))
        return _argmax(it, [(w * stated_score(s, ts, idf) + (1 - w) * sum(c) / 2 + v * own_claim(s), sum(c) / 2)
                            for s, c in zip(it["sentences"], it["cos"], strict=True)])

    def stating(it: dict[str, Any], f: dict[str, Any], p: Any = None) -> str:
        """As ``assistant.collection.followups.quote_stating``: where some listed abstract writes every topic word,
        the sentences of the best lexical score for the topic, else all; among them the first person
        first, then the mean cosine."""
        ts, cos = terms(f["topic"]), [sum(c) / 2 for c in it["cos"]]
        lex = [0.5 * coverage(ts, set(q := terms(s)), idf) + 0.5 * float(has_run(q, ts)) for s in it["sentences"]]
        ok = [x >= max(lex) - 1e-9 for x in lex] if any(i["mentions"] for i in f["listed"]) else [True] * len(lex)
        return _argmax(it, [(k, own_claim(s), c) for k, s, c in zip(ok, it["sentences"], cos, strict=True)])

    bonus = [0.0, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
    return {"now": (now, [None]), "cosine": (weighed, [(0.0, 0.0)]), "lexical": (weighed, [(w, 0.0) for w in WEIGHTS]),
            "own": (weighed, [(0.0, v) for v in bonus]), "lexical_own": (weighed, [(w, v) for w in WEIGHTS for v in bonus]),
            "stating": (stating, [None])}


def answer_kp(f: dict[str, Any], rule: Any, p: Any) -> float:
    """The answer's key points with each shown abstract's quote replaced by the rule's sentence (its
    label and the answer's head stay: a key point may be in either)."""
    text = f["text"]
    for it in f["listed"]:
        if it["cited"] and it["sentences"] and it["quote"]:
            text = text.replace(f" — {it['quote']}", f" — {rule(it, f, p)}", 1)
    return key_point_coverage(text, f["key_points"])


def _has(f: dict[str, Any], s: str) -> bool:
    return any(k.lower() in s.lower() for k in f["key_points"])


def quote_states(f: dict[str, Any], rule: Any, p: Any, shown_only: bool = False) -> list[float]:
    """Per gold abstract of the list that writes a key point in some sentence (``shown_only``: per one
    the answer shows): 1 when the rule quotes such a sentence."""
    return [float(_has(f, rule(it, f, p))) for it in f["listed"]
            if it["work"] in f["gold"] and it["sentences"] and any(_has(f, s) for s in it["sentences"])
            and (it["cited"] or not shown_only)]


def diagnose(f: dict[str, Any]) -> dict[str, Any]:
    """Where the session's key points are lost (see the module doc)."""
    shown = [it for it in f["listed"] if it["cited"]]
    return {"id": f["id"], "kp_now": key_point_coverage(f["text"], f["key_points"]), "shown": len(shown),
            "shown_gold": sum(it["work"] in f["gold"] for it in shown), "stated": sum(_has(f, it["quote"]) for it in shown),
            "wrong_sentence": sum(not _has(f, it["quote"]) and any(_has(f, s) for s in it["sentences"]) for it in shown),
            "nowhere": sum(not any(_has(f, s) for s in it["sentences"]) for it in shown),
            "not_shown": sum(not it["cited"] and any(_has(f, s) for s in it["sentences"]) for it in f["listed"]),
            "caveat_kind": f["caveat_kind"]}


def _mean_sd(xs: list[float]) -> list[float]:
    xs = [x for x in xs if x == x]
    return [round(statistics.fmean(xs), 4), round(statistics.pstdev(xs), 4)] if xs else [float("nan"), 0.0]


def _mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else float("nan")


def fit(feats: list[dict[str, Any]], idf: Any, folds: int = 5) -> dict[str, Any]:
    """Per rule, 5-fold CV by session (params chosen for the answers' key points on the other folds):
    held-out key points, the quote-states share (all gold abstracts writing a key point, and those
    shown), paired gains against now, per set; and the naive baseline's key points on the same folds."""
    scored = [f for f in feats if f["key_points"]]
    fold_of = {i: j % folds for j, i in enumerate(sorted(f["id"] for f in scored))}
    out: dict[str, Any] = {"command": "python -m evals.experiments.followup_quotes fit", "sessions": len(scored),
                           "abstracts_stating": sum(len(quote_states(f, now, None)) for f in scored),
                           "diagnosis": [diagnose(f) for f in scored]}
    for name, (rule, grid) in rules(idf).items():
        held, chosen = [], {}
        for i in range(folds):
            train = [f for f in scored if fold_of[f["id"]] != i]
            test = [f for f in scored if fold_of[f["id"]] == i]
            p = grid[0] if len(grid) == 1 else max(grid, key=lambda p: (_mean([answer_kp(f, rule, p) for f in train]), *p))
            chosen |= {f["id"]: p for f in test}
            qs = [x for f in test for x in quote_states(f, rule, p)]
            qs_now = [x for f in test for x in quote_states(f, now, None)]
            h = {"fold": i, "params": p, "kp": _mean([answer_kp(f, rule, p) for f in test]),
                 "kp_now": _mean([answer_kp(f, now, None) for f in test]), "naive_kp": _mean([f["naive_kp"] for f in test]),
                 "quote_states": _mean(qs), "quote_states_now": _mean(qs_now),
                 "quote_states_shown": _mean([x for f in test for x in quote_states(f, rule, p, True)]),
                 "quote_states_shown_now": _mean([x for f in test for x in quote_states(f, now, None, True)])}
            h |= {"kp_gain": h["kp"] - h["kp_now"], "quote_states_gain": h["quote_states"] - h["quote_states_now"]}
            held.append({k: round(v, 4) if isinstance(v, float) else v for k, v in h.items()})
        keys = [k for k in held[0] if k not in ("fold", "params")]
        new = {f["id"]: answer_kp(f, rule, chosen[f["id"]]) for f in scored}
        was = {f["id"]: answer_kp(f, now, None) for f in scored}
        out[name] = {"folds": held, "held_out": {k: _mean_sd([h[k] for h in held]) for k in keys},
                     "sessions_won": sorted(i for i in new if new[i] > was[i]), "sessions_lost": sorted(i for i in new if new[i] < was[i]),
                     "by_set": {k: {"kp": round(_mean([new[f["id"]] for f in sub]), 4), "kp_now": round(_mean([was[f["id"]] for f in sub]), 4),
                                    "quote_states": _mean_sd([x for f in sub for x in quote_states(f, rule, chosen[f["id"]])]),
                                    "quote_states_now": _mean_sd([x for f in sub for x in quote_states(f, now, None)])}
                                for k in ("FL", "WF", "MF") if (sub := [f for f in scored if f["id"].startswith(k)])}}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.experiments.followup_quotes", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["collect", "fit"])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--features", default=str(FEATURES))
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    from evals.lists import open

    assistant = open(args.data_dir)
    if args.command == "collect":
        feats = collect(assistant)
        Path(args.features).parent.mkdir(parents=True, exist_ok=True)
        Path(args.features).write_text(json.dumps(feats), encoding="utf-8")
        print(f"{len(feats)} sessions -> {args.features}")
        return 0
    feats = json.loads(Path(args.features).read_text(encoding="utf-8"))
    result = fit(feats, assistant.engine.idf())
    if not args.dry_run:
        FIT_PATH.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "diagnosis"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
