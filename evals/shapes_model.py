"""The question's shape read by the local model (helper M, session 14, #21): collect, fit, hold-out.

    python -m evals.shapes_model collect [--limit N]   # the model's reading of every tuning question (cached, resumable)
    python -m evals.shapes_model fit                    # 5-fold CV of the rules -> evals/fits/shapes_model.json
    python -m evals.shapes_model holdout                # SH* and SQ*, once, with the chosen rule

``collect`` asks the local model (``ASSISTANT_LOCAL_MODEL_PATH``, 2 threads) for the shape of each
labelled tuning question with ``assistant.question.shape_model``'s prompt and grammar, recording the four
shapes' probabilities of the reply's first token (llama.cpp ``top_logprobs``), the frames' reading,
the names and the one-work anchor, one jsonl row per question in ``CACHE`` (committed: the fit reruns
without the model). Questions are interleaved across splits, so a partial collection is a fair sample.

Tuning questions: every shapes_written question but the hold-out batches SH* and SQ*; the overviews of
overview_written; the list, overview and compare questions of the list splits (lists, lists_written,
lists_absent_written); the facts of every split in ``FACT_SPLITS``
(shape_facts_written, dev, paraphrase_written, calibration, generated). Follow-ups (a ``previous``
turn) are left out: the model never sees them (their shape is the frames').
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from evals.data import RUNS_DIR, load_for_tuning, resolve_path
from evals.data import SHAPES_WRITTEN_PATH as SHAPES_PATH

FITS = Path(__file__).parent / "fits"
CACHE = FITS / "shapes_model_cache.jsonl"
HOLDOUT_CACHE = RUNS_DIR / "shapes_model_holdout.jsonl"  # the hold-out judgement: a run, not a fit
FIT_PATH = FITS / "shapes_model.json"
HOLDOUT_PREFIXES = ("SH", "SQ")
FACT_SPLITS = ("shape_facts_written", "dev", "paraphrase_written", "calibration", "generated")
FACT_TYPES = {"lookup", "paraphrase", "numeric", "unanswerable", "short", "fact_written"}
LIST_SPLITS = ("lists", "lists_written", "lists_absent_written")
_LIST_TYPES = {"list": "list", "list_reworded": "list", "list_written": "list", "list_absent": "list",
               "overview": "overview", "compare": "compare"}


def labelled(holdout: bool = False) -> list[dict[str, Any]]:
    """{group, id, question, shape}, interleaved across groups (``holdout``: SH* and SQ* only)."""
    groups: dict[str, list[dict[str, Any]]] = {}

    def add(group: str, r: dict[str, Any], shape: str | None) -> None:
        if shape and not r.get("previous"):
            groups.setdefault(group, []).append({"group": group, "id": r["id"], "question": r["question"], "shape": shape})

    if not holdout:
        for name in FACT_SPLITS:
            for r in load_for_tuning(resolve_path(name)[1]):
                add(name, r, "fact" if r.get("type", "") in FACT_TYPES else None)
        for r in load_for_tuning(resolve_path("overview_written")[1]):
            add("overview_written", r, "overview" if r.get("type") == "overview" else None)
        for name in LIST_SPLITS:
            for r in load_for_tuning(resolve_path(name)[1]):
                add(name, r, _LIST_TYPES.get(r.get("type", "")))
    for r in load_for_tuning(SHAPES_PATH):
        if r["id"].startswith(HOLDOUT_PREFIXES) == holdout:
            add(f"shapes_written:{r['id'][:2]}", r, r["shape"])
    seen: set[str] = set()
    mixed = [r for batch in itertools.zip_longest(*groups.values()) for r in batch if r is not None]
    return [r for r in mixed if not (r["question"].lower() in seen or seen.add(r["question"].lower()))]


def _model() -> Any:
    """The local model, asked by the product's own request (``model_reading``)."""
    from assistant.backends.local import LocalChatModel
    from assistant.settings import Settings

    return LocalChatModel(Settings(local_threads=2))


def model_reading(model: Any, question: str) -> dict[str, Any]:
    """The model's greedy one-word reply and the four shapes' probabilities of its first token,
    by the request the product makes (``LocalChatModel.first_token_logprobs``)."""
    from assistant.language.prompt_texts import shape_messages as messages
    from assistant.question.shape_model import GRAMMAR, REPLY_TOKENS, parse, probabilities

    t = time.perf_counter()
    reply, top = model.first_token_logprobs(messages(question), max_tokens=REPLY_TOKENS, grammar=GRAMMAR)
    seconds = time.perf_counter() - t
    return {"reply": parse(reply), "p": probabilities(top), "seconds": round(seconds, 3)}


def cached_readings(path: Path) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    return {(r := json.loads(x))["question"]: r for x in path.read_text().splitlines() if x.strip()}


def collect(holdout: bool = False, limit: int | None = None) -> list[dict[str, Any]]:
    """Every labelled question's frames, names, anchor and model reading (cached by question)."""
    from assistant.language.names import names
    from assistant.question.shape import detect
    from assistant.question.shape_frames import ONE_WORK

    path = HOLDOUT_CACHE if holdout else CACHE
    path.parent.mkdir(parents=True, exist_ok=True)
    cached, rows, model, done = cached_readings(path), labelled(holdout), None, 0
    todo = []
    for r in rows:
        if r["question"] not in cached:
            q = " ".join(r["question"].split())
            todo.append({**r, "frame": detect(q).kind, "names": names(q), "one_work": bool(ONE_WORK.search(q))})
    # a named or anchored question is never re-read (``shape_model.eligible``): not asked; the facts and
    # overviews first (the rule's cost and its gain), the lists after
    todo = [r for r in todo if holdout or not (r["names"] or r["one_work"])]
    todo.sort(key=lambda r: r["shape"] not in ("fact", "overview"))
    with path.open("a", encoding="utf-8") as out:
        for r in todo:
            if limit is not None and done >= limit:
                break
            model = model or _model()
            r.update(model_reading(model, " ".join(r["question"].split())))
            cached[r["question"]] = r
            out.write(json.dumps(r) + "\n")
            out.flush()
            done += 1
    return [cached[r["question"]] for r in rows if r["question"] in cached]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["collect", "fit", "holdout"])
    ap.add_argument("--limit", type=int, default=None, help="collect at most N new questions")
    args = ap.parse_args(argv)
    if args.command == "collect":
        os.nice(5)
        rows = collect(limit=args.limit)
        print(f"{len(rows)} of {len(labelled())} questions -> {CACHE}")
        return 0
    from evals.shapes_model_fit import fit, holdout

    tuning = [r for r in collect(limit=0)]
    if args.command == "fit":
        result = fit(tuning)
        FIT_PATH.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    else:
        result = holdout(collect(holdout=True), tuning)
        (RUNS_DIR / "shapes_model_holdout.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
