"""Labelled claims for the learned support check (assistant/verify/support.py): mechanical swaps across
neighbouring abstracts, and the readers' written claims copied in with the abstracts they cite.

    python -m evals.claims_swaps build     # writes evals/datasets/claims_swaps.jsonl (seeded)
    python -m evals.claims_swaps written DIR   # copies DIR/out/C*.jsonl and the abstracts they use

A claim is labelled against the abstract it cites (``cited``), shown among that abstract's
retrieval neighbourhood (``sources``: it and its closest abstracts by whole-abstract MiniLM
vector, near-duplicate versions left out: ``evals.misattribution.neighbourhoods``). For each
bundled abstract A and its two closest neighbours B:

- ``other_work``: a sentence of B cited to A verbatim, preferring one whose names A also mentions
  (B's finding put under A's name; no name gives it away);
- ``other_work_paraphrase``: such a sentence rewritten mechanically (``misattribution.paraphrases``);
- ``renamed``: a sentence of B naming B, B's own name replaced by A's (``misattribution.content_swap``);
- ``number``: a sentence of A with one number replaced by one of B's that A never states;
- ``own``: a sentence of A (supported), and ``paraphrase``: up to two mechanical rewrites of A's
  sentences (supported).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

from assistant.verify import attribution
from evals import misattribution as mis

DATASETS = Path(__file__).resolve().parent / "datasets"
SWAPS_PATH = DATASETS / "claims_swaps.jsonl"
WRITTEN_PATH = DATASETS / "claims_written.jsonl"
ABSTRACTS_PATH = DATASETS / "claims_abstracts.jsonl"  # the written claims' abstracts and neighbourhoods
SEED = 40


def _item(kind: str, claim: str, a: str, other: str, hood: list[str], label: str, origin: str) -> dict[str, Any]:
    return {"claim": claim, "cited": a, "other": other, "sources": [a, *hood], "label": label, "kind": kind,
            "from": origin}


def items_for(a: str, corpus: dict[str, str], names: dict[str, str | None], hood: list[str],
              rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    own = [s for s in mis.sentences(corpus[a]) if mis.usable(s)]
    for b in hood[:2]:
        theirs = [s for s in mis.sentences(corpus[b]) if mis.usable(s) and s not in own]
        quiet = [s for s in theirs if not attribution.unmentioned(s, corpus[a])] or theirs
        if not quiet:
            continue
        s = quiet[rng.randrange(len(quiet))]
        out.append(_item("other_work", s, a, b, hood, "unsupported", s))
        rest = [(t, p) for t in quiet if t != s for _, p in mis.paraphrases(t)[:1]]
        if b == hood[0] and rest:
            t, p = rest[rng.randrange(len(rest))]
            out.append(_item("other_work_paraphrase", p, a, b, hood, "unsupported", t))
    na = names[a]
    for b in hood[:2]:
        nb = names[b]
        if not (na and nb) or attribution.occurs(na, nb) or attribution.occurs(nb, na):
            continue
        of_b = [s for s in mis.sentences(corpus[b]) if mis.usable(s) and attribution.occurs(nb, s)
                and not attribution.occurs(na, s)]
        if of_b and (claim := mis.replace_name(of_b[rng.randrange(len(of_b))], nb, na)):
            out.append(_item("renamed", claim, a, b, hood, "unsupported", claim))
            break
    with_numbers = [s for s in own if attribution.number_mentions(s)]
    if with_numbers:
        s = with_numbers[rng.randrange(len(with_numbers))]
        if claim := mis.number_swap(s, corpus[hood[0]], corpus[a], rng):
            out.append(_item("number", claim, a, hood[0], hood, "unsupported", s))
    if own:
        s = own[rng.randrange(len(own))]
        out.append(_item("own", s, a, hood[0], hood, "supported", s))
        rewrites = [(t, p) for t in own for _, p in mis.paraphrases(t)]
        for t, p in rng.sample(rewrites, min(2, len(rewrites))):
            out.append(_item("paraphrase", p, a, hood[0], hood, "supported", t))
    return out


def build(corpus: dict[str, str], vectors: np.ndarray, seed: int = SEED) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    keys = list(corpus)
    names = {k: mis.own_name(corpus[k], list(corpus.values())) for k in keys}
    hoods = mis.neighbourhoods(keys, vectors)
    items = [it for a in keys for it in items_for(a, corpus, names, hoods[a], rng)]
    for n, it in enumerate(items, 1):
        it["id"] = f"S{n:04d}"
    return items


def copy_written(readers: Path) -> dict[str, int]:
    """The readers' claims (C*.jsonl) as one file, and the abstracts they cite with neighbourhoods."""
    rows = []
    for f in sorted((readers / "out").glob("C*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                r["batch"] = f.stem
                rows.append(r)
    docs = {}
    hoods = {}
    for name in ("bundled_corpus.jsonl", "scifact_sample.jsonl"):
        for line in (readers / name).read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            docs[d["doc_id"]] = " ".join(d["sentences"])
    for name in ("bundled_neighbours.jsonl", "scifact_neighbours.jsonl"):
        for line in (readers / name).read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            hoods[d["doc_id"]] = [k for k, _ in d["neighbours"]][: mis.NEIGHBOURS]
    used = {r["cited"] for r in rows}
    needed = used | {k for a in used for k in hoods[a]} | {r["other"] for r in rows}
    WRITTEN_PATH.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    ABSTRACTS_PATH.write_text("".join(json.dumps({"doc_id": k, "text": docs[k], "neighbours": hoods.get(k, [])},
                                                 ensure_ascii=False) + "\n" for k in sorted(needed)), encoding="utf-8")
    return {"claims": len(rows), "abstracts": len(needed)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.claims_swaps", description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=("build", "written"))
    ap.add_argument("readers", nargs="?", default=None, help="written: the readers' folder (out/C*.jsonl, abstracts)")
    args = ap.parse_args(argv)
    if args.command == "written":
        if not args.readers:
            ap.error("written: name the readers' folder (out/C*.jsonl and the abstracts they read)")
        print(copy_written(Path(args.readers)))
        return 0
    corpus, cache, _ = mis._parts()
    keys = list(corpus)
    vectors = np.asarray(cache.embedder([corpus[k] for k in keys]), dtype=np.float32)
    items = build(corpus, vectors)
    SWAPS_PATH.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in items), encoding="utf-8")
    counts: dict[str, int] = {}
    for it in items:
        counts[it["kind"]] = counts.get(it["kind"], 0) + 1
    print(f"wrote {len(items)} items to {SWAPS_PATH}: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
