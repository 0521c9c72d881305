"""The misattribution set (evals/misattribution.py): how it is made, and a sample of it through
the verifier (real MiniLM over the bundled corpus), new checks beside the word-only ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assistant import Assistant
from evals import misattribution as M

TOY = {
    "a": "Long sequences are costly. We propose RingFormer, a method that shards attention. "
         "RingFormer is 3.1x faster than FlashAttention on 8 GPUs.",
    "b": "Memory limits long contexts. We introduce BlockNet for memory-efficient training. "
         "BlockNet reduces memory by 45% while keeping quality on 16 GPUs.",
    "c": "Attention is quadratic in length. We present KVTrim, a cache pruning method. KVTrim keeps 20% of the cache.",
}


def toy_vectors() -> np.ndarray:
    return np.asarray([[1.0, 0.2, 0.1], [0.9, 0.4, 0.1], [0.2, 1.0, 0.3]], np.float32)


def test_the_set_is_made_mechanically_and_deterministically() -> None:
    items = M.build(TOY, toy_vectors(), seed=3)
    assert items == M.build(TOY, toy_vectors(), seed=3)
    kinds = {it["kind"] for it in items}
    assert {"subject_swap", "content_swap", "number_swap", "direction_flip", "unswapped"} <= kinds
    for it in items:
        cited = it["sources"][it["cited"]]
        if it["kind"] == "subject_swap":  # B's words under A's name, cited to B (the words' source)
            a, b = it["names"]
            assert a in it["claim"] and b not in it["claim"] and b in TOY[cited]
        if it["kind"] == "number_swap":
            assert it["claim"] != it["original"] and it["original"] in TOY[cited]
        if it["kind"] == "direction_flip":
            assert it["claim"] != it["original"] and sorted(it["claim"].split()) == sorted(it["original"].split())
        if it["kind"] in M.CORRECT:
            assert it["truth"] == it["cited"]


def test_paraphrases_are_mechanical_rewrites() -> None:
    s = "By sharding attention across devices, RingFormer achieves 3.1x speed, which helps long contexts, at scale."
    hows = dict(M.paraphrases(s))
    assert hows["synonym"].count("reaches") == 1
    assert hows["reorder"].startswith("RingFormer achieves") and hows["reorder"].endswith("by sharding attention across devices.")
    assert "which" not in hows["drop_clause"]


def test_a_duplicate_copies_one_coordinated_name_over_another() -> None:
    assert M.duplicate("We compare Mamba and Transformer on long inputs.") == "We compare Mamba and Mamba on long inputs."
    assert M.duplicate("It beats GPT-4, Llama and Mamba.") == "It beats GPT-4, GPT-4 and Mamba."
    assert M.duplicate("On CARLA, TransFuser leads.") is None  # a comma that ends a fronted phrase joins no list
    assert M.duplicate("We use TTT-Linear only.") is None


def test_the_duplicate_items_follow_the_others_and_repeat_a_name() -> None:
    items = M.load()
    before = [it for it in items if it["kind"] != "duplicate" and it.get("of") != "duplicate"]
    assert items[: len(before)] == before  # the earlier kinds' items first, as they were numbered
    dup = [it for it in items if it["kind"] == "duplicate"]
    assert dup and all(it["claim"] != it["original"] and it["truth"] is None for it in dup)
    assert all(M.duplicate(it["original"]) == it["claim"] for it in dup)


def test_the_committed_set() -> None:
    items = M.load()
    assert len(items) >= 300 and len({it["id"] for it in items}) == len(items)
    counts = {k: sum(it["kind"] == k for it in items) for k in M.SWAPS + M.CORRECT}
    assert all(n >= 20 for n in counts.values()), counts
    corpus = M.load_corpus()
    assert all(k in corpus for it in items for k in it["sources"])


@pytest.fixture(scope="module")
def sample_run(corpus_dir: Path) -> dict:
    assistant = Assistant(data_dir=corpus_dir, backend="extractive")
    items = M.load()
    sample = [it for kind in M.SWAPS + M.CORRECT for it in [x for x in items if x["kind"] == kind][:6]]
    return M.run(sample, M.load_corpus(), assistant.engine.cache, assistant.engine.idf())


def test_a_sample_through_both_verifiers(sample_run: dict) -> None:
    rows = {r["kind"]: r for r in sample_run["table"]}
    for kind in M.SWAPS:  # caught by the new checks, passed by the word-only ones
        assert rows[kind]["attribution"] >= 5 / 6, rows[kind]
        # a duplicate is caught by the sentence's form (assistant.verify.degenerate), which both verifiers read
        assert rows[kind]["words_only"] <= 1 / 6 or kind == "duplicate", rows[kind]
    for kind in M.CORRECT:  # correct sentences and paraphrases are kept citing their own abstract
        assert rows[kind]["attribution"] <= 1 / 6, rows[kind]
    dropped = [r for r in sample_run["per_item"] if r["kind"] in M.SWAPS and r["attribution"]["ok"]]
    assert all(r["attribution"]["reason"] for r in dropped)  # every drop says why
    assert "| subject_swap |" in M.format_table(sample_run)
