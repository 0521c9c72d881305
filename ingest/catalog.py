"""What one ingest reads from the store: only the abstracts it can change or link to.

Each doc's metadata names its files (``files``, an array), says whether it is a version
(``is_version``) and holds its MinHash bands (ingest/dedup.py), so an ingest of N records reads
the docs with those content ids, the docs citing those files, and the stored docs sharing a
band with a new one (version candidates) -- never the whole corpus. An index written before
this catalog gets it once (one full read: ``ensure_catalog``).
"""

from __future__ import annotations

from collections.abc import Iterable

from assistant.store.chroma import BATCH, CATALOG, Store, StoredDoc
from ingest.dedup import MINHASH_KEYS, minhash
from ingest.writer import progress_bar

# New abstracts per MinHash lookup: 48 bands x 128 values = 6,144 bound values, well under
# SQLite's 32,766-variable bound; one lookup per 128 new abstracts (a sanity bound, not fitted).
CANDIDATE_GROUP = 128


def ensure_catalog(store: Store) -> dict[str, StoredDoc] | None:
    """Give every doc of an index written before the catalog its ``files``, ``is_version`` and
    MinHash metadata (once); returns the docs it read, or None when nothing was needed."""
    if store.has_catalog():
        return None
    docs = store.all_docs()
    for doc in docs.values():
        doc.metadata.update(minhash(doc.text))
    store.update_doc_metadata(list(docs.values()))
    store.set_flag("catalog", CATALOG)
    return docs


def touched(store: Store, ids: Iterable[str], files: Iterable[str]) -> dict[str, StoredDoc]:
    """The stored docs an ingest of these content ids from these files can change."""
    out = store.get_docs(sorted(ids))
    for f in sorted(files):
        out.update(store.docs_where({"files": {"$contains": f}}))
    return out


def version_candidates(store: Store, new: list[StoredDoc], progress: bool = False) -> dict[str, StoredDoc]:
    """Stored docs sharing a MinHash band with one of ``new`` (each needs a shared 6-word shingle).
    ``progress``: a bar when there is more than one lookup (measured 0.30 s per lookup against 22k
    stored abstracts: 200k new ones take ~8 min before the first write)."""
    out: dict[str, StoredDoc] = {}
    items = [d for d in new if MINHASH_KEYS[0] in d.metadata]
    bar = progress_bar(len(items), progress and len(items) > CANDIDATE_GROUP, "finding versions")
    for g in range(0, len(items), CANDIDATE_GROUP):
        group = items[g : g + CANDIDATE_GROUP]
        clauses = [{k: {"$in": sorted({int(d.metadata[k]) for d in group})}} for k in MINHASH_KEYS]
        out.update(store.docs_where({"$or": clauses}))
        bar.update(len(group))
    bar.close()
    return out


def same_external_ids(store: Store, new: list[StoredDoc]) -> dict[str, StoredDoc]:
    """Stored docs whose external id, DOI or arXiv id one of ``new`` also has."""
    out: dict[str, StoredDoc] = {}
    for key in ("external_id", "doi", "arxiv_id"):
        ids = sorted({str(d.metadata[key]) for d in new if d.metadata.get(key)})
        for b in range(0, len(ids), BATCH):
            out.update(store.docs_where({key: {"$in": ids[b : b + BATCH]}}))
    return out
