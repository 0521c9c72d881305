"""The ``chroma_server`` fixture: a started ``chroma run`` server (evals/chroma_server.py) that is
always stopped; tests keep importing ``from chroma_server import ...``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.chroma_server import ChromaServer, chroma_executable  # noqa: F401
from evals.net import free_port  # noqa: F401  (re-exported: tests import it from here)


@pytest.fixture()
def chroma_server(tmp_path: Path) -> Iterator[ChromaServer]:
    """A running ``chroma run`` server over a fresh folder; stopped after the test."""
    if chroma_executable() is None:
        pytest.skip("the `chroma` CLI is not installed")
    server = ChromaServer(tmp_path / "server-data").start()
    try:
        yield server
    finally:
        server.stop()
