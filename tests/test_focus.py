"""The asked-for item of a question (assistant/verify/focus.py) and the caveat of an answer that does not
state it ("The abstracts found describe X but do not state the N asked for")."""

from __future__ import annotations

from typing import Any

import pytest

from assistant.compose.answer_text import absence
from assistant.core import Assistant
from assistant.settings import CaveatSettings
from assistant.verify.focus import focus, stated, unstated_focus


@pytest.mark.parametrize(("question", "phrase"), [
    ("What is the license of the LASP-2 code?", "license"),  # the N of X
    ("What's the license of LASP-2?", "license"),  # the contraction is the copula
    ("What is LASP-2's license?", "license"),  # X's N
    ("Under what software license is TabPFN released?", "software license"),  # a fronted preposition
    ("On which datasets was Memformer evaluated?", "datasets"),
    ("What FID score does Sana-0.6B achieve?", "FID score"),  # what N + auxiliary
    ("Which GPU model were the speedups measured on?", "GPU model"),  # stops at the generic head
    ("Which hardware accelerator does it target?", "hardware accelerator"),  # "hardware" premodifies
    ("What type of attention mechanism does it use?", "attention mechanism"),  # the category frame
    ("How many parameters does the largest RetNet model have?", "parameters"),
    ("And what perplexity does it reach?", "perplexity"),  # a follow-up's opener
])
def test_the_focus_is_the_noun_phrase_the_wh_word_asks_for(question: str, phrase: str) -> None:
    f = focus(question)
    assert f is not None and f.phrase == phrase


@pytest.mark.parametrize("question", [
    "What is Ring Attention?",  # what X is: any sentence about X answers
    "How does Ring Attention scale context length?",  # a manner
    "What problem does Ring Attention solve?",  # a discourse noun
    "What new method does the paper propose?",  # an evaluative adjective and a discourse noun
    "What is the main idea of Mamba?",
    "Which abstracts mention LoRA?",  # a document noun, then the verb of a subject question
    "What makes FlashAttention IO-aware?",  # the wh-word is the subject
    "What happens to the loss when the batch grows?",
    "How much faster is FlashAttention than standard attention?",  # a degree: the number is checked elsewhere
    "What type of model does it use?",  # the top of the taxonomy: an instance is named, not the kind
    "Does Mamba use attention?",  # no wh-word
    "On what hardware does it run 128K-context inference?",  # a collective mass noun: a member ("a 4090 GPU") answers
    "What software do they release?",
])
def test_generic_or_absent_focus_is_not_checked(question: str) -> None:
    assert focus(question) is None


def test_stated_reads_the_focus_words_stemmed() -> None:
    f = focus("On which datasets was Memformer evaluated?")
    assert f is not None
    assert stated(f, "Memformer is evaluated on the Wikitext dataset.")
    assert not stated(f, "Memformer reduces memory by 8.1x.")
    assert unstated_focus("What is the license of the LASP-2 code?", "LASP-2 is 15.2% faster.") is not None
    assert unstated_focus("What is the license of the LASP-2 code?", "LASP-2 is released under an MIT license.") is None


def test_a_prefixed_word_states_its_base() -> None:
    # session 17, H (#19): English words are right-headed; "pretraining" is a training, "finetuning" a
    # tuning, written closed or hyphenated. A negating prefix or a fragment states nothing
    q = "What training of the projectors is needed for it to work?"
    assert unstated_focus(q, "We find that pretraining projectors with language modeling objectives enables it.") is None
    assert unstated_focus(q, "We find that pre-training projectors enables it.") is None
    assert unstated_focus(q, "Projectors map vectors into the embedding space.") is not None
    assert unstated_focus("What tuning does the method need?", "Finetuning on the task helps.") is None
    assert unstated_focus("What license is the code released under?", "The code is released at github.") is not None
    assert unstated_focus("What supervision does it need?", "It trains with an unsupervised objective.") is not None


def test_an_answered_question_whose_item_is_not_stated_says_so(corpus: Assistant) -> None:
    # LASP-2's abstract states its speed and design, not a licence: the answer shows its closest
    # sentences under the caveat, never as a plain answer (fails without the check: no caveat)
    answer = corpus.ask("What is the license of the LASP-2 code?")
    assert not answer.refused and answer.citations
    assert answer.caveat is not None and answer.caveat.startswith("The abstracts found describe LASP-2 but do not state the license")
    assert answer.text.startswith(answer.caveat) and "[1]" in answer.text
    off = Assistant(settings=corpus.settings.model_copy(update={"caveat": CaveatSettings(asked_item=False)}),
                    embedder=corpus.embedder)
    assert off.ask("What is the license of the LASP-2 code?").caveat is None  # the check is what says it


