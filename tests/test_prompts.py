"""The system prompt: worked examples for the backends that get them, and none taken from the corpus."""

from __future__ import annotations

import re

from assistant.prompts import load_prompt, system_prompt
from assistant.settings import DEFAULT_CORPUS, PromptsSection
from evals.data import DATASETS_DIR


def test_examples_go_to_the_backends_named_in_settings() -> None:
    examples = load_prompt("answer_examples")
    assert all(examples not in system_prompt(b) for b in ("local", "openai"))  # off by default (measured)
    cfg = PromptsSection(examples_for=["local"])
    assert examples in system_prompt("local", cfg) and examples not in system_prompt("openai", cfg)
    assert system_prompt("local", cfg).startswith(system_prompt("local"))  # the rules come first


def test_example_papers_are_invented_not_taken_from_the_corpus_or_any_question_set() -> None:
    """A worked example about a real abstract would leak an answer into every evaluation of it."""
    names = set(re.findall(r"^Paper: (.+)$", load_prompt("answer_examples"), flags=re.M))
    assert names
    texts = [p.read_text(encoding="utf-8") for p in DEFAULT_CORPUS.rglob("*") if p.is_file()]
    texts += [p.read_text(encoding="utf-8") for p in DATASETS_DIR.rglob("*.jsonl") if ".dropped" not in p.name]
    for name in names:
        assert not any(name.lower() in t.lower() for t in texts), name


def test_examples_use_the_source_format_and_cite_every_sentence() -> None:
    examples = load_prompt("answer_examples")
    assert examples.count("<source id=") == examples.count("</source>") > 0
    answers = re.findall(r"^Answer: (.+)$", examples, flags=re.M)
    assert answers
    for answer in answers:
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", answer) if s]
        assert all(re.search(r"\[\d\]\.?$", s) for s in sentences), answer
