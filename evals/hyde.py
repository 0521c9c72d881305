"""Query rewriting by the packaged local model (HyDE, Gao et al. 2022), measured, not shipped.

    python -m evals.hyde --data-dir D [--limit 80] [--cache evals/runs/hyde_cache.jsonl] [--threads 2]

For tuning questions only (dev lookup / paraphrase / numeric / multi and the calibration set's far
rewordings; the locked split is never read: ``evals.fit.tuning_questions`` loads through
``evals.data.load_for_tuning``), the local model writes greedily one sentence an abstract answering
the question might contain (prompts/hyde_sentence.txt; the question is all it sees, no retrieved
text). The product's fused retriever then ranks with (a) the question, (b) the question plus that
sentence, (c) the sentence alone, each beside the naive baseline (BM25 + one MiniLM vector per
abstract, RRF) on the question. Figures: nDCG@10, Recall@5 and first-abstract-right against gold,
per group, mean +- sd over 5 folds of the questions (folds only for spread: nothing is fitted),
plus the subset the decision (``engine.analyze``) does not answer outright, and the model's
seconds per question. Generations are cached by question and prompt, so a rerun does not
regenerate.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from evals.cv import folds
from evals.data import EVALS_DIR
from evals.fit import log, open_assistant, tuning_questions
from evals.metrics import ndcg_at_k, recall_at_k

PROMPT_FILE = Path(__file__).resolve().parent.parent / "prompts" / "hyde_sentence.txt"
GROUP_ORDER = ["dev:paraphrase", "calibration:far", "dev:lookup", "dev:numeric", "dev:multi"]
MAX_TOKENS = 64  # one sentence of ~30 words; sanity bound
VARIANTS = ["naive(q)", "fused(q)", "fused(q+h)", "fused(h)", "naive(q+h)"]


def group_of(q: Any) -> str | None:
    """The question's group, or None when it is not one measured here (unanswerable, follow-ups,
    the calibration set's short and near rewordings)."""
    if not q.gold or q.previous:
        return None
    if q.raw.get("_set") == "calibration":
        return "calibration:far" if q.raw.get("derivation") == "far" else None
    return f"dev:{q.type}" if f"dev:{q.type}" in GROUP_ORDER else None


def balanced(items: list[tuple[str, Any]], limit: int) -> list[tuple[str, Any]]:
    """Round-robin over the groups in GROUP_ORDER, in file order within each, up to ``limit``."""
    by: dict[str, list[Any]] = {g: [] for g in GROUP_ORDER}
    for g, q in items:
        by.setdefault(g, []).append(q)
    out: list[tuple[str, Any]] = []
    depth = 0
    while len(out) < limit and any(len(v) > depth for v in by.values()):
        out += [(g, v[depth]) for g, v in by.items() if len(v) > depth][: limit - len(out)]
        depth += 1
    return out


def clean_sentence(text: str) -> str:
    """The model's reply as one line: leading labels and quotes dropped, the first line kept."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    first = lines[0] if lines else ""
    if first.lower().startswith("sentence:"):
        first = first[len("sentence:"):].strip()
    return first.strip('"\u201c\u201d \'')


def cache_key(question: str, prompt: str) -> str:
    return hashlib.sha256((prompt + "\x00" + question).encode("utf-8")).hexdigest()[:16]


def summarise(values: list[float], parts: list[list[int]], members: set[int]) -> str:
    """Mean +- sd over the folds of the per-fold means (folds with no member skipped)."""
    per = [statistics.fmean(values[i] for i in p if i in members) for p in parts if any(i in members for i in p)]
    if not per:
        return "-"
    sd = statistics.stdev(per) if len(per) > 1 else 0.0
    return f"{statistics.fmean(per):.3f} +- {sd:.3f}"


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else 0.0


class Writer:
    """The packaged local model through the product's llama.cpp engine, greedy, cached on disk."""

    def __init__(self, threads: int, cache: Path) -> None:
        self.cache, self.threads, self.engine = cache, threads, None
        self.prompt = PROMPT_FILE.read_text(encoding="utf-8")
        self.done: dict[str, dict[str, Any]] = {}
        if cache.exists():
            for line in cache.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                self.done[row["key"]] = row

    def __call__(self, question: str) -> dict[str, Any]:
        key = cache_key(question, self.prompt)
        if key not in self.done:
            self.done[key] = {"key": key, "question": question, **self._generate(question)}
            self.cache.parent.mkdir(parents=True, exist_ok=True)
            with self.cache.open("a", encoding="utf-8") as f:
                f.write(json.dumps(self.done[key]) + "\n")
        return self.done[key]

    def _generate(self, question: str) -> dict[str, Any]:
        from assistant.backends.local import Engine, ensure_model
        from assistant.settings import Settings

        if self.engine is None:
            self.engine = Engine(ensure_model(Settings()), self.threads, 1024)
        request = {"messages": [{"role": "user", "content": self.prompt.replace("{question}", question)}],
                   "max_tokens": MAX_TOKENS, "temperature": 0.0, "seed": 11, "cache_prompt": True}
        out: list[Any] = []
        t0 = time.perf_counter()
        self.engine.server.handle_chat_completions(request, lambda chunk: out.append(chunk) or False)
        seconds = time.perf_counter() - t0
        data = out[-1] if out and isinstance(out[-1], dict) else {}
        text = ((data.get("choices") or [{}])[0].get("message") or {}).get("content") or ""
        return {"sentence": clean_sentence(text), "raw": text[:400], "seconds": round(seconds, 3),
                "load": os.getloadavg()[0]}