def test_a_stated_focus_is_answered_plainly(corpus: Assistant) -> None:
    answer = corpus.ask("What mIoU does SETR obtain on ADE20K?")  # SETR's abstract states its mIoU
    assert not answer.refused and answer.caveat is None and "mIoU" in answer.text


@pytest.mark.parametrize(("sentence", "item"), [
    ("The abstract does not specify the license of the LASP-2 code [1].", "the license of the LASP-2 code"),
    ("The license is not mentioned in the abstract.", "the license"),
    ("The provided abstracts do not mention how many GPUs were used.", "how many GPUs were used"),
    ("There is no information about the training data in the abstract [2].", "the training data"),
    ("The abstract doesn't state the batch size.", "the batch size"),
])
def test_a_statement_of_the_sources_silence_names_what_is_missing(sentence: str, item: str) -> None:
    assert absence(sentence) == item


@pytest.mark.parametrize("sentence", ["LASP-2 does not use attention.", "Memformer is not evaluated on images.",
                                      "LASP-2 achieves training speed improvements of 15.2% over LASP [1]."])
def test_a_claim_about_a_method_is_no_statement_of_silence(sentence: str) -> None:
    assert absence(sentence) is None


QUOTE = "LASP-2 rethinks the minimal communication requirement for SP on linear attention layers, reorganizes the whole communication-computation workflow of LASP."


def test_the_models_does_not_specify_becomes_the_caveat(corpus: Assistant, mock_model: Any) -> None:
    # the verifier drops "The abstract does not say ..." (no source supports a statement of
    # silence); the caveat keeps the model's reading (fails without it: a plain answer, or one
    # that does not name what is missing)
    question = "Is LASP-2 released as open source?"  # no wh-focus: only the model's sentence says it
    mock_model.enqueue(f"{QUOTE} [1] The abstract does not say whether LASP-2 is open source [1].")
    answer = corpus.ask(question, backend="mock")
    assert not answer.refused and answer.citations and any(not s.supported for s in answer.sentences)
    assert answer.caveat == ("The abstracts found describe LASP-2 but do not state whether LASP-2 is open source; "
                             "the closest statements are:")
    assert answer.text.startswith(answer.caveat) and "[1]" in answer.text


def test_the_models_silence_survives_the_fallback_to_extraction(corpus: Assistant, mock_model: Any) -> None:
    # its only sentence is dropped, so the answer is extracted; the caveat still says what it read
    mock_model.enqueue("The abstract does not say whether LASP-2 is open source [1].")
    answer = corpus.ask("Is LASP-2 released as open source?", backend="mock")
    assert answer.fallback_from == "mock" and answer.citations
    assert answer.caveat is not None and "do not state whether LASP-2 is open source" in answer.caveat
    assert any(not s.supported and "does not say" in s.text for s in answer.sentences)  # still shown as dropped


def test_the_caveat_says_what_is_described_only_when_the_sentences_name_it() -> None:
    from assistant.compose.answer_text import focus_caveat

    assert focus_caveat("license", ["LASP-2"]).startswith("The abstracts found describe LASP-2 but do not state the license")
    # a neighbour's sentences that never name the question's subject: no claim that they describe it
    assert focus_caveat("new benchmark", []).startswith("The abstracts found do not state the new benchmark asked for")
    assert "the number of GPUs asked for" in focus_caveat("GPUs", ["HyperCLOVA"], quantity=True)


# --- which caveat it is (Answer.caveat_kind) ---------------------------------------------------------
@pytest.mark.parametrize(("question", "kind", "refused"), [
    ("What is the license of the LASP-2 code?", "asked_item", False),  # LASP-2's abstract states no licence
    ("How many layers does Ring Attention use?", "asked_item", False),  # its abstract states no layer count
    ("How much faster is FlashAttention-3 than LASP-2?", "missing_name", False),  # no abstract names FlashAttention-3
    ("What accuracy does Zorblax-9 reach on the Quokka benchmark?", "missing_name", True),  # nothing on the topic either
    ("How do hospitals schedule nurses?", "weak_match", False),  # the closest: a learning-rate schedule
    ("What mIoU does SETR obtain on ADE20K?", None, False),  # answered plainly: no caveat, no kind
])
def test_the_answer_says_which_caveat_it_carries(corpus: Assistant, question: str, kind: str | None, refused: bool) -> None:
    # fails when the engine leaves the kind unset or names another caveat than the one its text is
    from assistant.types import CAVEAT_KINDS

    answer = corpus.ask(question)
    assert answer.refused is refused
    assert answer.caveat_kind == kind
    assert (answer.caveat is None) is (kind is None)
    assert kind is None or kind in CAVEAT_KINDS


