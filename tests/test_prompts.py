"""The system prompt: worked examples for the backends that get them, and none taken from the corpus;
the numbered-sentence designs' prompts and parsing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from assistant.backends.grammars import grammar_for, pick_grammar
from assistant.compose.prompts import (
    clipped,
    first_cited_sentence,
    lead_draft,
    lead_preview,
    numbered_messages,
    picked,
    summary_messages,
)
from assistant.evidence.scoring import Sentence
from assistant.language.prompt_texts import (
    fixed_head,
    load_prompt,
    render,
    system_prompt,
    warm_messages,
)
from assistant.settings import DEFAULT_CORPUS, PromptsSection
from evals.data import DATASETS_DIR


def test_examples_go_to_the_backends_named_in_settings() -> None:
    examples = load_prompt("answer_examples")
    assert all(examples not in system_prompt(b) for b in ("local", "openai"))  # off by default (measured)
    cfg = PromptsSection(examples_for=["local"], designs={"local": "write"})  # examples: the "write" design's
    assert examples in system_prompt("local", cfg) and examples not in system_prompt("openai", cfg)
    assert system_prompt("local", cfg).startswith(system_prompt("openai"))  # the rules come first


def test_example_papers_are_invented_not_taken_from_the_corpus_or_any_question_set() -> None:
    """A worked example about a real abstract would leak an answer into every evaluation of it."""
    names = set(re.findall(r"^Paper: (.+)$", load_prompt("answer_examples"), flags=re.M))
    assert names
    texts = [p.read_text(encoding="utf-8") for p in DEFAULT_CORPUS.rglob("*") if p.is_file() and p.suffix != ".npz"]  # not its vectors
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


# --- the numbered-sentence designs ----------------------------------------------------------------
def _sentences() -> list[Sentence]:
    return [Sentence(0, "We propose Ring Attention [2].", 0, 30), Sentence(0, "It scales context.", 31, 49),
            Sentence(2, "LASP-2 is faster.", 0, 17)]


def test_design_prompts_are_the_system_prompt_of_their_backend() -> None:
    cfg = PromptsSection(designs={"local": "pick"})
    assert system_prompt("local", cfg) == load_prompt("answer_system_pick")
    assert system_prompt("openai", cfg) == load_prompt("answer_system")  # not listed: "write"
    assert system_prompt("local", PromptsSection(designs={"local": "lead"})) == load_prompt("answer_system_lead")


def test_numbered_messages_number_the_sentences_under_their_paper() -> None:
    messages = numbered_messages("lead", "What is [1] Ring Attention?", _sentences(), ["Ring paper", "x", "LASP-2 paper"])
    user = messages[1]["content"]
    assert messages[0]["content"] == load_prompt("answer_system_lead")
    lines = [line for line in user.splitlines() if line.startswith(("Paper:", "["))]
    assert lines == ["Paper: Ring paper", "[1] We propose Ring Attention (2).", "[2] It scales context.",
                     "Paper: LASP-2 paper", "[3] LASP-2 is faster."]  # markers inside the data are inert
    assert "Question: What is (1) Ring Attention?" in user


def test_picked_keeps_the_models_order_and_only_shown_numbers() -> None:
    s = _sentences()
    assert picked("3 1", s) == [s[2], s[0]]
    assert picked("2 2 9 1", s) == [s[1], s[0]]
    assert picked("none", s) == [] and picked("", s) == []


def test_lead_draft_cites_the_abstract_of_the_numbered_sentence() -> None:
    s = _sentences()
    assert lead_draft("Ring Attention scales context. [2]", s) == "Ring Attention scales context. [1]"
    assert lead_draft("LASP-2 beats it [3][1]", s) == "LASP-2 beats it. [3][1]"  # a full stop ends it
    assert lead_draft("No marker here.", s) == "No marker here."  # the verifier points it
    assert lead_draft("Out of range [7]", s) == "Out of range."


def test_lead_preview_never_shows_the_decline() -> None:
    assert lead_preview("NOT") == lead_preview("NOT IN SOURCES") == ""
    assert lead_preview("Ring Attention scales") == "Ring Attention scales"
    assert lead_preview("Ring Attention scales. [1") == "Ring Attention scales."


def test_pick_grammar_admits_only_the_numbers_shown() -> None:
    g = pick_grammar(3)
    assert '"none"' in g and '"3" | "2" | "1"' in g and '"4"' not in g
    assert grammar_for("lead", 3) is None and grammar_for("write", 3) is None


# --- the prompt cache: every request starts with what the warm-up read ----------------------------
def test_lead_requests_start_with_the_warm_up_request_and_end_with_the_instruction() -> None:
    """llama.cpp reuses the KV of a request's common prefix with the previous one (cache_prompt):
    the system prompt and the user turn's head are the same bytes in every lead request and in
    the warm-up. The closing instruction stays last, after the question: moved to the head (where it
    would be cached) the model declined 1 of 40 unanswerable questions instead of 9 (docs/local-model.md)."""
    system, head = warm_messages("local")
    a = numbered_messages("lead", "What is Ring Attention?", _sentences(), ["Ring paper", "x", "LASP-2 paper"])
    b = numbered_messages("lead", "How fast is LASP-2?", _sentences()[2:], ["y", "z", "LASP-2 paper"])
    assert a[0] == b[0] == system
    closing = load_prompt("answer_user_lead").splitlines()[-1]
    assert "NOT IN SOURCES" in closing and "{" not in closing
    for messages in (a, b):
        user = messages[1]["content"]
        assert user.startswith(head["content"]) and head["content"].endswith("\n")
        assert user.splitlines()[-1] == closing and user.index("Question:") < user.index(closing)


def test_warm_up_head_is_the_fixed_text_before_each_templates_first_placeholder() -> None:
    assert render("answer_user", sources="S", question="Q").startswith(fixed_head("answer_user"))
    assert warm_messages("openai")[1]["content"] == fixed_head("answer_user")  # "write": its own head
    assert warm_messages("openai")[0]["content"] == system_prompt("openai")
    pick = PromptsSection(designs={"local": "pick"})
    assert warm_messages("local", pick)[1]["content"] == fixed_head("answer_user_pick")


# --- shorter local prompts (issue #20 / #21 latency; docs/local-model.md) --------------------------
def test_the_lead_is_written_from_the_first_sentences_shown_and_all_are_quoted(corpus_dir: Path, mock_model: Any) -> None:
    """``lead_shown`` sentences go to the model (the uncached part of its prompt is read per
    question); extraction's sentences are all quoted under the lead all the same."""
    from assistant import Assistant

    question = "What is Ring Attention?"
    # (lead_support 0: every lead shown; its bar is tested in test_answer_designs.py)
    full = Assistant(data_dir=corpus_dir, backend="extractive", prompts={"designs": {"mock": "lead"}, "lead_shown": 4, "lead_support": 0.0})
    one = Assistant(data_dir=corpus_dir, backend="extractive", prompts={"designs": {"mock": "lead"}, "lead_shown": 1, "lead_support": 0.0})
    mock_model.enqueue("Ring Attention spreads long sequences over devices. [1]",
                       "Ring Attention spreads long sequences over devices. [1]")
    a, b = full.ask(question, backend="mock"), one.ask(question, backend="mock")
    shown = [re.findall(r"^\[\d+\] ", m[1]["content"], flags=re.M) for m in mock_model.prompts]
    assert len(shown[0]) >= 2 and shown[1] == ["[1] "]  # the model saw one sentence
    assert a.text.partition("\n\n")[2] == b.text.partition("\n\n")[2] != ""  # the same quotes
    assert len(b.sentences) == len(a.sentences) >= 2


