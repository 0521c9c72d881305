"""The support cross-encoder: all-MiniLM-L6-v2 fine-tuned on the labelled claims to read a claim
together with the cited abstract's best sentences for it and give the probability that they state
it. Trained by ``make train`` (``evals/train_support_ce.py``, torch in the training environment
only), written to ``assistant/models/support_ce.onnx`` (dynamic int8) and run here with
onnxruntime and the encoder's own tokenizer (``tokenizers``), both already needed by the
embedder. Not shipped: as a feature of the support model it moved the cross-validated decision
by about two standard deviations but dropped a plain paraphrase and cost ~11 ms a sentence
(docs/measurements.md, #40); a support model fitted with ``ce`` reads it. Absent model file:
``load`` gives None.
"""

from __future__ import annotations

from pathlib import Path

from assistant.store.cross_encoder import CrossEncoder
from assistant.store.cross_encoder import load as _load

MODEL_PATH = Path(__file__).resolve().parents[1] / "models" / "support_ce.onnx"

__all__ = ["MODEL_PATH", "CrossEncoder", "load"]


def load(path: str = str(MODEL_PATH)) -> CrossEncoder | None:
    return _load(path)
