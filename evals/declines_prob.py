"""The local model's decline by its own probability (issue #20 / #19, session 15, helper D).

The default backend ("lead") writes one sentence or NOT IN SOURCES; every decline is heard
(evals/declines.py). Earlier studies overruled declines by the decision's relevance
(evals/declines.py) or by string checks (evals/declines_checks.py): no gain beyond the folds' spread.
This one measures the model's own confidence: P(decline), the probability of the reply's first
token being the decline's first token, read from llama.cpp's ``top_logprobs`` of that token
(``LocalChatModel.first_token_logprobs``, as assistant/question/shape_model.py reads a shape).

``collect`` asks the questions of the decline cache (evals/fits/declines_cache.jsonl, tuning sets
only, never the locked split) through the product, ``Assistant.ask(q, backend="local")``, with the
model wrapped: the lead request (the very messages the engine sends) is answered by one short
greedy request with the first token's top-10 log-probabilities, and nothing is streamed back, so
the engine takes its decline path and its answer is what a heard decline shows today (its state is
kept, ``declined_state``); extraction alone is asked too (``extractive``). One JSON line per row
in ``evals/fits/declines_prob_cache.jsonl``; resumable::

    nice -n 10 python -m evals.declines_prob collect --data-dir D --threads 2

``fit`` reads both caches (no model): the rule "the decline is heard iff P(decline) >= b", b chosen
by 5-fold CV (folds by source question, as evals.declines.cv) by the order of harms
(evals.declines.cost: right answers hedged + w x misses), beside today (every greedy decline
heard), extraction alone and the unfitted b = 0.5::

    python -m evals.declines_prob fit   -> evals/fits/declines_prob.json

Result (session 15, 295 rows, 264 with the lead asked): not shipped. P(decline) separates the
questions a hedge earns from right answers no better than the decision's relevance (AUC 0.715 vs
0.718); held out, a bar both ways costs -13.4 +- 6.7 per fold vs today at w = 2 only by hedging
71 of 90 right answers (every answer hedged: -12.6 +- 4.8), -1.6 +- 1.9 at w = 1 (47 of 90
hedged); overruling weak declines alone costs more than today (+1.2 +- 2.4, +0.6 +- 1.2).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from evals.declines import (
    CACHE,
    LOO,
    ROOT,
    SETS,
    _assistant,
    _state,
    collect_parser,
    cost,
    figures,
    grp,
    key,
    sample,
)
from evals.declines_checks import COUNTS, summary

PROB_CACHE = ROOT / "evals" / "fits" / "declines_prob_cache.jsonl"
FIT = ROOT / "evals" / "fits" / "declines_prob.json"
PROBE_TOKENS = 1  # the greedy first token: "NOT" begins the decline (the rest follows it), ~1.5 s less a row
TOP = 10  # llama.cpp top_logprobs of the first token


def decline_probability(top_logprobs: list[dict[str, Any]]) -> float:
    """P(decline): the summed probability of the first-token candidates that begin the decline's
    "NOT" (upper case, as the prompt asks it written; "Not" opens an ordinary English sentence).
    Not renormalised over the top ``TOP``: the lead runs without a grammar, so these are the model's
    own probabilities over its whole vocabulary; a decline token outside the top ten has less than
    the tenth's probability, and renormalising would raise every P by the tail's mass, which is
    greatest exactly where the model is unsure what to write."""
    return sum(math.exp(float(t["logprob"])) for t in top_logprobs if t.get("token", "").lstrip().startswith("NOT"))


class Probing:
    """The product's model with its lead request answered by a probe: the messages the engine
    sends, one greedy ``PROBE_TOKENS`` request with the first token's top log-probabilities, kept in
    ``seen``; nothing is streamed back (the engine then takes its decline path)."""

    def __init__(self, inner: Any, seen: dict[str, Any]) -> None:
        self._inner, self._seen = inner, seen

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def stream(self, messages: Any, **kw: Any) -> Any:
        from assistant.language.prompt_texts import load_prompt

        lead = messages[0]["content"] == load_prompt("answer_system_lead") and \
            messages[-1]["content"].rstrip().endswith(load_prompt("answer_user_lead").rstrip().splitlines()[-1])
        if not lead or "top" in self._seen:
            yield from self._inner.stream(messages, **kw)
            return
        t = time.perf_counter()
        reply, top = self._inner.first_token_logprobs(messages, max_tokens=PROBE_TOKENS, top=TOP)
        timings = self._inner.last_timings()
        self._seen.update(reply=reply, top=[{"token": x["token"], "logprob": round(float(x["logprob"]), 4)} for x in top],
                          seconds=round(time.perf_counter() - t, 3),
                          timings={k: timings.get(k) for k in ("cache_n", "prompt_n", "prompt_ms", "predicted_n", "predicted_ms")})
        yield from ()


def probe(assistant: Any, name: str, q: Any, loo: bool, docs: dict[str, Any]) -> dict[str, Any]:
    from assistant.compose.answer_text import MODEL_REFUSAL

    exclude = set(q.gold) if loo else None
    seen: dict[str, Any] = {}
    factory = assistant.engine.model_factory
    assistant.engine.model_factory = lambda backend, settings: Probing(factory(backend, settings), seen)
    try:
        declined = assistant.ask(q.text, backend="local", exclude=exclude)
    finally:
        assistant.engine.model_factory = factory
    extractive = assistant.ask(q.text, backend="extractive", exclude=exclude)
    top = seen.get("top")
    return {"key": key(name, q.id, loo, assistant.settings.prompts.lead_shown), "lead_asked": top is not None,
            "p_decline": round(decline_probability(top), 5) if top is not None else None,
            "top_mass": round(sum(math.exp(t["logprob"]) for t in top), 4) if top is not None else None,
            "reply": seen.get("reply"), "greedy_declined": (seen.get("reply") or "").lstrip().startswith(MODEL_REFUSAL.split()[0]),
            "top": top, "seconds": seen.get("seconds"), "timings": seen.get("timings"),
            "declined_state": _state(declined, q.gold, docs), "extractive": _state(extractive, q.gold, docs)}


def collect(args: argparse.Namespace) -> None:
    os.environ.setdefault("ASSISTANT_ANSWER_DEADLINE_S", "300")
    assistant = _assistant(args)
    docs = assistant.retriever.docs()
    wanted = {json.loads(line)["key"] for line in Path(args.cache).read_text().splitlines() if line.strip()}
    out = Path(args.out_cache)
    done = {json.loads(line)["key"] for line in out.read_text().splitlines() if line.strip()} if out.exists() else set()
    lead = assistant.settings.prompts.lead_shown
    todo = [s for s in sample(docs, SETS, LOO) if (k := key(s[0], s[1].id, s[2], lead)) in wanted and k not in done]
    todo = todo[: args.limit] if args.limit else todo
    print(f"{len(done)} probed, {len(todo)} to probe (load {os.getloadavg()[0]:.1f})", flush=True)
    assistant.ask("warm up query", backend="local")
    for i, (name, q, loo) in enumerate(todo, 1):
        rec = probe(assistant, name, q, loo, docs)
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")
        print(f"{i}/{len(todo)} {rec['key']} asked={rec['lead_asked']} p={rec['p_decline']} "
              f"greedy={rec['greedy_declined']} {rec['seconds']}s load={os.getloadavg()[0]:.1f}", flush=True)


# --- the rule and its fit -------------------------------------------------------------------------
def joined(cache: Path, probes: Path, lead_shown: int) -> list[dict[str, Any]]:
    """The decline cache's rows joined with their probes. A row's ``local`` (what today's product
    shows) follows today's greedy reply: a greedy decline shows the probed decline state, else the
    cached lead answer; ``extractive`` is the probe's (today's code)."""
    by = {json.loads(line)["key"]: json.loads(line) for line in probes.read_text().splitlines() if line.strip()}
    rows = []
    for line in cache.read_text().splitlines():
        r = json.loads(line) if line.strip() else None
        if not r or r["lead_shown"] != lead_shown or r["key"] not in by:
            continue
        p = by[r["key"]]
        r = {**r, "probe": p, "extractive": p["extractive"], "declined_state": p["declined_state"],
             "lead_asked": p["lead_asked"], "p": p["p_decline"], "greedy": p["lead_asked"] and p["greedy_declined"]}
        rows.append(r)
    return rows


def shown(r: dict[str, Any], decline: bool) -> dict[str, Any]:
    """What the user sees when the decline is heard (``decline``) or not: a heard decline shows the
    decline state; an unheard one on a greedy decline (overruled) extraction's answer, as the
    engine's overrule does; no decline, the cached lead answer (extraction's where the cached
    reply was itself a decline: its quotes are extraction's)."""
    if decline:
        return r["declined_state"]
    if r["greedy"] or r["declined"]:
        return r["extractive"]
    return r["local"]


