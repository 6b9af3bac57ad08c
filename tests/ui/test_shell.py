"""Every page in a real browser: loads clean, offline, from a link, with garbage in the link."""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

import param
import pytest
from playwright.sync_api import expect

from app.cards import lede
from app.main import PAGES

from .helpers import PageWatch, deep_count, new_server_errors, open_page, visible_text

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
    """All requests to anything but this server are blocked; none is even attempted.

    The formulas are drawn by KaTeX; Bokeh's MathJax bundle (1.8 MB) is not
    loaded (app/theme.py ``without_mathjax``).
    """
    watch = PageWatch().attach(page, block_external=True)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    open_page(page, f"{server['url']}?page={slug}")
    text = visible_text(page)
    assert PAGES[slug].title in text
    assert "Traceback" not in text
    assert watch.external == [], f"requests outside the app: {watch.external}"
    assert watch.errors == []
    assert deep_count(page, ".katex") > 0
    assert [url for url in requested if "mathjax" in url.lower()] == []


@pytest.mark.parametrize("slug", SLUGS)
def test_link_with_garbage_opens_with_notice(page, server, slug):
    name, value, high = _garbage(PAGES[slug])
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page={slug}&{name}={value}&nonsense=%3Cb%3Ex%3C%2Fb%3E")
    text = visible_text(page)
    assert "Some settings were changed" in text
    assert "Traceback" not in text
    # The link is rewritten in place to the state actually shown. The link
    # opened already has the key; the rewritten one has lost the unknown key.
    page.wait_for_function(
        f"() => window.location.search.includes('{name}=')"
        " && !window.location.search.includes('nonsense=')"
    )
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


def _some_number(cls) -> tuple[str, int | float]:
    """A bounded number control and an in-bounds value other than its default."""
    for name in cls.control_names():
        p = cls.param[name]
        if isinstance(p, param.Number) and p.bounds and None not in p.bounds:
            low, high = p.bounds
            # An Integer declared with a step (d even, num_buckets even) moves by it.
            step = p.step if isinstance(p, param.Integer) and p.step else 1
            value = min(high, p.default + 3 * step) if p.default + 3 * step <= high else low
            if value != p.default:
                return name, int(value) if isinstance(p, param.Integer) else value
    raise AssertionError(f"{cls.__name__} has no bounded number control")


NUMERIC_SLUGS = [
    slug
    for slug, cls in PAGES.items()
    if any(isinstance(cls.param[n], param.Number) for n in cls.control_names())
]


@pytest.mark.parametrize("slug", NUMERIC_SLUGS)
def test_link_with_state_opens_that_state(page, server, slug):
    cls = PAGES[slug]
    name, value = _some_number(cls)
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page={slug}&{name}={value}")
    # The server echoes the state it actually holds back into the address bar.
    page.wait_for_function(f"() => window.location.search.includes('{name}=')")
    shown = re.search(rf"[?&]{name}=([^&]*)", page.evaluate("window.location.search")).group(1)
    assert float(shown) == float(value)
    assert "Some settings were changed" not in visible_text(page)
    assert watch.errors == []


@pytest.mark.parametrize("slug", NUMERIC_SLUGS)
def test_keyboard_on_a_slider_changes_the_figure(page, server, slug):
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page={slug}")
    page.wait_for_timeout(500)
    main = page.locator("#main")
    before_image = main.screenshot()
    before_url = page.evaluate("window.location.search")
    handle = page.locator(".noUi-handle").first
    handle.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => window.location.search !== {before_url!r}", timeout=15_000)
    page.wait_for_timeout(800)
    assert main.screenshot() != before_image
    assert watch.errors == []


def test_typed_html_is_shown_as_text(page, server):
    payload = '<img src=x onerror=alert(1)> bites <b id="injected">man</b>'
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=order")
    box = page.get_by_role("textbox", name="Sentence A")
    box.fill(payload)
    box.press("Enter")
    # The server took the sentence (it echoes it into the link) and redrew.
    page.wait_for_function("() => window.location.search.includes('onerror')", timeout=30_000)
    page.wait_for_function(
        """() => { let found = false; const walk = root => {
             for (const el of root.querySelectorAll('*')) {
               if (el.shadowRoot) walk(el.shadowRoot);
               const text = el.children.length === 0 ? el.textContent || '' : '';
               if (text.includes('onerror')) found = true;
             } };
           walk(document); return found; }""",
        timeout=30_000,
    )
    assert watch.dialogs == []
    assert deep_count(page, "img[src='x']") == 0
    assert deep_count(page, "#injected") == 0
    assert watch.errors == []


def test_folded_cards_start_hidden_without_a_message_each_and_still_open(page, server):
    """A page's "More" folds and quick-check answers render hidden without a
    ``visible`` change per child: each one sent a message to the server and had
    Bokeh lay out the whole page again (50–300 ms of a load; app/static/overlay.js).
    Opening a fold shows its text, closing it hides it again."""
    sent: list[str] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framesent", lambda f: sent.append(f) if isinstance(f, str) else None),
    )
    open_page(page, server["url"] + "?page=rope", min_canvases=8)
    page.wait_for_timeout(500)
    assert [f for f in sent if '"visible"' in f] == []
    folded = lede(PAGES["rope"]().figures["pair"].caption)[1]
    text = page.get_by_text(re.sub(r"<[^>]+>", "", folded)[:60], exact=False).first
    expect(text).to_be_hidden()
    more = page.get_by_role("button", name="More").first
    more.click()
    expect(text).to_be_visible(timeout=5_000)
    more.click()
    expect(text).to_be_hidden(timeout=5_000)
