"""Where the web app's memory goes over a long soak (``python -m evals.experiments.memprofile``).

Like ``evals.reliability`` (the app in a child process, the openai backend against the fake server of
``evals/fake_openai.py``, ``--sessions`` gradio_client sessions asking the standalone dev questions
through ``/ask``), but it only measures memory: the app's RSS every ``--every`` questions, the
slope over the second half in % per 1,000 questions, and, with ``--trace``, tracemalloc snapshots
of the app taken at ``--snap-at`` question counts, diffed by traceback (top growth printed).

    python -m evals.experiments.memprofile --data-dir .assistant --questions 1500 --sessions 64
    python -m evals.experiments.memprofile --data-dir .assistant --trace --snap-at 300,1500
    python -m evals.experiments.memprofile --data-dir .assistant --env MALLOC_ARENA_MAX=2
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evals.metrics import slope_per_1000
from evals.reliability import (
    ROOT,
    ask_once,
    ask_stream_of,
    connect,
    fake_server,
    free_port,
    questions,
    rss_mib,
)


def _serve(args: argparse.Namespace) -> None:
    """The child: the app; with ``--trace``, each SIGUSR1 dumps a tracemalloc snapshot (the first
    one starts tracing, so only allocations made after it are seen: the growth, not the warm-up)."""
    if args.trace:
        import tracemalloc

        counter = iter(range(1, 1000))

        def dump(*_: Any) -> None:  # the first signal starts tracing (cheap start-up), every one dumps
            if not tracemalloc.is_tracing():
                tracemalloc.start(args.frames)
            path = Path(args.snap_dir) / f"snap-{next(counter)}.pickle"
            tmp = path.with_suffix(".tmp")
            tracemalloc.take_snapshot().dump(str(tmp))
            tmp.replace(path)

        signal.signal(signal.SIGUSR1, dump)
    from evals.reliability import serve

    serve(args.data_dir, args.base_url, args.port, args.top_k)


def _start(args: argparse.Namespace, app_dir: Path, base_url: str, snap_dir: Path, log: Path) -> tuple[Any, str]:
    import httpx

    port = free_port()
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    env.update(dict(kv.split("=", 1) for kv in args.env))
    cmd = [sys.executable, "-m", "evals.experiments.memprofile", "--serve", "--data-dir", str(app_dir), "--base-url", base_url,
           "--port", str(port), "--top-k", str(args.top_k), "--snap-dir", str(snap_dir), "--frames", str(args.frames)]
    cmd += ["--trace"] if args.trace else []
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited:\n{log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise RuntimeError("the app did not answer in 300 s")


def _snapshot(proc: Any, snap_dir: Path, n: int) -> Path:
    path = snap_dir / f"snap-{n}.pickle"
    os.kill(proc.pid, signal.SIGUSR1)
    while not path.exists():
        time.sleep(0.2)
    return path


def diff(old: Path, new: Path, top: int) -> str:
    import tracemalloc

    a, b = tracemalloc.Snapshot.load(str(old)), tracemalloc.Snapshot.load(str(new))
    lines = [f"traced: {sum(s.size for s in a.statistics('filename')) / 2**20:.1f} MiB -> "
             f"{sum(s.size for s in b.statistics('filename')) / 2**20:.1f} MiB"]
    for stat in b.compare_to(a, "traceback")[:top]:
        lines.append(f"{stat.size_diff / 2**20:+.2f} MiB ({stat.count_diff:+d} blocks), now {stat.size / 2**20:.2f} MiB")
        lines += [f"    {f.filename}:{f.lineno}" for f in stat.traceback[-args_frames:]]
    return "\n".join(lines)


args_frames = 8


def run(args: argparse.Namespace) -> int:
    work = Path(tempfile.mkdtemp(prefix="memprofile-"))
    fake = fake_server()
    fake.delay = args.delay
    snaps: dict[int, Path] = {}
    rss: dict[int, float] = {}
    try:
        shutil.copytree(args.data_dir, work / "app")
        proc, url = _start(args, work / "app", fake.base_url, work, work / "app.log")
        try:
            print(f"start: {rss_mib(proc.pid):.0f} MiB", flush=True)
            clients = connect(url, args.sessions)
            asked = questions(args.questions)
            done = [ask_once(clients[0], 0, asked[0])]
            marks = sorted({*range(args.every, args.questions, args.every), args.questions, *args.snap_at})
            t0 = time.perf_counter()
            for n in marks:
                done += ask_stream_of(clients, asked[len(done):n])
                rss[n] = rss_mib(proc.pid) or 0.0
                errors = sum(r.got is None for r in done)
                print(f"{n:6d} questions: RSS {rss[n]:7.1f} MiB  ({errors} errors, {time.perf_counter() - t0:.0f} s)",
                      flush=True)
                if args.trace and n in args.snap_at:
                    snaps[n] = _snapshot(proc, work, len(snaps) + 1)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        s = slope_per_1000(rss)
        print(f"slope over the second half: {'n/a' if s is None else f'{s:+.2f}% per 1,000 questions'}")
        keys = sorted(snaps)
        for x, y in {(keys[0], keys[-1]), *zip(keys[1:], keys[2:], strict=False)} if len(keys) > 1 else ():
            print(f"\ntracemalloc growth {x} -> {y} questions:\n{diff(snaps[x], snaps[y], args.top)}")
        return 0
    finally:
        fake.close()
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.experiments.memprofile", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, required=True, help="an ingested corpus to copy (never written)")
    ap.add_argument("--sessions", type=int, default=64)
    ap.add_argument("--questions", type=int, default=1500)
    ap.add_argument("--every", type=int, default=250, help="read RSS every this many questions")
    ap.add_argument("--delay", type=float, default=0.3, help="seconds the fake LLM takes per answer")
    ap.add_argument("--top-k", type=int, default=3)
    ap.add_argument("--trace", action="store_true", help="tracemalloc in the app; snapshots at --snap-at")
    ap.add_argument("--snap-at", type=lambda s: [int(x) for x in s.split(",")], default=[])
    ap.add_argument("--frames", type=int, default=10, help="tracemalloc traceback depth")
    ap.add_argument("--top", type=int, default=15, help="growth entries to print per diff")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the app's environment")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--base-url", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--snap-dir", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        _serve(args)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
