"""Sinusoidal's tables at 4,096 × 512: one row in 8, every row when zoomed in (app/zoom.py).

A heatmap holds at most 2**18 cells (``image_row_step``); the hover's
position comes from ``drawn_row_hover``, which reads the step from the glyph
in the page; zooming redraws the rows in view (``RowDetail``, on Bokeh's
``RangesUpdate`` from the browser). Checked here with a real server in
Chromium: the tooltip names the drawn row's position and the value beside
it is that position's code, before and after zooming in.
"""

from __future__ import annotations

import re

import pytest

from positional_core.sinusoidal import sinusoidal_encoding

from .helpers import deep_js, open_page, visible_text

URL = "?page=sinusoidal&n=4096&d=512&max_len=4096"

#: JavaScript: ``s1()`` is S1's plot, its view and its image renderer (the
#: image figure whose colours are pinned to −1 … 1).
_S1 = """const s1 = () => {
  const Plot = Bokeh.Models.get('Plot'), Image = Bokeh.Models.get('Image');
  for (const doc of Bokeh.documents) for (const plot of doc.all_models) {
    if (!(plot instanceof Plot)) continue;
    const images = plot.renderers.filter(r => r.glyph instanceof Image);
    if (images.length !== 1 || images[0].glyph.color_mapper.low !== -1) continue;
    const view = Bokeh.index.find_one(plot);
    if (view && view.is_displayed) return [plot, view, images[0]];
  }
  return [null, null, null];
};"""

#: S1's rows drawn, the position of the first, and the page coordinates of (x, y).
_S1_JS = f"""([x, y]) => {{ {_S1}
  const [plot, view, image] = s1();
  if (!plot) return null;
  const box = view.el.getBoundingClientRect(), data = image.data_source.data;
  return {{
    rows: data.image[0].shape[0], first: data.y[0] + 0.5, page_y: box.top + window.scrollY,
    at: [box.left + view.frame.x_scale.compute(x), box.top + view.frame.y_scale.compute(y)],
  }};
}}"""

#: Zoom S1 to y from lo to hi as a zoom tool does: set its range, announce it.
_ZOOM_JS = f"""([lo, hi]) => {{ {_S1}
  const [plot, view] = s1();
  view.update_range({{xrs: new Map(), yrs: new Map([[plot.y_range, {{start: hi, end: lo}}]])}});
  view.trigger_ranges_update_event();
}}"""


def _tooltip(page) -> dict[str, str]:
    text = visible_text(page)
    found = {}
    for label in ("position t", "dimension j", "PE"):
        match = re.search(rf"(?m)^{re.escape(label)}:?\s*\n?\s*([-\d.,]+|NaN)\s*$", text)
        if match:
            found[label] = match.group(1)
    return found


def _hover(page, y: float) -> dict[str, str]:
    s1 = page.evaluate(_S1_JS, [3.0, y])
    page.evaluate("y => window.scrollTo(0, y - 100)", s1["page_y"])
    x, sy = page.evaluate(_S1_JS, [3.0, y])["at"]
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


@pytest.mark.parametrize(("y", "expected"), [(1003.2, 1000), (1000.0, 1000), (4091.0, 4088)])
def test_hover_names_the_position_of_the_row_drawn(page, server, y, expected):
    open_page(page, server["url"] + URL, min_canvases=4)
    page.wait_for_function(f"() => ({_S1_JS})([0, 0])?.rows === 512")
    _check(_hover(page, y), expected)


def test_zooming_in_draws_every_row_in_view(page, server):
    open_page(page, server["url"] + URL, min_canvases=4)
    page.wait_for_function(f"() => ({_S1_JS})([0, 0])?.rows === 512")
    page.evaluate(_ZOOM_JS, [990.0, 1040.0])
    # rows 990 … 1040 in view, and a tenth of them each side: 985 … 1045, every one
    page.wait_for_function(f"() => ({_S1_JS})([0, 0]).rows === 61", timeout=10_000)
    assert page.evaluate(_S1_JS, [0, 0])["first"] == 985
    _check(_hover(page, 1003.2), 1003)
    page.evaluate(_ZOOM_JS, [-0.5, 4095.5])  # as the reset tool does
    page.wait_for_function(f"() => ({_S1_JS})([0, 0]).rows === 512", timeout=10_000)
    _check(_hover(page, 1003.2), 1000)
