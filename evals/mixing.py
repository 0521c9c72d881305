"""The mixing server: an OpenAI-compatible model that mixes up its sources, through the real
``openai`` backend.

    python -m evals.mixing [--data-dir D] [--limit N] [--no-learned] [--cli N] [--out F]

For each lookup question of the dev and generated sets (in order, up to ``--limit``), the fake server (``evals.fake_openai``, ``mixing`` on)
answers from the sources it is shown: one right sentence of source 1 (A), a sentence of source
2 (B) with a name of B's replaced by one of A's (``renamed``), another sentence of B
(``other``), a sentence of A with a number of B's (``number``), all cited [1]. A swapped
sentence is shown wrongly when it is shown as supported citing any source, except B's own
sentence re-pointed to B (the source that states it: right); also counted: shown as supported
citing A, and shown as supported at all. A right sentence is kept when shown
as supported citing A. ``--cli N``: also the first N questions through ``assistant ask --backend
openai --base-url ... --json`` in a subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from evals.fake_openai import FakeOpenAI

DATASETS = Path(__file__).resolve().parent / "datasets"
SETS = ("dev.jsonl", "generated.jsonl")  # their lookup questions, in this order
SWAPPED = ("renamed", "other", "number")


def questions(limit: int | None = None) -> list[str]:
    rows = [json.loads(line) for name in SETS for line in (DATASETS / name).read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return [r["question"] for r in rows if r["type"] == "lookup" and not r.get("previous")][:limit]


def _key(text: str) -> str:
    return " ".join(text.split()).rstrip(". ")


def judge(mixed: dict[str, Any], sentences: list[dict[str, Any]], citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each mixed sentence's outcome in the verified answer."""
    shown = {_key(s["text"]): s for s in sentences}
    out = []
    for kind, text in mixed["sentences"]:
        s = shown.get(_key(text))
        supported = bool(s and s["supported"])
        labels = [citations[n - 1]["label"] for n in (s["citations"] if s else []) if 0 < n <= len(citations)]
        as_a = supported and mixed["a"] in labels
        # a renamed or renumbered sentence is no source's statement; B's own sentence is right cited to B
        wrong = as_a if kind == "other" else (supported and kind in SWAPPED)
        out.append({"kind": kind, "text": text, "supported": supported, "as_a": as_a, "wrong": wrong,
                    "reason": s.get("reason") if s else "not in the answer"})
    return out


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    res: dict[str, Any] = {}
    for kind in ("right", *SWAPPED):
        rs = [r for r in rows if r["kind"] == kind]
        res[kind] = {"n": len(rs), "supported": sum(r["supported"] for r in rs), "as_a": sum(r["as_a"] for r in rs),
                     "wrong": sum(r.get("wrong", False) for r in rs)}
    sw = [r for r in rows if r["kind"] in SWAPPED]
    right = [r for r in rows if r["kind"] == "right"]
    res["swapped_shown_wrongly"] = f"{sum(r['wrong'] for r in sw)} of {len(sw)}"
    res["swapped_supported_as_a"] = f"{sum(r['as_a'] for r in sw)} of {len(sw)}"
    res["swapped_supported_any"] = f"{sum(r['supported'] for r in sw)} of {len(sw)}"
    res["right_kept"] = f"{sum(r['as_a'] for r in right)} of {len(right)}"
    return res


def run(data_dir: str, qs: list[str], learned: bool = True) -> list[dict[str, Any]]:
    from assistant import Assistant

    server = FakeOpenAI()
    server.mixing = True
    rows: list[dict[str, Any]] = []
    try:
        a = Assistant(data_dir=data_dir, backend="openai", openai_base_url=server.base_url, openai_api_key="k",
                      openai_max_retries=0, verify={"learned": learned})
        for q in qs:
            before = len(server.mixed)
            ans = a.ask(q)
            if len(server.mixed) == before:
                continue
            d = ans.to_dict()
            for r in judge(server.mixed[-1], d["sentences"], d["citations"]):
                rows.append({"question": q, **r})
    finally:
        server.close()
    return rows


def run_cli(data_dir: str, qs: list[str]) -> list[dict[str, Any]]:
    server = FakeOpenAI()
    server.mixing = True
    rows: list[dict[str, Any]] = []
    env = {**os.environ, "OPENAI_API_KEY": "k"}
    try:
        for q in qs:
            before = len(server.mixed)
            out = subprocess.run([sys.executable, "-m", "assistant.cli", "ask", q, "--backend", "openai", "--base-url",
                                  server.base_url, "--data-dir", data_dir, "--json"], capture_output=True, text=True,
                                 env=env, check=True)
            if len(server.mixed) == before:
                continue
            d = json.loads(out.stdout)
            for r in judge(server.mixed[-1], d["sentences"], d["citations"]):
                rows.append({"question": q, **r})
    finally:
        server.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.mixing", description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", default=None, help="an ingested bundled corpus (default: the settings' data dir)")
    ap.add_argument("--limit", type=int, default=150)
    ap.add_argument("--no-learned", action="store_true", help="the verifier without the learned check (before)")
    ap.add_argument("--cli", type=int, default=0, help="also this many questions through the command line")
    ap.add_argument("--out", default=None, help="write the per-sentence rows and the summary here (JSON)")
    args = ap.parse_args(argv)
    from assistant.settings import Settings

    data_dir = args.data_dir or str(Settings().data_dir)
    qs = questions(args.limit)
    rows = run(data_dir, qs, learned=not args.no_learned)
    result: dict[str, Any] = {"questions": len(qs), "learned": not args.no_learned, "summary": summary(rows)}
    if args.cli:
        cli_rows = run_cli(data_dir, qs[: args.cli])
        result["cli"] = summary(cli_rows)
    print(json.dumps({k: v for k, v in result.items()}, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps({**result, "rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
