"""The fake OpenAI-compatible server (evals/fake_openai.py, shared with evals/reliability.py) and
the ``fake_openai`` fixture; tests keep importing ``from fake_openai import ...``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evals.fake_openai import *  # noqa: F403 - this module re-exports the server's public names
from evals.fake_openai import FakeOpenAI


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    try:
        yield server
    finally:
        server.close()