def test_summary_requests_start_with_the_warm_up_and_show_a_few_clipped_items() -> None:
    """A "lead" backend's list synthesis shares the lead's cached head (the warm-up's bytes), numbers
    the items by their list number under their label, shows at most ``summary_items`` of them,
    each clipped to ``summary_words`` words, and ends with its shape's instruction."""
    from assistant.types import ListItem

    cfg = PromptsSection(summary_items=2, summary_words=5)
    long = "one two three four five six seven"
    items = [ListItem(n=n, doc_id=f"d{n}", label=f"Paper {n}", text=long, source="s", reports="r [9]" if n == 2 else "")
             for n in (1, 2, 3)]
    system, head = warm_messages("local", cfg)
    for shape in ("list", "compare", "overview"):
        messages = summary_messages(shape, "Which papers study [1] things?", items, cfg)
        user = messages[1]["content"]
        assert messages[0] == system and user.startswith(head["content"])
        assert re.findall(r"^\[(\d)\] (.*)$", user, flags=re.M) == [("1", "one two three four five …"),
                                                                    ("2", "one two three four five … r (9)")]
        assert "Paper 3" not in user and "Paper: Paper 2" in user
        closing = load_prompt(f"answer_{shape}_lead").splitlines()[-1]
        assert user.splitlines()[-1] == closing and "NOT IN SOURCES" in closing
        assert user.index("Question: Which papers study (1) things?") < user.index(closing)
    assert clipped("a b", 5) == "a b" and clipped(" a  b c ", 2) == "a b …"


def test_first_cited_sentence_is_known_once_it_is_complete() -> None:
    assert first_cited_sentence("Both papers study SSMs") is None  # no citation yet
    assert first_cited_sentence("Both study SSMs [1][2].") is None  # it may go on: "[1][2]. And"
    assert first_cited_sentence("Both study SSMs [1][2]. They") == "Both study SSMs [1][2]."
    assert first_cited_sentence("Both study SSMs. [1][3] They") == "Both study SSMs. [1][3]"
    assert first_cited_sentence("Both study SSMs [1], as Mamba [2] does\n1.") == "Both study SSMs [1], as Mamba [2] does"
    assert first_cited_sentence("It runs 1.5x faster [2] than") is None  # a decimal point is no full stop


def test_a_local_list_summary_is_one_sentence_from_a_few_items(corpus_dir: Path, mock_model: Any) -> None:
    """With the lead design (the local default) the list's synthesis is the lead's frame, the first
    few items, stopped after its first complete sentence; the list below it is unchanged."""
    from assistant import Assistant

    question = "Which papers study state space models?"
    lead = Assistant(data_dir=corpus_dir, backend="extractive", prompts={"designs": {"mock": "lead"}})
    extractive = lead.ask(question, backend="extractive")
    first, second = extractive.items[:2]
    mock_model.enqueue(f"{first.text.rstrip('.')} [1]. {second.text} [2] The moon is cheese [1].")
    ans = lead.ask(question, backend="mock")
    system, user = mock_model.prompts[0]
    assert system["content"] == load_prompt("answer_system_lead")
    assert len(re.findall(r"^\[\d+\] ", user["content"], flags=re.M)) == lead.settings.prompts.summary_items
    summary, _, listing = ans.text.partition("\n\n")
    assert summary.endswith("[1]") and "[2]" not in summary and "cheese" not in ans.text
    assert listing == extractive.text and ans.fallback_reason is None and "summary" in ans.timings
    mock_model.enqueue("NOT IN SOURCES")
    declined = lead.ask(question, backend="mock")
    assert declined.text == extractive.text and "list alone" in (declined.fallback_reason or "")
