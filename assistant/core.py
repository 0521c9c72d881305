"""The Python API: ``Assistant(data_dir=...)`` with ``.ingest``, ``.search``, ``.ask``, ``.stream``.

The parts (embedder, store, chat model) are built on first use, or handed in — tests and
embedding applications pass their own: ``Assistant(settings=s, embedder=e, store=st, model=m)``.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

from assistant.settings import DEFAULT_CORPUS, Settings
from assistant.types import Answer, Hit

FiltersLike = Any  # an assistant.filters.Filters, a dict of its string values, or None


class Assistant:
    def __init__(self, data_dir: str | Path | None = None, settings: Settings | None = None, *,
                 embedder: Any = None, store: Any = None, model: Any = None, **overrides: Any) -> None:
        if settings is None:
            settings = Settings.load(data_dir=Path(data_dir) if data_dir else None, **overrides)
        elif data_dir is not None or overrides:
            settings = settings.model_copy(update={**overrides, **({"data_dir": Path(data_dir)} if data_dir else {})})
        self.settings = settings
        self._init_lock = threading.Lock()
        self._embedder_lock = threading.Lock()
        self._ingest_lock = threading.Lock()  # a watched library and an upload write one at a time
        if embedder is not None:
            self.__dict__["embedder"] = embedder
        if store is not None:
            self.__dict__["store"] = store
        self._model = model
        self.watcher: Any = None  # the live library (``watch``), if any

    # --- parts, built on first use -----------------------------------------------------------
    @cached_property
    def embedder(self) -> Any:
        with self._embedder_lock:  # prefetch() may be building it in another thread
            if "_built_embedder" not in self.__dict__:
                from assistant.store.embeddings import make_embedder

                embedder = make_embedder(self.settings)
                if self.settings.embed_backend == "onnx":
                    embedder(["warm up"])  # the ONNX session loads on the first call
                self.__dict__["_built_embedder"] = embedder
            return self.__dict__["_built_embedder"]

    def prefetch(self) -> threading.Thread:
        """Build the embedding model in the background (the CLI's cold start overlaps it with
        opening the store: measured in the README's cold-start row)."""
        thread = threading.Thread(target=lambda: self.embedder, name="embedder-prefetch", daemon=True)
        thread.start()
        return thread

    @cached_property
    def store(self) -> Any:
        from assistant.store.chroma import Store
        from assistant.store.embeddings import embedder_fingerprint

        return Store(self.settings, embedder_fingerprint(self.settings))

    @cached_property
    def retriever(self) -> Any:
        from assistant.search.retrieval import HybridRetriever

        with self._init_lock:
            return HybridRetriever(self.settings, self.store, self.embedder)

    @cached_property
    def engine(self) -> Any:
        from assistant.engine import AnswerEngine
        from assistant.evidence.scoring import shared_cache
        from assistant.store.embeddings import embedder_fingerprint

        s = self.settings
        key = embedder_fingerprint(s) + (f"@{s.embed_base_url or s.openai_base_url}" if s.embed_backend == "openai" else "")
        return AnswerEngine(s, self.retriever, shared_cache(key, self.embedder), self._chat_model)

    def _chat_model(self, name: str, settings: Settings) -> Any:
        if self._model is not None:
            return self._model
        from assistant.backends import make_chat_model

        return make_chat_model(name, settings)

    # --- ingest -------------------------------------------------------------------------------
    def ingest(self, paths: list[str | Path] | None = None, *, prune: bool = False, progress: bool = False, dry_run: bool = False) -> Any:
        """Ingest files/folders (default: the bundled corpus); returns an IngestReport.
        ``dry_run`` reports what would change without writing anything."""
        from ingest.pipeline import ingest_paths

        with self._ingest_lock:
            report = ingest_paths(list(paths or [DEFAULT_CORPUS]), self.store, self.embedder, prune=prune, progress=progress, dry_run=dry_run)
            self.retriever.invalidate()
            if not dry_run:
                from assistant.store.mirror import refresh

                refresh(self.store, self.settings.retrieval.exact_max)  # the next cold start maps the vectors
        return report

    def watch(self, paths: list[str | Path], *, start: bool = True, progress: bool = False, **options: Any) -> Any:
        """Keep the index in step with ``paths`` (export files, folders, a Zotero data directory or
        its zotero.sqlite) in a background thread; returns the ``ingest.watch.LibraryWatcher``
        (``.last.message``: "library updated: 3 added, 1 removed"; ``.stop()``)."""
        from ingest.pipeline import ingest_paths
        from ingest.watch import LibraryWatcher

        def apply(files: list[Path], preloaded: dict[Path, Any], prune: bool) -> Any:
            with self._ingest_lock:
                report = ingest_paths(files, self.store, self.embedder, prune=prune, progress=progress, preloaded=preloaded)
                self.retriever.invalidate()
                return report

        self.watcher = LibraryWatcher(paths, apply, **options)
        return self.watcher.start() if start else self.watcher

    def stats(self) -> dict[str, Any]:
        from assistant.search.hits import display_path

        docs = self.retriever.docs()
        files = Counter(display_path(f) for d in docs.values() for f in d.files)
        return {"abstracts": len(docs), "works": len({d.work_id for d in docs.values()}),
                "chunks": self.store.counts()["chunks"], "files": dict(files)}

    # --- search -------------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, mode: str = "hybrid", filters: FiltersLike = None) -> list[Hit]:
        """The k best abstracts for ``query`` (mode: hybrid, dense or bm25). ``filters``: a
        ``Filters`` or a dict such as ``{"year": "2019-2021", "author": "hinton", "venue": "neurips",
        "file": "zotero.bib", "collection": "thesis"}`` (assistant/filters.py); the ranking is within the abstracts it admits.
        A bad value raises ``FilterError`` (a ValueError) saying what is accepted."""
        from assistant.filters import Filters
        from assistant.search.hits import to_hit

        results = self.retriever.retrieve(query, k, mode=mode, filters=Filters.of(filters) or None)
        return [to_hit(doc, score, rank) for rank, (doc, score) in enumerate(results, start=1)]

    # --- answers ------------------------------------------------------------------------------
    def ask(self, question: str, history: list[dict[str, str]] | None = None, backend: str | None = None,
            k: int | None = None, exclude: set[str] | None = None, filters: FiltersLike = None) -> Answer:
        answer = None
        for item in self.stream(question, history=history, backend=backend, k=k, exclude=exclude, filters=filters):
            if isinstance(item, Answer):
                answer = item
        assert answer is not None
        return answer

    def stream(self, question: str, history: list[dict[str, str]] | None = None, backend: str | None = None,
               k: int | None = None, exclude: set[str] | None = None, filters: FiltersLike = None) -> Iterator[str | Answer]:
        """Yield text deltas as the answer is produced, then the final, verified Answer.
        ``exclude``: work ids to leave out of retrieval (leave-one-out evaluation); ``filters``: as
        in ``search`` (the answer comes only from the abstracts they admit)."""
        from assistant.backends import resolve
        from assistant.filters import Filters

        chosen = Filters.of(filters) or None  # a bad value raises here, before anything streams
        name = backend or resolve(self.settings)
        yield from self.engine.stream(question, history or [], name, k or self.settings.top_k, exclude, filters=chosen)
