"""docs/architecture.md names every module of the product, the ingest and the evaluation harness."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("assistant", "ingest", "evals")


def modules() -> list[str]:
    """Every .py file under the packages, but package __init__ files and evals/experiments/ (the lab,
    indexed by evals/experiments/INDEX.md)."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if path.name == "__init__.py" or rel.startswith("evals/experiments/"):
                continue
            found.append(rel)
    return found


def test_every_module_is_named_in_the_architecture_doc() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    found = modules()
    assert len(found) > 50
    missing = [m for m in found if f"`{m}`" not in doc]
    assert not missing, f"docs/architecture.md does not name: {', '.join(missing)}"


def test_the_architecture_doc_names_no_module_that_is_gone() -> None:
    import re

    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:assistant|ingest|evals)/[\w/]+\.py)`", doc))
    assert named and not [m for m in named if not (ROOT / m).is_file()]
