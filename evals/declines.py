"""The local model's decline, arbitrated (issue #20): when is its NOT IN SOURCES worth hearing?

The default backend ("lead": the model writes one sentence from extraction's best sentence) may
reply NOT IN SOURCES; today that is always heard (extraction's sentences under the caveat "the
model found no direct answer", a refusal where the question names something no source mentions).
It catches unanswerable questions, and hedges answerable ones. This tool measures both and fits
when the decline should be heard.

``collect`` asks tuning questions only (dev without follow-ups, generated, calibration,
generated_unanswerable, paraphrase_written without follow-ups (``--sets`` picks some), and answerable ones again with their gold work left out, ``--loo``; never
the locked split) through the product, ``Assistant.ask(q, backend="local")``, with the hook OFF
(every decline heard, today's behaviour), and extractively; and caches per question: whether the
model declined (and its raw reply), the decision (outcome, relevance, missing names, each abstract's
relevance), both answers' refused / caveat state, and whether the question is answerable. One
JSON line per question in ``evals/fits/declines_cache.jsonl``; resumable (a question already
cached is skipped), so it can be stopped and run again::

    nice -n 5 python -m evals.declines collect --data-dir D --threads 2 [--lead-shown 1]

``fit`` reads the cache only (no model): the rule "hear the decline when the decision's relevance
is below t, or its outcome is caveat, or the question names something unmatched; otherwise
extraction's answer stands", t chosen by 5-fold CV (folds by source question) by the order of
harms, and reports held-out figures beside "always hear" (today) and extraction alone::

    python -m evals.declines fit [--lead-shown 1]   -> evals/fits/declines.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "evals" / "fits" / "declines_cache.jsonl"
FIT = ROOT / "evals" / "fits" / "declines.json"
SETS = {"dev": 93, "generated": 40, "calibration": 40, "generated_unanswerable": 40,  # questions per set (dev: all but follow-ups)
        "paraphrase_written": 52}  # hand-written in users' wording (issue #20: the hard unanswerable kind; no follow-ups)
# the rule's features compared by the fit (the decision's; evals/declines.py value)
STUDIED = ("relevance", "-relevance", "best_sentence", "-best_sentence", "gap")
LOO = {"dev": 30, "generated": 20, "calibration": 10, "paraphrase_written": 37}  # answerable ones asked again, gold left out


# --- the sample -----------------------------------------------------------------------------------
def sample(docs: dict[str, Any], sets: dict[str, int], loo: dict[str, int]) -> list[tuple[str, Any, bool]]:
    """(set, Question, loo) in an order that interleaves sets, types and LOO, so a partial cache is
    balanced. Round-robin over types within each set (as ``--limit`` takes them); no follow-ups."""
    from evals.data import load_for_tuning, resolve_anchors, resolve_path
    from evals.harness import limit_questions

    groups: list[list[tuple[str, Any, bool]]] = []
    for name, n in sets.items():
        _, path = resolve_path(name)
        questions, _ = resolve_anchors(load_for_tuning(path), docs)
        plain = limit_questions([q for q in questions if not q.previous], n)
        groups.append([(name, q, False) for q in plain])
        held = [q for q in plain if q.answerable and q.gold][: loo.get(name, 0)]
        if held:
            groups.append([(name, q, True) for q in held])
    out: list[tuple[str, Any, bool]] = []
    while any(groups):
        for g in groups:
            if g:
                out.append(g.pop(0))
    return out


def key(name: str, qid: str, loo: bool, lead_shown: int) -> str:
    return f"{name}:{qid}:{'loo' if loo else 'plain'}:lead{lead_shown}"


class Recording:
    """The product's model, unchanged, with each reply it streamed kept (the raw decline)."""

    def __init__(self, inner: Any, replies: list[str]) -> None:
        self._inner, self._replies = inner, replies

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def stream(self, messages: Any, **kw: Any) -> Any:
        parts: list[str] = []
        try:
            for delta in self._inner.stream(messages, **kw):
                parts.append(delta)
                yield delta
        finally:
            self._replies.append("".join(parts))


def extractive_state(ans: Any, gold: set[str], docs: dict[str, Any]) -> dict[str, Any]:
    works = [docs[c.doc_id].work_id if c.doc_id in docs else c.doc_id for c in ans.citations]
    return {"refused": bool(ans.refused), "caveated": bool(ans.caveat) and not ans.refused,
            "caveat": ans.caveat, "caveat_kind": getattr(ans, "caveat_kind", None),
            "fallback_reason": ans.fallback_reason, "backend": ans.backend,
            "cited_gold": any(w in gold for w in works) if gold else None,
            "first_cited_gold": (works[0] in gold) if gold and works else None,
            "text": ans.text[:600], "timings": dict(ans.timings)}


