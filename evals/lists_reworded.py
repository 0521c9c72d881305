"""Reworded list topics: each topic of the list split (a term the abstracts define) asked as a user
would word it, not as the abstracts' term ("papers on making attention cheaper for long inputs").

    python -m evals.lists_reworded generate [--threads 2]   # -> evals/datasets/lists_reworded.jsonl
    python -m evals.lists build                              # adds the kept rewordings as type list_reworded

The packaged local model (Qwen2.5-Coder-1.5B GGUF, run as assistant/backends/local.py runs it, like
evals/generate_questions.py) rewrites each term of evals/datasets/lists.meta.json with the prompt
prompts/reword_topic.txt, greedy (temperature 0), its reply constrained by a JSON schema. A
rewording is kept only if it shares at most ``MAX_SHARED`` content word with the term: the
overlap is the number of distinct BM25 terms (``assistant.evidence.scoring.terms``: lower-cased, stop words
dropped, stemmed) of the rewording that are terms of the term's surface form or of any of its
expansions, and the rewording must not write the acronym as a word. A rejected greedy reply is
asked again, sampled (``RETRY_TEMPERATURE``, seed ``SEED`` + attempt), up to ``MAX_ATTEMPTS`` in
all. Every reply is appended (and flushed) to the output with its overlap and verdict as it is
made, so a killed run resumes by running the command again (a term with a kept reply, or with
``MAX_ATTEMPTS`` replies, is skipped). The gold of a reworded question is the term's works,
unchanged. Nothing here reads an evaluation question.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evals.data import DATASETS_DIR

if TYPE_CHECKING:
    from assistant.backends.local import Engine as LocalEngine

OUT_PATH = DATASETS_DIR / "lists_reworded.jsonl"
META_PATH = DATASETS_DIR / "lists.meta.json"
MAX_SHARED = 1  # the brief of issue 21's follow-up: a user's wording shares at most one content word with the term
MAX_TOPICS = 60  # sanity bound on model time (~10 s a topic on 2 shared cores)
MAX_ATTEMPTS = 3  # greedy, then two sampled retries (cost: ~20 generated tokens each, the prompt is cached)
SEED = 21  # fixed: issue 21
RETRY_TEMPERATURE = 0.7  # as evals/generate_questions.py
MAX_TOKENS = 60  # a 12-word phrase in JSON is ~25 tokens; sanity bound
N_CTX = 1024  # prompt ~150 tokens + MAX_TOKENS
SCHEMA = {"type": "object", "properties": {"topic": {"type": "string", "maxLength": 120}}, "required": ["topic"]}


def overlap(rewording: str, term: str, expansions: list[str]) -> int:
    """Distinct content words (BM25 terms) of ``rewording`` that the term or an expansion holds."""
    from assistant.evidence.scoring import terms

    theirs = set(terms(term)).union(*(set(terms(e)) for e in expansions))
    return len(set(terms(rewording)) & theirs)


def verdict(rewording: str, group: dict[str, Any]) -> str | None:
    """None when the rewording is kept, else the rule it breaks."""
    words = rewording.split()
    if not 2 <= len(words) <= 16:
        return "length"
    if re.search(rf"\b{re.escape(group['acronym'])}s?\b", rewording, re.I):
        return "acronym"
    if overlap(rewording, group["term"], group["expansions"]) > MAX_SHARED:
        return "overlap"
    return None


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] if path.exists() else []


def kept(path: Path = OUT_PATH) -> dict[str, str]:
    """Term -> its kept rewording (the first kept reply)."""
    out: dict[str, str] = {}
    for r in _read(path):
        if r.get("drop_rule") is None:
            out.setdefault(r["term"], r["topic"])
    return out


def _sections() -> dict[str, str]:
    from assistant.settings import PROMPTS_DIR

    parts = re.split(r"^### (\w+)\s*$", (PROMPTS_DIR / "reword_topic.txt").read_text(encoding="utf-8"), flags=re.M)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def _ask(engine: LocalEngine, sections: dict[str, str], group: dict[str, Any], attempt: int) -> str:
    user = sections["user"].replace("{term}", group["term"]).replace("{acronym}", group["acronym"])
    request = {"messages": [{"role": "system", "content": sections["system"]}, {"role": "user", "content": user}],
               "max_tokens": MAX_TOKENS, "seed": SEED + attempt, "temperature": RETRY_TEMPERATURE if attempt else 0.0,
               "json_schema": SCHEMA, "cache_prompt": True}
    out: list[Any] = []
    engine.server.handle_chat_completions(request, lambda chunk: out.append(chunk) or False)
    data = out[-1] if out and isinstance(out[-1], dict) else {}
    text = ((data.get("choices") or [{}])[0].get("message") or {}).get("content") or ""
    try:
        return str(json.loads(text).get("topic", "")).strip()
    except (json.JSONDecodeError, AttributeError):
        return ""


def generate(threads: int = 2, out: Path = OUT_PATH) -> dict[str, Any]:
    from assistant.backends.local import Engine, ensure_model
    from assistant.settings import Settings

    groups = json.loads(META_PATH.read_text(encoding="utf-8"))["groups"][:MAX_TOPICS]
    done = _read(out)
    have = kept(out)
    tries = {g["term"]: sum(1 for r in done if r["term"] == g["term"]) for g in groups}
    todo = [g for g in groups if g["term"] not in have and tries[g["term"]] < MAX_ATTEMPTS]
    engine = Engine(ensure_model(Settings()), threads, N_CTX) if todo else None
    sections, t0 = _sections(), time.perf_counter()
    with out.open("a", encoding="utf-8") as f:
        for g in todo:
            for attempt in range(tries[g["term"]], MAX_ATTEMPTS):
                topic = _ask(engine, sections, g, attempt)
                rule = verdict(topic, g) if topic else "empty"
                row = {"term": g["term"], "acronym": g["acronym"], "attempt": attempt, "topic": topic,
                       "overlap": overlap(topic, g["term"], g["expansions"]), "drop_rule": rule}
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
                f.flush()
                if rule is None:
                    break
    return {"topics": len(groups), "kept": len(kept(out)), "asked": len(todo), "seconds": round(time.perf_counter() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.lists_reworded", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["generate"])
    ap.add_argument("--threads", type=int, default=2, help="llama.cpp CPU threads")
    args = ap.parse_args(argv)
    print(json.dumps(generate(args.threads)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
