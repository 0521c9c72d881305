"""SIGKILL mid-ingest, then re-run: the index ends exactly as a clean ingest leaves it.

Children ingest a ~100-abstract corpus in small batches (a FakeEmbedder that sleeps stands in for
MiniLM, so the runs last a few seconds) and are killed at timed points after they start ingesting,
and at exact moments through hooks: right after a chunk write (before its abstracts), and between
deleting replaced abstracts and their chunks. The children run in parallel, each on its own data
dir; each killed dir is then completed in this process and compared with a clean ingest.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ingest_helpers import (
    FakeEmbedder,
    distinct_seeds,
    fake_assistant,
    integrity,
    seed,
    write_corpus,
)

TESTS = Path(__file__).parent
ROOT = TESTS.parent
TIMED = (0.5, 1.0, 2.0, 3.0, 4.0)  # seconds after the child starts ingesting
HOOKS = ("chunks.upsert:3", "docs.delete:1")

CHILD = """
import os, signal, sys, time
from ingest_helpers import FakeEmbedder
import ingest.pipeline as pipeline
from assistant.settings import Settings
from assistant.store.chroma import Store

pipeline.EMBED_BATCH_DOCS = 5
store = Store(Settings(data_dir=sys.argv[1]), "onnx:all-MiniLM-L6-v2-int8")
kill_at = os.environ.get("KILL_AT")
if kill_at:  # SIGKILL ourselves right after the n-th call of one Chroma operation
    op, n = kill_at.split(":")
    owner, method = op.split(".")
    coll = getattr(store, owner)
    real, seen = getattr(coll, method), [0]
    def hooked(*a, **k):
        out = real(*a, **k)
        seen[0] += 1
        if seen[0] == int(n):
            os.kill(os.getpid(), signal.SIGKILL)
        return out
    object.__setattr__(coll, method, hooked)
