"""Shared fixtures. Every test runs offline: only 127.0.0.1 is ever contacted."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# Tests never pick up a developer's real endpoint by accident.
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CHROMA_HOST", "CHROMA_PORT"):
    os.environ.pop(_name, None)

from fake_openai import fake_openai  # noqa: E402,F401  (fixture: an OpenAI-compatible server on 127.0.0.1)
