"""How far an ingest is: a tqdm bar on the command line and a small status file the page reads.

The status file (``<data dir>/ingest-progress.json``) is written atomically (temp file, then
rename) at most every ``WRITE_EVERY_S``, so any process serving the same data dir (the page's
Corpus tab, a replica) shows the same figures as the bar: abstracts done of the total, abstracts
per second and the time left. A killed ingest leaves "running" behind with an old ``updated``
time; readers call that stale (``read_progress``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

FILE = "ingest-progress.json"
WRITE_EVERY_S = 0.5  # bounded writes: a 10,000-abstract ingest writes the file ~ once per batch
STALE_AFTER_S = 120.0  # no update for this long while "running": the writer is gone


class IngestProgress:
    """``update(n)`` after each batch of ``n`` abstracts; ``close()`` at the end (or on failure)."""

    def __init__(self, data_dir: str | Path | None, total: int, *, bar: bool, desc: str = "embedding") -> None:
        self.path = Path(data_dir) / FILE if data_dir else None
        self.total = total
        self.done = 0
        self.started = time.time()
        self._written = 0.0
        self._bar = None
        if bar and total:
            from tqdm import tqdm

            self._bar = tqdm(total=total, unit=" abstracts", desc=desc, file=sys.stderr, disable=not sys.stderr.isatty(),
                             bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
                                        "[{elapsed}, {rate_fmt}, {remaining} left]")
        self._write("running", force=True)

    def update(self, n: int) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
        self._write("running")

    def close(self, state: str = "done") -> None:
        if self._bar is not None:
            self._bar.close()
        self._write(state, force=True)

    def snapshot(self, state: str) -> dict[str, Any]:
        now = time.time()
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else None
        return {"state": state, "done": self.done, "total": self.total, "rate": round(rate, 2),
                "eta_s": None if left is None else round(left, 1), "started": self.started, "updated": now,
                "pid": os.getpid()}

    def _write(self, state: str, force: bool = False) -> None:
        if self.path is None or not self.total:
            return
        now = time.time()
        if not force and now - self._written < WRITE_EVERY_S:
            return
        self._written = now
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(self.snapshot(state)), encoding="utf-8")
            tmp.replace(self.path)
        except OSError:  # a read-only data dir: the bar still shows; the page just has no figures
            pass


def read_progress(data_dir: str | Path) -> dict[str, Any] | None:
    """The last ingest's status, or None; a "running" one not updated for ``STALE_AFTER_S`` reads
    as "stopped" (killed: the next ingest finishes it)."""
    try:
        got = json.loads((Path(data_dir) / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(got, dict):
        return None
    if got.get("state") == "running" and time.time() - float(got.get("updated") or 0) > STALE_AFTER_S:
        got["state"] = "stopped"
    return got


def describe(status: dict[str, Any] | None) -> str:
    """One line for people: "Ingesting 120 of 446 abstracts (9.8 abstracts/s, about 33 s left)"."""
    if not status:
        return ""
    done, total = int(status.get("done") or 0), int(status.get("total") or 0)
    state = status.get("state")
    if state == "running":
        eta = status.get("eta_s")
        left = f", about {_duration(float(eta))} left" if eta is not None else ""
        return f"Ingesting {done:,} of {total:,} abstracts ({float(status.get('rate') or 0):.1f} abstracts/s{left})"
    if state == "stopped":
        return f"The last ingest stopped at {done:,} of {total:,} abstracts; run it again to finish (nothing is lost)."
    return f"Last ingest: {done:,} abstracts embedded at {float(status.get('rate') or 0):.1f} abstracts/s"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
