"""The hand-written paraphrase set (evals/experiments/paraphrase_written.py): every kept row resolves to its
abstract, its key points are the abstract's words, its follow-ups follow their first question, its
unanswerable ones have no gold, and the overlap filter drops a question that copies its abstract."""

from __future__ import annotations

import json

from assistant import Assistant
from assistant.store.idf import Idf
from evals.calibration import MAX_RARE_HELD
from evals.data import resolve_anchors
from evals.experiments.paraphrase_written import OUT_PATH, SOURCE_PATH, drawn, figures


def _rows() -> list[dict]:
    return [json.loads(line) for line in OUT_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_kept_row_is_answered_by_its_own_abstract(corpus: Assistant) -> None:
    docs = corpus.retriever.docs()
    rows = _rows()
    qs, problems = resolve_anchors(rows, docs)
    assert not problems and len(rows) >= 40
    seen: set[str] = set()
    for r, q in zip(rows, qs, strict=True):
        assert "tuning data, never a judge" in r["made"]
        if r["type"] == "unanswerable":  # beside a drawn abstract, asking what it does not state
            assert not q.gold and not r["key_points"] and r["beside_doc_id"] in docs
            continue
        assert q.gold == {docs[r["doc_id"]].work_id}  # gold = the abstract the question was written about
        text = " ".join(docs[r["doc_id"]].text.split()).lower()
        assert all(k.lower() in text for k in r["key_points"]) and r["key_points"]
        assert r["overlap"]["rare_held"] <= MAX_RARE_HELD
        assert r["previous"] is None or r["previous"] in seen  # asked after its first question
        seen.add(r["id"])
    assert {r["type"] for r in rows} == {"paraphrase", "short", "followup", "unanswerable"}


def test_the_draw_is_the_seeded_one_and_the_filter_drops_copies(corpus: Assistant) -> None:
    docs = corpus.retriever.docs()
    picked = {d.doc_id for d in drawn(docs)}
    source = [json.loads(line) for line in SOURCE_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert {r["doc_id"] for r in source} <= picked  # written only about drawn abstracts
    idf = Idf(d.text for d in docs.values())
    doc = docs[source[0]["doc_id"]]
    copied = figures(corpus, doc.text[:300], doc.text, idf)  # the abstract's own opening as a question
    assert copied["rare_held"] > MAX_RARE_HELD or copied["bm25_top"] > 0.2
    meta = json.loads(OUT_PATH.with_suffix(".meta.json").read_text(encoding="utf-8"))
    assert meta["kept"] == len(_rows()) and meta["written"] == len(source)