def record(assistant: Any, name: str, q: Any, loo: bool, lead_shown: int, docs: dict[str, Any]) -> dict[str, Any]:
    from assistant.compose.answer_text import DECLINED_REASON

    exclude = set(q.gold) if loo else None
    k = assistant.settings.top_k
    turn = assistant.engine.analyze(q.text, k, exclude)
    d = turn.decision
    replies: list[str] = []
    factory = assistant.engine.model_factory
    assistant.engine.model_factory = lambda backend, settings: Recording(factory(backend, settings), replies)
    try:
        t = time.perf_counter()
        local = assistant.ask(q.text, backend="local", exclude=exclude)
        local_s = time.perf_counter() - t
    finally:
        assistant.engine.model_factory = factory
    extractive = assistant.ask(q.text, backend="extractive", exclude=exclude)
    best = turn.evidence.best(assistant.settings.answer.lexical_weight) if turn.evidence else 0.0
    return {
        "key": key(name, q.id, loo, lead_shown), "set": name, "id": q.id, "type": q.type,
        "source": q.raw.get("derived_from") or q.id, "loo": loo, "lead_shown": lead_shown,
        "answerable": q.answerable and not loo,  # a LOO question's answer has been taken away
        "outcome": d.outcome if d else "refuse", "relevance": round(d.relevance, 4) if d else 0.0,
        "missing": list(d.missing) if d else [], "relevances": [round(r, 4) for r in turn.relevances],
        "features": {k: round(float(v), 4) for k, v in (d.features if d else {}).items()},
        "best_sentence": round(best, 4), "model_asked": bool(replies), "reply": replies[-1] if replies else None,
        "declined": local.fallback_reason == DECLINED_REASON, "local": extractive_state(local, q.gold, docs),
        "extractive": extractive_state(extractive, q.gold, docs), "local_s": round(local_s, 2),
    }


def _assistant(args: argparse.Namespace) -> Any:
    from assistant import Assistant

    model = getattr(args, "model", None) or os.environ.get("ASSISTANT_LOCAL_MODEL_PATH")
    overrides: dict[str, Any] = {"local_threads": getattr(args, "threads", 2)}
    if model:
        overrides["local_model_path"] = Path(model)
    return Assistant(data_dir=args.data_dir, **overrides)


def collect(args: argparse.Namespace) -> None:
    os.environ.setdefault("ASSISTANT_ANSWER_DEADLINE_S", "300")  # a loaded machine must not time the model out
    assistant = _assistant(args)
    assistant.settings.prompts.lead_shown = args.lead_shown
    assistant.settings.prompts.decline_relevance = None  # today's rule: every decline heard (measured before any hook)
    docs = assistant.retriever.docs()
    cache = Path(args.cache)
    done = {json.loads(line)["key"] for line in cache.read_text().splitlines() if line.strip()} if cache.exists() else set()
    sets = {n: SETS[n] for n in args.sets.split(",")} if args.sets else SETS  # e.g. --sets paraphrase_written
    todo = [s for s in sample(docs, sets, {} if args.no_loo else LOO) if key(s[0], s[1].id, s[2], args.lead_shown) not in done]
    if args.only:  # e.g. a second design asked again on chosen questions: "set:id:plain|loo" per line
        wanted = set(Path(args.only).read_text().split())
        todo = [s for s in todo if key(s[0], s[1].id, s[2], args.lead_shown).rsplit(":", 1)[0] in wanted]
    if args.limit:
        todo = todo[: args.limit]
    print(f"{len(done)} cached, {len(todo)} to ask (load {os.getloadavg()[0]:.1f})", flush=True)
    assistant.ask("warm up query", backend="local")
    for i, (name, q, loo) in enumerate(todo, 1):
        rec = record(assistant, name, q, loo, args.lead_shown, docs)
        with cache.open("a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")
        print(f"{i}/{len(todo)} {rec['key']} {rec['outcome']} rel={rec['relevance']:.3f} "
              f"declined={rec['declined']} {rec['local_s']:.1f}s load={os.getloadavg()[0]:.1f}", flush=True)


