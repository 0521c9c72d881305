"""A large first ingest with the real embedder, as a user runs it (issue #41: 10,000 abstracts in
20 minutes on 2 cores, memory flat, resumable after a kill).

    python -m evals.bench_large_ingest DIR --total 10000 [--kill-at 0.4]

Writes ``DIR/lib/library.jsonl`` (``evals.bench_cold.library``: SciFact's 2,101 abstracts, then
SciFact's with their sentences shuffled, ``total - 446`` in all), then runs ``assistant ingest
--data-dir DIR/data`` on the bundled corpus and that file in a fresh process, reading the process's
resident memory every ``--every`` seconds from ``/proc``. With ``--kill-at F`` the first process is
killed (SIGKILL) once the progress file (``<data dir>/ingest-progress.json``) reports that share
done, and a second ``assistant ingest`` finishes the job: its report shows what it embedded again.
Prints the wall seconds, abstracts per second, the peak RSS, and the RSS at each tenth of the run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from assistant.settings import DEFAULT_CORPUS
from evals.bench_cold import SCIFACT, library


def _rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _done_share(data_dir: Path) -> float:
    try:
        p = json.loads((data_dir / "ingest-progress.json").read_text())
        return float(p.get("done", 0)) / max(float(p.get("total", 0)), 1.0)
    except (OSError, ValueError):
        return 0.0


def run(cmd: list[str], data_dir: Path, every: float, kill_at: float | None) -> dict[str, Any]:
    """Run ``cmd``, sampling its RSS; SIGKILL it once the progress file reports ``kill_at`` done."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    trace: list[tuple[float, float, float]] = []  # (seconds, RSS MiB, share done)
    killed = False
    while proc.poll() is None:
        time.sleep(every)
        share = _done_share(data_dir)
        rss = _rss_mib(proc.pid)
        if rss:  # 0: the process ended between the poll and the read
            trace.append((round(time.perf_counter() - t0, 1), round(rss, 1), round(share, 3)))
        if kill_at is not None and share >= kill_at:
            proc.send_signal(signal.SIGKILL)
            killed = True
            break
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    tenths = [next((r for s, r, _ in trace if s >= wall * k / 10), trace[-1][1] if trace else 0.0) for k in range(1, 11)]
    return {"wall_s": round(wall, 1), "killed": killed, "rc": proc.returncode,
            "peak_rss_mib": max((r for _, r, _ in trace), default=0.0), "rss_by_tenth_mib": tenths,
            "stdout_tail": out[-1500:], "stderr_tail": err[-600:]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench_large_ingest")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--total", type=int, default=10_000)
    parser.add_argument("--scifact", type=Path, default=SCIFACT)
    parser.add_argument("--every", type=float, default=5.0, help="seconds between RSS samples")
    parser.add_argument("--kill-at", type=float, default=None, help="kill the first run at this share done, then resume")
    args = parser.parse_args(argv)
    lib = library(args.folder, args.total, args.scifact)
    data_dir = args.folder / "data"
    exe = Path(sys.executable).with_name("assistant")
    cmd = [str(exe), "ingest", "--data-dir", str(data_dir), "--json", str(DEFAULT_CORPUS), *([str(lib)] if lib else [])]
    runs = [run(cmd, data_dir, args.every, args.kill_at)]
    if args.kill_at is not None:
        runs.append(run(cmd, data_dir, args.every, None))
    total_wall = sum(r["wall_s"] for r in runs)
    print(json.dumps({"total": args.total, "wall_s": round(total_wall, 1),
                      "abstracts_per_s": round(args.total / total_wall, 2), "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