MODES = ("both", "overrule", "add")  # a bar both ways; only overruling greedy declines; only adding declines


def heard(r: dict[str, Any], b: float | str, mode: str = "both") -> bool:
    """Whether row ``r``'s decline is heard under bar ``b``: "today" (the greedy reply's), else by
    ``mode``: "both" P >= b; "overrule" a greedy decline only when P >= b (none added); "add" a
    greedy decline, or P >= b (none overruled)."""
    if b == "today":
        return bool(r["greedy"])
    assert isinstance(b, float | int)
    by_p = r["p"] >= b
    return by_p if mode == "both" else (r["greedy"] and by_p) if mode == "overrule" else (r["greedy"] or by_p)


def policy(rows: list[dict[str, Any]], b: float | str, mode: str = "both") -> list[dict[str, Any]]:
    """The rows as shown under bar ``b`` (``heard``), or "extractive" (extraction alone). Rows
    whose lead was not asked are as the product answers today."""
    out = []
    for r in rows:
        if b == "extractive":
            state = r["extractive"]
        elif not r["lead_asked"]:  # the probe's answer is the product's own (a refusal, a list ...)
            state = r["declined_state"]
        else:
            state = shown(r, heard(r, b, mode))
        out.append({**r, "local": state})
    return out


def score(rows: list[dict[str, Any]], b: float | str, weight: float, mode: str = "both") -> tuple[dict[str, float], float]:
    f = figures(policy(rows, b, mode), None)
    return f, cost(f, weight)