# --- the rule and its fit -------------------------------------------------------------------------
def value(r: dict[str, Any], feature: str) -> float:
    """A row's ``feature``: "relevance", "best_sentence" or one of the decision's features; a
    leading "-" negates it (a rule that hears the decline when the feature is ABOVE its bar)."""
    name, sign = (feature[1:], -1.0) if feature.startswith("-") else (feature, 1.0)
    if name == "gap":  # how far the first abstract stands above the best other one read (see gap())
        return sign * gap(r["relevances"])
    return sign * float(r[name] if name in r else r.get("features", {}).get(name, 0.0))


def gap(relevances: list[float]) -> float:
    """The first abstract's relevance minus the best other abstract's (0 when one was read). The
    decline says no abstract directly answers; where one abstract stands clearly above the rest,
    the retrieval found the question's paper and a decline more likely misreads it, while a
    question no abstract answers finds only neighbours of like relevance (a small or negative gap)."""
    return relevances[0] - max(relevances[1:]) if len(relevances) > 1 else 0.0


def heard(r: dict[str, Any], t: float | None, feature: str = "relevance") -> bool:
    """The rule: a decline is heard when the decision's relevance (or ``feature``) is below ``t``,
    or its outcome is not a plain answer, or the question names something no source mentions.
    ``t`` None: always (today)."""
    return t is None or r["outcome"] != "answer" or bool(r["missing"]) or value(r, feature) < t


def outcome(r: dict[str, Any], t: float | None, policy: str, feature: str = "relevance") -> str:
    """What the user gets under ``policy``: "refused", "caveated" or "answered"."""
    side = r["extractive"] if policy == "extractive" or (r["declined"] and not heard(r, t, feature)) else r["local"]
    return "refused" if side["refused"] else "caveated" if side["caveated"] else "answered"


def figures(rows: list[dict[str, Any]], t: float | None, policy: str = "local", feature: str = "relevance") -> dict[str, float]:
    ans = [r for r in rows if r["answerable"]]
    para = [r for r in ans if r["type"] == "paraphrase"]
    loo = [r for r in rows if r["loo"]]
    una = [r for r in rows if not r["answerable"] and not r["loo"]]
    right = [r for r in ans if r["extractive"]["first_cited_gold"]]  # extraction's [1] is a gold abstract
    wrong = [r for r in ans if not r["extractive"]["first_cited_gold"]]

    def share(rs: list[dict[str, Any]], want: tuple[str, ...]) -> float:
        return sum(outcome(r, t, policy, feature) in want for r in rs) / len(rs) if rs else 0.0

    return {"answerable_hedged": share(ans, ("refused", "caveated")), "answerable_refused": share(ans, ("refused",)),
            "paraphrase_hedged": share(para, ("refused", "caveated")),
            "unanswerable_caught": share(una, ("refused", "caveated")), "loo_caught": share(loo, ("refused", "caveated")),
            "right_hedged": share(right, ("refused", "caveated")), "wrong_caught": share(wrong, ("refused", "caveated")),
            "n_answerable": len(ans), "n_unanswerable": len(una), "n_loo": len(loo), "n_right": len(right), "n_wrong": len(wrong)}


def cost(f: dict[str, float], unanswerable_weight: float) -> float:
    """Order of harms: a caveat on a right answer (an answerable question whose [1] is gold) costs 1;
    a plain answer that does not answer (an unanswerable or LOO question, or an answerable one whose
    [1] is not gold) costs ``unanswerable_weight``: the hedge there is earned."""
    missed = (1 - f["unanswerable_caught"]) * f["n_unanswerable"] + (1 - f["loo_caught"]) * f["n_loo"] \
        + (1 - f["wrong_caught"]) * f["n_wrong"]
    return f["right_hedged"] * f["n_right"] + unanswerable_weight * missed


def choose(rows: list[dict[str, Any]], weight: float, feature: str = "relevance") -> float | None:
    """The threshold of least cost on ``rows`` (ties: the higher t, which hears more declines)."""
    grid = sorted({value(r, feature) for r in rows if r["declined"]} | {min(0.0, *(value(r, feature) for r in rows)) - 1.0})
    best: tuple[float, float | None] = (cost(figures(rows, None), weight), None)
    for t in reversed([g + 1e-6 for g in grid]):
        c = cost(figures(rows, t, feature=feature), weight)
        if c < best[0] - 1e-9:
            best = (c, t)
    return best[1]


