"""Every page in a real browser: loads clean, offline, from a link, with garbage in the link."""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

import param
import pytest

from app.main import PAGES

from .helpers import PageWatch, new_server_errors, open_page, visible_text

SLUGS = list(PAGES)


@pytest.fixture(autouse=True)
def server_stays_clean(server):
    """No test may leave an exception in the server's log."""
    offset = len(server["log"].read_text(errors="replace"))
    yield
    errors = new_server_errors(server["log"], offset)
    assert not errors, f"server logged errors:\n{errors}"


def _garbage(cls) -> tuple[str, str, str | None]:
    """A control, a value for it that must be refused or clamped, and its upper bound.

    Pages with a bounded number get an absurd number; the others (the Order
    page's sentences) get text the core refuses.
    """
    for name in cls.control_names():
        if isinstance(cls.param[name], param.Number) and cls.param[name].bounds:
            return name, "1e308", cls.param[name].bounds[1]
    for name in cls.control_names():
        if isinstance(cls.param[name], param.String):
            return name, "%F0%9F%99%82+%F0%9F%99%82", None  # two emoji: no words
    raise AssertionError(f"{cls.__name__} has no control a link can carry")


@pytest.mark.parametrize("slug", SLUGS)
def test_page_loads_offline_without_errors(page, server, slug):
    """All requests to anything but this server are blocked; none is even attempted."""
    watch = PageWatch().attach(page, block_external=True)
    open_page(page, f"{server['url']}?page={slug}")
    text = visible_text(page)
    assert PAGES[slug].title in text
    assert "Traceback" not in text
    assert watch.external == [], f"requests outside the app: {watch.external}"
    assert watch.errors == []


@pytest.mark.parametrize("slug", SLUGS)
def test_link_with_garbage_opens_with_notice(page, server, slug):
    name, value, high = _garbage(PAGES[slug])
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page={slug}&{name}={value}&nonsense=%3Cb%3Ex%3C%2Fb%3E")
    text = visible_text(page)
    assert "Some settings were changed" in text
    assert "Traceback" not in text
    # The link is rewritten in place to the state actually shown.
    page.wait_for_function(f"() => window.location.search.includes('{name}=')")
    shown = unquote_plus(
        re.search(rf"[?&]{name}=([^&]*)", page.evaluate("window.location.search")).group(1)
    )
    if high is not None:
        assert float(shown) <= high
    else:
        assert "\U0001f642" not in shown
    assert watch.dialogs == []
    assert watch.errors == []


def test_unknown_page_falls_back_with_notice(page, server):
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    text = visible_text(page)
    assert "There is no page" in text
    assert watch.dialogs == []
    assert watch.errors == []


def test_navigation_does_not_push_history(page, server):
    """Moving between pages and controls replaces the address, it never piles up history."""
    open_page(page, server["url"])
    before = page.evaluate("history.length")
    for title in [PAGES[slug].title for slug in SLUGS]:
        page.get_by_role("button", name=title).first.click()
        page.wait_for_timeout(300)
    assert page.evaluate("history.length") == before
