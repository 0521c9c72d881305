"""The real packaged model for tests: ``model_settings`` (skips, with the reason, when the local
extra is not installed). Import the fixture into a test module; every module shares one joined copy."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assistant.backends import local
from assistant.settings import Settings


def missing_reason() -> str | None:
    if not local._xllamacpp_importable():
        return f"xllamacpp is not installed: {local.INSTALL_HINT}"
    missing = [i for i, p in local.model_parts().items() if p is None]
    if missing:
        return f"model parts {missing} are not installed: {local.INSTALL_HINT}"
    return None


@pytest.fixture(scope="session")
def model_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings whose data dir holds the real model, joined once per session (1.1 GB, ~5 s)."""
    reason = missing_reason()
    if reason:
        print(f"skipping local-model tests: {reason}")
        pytest.skip(reason)
    data_dir = tmp_path_factory.getbasetemp() / "local-model"  # one path: later modules reuse the file
    settings = Settings(data_dir=data_dir)
    path = local.ensure_model(settings)
    yield settings
    path.unlink(missing_ok=True)  # don't leave 1.1 GB per session in the temp dir
