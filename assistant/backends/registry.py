"""Every answer engine registered in one place (simonw/llm's plugin registry, in small).

A backend is a name, a factory building its ``ChatModel`` (the backend's module is imported only
then), and an ``available(settings)`` check. ``extractive`` is registered too: it needs no LLM
(answers are the evidence sentences themselves), so it has no factory and is always available.

    names()                         -> ["openai", "local", "extractive", ...]
    available_backends(settings)    -> the ones this installation can use, in preference order
    resolve(settings)               -> settings.backend, else openai if configured, else local if
                                       installed, else extractive
    make_chat_model(name, settings) -> a ChatModel (ValueError for extractive or an unknown name)
    register(name, factory, available) adds one (tests register a mock model this way).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.backends.base import ChatModel
    from assistant.settings import Settings

log = logging.getLogger(__name__)

EXTRACTIVE = "extractive"


@dataclass(frozen=True)
class Backend:
    name: str
    factory: Callable[[Settings], ChatModel] | None  # None: no LLM (extractive)
    available: Callable[[Settings], bool]
    default: bool = True  # considered by resolve(); test-only backends register with False


_REGISTRY: dict[str, Backend] = {}


def register(name: str, factory: Callable[[Settings], ChatModel] | None, available: Callable[[Settings], bool],
             *, default: bool = True) -> None:
    """Add (or replace) a backend. Registration order is preference order for ``resolve``."""
    _REGISTRY[name] = Backend(name, factory, available, default)


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def names() -> list[str]:
    return list(_REGISTRY)


def get(name: str) -> Backend:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown backend {name!r} (choose {', '.join(_REGISTRY)})") from None


def is_available(name: str, settings: Settings) -> bool:
    """The backend's own check; a broken optional install counts as unavailable, never an error."""
    try:
        return bool(get(name).available(settings))
    except Exception:
        log.debug("backend %s unavailable", name, exc_info=True)
        return False


def available_backends(settings: Settings) -> list[str]:
    """Backends this installation can use, in preference order (extractive always)."""
    return [b.name for b in _REGISTRY.values() if b.default and is_available(b.name, settings)]


def resolve(settings: Settings) -> str:
    """The configured backend, else the first available one (openai, local, extractive)."""
    if settings.backend:
        return settings.backend
    found = available_backends(settings)
    return found[0] if found else EXTRACTIVE


def make_chat_model(name: str, settings: Settings) -> ChatModel:
    backend = get(name)
    if backend.factory is None:
        raise ValueError(f"no LLM for backend {name!r} (choose one of {', '.join(n for n in names() if get(n).factory)})")
    return backend.factory(settings)


# --- the built-in engines (module imports stay inside the functions: xllamacpp loads slowly) -----
def _openai(settings: Settings) -> ChatModel:
    from assistant.backends.openai_backend import OpenAIChatModel

    return OpenAIChatModel(settings)


def _openai_available(settings: Settings) -> bool:
    return bool(settings.openai_api_key or settings.openai_base_url)


def _local(settings: Settings) -> ChatModel:
    from assistant.backends.local import LocalChatModel

    return LocalChatModel(settings)


def _local_available(settings: Settings) -> bool:
    from assistant.backends.local import local_available

    return local_available(settings)


register("openai", _openai, _openai_available)
register("local", _local, _local_available)
register(EXTRACTIVE, None, lambda settings: True)
