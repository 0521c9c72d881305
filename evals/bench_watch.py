"""How soon a change to a watched library is searchable (issue #41: within 5 s).

    python -m evals.bench_watch --data-dir D [--rounds 3]

``D`` holds an index (e.g. the bundled corpus, ingested); a copy is used. A watcher runs in this
process's background as under ``assistant serve --library`` (real embedder, embedded Chroma),
over a BibTeX file and a ``zotero.sqlite`` (evals/zotero_db.py, Zotero's schema). Each round
appends one entry to the .bib (rewritten in place) and adds one item to the database, and times
from the write until ``search`` returns the new abstract first.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from evals.zotero_db import ZoteroDB

WORDS = ("amber basalt cobalt dune ember fjord garnet harbor indigo jasper kelp lagoon meadow nectar onyx "
         "prairie quartz reef sierra tundra umber valley willow xenon yarrow zephyr").split()


def _abstract(tag: str) -> str:
    body = " ".join(WORDS[(i * 7 + len(tag)) % len(WORDS)] for i in range(40))
    return f"We study the {tag} phenomenon in detail. The {tag} effect appears in {body}. Results on {tag} hold."


def _wait(a, tag: str, t0: float, timeout: float = 120.0) -> float:
    while time.monotonic() - t0 < timeout:
        hits = a.search(f"{tag} phenomenon {tag} effect", k=1, mode="bm25")
        if hits and tag in hits[0].text:
            return time.monotonic() - t0
        time.sleep(0.05)
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    from assistant import Assistant

    parser = argparse.ArgumentParser(prog="python -m evals.bench_watch")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="bench-watch-"))
    data = root / "data"
    shutil.copytree(args.data_dir, data)
    bib = root / "library.bib"
    entries: list[str] = []

    def write_bib() -> None:
        with open(bib, "w", encoding="utf-8") as f:  # in place, as Better BibTeX rewrites it
            f.write("".join(entries))

    entries.append(f"@article{{seed,\n  title = {{Seed}},\n  abstract = {{{_abstract('seedling')}}}\n}}\n\n")
    write_bib()
    (root / "Zotero").mkdir()
    db = ZoteroDB(root / "Zotero" / "zotero.sqlite", wal=True)
    db.add(fields={"title": "Seed item", "abstractNote": _abstract("sapling")})
    a = Assistant(data_dir=data, backend="extractive")
    a.search("warm up", k=1)
    watcher = a.watch([bib, root / "Zotero"])
    _wait(a, "sapling", time.monotonic())
    out: dict[str, list[float]] = {"bib_s": [], "zotero_s": []}
    for r in range(args.rounds):
        tag = f"bibword{r}x"
        entries.append(f"@article{{k{r},\n  title = {{Paper {r}}},\n  abstract = {{{_abstract(tag)}}}\n}}\n\n")
        t0 = time.monotonic()
        write_bib()
        out["bib_s"].append(round(_wait(a, tag, t0), 2))
        tag = f"zotword{r}x"
        t0 = time.monotonic()
        db.add(fields={"title": f"Item {r}", "abstractNote": _abstract(tag), "date": "2024-00-00 2024"})
        out["zotero_s"].append(round(_wait(a, tag, t0), 2))
    watcher.stop()
    summary = {k: {"each": v, "median": statistics.median(v), "max": max(v)} for k, v in out.items()}
    print(json.dumps({**summary, "events": [e.message for e in watcher.events]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
