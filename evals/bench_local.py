"""Time the local backend: prompt and generation tokens/s, and time to first token (TTFT).

Usage: python -m evals.bench_local [--tokens 64] [--threads 1 2] [--chars 1800]
       python -m evals.bench_local --answers 20 --data-dir D   (the default backend end to end)
       python -m evals.bench_local --lists 8 --data-dir D      (list / compare / overview answers)
       python -m evals.bench_local --lists 12 --shape list --data-dir D   (one shape only)

The prompt is a synthetic answer request: the local backend's system prompt (as
:func:`assistant.language.prompt_texts.system_prompt` gives it) and a user turn of ~``--chars`` characters of
abstract sentences (~400 tokens) plus a question. For each thread count, runs: ``warm-up`` (the
system prompt with a bare user turn), ``cached sys`` (another evidence prompt with the same
system prompt: llama.cpp reuses its KV), ``cached sys 2`` (a third), ``no cache`` (``cache_prompt``
off: the whole prompt read). Prompt and generation tokens/s are llama.cpp's own timings.

``--answers N``: the local default as a user gets it, end to end. An ``Assistant`` over the
ingested index ``--data-dir`` (backend "local", its configured design: "lead"), the model warmed as
the page does (``local.warm`` itself: load, the shape reader's prompt, ``prompts.warm_messages``), one untimed question (the
embedder and BM25 index load), then the first N answerable questions of the generated split (tuning
data, never the locked one), lookups and paraphrases alternating, each asked once. Prints, per
question, llama.cpp's own counts of the model's request (prompt tokens, of them reused from the
cache, read, and generated, with their ms) and the engine's ``first_token`` (question in -> the
model's first token) and ``total`` (question in -> verified answer); then their p50 / p95, the
median counts, ms per prompt token read and per token generated, how many answers the model
served (not a fallback), and the load average before and after: seconds hold near idle only when
that load is (the token counts do not depend on it).
"""

from __future__ import annotations

import argparse
import os
import re
import time
from dataclasses import dataclass
from typing import Any

from assistant.backends.local import LocalChatModel, physical_cores, threads_for
from assistant.language.prompt_texts import WARM_QUESTION, system_prompt
from assistant.settings import DEFAULT_CORPUS, Settings

QUESTIONS = (
    "Summarise what these abstracts say about attention and softmax.",
    "Which datasets and benchmarks do these abstracts mention?",
    "What do these abstracts say about memory use?",
)


@dataclass
class Run:
    label: str
    prompt_tokens: int
    cached_tokens: int
    ttft_s: float
    total_s: float
    generated: int

    prompt_tok_s: float = 0.0  # llama.cpp's prompt_per_second (0 when the prompt was all cached)
    gen_tok_s: float = 0.0  # llama.cpp's predicted_per_second


def evidence(chars: int, skip: int) -> str:
    """Whole sentences from the corpus, in file order from sentence ``skip``, up to ``chars`` characters."""
    text = " ".join(f.read_text(encoding="utf-8") for f in sorted(DEFAULT_CORPUS.glob("*.txt")))
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(text.replace("Daily Papers", " ").split()))[skip:]
    out: list[str] = []
    while sentences and sum(map(len, out)) + len(sentences[0]) < chars:
        out.append(sentences.pop(0))
    return " ".join(out)


def run(
    model: LocalChatModel, label: str, messages: list[dict[str, str]], tokens: int, cache: bool
) -> Run:
    """One streamed request straight to the engine, to read llama.cpp's own token counts."""
    engine = model._load()
    request = {"messages": messages, "max_tokens": tokens, "temperature": 0.0, "stream": True}
    request |= {"cache_prompt": cache, "ignore_eos": True}  # always generate exactly `tokens`
    first: float | None = None
    timings: dict[str, Any] = {}

    def on_chunk(chunk: dict[str, Any]) -> bool:
        nonlocal first
        if "error" in chunk:
            raise RuntimeError(chunk["error"])
        delta = (chunk.get("choices") or [{}])[0].get("delta") or {}
        if first is None and delta.get("content"):
            first = time.perf_counter()
        timings.update(chunk.get("timings") or {})
        return False

    with engine.lock:
        start = time.perf_counter()
        engine.server.handle_chat_completions(request, on_chunk)
        end = time.perf_counter()
    cached, fresh = int(timings.get("cache_n", 0)), int(timings.get("prompt_n", 0))
    ttft = (first or end) - start
    return Run(label, cached + fresh, cached, ttft, end - start, int(timings.get("predicted_n", 0)),
               float(timings.get("prompt_per_second", 0.0)) if fresh > 1 else 0.0,
               float(timings.get("predicted_per_second", 0.0)))


