"""The benchmark's floor is what it says: the same figure, moved by the browser alone.

``benchmarks/latency.py`` prints, beside the naive ``pn.bind`` rebuild, the
floor: Sinusoidal's code table with its outline moved by a ``CustomJS``
(``benchmarks/floor_app.py``). It is the least a change can take in the
browser, so it must never involve the server; this test runs that part of the
benchmark (real server, real Chromium) and checks it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks import latency
from benchmarks._browser import launch, served

pytestmark = pytest.mark.ui

SAMPLES = 3


def _compare() -> tuple[latency.Row | None, latency.Row | None, latency.Row | None]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw, served(list(latency.APPS)) as base:
        browser = launch(pw)
        try:
            return latency.run_naive(browser, base, SAMPLES, 120)
        finally:
            browser.close()


@pytest.mark.timeout(300)
def test_the_floor_is_drawn_by_the_browser_alone(chromium):
    # A thread of its own, as in test_latency_guard (one sync Playwright per thread).
    with ThreadPoolExecutor(max_workers=1) as pool:
        ours, naive, floor = pool.submit(_compare).result()
    assert ours and naive and floor, (ours, naive, floor)
    # Every change of the floor was painted, and the server drew none: it only
    # acknowledges the slider's new value (an OK of ~56 bytes), as it does for
    # the app's browser-selected controls.
    assert floor.samples == SAMPLES and floor.p50 is not None
    assert floor.no_message == SAMPLES and floor.bytes_per_change < 500, floor
    assert floor.ended_by == "paint"
    # The naive rebuild is drawn by the server, every time.
    assert naive.no_message == 0 and naive.server_ms is not None
    print(latency.format_row(floor))
