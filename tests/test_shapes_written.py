"""The shape frames widened in session 12 (#21; assistant/question/shape.py, assistant/question/shape_frames.py) and the
hand-written shape set (evals/datasets/shapes_written.jsonl). Phrasings made up for these tests, none from the set."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from assistant.question.shape import COMPARE, FACT, LIST, OVERVIEW, detect
from evals.data import DATASETS_DIR, SHAPES_WRITTEN_PATH, load_for_tuning, resolve_path


@pytest.mark.parametrize(("question", "topic"), [
    ("What do we know so far about prompt injection?", "prompt injection"),  # "we": the field as knower
    ("Where does the literature stand on weight decay?", "weight decay"),  # the field's position as a place
    ("Where do things stand with quantum machine learning?", "quantum machine learning"),
    ("Bring us up to speed on the research on audio tokenizers.", "audio tokenizers"),  # verbs of briefing
    ("Catch me up on neural scaling laws.", "neural scaling laws"),
    ("A gentle introduction to variational autoencoders, please.", "variational autoencoders"),  # a noun phrase alone
    ("Recent advances in protein language models?", "protein language models"),
    ("What's the latest on sparse attention?", "sparse attention"),  # a superlative used as a noun
    ("What does the evidence say about data augmentation for speech?", "data augmentation for speech"),
    ("What has the field established about double descent?", "double descent"),
    ("How are researchers handling distribution shift?", "distribution shift"),  # the progressive
    ("Describe the key methods for image segmentation.", "image segmentation"),  # an imperative of summarising
    ("What are the open questions in mechanistic interpretability?", "mechanistic interpretability"),  # a field's nouns
    ("What kinds of approaches exist for active learning?", "active learning"),  # "what" + methods for a purpose
    ("What strategies have been explored for reducing label noise?", "reducing label noise"),
    ("What architectures for video generation are in the collection?", "video generation"),
    ("What's the scientific consensus on data scaling?", "data scaling"),  # an adjective before the shared view
    ("What is the community's understanding of sharpness?", "sharpness"),  # the field's possessive
    ("Give me the lay of the land in neural rendering.", "neural rendering"),  # an idiom of a digest
    ("Tell me what has been tried for catastrophic forgetting.", "catastrophic forgetting"),  # an embedded question
    ("How has the work on speech synthesis evolved?", "speech synthesis"),  # a body of work's history
    ("What does recent work say about weight tying?", "weight tying"),
    ("Core ideas in contrastive learning?", "contrastive learning"),  # a bare key + content noun phrase
    ("What's the story so far on model collapse?", "model collapse"),
    ("What has research into tokenizer design shown?", "tokenizer design"),  # the topic inside the subject
    ("How far has work on program synthesis come?", "program synthesis"),  # progress as distance
    ("What are researchers doing about benchmark leakage?", "benchmark leakage"),  # the field's work under way
    ("Vision-language pretraining: what is known?", "Vision-language pretraining"),  # a left-dislocated topic
    ("What are the standard approaches to domain adaptation?", "domain adaptation"),
    ("What new methods are emerging for video understanding?", "video understanding"),
    ("What's the field's stance on benchmark saturation?", "benchmark saturation"),
    ("How do researchers typically measure hallucination?", "hallucination"),  # the field's practice
    ("What has been happening in the area of neural compression?", "neural compression"),  # a field's activity
    ("What insights have been gained from probing language models?", "probing language models"),
    ("What do I need to know about few-shot prompting?", "few-shot prompting"),  # a newcomer's essentials
    ("How well studied is label smoothing?", "label smoothing"),  # the degree of a field's knowledge
    ("Overview: object detection with transformers.", "object detection with transformers"),  # a digest label
    ("Could you sketch the landscape surrounding tool use by language models?", "tool use by language models"),
    ("Describe what the literature says about mixup.", "mixup"),  # an embedded question after "describe"
])
def test_new_overview_frames(question: str, topic: str) -> None:
    shape = detect(question)
    assert shape.kind == OVERVIEW and shape.topic == topic


@pytest.mark.parametrize(("question", "topic"), [
    ("Who has studied retrieval for code generation?", "retrieval for code generation"),  # who + present perfect
    ("Give me every paper that uses LoRA.", "LoRA"),  # every + a singular work noun: all of them
    ("Which strategies have been proposed for curriculum design?", "curriculum design"),  # selective "which" stays a list
    ("Find me everything on sparse retrieval.", "sparse retrieval"),  # the universal indefinite
    ("Tell me which papers use curriculum learning.", "curriculum learning"),  # an embedded question
    ("Which groups have studied sign language translation?", "sign language translation"),  # people + perfect
])
def test_new_list_frames(question: str, topic: str) -> None:
    shape = detect(question)
    assert shape.kind == LIST and shape.topic == topic


@pytest.mark.parametrize(("question", "names"), [
    ("What are the trade-offs between GPTQ and AWQ?", ["GPTQ", "AWQ"]),
    ("Pros and cons of RoPE versus ALiBi?", ["RoPE", "ALiBi"]),
    ("Which works better: RoPE or ALiBi?", ["RoPE", "ALiBi"]),  # the alternatives after a colon
    ("Are ColBERT or SPLADE better for zero-shot retrieval?", ["ColBERT", "SPLADE"]),  # disjunction + comparative
    ("Where does Mamba differ from S4?", ["Mamba", "S4"]),  # "where": in which respects
    ("How different are BERT and ELECTRA?", ["BERT", "ELECTRA"]),  # a degree of likeness
    ("Which would you recommend for summarization, PEGASUS or BART?", ["PEGASUS", "BART"]),  # a verb of choice
    ("T5 or BART: which is better?", ["T5", "BART"]),  # the alternatives fronted
    ("Should we go with Milvus or Qdrant for the index?", ["Milvus", "Qdrant"]),  # a deliberative modal
    ("In which respects are GloVe and word2vec similar?", ["GloVe", "word2vec"]),
])
def test_new_compare_frames(question: str, names: list[str]) -> None:
    shape = detect(question)
    assert shape.kind == COMPARE and shape.names[:2] == names


@pytest.mark.parametrize("question", [
    "What do we know about the memory use of Ring Attention?",  # a property of one named work
    "What is known about how FlashAttention saves memory?",  # an embedded question about a named work
    "Where does the BERT paper stand on pretraining objectives?",  # one work's position
    "What is the latest model in the Qwen series?",  # "latest" modifying a noun, no digest
    "What approaches does the T5 paper compare?",
    "What methods have been used in this paper for evaluation?",  # present perfect, but one work
    "What approaches exist for long inputs in the Mamba paper?",
    "Compare the accuracy of ViT-B and ViT-L in the ViT paper.",  # a comparison inside one work
    "Who proposed dropout?",  # simple past: one event's agent
    "Who has proposed FlashAttention?",  # origination of a named thing
    "Who has shown that scaling laws hold for retrieval?",  # a that-clause: one claim
    "Give me each dataset used by CLIP.",  # not a work noun
    "What are the trade-offs between speed and accuracy in Mamba?",  # one name: no comparison of works
    "What are the main challenges in the Zebra paper?",
    "Explain the key findings of the GPT-3 paper.",
    "Where does Mamba stand on long-range benchmarks?",  # a named work's own position
    "Where does the GPT-2 paper stand on zero-shot transfer versus fine-tuning?",  # "Where" is no name: one name
    "Tell me what FlashAttention changes in the attention kernel.",
    "Key findings of the Gopher paper?",
    "What is BERT's understanding of context?",  # a work's possessive, not the field's
    "What does the work on state space models report?",  # singular "does the work": one work's
    "Give me a summary of the Whisper model.",  # a named work's own model
    "Whisper: what is its word error rate?",  # a fronted name, one work's figure
    "How far does Mamba scale?",
    "What approaches to pruning does SparseGPT compare?",  # the head's complement, then a named subject
    "Which benchmark did they report, SQuAD or NQ?",  # no verb of choice: one paper's report
    "Should I use LoRA or full fine-tuning?",  # one name: no comparison of works
    "How well studied is the Mamba architecture?",  # a named work's own part
    "Explain what FlashAttention does to the softmax.",
    "Summary: what does the Zebra paper claim?",  # a digest label over one work
    "What should I know about the Mamba paper's limitations?",
])
def test_fact_look_alikes_stay_facts(question: str) -> None:
    assert detect(question).kind == FACT


# every tuning split a written shape question may not repeat (never the locked ones)
OTHER_SPLITS = ("dev", "generated", "generated_unanswerable", "calibration", "paraphrase_written", "lists", "lists_written",
                "overview_written", "lists_followups_written", "shape_facts_written", "lists_absent_written")


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def problems(rows: list[dict[str, Any]]) -> list[str]:
    """A row with an unknown shape, a repeated question or id, or a question another tuning split already has."""
    found = [f"{r['id']}: unknown shape {r['shape']!r}" for r in rows if r["shape"] not in (FACT, LIST, COMPARE, OVERVIEW)]
    found += [f"repeated: {q!r}" for q, n in Counter(r["question"].lower() for r in rows).items() if n > 1]
    found += [f"repeated id: {i}" for i, n in Counter(r["id"] for r in rows).items() if n > 1]
    others = {r["question"].lower() for name in OTHER_SPLITS for r in load_for_tuning(resolve_path(name)[1])}
    return found + [f"{r['id']}: also in another tuning split: {r['question']!r}" for r in rows if r["question"].lower() in others]


def test_the_written_set_is_valid() -> None:
    rows = rows_of(SHAPES_WRITTEN_PATH)
    assert not problems(rows)
    assert {r["shape"] for r in rows} == {FACT, LIST, COMPARE, OVERVIEW}
    assert all(r["split"] == "shapes_written" and r["made"] for r in rows)


def test_no_single_fact_of_the_written_sets_becomes_a_list_or_overview() -> None:
    from evals.lists_metrics import shape_confusion

    confusion = shape_confusion(("shape_facts_written", str(SHAPES_WRITTEN_PATH)))
    facts = [kinds for types in confusion.values() for t, kinds in types.items() if t.startswith("fact")]
    assert facts and not [k for k in facts if k.get(LIST) or k.get(OVERVIEW)]


def test_the_third_hold_out_is_valid() -> None:
    """Each follow-up points at the list question before it (what it detects is measured once, never
    asserted: a hold-out)."""
    built = rows_of(DATASETS_DIR / "shapes_written_holdout3.jsonl")
    assert not problems(built)
    by_id = {r["id"]: r for r in built}
    assert all(by_id[r["previous"]]["shape"] == LIST for r in built if r["previous"])
