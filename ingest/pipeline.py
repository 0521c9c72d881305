"""Incremental ingest: files -> normalised, deduplicated abstracts -> sentence chunks -> Chroma.

Chroma itself is the record of what is stored (no side cache): a re-run compares content ids
with the docs collection, so unchanged abstracts are never re-embedded, and a run killed at any
point is completed by the next one. (LlamaIndex's IngestionPipeline keeps its dedup cache in a
separate docstore file, which a SIGKILL can leave out of step with the vector store.)

An ingest reads only the stored docs it can change or link to (ingest/catalog.py): its cost
follows what it ingests, not the size of the index. The docs collection's ``ingest`` flag is
"running" while a run writes; a run that finds it so (the last one was killed) reads everything
once, sweeps orphan chunks and brings the lexical index in line.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.language.text import tokens as terms
from assistant.store import lexical
from assistant.store.chroma import BATCH, Store, StoredDoc
from ingest.catalog import ensure_catalog, same_external_ids, touched, version_candidates
from ingest.dedup import find_versions, minhash
from ingest.loaders import iter_files, load_file
from ingest.metadata import TRACKED_KEYS, identifiers, reference_label
from ingest.normalize import abstract_label, content_id, normalize_text
from ingest.prebuilt import with_prebuilt
from ingest.records import Problem, Record
from ingest.writer import abstract_vectors, write_new_docs

# Docs written per step; a kill loses at most this much work. 256 (~1,150 chunks a Chroma call): a
# `chroma run` server took 4,800 chunks at 268/s in 1,400-chunk calls vs 234/s in 280-chunk ones
# (load ~20; the 64-doc batches before were ~280 chunks).
EMBED_BATCH_DOCS = 256
# Abstracts buffered before the lexical index writes a delta segment: fewer, larger deltas (a kill
# loses nothing: the next ingest re-adds what the docs collection holds and the index lacks).
LEXICAL_FLUSH_DOCS = 2000


@dataclass
class IngestReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    duplicates: int = 0  # repeated records folded into an existing abstract
    versions: int = 0  # new abstracts linked as a version of an earlier one
    removed: int = 0
    rejected: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)  # reported, but the record was ingested
    files: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0
    chunks_added: int = 0
    totals: dict[str, int] = field(default_factory=dict)
    dry_run: bool = False

    def summary(self) -> str:
        lines = [
            f"{self.files} file(s): {self.added} added, {self.updated} updated, {self.unchanged} unchanged, "
            f"{self.duplicates} duplicates, {self.versions} linked versions, {self.removed} removed, "
            f"{len(self.rejected)} rejected ({self.seconds:.1f} s)" + (" [dry run: nothing written]" if self.dry_run else ""),
        ]
        if self.totals:
            t = {k: self.totals.get(k, 0) for k in ("abstracts", "works")}
            chunks = f", {_plural(self.totals['chunks'], 'chunk')}" if "chunks" in self.totals else ""  # a dry run cuts none
            lines.append(f"index {'would hold' if self.dry_run else 'now holds'} {_plural(t['abstracts'], 'abstract')} "
                         f"({_plural(t['works'], 'work')}){chunks}")
        lines += [f"  rejected {p}" for p in self.rejected]
        lines += [f"  warning {p}" for p in self.warnings]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k not in ("rejected", "warnings")}
        d["rejected"] = [{"path": p.path, "line": p.line, "reason": p.reason} for p in self.rejected]
        d["warnings"] = [{"path": p.path, "line": p.line, "reason": p.reason} for p in self.warnings]
        return d


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"  # "1 abstract (1 work), 1 chunk", not "1 abstracts"


def _file_of(source: str) -> str:
    return source.rsplit(":", 1)[0]


@dataclass
class _Parsed:
    """What the files hold: records by content id, the files that parsed, and rejected lines."""

    by_id: dict[str, list[Record]] = field(default_factory=lambda: defaultdict(list))
    files: set[str] = field(default_factory=set)  # resolved paths that yielded at least one record
    bad_lines: set[str] = field(default_factory=set)  # "<resolved path>:<line>" of rejected records


def ingest_paths(
    paths: list[str | Path], store: Store, embedder: Any, *, prune: bool = False, progress: bool = True,
    dry_run: bool = False, preloaded: dict[Path, tuple[list[Record], list[Problem]]] | None = None,
) -> IngestReport:
    """Bring the store in line with ``paths``; ``dry_run`` reports what would change, writing nothing.
    ``preloaded``: files already parsed (by resolved path), applied as parsed (ingest/watch.py)."""
    started = time.perf_counter()
    report = IngestReport(dry_run=dry_run)
    parsed = _read_files(paths, report, preloaded or {})
    lex = lexical.open_for(store.settings.data_dir, store.settings.collection_prefix)
    stored, complete, settled = _stored(store, parsed, lex, prune, dry_run)
    changed, to_delete = _compare(stored, parsed, prune)
    new_ids = [i for i in parsed.by_id if i not in stored]
    report.unchanged = len(parsed.by_id) - len(new_ids)
    new_docs, kept = _plan_new_docs(parsed, new_ids, stored, to_delete, report, _Lookup(store, lex, complete, progress))
    if not dry_run:
        writes = bool(new_docs or changed or to_delete)
        if writes:
            store.mark_ingest("running")  # a run killed from here on is noticed by the next
        if new_docs:  # the bundled corpus's texts come with their vectors (ingest/prebuilt.py)
            embedder = with_prebuilt(embedder, store.fingerprint)
        report.chunks_added += write_new_docs(list(new_docs.values()), store, embedder, lex, report, progress,
                                              EMBED_BATCH_DOCS, LEXICAL_FLUSH_DOCS)
        upgrade_abstract_vectors(store, embedder, report)
        # 4. Metadata-only changes and removals last: nothing is deleted before its successor exists.
        store.update_doc_metadata(changed)
        store.delete_docs(to_delete)
        lex.delete(to_delete)
        lex.flush()
        if writes or not settled:
            store.mark_ingest("done")
    _count(report, store, stored, to_delete, new_docs)
    report.seconds = time.perf_counter() - started
    return report


def _stored(
    store: Store, parsed: _Parsed, lex: lexical.LexicalIndex, prune: bool, dry_run: bool,
) -> tuple[dict[str, StoredDoc], bool, bool]:
    """2. The stored docs this ingest can change, whether that is every stored doc, and whether
    the last ingest finished (its flag says "done").

    Only the docs with the records' content ids and those citing the files read are fetched.
    Everything is read only when needed: ``prune`` (any file may be gone), an index without the
    catalog (once), a previous run that was interrupted (chunks orphaned by it are swept and the
    lexical index brought in line with the docs collection, the source of truth), or a data dir
    whose lexical index does not hold what the store holds.
    """
    full, settled = None, True
    if not dry_run:
        full = ensure_catalog(store)
        settled = store.flag("ingest") == "done"
        if not settled:
            full = full if full is not None else store.all_docs()
            sweep_orphans(store, full)
            lex.reconcile({i: d.text for i, d in full.items()})
        elif len(lex) != store.call("counting", store.docs.count):
            full = full if full is not None else store.all_docs()
            lex.reconcile({i: d.text for i, d in full.items()})
    if full is None and (prune or not store.has_catalog()):
        full = store.all_docs()
    if full is not None:
        return full, True, settled
    return touched(store, parsed.by_id, parsed.files), False, settled


def _read_files(paths: list[str | Path], report: IngestReport, preloaded: dict[Path, Any]) -> _Parsed:
    """1. Read every file. A file that yields nothing but problems (unreadable, binary, every record
    broken) leaves its stored abstracts alone, and so does a rejected record at a stored line."""
    parsed = _Parsed()
    for raw in paths:
        folder = Path(raw)
        if folder.is_dir() and next(iter_files([folder]), None) is None:
            report.rejected.append(Problem(str(folder), 0, "no .txt, .md, .jsonl, .json or .csv files in this folder"))
    for path in iter_files(paths):
        report.files += 1
        records, problems = preloaded.get(path.resolve()) or load_file(path)
        report.rejected += [p for p in problems if not p.warning]
        report.warnings += [p for p in problems if p.warning]
        resolved = str(path.resolve())
        if records:
            parsed.files.add(resolved)
        parsed.bad_lines.update(f"{resolved}:{p.line}" for p in problems if not p.warning and p.line)
        for rec in records:
            rec.path = resolved
            parsed.by_id[content_id(normalize_text(rec.text))].append(rec)
    report.duplicates = sum(len(v) - 1 for v in parsed.by_id.values())
    return parsed


def _compare(stored: dict[str, StoredDoc], parsed: _Parsed, prune: bool) -> tuple[list[StoredDoc], list[str]]:
    """Stored docs whose sources change (updated in place) and the ids of those left with none."""
    changed: list[StoredDoc] = []
    to_delete: list[str] = []
    for doc in stored.values():
        keep = [s for s in doc.sources if _file_of(s) not in parsed.files or s in parsed.bad_lines]
        if prune:
            keep = [s for s in keep if Path(_file_of(s)).exists()]
        keep += [loc for loc in (f"{r.path}:{r.line}" for r in parsed.by_id.get(doc.doc_id, [])) if loc not in keep]
        if not keep:
            to_delete.append(doc.doc_id)
            continue
        edited = _refresh_metadata(doc, parsed.by_id.get(doc.doc_id, []))
        if set(keep) != set(doc.sources) or edited:
            doc.sources = keep
            changed.append(doc)
    return changed, to_delete


def _refresh_metadata(doc: StoredDoc, records: list[Record]) -> bool:
    """An entry edited in its file without touching its abstract (title, authors, year, DOI...):
    the stored doc takes the new metadata and label, without re-embedding. Only the record from
    the file the doc was first read from speaks for it."""
    first_file = _file_of(doc.sources[0]) if doc.sources else ""
    rec = next((r for r in records if r.path == first_file), None)
    if rec is None:
        return False
    fresh = _new_doc(doc.doc_id, [rec])
    keys = ("title", *TRACKED_KEYS)
    if doc.label == fresh.label and all(doc.metadata.get(k) == fresh.metadata.get(k) for k in keys):
        return False
    for k in keys:
        if k in fresh.metadata:
            doc.metadata[k] = fresh.metadata[k]
        else:
            doc.metadata.pop(k, None)
    doc.label = fresh.label
    return True


@dataclass
class _Lookup:
    """Where version detection finds stored candidates and corpus-wide document frequencies."""

    store: Store
    lex: lexical.LexicalIndex
    complete: bool  # the stored docs at hand are all of them: no lookups needed
    progress: bool = False  # show a bar while looking up version candidates


def _plan_new_docs(
    parsed: _Parsed, new_ids: list[str], stored: dict[str, StoredDoc], to_delete: list[str], report: IngestReport,
    lookup: _Lookup,
) -> tuple[dict[str, StoredDoc], dict[str, StoredDoc]]:
    """3a. Build the new docs and link versions; returns them and the stored docs looked at that stay."""
    new_docs = {i: _new_doc(i, parsed.by_id[i]) for i in new_ids}
    for doc in new_docs.values():
        doc.metadata.update(minhash(doc.text))  # stored with the doc: later ingests find it as a candidate
    kept = dict(stored)
    if not lookup.complete:
        kept.update(version_candidates(lookup.store, list(new_docs.values()), lookup.progress))
        kept.update(same_external_ids(lookup.store, list(new_docs.values())))
    gone = set(to_delete)
    kept = {i: d for i, d in kept.items() if i not in gone}
    versions = find_versions({i: d.text for i, d in new_docs.items()}, {i: d.text for i, d in kept.items()},
                             *_doc_freq(lookup.lex, new_docs, kept) if not lookup.complete else ())
    for i, work in versions.items():
        new_docs[i].work_id = kept[work].work_id if work in kept else new_docs[work].work_id
    report.versions = len(versions) + _link_same_ids(new_docs, kept, report)
    return new_docs, kept


def _doc_freq(lex: lexical.LexicalIndex, new_docs: dict[str, StoredDoc], kept: dict[str, StoredDoc]) -> tuple[Any, int]:
    """Corpus-wide document frequencies: the lexical index's (the stored docs) plus the new docs'
    (counted only if version detection asks: it tokenises every new abstract). Memoised per term:
    the 50k-chunk bench asked 1.1M times for far fewer terms (11 s of 208 under cProfile)."""
    counts: Counter[str] | None = None
    memo: dict[str, int] = {}

    def doc_freq(term: str) -> int:
        nonlocal counts
        if counts is None:
            counts = Counter(t for d in new_docs.values() for t in set(terms(d.text)))
        if term not in memo:
            memo[term] = lex.doc_freq(term) + counts[term]
        return memo[term]

    return doc_freq, len(lex) + len(new_docs)


def _count(
    report: IngestReport, store: Store, stored: dict[str, StoredDoc], to_delete: list[str],
    new_docs: dict[str, StoredDoc],
) -> None:
    """5. The report's figures: a new doc from a file that lost one counts as updated, not added.
    A dry run's totals read every stored doc (nothing was written to count); a real run's read
    only the versions (Store.works)."""
    files_replaced = {f for i in to_delete for f in stored[i].files}
    report.updated = min(len(to_delete), sum(1 for d in new_docs.values() if d.files & files_replaced))
    report.added = len(new_docs) - report.updated
    report.removed = len(to_delete) - report.updated
    if report.dry_run:
        kept = {i: d for i, d in store.all_docs().items() if i not in set(to_delete)}
        works = {d.work_id for d in kept.values()} | {d.work_id for d in new_docs.values()}
        report.totals = {"abstracts": len(kept) + len(new_docs), "works": len(works)}
    else:
        report.totals = {**store.counts(), "works": store.works()}


def sweep_orphans(store: Store, stored: dict[str, StoredDoc]) -> int:
    """Delete chunks whose abstract is not stored (left by a killed ingest); returns how many.

    Cheap when there are none: every doc records its ``n_chunks`` and is written after its chunks,
    so the chunk count equals their sum unless a run was interrupted. Only then are the chunk ids
    listed ("<doc_id>-<n>": ids only, no metadata) to find the orphans.
    """
    expected = sum(int(d.metadata.get("n_chunks", -1)) for d in stored.values())
    if all("n_chunks" in d.metadata for d in stored.values()) and store.call("counting", store.chunks.count) == expected:
        return 0
    orphans: list[str] = []
    total = store.call("reading chunks", store.chunks.count)
    for offset in range(0, total, BATCH):
        got = store.call("reading chunks", store.chunks.get, include=[], limit=BATCH, offset=offset)
        orphans += [cid for cid in got["ids"] if cid.rsplit("-", 1)[0] not in stored]
    for i in range(0, len(orphans), BATCH):
        store.call("sweeping chunks", store.chunks.delete, ids=orphans[i : i + BATCH])
    return len(orphans)


def _ids_of(doc: StoredDoc) -> list[tuple[str, str]]:
    ext = str(doc.metadata.get("external_id") or "")
    return ([("external_id", ext)] if ext else []) + identifiers(doc.metadata)


def _link_same_ids(new_docs: dict[str, StoredDoc], kept: dict[str, StoredDoc], report: IngestReport) -> int:
    """A new abstract whose external id, DOI or arXiv id (an arXiv preprint and its published
    version share the arXiv id or the DOI) is already used by a different text becomes a version
    of that work, with a warning naming both places."""
    seen: dict[tuple[str, str], StoredDoc] = {}
    for doc in kept.values():
        for ident in _ids_of(doc):
            seen.setdefault(ident, doc)
    linked = 0
    for doc in new_docs.values():
        idents = _ids_of(doc)
        first = next((seen[i] for i in idents if i in seen and seen[i] is not doc), None)
        for ident in idents:
            seen.setdefault(ident, doc)
        if first is None:
            continue
        kind, value = next(i for i in idents if seen.get(i) is first)
        where = first.sources[0] if first.sources else first.doc_id
        path, _, line = doc.sources[0].rpartition(":")
        what = "id" if kind == "external_id" else kind.replace("_", " ").replace("arxiv", "arXiv").replace("doi", "DOI")
        report.warnings.append(Problem(path, int(line), f"{what} {value!r} is also used at {where} with a different text; "
                                                         "kept both, as versions of one work", warning=True))
        if doc.work_id != first.work_id:
            doc.work_id = first.work_id
            linked += 1
    return linked


def _new_doc(doc_id: str, records: list[Record]) -> StoredDoc:
    first = records[0]
    text = normalize_text(first.text)
    meta: dict[str, Any] = dict(first.metadata)
    if first.title:
        meta["title"] = first.title
    if first.external_id:
        meta["external_id"] = first.external_id
    # "Vaswani et al. 2017 — Attention Is All You Need"; without a title, the name the abstract
    # introduces, else a key phrase (ingest/labels.py).
    label = reference_label(meta, first.title) or abstract_label(text)
    return StoredDoc(doc_id=doc_id, text=text, original=first.text.strip(), label=label,
                     sources=[f"{r.path}:{r.line}" for r in records], work_id=doc_id, metadata=meta)


def upgrade_abstract_vectors(store: Store, embedder: Any, report: IngestReport) -> None:
    """An index written before abstracts had their own vector (it held the mean of the chunks):
    re-embed every stored abstract once, then mark the collection."""
    if store.has_abstract_vectors():
        return
    docs = list(store.all_docs().values())
    for b in range(0, len(docs), EMBED_BATCH_DOCS):
        batch = docs[b : b + EMBED_BATCH_DOCS]
        store.call("writing abstracts", store.docs.update, ids=[d.doc_id for d in batch],
                   embeddings=abstract_vectors(batch, embedder, report))
    store.mark_abstract_vectors()
