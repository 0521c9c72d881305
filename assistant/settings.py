"""One settings object for the whole product: defaults < config file < env vars < CLI flags.

Env vars use the ``ASSISTANT_`` prefix (``ASSISTANT_BACKEND=extractive``); a few well-known
names are also honoured (``CHROMA_HOST``, ``CHROMA_PORT``, ``OPENAI_API_KEY``,
``OPENAI_BASE_URL``). The optional config file is TOML: ``<data_dir>/config.toml``, or the path in
``ASSISTANT_CONFIG``; its keys are the field names below.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = PROJECT_ROOT / "data" / "abstracts"
PROMPTS_DIR = PROJECT_ROOT / "prompts"

BackendName = Literal["openai", "local", "extractive"]


def default_data_dir() -> Path:
    """``./.assistant`` in the current folder: the index lives next to the project you run in."""
    return Path.cwd() / ".assistant"


class RetrievalSettings(BaseModel):
    """Hybrid retrieval (assistant/retrieval.py). Fitted by ``python -m evals.fit retrieval``
    (5-fold CV over dev + generated + SciFact-2101 train; evals/fits/retrieval.json)."""

    fusion: Literal["dist", "rrf"] = "dist"  # fit: evals/fits/retrieval.json
    rrf_k: float = 60.0  # Cormack et al. 2009; only used by fusion="rrf"
    weight_chunk: float = 0.35  # fit: evals/fits/retrieval.json
    weight_abstract: float = 0.35  # fit: evals/fits/retrieval.json
    weight_bm25: float = 0.3  # fit: evals/fits/retrieval.json
    chunks_per_candidate: int = 3  # chunk hits fetched per wanted abstract before max-pooling (measured: 2-5 +-0.003)

    def weights(self, dense_weight: float | None = None) -> dict[str, float]:
        """Signal weights; a legacy ``dense_weight`` (dense share) rescales chunk+abstract vs BM25."""
        w = {"chunk": self.weight_chunk, "abstract": self.weight_abstract, "bm25": self.weight_bm25}
        if dense_weight is not None:
            dense = w["chunk"] + w["abstract"] or 1.0
            share = min(max(dense_weight, 0.0), 1.0)
            w = {"chunk": share * w["chunk"] / dense, "abstract": share * w["abstract"] / dense, "bm25": 1.0 - share}
        return w


class DecisionSettings(BaseModel):
    """Answer, caveat or refuse (assistant/decision.py). Fitted by ``python -m evals.fit decision``
    (logistic fit on leave-one-out data, thresholds by 5-fold CV; evals/fits/decision.json)."""

    bias: float = -6.0  # fit: evals/fits/decision.json
    w_dense: float = 8.0  # fit: evals/fits/decision.json
    w_lexical: float = 2.0  # fit: evals/fits/decision.json
    w_sentence_dense: float = 4.0  # fit: evals/fits/decision.json
    w_sentence_lexical: float = 1.0  # fit: evals/fits/decision.json
    refuse_below: float = 0.1  # CV: answerable questions refused <= 2% (evals/fits/decision.json)
    caveat_below: float = 0.3  # CV: see evals/fits/decision.json

    def weights(self) -> dict[str, float]:
        return {"dense": self.w_dense, "lexical": self.w_lexical, "sentence_dense": self.w_sentence_dense,
                "sentence_lexical": self.w_sentence_lexical}


class AnswerSettings(BaseModel):
    """Evidence and the extractive answer (assistant/evidence.py, assistant/extractive.py).
    Fitted by ``python -m evals.fit answer`` (5-fold CV on key points; evals/fits/answer.json)."""

    evidence_docs: int = 3  # abstracts whose sentences are read (sentence vectors cost CPU); sanity bound
    lexical_weight: float = 0.4  # share of term overlap vs cosine in a sentence's score; fit: evals/fits/answer.json
    retrieval_prior: float = 0.3  # weight of the abstract's fused rank score; fit: evals/fits/answer.json
    top_doc_sentences: int = 2  # sentences taken from the best abstract; fit: evals/fits/answer.json
    other_doc_share: float = 0.9  # another abstract's sentence needs this share of the best; fit
    max_sentences: int = 4  # sanity bound: a few sentences, as the product promises
    max_question_chars: int = 1000  # longer questions are cut (the answer says so); sanity bound
    short_question_terms: int = 8  # a follow-up is short: a pronoun in a longer question refers inside it


class VerifySettings(BaseModel):
    """Citation verification (assistant/citations.py)."""

    support_threshold: float = 0.45  # support a claim needs from its cited abstract; checked on hand-built claims (tests/test_citations.py)
    support_margin: float = 0.2  # a cited source this far below the best supporting one is re-pointed; same check
    lexical_weight: float = 0.5  # term overlap vs cosine in the support score; sanity: equal shares


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ASSISTANT_", extra="ignore", populate_by_name=True,
                                      env_nested_delimiter="__")

    data_dir: Path = Field(default_factory=default_data_dir)

    # --- storage -------------------------------------------------------------------------
    chroma_host: str | None = Field(
        default=None, validation_alias=AliasChoices("chroma_host", "ASSISTANT_CHROMA_HOST", "CHROMA_HOST")
    )
    chroma_port: int = Field(
        default=8000, validation_alias=AliasChoices("chroma_port", "ASSISTANT_CHROMA_PORT", "CHROMA_PORT")
    )
    collection_prefix: str = "abstracts"

    # --- embeddings ----------------------------------------------------------------------
    embed_backend: Literal["onnx", "openai"] = "onnx"
    embed_model: str = "all-MiniLM-L6-v2"
    embed_base_url: str | None = None
    embed_api_key: str | None = None
    embed_batch_size: int = 32

    # --- retrieval -----------------------------------------------------------------------
    top_k: int = 5
    candidates: int = 40
    dense_weight: float | None = None  # legacy knob: dense share of the fusion (None: the fitted weights)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    decision: DecisionSettings = Field(default_factory=DecisionSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)

    # --- answering -----------------------------------------------------------------------
    backend: BackendName | None = None
    openai_api_key: str | None = Field(
        default=None, validation_alias=AliasChoices("openai_api_key", "ASSISTANT_OPENAI_API_KEY", "OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("openai_base_url", "ASSISTANT_OPENAI_BASE_URL", "OPENAI_BASE_URL")
    )
    openai_model: str = "gpt-4o-mini"
    openai_timeout: float = 60.0
    openai_max_retries: int = 3
    local_model_path: Path | None = None
    local_threads: int = Field(default_factory=lambda: max(1, os.cpu_count() or 1))
    local_context: int = 4096
    max_answer_tokens: int = 300
    temperature: float = 0.0

    # --- UI ------------------------------------------------------------------------------
    host: str = "127.0.0.1"
    port: int = 7860
    auth: str | None = None  # "user:password"
    insecure_no_auth: bool = False
    share: bool = False

    @classmethod
    def load(cls, config_file: Path | str | None = None, **overrides: Any) -> Settings:
        """Build settings from an optional TOML file, the environment, then explicit overrides."""
        overrides = {k: v for k, v in overrides.items() if v is not None}
        path = config_file or os.environ.get("ASSISTANT_CONFIG")
        if path is None:
            data_dir = overrides.get("data_dir") or os.environ.get("ASSISTANT_DATA_DIR")
            candidate = Path(data_dir or default_data_dir()) / "config.toml"
            path = candidate if candidate.exists() else None
        file_values: dict[str, Any] = {}
        if path is not None:
            try:
                file_values = tomllib.loads(Path(path).read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise ValueError(f"config file {path}: {exc}") from exc
        env_side = cls()  # environment only
        merged = {**file_values}
        for name in cls.model_fields:
            if name in env_side.model_fields_set:
                merged[name] = getattr(env_side, name)
        merged.update(overrides)
        return cls(**merged)

    @property
    def chroma_path(self) -> Path:
        return Path(self.data_dir) / "chroma"

    def resolved_backend(self) -> BackendName:
        """openai if configured, else local if installed, else extractive."""
        if self.backend:
            return self.backend
        if self.openai_api_key or self.openai_base_url:
            return "openai"
        from assistant.backends.local import local_available

        return "local" if local_available(self) else "extractive"
