"""A list answer on the chat page, in a real headless Chromium against a real server on 127.0.0.1:
one line per abstract, each [n] opening its source card, the rest behind a toggle. Writes
docs/list-answer.png when missing (ASSISTANT_UPDATE_SCREENSHOT=1 refreshes it)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from test_ui import ARTIFACTS, ask, browser, page, running  # noqa: F401  (fixtures and helpers of the UI tests)

from assistant import Assistant

pytestmark = pytest.mark.slow
SCREENSHOT = Path(__file__).parent.parent / "docs" / "list-answer.png"


@pytest.fixture(scope="module")
def assistant(corpus_dir: Path) -> Assistant:
    return Assistant(data_dir=corpus_dir, backend="extractive")


def test_list_answer_is_a_scannable_list_whose_items_open_their_sources(assistant: Assistant, page: Any) -> None:  # noqa: F811
    with running(assistant) as url:
        page.goto(url)
        page.wait_for_selector("#question textarea")
        answer = ask(page, "Which papers study state space models?", 1)
        assert answer.locator(".chat-error").count() == 0, answer.inner_text()
        items = answer.locator(".list-answer li.list-item")
        n = items.count()
        assert n > assistant.settings.top_k, answer.inner_text()
        assert "answered as a list" in answer.locator(".list-head").inner_text()
        assert page.locator("#sources .src").count() == n  # one source card per listed abstract
        third = items.nth(2)
        assert third.locator("a.cite").inner_text() == "[3]" and " — " in third.inner_text()
        third.locator("a.cite").click()
        page.wait_for_function("() => document.getElementById('src-3')?.classList.contains('src-active')")
        assert page.locator("#sources #src-3 mark").count() >= 1  # its quoted sentence highlighted
        answer.locator(".list-head").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "ui_list_answer.png"))
        if os.environ.get("ASSISTANT_UPDATE_SCREENSHOT") == "1" or not SCREENSHOT.exists():
            SCREENSHOT.parent.mkdir(exist_ok=True)
            page.screenshot(path=str(SCREENSHOT))
        more = answer.locator("details.list-more")
        if more.count():  # the abstracts the cut-off leaves out are one click away
            assert not more.locator("li").first.is_visible()
            more.locator("summary").click()
            assert more.locator("li").first.is_visible()
        assert page.dialogs == []
