"""Labelled lead sentences: the default local model's own "lead" sentences, judged by readers against
the abstract they cite (issue #40's third source of labelled claims: the project's own model).

    python -m evals.support_reader answers --data-dir D --questions Q.jsonl --out RUN.jsonl --backend local
    python -m evals.lead_claims packet RUN.jsonl [RUN2.jsonl ...] --out DIR --parts 3 --seed 40
    python -m evals.lead_claims collect DIR/key.json VERDICTS.jsonl [...] --out evals/datasets/claims_lead_written.jsonl
    python -m evals.lead_claims check LEADS.jsonl [--bar B] [--claims-bar]

``packet`` takes each answer's first sentence the model wrote (a lead that is a verbatim sentence of
a source is the quotes' fallback, not the model's, and is left out), gives it an opaque id (the
reader sees neither the question's batch nor the check's verdict), and writes ``--parts`` packets of
shuffled items, each the question, the sentence and the full text of the abstract(s) it cites (the
first source when it cites none), under ``support_reader.RUBRIC``; ``key.json`` maps the ids back.
``collect`` joins a reader's JSON lines with the key: ``label`` supported when the reader says
"yes", unsupported for "no" and "partly" (a detail shown as checked that the abstract does not state
is the outcome to avoid), ``kind`` the reader's why; the sources (the abstracts the answer was
verified among) as corpus keys (``misattribution.doc_key``), so ``evals.support_fit`` can judge each
lead as the product does. ``check`` verifies each labelled lead among its sources as
``engine._lead_checked`` does (the rules, then the learned check at the lead's bar: ``--bar``, else the
shipped ``lead_threshold``; ``--claims-bar``: the claims' own threshold, as before the lead had a bar)
and counts the unstated leads it would show as checked and the stated ones it keeps.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from evals.misattribution import doc_key
from evals.support_reader import RUBRIC

KINDS = {"another work's result": "other_work", "renamed method": "renamed", "changed number": "number",
         "comparison not stated": "comparison", "reversed direction": "reversed", "over-general": "over_general",
         "detail the abstract lacks": "lacking", "other": "other"}


def leads(run: Path) -> list[dict[str, Any]]:
    """Each answer's lead: the model's first sentence, the abstracts it cites (indices into the
    answer's sources), and the sources' texts."""
    from assistant.verify.citations import verbatim_key
    from assistant.verify.markers import parse_markers, split_answer, strip_markers
    from evals.misattribution import sentences

    out = []
    for line in run.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if not r.get("raw") or not r.get("sources"):
            continue
        first = next((x for x in split_answer(r["raw"]) if strip_markers(x).strip()), "")
        claim = strip_markers(first).strip()
        quotes = {verbatim_key(s) for src in r["sources"] for s in sentences(src["text"])}
        if not claim or verbatim_key(claim) in quotes:
            continue
        k = len(r["sources"])
        cited = [n - 1 for n in dict.fromkeys(parse_markers(first)) if 1 <= n <= k]
        out.append({"question_id": r["id"], "question": r["question"], "claim": claim, "cited": cited,
                    "sources": [src["text"] for src in r["sources"]], "run": str(run)})
    return out


def packet(runs: list[Path], out: Path, parts: int, seed: int) -> int:
    items = [it for run in runs for it in leads(run)]
    rng = random.Random(seed)
    rng.shuffle(items)
    out.mkdir(parents=True, exist_ok=True)
    key: dict[str, Any] = {}
    for p in range(parts):
        lines = ["# Support check, reader's packet\n", "Each item: a question, one sentence an assistant wrote to "
                 "answer it, and the abstract(s) the sentence cites. Judge the sentence only against the "
                 "cited abstract's text.\n", RUBRIC, ""]
        for it in items[p::parts]:
            sid = "L-" + hashlib.sha256(f"{seed}:{it['question_id']}:{it['claim']}".encode()).hexdigest()[:8]
            key[sid] = {k: it[k] for k in ("question_id", "question", "claim", "cited", "run")} | {
                "sources": [doc_key(t) for t in it["sources"]], "part": p + 1}
            shown = it["cited"] or [0]
            lines.append(f"\n## {sid}\n**Question:** {it['question']}\n**Sentence:** {it['claim']}")
            lines.extend(f"**Cited abstract:** {it['sources'][i]}" for i in shown)
        (out / f"part{p + 1}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "key.json").write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    return len(key)


def collect(key_path: Path, verdicts: list[Path], out: Path, batch: str, parts_only: bool = False) -> dict[str, int]:
    key = json.loads(key_path.read_text(encoding="utf-8"))
    rows, seen = [], set()
    for path in verdicts:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                v = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SystemExit(f"{path}:{n}: not a JSON line ({exc})") from exc
            if v.get("id") not in key or v["id"] in seen:
                raise SystemExit(f"{path}:{n}: id {v.get('id')!r} is not in {key_path} or is given twice")
            if v.get("stated") not in ("yes", "partly", "no"):
                raise SystemExit(f"{path}:{n}: stated must be yes, partly or no, not {v.get('stated')!r}")
            seen.add(v["id"])
            k = key[v["id"]]
            ok = v["stated"] == "yes"
            rows.append({"id": v["id"], "question_id": k["question_id"], "question": k["question"], "claim": k["claim"],
                         "sources": k["sources"], "cited": k["cited"], "label": "supported" if ok else "unsupported",
                         "stated": v["stated"], "kind": None if ok else KINDS.get(v.get("why") or "other", "other"),
                         "note": v.get("note", ""), "batch": batch})
    missing = sorted(set(key) - seen)
    if missing and not parts_only:
        raise SystemExit(f"{len(missing)} items of {key_path} have no verdict (first: {missing[0]})")
    if parts_only:  # only whole packets: a part with no verdict file is left out, a part half judged is an error
        judged = {key[i]["part"] for i in seen}
        half = [i for i in missing if key[i]["part"] in judged]
        if half:
            raise SystemExit(f"{len(half)} items of parts {sorted(judged)} have no verdict (first: {half[0]})")
    rows.sort(key=lambda r: r["id"])
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return {"items": len(rows), "unsupported": sum(r["label"] == "unsupported" for r in rows)}


def check(path: Path, bar: float | None, claims_bar: bool) -> dict[str, Any]:
    from assistant.evidence.scoring import SentenceCache
    from assistant.settings import Settings
    from assistant.store.embeddings import make_embedder
    from assistant.store.idf import Idf
    from assistant.verify import support
    from assistant.verify.citations import Verifier
    from evals.misattribution import load_corpus

    corpus = load_corpus()
    settings = Settings()
    cache, idf = SentenceCache(make_embedder(settings)), Idf(corpus.values())
    used = None if claims_bar else support.lead_bar(bar)
    cfg = settings.verify.model_copy(update={"learned_bar": used})
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    shown_unstated, kept_stated, stated, unstated = [], 0, 0, 0
    for r in rows:
        marks = "".join(f"[{i + 1}]" for i in r["cited"])
        out = Verifier([corpus[k] for k in r["sources"]], cache, idf, cfg).verify(f"{r['claim']} {marks}".strip())
        ok = bool(out.sentences and out.sentences[0].supported)
        if r["label"] == "supported":
            stated += 1
            kept_stated += ok
        else:
            unstated += 1
            if ok:
                shown_unstated.append(r["id"])
    return {"leads": len(rows), "bar": used, "unstated shown as checked": f"{len(shown_unstated)} of {unstated}",
            "stated kept": f"{kept_stated} of {stated}", "shown_unstated_ids": shown_unstated}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.lead_claims", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("packet")
    s.add_argument("runs", type=Path, nargs="+")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--parts", type=int, default=3)
    s.add_argument("--seed", type=int, default=40)
    s = sub.add_parser("collect")
    s.add_argument("key", type=Path)
    s.add_argument("verdicts", type=Path, nargs="+")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--batch", default="L1")
    s.add_argument("--parts-only", action="store_true", help="keep the packets judged, leave out parts with no verdicts")
    s = sub.add_parser("check")
    s.add_argument("leads", type=Path)
    s.add_argument("--bar", type=float, default=None)
    s.add_argument("--claims-bar", action="store_true")
    args = ap.parse_args(argv)
    if args.cmd == "check":
        print(json.dumps(check(args.leads, args.bar, args.claims_bar), indent=1))
    elif args.cmd == "packet":
        print(packet(args.runs, args.out, args.parts, args.seed), "leads")
    else:
        print(json.dumps(collect(args.key, args.verdicts, args.out, args.batch, args.parts_only)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
