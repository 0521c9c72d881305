"""Shared fixtures. Every test runs offline: only 127.0.0.1 is ever contacted."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# Tests never pick up a developer's real endpoint by accident.
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CHROMA_HOST", "CHROMA_PORT"):
    os.environ.pop(_name, None)

import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from fake_openai import fake_openai  # noqa: E402,F401  (fixture: an OpenAI-compatible server on 127.0.0.1)
from local_model import model_settings  # noqa: E402,F401  (fixture: the real packaged model, or a skip)

from assistant import Assistant  # noqa: E402
from assistant.settings import DEFAULT_CORPUS  # noqa: E402

ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir holding the bundled corpus, ingested once per test session (embedded Chroma)."""
    data_dir = tmp_path_factory.mktemp("corpus") / "data"
    Assistant(data_dir=data_dir, backend="extractive").ingest([DEFAULT_CORPUS])
    return data_dir


@pytest.fixture(scope="session")
def corpus(corpus_dir: Path) -> Assistant:
    """One shared Assistant over the ingested bundled corpus (extractive); read-only use."""
    return Assistant(data_dir=corpus_dir, backend="extractive")


@pytest.fixture()
def corpus_copy(corpus_dir: Path, tmp_path: Path) -> Assistant:
    """A private copy of the ingested corpus, for tests that change the index."""
    target = tmp_path / "data"
    shutil.copytree(corpus_dir, target)
    return Assistant(data_dir=target, backend="extractive")
