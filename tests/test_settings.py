"""One settings object: defaults < config file < environment < explicit overrides (CLI flags)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.backends import resolve
from assistant.settings import Settings


def test_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('top_k = 7\nopenai_model = "from-file"\nport = 9000\n', encoding="utf-8")
    monkeypatch.setenv("ASSISTANT_PORT", "9100")
    s = Settings.load(cfg, openai_model="from-flag")
    assert s.top_k == 7  # file
    assert s.port == 9100  # env beats file
    assert s.openai_model == "from-flag"  # flag beats both


def test_config_file_found_in_data_dir(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("candidates = 11\n", encoding="utf-8")
    assert Settings.load(data_dir=tmp_path).candidates == 11


def test_well_known_env_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", "8123")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    s = Settings.load()
    assert (s.chroma_host, s.chroma_port) == ("127.0.0.1", 8123)
    assert resolve(s) == "openai"


def test_bad_config_file_names_the_file(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text("top_k = [\n", encoding="utf-8")
    with pytest.raises(ValueError, match=str(cfg)):
        Settings.load(cfg)


def test_backend_default_without_llm_is_not_openai(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    s = Settings.load(data_dir=tmp_path, local_model_path=tmp_path / "missing.gguf")
    assert resolve(s) in ("local", "extractive")


def test_sections_from_file_env_and_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text("[prompts]\nhistory_turns = 2\nsource_floor = 0.5\n[store]\nbatch = 500\n", encoding="utf-8")
    monkeypatch.setenv("ASSISTANT_PROMPTS__SOURCE_FLOOR", "0.4")
    s = Settings.load(cfg, store={"server_timeout_s": 5})
    assert s.prompts.history_turns == 2  # file
    assert s.prompts.source_floor == 0.4  # env beats file, per field
    assert s.store.batch == 500 and s.store.server_timeout_s == 5  # file and override merge
    assert s.prompts.budget("local") == 256 and s.prompts.budget("mock") == s.prompts.default_budget


def test_defaults_without_file() -> None:
    s = Settings()
    assert (s.store.batch, s.store.server_timeout_s, s.ui.concurrency) == (2000, 30.0, 4)
    assert (s.prompts.evidence_per_source, s.prompts.history_turns) == (3, 3)


def test_missing_config_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="missing.toml"):
        Settings.load(tmp_path / "missing.toml")


def test_config_from_environment_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "elsewhere.toml"
    cfg.write_text("top_k = 9\n", encoding="utf-8")
    monkeypatch.setenv("ASSISTANT_CONFIG", str(cfg))
    assert Settings.load().top_k == 9
    assert Settings().top_k == 5  # a plain Settings() reads the environment only


def test_every_constant_says_where_it_comes_from_in_its_description() -> None:
    """Each behavioural constant carries what it does and where its value comes from (a fit file, a
    measurement, a sanity bound) as ``Field(description=...)``; a fit file it names exists."""
    import re

    from pydantic import BaseModel

    root = Path(__file__).resolve().parent.parent
    sections = [f.annotation for f in Settings.model_fields.values()
                if isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel)]
    assert len(sections) == 10
    for model in sections:
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"
            for fit in re.findall(r"evals/fits/[\w.]+\.json", field.description):
                assert (root / fit).is_file(), f"{model.__name__}.{name}: {fit}"
    source = (root / "assistant" / "settings.py").read_text(encoding="utf-8")
    assert not [line for line in source.splitlines() if re.match(r"\s+\w+: .*=.*#", line)]
    assert max(len(line) for line in source.splitlines()) <= 120


def test_product_code_says_what_it_does_not_when_it_changed() -> None:
    """No remark in assistant/ or ingest/ says in which session or by which helper something changed."""
    import re

    history = re.compile(r"\bsession \d|\bhelper [A-Z]\d?\b|\bsplit out of\b|\bmoved (?:out|here)\b|\bsince session\b",
                         re.I)
    root = Path(__file__).resolve().parent.parent
    found = [f"{path.relative_to(root)}:{n}" for package in ("assistant", "ingest")
             for path in sorted((root / package).rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if history.search(line)]
    assert not found


def test_retired_rules_options_are_refused_with_their_reason() -> None:
    with pytest.raises(ValueError, match="composer 'rules' is retired"):
        Settings(answer={"composer": "rules"})
    with pytest.raises(ValueError, match="shape_reader 'rules' is retired"):
        Settings(collection={"shape_reader": "rules"})
    s = Settings(answer={"composer": "learned"}, collection={"shape_reader": "learned"})
    assert s.answer.composer == s.collection.shape_reader == "learned"


def test_the_retired_sentence_choices_constants_are_refused_not_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"answer\.max_sentences, answer\.other_doc_share: retired"):
        Settings(answer={"other_doc_share": 0.5, "max_sentences": 3})
    monkeypatch.setenv("ASSISTANT_ANSWER__CONTEXT_WEIGHT", "0.7")  # the same from the environment
    with pytest.raises(ValueError, match=r"answer\.context_weight: retired"):
        Settings()
    monkeypatch.delenv("ASSISTANT_ANSWER__CONTEXT_WEIGHT")
    assert Settings(answer={"second_look": 0.5}).answer.second_look == 0.5