def test_the_models_kinds_of_caveat(corpus: Assistant, mock_model: Any) -> None:
    mock_model.enqueue(f"{QUOTE} [1] The abstract does not say whether LASP-2 is open source [1].")
    assert corpus.ask("Is LASP-2 released as open source?", backend="mock").caveat_kind == "model_absence"
    mock_model.enqueue("NOT IN SOURCES")
    declined = corpus.ask("What does LASP-2 reorganize?", backend="mock")
    assert declined.caveat is not None and declined.caveat_kind == "model_declined"


def test_ask_json_carries_the_caveat_kind(corpus_dir: Any) -> None:
    import json
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "assistant.cli", "ask", "What is the license of the LASP-2 code?", "--json",
                          "--backend", "extractive", "--data-dir", str(corpus_dir)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["caveat_kind"] == "asked_item" and data["caveat"].startswith("The abstracts found describe LASP-2")


def test_a_figure_the_abstract_states_is_answered_plainly(corpus: Assistant) -> None:
    # "how fast" is stated by the answering sentence's percentage: a plain answer, no caveat on a right answer
    fast = corpus.ask("How fast is LASP-2?")
    assert fast.caveat is None and "15.2%" in fast.text


@pytest.mark.parametrize(("question", "said", "is_stated"), [
    ("Which video platform were the clips taken from?", "We train on video clips.", False),  # a modifier alone
    ("Which video platform were the clips taken from?", "Clips come from the YouTube platform.", True),
    ("Which video platform's clips was the detector trained on?", "We train on video clips.", False),  # the possessor
    ("What learning rate did the runs use?", "The runs use a learning schedule.", False),
    ("What FID score does Sana-0.6B achieve?", "Sana-0.6B achieves an FID of 5.8.", True),  # a name modifier states it
    ("Under what software license is TabPFN released?", "TabPFN is released under an MIT license.", True),  # the head
    ("Which GPU model were the speedups measured on?", "Speedups are measured on A100 GPUs.", True),  # a generic head
])
def test_a_compound_is_stated_by_its_head(question: str, said: str, is_stated: bool) -> None:
    assert (unstated_focus(question, said) is None) is is_stated


def test_a_compound_whose_head_is_not_stated_is_caveated(corpus: Assistant) -> None:
    # ConTra's abstract writes "video clip" but no platform: the item is not stated (fails before:
    # "video" alone stated the "video platform", a plain answer)
    answer = corpus.ask("Which video platform were the ConTra clips taken from?")
    assert not answer.refused and answer.caveat_kind == "asked_item"
    assert answer.caveat is not None and "do not state the video platform asked for" in answer.caveat


def test_the_nouns_a_caveat_may_name() -> None:
    from assistant.verify.focus import nominal

    assert nominal("Can you let every hospital teach nurses to schedule shifts?") == {"nurses"}
    assert nominal("How long does it take to train the joint clustering model on ImageNet?") == {"model", "ImageNet"}
    assert "accuracy" in nominal("What accuracy does grokking reach on quokkas?")


def test_the_weak_match_caveat_names_no_verbs_or_quantifiers(corpus: Assistant) -> None:
    # before, the caveat said the statements 'do not mention "let", "every" or "teach"' and
    # '"long" or "SETR"': words no source could be missing; now only nouns and names are named
    from assistant.compose.extractive import unstated
    from assistant.verify.focus import nominal

    question = "Can you let every hospital teach nurses to schedule shifts?"
    answer = corpus.ask(question)
    assert answer.caveat is not None and answer.caveat_kind == "weak_match", question
    for word in ("let", "every", "teach"):
        assert f'"{word}"' not in answer.caveat, (question, answer.caveat)
    # the words the caveat would name, against a fixed statement (the answer above depends on what
    # the shared corpus ranks; this does not): nouns and names only
    question, said = "How long does SETR take to train?", "SETR treats semantic segmentation as a sequence prediction task."
    named = unstated(question, said, corpus.engine.idf(), nouns=nominal(question))
    assert not {"long", "take", "does"} & {w.lower() for w in named}, named
    assert {"long", "take"} & {w.lower() for w in unstated(question, said, corpus.engine.idf())}  # without nouns=: named before


