"""The generated question set: drop rules, anchors and absent-name unanswerables (pure), and one
short end-to-end run against the real packaged local model (skipped when the `local` extra is not
installed)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.backends import local
from assistant.settings import Settings
from evals import generate_questions as gq
from evals.question_rules import (
    Abstract,
    Vocab,
    content_overlap,
    distinctive_names,
    drop_reason,
    load_abstracts,
    make_unanswerable,
    make_unanswerables,
    pick_anchor,
    vocabulary,
)

ABSTRACT = ("We introduce RetNet, a retentive network for language modeling that trains in parallel. "
            "RetNet replaces attention with a multi-scale retention mechanism and keeps inference cost constant per token. "
            "Experiments on language modeling show that RetNet matches Transformers at lower memory.")
OTHER = "We study attention sinks in large language models and show they appear early in training across many scales of model."
DEV_KEYS = set(json.loads(Path(gq.PROJECT_ROOT / "evals/datasets/dev.jsonl").read_text(encoding="utf-8").splitlines()[0]))


@pytest.mark.parametrize(
    ("question", "answer", "style", "rule"),
    [
        ("How does RetNet keep inference cost constant per token", "multi-scale retention", "direct", "no_question_mark"),
        ("Why RetNet?", "multi-scale retention", "direct", "word_count"),
        ("What " + "very " * 40 + "long?", "multi-scale retention", "direct", "word_count"),
        ("What mechanism does the proposed method use instead of attention?", "multi-scale retention", "direct", "deictic"),
        ("What do the authors replace attention with in RetNet?", "multi-scale retention", "direct", "deictic"),
        ("How do we replace attention in RetNet?", "multi-scale retention", "direct", "deictic"),
        ("What does this statement imply about RetNet?", "multi-scale retention", "direct", "deictic"),
        ("What does RetNet replace attention with?", "multi-head retention", "direct", "answer_not_verbatim"),
        ("What does RetNet replace attention with?", "a multi-scale retention mechanism and keeps", "direct", "answer_too_long"),
        ("Which mechanism lets RetNet avoid attention in language models?", "multi-scale retention", "reworded", "reworded_keeps_name"),
        ("What retention mechanism replaces attention in language modeling networks?", "multi-scale retention", "reworded", "reworded_overlap"),
        ("What does QuillNet replace attention with in RetNet?", "multi-scale retention", "direct", "names_absent"),
        ("How much memory does RetNet-3 save over Transformers?", "lower memory", "direct", "names_absent"),
        ("What does RetNet replace attention with?", "Multi-Scale Retention.", "direct", None),
        ("Which memory-keeping trick lets a sequence predictor skip pairwise token comparisons?", "multi-scale retention", "reworded", None),
    ],
)
def test_drop_rules(question: str, answer: str, style: str, rule: str | None) -> None:
    assert drop_reason(question, answer, ABSTRACT, style, Vocab(frozenset({"retnet"}))) == rule


def test_vague_questions_are_dropped() -> None:
    vocab = Vocab(frozenset(), rare=frozenset({"retnet", "retent", "idea"}))
    assert drop_reason("What is the main idea behind language models?", "RetNet", ABSTRACT, "direct", vocab) == "vague"
    assert drop_reason("What is the main idea behind language models?", "RetNet", ABSTRACT, "reworded", vocab) is None
    assert drop_reason("What is the idea behind the model described?", "RetNet", ABSTRACT, "direct", vocab) == "deictic"
    assert drop_reason("What does RetNet replace attention with?", "multi-scale retention", ABSTRACT, "direct", vocab) is None


def test_recheck_moves_kept_items_a_newer_rule_rejects(tmp_path: Path) -> None:
    a = Abstract(index=0, doc_id="d0", text=ABSTRACT, source="x.txt")
    good = {"id": "G0001", "question": "What does RetNet replace attention with?", "style": "direct",
            "doc_id": "d0", "key_points": ["multi-scale retention"]}
    bad = good | {"id": "G0002", "question": "What does QuillNet replace attention with in RetNet?"}
    paths = gq.paths_for(tmp_path / "gen.jsonl")
    paths["out"].write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    assert gq.recheck(paths, [a], Vocab(frozenset({"retnet"}))) == 1
    assert [json.loads(x)["id"] for x in paths["out"].read_text(encoding="utf-8").splitlines()] == ["G0001"]
    dropped = [json.loads(x) for x in paths["dropped"].read_text(encoding="utf-8").splitlines()]
    assert [(d["id"], d["drop_rule"]) for d in dropped] == [("G0002", "names_absent")]
    assert gq.recheck(paths, [a], Vocab(frozenset({"retnet"}))) == 0  # nothing moves twice


def test_the_second_pass_asks_each_abstract_in_the_other_style(tmp_path: Path) -> None:
    assert [gq.style_of(i, 1) for i in range(2)] == ["direct", "reworded"]
    assert [gq.style_of(i, 2) for i in range(2)] == ["reworded", "direct"]
    assert (gq.item_id(0, 1), gq.item_id(0, 2)) == ("G0001", "G0001-2")
    assert (gq.pass_of("G0001"), gq.pass_of("G0001-2"), gq.pass_of("GU0001-2")) == (1, 2, 2)
    a = Abstract(index=1, doc_id="d1", text=ABSTRACT, source="x.txt")  # odd: reworded in pass 1
    parsed = {"question": "What does RetNet replace attention with?", "answer_phrase": "multi-scale retention"}
    item, reason = gq.make_item(a, parsed, [ABSTRACT, OTHER], Vocab(frozenset({"retnet"})), pass_no=2)
    assert reason is None and (item["id"], item["style"], item["type"]) == ("G0002-2", "direct", "lookup")
    paths = gq.paths_for(tmp_path / "gen.jsonl")
    paths["out"].write_text(json.dumps(item) + "\n", encoding="utf-8")
    paths["dropped"].write_text(json.dumps({"id": "G0002", "style": "reworded", "drop_rule": "deictic"}) + "\n", encoding="utf-8")
    meta = gq.write_side_files(paths, [a], frozenset({"retnet"}), {"max_attempts": 1})
    assert (meta["passes"], meta["kept_by_pass"], meta["complete"]) == (2, {"1": 0, "2": 1}, True)
    meta = gq.write_side_files(paths, [a], frozenset({"retnet"}), {"max_attempts": 2})  # G0002 can go on
    assert (meta["complete"], meta["dropped_before_max_attempts"]) == (False, 1)
    unanswerable = [json.loads(x) for x in paths["unanswerable"].read_text(encoding="utf-8").splitlines()]
    assert [u["id"] for u in unanswerable] == ["GU0002-2"]


def test_a_dropped_item_goes_on_from_its_next_attempt(tmp_path: Path) -> None:
    a = Abstract(index=0, doc_id="d0", text=ABSTRACT, source="x.txt")
    vocab, asked = Vocab(frozenset({"retnet"})), []
    replies = {3: {"question": "What does the paper replace attention with?", "answer_phrase": "multi-scale retention"},
               4: {"question": "What does RetNet replace attention with?", "answer_phrase": "multi-scale retention"}}

    def fake_model(abstract: Abstract, style: str, attempt: int) -> tuple[dict[str, str] | None, str]:
        asked.append(attempt)
        return replies.get(attempt), ""

    item, reason = gq.generate_one(fake_model, a, [ABSTRACT, OTHER], vocab, 1, ["deictic"] * 3, max_attempts=6)
    assert asked == [3, 4] and reason is None and item["attempt_rules"] == ["deictic"] * 4
    asked.clear()
    item, reason = gq.generate_one(fake_model, a, [ABSTRACT, OTHER], vocab, 1, ["deictic"] * 3, max_attempts=4)
    assert asked == [3] and reason == "deictic"
    paths = gq.paths_for(tmp_path / "gen.jsonl")
    first, later = {"id": "G0001", "drop_rule": "deictic"}, {"id": "G0002", "drop_rule": "vague"}
    paths["out"].write_text(json.dumps({"id": "G0001"}) + "\n", encoding="utf-8")
    paths["dropped"].write_text("".join(json.dumps(r) + "\n" for r in (first, later, later | {"drop_rule": "deictic"})), encoding="utf-8")
    gq.compact(paths)  # G0001 was kept on a retry; G0002's last result stands
    assert [json.loads(x) for x in paths["dropped"].read_text(encoding="utf-8").splitlines()] == [later | {"drop_rule": "deictic"}]


def test_content_overlap_counts_stemmed_content_words() -> None:
    assert content_overlap("retention mechanisms for language models?", ABSTRACT) == 1.0
    assert content_overlap("pictures of cats?", ABSTRACT) == 0.0


def test_anchor_is_verbatim_unique_and_prefers_the_answer_sentence() -> None:
    a = Abstract(0, "x", ABSTRACT, "f:1")
    copy_of_first = "We introduce RetNet, a retentive network for language modeling that trains in parallel."
    anchor = pick_anchor(a, [ABSTRACT, OTHER, copy_of_first], prefer="multi-scale retention")
    assert anchor and anchor in ABSTRACT and 8 <= len(anchor.split()) <= 16
    assert "retention mechanism" in anchor or "multi-scale" in anchor  # from the answer's sentence
    assert anchor.lower() not in OTHER.lower() and anchor.lower() not in copy_of_first.lower()
    assert pick_anchor(a, [ABSTRACT, ABSTRACT + " Extra sentence."]) is None  # a superset hides every fragment


def test_unanswerable_names_something_absent_from_the_corpus() -> None:
    corpus = (ABSTRACT + " " + OTHER + " GPT-2 and RetNet-3 exist.").lower()
    item = {"id": "G0001", "question": "How does RetNet keep inference cost constant?", "type": "lookup",
            "split": "generated", "gold_anchors": ["RetNet replaces attention with a multi-scale retention mechanism"],
            "key_points": ["constant"], "previous": None, "style": "direct"}
    names = frozenset({"retnet", "gpt-2", "retnet-3"})
    u = make_unanswerable(item, corpus, names, random.Random(0))
    assert u is not None and u["type"] == "unanswerable" and u["unanswerable_kind"] == "absent-name"
    assert u["gold_anchors"] == [] and u["key_points"] == [] and u["id"] == "GU0001"
    assert u["absent_name"].lower() not in corpus and u["absent_name"] in u["question"]
    assert u["absent_name"].lower() != "retnet-3"  # the suffix that exists is never chosen
    assert set(u) >= DEV_KEYS
    bumped = make_unanswerable(item | {"question": "What did GPT-2 learn?"}, corpus, names, random.Random(0))
    assert bumped and bumped["question"] != "What did GPT-2 learn?" and "gpt-2 " not in bumped["question"].lower()
    assert make_unanswerable(item | {"question": "What is attention for?"}, corpus, names, random.Random(0)) is None
    assert make_unanswerable(item | {"question": "Why do LLMs need attention?"}, corpus + " llms", names, random.Random(0)) is None
    common = make_unanswerable(item | {"question": "What did GPT-2 learn?"}, corpus, frozenset(), random.Random(0))
    assert common and common["replaced_name"] == "GPT-2"  # not the paper's own name, but not generic either
    multi = item | {"question": "What is Matryoshka Representation Learning for?"}
    assert make_unanswerable(multi, corpus, names, random.Random(0)) is None  # no inner capital or digit
    own = make_unanswerable(multi, corpus, names, random.Random(0), own_name="Matryoshka Representation Learning")
    assert own and own["replaced_name"] == "Matryoshka Representation Learning" and own["absent_name"] in own["question"]
    titled = make_unanswerable(multi, corpus, names, random.Random(0), corpus_text="We use Matryoshka Representation Learning.")
    assert titled and titled["replaced_name"] == "Matryoshka Representation Learning"
    twice = [make_unanswerables([item, item | {"id": "G0003"}], corpus, names, 7) for _ in range(2)]
    assert twice[0] == twice[1] and len(twice[0]) == 2  # seeded: the same output every time


def test_bundled_corpus_reads_as_446_distinct_abstracts() -> None:
    abstracts = load_abstracts(gq.CORPUS)
    assert len(abstracts) == 446 and len({a.doc_id for a in abstracts}) == 446
    assert abstracts[0].source.startswith("data/abstracts/") and "Daily Papers" not in abstracts[0].text
    assert "retnet" in distinctive_names(abstracts) and "llm" not in distinctive_names(abstracts)
    rare = vocabulary(abstracts).rare or frozenset()
    assert "retnet" in rare and "attent" not in rare and "transform" not in rare


def test_prompt_sections_and_truncation() -> None:
    sections = gq.load_sections()
    assert "{abstract}" in sections["user"] and "{task}" in sections["user"] and "{name}" in sections["direct_named"]
    cut = gq.truncate(ABSTRACT, 120)
    assert cut.endswith(".") and len(cut) <= 120 and ABSTRACT.startswith(cut)


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    missing = [i for i, p in local.model_parts().items() if p is None]
    if not local._xllamacpp_importable() or missing:
        reason = f"the `local` extra is not installed: {local.INSTALL_HINT}"
        print(f"skipping the generator run: {reason}")
        pytest.skip(reason)
    path = local.ensure_model(Settings(data_dir=tmp_path_factory.mktemp("gen-model")))
    yield path
    path.unlink(missing_ok=True)


def test_generator_end_to_end_with_the_local_model(model_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "gen.jsonl"
    argv = ["--out", str(out), "--limit", "2", "--max-chars", "300", "--model", str(model_path)]
    assert gq.main(argv) == 0
    paths = gq.paths_for(out)
    kept = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    dropped = [json.loads(x) for x in paths["dropped"].read_text(encoding="utf-8").splitlines()]
    assert sorted(r["id"] for r in kept + dropped) == ["G0001", "G0002"]
    abstracts = load_abstracts(gq.CORPUS)
    for r in kept:
        a = abstracts[int(r["id"][1:]) - 1]
        assert set(r) >= DEV_KEYS and r["split"] == "generated" and r["doc_id"] == a.doc_id
        assert r["type"] == {"direct": "lookup", "reworded": "paraphrase"}[r["style"]]
        assert r["gold_anchors"][0] in a.text and r["key_points"][0] in a.text
    assert all(d["drop_rule"] for d in dropped)
    meta = json.loads(paths["meta"].read_text(encoding="utf-8"))
    assert meta["model_sha256"] == local.MODEL_SHA256 and meta["kept"] + sum(meta["dropped_by_rule"].values()) == 2
    assert gq.main(argv) == 0  # resumed: nothing left to do, nothing appended
    assert len(out.read_text(encoding="utf-8").splitlines()) == len(kept)
