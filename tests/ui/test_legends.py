"""Legends beside a figure's frame cover nothing: not the frame, not an axis.

Bokeh drew a legend placed above the frame ``margin`` px (10 by default) into
the frame: it covered the frame's top and its top tick label (Sinusoidal S3,
ALiBi A1, Compare's RoPE card). ``app.look.legend_outside`` sets the margin
to 0, on the overlay that draws the legend.
"""

from __future__ import annotations

import pytest

from .helpers import open_page

#: The pages with a legend beside a frame, and how many such legends each shows.
OUTSIDE_LEGENDS = {"sinusoidal": 1, "rope": 3, "extension": 2, "alibi": 1, "compare": 1}

#: Per legend beside a frame: its side, and the area (px²) it shares with the
#: frame and with each axis or other panel item of its figure.
_LEGEND_OVERLAPS_JS = """() => {
  const Legend = Bokeh.Models.get('Legend'), Plot = Bokeh.Models.get('Plot');
  const sides = ['above', 'below', 'left', 'right'];
  const shared = (a, b) =>
    Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
    Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const out = [];
  for (const doc of Bokeh.documents) for (const plot of doc.all_models) {
    if (!(plot instanceof Plot)) continue;
    const view = Bokeh.index.find_one(plot);
    if (!view || !view.is_displayed) continue;
    for (const side of sides) for (const legend of plot[side]) {
      if (!(legend instanceof Legend)) continue;
      const box = Bokeh.index.find_one(legend).bbox;
      const others = [['frame', view.frame.bbox]];
      for (const s of sides) for (const item of plot[s]) {
        const other = item === legend ? null : Bokeh.index.find_one(item);
        if (other && other.bbox) others.push([item.type, other.bbox]);
      }
      const overlaps = others.map(([name, b]) => [name, shared(box, b)]);
      out.push({side, height: box.height, overlaps});
    }
  }
  return out;
}"""


def _legends(page, url: str, measure_js: str, count: int) -> list[dict]:
    """Open ``url`` and return ``measure_js``'s list once it holds ``count`` legends
    (and no more)."""
    open_page(page, url, min_canvases=2)
    page.wait_for_function(f"() => ({measure_js})().length >= {count}", timeout=30_000)
    legends = page.evaluate(measure_js)
    assert len(legends) == count
    return legends


@pytest.mark.parametrize("slug", list(OUTSIDE_LEGENDS))
def test_legends_beside_the_frame_cover_nothing(page, server, slug):
    url = f"{server['url']}?page={slug}"
    for legend in _legends(page, url, _LEGEND_OVERLAPS_JS, OUTSIDE_LEGENDS[slug]):
        assert legend["height"] > 10, legend  # drawn, with its entries
        covered = {name: area for name, area in legend["overlaps"] if area > 1}
        assert not covered, f"a legend {legend['side']} the frame covers {covered}"


#: The pages with a legend inside a figure's frame, and how many each shows at
#: its defaults on a phone.
INSIDE_LEGENDS = {"extension": 1, "relative": 1, "compare": 3}

#: Per legend inside a frame: how far each of its edges lies inside the frame's (px).
_LEGEND_GAPS_JS = """() => {
  const Legend = Bokeh.Models.get('Legend'), Plot = Bokeh.Models.get('Plot');
  const out = [];
  for (const doc of Bokeh.documents) for (const plot of doc.all_models) {
    if (!(plot instanceof Plot)) continue;
    const view = Bokeh.index.find_one(plot);
    if (!view || !view.is_displayed) continue;
    for (const legend of plot.center) {
      if (!(legend instanceof Legend) || !legend.visible) continue;
      const box = Bokeh.index.find_one(legend).bbox, frame = view.frame.bbox;
      out.push({
        figure: plot.left.length ? plot.left[0].axis_label : '',
        left: box.left - frame.left, right: frame.right - box.right,
        top: box.top - frame.top, bottom: frame.bottom - box.bottom,
      });
    }
  }
  return out;
}"""


@pytest.mark.parametrize("slug", list(INSIDE_LEGENDS))
def test_legends_inside_a_frame_fit_it_on_a_phone(page, server, slug):
    # Wider than the frame, a legend hid its dots past the frame's left edge (E1)
    # or ran past its right one (Compare's T5 card).
    page.set_viewport_size({"width": 390, "height": 844})
    url = f"{server['url']}?page={slug}"
    for legend in _legends(page, url, _LEGEND_GAPS_JS, INSIDE_LEGENDS[slug]):
        gaps = {side: legend[side] for side in ("left", "right", "top", "bottom")}
        assert min(gaps.values()) >= 0, f"{legend['figure']}: legend leaves its frame by {gaps}"