# --- session 11, C3 (#19): a count, a value, an identification, the bearer -----------------------------
@pytest.mark.parametrize(("question", "said", "is_stated"), [
    # a count stands before the noun it counts; another noun's number is no count of it
    ("How many patent documents was PaECTER fine-tuned on?",
     "PaECTER is compared against 25 irrelevant patents. We embed patent documents.", False),
    ("How many patent documents was PaECTER fine-tuned on?", "We fine-tune on 300,000 English patent documents.", True),
    ("How many layers does it have?", "It is a 12-layer transformer.", True),  # the count in a compound
    ("How many checkpoints were fine-tuned?", "We fine-tune 3B and 7B OpenLLaMA checkpoints.", True),
    ("How many GPUs does it need?", "It runs on a single GPU.", True),  # the unit singular
    ("How many languages does it cover?", "It covers 100+ languages.", True),
    # a noun of measure is stated with its value
    ("What learning rate did the Atari runs use?", "The effective learning rate remains constant throughout training.", False),
    ("What learning rate did the Atari runs use?", "All Atari runs use a learning rate of 3e-4.", True),
    ("What batch size does it train with?", "It trains with a batch size of 256.", True),
    # "which N" is answered by a name or a description of the instance beside the kind
    ("Which five news sites did the study collect its data from?", "We collect data from five news sites.", False),
    ("Which two attention maps does Diff Transformer subtract?", "It subtracts two separate softmax attention maps.", True),
    ("Which video platform's clips was the detector trained on?", "We use clips from the YouTube platform.", True),
    # "what N" (no choice among named instances) is not held to a name: a right answer stays plain
    ("What loss function does it minimise?", "It minimises a contrastive loss function.", True),
])
def test_a_count_a_value_and_an_identification_are_more_than_their_word(question: str, said: str, is_stated: bool) -> None:
    assert (unstated_focus(question, said) is None) is is_stated


def test_the_focus_is_stated_of_its_bearer() -> None:
    # another work's FID is not Sana-0.6B's (fails without the parts: "FID of 6.16" stated it)
    question = "What FID score does Sana-0.6B achieve?"
    sana, fluid = "Sana-0.6B is 20 times smaller than Flux-12B.", "Fluid 10.5B achieves a zero-shot FID of 6.16."
    assert unstated_focus(question, f"{sana} {fluid}", [sana, fluid]) is not None
    # the same abstract's other sentence ("our model") states it of the work the abstract is about
    ours = "Our model achieves an FID of 5.8."
    assert unstated_focus(question, f"{sana} {ours}", [f"{sana} {ours}"]) is None
    # no source names the bearer: the sentences are judged as before (missing_name speaks of it)
    assert unstated_focus(question, fluid, [fluid]) is None


def test_a_count_of_another_noun_is_caveated_and_a_stated_count_is_not(corpus: Assistant) -> None:
    # PaECTER's abstract counts irrelevant patents, not the documents it was fine-tuned on (fails
    # before: any number stated the count, a plain answer)
    answer = corpus.ask("How many patent documents was PaECTER fine-tuned on?")
    assert not answer.refused and answer.caveat_kind == "asked_item"
    assert answer.caveat is not None and "do not state the number of patent documents asked for" in answer.caveat
    # a count written before its noun is a right answer: no caveat
    stated_count = corpus.ask("How many GPUs does LASP-2 scale across?")
    assert stated_count.caveat is None and "64 GPUs" in stated_count.text


def test_the_caveat_does_not_say_the_sentences_describe_the_item_they_leave_unstated() -> None:
    from assistant.compose.answer_text import focus_caveat

    # was "describe FID and Sana-0.6B but do not state the FID score": the item's own name is no subject
    assert focus_caveat("FID score", ["FID", "Sana-0.6B"]).startswith("The abstracts found describe Sana-0.6B but do not")
    assert focus_caveat("Hugging Face models", ["Hugging Face"], quantity=True).startswith("The abstracts found do not state")
