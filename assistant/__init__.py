"""Question answering over research-paper abstracts, with verified citations.

    from assistant import Assistant
    a = Assistant(data_dir=".assistant")
    a.ingest()                      # the bundled corpus
    a.search("ring attention")      # -> list[Hit]
    a.ask("What is Ring Attention?")  # -> Answer
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from assistant.core import Assistant  # noqa: E402
from assistant.settings import Settings  # noqa: E402
from assistant.types import Answer, AnswerSentence, Citation, Evidence, Hit  # noqa: E402

__all__ = ["Answer", "AnswerSentence", "Assistant", "Citation", "Evidence", "Hit", "Settings"]
