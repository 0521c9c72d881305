"""Vectors for the bundled corpus, shipped with the package, so a fresh install needs no
embedding pass before the first answer.

``vectors.npz`` beside the bundled abstracts holds one float16 vector per vector the ingest
computes, plus the embedder's name and a hash of the corpus files: each whole abstract's, keyed by
a digest of its text, and each chunk's, keyed as ``ingest.writer.CHUNK_VECTORS`` computes it: by a
digest of the abstract and the chunk's span when pooled from the abstract's pass ("late",
``late_key``), by a digest of the chunk's text when embedded alone ("own"). At ingest,
``with_prebuilt`` puts the table in front of the embedder: what is found there is not computed
again, anything else is (a changed corpus reuses what did not change, and a different embedder
never uses the table). float16 halves the file; its rounding moves a cosine by ~1e-4.

    python -m ingest.prebuilt build     # rewrite the file (make prebuilt)
    python -m ingest.prebuilt check     # exit 1 when it is stale (the tests check the same)
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from assistant.settings import DEFAULT_CORPUS
from ingest.chunking import chunk_text
from ingest.loaders import iter_files, load_file
from ingest.normalize import normalize_text

FILE_NAME = "vectors.npz"
DIGEST_BYTES = 16


def prebuilt_path(corpus: Path = DEFAULT_CORPUS) -> Path:
    return Path(corpus) / FILE_NAME


def digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=DIGEST_BYTES).digest()


def corpus_hash(corpus: Path = DEFAULT_CORPUS) -> str:
    """A hash of the corpus files' names and bytes (what the shipped vectors were built from)."""
    h = hashlib.sha256()
    for path in iter_files([corpus]):
        h.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def late_key(text: str, start: int, end: int) -> bytes:
    """The key of the chunk ``text[start:end]`` pooled from the pass over ``text``."""
    return digest(f"{start}:{end}\0{text}")


def chunk_mode() -> str:
    from ingest import writer

    return writer.CHUNK_VECTORS


def corpus_abstracts(corpus: Path, count_tokens: Any) -> dict[str, list[tuple[int, int]]]:
    """Each distinct abstract of ``corpus`` (as ingest normalises it) with its chunks' spans."""
    out: dict[str, list[tuple[int, int]]] = {}
    for path in iter_files([corpus]):
        for rec in load_file(path)[0]:
            text = normalize_text(rec.text)
            if text not in out:
                out[text] = [(c.start, c.end) for c in chunk_text(text, count_tokens)]
    return out


def corpus_texts(corpus: Path, count_tokens: Any) -> list[str]:
    """Every text an ingest of ``corpus`` embeds alone with chunks embedded alone ("own"): each
    distinct abstract's chunks and the abstract."""
    out: dict[str, None] = {}
    for text, spans in corpus_abstracts(corpus, count_tokens).items():
        out.update((text[s:e], None) for s, e in spans)
        out[text] = None
    return list(out)


def corpus_keys(corpus: Path, count_tokens: Any, mode: str) -> list[bytes]:
    """The table's keys an ingest of ``corpus`` looks up under chunk vector ``mode``."""
    if mode != "late":
        return [digest(t) for t in corpus_texts(corpus, count_tokens)]
    abstracts = corpus_abstracts(corpus, count_tokens)
    return [digest(t) for t in abstracts] + [late_key(t, s, e) for t, spans in abstracts.items() for s, e in spans]


class PrebuiltEmbedder:
    """An embedder that answers from the shipped table first (loaded on the first call)."""

    def __init__(self, embedder: Any, path: Path) -> None:
        self.inner = embedder
        self.path = path
        self.hits = 0

    @cached_property
    def table(self) -> dict[bytes, np.ndarray]:
        with np.load(self.path) as z:
            keys, vectors = z["keys"], z["vectors"].astype(np.float32)
        vectors /= np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
        return {bytes(k): v for k, v in zip(keys, vectors, strict=True)}

    def __call__(self, input: list[str]) -> np.ndarray:
        texts = list(input)
        found = [self.table.get(digest(t)) for t in texts]
        missing = [i for i, v in enumerate(found) if v is None]
        self.hits += len(texts) - len(missing)
        if missing:
            fresh = np.asarray(self.inner([texts[i] for i in missing]), dtype=np.float32)
            for i, v in zip(missing, fresh, strict=True):
                found[i] = v
        if not texts:
            return np.zeros((0, int(getattr(self.inner, "dimension", 0) or 0)), np.float32)
        return np.stack(found)

    def late_known(self, text: str, spans: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray] | None:
        """The abstract's vector and its chunks' pooled from its pass (ingest/late_chunks.py),
        when the table holds them all."""
        doc = self.table.get(digest(text))
        chunks = [self.table.get(late_key(text, s, e)) for s, e in spans]
        if doc is None or any(v is None for v in chunks):
            return None
        self.hits += 1 + len(chunks)
        return doc, (np.stack(chunks) if chunks else np.zeros((0, len(doc)), np.float32))  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:  # count_tokens, dimension, name ... of the embedder
        return getattr(self.inner, name)


