"""Attribution: a claim is verified only against evidence about the same thing (names, numbers,
comparison direction), with the issue's Ring Attention / LASP-2 follow-up end to end: extractive,
a mock model that misattributes LASP-2's result, and the real local model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from assistant import Assistant
from assistant.settings import VerifySettings
from assistant.verify import attribution
from assistant.verify.citations import Verifier

LASP2 = ("Specifically, LASP-2 achieves training speed improvements of 15.2% over LASP and 36.6% over Ring "
         "Attention, with a sequence length of 2048K across 64 GPUs.")
MISATTRIBUTED = LASP2.replace("Specifically, LASP-2", "Ring Attention")
FIRST, FOLLOW_UP = "What is Ring Attention?", "how much faster is it than blockwise attention?"


# --- the rules on sentences ------------------------------------------------------------------------
def check(claim: str, evidence: str, source: str = "") -> str | None:
    return attribution.check(claim, source or evidence, [evidence], [])


def test_a_subject_the_source_only_compares_against_is_not_its_subject() -> None:
    why = check(MISATTRIBUTED, LASP2)
    assert why and "Ring Attention" in why and "other side" in why


def test_comparison_direction_is_kept() -> None:
    assert check("LASP achieves training speed improvements of 15.2% over LASP-2.", LASP2)
    e = "Compared to previous work LASP, LASP-2 rethinks the minimal communication requirement."
    assert check("LASP-2 rethinks the minimal communication requirement, compared to previous work LASP.", e) is None
    assert check("LASP rethinks the minimal communication requirement, compared to previous work LASP-2.", e)
    assert check("Simba is outperformed by Mamba on language tasks.", "Simba outperforms Mamba on language tasks.")
    assert check("Mamba is outperformed by Simba on language tasks.", "Simba outperforms Mamba on language tasks.") is None


def test_numbers_occur_with_their_unit_and_their_name() -> None:
    assert "15.3" in (check("LASP-2 achieves training speed improvements of 15.3% over LASP.", LASP2) or "")
    assert "Ring Attention" in (check("LASP-2 achieves training speed improvements of 36.6% over LASP.", LASP2) or "")
    assert check("LASP-2 is 36.6% faster than Ring Attention on 64 GPUs.", LASP2) is None
    assert check("It is 2.7% faster.", "It is 2.7x faster.")  # another unit is another number
    assert check("It trains 1,800 times faster.", "It trains up to 1,800+ times faster than RNNs.") is None


def test_a_name_the_source_never_mentions_fails_and_a_name_swap_is_seen() -> None:
    assert "BPT" in (check("BPT enables 2048K tokens across 64 GPUs.", LASP2) or "")
    e = "Compared to previous work LASP, LASP-2 rethinks the minimal communication requirement for SP."
    why = check("Compared to previous work LASP, Ring Attention rethinks the minimal communication requirement for SP.",
                e, e + " " + LASP2)
    assert why and "LASP-2" in why and "Ring Attention" in why


def test_paraphrases_and_quotes_pass() -> None:
    assert check("LASP-2 reaches training speed improvements of 15.2% over LASP.", LASP2) is None
    assert check("The method needs one AllGather on intermediate memory states.",
                 "In this way, only one single AllGather collective communication is needed on intermediate memory states.") is None
    assert attribution.check(LASP2, LASP2, [LASP2], [LASP2]) is None  # a verbatim quote is its source's
    e = "This yields around 2× speedup compared to FlashAttention, reaching 50-73% of the theoretical maximum FLOPs/s on A100."
    assert check("FlashAttention-2 is 2x faster than FlashAttention.", e, e + " We propose FlashAttention-2.") is None
    assert check("FlashAttention-2 reaches 73% of the maximum FLOPs/s on A100 GPUs.", e, e + " FlashAttention-2 on GPUs.") is None


def test_names_join_a_capitalised_opening_word() -> None:
    assert attribution.claim_names("Ring Attention enables long contexts.") == ["Ring Attention"]
    assert attribution.claim_names("Using GPT-4, we label data.") == ["GPT-4"]
    assert attribution.occurs("LASP", "LASP-2 is fast") is False and attribution.occurs("Ring Attention", "RingAttention")


# --- the verifier over the real abstracts ----------------------------------------------------------
@pytest.fixture(scope="module")
def assistant(corpus_dir: Path) -> Assistant:
    return Assistant(data_dir=corpus_dir, backend="extractive")


@pytest.fixture(scope="module")
def abstracts(assistant: Assistant) -> dict[str, str]:
    lasp = next(h.text for h in assistant.search("LASP-2 sequence parallelism linear attention", k=5) if "LASP-2" in h.text)
    ring = next(h.text for h in assistant.search("Ring Attention blockwise devices", k=5)
                if "We present a distinct approach, Ring Attention" in h.text)
    return {"lasp": lasp, "ring": ring}


def test_the_misattributed_sentence_is_dropped_with_its_reason(assistant: Assistant, abstracts: dict[str, str]) -> None:
    sources = [abstracts["lasp"], abstracts["ring"]]
    engine = assistant.engine
    result = Verifier(sources, engine.cache, engine.idf()).verify(f"{MISATTRIBUTED} [1]")
    (s,) = result.sentences
    assert not s.supported and s.citations == [] and result.text == ""
    assert s.reason and "Ring Attention" in s.reason
    old = Verifier(sources, engine.cache, engine.idf(), VerifySettings(attribution=False)).verify(f"{MISATTRIBUTED} [1]")
    assert old.sentences[0].supported  # the word-only check (the flag off) passes it: what the issue measured


def test_the_right_claim_cited_to_the_wrong_source_is_repointed(assistant: Assistant, abstracts: dict[str, str]) -> None:
    sources = [abstracts["ring"], abstracts["lasp"]]
    engine = assistant.engine
    claim = "LASP-2 reaches training speed improvements of 15.2% over LASP across 64 GPUs."
    result = Verifier(sources, engine.cache, engine.idf(), labels=["Ring", "LASP"]).verify(f"{claim} [1]")
    (s,) = result.sentences
    assert s.supported and s.repaired and result.order == [1] and s.reason and "re-pointed" in s.reason


# --- the follow-up, end to end -------------------------------------------------------------------
def _history(first: Any) -> list[dict[str, str]]:
    return [{"role": "user", "content": FIRST}, {"role": "assistant", "content": first.text}]


def _no_misattribution(answer: Any) -> None:
    """No supported sentence whose subject is Ring Attention cites the LASP-2 abstract, and every
    supported sentence that states LASP-2's 15.2% cites LASP-2 with LASP-2 as its subject."""
    by_n = {c.n: c for c in answer.citations}
    for s in answer.sentences:
        if not s.supported:
            continue
        cited = [by_n[n].text for n in s.citations]
        subject = attribution.claim_names(s.text)[:1]
        if subject and attribution.occurs("Ring Attention", subject[0]):
            assert not any("LASP-2 achieves" in t for t in cited), s
        if "15.2" in s.text:
            assert any("LASP-2 achieves" in t for t in cited) and "LASP-2" in s.text, s


