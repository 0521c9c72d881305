"""The UI's launch arguments (``Blocks.launch`` keywords) from the settings, and the one safety rule:
never serve beyond this machine (another host, or a public share link) without a password."""

from __future__ import annotations

from typing import Any

from assistant.settings import Settings

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


class UIConfigError(ValueError):
    """The UI settings would expose the app unsafely, or are malformed."""


def parse_auth(auth: str | None) -> tuple[str, str] | None:
    if auth is None:
        return None
    user, sep, password = auth.partition(":")
    if not sep or not user or not password:
        raise UIConfigError("auth must be 'user:password' (both parts non-empty)")
    return user, password


def launch_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for ``Blocks.launch``; refuses an exposed server without a password."""
    auth = parse_auth(settings.auth)
    exposed = settings.host not in LOCAL_HOSTS or settings.share
    if exposed and auth is None and not settings.insecure_no_auth:
        where = "a public share link" if settings.share else f"host {settings.host!r}"
        raise UIConfigError(
            f"refusing to serve on {where} without a password: anyone who can reach it could use it. "
            "Set auth to 'user:password' (--auth / ASSISTANT_AUTH), or set insecure_no_auth "
            "(--insecure-no-auth) if you really mean it, or bind to 127.0.0.1."
        )
    return {
        "server_name": settings.host,
        "server_port": settings.port,
        "auth": auth,
        "share": bool(settings.share),
        "max_file_size": "200mb",
        "footer_links": ["api"],
    }
