"""Reliability under load (``make reliability``; ``python -m evals.reliability``), printed as one table.

The web app (``assistant.ui.app.start``, the page ``assistant serve`` runs) is started in a child
process over an ingested copy of the bundled corpus. It answers through the openai backend against
the fake OpenAI-compatible server of ``evals/fake_openai.py`` (127.0.0.1 only), which delays each
answer by ``--delay`` seconds like a real LLM and whose default reply depends on the prompt, so
answers differ per question. Then, over ``gradio_client`` sessions (the app's ``/ask`` API):

1. sessions: after one warm-up question (it loads the models), ``--sessions`` sessions each ask a
   different question, all at once (latency p50/p95);
2. memory: the same sessions keep asking (questions cycle through the standalone dev-set
   questions) until ``--questions`` questions have been answered in all; the app's RSS is read
   at start (served, nothing asked yet), after 100 and after ``--questions`` questions. Memory is
   flat when it grows less than ``FLAT_GROWTH`` from the 100th question (caches warm) to the last.

Every result is compared with a direct ``Assistant.ask`` of its question in this process (same
fake answer, its own copy of the index): another question, answer text or citations is cross-talk.

    python -m evals.reliability                                  # 64 sessions, 1,000 questions
    python -m evals.reliability --sessions 8 --questions 150     # quick check
    python -m evals.reliability --data-dir .assistant --json out.json

``tests/test_load.py`` runs the sessions part with 16 sessions, using the helpers of evals/sessions.py.
Timings on a shared machine are noisy; RSS is the figure to watch.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evals.metrics import slope_per_1000
from evals.sessions import (
    DEV,
    Result,
    ask_all_at_once,
    ask_once,
    ask_stream_of,
    client,
    connect,
    cross_talk,
    free_port,
    latency,
    questions,
    rss_mib,
    run_threads,
    signature,
)

ROOT = Path(__file__).resolve().parent.parent
FLAT_GROWTH = 0.10  # RSS growth from question 100 to the last that still counts as flat
SLOPE_GOAL = 1.0  # % RSS per 1,000 questions over the second half that counts as a plateau (issue #10 point 5)
CHECKPOINT = 100  # RSS is read after this many questions (caches warm), then every this many
API_KEY = "sk-reliability-not-a-secret"

# The session helpers moved to evals/sessions.py; tests/test_load.py and evals/experiments/memprofile.py import
# them from here too.
__all__ = ["CHECKPOINT", "DEV", "FLAT_GROWTH", "ROOT", "Result", "app_process", "ask_all_at_once", "ask_once",
           "ask_stream_of", "client", "connect", "cross_talk", "fake_server", "free_port", "latency", "main",
           "openai_assistant", "questions", "rss_mib", "run", "run_threads", "serve", "signature", "table"]


# --- the run ---------------------------------------------------------------------------------
def fake_server() -> Any:
    from evals.fake_openai import FakeOpenAI

    return FakeOpenAI()


def openai_assistant(data_dir: Path, base_url: str, top_k: int) -> Any:
    from assistant import Assistant

    return Assistant(data_dir=data_dir, backend="openai", openai_base_url=base_url, openai_api_key=API_KEY,
                     openai_max_retries=0, openai_timeout=120.0, top_k=top_k)


def serve(data_dir: Path, base_url: str, port: int, top_k: int) -> None:
    """The child process: the app over ``data_dir`` until killed."""
    from assistant.ui.app import start

    assistant = openai_assistant(data_dir, base_url, top_k)
    start(assistant, assistant.settings.model_copy(update={"host": "127.0.0.1", "port": port}), block=True)


@contextmanager
def app_process(data_dir: Path, base_url: str, top_k: int, log: Path) -> Iterator[tuple[str, int]]:
    """The app in a child process; yields its URL and pid once the page answers."""
    import httpx

    port = free_port()
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    cmd = [sys.executable, "-m", "evals.reliability", "--serve", "--data-dir", str(data_dir),
           "--base-url", base_url, "--port", str(port), "--top-k", str(top_k)]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the app exited with {proc.returncode}:\n{log.read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(url, timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the app did not answer at {url} within 180 s")
            time.sleep(0.5)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def secs(value: float | None) -> str:
    return "n/a" if value is None or value != value else f"{value:.2f} s"


def mib(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f} MiB"


def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="reliability-"))
    fake = fake_server()
    try:
        source = _prepare_index(args, work)
        total = max(args.questions, args.sessions + 1)
        asked = questions(total)  # asked[0] warms the app up; then one per session, at once; then the rest
        distinct = list(dict.fromkeys(asked))
        print(f"direct answers to {len(distinct)} questions ...", file=sys.stderr, flush=True)
        direct_assistant = openai_assistant(source, fake.base_url, args.top_k)
        direct = {q: direct_assistant.ask(q).to_dict() for q in distinct}

        fake.delay = args.delay
        got = _ask_app(args, work, fake.base_url, asked, total)
        return _summarize(args, direct, total, **got)
    finally:
        fake.close()
        shutil.rmtree(work, ignore_errors=True)


def _prepare_index(args: argparse.Namespace, work: Path) -> Path:
    """The source index (a copy of --data-dir, or the bundled corpus ingested) and the app's own copy."""
    source = work / "source"
    if args.data_dir:
        shutil.copytree(args.data_dir, source)
    else:
        from assistant import Assistant

        print("ingesting the bundled corpus (use --data-dir to reuse an ingested one) ...", file=sys.stderr)
        Assistant(data_dir=source, backend="extractive").ingest()
    shutil.copytree(source, work / "app")  # the app and the direct answers never share an index
    return source


