"""The reader's verdict on the support check (evals/support_reader.py): the packet hides the check's
verdicts, recheck runs the checkout's check over a stored model text, score unblinds."""

from __future__ import annotations

import json
from pathlib import Path

from assistant import Assistant
from assistant.language.text import split_sentences
from evals import support_reader


def _run(corpus: Assistant, tmp_path: Path) -> Path:
    ring = corpus.search("Ring Attention blockwise computation long sequences devices", k=1)[0]
    other = corpus.search("LoRA low-rank adaptation frozen pretrained weights", k=1)[0]
    assert ring.doc_id != other.doc_id
    own = next(ring.text[s.start:s.end] for s in split_sentences(ring.text)[1:])
    foreign = next(other.text[s.start:s.end] for s in split_sentences(other.text)[1:])
    raw = f"{own} [1] {foreign} [1]"
    record = {"id": "q1", "question": "What is Ring Attention?", "backend": "mock", "refused": False,
              "text": "", "raw": raw, "sources": [{"doc_id": ring.doc_id, "text": ring.text}],
              "sentences": []}
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps(record) + "\n")
    return run


def test_recheck_packet_and_score(corpus: Assistant, corpus_dir: Path, tmp_path: Path) -> None:
    run = _run(corpus, tmp_path)
    checked = tmp_path / "checked.jsonl"
    support_reader.recheck(run, corpus_dir, checked)
    sentences = json.loads(checked.read_text())["sentences"]
    assert [s["supported"] for s in sentences] == [True, False]  # the other abstract's sentence is dropped

    packet, key = tmp_path / "packet.md", tmp_path / "key.json"
    assert support_reader.packet(checked, packet, key) == 2
    text = packet.read_text()
    assert "q1:0" in text and "q1:1" in text and "supported" not in text.split(support_reader.RUBRIC)[1]

    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text(json.dumps({"id": "q1:0", "stated": "yes"}) + "\n"
                        + json.dumps({"id": "q1:1", "stated": "no", "why": "another work's result"}) + "\n")
    figures = support_reader.score(key, verdicts)
    assert figures["shown_as_checked"] == 1 and figures["shown_as_checked_not_stated"] == 0
    assert figures["not_stated_dropped"] == 1 and figures["stated_kept"] == "1 of 1"


def test_a_fallback_to_quotes_is_not_judged(corpus: Assistant, tmp_path: Path) -> None:
    run = _run(corpus, tmp_path)
    record = json.loads(run.read_text())
    record["backend"] = "local→extractive"
    record["sentences"] = [{"text": "x", "supported": True, "reason": None}]
    run.write_text(json.dumps(record) + "\n")
    assert support_reader.packet(run, tmp_path / "p.md", tmp_path / "k.json") == 0
