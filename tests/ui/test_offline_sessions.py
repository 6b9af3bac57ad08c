"""Offline with several students: no page asks the internet for anything.

Bokeh discards a session whose browser has not opened its websocket within
the unused-session lifetime and builds a new one when the websocket arrives;
Panel never renders a page for that one. Its style sheets used to keep their
``cdn.holoviz.org`` URLs, so in a busy classroom (pages slower to load than
the lifetime) browsers fetched ten style sheets from the internet
(``benchmarks/classroom.py`` found it; one quick session never showed it).
Here a short lifetime and a held-back BokehJS bundle make one student's
session be rebuilt for sure, while a second student loads normally.
"""

from __future__ import annotations

import time

import pytest

from benchmarks._browser import served

from .helpers import PageWatch, open_page

#: Every style sheet model in the page's Bokeh document, with its URL.
STYLESHEET_URLS_JS = """() => {
  const urls = [];
  for (const doc of Bokeh.documents)
    for (const m of doc.all_models)
      if (m.type === 'ImportedStyleSheet') urls.push(String(m.url));
  return urls;
}"""

LIFETIME_MS = 1000


@pytest.fixture(scope="module")
def short_lived_server(tmp_path_factory):
    log = tmp_path_factory.mktemp("offline") / "panel.log"
    args = [
        "--unused-session-lifetime",
        str(LIFETIME_MS),
        "--check-unused-sessions",
        "200",
        "--log-level",
        "debug",  # Bokeh reports a discarded session at debug level only
    ]
    with served(["app"], extra_args=args, log=log) as base:
        yield {"base": base, "log": log}


def _hold_bokeh(route) -> None:
    # Longer than the lifetime plus a check: the page's session is discarded
    # before its websocket opens.
    time.sleep(3 * LIFETIME_MS / 1000)
    route.continue_()


def test_a_rebuilt_session_and_a_normal_one_load_nothing_from_outside(browser, short_lived_server):
    base = short_lived_server["base"]
    slow_context = browser.new_context(viewport={"width": 1280, "height": 800})
    quick_context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        slow, quick = slow_context.new_page(), quick_context.new_page()
        slow_watch = PageWatch().attach(slow)
        quick_watch = PageWatch().attach(quick)
        slow.route("**/static/js/bokeh.min.js*", _hold_bokeh)

        open_page(slow, f"{base}/app?page=sinusoidal", min_canvases=4, timeout=60_000)
        open_page(quick, f"{base}/app?page=rope", min_canvases=3, timeout=60_000)

        log = short_lived_server["log"].read_text(errors="replace")
        assert "Discarding session" in log, "the slow page's session was never rebuilt"

        for page, watch in ((slow, slow_watch), (quick, quick_watch)):
            urls = page.evaluate(STYLESHEET_URLS_JS)
            assert urls, "no style sheets found: the probe is broken"
            outside = [u for u in urls if u.startswith(("http:", "https:", "//"))]
            assert outside == [], f"{page.url}: style sheets from elsewhere: {outside}"
            assert watch.external == [], f"{page.url} asked the internet: {watch.external}"
            assert watch.errors == [], watch.errors

        # The rebuilt session is a working one: a key on a slider reaches the
        # server, which writes the new state into the address bar.
        before = slow.evaluate("window.location.search")
        slow.locator(".noUi-handle").first.focus()
        slow.keyboard.press("ArrowRight")
        slow.wait_for_function(f"() => window.location.search !== {before!r}", timeout=15_000)
        assert slow_watch.external == [] and slow_watch.errors == []
    finally:
        slow_context.close()
        quick_context.close()
