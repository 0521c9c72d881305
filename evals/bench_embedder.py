"""The product's MiniLM against a bare onnxruntime session over the same texts (issue #41).

    python -m evals.bench_embedder [--abstracts 120] [--rounds 3]

One process, the variants alternated round by round (a machine whose load drifts weighs on all
alike). ``product`` is ``OfflineMiniLM`` as ingest calls it (length-sorted batches of ``EMBED_BATCH``,
padded to the batch's longest). The others run a session of the same model file
directly, changing one thing each: onnxruntime's default session options, the thread count,
the batch size, unsorted input. Every variant gets the same texts (the first ``--abstracts``
distinct bundled abstracts); prints seconds per variant and the ratio to ``product``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from assistant.settings import DEFAULT_CORPUS


def _session(folder: Path, threads: int | None, tuned: bool, arena: bool = True) -> Any:
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    if tuned:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.enable_cpu_mem_arena = arena
    if threads:
        so.intra_op_num_threads = threads
    return ort.InferenceSession(str(folder / "onnx" / "model.onnx"), providers=["CPUExecutionProvider"], sess_options=so)


def _bare(session: Any, tokenizer: Any, texts: list[str], batch: int, sort: bool) -> np.ndarray:
    order = sorted(range(len(texts)), key=lambda i: len(texts[i])) if sort else list(range(len(texts)))
    out = np.empty((len(texts), 384), dtype=np.float32)
    for b in range(0, len(order), batch):
        idx = order[b : b + batch]
        enc = tokenizer.encode_batch([texts[i] for i in idx])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
        out[idx] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out


def main(argv: list[str] | None = None) -> int:
    from assistant.store.embeddings import OfflineMiniLM
    from ingest.loaders import iter_files, load_file
    from ingest.normalize import normalize_text

    ap = argparse.ArgumentParser(prog="python -m evals.bench_embedder")
    ap.add_argument("--abstracts", type=int, default=120)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--models-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    texts = list(dict.fromkeys(normalize_text(r.text) for f in iter_files([DEFAULT_CORPUS]) for r in load_file(f)[0]))
    texts = texts[: args.abstracts]
    product = OfflineMiniLM((args.models_dir or Path(tempfile.mkdtemp(prefix="bench-embedder-"))) / "minilm")
    folder, tok = Path(product.DOWNLOAD_PATH), product.tokenizer
    default, tuned2, tuned1 = _session(folder, None, False), _session(folder, 2, True), _session(folder, 1, True)
    no_arena = _session(folder, 2, True, arena=False)
    variants: dict[str, Any] = {
        "product (OfflineMiniLM)": lambda: product(texts),
        "bare session, onnxruntime defaults, batch 32, sorted": lambda: _bare(default, tok, texts, 32, True),
        "bare session, product options, 2 threads, batch 32, sorted": lambda: _bare(tuned2, tok, texts, 32, True),
        "bare session, product options, 1 thread, batch 32, sorted": lambda: _bare(tuned1, tok, texts, 32, True),
        "bare session, product options, batch 8, sorted": lambda: _bare(tuned2, tok, texts, 8, True),
        "bare session, no memory arena, batch 8, sorted": lambda: _bare(no_arena, tok, texts, 8, True),
        "bare session, no memory arena, batch 32, sorted": lambda: _bare(no_arena, tok, texts, 32, True),
        "bare session, product options, batch 16, sorted": lambda: _bare(tuned2, tok, texts, 16, True),
        "bare session, product options, batch 64, sorted": lambda: _bare(tuned2, tok, texts, 64, True),
        "bare session, product options, batch 128, sorted": lambda: _bare(tuned2, tok, texts, 128, True),
        "bare session, product options, batch 32, unsorted": lambda: _bare(tuned2, tok, texts, 32, False),
    }
    ref = np.asarray(product(texts), dtype=np.float32)  # warm-up, and the vectors all must match
    seconds = dict.fromkeys(variants, 0.0)
    for _ in range(args.rounds):
        for name, run in variants.items():
            t = time.perf_counter()
            got = np.asarray(run(), dtype=np.float32)
            seconds[name] += time.perf_counter() - t
            assert float(np.abs(got - ref).max()) < 1e-3, name
    base = seconds["product (OfflineMiniLM)"]
    print(json.dumps({"abstracts": len(texts), "rounds": args.rounds, "load": os.getloadavg(),
                      "seconds": {k: round(v, 2) for k, v in seconds.items()},
                      "ratio_to_product": {k: round(v / base, 3) for k, v in seconds.items()}}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
