"""Parse and ingest throughput of a synthetic BibTeX library beside the JSONL of the same records.

    python -m evals.experiments.bench_formats [--entries 20000] [--ingest-subset 1000] [--out-dir DIR]

The library: ``--entries`` BibTeX entries (title, authors with LaTeX accents, journal or
booktitle, year, DOI, keywords, a braced abstract with a LaTeX command) built from the bundled
abstracts, each made distinct by a numbered sentence; the JSONL holds the same records. Reported:
the parse time of the whole library in each format (ingest/loaders.load_file), and the ingest time
(real MiniLM embedder, embedded Chroma) of the first ``--ingest-subset`` entries of each, whose
per-entry cost gives the whole ingest's by proportion (the whole 20k ingest takes too long on a
shared machine); the parse share is parse time / (parse + ingest) time.

Measured (2 shared cores, load 7-12 throughout, so every figure is slow; --entries 20000
--ingest-subset 500): BibTeX parse 172 s (116 entries/s), JSONL parse 36 s (563/s); subset
ingest 0.8 / 1.0 entries/s, so the whole ingest ~25,000 / ~20,000 s; parse share 0.7 % / 0.2 %.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

from assistant.settings import DEFAULT_CORPUS
from ingest.loaders import iter_files, load_file

_FAMILIES = ["M{\\\"u}ller", "Garc{\\'\\i}a", "Smith", "{\\O}stergaard", "Nguyen", "Kov{\\'a}cs", "Chen", "Dubois"]
_GIVEN = ["Ada", "Jörg", "María", "Wei", "Søren", "Anna", "Li", "Jean"]
_VENUES = ["journal = {Journal of Machine Learning Research}", "booktitle = {Advances in Neural Information Processing Systems}",
           "journal = {Transactions of the Association for Computational Linguistics}", "booktitle = {Proceedings of ICML}"]


def library(n: int, seed: int = 7) -> list[dict[str, object]]:
    rng = random.Random(seed)
    texts = [r.text for f in iter_files([DEFAULT_CORPUS]) for r in load_file(f)[0]]
    out = []
    for i in range(n):
        base = texts[i % len(texts)].replace("{", "(").replace("}", ")")  # balanced braces
        authors = [f"{rng.choice(_FAMILIES)}, {rng.choice(_GIVEN)}" for _ in range(rng.randint(1, 5))]
        out.append({
            "key": f"entry{i:05d}", "title": f"Synthetic Study Number {i} of {base.split()[0]} {base.split()[1]}",
            "authors": authors, "year": 1995 + i % 30, "venue": rng.choice(_VENUES), "doi": f"10.5555/synth.{i}",
            "keywords": "synthetic, benchmark", "abstract": f"{base} This is the \\emph{{synthetic}} entry number {i}.",
        })
    return out


def write_bib(records: list[dict[str, object]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(f"@article{{{r['key']},\n  title = {{{r['title']}}},\n  author = {{{' and '.join(r['authors'])}}},\n"
                    f"  {r['venue']},\n  year = {{{r['year']}}},\n  doi = {{{r['doi']}}},\n  keywords = {{{r['keywords']}}},\n"
                    f"  abstract = {{{r['abstract']}}}\n}}\n\n")


def write_jsonl(records: list[dict[str, object]], path: Path) -> None:
    from ingest.bibtex import LatexDecoding

    decoder = LatexDecoding()

    def decode(value: str) -> str:  # the same text the BibTeX reader stores
        return decoder._transform_python_value_string(value)[0]

    with path.open("w", encoding="utf-8") as f:
        for r in records:
            row = {"id": r["key"], "title": r["title"], "authors": [decode(a) for a in r["authors"]], "year": r["year"],
                   "venue": str(r["venue"]).split("{", 1)[1].rstrip("}"), "doi": r["doi"], "keywords": r["keywords"],
                   "abstract": decode(str(r["abstract"]))}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def timed_parse(path: Path) -> tuple[float, int, int]:
    t = time.perf_counter()
    records, problems = load_file(path)
    return time.perf_counter() - t, len(records), sum(not p.warning for p in problems)


def timed_ingest(path: Path, data_dir: Path) -> tuple[float, int]:
    from assistant import Assistant

    a = Assistant(data_dir=data_dir, backend="extractive")
    t = time.perf_counter()
    report = a.ingest([path], progress=False)
    return time.perf_counter() - t, report.added


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.experiments.bench_formats", description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=20_000)
    ap.add_argument("--ingest-subset", type=int, default=1000, help="entries ingested per format (0: none)")
    ap.add_argument("--out-dir", type=Path, help="where the files and indexes go (default: a temporary folder)")
    args = ap.parse_args(argv)
    out = args.out_dir or Path(tempfile.mkdtemp(prefix="bench-formats-"))
    out.mkdir(parents=True, exist_ok=True)
    records = library(args.entries)
    bib, jsonl = out / "library.bib", out / "library.jsonl"
    write_bib(records, bib)
    write_jsonl(records, jsonl)
    print(f"load {os.getloadavg()[0]:.1f} (1-min); {args.entries} entries; bib {bib.stat().st_size / 1e6:.1f} MB, "
          f"jsonl {jsonl.stat().st_size / 1e6:.1f} MB")
    rows = []
    for name, path, write in (("bibtex", bib, write_bib), ("jsonl", jsonl, write_jsonl)):
        parse_s, n, bad = timed_parse(path)
        row = {"format": name, "entries": n, "rejected": bad, "parse_s": round(parse_s, 2),
               "parse_per_s": round(n / parse_s)}
        if args.ingest_subset:
            sub = out / f"subset{path.suffix}"
            write(records[: args.ingest_subset], sub)
            ingest_s, added = timed_ingest(sub, out / f"index-{name}")
            per_entry = ingest_s / max(added, 1)
            whole = per_entry * n
            row.update(subset=added, subset_ingest_s=round(ingest_s, 1), ingest_per_s=round(added / ingest_s, 1),
                       whole_ingest_est_s=round(whole), parse_share=round(parse_s / (parse_s + whole), 4))
        rows.append(row)
        print(json.dumps(row))
    print(f"load {os.getloadavg()[0]:.1f} (1-min) at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