def bench(threads: int, tokens: int, chars: int) -> list[Run]:
    settings = Settings.load(local_threads=threads)
    model = LocalChatModel(settings)
    start = time.perf_counter()
    model._load()
    print(f"\nmodel {model.model}: loaded in {time.perf_counter() - start:.1f} s, "
          f"{threads_for(settings)} threads, n_ctx {settings.local_context}")
    system = {"role": "system", "content": system_prompt("local")}
    ask = [[system, {"role": "user", "content": f"Sources:\n{evidence(chars, 40 * i)}\n\nQuestion: {q}"}]
           for i, q in enumerate(QUESTIONS)]
    runs = [
        run(model, "warm-up", [system, {"role": "user", "content": WARM_QUESTION}], 1, cache=True),
        run(model, "cached sys", ask[0], tokens, cache=True),
        run(model, "cached sys 2", ask[1], tokens, cache=True),
        run(model, "no cache", ask[2], tokens, cache=False),
    ]
    print(f"{'run':<12} {'prompt':>6} {'cached':>6} {'TTFT s':>7} {'total s':>7} {'gen':>4} "
          f"{'prompt tok/s':>12} {'gen tok/s':>9}")
    for r in runs:
        print(f"{r.label:<12} {r.prompt_tokens:>6} {r.cached_tokens:>6} {r.ttft_s:>7.2f} {r.total_s:>7.2f} "
              f"{r.generated:>4} {r.prompt_tok_s:>12.1f} {r.gen_tok_s:>9.1f}")
    return runs


