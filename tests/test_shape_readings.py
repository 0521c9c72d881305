"""Three readings of the shape detector (#21, session 15): degree follow-ups on a list, nouns for one
publication, and "what X works best" with a singular head (questions made up for these tests)."""

from __future__ import annotations

import pytest

from assistant.question.shape import COMPARE, FACT, LIST, OVERVIEW, detect


@pytest.mark.parametrize(("question", "topic", "predicate"), [
    ("How much faster are they?", "faster", "are faster"),
    ("How much better are these than softmax attention?", "better than softmax attention", "are better than softmax attention"),
    ("How big are their speed-ups?", "speed-ups", "have speed-ups"),  # the degree asked is no part of the filter
    ("How much smaller are their embeddings?", "smaller embeddings", "have smaller embeddings"),  # a comparative is
    ("How large are the gains they report?", "gains", "report gains"),
    ("How much memory do they save?", "memory", "save memory"),
    ("By how much do they beat boosted trees?", "boosted trees", "beat boosted trees"),
])
def test_a_degree_question_about_a_lists_members_is_a_follow_up(question: str, topic: str, predicate: str) -> None:
    shape = detect(question, previous_was_list=True)
    assert (shape.kind, shape.follow_up, shape.topic, shape.predicate) == (LIST, True, topic, predicate)


@pytest.mark.parametrize("question", [
    "How much faster are they?",  # no list before: "they" points at nothing listed
    "How much faster is it?",  # singular: one work
])
def test_a_degree_question_without_a_list_or_with_one_work_stays_a_fact(question: str) -> None:
    assert detect(question, previous_was_list=question.endswith("it?")).kind == FACT


@pytest.mark.parametrize("question", [
    "How do they work?",  # "how" before an auxiliary asks a manner, not a degree
    "How similar are they?",  # likeness holds between the members, not of each
    "How recent are they?",  # a work's age is its record's date, not in its abstract
    "How fast is the best of them?",  # a singular verb picks one member
    "How much faster is FlashAttention-2?",  # no anaphor: a named work's fact
])
def test_other_how_questions_after_a_list_are_no_degree_follow_up(question: str) -> None:
    assert not detect(question, previous_was_list=True).follow_up


@pytest.mark.parametrize("question", [
    "What methods are discussed in the survey on efficient transformers?",
    "Which models are evaluated in the technical report?",
    "What approaches are compared in this review?",
    "Which techniques are listed in the thesis?",
    "What methods are proposed in the dissertation?",
    "Give me an overview of the survey on graph neural networks.",  # an overview of one publication
    "Summarise the survey on diffusion models.",  # a definite publication-genre noun: an existing survey
])
def test_a_noun_for_one_publication_anchors_a_fact(question: str) -> None:
    assert detect(question).kind == FACT


@pytest.mark.parametrize(("question", "kind"), [
    ("Which papers report speed-ups on long sequences?", LIST),  # "report" after a plural is the verb
    ("Which methods that review prior work use attention?", LIST),  # "that" before a verb is a relative
    ("Give me a survey of diffusion models.", OVERVIEW),  # the indefinite asks for a digest to be written
    ("Are there any surveys on state space models?", LIST),  # the plural: works of that genre
    ("Which models in the collection report speed-ups?", LIST),  # a collection noun is no genre's modifier
    ("What research has examined the review process?", LIST),  # a premodifier of another noun, an activity
])
def test_publication_nouns_leave_verbs_digests_and_plurals(question: str, kind: str) -> None:
    assert detect(question).kind == kind


@pytest.mark.parametrize("question", [
    "What learning rate schedule works best for pretraining?",
    "Which optimizer works best for small batches?",
    "What tokenizer works better for code?",
    "What works best for long-context retrieval?",
])
def test_a_singular_head_with_works_and_a_degree_adverb_is_one_fact(question: str) -> None:
    assert detect(question).kind == FACT


def test_works_as_a_plural_noun_still_heads_a_list() -> None:
    assert detect("Which recent works study state space models?").kind == LIST
    assert detect("What works in the collection cover pruning?").kind == LIST


# --- fact-framed follow-ups on a list (#21, session 16, helper F) ---------------------------------------
@pytest.mark.parametrize(("question", "topic", "predicate"), [
    ("Do they report speed-ups?", "speed-ups", "report speed-ups"),  # a plural anaphor as subject
    ("Are they evaluated on large benchmarks?", "large benchmarks", "evaluated on large benchmarks"),
    ("Do these work on audio?", "audio", "work on audio"),  # "these" before a bare verb: the pronoun
    ("Do those models release weights?", "weights", "release weights"),  # a demonstrative with a methods noun
    ("Have they been tested on robots?", "robots", "tested on robots"),  # the perfect passive: "been" is no filter
    ("Do they all use graphs?", "graphs", "use graphs"),  # a floating quantifier
    ("Can they run on phones?", "phones", "run on phones"),  # a modal agrees with the plural too
    ("Does one of them release code?", "code", "release code"),  # "one of them": is there one that does
    ("Any that beat random forests?", "random forests", "that beat random forests"),  # "any" eliding "of them"
    ("Any with released code?", "released code", "with released code"),
    ("Are there any that use graphs?", "graphs", "that use graphs"),
    ("Do any use kernels?", "kernels", "use kernels"),  # "any" before a verb of what a text does
    ("Which use convolutions?", "convolutions", "use convolutions"),  # "which" alone before a plural verb
    ("Do they agree with scaling laws?", "scaling laws", "agree with scaling laws"),  # a third party: no reciprocal
])
def test_a_question_about_the_listed_set_is_a_follow_up(question: str, topic: str, predicate: str) -> None:
    shape = detect(question, previous_was_list=True)
    assert (shape.kind, shape.follow_up, shape.topic, shape.predicate) == (LIST, True, topic, predicate)


