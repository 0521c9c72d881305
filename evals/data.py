"""Evaluation datasets: the dev question set (gold = abstracts holding a gold anchor) and BEIR
folders (corpus.jsonl, queries.jsonl, qrels/<split>.tsv), as one list of ``Question``.

Gold is expressed as *work* ids: the ingest collapses near-duplicate versions of one paper into
one work, and search returns one abstract per work, so a question is answered by the work.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest.normalize import content_id, normalize_text

EVALS_DIR = Path(__file__).resolve().parent
DATASETS_DIR = EVALS_DIR / "datasets"
RUNS_DIR = EVALS_DIR / "runs"  # one folder per evaluation run (ignored by git)
CACHE_DIR = RUNS_DIR / "_cache"  # each dataset's corpus ingested once, under its corpus hash
DEV_PATH = DATASETS_DIR / "dev.jsonl"
GENERATED_PATH = DATASETS_DIR / "generated.jsonl"
GENERATED_UNANSWERABLE_PATH = DATASETS_DIR / "generated_unanswerable.jsonl"
CALIBRATION_PATH = DATASETS_DIR / "calibration.jsonl"  # derived from generated + dev (evals/calibration.py)
PARAPHRASE_WRITTEN_PATH = DATASETS_DIR / "paraphrase_written.jsonl"  # by hand, far from the abstract (evals/experiments/paraphrase_written.py)
LOCKED_PATH = DATASETS_DIR / "locked.jsonl"  # hand-written release test split: never read by tuning code
LISTS_PATH = DATASETS_DIR / "lists.jsonl"  # list / compare / overview questions made from the corpus (evals/lists.py)
LISTS_WRITTEN_PATH = DATASETS_DIR / "lists_written.jsonl"  # list questions in a researcher's words, by hand (evals/experiments/lists_written.py)
# hand-written list and comparison questions of the release test split: never read by tuning code
LOCKED_COLLECTION_PATH = DATASETS_DIR / "locked_collection.jsonl"
# hand-written tuning questions about the collection: overviews, and list follow-up sessions
OVERVIEW_WRITTEN_PATH = DATASETS_DIR / "overview_written.jsonl"
FOLLOWUPS_WRITTEN_PATH = DATASETS_DIR / "lists_followups_written.jsonl"
# hand-written follow-ups on a list worded unlike the abstracts, gold read by hand
FOLLOWUPS_MEANING_WRITTEN_PATH = DATASETS_DIR / "followups_meaning_written.jsonl"
# hand-written single-fact questions worded with list-looking words: the shape detector's over-reads
SHAPE_FACTS_WRITTEN_PATH = DATASETS_DIR / "shape_facts_written.jsonl"
# hand-written list questions about a subject no abstract is about, partly absent ("diffusion models for surgical video")
LISTS_ABSENT_WRITTEN_PATH = DATASETS_DIR / "lists_absent_written.jsonl"
# hand-written list questions whose gold was judged by reading the candidates (evals/experiments/lists_curated.py)
LISTS_CURATED_WRITTEN_PATH = DATASETS_DIR / "lists_curated_written.jsonl"
# hand-written questions labelled with their shape (fact / list / compare / overview); ids SH* and SQ*
# are hold-out batches, never tuned on; the later hold-outs are shapes_written_holdout3-5.jsonl
SHAPES_WRITTEN_PATH = DATASETS_DIR / "shapes_written.jsonl"


class LockedSplitError(PermissionError):
    """Tuning or fitting code asked for the locked test split."""


def load_for_tuning(path: Path) -> list[dict[str, Any]]:
    """Rows of a dev-style file for tuning/fitting code; refuses the locked test split (by file or
    by any row marked ``"split": "locked"``), so no constant can be fitted on it."""
    if Path(path).resolve() in (LOCKED_PATH.resolve(), LOCKED_COLLECTION_PATH.resolve()) or Path(path).name.startswith("locked"):
        raise LockedSplitError(f"{path} is the locked test split: tuning and fitting code may not read it")
    rows = load_dev(Path(path))
    if any(r.get("split") == "locked" for r in rows):
        raise LockedSplitError(f"{path} holds rows of the locked test split: tuning and fitting code may not read them")
    return rows


@dataclass
class Question:
    id: str
    text: str
    type: str = "query"
    split: str = ""
    gold: set[str] = field(default_factory=set)  # work ids; empty for unanswerable questions
    key_points: list[str] = field(default_factory=list)
    previous: str | None = None  # id of the question this one follows up
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def answerable(self) -> bool:
        return self.type != "unanswerable"


@dataclass
class Dataset:
    name: str
    kind: str  # "dev" or "beir"
    questions: list[Question]
    corpus: Path | None  # what to ingest; None = the bundled corpus
    split: str = ""

    def by_id(self) -> dict[str, Question]:
        return {q.id: q for q in self.questions}


def norm(text: str) -> str:
    return " ".join(normalize_text(text).split())


def resolve_path(name: str) -> tuple[str, Path]:
    """``dev`` -> the dev set; a BEIR folder name under evals/datasets, or a path."""
    named = {"dev": DEV_PATH, "generated": GENERATED_PATH, "generated_unanswerable": GENERATED_UNANSWERABLE_PATH,
             "calibration": CALIBRATION_PATH, "paraphrase_written": PARAPHRASE_WRITTEN_PATH, "locked": LOCKED_PATH,
             "lists": LISTS_PATH, "lists_written": LISTS_WRITTEN_PATH, "locked_collection": LOCKED_COLLECTION_PATH}
    named |= {"overview_written": OVERVIEW_WRITTEN_PATH, "lists_followups_written": FOLLOWUPS_WRITTEN_PATH,
              "shape_facts_written": SHAPE_FACTS_WRITTEN_PATH, "lists_absent_written": LISTS_ABSENT_WRITTEN_PATH,
              "followups_meaning_written": FOLLOWUPS_MEANING_WRITTEN_PATH,
              "lists_curated_written": LISTS_CURATED_WRITTEN_PATH}
    if name in named:
        return "dev", named[name]
    p = Path(name)
    if p.is_file() and p.suffix == ".jsonl":
        return "dev", p
    if not p.exists():
        p = DATASETS_DIR / name
    if (p / "corpus.jsonl").exists() and (p / "queries.jsonl").exists():
        return "beir", p
    raise FileNotFoundError(f"unknown dataset {name!r}: expected 'dev', a dev-style .jsonl, or a BEIR folder "
                            f"(corpus.jsonl, queries.jsonl, qrels/) under {DATASETS_DIR} or as a path")


def load_dev(path: Path = DEV_PATH, split: str | None = None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split in (None, "", "all") or r.get("split") == split]


def resolve_anchors(rows: list[dict[str, Any]], docs: dict[str, Any]) -> tuple[list[Question], list[str]]:
    """Dev rows -> Questions whose gold is the set of works holding each gold anchor.

    ``docs`` maps doc id -> StoredDoc (text, original, work_id). Returns the questions and a list of
    problems (an anchor found in no stored abstract)."""
    texts = [(norm(d.text), " ".join(d.original.split()), d.work_id) for d in docs.values()]
    problems: list[str] = []
    out: list[Question] = []
    for r in rows:
        gold: set[str] = set()
        for anchor in r.get("gold_anchors") or []:
            a = norm(anchor)
            works = {w for t, o, w in texts if a in t or a in o}
            if not works:
                problems.append(f"{r['id']}: anchor not found in the index: {anchor[:60]!r}")
            gold |= works
        out.append(Question(id=r["id"], text=r["question"], type=r.get("type", "lookup"), split=r.get("split", ""),
                            gold=gold, key_points=list(r.get("key_points") or []), previous=r.get("previous"), raw=r))
    return out, problems


def file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def corpus_hash(kind: str, path: Path) -> tuple[str, list[Path]]:
    """A short hash of a dataset's corpus files (the bundled corpus, or a BEIR folder's corpus.jsonl)
    and those files: the name of its ingested copy under ``CACHE_DIR``."""
    from assistant.settings import DEFAULT_CORPUS

    if kind == "beir":
        files = [path / "corpus.jsonl"]
    else:
        files = sorted(f for f in DEFAULT_CORPUS.rglob("*") if f.is_file() and f.name.lower() != "readme.md")
    joined = "".join(f"{f.name}:{file_hash(f)};" for f in files)
    return hashlib.sha256(joined.encode()).hexdigest()[:12], files

def beir_doc_ids(folder: Path) -> dict[str, str]:
    """BEIR corpus id -> our doc id (the content id of the normalised text, as the ingest computes)."""
    out: dict[str, str] = {}
    with open(folder / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                text = row.get("text") or row.get("abstract") or ""
                out[str(row.get("_id"))] = content_id(normalize_text(text))
    return out


def load_beir(folder: Path, split: str, docs: dict[str, Any]) -> tuple[list[Question], list[str]]:
    """Queries with at least one relevant document in ``qrels/<split>.tsv``; gold as work ids."""
    qrels_path = folder / "qrels" / f"{split}.tsv"
    if not qrels_path.exists():
        raise FileNotFoundError(f"no qrels for split {split!r}: {qrels_path}")
    rel: dict[str, set[str]] = defaultdict(set)
    with open(qrels_path, encoding="utf-8") as f:
        reader = csv.reader(f, delimiter="\t")
        for row in reader:
            if len(row) < 3 or row[0] == "query-id":
                continue
            if float(row[2]) > 0:
                rel[row[0]].add(row[1])
    ids = beir_doc_ids(folder)
    problems: list[str] = []
    questions: list[Question] = []
    with open(folder / "queries.jsonl", encoding="utf-8") as f:
        queries = {str(r["_id"]): r["text"] for r in map(json.loads, filter(str.strip, f))}
    for qid, corpus_ids in rel.items():
        if qid not in queries:
            problems.append(f"query {qid} is in the qrels but not in queries.jsonl")
            continue
        gold = set()
        for cid in corpus_ids:
            doc = docs.get(ids.get(cid, ""))
            if doc is None:
                problems.append(f"query {qid}: relevant doc {cid} is not in the index")
            else:
                gold.add(doc.work_id)
        questions.append(Question(id=qid, text=queries[qid], type="query", split=split, gold=gold))
    questions.sort(key=lambda q: (len(q.id), q.id))
    return questions, problems
