"""One question on one corpus gets one extractive answer, whatever the process (session 14, #21).

Chroma keeps vectors not yet persisted (under its hnsw:sync_threshold: every abstract vector of a
small corpus) in an HNSW graph rebuilt by several threads each time the store is opened, so each
process's approximate search missed other abstracts at depth, and an overview cited 3 works in one
run and 2 in another (``python -m evals.experiments.determinism seeds``). A small collection is now ranked
exactly (``HybridRetriever._vector_query``); these tests fail on the approximate search.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from assistant import Assistant

ROOT = Path(__file__).resolve().parent.parent
# Tuning questions whose answers differed between two runs before the fix (shapes_written SW023, SY001:
# an overview's uncited further abstracts), and two list topics.
QUESTIONS = ["What are the current challenges in long-context modelling?", "What's the story so far on learned optimizers?"]
TOPICS = ["long-context modelling", "learned optimizers", "knowledge graphs for question answering",
          "curriculum learning for language models"]

ASK = """
import json, sys
from assistant import Assistant
a = Assistant(data_dir=sys.argv[1], backend="extractive")
out = []
for q in json.loads(sys.argv[2]):
    ans = a.ask(q)
    out.append({"text": ans.text, "cited": [c.doc_id for c in ans.citations],
                "items": [[i.doc_id, i.n, i.cited] for i in ans.items], "shape": ans.shape, "caveat_kind": ans.caveat_kind})
print(json.dumps(out))
"""


def _exact(assistant: Assistant, topic: str, n: int) -> list[str]:
    """The ``n`` abstracts nearest ``topic`` by exact cosine over every stored abstract vector."""
    got = assistant.store.docs.get(include=["embeddings"])
    ids = sorted(got["ids"])
    by_id = dict(zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32), strict=True))
    matrix = np.stack([by_id[i] / np.linalg.norm(by_id[i]) for i in ids])
    q = assistant.retriever.embed_query(topic)
    sims = matrix @ (q / np.linalg.norm(q))
    return [ids[i] for i in np.argsort(-sims, kind="stable")[:n]]


def test_abstract_search_is_exact_at_depth(corpus_dir: Path) -> None:
    """A fresh store's whole-abstract ranking, 100 deep, is the exact one (HNSW's was not)."""
    fresh = Assistant(data_dir=corpus_dir, backend="extractive")  # opened anew: its own in-memory graph
    for topic in TOPICS:
        got = [d for d, _ in fresh.retriever.signals(topic, 100, names=["abstract"])["abstract"]]
        assert got == _exact(fresh, topic, 100), topic


def test_same_answer_in_two_processes(corpus_dir: Path) -> None:
    """Two fresh processes with different hash seeds give the same answers (text, citations, items)."""
    runs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, HF_HUB_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
        done = subprocess.run([sys.executable, "-c", ASK, str(corpus_dir), json.dumps(QUESTIONS)], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert runs[0] == runs[1]
    assert all(r["items"] for r in runs[0])  # each is answered as a list or overview, not refused