def choose(rows: list[dict[str, Any]], weight: float, mode: str = "both") -> float | str:
    """The bar of least cost on ``rows``; ties keep today, then the bar nearest 0.5."""
    ps = sorted({r["p"] for r in rows if r["lead_asked"]})
    grid = [0.0] + [(a + c) / 2 for a, c in zip(ps, ps[1:], strict=False)] + [1.01]
    best: tuple[float, float, float | str] = (score(rows, "today", weight)[1], -1.0, "today")
    for b in grid:
        c = score(rows, b, weight, mode)[1]
        if c < best[0] - 1e-9 or (abs(c - best[0]) < 1e-9 and best[2] != "today" and abs(b - 0.5) < best[1]):
            best = (c, abs(b - 0.5), b)
    return best[2]


def cv(rows: list[dict[str, Any]], weight: float, folds: int) -> dict[str, Any]:
    sources = sorted({r["source"] for r in rows})
    random.Random(0).shuffle(sources)  # the folds of evals.declines.cv
    fold_of = {s: i % folds for i, s in enumerate(sources)}
    # today, extraction alone, every lead answer hedged (b = 0: what a bar near 0 tends to), b = 0.5
    # unfitted, and the bar fitted on the other folds in each mode
    fixed: dict[str, tuple[float | str, str]] = {"today": ("today", "both"), "extractive": ("extractive", "both"),
                                                 "all_hedged": (0.0, "both"), "b=0.5": (0.5, "both")}
    names = (*fixed, *(f"fitted_{m}" for m in MODES))
    per: dict[str, list[tuple[dict[str, float], float]]] = {n: [] for n in names}
    held: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    bars: dict[str, list[float | str]] = {m: [] for m in MODES}
    for k in range(folds):
        train = [r for r in rows if fold_of[r["source"]] != k]
        test = [r for r in rows if fold_of[r["source"]] == k]
        chosen = dict(fixed)
        for m in MODES:
            b = choose(train, weight, m)
            bars[m].append(b if isinstance(b, str) else round(b, 4))
            chosen[f"fitted_{m}"] = (b, m)
        for n, (bar, m) in chosen.items():
            per[n].append(score(test, bar, weight, m))
            held[n] += policy(test, bar, m)
    out: dict[str, Any] = {"weight": weight, "fold_bars": bars, "names": names}
    for n in names:
        out[n] = summary(per, held, n, "today")
    out["n"] = {g: round(sum(f[f"n_{g}"] for f, _ in per["today"])) for _, g in COUNTS}
    return out