def test_follow_up_extractive(assistant: Assistant) -> None:
    first = assistant.ask(FIRST)
    answer = assistant.ask(FOLLOW_UP, history=_history(first))
    assert answer.standalone_question and "Ring Attention" in answer.standalone_question
    _no_misattribution(answer)


def _cite_lasp(messages: list[dict[str, str]]) -> str:
    text = "\n".join(m["content"] for m in messages)
    ids = re.findall(r'<source id="(\d+)">((?:(?!</source>).)*)</source>', text, re.S)
    n = next((i for i, block in ids if "LASP" in block), None)
    assert n is not None, "the LASP-2 abstract is among the sources shown"
    return f"{MISATTRIBUTED} [{n}]"


def test_follow_up_mock_model_misattributing_lasp2(assistant: Assistant, mock_model: Any) -> None:
    first = assistant.ask(FIRST)
    mock_model.enqueue(_cite_lasp)
    answer = assistant.ask(FOLLOW_UP, history=_history(first), backend="mock")
    assert mock_model.prompts, "the model was asked"
    dropped = [s for s in answer.sentences if not s.supported and "15.2%" in s.text]
    # the model's only sentence is dropped: shown with its reason, or (no sentence of the model's
    # left) the answer falls back to the quoted evidence and says so
    assert (dropped and dropped[0].reason) or (answer.fallback_from == "mock" and answer.fallback_reason), answer
    assert not any("15.2%" in s.text for s in answer.sentences if s.supported)
    _no_misattribution(answer)



def test_a_fallback_keeps_the_dropped_sentences_and_why(assistant: Assistant, mock_model: Any) -> None:
    """Every sentence of the model's answer is dropped, so the answer is extracted: the dropped
    sentence stays in ``Answer.sentences`` (unsupported, citing nothing, with its reason), in the
    JSON and on the page, after the extracted sentences."""
    from assistant.ui.render import render_answer

    first = assistant.ask(FIRST)
    mock_model.enqueue(_cite_lasp)
    answer = assistant.ask(FOLLOW_UP, history=_history(first), backend="mock")
    assert answer.fallback_from == "mock" and answer.fallback_reason and answer.citations, answer
    dropped = [s for s in answer.sentences if not s.supported]
    assert [s.text for s in dropped] == [MISATTRIBUTED], answer.sentences
    assert dropped[0].citations == [] and dropped[0].reason and "15.2%" not in answer.text
    assert answer.sentences[0].supported  # the extracted sentences come first
    assert any(s["text"] == dropped[0].text and s["reason"] for s in answer.to_dict()["sentences"])
    page = render_answer(answer)
    assert "unsupported" in page and "15.2%" in page


@pytest.mark.slow
def test_follow_up_real_local_model(corpus_dir: Path, model_settings: Any) -> None:
    from assistant.backends import local as local_backend

    local = Assistant(data_dir=corpus_dir, backend="local", local_model_path=local_backend.ensure_model(model_settings))
    first = local.ask(FIRST, backend="local")
    answer = local.ask(FOLLOW_UP, history=_history(first), backend="local")
    _no_misattribution(answer)
