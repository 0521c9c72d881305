"""What every fit reads: the tuning questions with their gold works (never the locked split:
``evals.data.load_for_tuning`` refuses it), an index of the bundled corpus, and the fits' log."""

from __future__ import annotations

import sys
from typing import Any

from evals.data import (
    CALIBRATION_PATH,
    DEV_PATH,
    GENERATED_PATH,
    GENERATED_UNANSWERABLE_PATH,
    PARAPHRASE_WRITTEN_PATH,
    load_for_tuning,
    resolve_anchors,
)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def tuning_questions(assistant: Any, sets: list[str], limit: int | None = None,
                     followups: bool = False) -> list[Any]:
    """Questions of the tuning sets with their gold works (unanswerable: empty gold). A row whose
    text recurs in a later set is represented there (the calibration set's far reworded questions
    are generated ones, kept under their own group). ``followups``: also the questions asked
    after another (``raw["_history"]``: the previous question as the conversation's user turn)."""
    paths = {"dev": DEV_PATH, "generated": GENERATED_PATH, "generated_unanswerable": GENERATED_UNANSWERABLE_PATH,
             "calibration": CALIBRATION_PATH, "paraphrase_written": PARAPHRASE_WRITTEN_PATH}
    docs = assistant.retriever.docs()
    loaded: list[tuple[str, list[dict[str, Any]]]] = []
    for name in sets:
        path = paths[name]
        if not path.exists():
            log(f"  {path.name}: not there, skipped")
            continue
        loaded.append((name, load_for_tuning(path)))
    out = []
    for j, (name, all_rows) in enumerate(loaded):
        later = {" ".join(r["question"].split()) for _, rows in loaded[j + 1 :] for r in rows}
        text_of = {r["id"]: r["question"] for r in all_rows}
        rows = [r for r in all_rows if (followups or not r.get("previous"))
                and " ".join(r["question"].split()) not in later][:limit]
        qs, problems = resolve_anchors(rows, docs)
        for q in qs:
            q.raw["_set"] = name
            prev = q.raw.get("previous_question") or text_of.get(q.previous or "", "")
            q.raw["_history"] = [{"role": "user", "content": prev}] if q.previous and prev else []
        out += [q for q in qs if (q.gold or q.type == "unanswerable") and (q.raw["_history"] or not q.previous)]
        log(f"  {name}: {len(qs)} questions ({len(problems)} anchor problems, {len(all_rows) - len(rows)} left out)")
    return out


def open_assistant(data_dir: str | None) -> Any:
    from assistant import Assistant

    a = Assistant(data_dir=data_dir, backend="extractive") if data_dir else Assistant(backend="extractive")
    if not a.retriever.docs():
        a.ingest()
    return a