print("ready", time.monotonic(), flush=True)  # CLOCK_MONOTONIC: comparable across processes
report = pipeline.ingest_paths([sys.argv[2]], store, FakeEmbedder(delay=float(os.environ["DELAY"])), progress=False)
print("done", report.added, flush=True)
"""


def _spawn(script: Path, data: Path, corpus: Path, kill_at: str = "") -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)]), "DELAY": "0.25",
           "KILL_AT": kill_at, "ANONYMIZED_TELEMETRY": "False"}
    return subprocess.Popen([sys.executable, str(script), str(data), str(corpus)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, cwd=data.parent)


def _corpus(folder: Path, texts: list[str]) -> None:
    write_corpus(folder, texts, per_file=20)
    (folder / "repeats.txt").write_text(texts[0] + "\n\n" + texts[40] + "\n")  # exact repeats


def test_sigkill_mid_ingest_then_rerun_matches_clean_ingest(tmp_path: Path) -> None:
    texts = distinct_seeds(96) + [seed("Nature is infinitely|To overcome this limitation"), seed("Nature is infinitely|FiTv2")]
    _corpus(tmp_path / "corpus", texts)
    _corpus(tmp_path / "update", texts)

    reference = fake_assistant(tmp_path / "ref")
    clean = reference.ingest([tmp_path / "corpus"])
    assert (clean.added, clean.duplicates, clean.versions) == (98, 2, 2)
    want = integrity(reference.store)

    # The update case: a complete index of the corpus (built here, copied for the child), then
    # every tenth abstract edited in place; the child replaces them and is killed while deleting.
    base = fake_assistant(tmp_path / "base")
    base.ingest([tmp_path / "update"])
    shutil.copytree(tmp_path / "base", tmp_path / "hook-docs.delete-1")
    _corpus(tmp_path / "update", [t.replace(". ", ". Indeed, ", 1) if i % 10 == 5 else t for i, t in enumerate(texts)])
    reference2 = fake_assistant(tmp_path / "ref2")
    assert reference2.ingest([tmp_path / "update"]).added == 98
    want2 = integrity(reference2.store)

    script = tmp_path / "child.py"
    script.write_text(CHILD)
    runs: dict[str, tuple[subprocess.Popen[str], Path, Path]] = {}
    for t in TIMED:
        data = tmp_path / f"timed-{t}"
        data.mkdir()
        runs[f"timed {t}"] = (_spawn(script, data, tmp_path / "corpus"), data, tmp_path / "corpus")
    for hook in HOOKS:
        data = tmp_path / f"hook-{hook.replace(':', '-')}"
        data.mkdir(exist_ok=True)
        corpus = tmp_path / ("update" if hook.startswith("docs.delete") else "corpus")
        runs[f"hook {hook}"] = (_spawn(script, data, corpus, kill_at=hook), data, corpus)

    try:
        ready: dict[str, float] = {}
        deadline = time.monotonic() + 120
        for name, (proc, _, _) in runs.items():  # wait for every child to start ingesting
            assert proc.stdout is not None
            line = proc.stdout.readline().split()
            assert line[:1] == ["ready"], f"{name}: child failed to start ({line!r}, rc={proc.poll()})"
            ready[name] = float(line[1])
        for t in sorted(TIMED):
            name = f"timed {t}"
            proc = runs[name][0]
            time.sleep(max(0.0, ready[name] + t - time.monotonic()))
            proc.send_signal(signal.SIGKILL)
        for proc, _, _ in runs.values():
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for proc, _, _ in runs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    mid_ingest = 0
    states: list[str] = []
    for name, (proc, data, corpus) in runs.items():
        # a timed kill may come after a fast child finished; a hook always fires
        allowed = (-signal.SIGKILL,) if name.startswith("hook") else (-signal.SIGKILL, 0)
        assert proc.returncode in allowed, f"{name}: exited with {proc.returncode}"
        a = fake_assistant(data)
        at_kill = a.store.counts()
        if name.startswith("timed"):
            states.append(f"{name}: {at_kill['abstracts']} abstracts, {at_kill['chunks']} chunks")
            mid_ingest += 0 < at_kill["abstracts"] < 98 or (at_kill["abstracts"] == 0 and at_kill["chunks"] > 0)
        if name.startswith("hook chunks"):
            assert at_kill["chunks"] > 0 and at_kill["abstracts"] == 10  # chunks of batch 3 orphaned
        report = a.ingest([corpus])
        assert not report.rejected
        got = integrity(a.store)  # every doc has its chunks, no orphans, no text twice
        assert got == (want2 if corpus.name == "update" else want), f"{name}: differs from a clean ingest"
        assert a.ingest([corpus]).unchanged == 98  # and stays put
    # Kills in the first second may come before anything is written on a slow machine, and the
    # last after a fast one finished: both are fine, but at least two must cut a write short.
    assert mid_ingest >= 2, f"too few timed kills landed mid-ingest: {states}"


@pytest.mark.parametrize("when", ["before", "after"])
def test_kill_during_prune_keeps_index_consistent(tmp_path: Path, when: str) -> None:
    """In-process variant of the delete window: an error between deleting abstracts and their
    chunks (as a crash would leave it) is repaired by the next run."""
    texts = distinct_seeds(6, start=30)
    files = write_corpus(tmp_path / "c", texts, per_file=3)
    a = fake_assistant(tmp_path / "data", FakeEmbedder())
    a.ingest([tmp_path / "c"])
    files[0].unlink()
    real_delete = a.store.chunks.delete

    def crash(*args: object, **kwargs: object) -> None:
        if when == "after":
            real_delete(*args, **kwargs)
        raise KeyboardInterrupt  # stands in for the kill: nothing after this runs

    object.__setattr__(a.store.chunks, "delete", crash)
    with pytest.raises(KeyboardInterrupt):
        a.ingest([tmp_path / "c"], prune=True)
    object.__setattr__(a.store.chunks, "delete", real_delete)
    report = a.ingest([tmp_path / "c"], prune=True)
    snapshot = integrity(a.store)
    assert len(snapshot["ids"]) == 3 and report.unchanged == 3
