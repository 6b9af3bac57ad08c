"""The first-load measure: navigation → every figure drawn, and → the last paint.

A figure with a legend is painted three times at load: once, then twice more
at the same size when Bokeh's legend asks for it (after its render, and from
its size observer), with the same pixels. "Every figure drawn" is each
figure's first paint at the size it ends with (``pe.drawnAt`` in the probe);
the last paint is kept beside it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks._browser import first_load, launch, new_page, served

pytestmark = pytest.mark.ui

#: Synthetic paints of two figures, as the probe records them: (id, time, size).
_PAINTS = [
    {"id": "a", "t": 1, "width": 0, "height": 0},  # before layout
    {"id": "a", "t": 10, "width": 400, "height": 300},
    {"id": "b", "t": 20, "width": 400, "height": 300},
    {"id": "a", "t": 50, "width": 400, "height": 300},  # the legend's repaint
]
_FRAMES = [5, 15, 25, 60]


def _drawn_at(page, paints, patches, plots=("a", "b")):
    return page.evaluate(
        "([paints, patches, frames, plots]) => {"
        "  Object.assign(window.__pe, {plotPaints: paints, patches, frames});"
        "  return window.__pe.drawnAt(plots);"
        "}",
        [paints, patches, _FRAMES, list(plots)],
    )


def _run() -> tuple[list, dict]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = new_page(browser)
            page.goto("data:text/html,<p>probe</p>")
            text = [{"start": 30, "what": ["ModelChanged:TextInput.value"]}]
            data = [{"start": 30, "what": ["ModelChanged:ColumnDataSource.data"]}]
            resized = [*_PAINTS, {"id": "b", "t": 55, "width": 380, "height": 300}]
            cases = [
                _drawn_at(page, _PAINTS, []),
                _drawn_at(page, _PAINTS, text),
                _drawn_at(page, _PAINTS, data),
                _drawn_at(page, resized, []),
                _drawn_at(page, _PAINTS, [], plots=("a", "b", "c")),
            ]
            page.context.close()
            with served(["app"]) as base:
                page = new_page(browser)
                load = first_load(page, f"{base}/app?page=sinusoidal")
            return cases, load
        finally:
            browser.close()


@pytest.mark.timeout(300)
def test_every_figure_drawn_is_each_figures_first_paint_at_its_final_size(chromium):
    # A thread of its own, as in test_floor (one sync Playwright per thread).
    with ThreadPoolExecutor(max_workers=1) as pool:
        cases, load = pool.submit(_run).result()
    same, text_after, data_after, resized, never_painted = cases
    # b's first paint (20) comes after a's first at its final size (10); a's
    # repaint at 50 does not count. The frame after 20 is 25.
    assert same == 25
    # The server changing a text afterwards changes no figure...
    assert text_after == 25
    # ...changing a figure's data might: then there is no such frame.
    assert data_after is None
    # A figure drawn again at another size counts from that paint (55 → 60).
    assert resized == 60
    assert never_painted is None
    # A real load: Sinusoidal's five figures, S3 with a legend above its frame.
    assert load["complete"] and load["figures"] == load["painted"] == 5, load
    assert load["drawn_ms"] is not None and load["drawn_ms"] <= load["load_ms"], load
