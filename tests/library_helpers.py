"""A small reference library with the metadata a reference manager exports (title, authors, year,
venue, doi, arxiv_id, url), for the filter and export tests: JSON Lines records, as the JSON
loader reads them. Each abstract is written apart (no two share a sentence, so none is taken for
a version of another)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from assistant import Assistant

LIBRARY = [
    ("Modelling glacier surface velocity with satellite radar", "Nye, John; Glen, Ruth", 2010, "Journal of Glaciology",
     "Glacier ice flow is estimated from repeated satellite radar images of the ice surface. Feature tracking between "
     "image pairs yields surface velocity fields for outlet glaciers. The fields show seasonal acceleration of the ice "
     "flow near the calving front."),
    ("Basal sliding of temperate glaciers under meltwater pressure", "Schölkopf, Bernhard; Iken, Almut", 2011,
     "Journal of Glaciology",
     "Meltwater reaching the glacier bed raises basal water pressure and lets temperate glaciers slide faster. Borehole "
     "pressure records and surface velocity measurements are combined over three melt seasons. Sliding speed rises "
     "within hours of each rainfall event."),
    ("A numerical model of ice flow in mountain glaciers", "Hutter, Kolumban", 2015,
     "Proceedings of the Conference on Cold Regions",
     "We present a finite element model of ice flow in mountain glaciers that couples the shallow ice approximation "
     "with a sliding law. The model reproduces the measured glacier ice flow velocity of two Alpine glaciers within "
     "ten percent. Sensitivity runs show that glacier ice flow depends most on basal friction."),
    ("Grain growth in polar firn", "Alley, Richard", 2011, "Annals of Glaciology",
     "Snow compacts into firn and then into glacial ice over decades. Grain sizes measured in twelve firn cores grow "
     "with depth at a rate set by temperature. The growth law predicts firn density profiles at new drilling sites."),
    ("Photosynthesis of seagrass meadows in warming coastal water", "Duarte, Carlos", 2010, "Marine Ecology Progress Series",
     "Seagrass meadows store carbon in coastal sediments. Oxygen evolution of leaves was measured at six water "
     "temperatures. Photosynthesis peaked at twenty six degrees and fell sharply above thirty."),
    ("Transformers for protein structure prediction", "Jumper, John; Evans, Richard", 2021, "cs.LG",
     "Attention networks predict protein structure from amino acid sequences. A transformer trained on known "
     "structures reaches atomic accuracy on most targets of a blind assessment. Its confidence score tracks the "
     "measured error of each residue."),
    ("Low-rank adaptation of large language models", "Hu, Edward; Shen, Yelong", 2021, "cs.CL",
     "Fine-tuning every weight of a large language model is costly. Low-rank adaptation freezes the pretrained "
     "weights and trains small rank decomposition matrices in each layer. It matches full fine-tuning quality with "
     "ten thousand times fewer trainable parameters."),
    ("Urban heat islands measured from bicycle transects", "Oke, Timothy", 2016, "Urban Climate",
     "Air temperature was logged from bicycles crossing a city at night. Dense built-up districts were up to seven "
     "degrees warmer than nearby parks. Tree cover explained most of the variation between neighbourhoods."),
]


def library_records() -> list[dict[str, object]]:
    out = []
    for i, (title, authors, year, venue, text) in enumerate(LIBRARY):
        rec: dict[str, object] = {"id": f"lib-{i}", "title": title, "authors": authors, "year": year, "venue": venue,
                                  "abstract": text, "doi": f"10.1234/lib.{i}"}
        if venue.startswith("cs."):
            rec["arxiv_id"] = f"2106.0{i:04d}"
            del rec["doi"]
        out.append(rec)
    return out


def write_library(folder: Path) -> tuple[Path, Path]:
    """The first six records in ``main.jsonl``, the rest in ``second.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)
    recs = library_records()
    main, second = folder / "main.jsonl", folder / "second.jsonl"
    main.write_text("".join(json.dumps(r) + "\n" for r in recs[:6]), encoding="utf-8")
    second.write_text("".join(json.dumps(r) + "\n" for r in recs[6:]), encoding="utf-8")
    return main, second


def library_assistant(corpus_dir: Path, target: Path) -> Assistant:
    """A fresh data dir (the embedding model copied from ``corpus_dir``) holding only the library."""
    target.mkdir(parents=True, exist_ok=True)
    if (corpus_dir / "models").exists() and not (target / "models").exists():
        shutil.copytree(corpus_dir / "models", target / "models")
    assistant = Assistant(data_dir=target, backend="extractive")
    report = assistant.ingest(list(write_library(target.parent / "library")))
    assert report.added == len(LIBRARY), report.summary()
    return assistant