def answer_questions(n: int) -> list[str]:
    """The first ``n`` answerable generated questions, one type after the other (as --limit does)."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent / "datasets" / "generated.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_type: dict[str, list[str]] = {}
    for r in rows:
        if r.get("type") != "unanswerable" and not r.get("previous"):
            by_type.setdefault(r["type"], []).append(r["question"])
    queues = list(by_type.values())
    out: list[str] = []
    while len(out) < n and any(queues):
        for q in queues:
            if q and len(out) < n:
                out.append(q.pop(0))
    return out


def bench_answers(n: int, data_dir: str, threads: int) -> None:
    """See the module docstring (``--answers``)."""
    import statistics

    from assistant import Assistant
    from assistant.backends import local

    load_before = os.getloadavg()
    assistant = Assistant(data_dir=data_dir, backend="local", local_threads=threads)
    if not assistant.search("attention", k=1):
        raise SystemExit(f"{data_dir}: no ingested abstracts (make ingest, or copy a pre-ingested data dir)")
    start = time.perf_counter()
    # the page's own warm-up (local.warm: load, the shape reader's prompt, the answer's head), waited for here
    local.warm(assistant.settings).join()
    model = local.LocalChatModel(assistant.settings)
    warm_t = model.last_timings()
    print(f"warm-up (load + shape prompt + answer's system prompt and fixed user head, last {warm_t.get('prompt_n', 0)} tokens): "
          f"{time.perf_counter() - start:.1f} s; design {assistant.settings.prompts.design('local')}, "
          f"{threads_for(assistant.settings)} threads")
    assistant.ask("What is Ring Attention?")  # untimed: embedder, BM25 index, sentence cache
    first, total, served, rows = [], [], 0, []
    print(f"{'prompt':>6} {'cached':>6} {'read':>5} {'read ms':>8} {'gen':>4} {'gen ms':>7} "
          f"{'first s':>7} {'total s':>7} {'load':>5}")
    for q in answer_questions(n):
        load = os.getloadavg()[0]
        ans = assistant.ask(q)
        total.append(ans.timings.get("total", float("nan")))
        if "first_token" in ans.timings:
            first.append(ans.timings["first_token"])
        served += ans.backend == "local"
        # waits for the lead's generation, stopped at its "]", to finish in its own thread (exiting
        # while llama.cpp still runs there aborts: "FATAL: exception not rethrown")
        t = model.last_timings() if "first_token" in ans.timings else {}
        row = [int(t.get(k, 0)) for k in ("cache_n", "prompt_n", "prompt_ms", "predicted_n", "predicted_ms")]
        rows.append(row)
        print(f"{row[0] + row[1]:>6} {row[0]:>6} {row[1]:>5} {row[2]:>8} {row[3]:>4} {row[4]:>7} "
              f"{ans.timings.get('first_token', float('nan')):>7.2f} {total[-1]:>7.2f} {load:>5.2f}")

    def p(xs: list[float], q: int) -> str:
        return f"{statistics.quantiles(xs, n=100)[q - 1]:.2f}" if len(xs) > 1 else "–"

    print(f"{len(total)} questions, {served} answered by the model, {len(first)} with a model token")
    print(f"first token p50 {p(first, 50)} s, p95 {p(first, 95)} s; answer p50 {p(total, 50)} s, p95 {p(total, 95)} s")
    if served := [r for r in rows if r[1] or r[3]]:
        med = [statistics.median(col) for col in zip(*served, strict=True)]
        read_ms = sum(r[2] for r in served) / max(1, sum(r[1] for r in served))
        gen_ms = sum(r[4] for r in served) / max(1, sum(r[3] for r in served))
        print(f"llama.cpp, median per request: prompt {med[0] + med[1]:.0f} tokens, {med[0]:.0f} cached, "
              f"{med[1]:.0f} read ({med[2]:.0f} ms), {med[3]:.0f} generated ({med[4]:.0f} ms); "
              f"{read_ms:.1f} ms per token read, {gen_ms:.1f} ms per token generated")
    print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} CPUs")


LIST_SETS = ("lists", "lists_written")  # --lists: the list split and the hand-written lists
SHAPE_SETS = LIST_SETS + ("overview_written",)  # --shape S: also the hand-written overviews


def list_questions(n: int, shape: str | None = None, names: tuple[str, ...] = LIST_SETS) -> list[str]:
    """The first ``n`` collection questions, list / compare / overview of ``names`` in turn, or only
    those of ``shape`` (tuning data, never the locked one; no follow-ups)."""
    import json
    from pathlib import Path

    queues: dict[str, list[str]] = {}
    for name in names:
        path = Path(__file__).resolve().parent / "datasets" / f"{name}.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line) if line.strip() else {}
            if r and not r.get("previous") and shape in (None, r.get("shape")):
                queues.setdefault(f"{name}:{r.get('shape')}", []).append(r["question"])
    out: list[str] = []
    while len(out) < n and any(queues.values()):
        for q in queues.values():
            if q and len(out) < n and q[0] not in out:
                out.append(q.pop(0))
            elif q and q[0] in out:
                q.pop(0)  # the same question in two sets is asked once
    return out


def _first_token_clock(local: Any) -> dict[str, float]:
    """Wraps ``LocalChatModel.stream`` (this process only) to note when the model's first text
    arrives: ``{"t": perf_counter()}`` of the last request's first delta."""
    seen: dict[str, float] = {}
    inner = local.LocalChatModel.stream

    def stream(self: Any, *args: Any, **kw: Any) -> Any:
        seen.pop("t", None)
        for delta in inner(self, *args, **kw):
            seen.setdefault("t", time.perf_counter())
            yield delta

    local.LocalChatModel.stream = stream
    return seen