def _ask_app(args: argparse.Namespace, work: Path, base_url: str, asked: list[str], total: int) -> dict[str, Any]:
    """Start the app, ask the sessions at once, then the rest; RSS at each checkpoint."""
    rss: dict[str, float | None] = {}
    with app_process(work / "app", base_url, args.top_k, work / "app.log") as (url, pid):
        rss["start"] = rss_mib(pid)
        clients = connect(url, args.sessions)
        t0 = time.perf_counter()
        results = [ask_once(clients[0], 0, asked[0])]  # loads the models: not part of the latencies below
        print(f"{args.sessions} sessions at once ...", file=sys.stderr, flush=True)
        t1 = time.perf_counter()
        first = ask_all_at_once(clients, asked[1 : args.sessions + 1])
        first_wall = time.perf_counter() - t1
        results += first
        if len(results) >= CHECKPOINT:
            rss[str(CHECKPOINT)] = rss_mib(pid)
        for n in [n for n in sorted({*range(CHECKPOINT, total, CHECKPOINT), total}) if len(results) < n]:
            print(f"asking until {n} questions are answered ...", file=sys.stderr, flush=True)
            results += ask_stream_of(clients, asked[len(results) : n])
            rss[str(n)] = rss_mib(pid)
            print(f"  {n} answered, app RSS {rss[str(n)]} MiB", file=sys.stderr, flush=True)
        wall = time.perf_counter() - t0
    return {"results": results, "first": first, "first_wall": first_wall, "wall": wall, "rss": rss}


def _summarize(args: argparse.Namespace, direct: dict[str, Any], total: int, *, results: list[Any],
               first: list[Any], first_wall: float, wall: float, rss: dict[str, float | None]) -> dict[str, Any]:
    talk = [msg for r in results if (msg := cross_talk(r, direct[r.question]))]
    errors = [f"{r.question!r}: {r.error}" for r in results if r.got is None]
    p50, p95 = latency(first)
    all50, all95 = latency(results[1:])
    at100, at_end = rss.get(str(CHECKPOINT)), rss.get(str(total))
    growth = (at_end - at100) / at100 if at100 and at_end and total > CHECKPOINT else None
    mid = rss.get(str(round(total / 2 / CHECKPOINT) * CHECKPOINT))
    late = (at_end - mid) / mid if mid and at_end and total >= 4 * CHECKPOINT else None
    by_n = {int(k): v for k, v in rss.items() if k.isdigit() and v}
    per_1000 = slope_per_1000(by_n) if total >= 4 * CHECKPOINT else None
    return {
        "sessions": args.sessions, "answered": sum(r.got is not None for r in first),
        "cross_talk": sum(bool(cross_talk(r, direct[r.question])) for r in first),
        "p50_s": p50, "p95_s": p95, "sessions_wall_s": first_wall,
        "questions": len(results), "questions_answered": len(results) - len(errors),
        "questions_cross_talk": len(talk), "questions_p50_s": all50, "questions_p95_s": all95,
        "questions_wall_s": wall, "rss_mib": rss, "rss_growth_after_warmup": growth,
        "rss_growth_second_half": late, "rss_slope_second_half_pct_per_1000": per_1000,
        "memory_flat": None if growth is None else growth < FLAT_GROWTH,
        "delay_s": args.delay, "top_k": args.top_k, "cpus": os.cpu_count(),
        "cross_talk_examples": talk[:5], "error_examples": errors[:5],
    }


