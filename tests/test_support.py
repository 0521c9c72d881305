"""The learned support check (assistant/verify/support.py): shipped weights read with numpy only, quotes
pass, and a server that mixes up its sources gets no swapped sentence shown as supported through
the real ``openai`` client (evals/fake_openai.py's ``mixing``; figures: ``python -m evals.mixing``)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from assistant import Assistant
from assistant.evidence.scoring import SentenceCache
from assistant.settings import VerifySettings
from assistant.store.idf import Idf
from assistant.verify import support
from assistant.verify.citations import Verifier
from evals.mixing import SWAPPED, judge

# lookup questions whose mixed answers the verifier without the learned check showed with a
# renamed sentence (B's, a name of B's replaced by one of A's) as supported
# (python -m evals.mixing --no-learned: 3 of the 120 swapped sentences of 150 questions)
MIXED_QUESTIONS = [
    "What does Infini-attention combine inside a single Transformer block?",
    "How does the introduced stochastic activation strategy work in large language models?",
    "What is Decision-Pretrained Transformer, and how does it work?",
]


def test_the_product_reads_the_weights_without_scikit_learn() -> None:
    code = ("import sys, assistant.verify.citations, assistant.verify.support as s; m = s.load(); "
            "assert m is not None and m.weights.size; assert 'sklearn' not in sys.modules, 'sklearn imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_model_probabilities_are_in_range_and_use_every_feature() -> None:
    model = support.load()
    assert model is not None
    assert set(model.features) <= {*support.FEATURES, "ce"}
    x = np.zeros((1, len(support.FEATURES) + model.ce + (384 if model.product else 0)), np.float32)
    p = model.prob(x)
    assert 0.0 <= float(p[0]) <= 1.0


def test_a_verbatim_quote_of_the_cited_abstract_passes(corpus: Assistant) -> None:
    docs = list(corpus.retriever.docs().values())[:3]
    texts = [d.original for d in docs]
    cache = SentenceCache(corpus.embedder)
    v = Verifier(texts, cache, Idf(texts), VerifySettings())
    first = texts[1][v.sources[1].sentences[1][0]: v.sources[1].sentences[1][1]]
    out = v.verify(f"{first} [2]")
    assert out.sentences[0].supported, out.sentences[0].reason


def test_the_learned_check_drops_another_abstracts_sentence_with_its_reason(corpus: Assistant) -> None:
    """A sentence of source 2, cited to source 1 while source 2 is not shown: dropped, with why."""
    docs = list(corpus.retriever.docs().values())
    a, b = docs[0].original, docs[1].original
    cache = SentenceCache(corpus.embedder)
    vb = Verifier([b], cache, Idf([a, b]))
    s, e = vb.sources[0].sentences[2]
    v = Verifier([a], cache, Idf([a, b]))
    out = v.verify(f"{b[s:e]} [1]")
    assert not out.sentences[0].supported
    assert out.sentences[0].reason


def _mixed_rows(corpus: Assistant, fake: Any, learned: bool) -> list[dict[str, Any]]:
    fake.mixing = True
    assistant = Assistant(data_dir=corpus.settings.data_dir, backend="openai", openai_base_url=fake.base_url,
                          openai_api_key="k", openai_max_retries=0, verify={"learned": learned})
    assistant.embedder, assistant.retriever = corpus.embedder, corpus.retriever
    rows = []
    for q in MIXED_QUESTIONS:
        before = len(fake.mixed)
        d = assistant.ask(q).to_dict()
        assert len(fake.mixed) == before + 1, q
        rows += judge(fake.mixed[-1], d["sentences"], d["citations"])
    return rows


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "#40 open, measured (python -m evals.mixing --limit 150: 3 of 117 swapped sentences shown wrongly): B's sentence "
    "with one of A's names put in ('Infini-attention encoders ...' for B's 'Common Transformer encoders ...'; an "
    "acronym in brackets in the other two) is re-pointed to B, whose abstract mentions that name, and passes the "
    "learned check"))
def test_no_swapped_sentence_of_a_mixing_server_is_shown_as_supported(corpus: Assistant, fake_openai: Any) -> None:
    rows = _mixed_rows(corpus, fake_openai, learned=True)
    swapped = [r for r in rows if r["kind"] in SWAPPED]
    assert swapped
    assert not [r["text"] for r in swapped if r["wrong"]]
    right = [r for r in rows if r["kind"] == "right"]
    assert sum(r["as_a"] for r in right) >= len(right) - 1



def test_a_support_model_reading_the_cross_encoder_takes_its_column_and_needs_its_file(tmp_path: Any) -> None:
    """The cross-encoder (``make train``) is not shipped; a support model fitted with its logit reads
    the column after ``FEATURES``, and without the ONNX file there is no cross-encoder to read."""
    from assistant.verify import support_ce

    n = len(support.FEATURES)
    model = support.SupportModel({"features": ["cos1", "ce"], "mean": [0, 0], "scale": [1, 1], "weights": [0, 1],
                                  "bias": 0, "threshold": 0.5})
    x = np.zeros((1, n + 1 + 384), np.float32)
    x[0, n] = 3.0
    assert model.ce and model.select(x).tolist() == [[0.0, 3.0]]
    assert model.passes(x)[0] and not model.passes(-x)[0]
    assert support_ce.load(str(tmp_path / "support_ce.onnx")) is None
