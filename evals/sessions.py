"""gradio_client sessions against the app's ``/ask`` API, shared by evals/reliability.py,
evals/experiments/memprofile.py and tests/test_load.py: the questions they ask (the standalone dev-set
questions), opening sessions, asking all at once or as a stream, comparing each result with a
direct answer (cross-talk), latency percentiles and a process's RSS."""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.metrics import percentile

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "evals" / "datasets" / "dev.jsonl"
CLIENT_TIMEOUT_S = 120.0


def questions(n: int) -> list[str]:
    """``n`` different questions: the standalone dev-set questions, in file order (cycled past ~90)."""
    rows = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    pool = list(dict.fromkeys(r["question"] for r in rows if not r.get("previous")))
    return [pool[i % len(pool)] for i in range(n)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def client(url: str, **kw: Any) -> Any:
    """A gradio_client session. Its HTTP timeout is raised from httpx's 5 s: with 64 sessions on 2
    busy cores the app sometimes takes longer than that to accept a request (a queued one is fine)."""
    from gradio_client import Client

    kw.setdefault("httpx_kwargs", {"timeout": CLIENT_TIMEOUT_S})
    return Client(url, verbose=False, analytics_enabled=False, download_files=False, **kw)


@dataclass
class Result:
    session: int
    question: str
    got: dict[str, Any] | None = None  # Answer.to_dict() from the app
    error: str = ""
    seconds: float = 0.0


def ask_once(c: Any, session: int, question: str) -> Result:
    started = time.perf_counter()
    try:
        got = c.predict(question, "[]", "", api_name="/ask")
        if not isinstance(got, dict):
            raise TypeError(f"/ask returned {type(got).__name__}, not a dict")
        return Result(session, question, got, seconds=time.perf_counter() - started)
    except Exception as exc:  # counted as not answered, reported with the question
        return Result(session, question, error=f"{type(exc).__name__}: {exc}"[:300],
                      seconds=time.perf_counter() - started)


def connect(url: str, n: int) -> list[Any]:
    """``n`` gradio_client sessions, opened in parallel (each fetches the app's config)."""
    clients: list[Any] = [None] * n
    errors: list[BaseException] = []

    def open_one(i: int) -> None:
        try:
            clients[i] = client(url)
        except BaseException as exc:  # re-raised below, in the caller's thread
            errors.append(exc)

    run_threads([lambda i=i: open_one(i) for i in range(n)])
    if errors:
        raise RuntimeError(f"{len(errors)} of {n} sessions could not connect to {url}: {errors[0]!r}")
    return clients


def run_threads(jobs: list[Callable[[], None]], timeout: float = 1800) -> None:
    threads = [threading.Thread(target=job, daemon=True) for job in jobs]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))


def ask_all_at_once(clients: list[Any], asked: list[str]) -> list[Result]:
    """Session i asks ``asked[i]``; all sessions send together (a barrier) and wait for their answer."""
    results: list[Result | None] = [None] * len(clients)
    barrier = threading.Barrier(len(clients))

    def session(i: int) -> None:
        try:
            barrier.wait(timeout=120)
        except threading.BrokenBarrierError:
            pass  # ask anyway: a slow start is not a failure
        results[i] = ask_once(clients[i], i, asked[i])

    run_threads([lambda i=i: session(i) for i in range(len(clients))])
    return [r or Result(i, asked[i], error="no result (the session thread did not finish)")
            for i, r in enumerate(results)]


def ask_stream_of(clients: list[Any], asked: list[str]) -> list[Result]:
    """Every session takes the next question from ``asked`` until none is left."""
    todo: queue.SimpleQueue[str] = queue.SimpleQueue()
    for q in asked:
        todo.put(q)
    results: list[Result] = []
    lock = threading.Lock()

    def session(i: int) -> None:
        while True:
            try:
                q = todo.get_nowait()
            except queue.Empty:
                return
            r = ask_once(clients[i], i, q)
            with lock:
                results.append(r)

    run_threads([lambda i=i: session(i) for i in range(len(clients))])
    return results


def signature(answer: dict[str, Any]) -> dict[str, Any]:
    """What must be equal between two answers to one question: all but timings."""
    return {
        "question": answer["question"],
        "answer": answer["answer"],
        "refused": answer["refused"],
        "backend": answer["backend"],
        "fallback_reason": answer.get("fallback_reason"),
        "citations": [(c["n"], c["doc_id"], [(e["start"], e["end"]) for e in c["evidence"]])
                      for c in answer["citations"]],
    }


def cross_talk(result: Result, direct: dict[str, Any]) -> str:
    """Why ``result`` is not the answer to its own question (``direct``), or "" when it is."""
    if result.got is None:
        return ""
    got, want = signature(result.got), signature(direct)
    wrong = [k for k in want if got[k] != want[k]]
    return f"session {result.session} asked {result.question!r}: {', '.join(wrong)} differ" if wrong else ""


def latency(results: list[Result]) -> tuple[float, float]:
    secs = [r.seconds for r in results if r.got is not None]
    return percentile(secs, 50), percentile(secs, 95)


def rss_mib(pid: int) -> float | None:
    """Resident memory of process ``pid`` in MiB (Linux /proc), None where unavailable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None
