"""Measure: does the local model cite correctly with numbered evidence sentences and "claim [n]" output?

Usage: python -m evals.experiments.constrained_local [--n 5] [--data-dir DIR]

For the first ``--n`` questions of the tune split of evals/datasets/dev.jsonl: (A) the product's own
local answer (``Assistant.ask``, source-numbered prompt) and (B) the same evidence as numbered
sentences (prompts/answer_*_numbered.txt) with output constrained by a llama.cpp GBNF grammar to
sentences that each end in [n]. Per variant: seconds per answer, sentences, share ending in a valid
[n], and share whose content words are >= 50 % in the cited sentence(s) ("supported").
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from assistant.backends.base import LLMError
from assistant.backends.local import LocalChatModel
from assistant.compose.prompts import as_data
from assistant.core import Assistant
from assistant.evidence.scoring import score_evidence, terms
from assistant.language.prompt_texts import load_prompt, render
from assistant.question.conversation import evidence_question

DEV = Path(__file__).resolve().parents[1] / "datasets" / "dev.jsonl"
N_SENTENCES = 8  # evidence sentences shown: about the ~400 tokens of the source-numbered prompt
SUPPORT = 0.5  # share of a claim's content words found in its cited sentences (sanity bound, not fit)
# One to four sentences, each ending in one or two [n]; or the decline. Sentence text excludes brackets.
GRAMMAR = r'''root ::= "NOT IN SOURCES" | claim (" " claim){0,3}
claim ::= [A-Z] [^\[\]\n]{10,300} " [" num "]" ("[" num "]")?
num ::= [1-9]'''


def supported(claim: str, cited: list[str]) -> bool:
    words = set(terms(claim))
    have = set().union(*(set(terms(c)) for c in cited)) if cited else set()
    return bool(words) and len(words & have) / len(words) >= SUPPORT


def score(text: str, numbered: list[str]) -> tuple[int, int, int]:
    """(sentences, ending in valid [n], supported by the cited sentence(s))."""
    claims = [c for c in re.split(r"(?<=\])\s+", text.strip()) if c.strip()]
    valid = ok = 0
    for c in claims:
        nums = [int(n) for n in re.findall(r"\[(\d+)\]", c)]
        if nums and all(1 <= n <= len(numbered) for n in nums) and c.rstrip().endswith("]"):
            valid += 1
            ok += supported(re.sub(r"\[\d+\]", "", c), [numbered[n - 1] for n in nums])
    return len(claims), valid, ok


def numbered_sentences(assistant: Assistant, question: str) -> list[str]:
    hits = assistant.retriever.retrieve(question, assistant.settings.top_k)
    asked = evidence_question(question, [], hits[0][0].original if hits else "")
    ev = score_evidence(asked, [d.original for d, _ in hits[:3]], assistant.engine.cache, assistant.engine.idf())
    best = sorted(ev.sentences, key=lambda s: -(s.lexical + s.dense))[:N_SENTENCES]
    return [as_data(s.text) for s in best]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--data-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [r["question"] for r in rows if r.get("split") == "tune"][: args.n]
    assistant = Assistant(data_dir=args.data_dir, backend="local")
    model = LocalChatModel(assistant.settings)
    model._load()
    totals = {"A": [0, 0, 0, 0.0], "B": [0, 0, 0, 0.0]}
    for q in questions:
        numbered = numbered_sentences(assistant, q)
        t = time.perf_counter()
        a = assistant.ask(q, backend="local")
        ta = time.perf_counter() - t
        a_sents = [c.text for c in sorted(a.citations, key=lambda c: c.n)]  # whole abstracts: lenient to A
        sa = score(a.text, a_sents) if a.backend == "local" else (0, 0, 0)
        user = render("answer_user_numbered", question=as_data(q),
                      sentences="\n".join(f"[{i}] {s}" for i, s in enumerate(numbered, 1)))
        msgs = [{"role": "system", "content": load_prompt("answer_system_numbered")}, {"role": "user", "content": user}]
        t = time.perf_counter()
        try:
            b = "".join(model.stream(msgs, max_tokens=200, grammar=GRAMMAR))
        except LLMError as exc:  # e.g. the answer deadline on a loaded machine: counted as no sentences
            b = f"(failed: {exc})"
        tb = time.perf_counter() - t
        sb = score(b, numbered)
        for key, s, secs in (("A", sa, ta), ("B", sb, tb)):
            totals[key] = [x + y for x, y in zip(totals[key], [*s, secs], strict=True)]
        print(json.dumps({"q": q[:70], "A": [a.backend, round(ta, 1), sa, a.text[:160]],
                          "B": [round(tb, 1), sb, b[:160]]}), flush=True)
    for key, (n, valid, ok, secs) in totals.items():
        print(f"{key}: {n} sentences, {valid} end in a valid [n], {ok} supported; "
              f"{secs / max(1, len(questions)):.1f} s per answer")


if __name__ == "__main__":
    main()