def scores(assistant: Any, text: str, gold: set[str], mode: str) -> tuple[float, float, float]:
    works = [d.work_id for d, _ in assistant.retriever.retrieve(text, 10, mode=mode)]
    return ndcg_at_k(gold, works, 10), recall_at_k(gold, works, 5), float(bool(works) and works[0] in gold)


def measure(assistant: Any, chosen: list[tuple[str, Any]], writer: Writer) -> list[dict[str, Any]]:
    rows = []
    for n, (group, q) in enumerate(chosen, 1):
        h = writer(q.text)
        hs = h["sentence"] or q.text
        turn = assistant.engine.analyze(q.text, assistant.settings.top_k)
        texts = {"naive(q)": (q.text, "baseline"), "fused(q)": (q.text, "hybrid"),
                 "fused(q+h)": (f"{q.text} {hs}", "hybrid"), "fused(h)": (hs, "hybrid"),
                 "naive(q+h)": (f"{q.text} {hs}", "baseline")}
        rows.append({"group": group, "id": q.id, "question": q.text, "sentence": h["sentence"],
                     "seconds": h["seconds"], "outcome": turn.decision.outcome if turn.decision else "",
                     **{v: scores(assistant, t, q.gold, m) for v, (t, m) in texts.items()}})
        if n % 10 == 0:
            log(f"  {n}/{len(chosen)} questions")
    return rows


def table(rows: list[dict[str, Any]], k: int) -> dict[str, Any]:
    items = [type("Q", (), {"raw": {"_set": r["group"]}})() for r in rows]
    parts = folds(items, k)
    groups = {"all": set(range(len(rows)))}
    for g in GROUP_ORDER:
        groups[g] = {i for i, r in enumerate(rows) if r["group"] == g}
    groups["uncertain (caveat/refuse)"] = {i for i, r in enumerate(rows) if r["outcome"] in ("caveat", "refuse")}
    out: dict[str, Any] = {}
    for g, members in groups.items():
        if not members:
            continue
        out[g] = {"n": len(members)}
        for v in VARIANTS:
            out[g][v] = {m: summarise([r[v][j] for r in rows], parts, members)
                         for j, m in enumerate(("ndcg@10", "recall@5", "first"))}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None)
    p.add_argument("--limit", type=int, default=80)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--threads", type=int, default=2, help="llama.cpp CPU threads")
    p.add_argument("--cache", default=str(EVALS_DIR / "runs" / "hyde_cache.jsonl"),
                   help="generations, one JSON line each (evals/runs is not committed)")
    p.add_argument("--out", default=None, help="write the per-question rows and the table as JSON here")
    args = p.parse_args(argv)
    assistant = open_assistant(args.data_dir)
    qs = tuning_questions(assistant, ["dev", "calibration"])
    chosen = balanced([(g, q) for q in qs if (g := group_of(q))], args.limit)
    log(f"{len(chosen)} questions; load {os.getloadavg()}")
    rows = measure(assistant, chosen, Writer(args.threads, Path(args.cache)))
    secs = [r["seconds"] for r in rows]
    result = {"n": len(rows), "model_seconds": {"p50": percentile(secs, 0.5), "p90": percentile(secs, 0.9)},
              "load_end": os.getloadavg(), "table": table(rows, args.folds)}
    if args.out:
        Path(args.out).write_text(json.dumps({**result, "rows": rows}, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