def table(s: dict[str, Any]) -> str:
    rss = s["rss_mib"]
    last = str(s["questions"])
    growth = s["rss_growth_after_warmup"]
    flat = "n/a" if s["memory_flat"] is None else ("yes" if s["memory_flat"] else "NO")
    rows = [
        ("sessions at once", str(s["sessions"])),
        ("answered", f"{s['answered']}/{s['sessions']}"),
        ("cross-talk", str(s["cross_talk"])),
        ("latency p50 / p95", f"{secs(s['p50_s'])} / {secs(s['p95_s'])} (all at once, after one warm-up question; {s['sessions_wall_s']:.1f} s wall)"),
        ("questions in all", f"{s['questions_answered']}/{s['questions']} answered, {s['questions_cross_talk']} cross-talk, "
                             f"p50 / p95 {secs(s['questions_p50_s'])} / {secs(s['questions_p95_s'])}, "
                             f"{s['questions_wall_s']:.0f} s wall"),
        ("app RSS at start", mib(rss.get("start"))),
        (f"app RSS after {CHECKPOINT}", mib(rss.get(str(CHECKPOINT)))),
        (f"app RSS after {last}", mib(rss.get(last))),
        (f"growth {CHECKPOINT} -> {last}", "n/a" if growth is None else f"{growth:+.1%} (flat: {flat}, goal < {FLAT_GROWTH:.0%})"),
        ("growth in the second half", "n/a" if s["rss_growth_second_half"] is None else f"{s['rss_growth_second_half']:+.1%}"),
        ("slope in the second half", "n/a" if s.get("rss_slope_second_half_pct_per_1000") is None
         else f"{s['rss_slope_second_half_pct_per_1000']:+.2f}% per 1,000 questions (goal <= {SLOPE_GOAL:g}%)"),
    ]
    width = max(len(k) for k, _ in rows)
    lines = [f"| {'measure'.ljust(width)} | value |", f"|{'-' * (width + 2)}|-------|"]
    lines += [f"| {k.ljust(width)} | {v} |" for k, v in rows]
    if len(rss) > 3:
        lines.append("\napp RSS by questions answered: " + ", ".join(f"{k} {mib(v)}" for k, v in rss.items()))
    note = (f"(openai backend against the fake server, {s['delay_s']:g} s per answer; top_k {s['top_k']}; "
            f"{s['cpus']} CPUs)")
    return "\n".join(lines) + "\n" + note


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.reliability", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=64, help="concurrent gradio_client sessions (default 64)")
    ap.add_argument("--questions", type=int, default=1000, help="questions in all, for the memory run (default 1000)")
    ap.add_argument("--delay", type=float, default=0.3, help="seconds the fake LLM takes per answer (default 0.3)")
    ap.add_argument("--top-k", type=int, default=3, help="sources per answer (default 3)")
    ap.add_argument("--data-dir", type=Path, help="an ingested bundled corpus to copy (default: ingest one, minutes)")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # the child process
    ap.add_argument("--base-url", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.data_dir, args.base_url, args.port, args.top_k)
        return 0
    if args.sessions < 1 or args.questions < 1:
        ap.error("--sessions and --questions must be at least 1")
    summary = run(args)
    print(table(summary))
    for title, key in (("cross-talk", "cross_talk_examples"), ("errors", "error_examples")):
        if summary[key]:
            print(f"\n{title} (first {len(summary[key])}):\n  " + "\n  ".join(summary[key]))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    ok = summary["answered"] == summary["sessions"] and not summary["questions_cross_talk"] \
        and summary["questions_answered"] == summary["questions"] and summary["memory_flat"] is not False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
