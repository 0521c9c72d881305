"""The labelled claims as (claim, evidence) pairs for the support cross-encoder (``make train``).

    python -m evals.support_pairs [--out evals/runs/_cache/support_pairs.jsonl]

Each labelled claim of ``evals.support_fit.load_items`` is judged as the verifier judges it
(``evals.support_fit.context``); its evidence is what the product's cross-encoder reads of the
cited abstract (``assistant.verify.support.evidence``: the claim's best three sentences there, in
the abstract's order). Each row carries the item's group (its cited abstract), from which
``evals.train_support_ce cv`` makes the grouped folds of ``python -m evals.fit support --folds N``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from evals.support_fit import context, load_items, log

OUT = Path(__file__).resolve().parent / "runs" / "_cache" / "support_pairs.jsonl"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.support_pairs", description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    from assistant.evidence.scoring import SentenceCache
    from assistant.settings import Settings, VerifySettings
    from assistant.store.embeddings import make_embedder
    from assistant.store.idf import Idf
    from assistant.verify.citations import Verifier
    from assistant.verify.support import evidence

    items, texts = load_items()
    cache = SentenceCache(make_embedder(Settings()))
    idf = Idf(texts.values())
    log(f"embedding {len(items)} claims ...")
    vecs = np.asarray(cache.embedder([it["claim"] for it in items]), np.float32)
    cache.get(list(dict.fromkeys(texts[k] for it in items for k in it["sources"])))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for it, vec in zip(items, vecs, strict=True):
            v = Verifier([texts[k] for k in it["sources"]], cache, idf, VerifySettings(learned=False))
            v._known[" ".join(it["claim"].split())] = vec
            j = context(v, it["claim"], vec)
            f.write(json.dumps({"id": it["id"], "claim": it["claim"], "evidence": evidence(v, j, 0),
                                "label": int(it["label"] == "supported"), "kind": it["kind"], "origin": it["origin"],
                                "group": it["group"]}) + "\n")
    log(f"wrote {len(items)} pairs to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
