"""Time the local backend on a ~1,000-token prompt built from the abstracts.

Usage: python -m evals.bench_local [--tokens 64] [--threads N] [--chars 5400]

Runs: ``cold`` (fresh model), ``same prefix`` (same system prompt, another question: llama.cpp
reuses the cached prefix), ``repeat`` (identical prompt), ``no cache`` (same prefix with
``cache_prompt`` off). Reports time to first token, total time and generation tokens/s.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from dataclasses import dataclass
from typing import Any

from assistant.backends.local import LocalChatModel
from assistant.settings import DEFAULT_CORPUS, Settings

QUESTIONS = (
    "Summarise, in detail, what these abstracts say about attention and softmax.",
    "List the datasets and benchmarks these abstracts mention, with one line on each.",
)


@dataclass
class Run:
    label: str
    prompt_tokens: int
    cached_tokens: int
    ttft_s: float
    total_s: float
    generated: int

    @property
    def gen_tok_s(self) -> float:
        return (self.generated - 1) / max(self.total_s - self.ttft_s, 1e-9)


def system_prompt(chars: int) -> str:
    """Whole sentences from the corpus, in file order, up to ``chars`` characters."""
    text = " ".join(f.read_text(encoding="utf-8") for f in sorted(DEFAULT_CORPUS.glob("*.txt")))
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(text.replace("Daily Papers", " ").split()))
    out: list[str] = []
    while sentences and sum(map(len, out)) + len(sentences[0]) < chars:
        out.append(sentences.pop(0))
    return "Answer only from these research-paper abstracts.\n\n" + " ".join(out)


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
    return Run(label, cached + fresh, cached, ttft, end - start, int(timings.get("predicted_n", 0)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--chars", type=int, default=5400, help="system prompt size in characters")
    args = parser.parse_args(argv)
    settings = Settings.load(local_threads=args.threads)
    model = LocalChatModel(settings)
    start = time.perf_counter()
    model._load()
    print(
        f"model {model.model}: loaded in {time.perf_counter() - start:.1f} s, "
        f"{settings.local_threads} threads, n_ctx {settings.local_context}"
    )
    system = system_prompt(args.chars)
    ask = [
        [{"role": "system", "content": system}, {"role": "user", "content": q}] for q in QUESTIONS
    ]
    runs = [
        run(model, "cold", ask[0], args.tokens, cache=True),
        run(model, "same prefix", ask[1], args.tokens, cache=True),
        run(model, "repeat", ask[1], args.tokens, cache=True),
        run(model, "no cache", ask[0], args.tokens, cache=False),
    ]
    print(
        f"\n{'run':<12} {'prompt':>6} {'cached':>6} {'TTFT s':>7} {'total s':>7} {'gen':>4} {'gen tok/s':>9}"
    )
    for r in runs:
        print(
            f"{r.label:<12} {r.prompt_tokens:>6} {r.cached_tokens:>6} {r.ttft_s:>7.2f} "
            f"{r.total_s:>7.2f} {r.generated:>4} {r.gen_tok_s:>9.1f}"
        )
    cold = runs[0]
    print(
        f"\nprompt reading (cold): {cold.prompt_tokens / cold.ttft_s:.0f} tok/s; "
        f"load average now {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
