"""Which backend the page offers and starts with, and the local model's warm-up as the page sees it:
its status line (``#model-status``, ``/model_status``) and the routing of questions to the
extractive engine until the model is ready (backend ``local→extractive``, with the reason)."""

from __future__ import annotations

from assistant.backends import local
from assistant.settings import Settings
from assistant.types import Answer
from assistant.ui.render import esc

WARMING_REASON = "the local model is still loading, so this answer was extracted from the sources"


def available_backends(settings: Settings) -> list[str]:
    """Backends this installation can use (extractive always): the registry decides."""
    from assistant.backends import available_backends as registered

    return registered(settings)


def default_backend(settings: Settings, backends: list[str]) -> str:
    """The backend the page starts with: the configured/resolved one if usable, else the last usable."""
    from assistant.backends import resolve

    try:
        name = resolve(settings)
    except Exception:
        name = "extractive"
    return name if name in backends else backends[-1]


def model_status(settings: Settings, backend: str) -> dict[str, str]:
    """``{"backend", "state", "detail"}`` of the chosen backend's model (state "" when not local)."""
    state, detail = local.warm_state(settings) if backend == "local" else ("", "")
    return {"backend": backend, "state": state, "detail": detail}


def render_model_status(status: dict[str, str]) -> str:
    state, detail = status["state"], status["detail"]
    if state == "loading":
        text = "Local model loading… answers are extracted from the sources until it is ready."
    elif state == "ready":
        text = "Local model ready" + (f" (loaded in {detail} s)." if detail else ".")
    elif state == "failed":
        text = f"Local model unavailable ({esc(detail[:300])}); answers are extracted from the sources."
    elif state == "idle":
        text = "Local model not loaded yet; it starts loading with the first question."
    else:
        return '<p class="model-status" data-state=""></p>'
    return f'<p class="model-status answer-meta" data-state="{state}">{text}</p>'


def route(settings: Settings, backend: str) -> tuple[str, str]:
    """(backend to answer with, fallback reason): the extractive engine while the local model warms."""
    if backend != "local" or local.is_ready(settings):
        return backend, ""
    local.warm(settings)  # idempotent: starts loading if nothing has yet
    state, detail = local.warm_state(settings)
    if state == "failed":
        return "extractive", f"the local model could not be loaded ({detail}), so this answer was extracted"
    return "extractive", WARMING_REASON


def mark(answer: Answer, reason: str) -> Answer:
    """``answer`` labelled as the extractive stand-in for the local model when ``route`` gave a reason."""
    if reason:
        answer.backend, answer.fallback_reason = "local→extractive", reason
    return answer