def cv(rows: list[dict[str, Any]], weight: float, feature: str, folds: int) -> dict[str, Any]:
    """5-fold CV (folds by source question: a question and its derived / LOO forms stay together):
    each fold's t chosen on the other folds; held-out shares mean +- sd over folds, and the counts
    summed over folds (each row is held out once), for the rule, always heard, and extraction."""
    sources = sorted({r["source"] for r in rows})
    random.Random(0).shuffle(sources)
    fold_of = {s: i % folds for i, s in enumerate(sources)}
    per: dict[str, list[dict[str, float]]] = {"always": [], "extractive": [], "rule": []}
    ts: list[float | None] = []
    for k in range(folds):
        train = [r for r in rows if fold_of[r["source"]] != k]
        test = [r for r in rows if fold_of[r["source"]] == k]
        t = choose(train, weight, feature)
        ts.append(None if t is None else round(t, 4))
        per["always"].append(figures(test, None))
        per["extractive"].append(figures(test, None, "extractive"))
        per["rule"].append(figures(test, t, feature=feature))
    out: dict[str, Any] = {"fold_thresholds": ts}
    # the held-out cost (order of harms) per fold, and the rule's minus today's, paired by fold
    costs = {name: [cost(f, weight) for f in fs] for name, fs in per.items()}
    out["cost"] = {name: round(sum(c), 2) for name, c in costs.items()}
    for name in ("rule", "extractive"):
        diff = [a - b for a, b in zip(costs[name], costs["always"], strict=True)]
        out[f"cost_{name}_minus_always"] = [round(statistics.mean(diff), 2), round(statistics.pstdev(diff), 2),
                                            [round(d, 2) for d in diff]]
    for name, fs in per.items():
        shares = {m: [round(statistics.mean(f[m] for f in fs), 3), round(statistics.pstdev(f[m] for f in fs), 3)]
                  for m in fs[0] if not m.startswith("n_")}
        counts = {m: round(sum(f[m] * f[f"n_{g}"] for f in fs)) for m, g in
                  (("answerable_hedged", "answerable"), ("unanswerable_caught", "unanswerable"), ("loo_caught", "loo"),
                   ("right_hedged", "right"), ("wrong_caught", "wrong"))}
        out[name] = {"held_out": shares, "counts": counts}
    return out


def paired(every: list[dict[str, Any]]) -> dict[str, Any]:
    """Declines per group of the questions asked with each ``lead_shown`` (sentences the model sees)."""
    by: dict[int, dict[str, dict[str, Any]]] = {}
    for r in every:
        by.setdefault(r["lead_shown"], {})[r["key"].rsplit(":", 1)[0]] = r
    if len(by) < 2:
        return {}
    common = set.intersection(*(set(v) for v in by.values()))
    out: dict[str, Any] = {"questions": len(common)}
    for shown, rs in sorted(by.items()):
        picked = [rs[k] for k in common]
        out[f"lead_shown={shown}"] = {g: sum(r["declined"] for r in picked if grp(r) == g) for g in ("answerable", "loo", "unanswerable")}
        out[f"lead_shown={shown}"]["first_token_p50_s"] = statistics.median(
            r["local"]["timings"].get("first_token", 0.0) for r in picked if r["model_asked"])
    out["n"] = {g: sum(grp(by[min(by)][k]) == g for k in common) for g in ("answerable", "loo", "unanswerable")}
    return out