def with_prebuilt(embedder: Any, fingerprint: str, corpus: Path = DEFAULT_CORPUS) -> Any:
    """``embedder`` behind the shipped table when the table was built by the same embedder."""
    path = prebuilt_path(corpus)
    if isinstance(embedder, PrebuiltEmbedder) or not path.is_file() or not _is_minilm(embedder):
        return embedder
    try:
        with np.load(path) as z:
            built_by = str(z["embedder"])
    except (OSError, KeyError, ValueError):  # a damaged file: embed as if it were not there
        return embedder
    return PrebuiltEmbedder(embedder, path) if built_by == fingerprint else embedder


def _is_minilm(embedder: Any) -> bool:
    """The offline MiniLM itself (its vectors are the table's), not a test's or a caller's own.
    Not imported here: a process that never built it (a fake embedder) skips chromadb's ONNX module."""
    module = sys.modules.get("assistant.store.embeddings")
    return module is not None and isinstance(embedder, module.OfflineMiniLM)


def build(embedder: Any, fingerprint: str, corpus: Path = DEFAULT_CORPUS, mode: str | None = None) -> Path:
    """Compute the table as an ingest under chunk vector ``mode`` (default: the ingest's) would."""
    if (mode or chunk_mode()) == "late":
        from ingest.late_chunks import late_vectors

        abstracts = corpus_abstracts(corpus, embedder.count_tokens)
        texts = list(abstracts)
        docs, per_doc = late_vectors(embedder, texts, [abstracts[t] for t in texts])
        found = np.concatenate([docs, *per_doc])
        digests = [digest(t) for t in texts] + [late_key(t, s, e) for t in texts for s, e in abstracts[t]]
    else:
        texts = corpus_texts(corpus, embedder.count_tokens)
        found = np.asarray(embedder(texts), dtype=np.float32)
        digests = [digest(t) for t in texts]
    vectors = found.astype(np.float16)
    keys = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(len(digests), DIGEST_BYTES)
    path = prebuilt_path(corpus)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, keys=keys, vectors=vectors, embedder=np.array(fingerprint),
                        corpus=np.array(corpus_hash(corpus)))
    tmp.replace(path)
    return path


def stale(count_tokens: Any, fingerprint: str, corpus: Path = DEFAULT_CORPUS) -> list[str]:
    """What is wrong with the shipped file (empty: it is current)."""
    path = prebuilt_path(corpus)
    if not path.is_file():
        return [f"{path} is missing: run `make prebuilt`"]
    with np.load(path) as z:
        built_by, built_from = str(z["embedder"]), str(z["corpus"])
        keys = {bytes(k) for k in z["keys"]}
    problems = []
    if built_by != fingerprint:
        problems.append(f"{path} was built by {built_by!r}, the default embedder is {fingerprint!r}")
    if built_from != corpus_hash(corpus):
        problems.append(f"{path} was built from other corpus files than {corpus}")
    lacking = [k for k in corpus_keys(corpus, count_tokens, chunk_mode()) if k not in keys]
    if lacking:
        problems.append(f"{path} lacks {len(lacking)} of the vectors an ingest computes ({chunk_mode()!r} chunk vectors)")
    return problems + ([] if not problems else ["rebuild it with `make prebuilt`"])


def main(argv: list[str] | None = None) -> int:
    from assistant.settings import Settings
    from assistant.store.embeddings import embedder_fingerprint, make_embedder

    parser = argparse.ArgumentParser(prog="python -m ingest.prebuilt", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["build", "check"])
    args = parser.parse_args(argv)
    settings = Settings.load()
    embedder, fingerprint = make_embedder(settings), embedder_fingerprint(settings)
    if args.action == "build":
        print(build(embedder, fingerprint))
        return 0
    problems = stale(embedder.count_tokens, fingerprint)
    print("\n".join(problems) or f"{prebuilt_path()} is current")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