@pytest.mark.parametrize("question", [
    "Do these results hold for audio?",  # "these" determines a plural noun: another subject
    "Do transformers need positional encodings?",  # a noun subject of its own: a new fact
    "Does it work for audio?",  # singular: one work, not the set
    "Any other papers on pruning?",  # "any" before a noun: a new list
    "Any idea how rotary embeddings work?",  # "any" before a noun: an idiom, no ellipsis
    "Which study reports a speed-up?",  # "study" heads the subject (a singular verb after it)
    "Which do you recommend?",  # "which" as the object of another subject
    "And which is the fastest?",  # a superlative picks one member: a fact
    "Are these surveys?",  # no filter left once the set is named
    "Do they differ?",  # a reciprocal predicate relates the members to each other: a comparison
    "Are they similar?",
    "Do they use the same datasets?",  # collective: "the same" holds of the members together
    "Do they work?",  # a light verb names no property a text states
    "Are they any good?",  # an evaluative adjective: a judgment
    "Any that you recommend?",  # a relative whose subject is the assistant: a judgment
])
def test_other_questions_after_a_list_are_no_follow_up(question: str) -> None:
    assert not detect(question, previous_was_list=True).follow_up


@pytest.mark.parametrize("question", ["Do they report speed-ups?", "Any that beat random forests?", "Which use convolutions?"])
def test_an_anaphor_with_no_list_before_is_no_follow_up(question: str) -> None:
    assert not detect(question).follow_up


def test_the_fourth_holdouts_file_is_well_formed() -> None:
    import json

    from evals.data import DATASETS_DIR

    path = DATASETS_DIR / "shapes_written_holdout4.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    ids = [r["id"] for r in rows]
    assert rows and len(set(ids)) == len(ids) and all(r["shape"] in (FACT, LIST, COMPARE, OVERVIEW) for r in rows)
    assert all(r["previous"] in ids[: ids.index(r["id"])] for r in rows if r["previous"])


# --- session 17, helper F2 (#21): the listed set as an object, more of a kind, a superlative over the list ---
@pytest.mark.parametrize(("question", "topic", "predicate"), [
    ("Is dropout applied in any of them?", "dropout", "dropout applied"),
    ("Were graph networks tested by either of these papers?", "graph networks", "graph networks tested"),
    ("Has weight decay been tuned in any of those?", "weight decay", "weight decay tuned"),  # "been" is no part of it
    ("Is there code for any of them?", "code", "there code"),
    ("In which of these is distillation used?", "distillation", "distillation used"),
    ("Are transformers compared against in some of them?", "transformers", "transformers compared against"),
])
def test_the_listed_set_as_a_prepositions_object_is_a_follow_up(question: str, topic: str, predicate: str) -> None:
    shape = detect(question, previous_was_list=True)
    assert (shape.kind, shape.follow_up, shape.topic, shape.predicate) == (LIST, True, topic, predicate)


@pytest.mark.parametrize("question", [
    "Is dropout applied in any of them?",  # no list before: "them" points at nothing listed
    "Is dropout applied in any of the layers?",  # a partitive of another set: no anaphor for the list
])
def test_an_object_partitive_without_a_list_or_over_another_set_is_a_fact(question: str) -> None:
    shape = detect(question, previous_was_list="layers" in question)
    assert (shape.kind, shape.follow_up) == (FACT, False)


@pytest.mark.parametrize(("question", "topic"), [
    ("Any other papers on graph transformers?", "graph transformers"),
    ("Any more studies about data pruning?", "data pruning"),
    ("Are there more on reward models?", "reward models"),
    ("Is there anything else on protein folding?", "protein folding"),
    ("Are there others about weight averaging?", "weight averaging"),
])
def test_more_works_of_a_kind_is_a_new_list_not_a_filter(question: str, topic: str) -> None:
    for previous in (True, False):
        shape = detect(question, previous_was_list=previous)
        assert (shape.kind, shape.follow_up, shape.topic, shape.more) == (LIST, False, topic, True)


@pytest.mark.parametrize("question", [
    "Does more training data help calibration?",  # "more" before a mass noun: one fact
    "What other losses does the SimCLR paper try?",  # one named work's content
    "Is more compute always better?",
])
def test_other_and_more_in_a_single_fact_stay_a_fact(question: str) -> None:
    assert detect(question, previous_was_list=True).kind == FACT


@pytest.mark.parametrize(("question", "over"), [
    ("Which of them is cheapest?", True),  # the article dropped after a singular copula: still a superlative
    ("Which of these uses the least memory?", True),
    ("Among those, which reaches the highest accuracy?", True),
    ("Which one trains the fastest?", True),
    ("And which is the most robust?", True),  # bare "which" elides the partitive
    ("Which is the largest model in the OPT suite?", False),  # a class of its own, named
    ("What is the best optimizer for sparse models?", False),  # no partitive, no elided one
])
def test_a_superlative_over_the_listed_set_is_one_fact_from_the_listed_works(question: str, over: bool) -> None:
    shape = detect(question, previous_was_list=True)
    assert (shape.kind, shape.follow_up, shape.over_listed) == (FACT, False, over)
    assert not detect(question).over_listed  # no list before: no listed works to read


def test_the_fifth_holdouts_file_is_well_formed() -> None:
    import json

    from evals.data import DATASETS_DIR

    path = DATASETS_DIR / "shapes_written_holdout5.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    ids = [r["id"] for r in rows]
    assert rows and len(set(ids)) == len(ids) and all(r["shape"] in (FACT, LIST, COMPARE, OVERVIEW) for r in rows)
    assert all(r["previous"] in ids[: ids.index(r["id"])] for r in rows if r["previous"])
