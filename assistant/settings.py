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

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = PROJECT_ROOT / "data" / "abstracts"
PROMPTS_DIR = PROJECT_ROOT / "prompts"

BackendName = Literal["openai", "local", "extractive"]


def default_data_dir() -> Path:
    """``./.assistant`` in the current folder: the index lives next to the project you run in."""
    return Path.cwd() / ".assistant"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ASSISTANT_", extra="ignore", populate_by_name=True)

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
    dense_weight: float = 0.6  # weight of dense vs BM25 in the hybrid fusion (measured: assistant/retrieval.py)

    # --- answering -----------------------------------------------------------------------
    backend: BackendName | None = None
    openai_api_key: str | None = Field(
        default=None, validation_alias=AliasChoices("openai_api_key", "ASSISTANT_OPENAI_API_KEY", "OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("openai_base_url", "ASSISTANT_OPENAI_BASE_URL", "OPENAI_BASE_URL")
    )
    openai_model: str = "gpt-4o-mini"
    openai_timeout: float = 60.0  # seconds per read (the openai client's timeout), not per answer
    # Seconds one LLM answer may take in all (openai and local, model loading excluded); on expiry the
    # backend raises LLMError and the caller falls back. 60 s: ~3x the measured 11-23 s of a local answer
    # on 2 idle cores (issue 9), so only a stuck or trickling server reaches it.
    answer_deadline_s: float = 60.0
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
