"""The sentence cross-encoder the shipped scorer reads (assistant/models/sentence_ce.onnx)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant import Assistant
from assistant.evidence import scorer as scorer_mod
from assistant.store.cross_encoder import load

ROOT = Path(__file__).resolve().parents[1]
ABSTRACT = (ROOT / "data" / "abstracts" / "003_0f338ae888bb6a20.txt").read_text(encoding="utf-8")


def _sentence(start: str) -> str:
    i = ABSTRACT.index(start)
    return ABSTRACT[i:ABSTRACT.index(".", i) + 1]


def test_shipped_scorer_reads_the_cross_encoder_it_names() -> None:
    meta = json.loads((ROOT / "assistant" / "models" / "sentence_scorer.json").read_text())
    assert meta["features"][-1] == "ce" and meta["cross_encoder"] == "sentence_ce.onnx"
    s = scorer_mod.scorer()
    assert s.cross_encoder is not None and len(s.coef) == len(meta["features"])


def test_the_answering_sentence_outscores_background_of_the_same_abstract() -> None:
    ce = scorer_mod.scorer().cross_encoder
    assert ce is not None
    question = "What is VAT's latent space mapped to before quantization?"
    answering = _sentence("This latent space is then mapped")
    background = [_sentence("Autoregressive transformers have revolutionized"), _sentence("During the decoding phase")]
    logits = ce.logits([(question, answering)] + [(question, b) for b in background])
    assert logits[0] > max(logits[1:])
    probs = ce.probs([(question, answering)])
    assert 0.0 < float(probs[0]) <= 1.0


def test_a_missing_model_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load(str(tmp_path / "absent.onnx")) is None
    models = tmp_path / "assistant" / "models"
    models.mkdir(parents=True)
    meta = json.loads((ROOT / "assistant" / "models" / "sentence_scorer.json").read_text())
    (models / "sentence_scorer.json").write_text(json.dumps({**meta, "cross_encoder": "gone.onnx"}))

    class Files:
        def files(self, _: str) -> Path:
            return tmp_path / "assistant"

    monkeypatch.setattr(scorer_mod, "resources", Files())
    scorer_mod.scorer.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="gone.onnx"):
            scorer_mod.scorer()
    finally:
        scorer_mod.scorer.cache_clear()


def test_a_pairs_logit_does_not_depend_on_the_pairs_read_beside_it() -> None:
    """The int8 model quantises a batch's activations with one scale, so padding a short pair to a
    long neighbour moved its logit; the runtime reads each pair on its own."""
    ce = scorer_mod.scorer().cross_encoder
    assert ce is not None
    question = "What is VAT's latent space mapped to before quantization?"
    answering = _sentence("This latent space is then mapped")
    alone = ce.logits([(question, answering)])
    beside_long = ce.logits([(question, answering), (question, ABSTRACT)])
    beside_short = ce.logits([(question, "Yes."), (question, answering)])
    assert float(alone[0]) == float(beside_long[0]) == float(beside_short[1])


class Counting:
    """The shipped cross-encoder, counting the pairs it reads."""

    def __init__(self, inner: object) -> None:
        self.inner, self.read = inner, 0

    def logits(self, pairs: list[tuple[str, str]]) -> object:
        self.read += len(pairs)
        return self.inner.logits(pairs)  # type: ignore[attr-defined]


def test_the_cascade_reads_only_the_logistics_first_sentences_and_shows_what_reading_all_shows(corpus: Assistant) -> None:
    import dataclasses

    from assistant.evidence.scoring import score_evidence

    shipped = scorer_mod.scorer()
    assert shipped.prefilter is not None and 0 < shipped.reads
    question = "How does Ring Attention scale context length?"
    hits = corpus.search(question, k=5)
    evidence = score_evidence(question, [h.text for h in hits[:3]], corpus.engine.cache, corpus.engine.idf())
    assert len(evidence.sentences) > shipped.reads
    counted = Counting(shipped.cross_encoder)
    cascade = dataclasses.replace(shipped, cross_encoder=counted)
    every = dataclasses.replace(shipped, reads=0)
    p_cascade, p_every = cascade.probabilities(evidence), every.probabilities(evidence)
    assert counted.read == shipped.reads
    read = p_cascade > 0
    assert int(read.sum()) == shipped.reads
    assert p_cascade[read] == pytest.approx(p_every[read], abs=1e-6)  # each pair read alone: the same logit
    assert [s.text for s in cascade.pick(evidence, p_cascade)] == [s.text for s in every.pick(evidence, p_every)]
    assert "Ring Attention" in hits[0].label


def test_the_pick_designs_pool_is_the_likeliest_sentences_first(corpus: Assistant) -> None:
    """The "pick" design's candidates: the sentences the cascade read, by their probability, then the
    rest as the model without the cross-encoder ranks them; what the extractive answer shows is among them."""
    from assistant.evidence.scoring import score_evidence

    shipped = scorer_mod.scorer()
    question = "How does Ring Attention scale context length?"
    hits = corpus.search(question, k=5)
    evidence = score_evidence(question, [h.text for h in hits[:3]], corpus.engine.cache, corpus.engine.idf())
    pool = shipped.ranked(evidence, 6)
    assert len(pool) == 6 and len({(s.doc_index, s.start) for s in pool}) == 6
    p = shipped.probabilities(evidence)
    prob = {(s.doc_index, s.start): float(q) for s, q in zip(evidence.sentences, p, strict=True)}
    read = [prob[(s.doc_index, s.start)] for s in pool[: shipped.reads]]
    assert all(v > 0 for v in read) and read == sorted(read, reverse=True)
    assert all(prob[(s.doc_index, s.start)] == 0 for s in pool[shipped.reads:])
    assert prob[(pool[0].doc_index, pool[0].start)] == max(prob.values())
    shown = {(s.doc_index, s.start) for s in shipped.pick(evidence, p)}  # what the extractive answer shows
    assert shown <= {(s.doc_index, s.start) for s in pool[: shipped.reads]}