def auc(pos: list[float], neg: list[float]) -> float | None:
    """P(a positive's score > a negative's), ties half: how well a score separates, with no bar."""
    if not pos or not neg:
        return None
    return round(sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg)), 3)


def separation(asked: list[dict[str, Any]]) -> dict[str, Any]:
    """AUC of P(decline) (and, for reference, of -relevance, the decision's) for telling the
    questions a hedge earns (unanswerable, LOO, answerable with extraction's [1] not gold) from the
    right answers (answerable, [1] gold)."""
    right = [r for r in asked if r["answerable"] and r["extractive"]["first_cited_gold"]]
    earned = [r for r in asked if r not in right]
    out: dict[str, Any] = {"n_right": len(right), "n_earned": len(earned)}
    for name, f in (("p_decline", lambda r: r["p"]), ("minus_relevance", lambda r: -r["relevance"])):
        out[name] = auc([f(r) for r in earned], [f(r) for r in right])
        out[f"{name}_paraphrase_written"] = auc([f(r) for r in earned if r["set"] == "paraphrase_written"],
                                                [f(r) for r in right if r["set"] == "paraphrase_written"])
    return out


def describe(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How P(decline) splits by group, and how often today's greedy reply differs from the cache's."""
    asked = [r for r in rows if r["lead_asked"]]
    out: dict[str, Any] = {"rows": len(rows), "lead_asked": len(asked),
                           "greedy_declined": sum(r["greedy"] for r in asked),
                           "cached_declined": sum(r["declined"] for r in rows),
                           "greedy_vs_cache_differ": sorted(r["key"] for r in asked if r["greedy"] != r["declined"]),
                           "greedy_but_p_below_half": sum(r["greedy"] and r["p"] < 0.5 for r in asked),
                           "separation": separation(asked)}
    for g in ("answerable", "loo", "unanswerable"):
        ps = sorted(r["p"] for r in asked if grp(r) == g)
        if ps:
            out[f"p_{g}"] = {"n": len(ps), "median": round(statistics.median(ps), 3),
                             **{f">={b}": sum(p >= b for p in ps) for b in (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)}}
    return out


def fit(args: argparse.Namespace) -> None:
    rows = joined(Path(args.cache), Path(args.out_cache), args.lead_shown)
    out = {"command": " ".join(["python -m evals.declines_prob"] + sys.argv[1:]), "describe": describe(rows),
           "cv": {f"w{w:g}": cv(rows, w, args.folds) for w in (2.0, 1.0)},
           "all_rows_bar": {f"w{w:g}": {m: choose(rows, w, m) for m in MODES} for w in (2.0, 1.0)}}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out["describe"], indent=1))
    for w, res in out["cv"].items():
        print(w, "fold bars:", res["fold_bars"], "n", res["n"], "all-rows bar", out["all_rows_bar"][w])
        for n in res["names"]:
            print(f"  {n:10s} cost {res[n]['cost']:6.1f} minus today {res[n]['minus_today'][:2]} {res[n]['counts']}")
            print(f"  {'':10s} {res[n]['per_set']}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = collect_parser(sub, "probe the decline cache's questions with the local model")
    f = sub.add_parser("fit", help="fit the bar by 5-fold CV on the caches (no model)")
    f.add_argument("--folds", type=int, default=5)
    f.add_argument("--out", default=str(FIT))
    f.add_argument("--lead-shown", type=int, default=1)
    for p in (c, f):
        p.add_argument("--cache", default=str(CACHE))
        p.add_argument("--out-cache", default=str(PROB_CACHE))
    args = ap.parse_args(argv)
    collect(args) if args.cmd == "collect" else fit(args)


if __name__ == "__main__":
    main()
