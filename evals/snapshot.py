"""A byte-comparable snapshot of the extractive answers, for changes meant to leave behaviour unchanged.

    python -m evals.snapshot OUT.jsonl [--data-dir D] [--sets dev lists ...]

Ingests the bundled corpus once into ``--data-dir`` (a temporary folder when absent; shipped
vectors), then answers every question of the named sets with the extractive backend and writes
one line per question: the set, the id and ``Answer.to_dict()`` without its timings. A follow-up
is asked after its previous question and that question's answer. Compare two snapshots with
``cmp``; the locked sets are written like the others and are only ever compared, never read.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

DATASETS = Path(__file__).parent / "datasets"
SETS = ("dev", "locked", "locked_collection", "lists", "lists_followups_written", "paraphrase_written", "calibration")
VOLATILE = ("timings",)


def _stable(answer: Any) -> dict[str, Any]:
    d = answer.to_dict()
    for key in VOLATILE:
        d.pop(key, None)
    return d


def snapshot(out: Path, data_dir: Path, sets: list[str]) -> int:
    from assistant import Assistant
    from assistant.settings import DEFAULT_CORPUS

    assistant = Assistant(data_dir=data_dir, backend="extractive")
    assistant.ingest([DEFAULT_CORPUS])
    n = 0
    with out.open("w", encoding="utf-8") as f:
        for name in sets:
            rows = [json.loads(line) for line in (DATASETS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
            asked: dict[str, tuple[str, str]] = {}
            for row in rows:
                history: list[dict[str, str]] = []
                prev = row.get("previous")
                if prev:
                    prev_q, prev_a = asked.get(prev, (row.get("previous_question") or "", ""))
                    if prev_q and not prev_a:
                        prev_a = assistant.ask(prev_q, backend="extractive").text
                    history = [{"role": "user", "content": prev_q}, {"role": "assistant", "content": prev_a}]
                answer = assistant.ask(row["question"], history=history, backend="extractive")
                asked[row["id"]] = (row["question"], answer.text)
                f.write(json.dumps({"set": name, "id": row["id"], "answer": _stable(answer)}, sort_keys=True, default=str) + "\n")
                n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("--data-dir", type=Path)
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    a = p.parse_args(argv)
    if a.data_dir:
        n = snapshot(a.out, a.data_dir, a.sets)
    else:
        with tempfile.TemporaryDirectory() as d:
            n = snapshot(a.out, Path(d), a.sets)
    print(f"{n} answers -> {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
