"""Take an answer away: Markdown with a numbered reference list, and the cited works as BibTeX.

``Answer.to_markdown()`` / ``Answer.to_bibtex()`` (and ``assistant ask ... --export md|bib``, and the
chat page's download) call :func:`answer_markdown` / :func:`answer_bibtex`. The references come from
each citation's ``metadata`` (the stored doc's title, authors, year, venue, doi, arxiv_id, url,
keywords, entry_type; ingest/ writes them): an entry read from a BibTeX file is exported as it was
written (its raw ``bibtex``), any other is built from the metadata and written by bibtexparser.

This module sits below assistant.types (import-linter layers): it reads answers and citations by
their public field names and imports nothing of the project.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

INTERNAL_KEYS = re.compile(r"^(mh\d+|n_chunks)$")  # MinHash bands and chunk counts (ingest bookkeeping)
CONFERENCE_WORDS = re.compile(r"\b(proceedings|conference|workshop|symposium|meeting|congress)\b", re.I)
LEADING_ARTICLES = {"a", "an", "the"}  # a citation key skips a title's leading article (Google Scholar's keys do)
LATEX_SPECIAL = re.compile(r"(?<!\\)([&%$#_])")
# A key BibTeX and biber accept as written: no spaces, braces, commas, quotes or other specials.
USABLE_KEY = re.compile(r"[^\s,{}()=\"#%'\\~]+")


def reference_metadata(meta: dict[str, Any]) -> dict[str, Any]:
    """A doc's metadata without the ingest bookkeeping (what a citation carries)."""
    return {k: v for k, v in meta.items() if not INTERNAL_KEYS.match(k) and v not in (None, "")}


