"""Time the local backend: prompt and generation tokens/s, and time to first token (TTFT).

Usage: python -m evals.bench_local [--tokens 64] [--threads 1 2] [--chars 1800]

The prompt is a typical answer request: the real system prompt (prompts/answer_system.txt, as
:func:`assistant.prompts.system_prompt` gives it) and a user turn of ~``--chars`` characters of
abstract sentences (~400 tokens) plus a question. For each thread count, runs: ``warm-up`` (the
system prompt alone, as ``local.warm`` does), ``cached sys`` (another evidence prompt with the same
system prompt: llama.cpp reuses its KV), ``cached sys 2`` (a third), ``no cache`` (``cache_prompt``
off: the whole prompt read). Prompt and generation tokens/s are llama.cpp's own timings.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from dataclasses import dataclass
from typing import Any

from assistant.backends.local import WARM_QUESTION, LocalChatModel, physical_cores, threads_for
from assistant.prompts import system_prompt
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, nargs="+", default=[physical_cores()])
    parser.add_argument("--chars", type=int, default=1800, help="evidence characters in the user turn (~400 tokens)")
    args = parser.parse_args(argv)
    for threads in args.threads:
        bench(threads, args.tokens, args.chars)
    print(f"\nload average now {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs "
          f"({physical_cores()} physical cores)")


if __name__ == "__main__":
    main()
