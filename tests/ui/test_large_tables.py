"""Sinusoidal's tables at 4,096 × 512 send one row in 8, and hovering says which.

``app.look.image_row_step`` caps a heatmap at 2**18 cells; the hover's
position comes from ``app.look.drawn_row_hover``, which reads the step from
the glyph in the page. Checked here in Chromium: the tooltip names a drawn
row's position (a multiple of 8), and the value beside it is that position's
code.
"""

from __future__ import annotations

import re

import pytest

from positional_core.sinusoidal import sinusoidal_encoding

from .helpers import deep_js, open_page, visible_text

#: Per figure with an image of 512 drawn rows: (its bounding box on the page,
#: the page coordinates of data point (x, y) for each asked point).
_IMAGE_POINTS_JS = """points => {
  const Plot = Bokeh.Models.get('Plot'), Image = Bokeh.Models.get('Image');
  const out = [];
  for (const doc of Bokeh.documents) for (const plot of doc.all_models) {
    if (!(plot instanceof Plot)) continue;
    const images = plot.renderers.filter(r => r.glyph instanceof Image);
    if (images.length !== 1) continue;
    const view = Bokeh.index.find_one(plot);
    if (!view || !view.is_displayed) continue;
    const box = view.el.getBoundingClientRect();
    const {x_scale, y_scale} = view.frame;
    out.push({
      title: plot.title ? plot.title.text : '',
      rows: images[0].data_source.data.image[0].shape[0],
      low: images[0].glyph.color_mapper.low,
      at: points.map(([x, y]) => [box.left + x_scale.compute(x), box.top + y_scale.compute(y)]),
    });
  }
  return out;
}"""


def _tooltip(page) -> dict[str, str]:
    text = visible_text(page)
    found = {}
    for label in ("position t", "dimension j", "PE", "value (NaN = no row)"):
        match = re.search(rf"(?m)^{re.escape(label)}:?\s*\n?\s*([-\d.,]+|NaN)\s*$", text)
        if match:
            found[label] = match.group(1)
    return found


@pytest.mark.parametrize(("y", "expected"), [(1003.2, 1000), (1000.0, 1000), (4091.0, 4088)])
def test_hover_names_the_position_of_the_row_drawn(page, server, y, expected):
    open_page(page, f"{server['url']}?page=sinusoidal&n=4096&d=512&max_len=4096", min_canvases=4)
    page.wait_for_function(f"() => ({_IMAGE_POINTS_JS})([]).filter(f => f.rows === 512).length")
    figures = page.evaluate(_IMAGE_POINTS_JS, [[3.0, y]])
    table = [f for f in figures if f["rows"] == 512 and f["low"] == -1]
    assert len(table) == 1, figures
    page.evaluate("y => window.scrollBy(0, y - 300)", table[0]["at"][0][1])
    figures = page.evaluate(_IMAGE_POINTS_JS, [[3.0, y]])
    x, sy = next(f for f in figures if f["rows"] == 512 and f["low"] == -1)["at"][0]
    page.mouse.move(x, sy)
    page.wait_for_function(
        deep_js("deepElements().some(el => /^position t/.test(el.textContent))"), timeout=5_000
    )
    tip = _tooltip(page)
    assert tip.get("position t") == str(expected), tip
    assert tip["dimension j"] == "3"
    value = sinusoidal_encoding(expected + 1, 512)[expected, 3]
    assert float(tip["PE"]) == pytest.approx(value, abs=6e-4), tip
