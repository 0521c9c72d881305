"""One settings object: defaults < config file < environment < explicit overrides (CLI flags)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
    assert s.resolved_backend() == "openai"


def test_bad_config_file_names_the_file(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text("top_k = [\n", encoding="utf-8")
    with pytest.raises(ValueError, match=str(cfg)):
        Settings.load(cfg)


def test_backend_default_without_llm_is_not_openai(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    s = Settings.load(data_dir=tmp_path, local_model_path=tmp_path / "missing.gguf")
    assert s.resolved_backend() in ("local", "extractive")
