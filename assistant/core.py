"""The Python API: ``Assistant(data_dir=...)`` with ``.ingest``, ``.search``, ``.ask``, ``.stream``."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

from assistant.settings import DEFAULT_CORPUS, PROJECT_ROOT, Settings
from assistant.types import Answer, Hit


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


class Assistant:
    def __init__(self, data_dir: str | Path | None = None, settings: Settings | None = None, **overrides: Any) -> None:
        if settings is None:
            settings = Settings.load(data_dir=Path(data_dir) if data_dir else None, **overrides)
        elif data_dir is not None or overrides:
            settings = settings.model_copy(update={**overrides, **({"data_dir": Path(data_dir)} if data_dir else {})})
        self.settings = settings
        self._init_lock = threading.Lock()

    # --- parts, built on first use -----------------------------------------------------------
    @cached_property
    def embedder(self) -> Any:
        from assistant.embeddings import make_embedder

        return make_embedder(self.settings)

    @cached_property
    def store(self) -> Any:
        from assistant.embeddings import embedder_fingerprint
        from assistant.store import Store

        return Store(self.settings, embedder_fingerprint(self.settings))

    @cached_property
    def retriever(self) -> Any:
        from assistant.retrieval import HybridRetriever

        with self._init_lock:
            return HybridRetriever(self.settings, self.store, self.embedder)

    # --- ingest -------------------------------------------------------------------------------
    def ingest(self, paths: list[str | Path] | None = None, *, prune: bool = False, progress: bool = False, dry_run: bool = False) -> Any:
        """Ingest files/folders (default: the bundled corpus); returns an IngestReport.
        ``dry_run`` reports what would change without writing anything."""
        from ingest.pipeline import ingest_paths

        report = ingest_paths(list(paths or [DEFAULT_CORPUS]), self.store, self.embedder, prune=prune, progress=progress, dry_run=dry_run)
        self.retriever.invalidate()
        return report

    def stats(self) -> dict[str, Any]:
        docs = self.retriever.docs()
        files = Counter(display_path(f) for d in docs.values() for f in d.files)
        return {"abstracts": len(docs), "works": len({d.work_id for d in docs.values()}),
                "chunks": self.store.counts()["chunks"], "files": dict(files)}

    # --- search -------------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, mode: str = "hybrid") -> list[Hit]:
        """The k best abstracts for ``query`` (mode: hybrid, dense or bm25)."""
        results = self.retriever.retrieve(query, k, mode=mode)
        return [self._hit(doc, score, rank) for rank, (doc, score) in enumerate(results, start=1)]

    def _hit(self, doc: Any, score: float, rank: int) -> Hit:
        sources = [display_source(s) for s in doc.sources]
        return Hit(doc_id=doc.doc_id, label=doc.label, text=doc.original, score=round(score, 4),
                   source=sources[0] if sources else "", rank=rank, sources=sources,
                   metadata={k: v for k, v in doc.metadata.items()} | {"work_id": doc.work_id})

    # --- answers ------------------------------------------------------------------------------
    def ask(self, question: str, history: list[dict[str, str]] | None = None, backend: str | None = None, k: int | None = None) -> Answer:
        answer = None
        for item in self.stream(question, history=history, backend=backend, k=k):
            if isinstance(item, Answer):
                answer = item
        assert answer is not None
        return answer

    def stream(self, question: str, history: list[dict[str, str]] | None = None, backend: str | None = None, k: int | None = None) -> Iterator[str | Answer]:
        """Yield text deltas as the answer is produced, then the final, verified Answer."""
        from assistant.answering import answer_stream

        yield from answer_stream(self, question, history=history or [], backend=backend, k=k or self.settings.top_k)
