"""Labels of abstracts without a title: the name they introduce, else a key phrase; and the share
of the bundled corpus's labels that name something (printed: `pytest -s tests/test_labels.py`)."""

from __future__ import annotations

from assistant.settings import DEFAULT_CORPUS
from ingest.labels import introduced_name, key_phrase
from ingest.loaders import iter_files, load_file
from ingest.normalize import abstract_label, content_id, make_label, method_name, normalize_text

# Before ingest/labels.py, 263 of the 446 bundled abstracts were labelled by their opening words.
NAMED_BEFORE = 446 - 263


def _corpus() -> list[str]:
    texts = {}
    for f in iter_files([DEFAULT_CORPUS]):
        for r in load_file(f)[0]:
            t = normalize_text(r.text)
            texts[content_id(t)] = t
    return list(texts.values())


def test_share_of_bundled_labels_that_name_something() -> None:
    texts = _corpus()
    named = sum(method_name(t) is not None for t in texts)
    phrases = sum(method_name(t) is None and bool(key_phrase(t)) for t in texts)
    opening = len(texts) - named - phrases
    print(f"\nbundled corpus: {named}/{len(texts)} labels name something ({named / len(texts):.1%}), "
          f"{phrases} a key phrase, {opening} the opening words (before: {NAMED_BEFORE} named)")
    assert len(texts) == 446
    assert named > NAMED_BEFORE
    assert all(abstract_label(t) for t in texts)


def test_coined_names_and_appositives() -> None:
    icarl = ("A major open problem is learning systems that learn more concepts over time. In this work, we "
             "introduce a new training strategy, iCaRL, that allows learning in such a class-incremental way.")
    assert introduced_name(icarl) == "iCaRL"
    mrl = ("Learned representations are a central component in modern ML systems. We introduce Matryoshka "
           "Representation Learning (MRL) which encodes information at different granularities.")
    assert method_name(mrl) == "Matryoshka Representation Learning"
    opening = "DevFormer: a novel transformer-based architecture for the complex problem of device placement."
    assert introduced_name(opening) == "DevFormer"


def test_a_capitalised_term_is_not_a_coined_name() -> None:
    text = ("Attention layers are expensive on long inputs. We propose a Transformer variant whose cost grows "
            "linearly with the input, and study the trade-offs it makes on language modelling.")
    assert introduced_name(text) is None
    assert key_phrase(text) == "Transformer variant"  # cut at "whose"


def test_key_phrase_is_the_object_of_the_contribution_sentence() -> None:
    songs = ("Even for us, it can be challenging to comprehend the meaning of songs. As part of this project, we "
             "explore the process of generating the meaning of songs with text-to-text models.")
    assert key_phrase(songs) == "Process of generating the meaning"
    assert make_label("Many tasks can be composed from a few independent components.") == "Many tasks can be composed from…"
    assert key_phrase("Active learning is the iterative construction of a classification model.") == "Active learning"