def bench_lists(n: int, data_dir: str, threads: int, shape: str | None = None) -> None:
    """``--lists N`` (``--shape S``: only that shape, from the three collection sets): N collection
    questions end to end with the default backend, warmed as the page does. Per question: its shape,
    whether the model's summary was kept, llama.cpp's counts of the summary request (cached, read,
    generated and their ms), the model's first token (question in -> its first text), the list step
    alone, the summary and the answer's total; then their p50 / p95, per shape, the median counts and
    ms per token, the share of summaries kept, and the load average before and after."""

    from assistant import Assistant
    from assistant.backends import local

    load_before = os.getloadavg()
    assistant = Assistant(data_dir=data_dir, backend="local", local_threads=threads)
    local.warm(assistant.settings).join()  # the page's own warm-up (local.warm)
    model = local.LocalChatModel(assistant.settings)
    assistant.ask("What is Ring Attention?")  # untimed: embedder, BM25 index, sentence cache
    clock = _first_token_clock(local)
    rows: list[dict[str, Any]] = []
    print(f"{'shape':>8} {'kept':>4} {'cached':>6} {'read':>5} {'read ms':>7} {'gen':>4} {'gen ms':>6} "
          f"{'first s':>7} {'list s':>6} {'sum s':>6} {'total s':>7} {'load':>5}")
    for q in list_questions(n, shape, SHAPE_SETS if shape else LIST_SETS):
        load = os.getloadavg()[0]
        start = time.perf_counter()
        ans = assistant.ask(q)
        asked = "summary" in ans.timings  # the model was asked for a summary
        t = model.last_timings() if asked else {}
        counts = [int(t.get(k, 0)) for k in ("cache_n", "prompt_n", "prompt_ms", "predicted_n", "predicted_ms")]
        tm = ans.timings
        row = {"shape": ans.shape, "asked": asked, "kept": asked and not ans.fallback_reason, "counts": counts,
               "first": clock["t"] - start if asked and "t" in clock else float("nan"),
               "list": tm.get("collection", float("nan")),  # the list step (the synthesis is timed apart)
               "summary": tm.get("summary", float("nan")), "total": tm.get("total", float("nan"))}
        rows.append(row)
        print(f"{ans.shape:>8} {'yes' if row['kept'] else '-' if not asked else 'no':>4} {counts[0]:>6} {counts[1]:>5} "
              f"{counts[2]:>7} {counts[3]:>4} {counts[4]:>6} {row['first']:>7.2f} {row['list']:>6.2f} "
              f"{row['summary']:>6.2f} {row['total']:>7.2f} {load:>5.2f}  {q[:50]}")
    _list_report(rows)
    print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} CPUs")


def _list_report(rows: list[dict[str, Any]]) -> None:
    """The summary lines of ``--lists``: p50 / p95 overall and per shape, counts, ms per token."""
    import math
    import statistics

    def p(xs: list[float], q: int) -> str:
        xs = [x for x in xs if not math.isnan(x)]
        return f"{statistics.quantiles(xs, n=100, method='inclusive')[q - 1]:.2f}" if len(xs) > 1 else "–"

    shaped = [r for r in rows if r["shape"] != "fact"]
    asked = [r for r in shaped if r["asked"]]
    print(f"{len(rows)} questions, {len(shaped)} answered as a collection, {len(asked)} summaries asked, "
          f"{sum(r['kept'] for r in asked)} kept")
    print(f"answer p50 {p([r['total'] for r in rows], 50)} s, p95 {p([r['total'] for r in rows], 95)} s; "
          f"model's first token p50 {p([r['first'] for r in asked], 50)} s, p95 {p([r['first'] for r in asked], 95)} s")
    for shape in sorted({r["shape"] for r in rows}):
        of = [r["total"] for r in rows if r["shape"] == shape]
        print(f"  {shape}: {len(of)} answers, p50 {p(of, 50)} s, max {max(of):.2f} s")
    if served := [r["counts"] for r in asked if r["counts"][1] or r["counts"][3]]:
        med = [statistics.median(col) for col in zip(*served, strict=True)]
        read_ms = sum(r[2] for r in served) / max(1, sum(r[1] for r in served))
        gen_ms = sum(r[4] for r in served) / max(1, sum(r[3] for r in served))
        print(f"llama.cpp, median per summary request: {med[0]:.0f} cached, {med[1]:.0f} read, {med[3]:.0f} generated; "
              f"{read_ms:.1f} ms per token read, {gen_ms:.1f} ms per token generated")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, nargs="+", default=[physical_cores()])
    parser.add_argument("--chars", type=int, default=1800, help="evidence characters in the user turn (~400 tokens)")
    parser.add_argument("--answers", type=int, default=0, help="time N answers of the default backend end to end")
    parser.add_argument("--lists", type=int, default=0, help="time N list / compare / overview answers end to end")
    parser.add_argument("--shape", choices=("list", "compare", "overview"), default=None,
                        help="--lists: only questions of this shape (lists, lists_written, overview_written)")
    parser.add_argument("--data-dir", default=None, help="--answers / --lists: an ingested data dir")
    args = parser.parse_args(argv)
    if args.lists:
        if not args.data_dir:
            parser.error("--lists needs --data-dir (an ingested index)")
        bench_lists(args.lists, args.data_dir, args.threads[0], args.shape)
        return
    if args.answers:
        if not args.data_dir:
            parser.error("--answers needs --data-dir (an ingested index)")
        bench_answers(args.answers, args.data_dir, args.threads[0])
        return
    for threads in args.threads:
        bench(threads, args.tokens, args.chars)
    print(f"\nload average now {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs "
          f"({physical_cores()} physical cores)")


if __name__ == "__main__":
    main()
