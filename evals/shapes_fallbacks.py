"""Two fallbacks for overviews the frames miss, measured and rejected (helper E3, session 12, #21).

    python -m evals.shapes_fallbacks            # both, on every tuning split + shapes_written (by batch)

When the frames (``assistant.question.shape.detect``) say "fact":

- ``lexicon``: call it an overview when the question holds a word for a body of work or a state of
  knowledge (``NARROW``: literature, consensus, landscape, the field, big picture, highlights, "we
  know / have learned"; ``BROAD`` adds research, approaches, methods, papers, progress...) and no
  one-work anchor (``ONE_WORK``);
- ``meaning``: the k nearest labelled questions by the embedder's cosine (leave one group out: a
  split, or one batch of shapes_written), overriding "fact" when a non-fact label holds ``SHARE``
  of the neighbours' weight and the nearest is at least ``FLOOR`` close.

Neither is shipped: each adds false overviews / lists on the single-fact splits (the brief allows
none beyond today's), for a few overviews more (figures: docs/measurements.md, "Session 12", Question shapes). A third,
from the retrieval evidence (``evals.shapes_evidence``, session 13), was rejected too.
"""
from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from typing import Any

from evals.data import load_for_tuning, resolve_path
from evals.shapes_written import PATH, SPLITS

NARROW = r"\b(?:literature|consensus|landscape|the\s+field|big\s+picture|highlights|we\s+(?:have\s+)?(?:learned|learnt|know))\b"
BROAD = (r"\b(?:research|literature|the\s+field|consensus|landscape|known|learned|learnt|approaches|methods|strategies|techniques"
         r"|directions|trends|findings|highlights|progress|state\s+of|people|researchers|(?:recent|prior|existing)\s+work|papers|studies)\b")
OVERVIEW = "overview"
K, FLOOR, SHARE = 5, 0.6, 0.67  # the best of a small grid (k 3/5/9, floor 0.5/0.6/0.7, share 0.5/0.67) on false facts
# a split's question types that are single facts (the rest of dev / calibration: multi, follow-ups, unlabelled here)
FACT_TYPES = {"lookup", "paraphrase", "numeric", "unanswerable", "short"}
_SHAPE_OF = {"list": "list", "list_reworded": "list", "list_written": "list", "list_absent": "list", "overview": "overview",
             "compare": "compare", "fact_written": "fact"}


def labelled() -> list[tuple[str, str, str]]:
    """(group, question, shape) for every labelled tuning question (follow-ups and multi-paper questions left out)."""
    out: list[tuple[str, str, str]] = []
    for name in SPLITS:
        for r in load_for_tuning(resolve_path(name)[1]):
            t = r.get("type", "")
            shape = "fact" if t in FACT_TYPES else _SHAPE_OF.get(t)
            if shape and not r.get("previous"):
                out.append((name, r["question"], shape))
    for r in load_for_tuning(PATH):
        out.append((f"shapes_written:{r['id'][:2]}", r["question"], r["shape"]))
    first: dict[str, tuple[str, str, str]] = {}
    for row in out:
        first.setdefault(row[1].lower(), row)  # a question in two splits counts once
    return list(first.values())


def _table(rows: list[tuple[str, str, str]], predicted: list[str]) -> dict[str, Any]:
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for (group, _, shape), kind in zip(rows, predicted, strict=True):
        table[f"{group} {shape}"][kind] += 1
    return {k: dict(v) for k, v in sorted(table.items())}


def lexicon(rows: list[tuple[str, str, str]], frames: list[str], pattern: str) -> list[str]:
    from assistant.question.shape_frames import ONE_WORK

    body = re.compile(pattern, re.I)
    return [OVERVIEW if kind == "fact" and body.search(q) and not ONE_WORK.search(q) else kind
            for (_, q, _), kind in zip(rows, frames, strict=True)]


def meaning(rows: list[tuple[str, str, str]], frames: list[str]) -> list[str]:
    import numpy as np

    from assistant.settings import Settings
    from assistant.store.embeddings import make_embedder

    x = np.asarray(make_embedder(Settings())([q for _, q, _ in rows]), dtype=np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    sims, groups = x @ x.T, np.array([g for g, _, _ in rows])
    out: list[str] = []
    for i, kind in enumerate(frames):
        if kind != "fact":
            out.append(kind)
            continue
        row = np.where(groups != groups[i], sims[i], -1.0)  # leave the question's group out
        near = np.argsort(-row)[:K]
        weight: dict[str, float] = defaultdict(float)
        for j in near:
            weight[rows[j][2]] += max(float(row[j]), 0.0)
        best = max(weight, key=lambda k: weight[k])
        ok = best != "fact" and weight[best] / (sum(weight.values()) or 1.0) >= SHARE and row[near[0]] >= FLOOR
        out.append(best if ok else "fact")
    return out


def main(argv: list[str] | None = None) -> int:
    from assistant.question.shape import detect

    rows = labelled()
    frames = [detect(q).kind for _, q, _ in rows]
    result = {"frames": _table(rows, frames), "lexicon_narrow": _table(rows, lexicon(rows, frames, NARROW)),
              "lexicon_broad": _table(rows, lexicon(rows, frames, BROAD)), "meaning": _table(rows, meaning(rows, frames))}
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