def per_set(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per set, what hearing every decline changes beside extraction alone: the unanswerable and
    LOO questions it catches that extraction answers plainly, the answerable ones it hedges that
    extraction does not (and those with extraction's [1] gold: a right answer hedged)."""
    out: dict[str, Any] = {}
    for name in sorted({r["set"] for r in rows}):
        rs = [r for r in rows if r["set"] == name]
        hedged = {p: [r for r in rs if outcome(r, None, p) != "answered"] for p in ("local", "extractive")}
        gained = [r for r in hedged["local"] if r not in hedged["extractive"]]
        lost = [r for r in hedged["extractive"] if r not in hedged["local"]]
        row: dict[str, Any] = {"declined": {g: sum(r["declined"] and grp(r) == g for r in rs) for g in GROUPS}}
        for g in GROUPS:
            n = sum(grp(r) == g for r in rs)
            row[g] = {"n": n, "hedged_extractive": sum(grp(r) == g for r in hedged["extractive"]),
                      "hedged_always": sum(grp(r) == g for r in hedged["local"]),
                      "only_decline": sorted(r["id"] for r in gained if grp(r) == g),
                      "only_extractive": sorted(r["id"] for r in lost if grp(r) == g)}
        right = [r for r in rs if r["answerable"] and r["extractive"]["first_cited_gold"]]
        row["right"] = {"n": len(right), "hedged_extractive": sum(r in hedged["extractive"] for r in right),
                        "hedged_always": sum(r in hedged["local"] for r in right)}
        out[name] = row
    return out


GROUPS = ("answerable", "loo", "unanswerable")


def grp(r: dict[str, Any]) -> str:
    return "answerable" if r["answerable"] else "loo" if r["loo"] else "unanswerable"


def fit(args: argparse.Namespace) -> None:
    every = [json.loads(line) for line in Path(args.cache).read_text().splitlines() if line.strip()]
    rows = [r for r in every if r["lead_shown"] == args.lead_shown]
    declined = [r for r in rows if r["declined"]]
    n = {g: sum(1 for r in rows if f(r)) for g, f in (("answerable", lambda r: r["answerable"]), ("loo", lambda r: r["loo"]),
                                                      ("unanswerable", lambda r: not r["answerable"] and not r["loo"]))}
    out: dict[str, Any] = {
        "command": " ".join(["python -m evals.declines"] + sys.argv[1:]), "rows": len(rows), "n": n,
        "declined": {"answerable": sum(r["answerable"] for r in declined), "loo": sum(r["loo"] for r in declined),
                     "unanswerable": sum(not r["answerable"] and not r["loo"] for r in declined),
                     "model_asked": sum(r["model_asked"] for r in rows)},
        "weight": args.weight, "feature": args.feature, "threshold": choose(rows, args.weight, args.feature),
        "chosen": cv(rows, args.weight, args.feature, args.folds),
        "all_rows": {"always": figures(rows, None), "extractive": figures(rows, None, "extractive")},
        "studies": {f"{feature}@w{w:g}": cv(rows, w, feature, args.folds) for feature in STUDIED for w in (0.5, 1.0, 2.0)},
    }
    out["all_rows"]["rule"] = figures(rows, out["threshold"], feature=args.feature)
    out["lead_shown"] = paired(every)
    out["per_set"] = per_set(rows)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: out[k] for k in ("rows", "n", "declined", "threshold", "chosen", "lead_shown")}, indent=1))
    for name, study in out["studies"].items():
        h = study["rule"]["held_out"]
        print(f"{name:22s} t={study['fold_thresholds']} right hedged {h['right_hedged']} una {h['unanswerable_caught']} "
              f"loo {h['loo_caught']} counts {study['rule']['counts']} cost {study['cost']} "
              f"rule-always per fold {study['cost_rule_minus_always'][:2]}")


def collect_parser(sub: Any, help_text: str) -> argparse.ArgumentParser:
    """The ``collect`` subcommand's model options."""
    c = sub.add_parser("collect", help=help_text)
    c.add_argument("--data-dir", required=True)
    c.add_argument("--threads", type=int, default=2)
    c.add_argument("--model", default=None, help="GGUF path (default: ASSISTANT_LOCAL_MODEL_PATH or the packaged one)")
    c.add_argument("--limit", type=int, default=0, help="ask at most this many new questions")
    return c


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = collect_parser(sub, "ask the sample through the product (the local model) and cache it")
    c.add_argument("--only", default="", help="a file of 'set:id:plain|loo' keys: ask only those")
    c.add_argument("--no-loo", action="store_true", help="only the questions as asked (no leave-one-out forms)")
    c.add_argument("--sets", default="", help=f"comma-separated sets to ask (default all: {','.join(SETS)})")
    f = sub.add_parser("fit", help="fit the arbitration rule by 5-fold CV on the cache (no model)")
    f.add_argument("--folds", type=int, default=5)
    f.add_argument("--weight", type=float, default=2.0, help="cost of a missed unanswerable/LOO question vs a hedged answerable one")
    f.add_argument("--out", default=str(FIT))
    f.add_argument("--feature", default="relevance", help="the rule's feature (a leading '-': heard above the bar)")
    for p in (c, f):
        p.add_argument("--cache", default=str(CACHE))
        p.add_argument("--lead-shown", type=int, default=1)
    args = ap.parse_args(argv)
    collect(args) if args.cmd == "collect" else fit(args)


if __name__ == "__main__":
    main()
