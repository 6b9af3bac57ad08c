"""Sinusoidal's tables at 4,096 × 512: one row in 32, every row when zoomed in.

A table image holds at most 2**16 cells (``image_row_step`` in
app/pages/sinusoidal/shared.py); the hover's position comes from
``drawn_row_hover``, which reads the step from the glyph in the page; zooming
redraws the rows in view (the chart's ``zoomed``, on Bokeh's ``RangesUpdate``
from the browser; the page scripts are benchmarks/zoom.py's).
Checked here with a real server in Chromium: the tooltip names the drawn
row's position and the value beside it is that position's code, before and
after zooming in."""

from __future__ import annotations

import re

import pytest

from benchmarks.zoom import S1_JS, ZOOM_JS
from positional_core.sinusoidal import sinusoidal_encoding

from .helpers import deep_js, open_page, visible_text

URL = "?page=sinusoidal&n=4096&d=512&max_len=4096"


def _tooltip(page) -> dict[str, str]:
    text = visible_text(page)
    found = {}
    for label in ("position t", "dimension j", "PE"):
        match = re.search(rf"(?m)^{re.escape(label)}:?\s*\n?\s*([-\d.,]+|NaN)\s*$", text)
        if match:
            found[label] = match.group(1)
    return found


def _hover(page, y: float) -> dict[str, str]:
    s1 = page.evaluate(S1_JS, [3.0, y])
    page.evaluate("y => window.scrollTo(0, y - 100)", s1["page_y"])
    x, sy = page.evaluate(S1_JS, [3.0, y])["at"]
    page.mouse.move(x, sy)
    page.wait_for_function(
        deep_js("deepElements().some(el => /^position t/.test(el.textContent))"), timeout=5_000
    )
    return _tooltip(page)


def _check(tip: dict[str, str], position: int) -> None:
    assert tip.get("position t") == str(position), tip
    assert tip["dimension j"] == "3"
    value = sinusoidal_encoding(position + 1, 512)[position, 3]
    assert float(tip["PE"]) == pytest.approx(value, abs=6e-4), tip


@pytest.mark.parametrize(("y", "expected"), [(1003.2, 992), (1000.0, 992), (4091.0, 4064)])
def test_hover_names_the_position_of_the_row_drawn(page, server, y, expected):
    open_page(page, server["url"] + URL, min_canvases=4)
    page.wait_for_function(f"() => ({S1_JS})([0, 0])?.rows === 128")
    _check(_hover(page, y), expected)


def test_zooming_in_draws_every_row_in_view(page, server):
    open_page(page, server["url"] + URL, min_canvases=4)
    page.wait_for_function(f"() => ({S1_JS})([0, 0])?.rows === 128")
    page.evaluate(ZOOM_JS, [990.0, 1040.0])
    # rows 990 … 1040 in view, and a tenth of them each side: 985 … 1045, every one
    page.wait_for_function(f"() => ({S1_JS})([0, 0]).rows === 61", timeout=10_000)
    assert page.evaluate(S1_JS, [0, 0])["first"] == 985
    _check(_hover(page, 1003.2), 1003)
    page.evaluate(ZOOM_JS, [-0.5, 4095.5])  # as the reset tool does
    page.wait_for_function(f"() => ({S1_JS})([0, 0]).rows === 128", timeout=10_000)
    _check(_hover(page, 1003.2), 992)
