"""Follow-ups by backend (#21 / #20, helper P, session 15): the tuning follow-up sessions as small
datasets, the per-question difference of two runs, and the follow-ups the local model's shape
re-reading could turn into an overview.

    python -m evals.experiments.followups_local sets --out D      # D/fl.jsonl, wf, mf (on a list), devf, pwf, calf (on a fact)
    assistant eval --dataset D/fl.jsonl --backend local --data-dir DATA --out-dir RUN_A   # and --backend extractive
    python -m evals.experiments.followups_local diff RUN_A RUN_B [--text]   # questions whose cited works / refusal / caveat / shape differ
    python -m evals.experiments.followups_local reread            # P(overview) of every eligible tuning follow-up (the local model)

Sessions (tuning data only, never a locked split): the list split's FL*, ``lists_followups_written``
and ``followups_meaning_written`` (follow-ups on a list), and the fact follow-ups of dev,
paraphrase_written and 24 of calibration's (seed 15; their previous question is answered unscored by
the harness). Each follow-up comes right after its previous question, as the harness asks it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from evals.data import DATASETS_DIR, load_for_tuning

LIST_SETS = {"fl": "lists", "wf": "lists_followups_written", "mf": "followups_meaning_written"}
FACT_SETS = {"devf": "dev", "pwf": "paraphrase_written"}
CALIBRATION_DRAWN, SEED = 24, 15  # calibration's 156 follow-ups cost ~5-40 s each with the local model


def _rows(name: str) -> list[dict[str, Any]]:
    return load_for_tuning(DATASETS_DIR / f"{name}.jsonl")


def sessions(rows: list[dict[str, Any]], keep: Any = lambda r: True) -> list[dict[str, Any]]:
    """Each follow-up kept, right after its previous question (once)."""
    by, out, seen = {r["id"]: r for r in rows}, [], set()
    for r in rows:
        if r.get("previous") and r["previous"] in by and keep(r):
            for x in (by[r["previous"]], r):
                if x["id"] not in seen:
                    seen.add(x["id"])
                    out.append(x)
    return out


def build(out: Path) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    made = {k: sessions(_rows(v)) for k, v in LIST_SETS.items()}  # every row with a previous one is a follow-up
    made |= {k: sessions(_rows(v), lambda r: r.get("type") == "followup") for k, v in FACT_SETS.items()}
    drawn = [r for r in _rows("calibration") if r.get("type") == "followup"]
    random.Random(SEED).shuffle(drawn)
    made["calf"] = drawn[:CALIBRATION_DRAWN]  # each carries its previous_question
    for k, rows in made.items():
        (out / f"{k}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {k: len(v) for k, v in made.items()}


def _key(r: dict[str, Any]) -> tuple[Any, ...]:
    a = r.get("answer", {})
    return (a.get("cited_works"), a.get("refused"), a.get("caveat_kind"), r.get("shape"))


def diff(a: str, b: str, text: bool = False) -> int:
    """Prints each question whose cited works, refusal, caveat kind or shape differ (``text``: or whose text does)."""
    runs = [{r["id"]: r for r in json.loads((Path(p) / "results.json").read_text())["per_question"]} for p in (a, b)]
    changed = 0
    for i, ra in runs[0].items():
        rb = runs[1].get(i)
        if rb is None or (_key(ra) == _key(rb) and (not text or ra["answer"].get("answer") == rb["answer"].get("answer"))):
            continue
        changed += 1
        print(f"== {i} [{ra['type']}] {ra['question']}")
        for tag, r in (("A", ra), ("B", rb)):
            ans, lst = r.get("answer", {}), r.get("list", {})
            print(f"  {tag}: shape={r.get('shape')} refused={ans.get('refused')} kind={ans.get('caveat_kind')} recall={lst.get('recall')} "
                  f"precision={lst.get('precision')} key points={ans.get('key_point_coverage')} backend={ans.get('backend')}")
            if text:
                print(f"  {tag} text: " + (ans.get("answer") or "")[:500].replace("\n", " | "))
    print(f"changed: {changed} of {len(runs[0])}")
    return changed


def reread() -> int:
    """Every tuning follow-up the model may re-read (a frames-read fact naming nothing, conversation.is_follow_up)
    and its P(overview) beside ``collection.shape_model_bar`` (before cbcebd9 those above it became overviews)."""
    from assistant.backends.local import LocalChatModel
    from assistant.question.conversation import is_follow_up
    from assistant.question.shape import detect
    from assistant.question.shape_model import eligible, overview_probability
    from assistant.settings import Settings

    settings = Settings.load(local_threads=2)
    model, bar, n, above = LocalChatModel(settings), settings.collection.shape_model_bar, 0, 0
    for name in [*LIST_SETS.values(), *FACT_SETS.values(), "calibration"]:
        rows = _rows(name)
        by = {r["id"]: r for r in rows}
        for r in rows:
            if not r.get("previous"):
                continue
            prev = by[r["previous"]]["question"] if r["previous"] in by else r.get("previous_question", "")
            history = [{"role": "user", "content": prev}, {"role": "assistant", "content": ""}]
            shape = detect(r["question"], previous_was_list=name in LIST_SETS.values())
            if is_follow_up(r["question"], history) and eligible(r["question"], shape):
                p = overview_probability(model, r["question"])
                n, above = n + 1, above + (p >= bar)
                print(json.dumps({"set": name, "id": r["id"], "question": r["question"], "p_overview": round(p, 4)}), flush=True)
    print(f"eligible follow-ups {n}; P(overview) >= {bar}: {above}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.experiments.followups_local")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sets")
    s.add_argument("--out", required=True, type=Path)
    d = sub.add_parser("diff")
    d.add_argument("a")
    d.add_argument("b")
    d.add_argument("--text", action="store_true")
    sub.add_parser("reread")
    args = ap.parse_args(argv)
    if args.cmd == "sets":
        print(build(args.out))
        return 0
    if args.cmd == "diff":
        diff(args.a, args.b, args.text)
        return 0
    return reread()


if __name__ == "__main__":
    sys.exit(main())
