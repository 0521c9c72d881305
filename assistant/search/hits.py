"""Stored abstracts as the public ``Hit`` type, with file paths shown relative to the project."""

from __future__ import annotations

from pathlib import Path

from assistant.settings import PROJECT_ROOT
from assistant.store.chroma import StoredDoc
from assistant.types import Hit

Hits = list[tuple[StoredDoc, float]]  # stored abstracts with their scores, best first


def display_path(path: str) -> str:
    """``/abs/path/file.txt`` -> ``data/abstracts/file.txt`` when under cwd or the project."""
    for base in (Path.cwd(), PROJECT_ROOT):
        try:
            return str(Path(path).relative_to(base))
        except ValueError:
            continue
    return path


def display_source(location: str) -> str:
    """``/abs/path/file.txt:12`` -> ``data/abstracts/file.txt:12``."""
    path, _, line = location.rpartition(":")
    return f"{display_path(path)}:{line}"


def to_hit(doc: StoredDoc, score: float, rank: int) -> Hit:
    sources = [display_source(s) for s in doc.sources]
    return Hit(doc_id=doc.doc_id, label=doc.label, text=doc.original, score=round(score, 4),
               source=sources[0] if sources else "", rank=rank, sources=sources,
               metadata=dict(doc.metadata) | {"work_id": doc.work_id})