# --- identifiers and names ------------------------------------------------------------------------
def links(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """(text, URL) for the DOI, the arXiv id and the URL of a work, those it has."""
    out: list[tuple[str, str]] = []
    doi = _doi(meta)
    if doi:
        out.append((f"doi:{doi}", f"https://doi.org/{doi}"))
    arxiv = _arxiv(meta)
    if arxiv:
        out.append((f"arXiv:{arxiv}", f"https://arxiv.org/abs/{arxiv}"))
    url = str(meta.get("url") or "").strip()
    if url.startswith(("http://", "https://")) and all(url != u for _, u in out):
        out.append(("link", url))
    return out


def _doi(meta: dict[str, Any]) -> str:
    doi = str(meta.get("doi") or "").strip()
    return re.sub(r"^(https?://(dx\.)?doi\.org/|doi:)", "", doi, flags=re.I).lower()


def _arxiv(meta: dict[str, Any]) -> str:
    return re.sub(r"v\d+$", "", str(meta.get("arxiv_id") or "").strip())


def authors_of(meta: dict[str, Any]) -> list[str]:
    """The authors as written, one per item: "; "-joined (the metadata contract), " and "-joined
    (BibTeX), or comma-joined full names ("Ashish Vaswani, Noam Shazeer"); a single "Family,
    Given" stays one name."""
    raw = " ".join(str(meta.get("authors") or meta.get("author") or "").split())
    if not raw:
        return []
    if ";" in raw:
        parts = raw.split(";")
    elif " and " in raw:
        parts = raw.split(" and ")
    elif "," in raw and all(" " in p.strip() for p in raw.split(",")):
        parts = raw.split(",")  # every comma-separated part is a whole name
    else:
        parts = [raw]
    return [p.strip() for p in parts if p.strip()]


def family(name: str) -> str:
    """"Vaswani, Ashish" -> "Vaswani"; "Ashish Vaswani" -> "Vaswani"."""
    return name.split(",")[0].strip() if "," in name else (name.split() or [""])[-1]


def _ascii_word(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower())


def cite_key(meta: dict[str, Any], fallback: str) -> str:
    """family name + year + first title word: ``vaswani2017attention`` (``fallback`` when none)."""
    names = authors_of(meta)
    words = [w for w in (_ascii_word(w) for w in str(meta.get("title") or "").split()) if w]
    while len(words) > 1 and words[0] in LEADING_ARTICLES:
        words.pop(0)
    year = str(meta.get("year") or "")[:4]
    key = (_ascii_word(family(names[0])) if names else "") + (year if year.isdigit() else "") + (words[0] if words else "")
    return key or _ascii_word(fallback) or "ref"


# --- Markdown ---------------------------------------------------------------------------------------
def reference_line(c: Any) -> str:
    """One reference: authors (year). Title. Venue. identifiers — or the label and source."""
    meta = c.metadata or {}
    names = authors_of(meta)
    who = "; ".join(names[:6]) + (" et al." if len(names) > 6 else "")
    year = meta.get("year")
    title = str(meta.get("title") or "").strip() or c.label
    parts = [f"{who} ({year})." if who and year else (f"{who}." if who else (f"({year})." if year else ""))]
    parts.append(title if title.endswith(("?", "!", "…")) else title.rstrip(".") + ".")  # not "Need?." / "…."
    venue = str(meta.get("venue") or meta.get("journal") or meta.get("booktitle") or "").strip()
    if venue:
        parts.append(f"*{venue}*.")
    parts += [f"[{text}]({url})" for text, url in links(meta)]
    parts.append(f"({c.source})" if c.source else "")
    return " ".join(p for p in parts if p)


def answer_markdown(answer: Any) -> str:
    """The question as a heading, the answer (with its [n] marks), the numbered references."""
    # A list, comparison or overview puts one line per abstract: Markdown joins single newlines
    # into one paragraph, so each line is its own paragraph.
    body = "\n\n".join(ln.strip() for ln in answer.text.strip().splitlines() if ln.strip())
    lines = [f"# {answer.question}", "", body, ""]
    unsupported = [s.text for s in answer.sentences if not s.supported]
    if unsupported:
        lines += [f"> {len(unsupported)} sentence(s) could not be matched to a source: "
                  + " ".join(f"“{t}”" for t in unsupported), ""]
    if answer.citations:
        lines += ["## References", ""]
        lines += [f"{c.n}. {reference_line(c)}" for c in answer.citations]
    elif answer.refused and answer.closest:
        lines += ["## Closest abstracts (they do not state the answer)", ""]
        lines += [f"- {h.label} ({h.source})" for h in answer.closest]
    lines += ["", _footer(answer)]
    return "\n".join(lines).rstrip() + "\n"


def _footer(answer: Any) -> str:
    """Who answered and what was checked; a refusal is not called an answer, nor checked [n] claimed."""
    if answer.citations:
        return f"*Answered by {answer.backend} from the indexed abstracts; every [n] was checked against the cited abstract.*"
    if answer.refused:
        return f"*Not answered by {answer.backend}: the indexed abstracts were searched; none is cited.*"
    return f"*Answered by {answer.backend} from the indexed abstracts; no abstract is cited.*"


# --- BibTeX -----------------------------------------------------------------------------------------
def _tex(value: Any) -> str:
    """A field value safe inside braces: LaTeX specials escaped, unbalanced braces dropped."""
    text = LATEX_SPECIAL.sub(r"\\\1", " ".join(str(value).split()))
    depth, out = 0, []
    for ch in text:
        if ch == "}" and depth == 0:
            continue
        depth += (ch == "{") - (ch == "}")
        out.append(ch)
    return "".join(out) + "}" * depth if depth else "".join(out)


def entry_type(meta: dict[str, Any]) -> str:
    """The stored type, else from the venue: proceedings -> inproceedings, a journal -> article, an
    arXiv preprint without a venue -> misc."""
    stored = str(meta.get("entry_type") or "").strip().lower()
    if stored:
        return stored
    venue = str(meta.get("venue") or meta.get("booktitle") or meta.get("journal") or "")
    if meta.get("booktitle") or CONFERENCE_WORDS.search(venue):
        return "inproceedings"
    return "article" if venue and not _arxiv_category(venue) else "misc"


def _arxiv_category(venue: str) -> bool:
    return bool(re.fullmatch(r"[a-z-]+(\.[A-Za-z-]+)?", venue.strip())) and "." in venue  # cs.CL, math.ST


def built_fields(c: Any) -> list[tuple[str, str]]:
    meta = c.metadata or {}
    kind = entry_type(meta)
    venue = str(meta.get("venue") or meta.get("booktitle") or meta.get("journal") or "").strip()
    fields: list[tuple[str, Any]] = [("title", meta.get("title") or c.label), ("author", " and ".join(authors_of(meta))),
                                     ("year", meta.get("year"))]
    if venue and not _arxiv_category(venue):
        fields.append(("booktitle" if kind == "inproceedings" else "journal", venue))
    fields.append(("doi", _doi(meta)))
    arxiv = _arxiv(meta)
    if arxiv:
        fields += [("eprint", arxiv), ("archiveprefix", "arXiv")]
        if venue and _arxiv_category(venue):
            fields.append(("primaryclass", venue))
    fields += [("url", meta.get("url") or (f"https://arxiv.org/abs/{arxiv}" if arxiv else "")),
               ("keywords", meta.get("keywords")), ("abstract", c.text)]
    return [(k, _tex(v)) for k, v in fields if v not in (None, "")]


def answer_bibtex(answer: Any) -> str:
    """The cited works as BibTeX, in citation order (keys made unique with a, b, ...)."""
    import bibtexparser
    from bibtexparser.library import Library
    from bibtexparser.model import Entry, Field

    kept: list[str] = []
    built: list[Any] = []
    raws = [str((c.metadata or {}).get("bibtex") or "").strip() for c in answer.citations]
    used = {m.group(1) for m in (re.match(r"@\w+\s*[{(]\s*([^,\s]+)", r) for r in raws) if m}  # before any is built
    for c, raw in zip(answer.citations, raws, strict=True):
        if raw.startswith("@"):
            kept.append(raw)
            continue
        own = str((c.metadata or {}).get("citekey") or "").strip()  # the user's key (CSL-JSON "citation-key")
        key = base = own if USABLE_KEY.fullmatch(own) else cite_key(c.metadata or {}, c.label)
        for suffix in "abcdefghijklmnopqrstuvwxyz":
            if key not in used:
                break
            key = base + suffix
        used.add(key)
        built.append(Entry(entry_type(c.metadata or {}), key, [Field(k, v) for k, v in built_fields(c)]))
    parts = kept + ([bibtexparser.write_string(Library(built)).strip()] if built else [])
    return "\n\n".join(parts) + ("\n" if parts else "")
