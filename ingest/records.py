"""What a loader yields: a Record per abstract, or a Problem per rejected input (file + line).

A Problem with ``warning=True`` did not stop the record (e.g. Latin-1 bytes decoded, control
characters removed); the ingest report lists those apart from the rejections.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Record:
    text: str  # the abstract as found (original, for display)
    path: str  # the file it came from
    line: int  # 1-based line where it starts
    title: str = ""
    external_id: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)  # authors, url, year, unknown fields


@dataclass
class Problem:
    path: str
    line: int  # 0 when it concerns the whole file
    reason: str
    warning: bool = False  # True: reported, but the record was still ingested

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.reason}"
