"""The sentence scorer's labelled rows as (question, sentence) pairs for the sentence cross-encoder
(``make train``). Run in the product environment after ``python -m evals.fit_sentences features``:
one pair per cached row, in the cache's order, keyed ``qid|doc:position:count`` (the key
``evals.fit_sentences`` joins the cross-encoder's out-of-fold probabilities on), labelled 1 answers,
0.5 in part, 0 otherwise, -1 where the labels do not line up (never trained on).

    python -m evals.sentence_pairs   # -> evals/runs/_cache/sentence_pairs.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from evals import fit_sentences as fs

OUT = fs.ROOT / "runs" / "_cache" / "sentence_pairs.jsonl"
CORPUS_SENTENCES = fs.DATASETS / "corpus_sentences.jsonl"


def sentences_of(docs: set[str], scifact_dir: Path) -> dict[str, list[str]]:
    """Each abstract's sentences as evidence scoring splits them: the labelled corpus file, and for
    SciFact abstracts no reader labelled, the stored abstract split here the same way."""
    from assistant.language.patterns import INSTRUCTION_LIKE
    from assistant.language.text import split_sentences

    out = {r["doc_id"]: r["sentences"] for r in fs._rows(CORPUS_SENTENCES)}
    need = docs - set(out)
    if need:
        from assistant import Assistant

        for doc in Assistant(data_dir=scifact_dir).retriever.docs().values():
            key = f"sf{doc.metadata.get('external_id')}"
            if key in need:
                t = doc.original
                spans = [t[s.start:s.end] for s in split_sentences(t)]
                out[key] = [x for x in spans if not INSTRUCTION_LIKE.search(x)]
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m evals.sentence_pairs", description=__doc__.split("\n")[0])
    ap.add_argument("--scifact-dir", type=Path, default=fs.ROOT / "runs" / "_cache" / "scifact-fit")
    args = ap.parse_args(argv)
    d = fs.with_labels(dict(np.load(fs.CACHE, allow_pickle=False)))
    sents = sentences_of({w.rsplit(":", 2)[0] for w in d["where"]}, args.scifact_dir)
    questions = {r["id"]: r["question"] for r in fs._rows(fs.QUESTIONS)}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8") as f:
        for where, qid, y in zip(d["where"], d["qid"], d["y"], strict=True):
            doc, pos, count = str(where).rsplit(":", 2)
            text = sents.get(doc, [])
            if len(text) != int(count):
                raise SystemExit(f"{doc}: {len(text)} sentences, the cache has {count}: rerun the features")
            f.write(json.dumps({"id": f"{qid}|{where}", "claim": questions[str(qid)], "evidence": text[int(pos)],
                                "label": float(y), "group": str(qid)}) + "\n")
    print(f"wrote {OUT} ({len(d['y'])} pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
