"""Browser-selected controls in a real browser: the figure follows, the server sends no data.

Moving such a control (the sinusoidal page's position t) must redraw the marks
from the candidates the page shipped, with no figure data coming back from the
server: only the small messages for the readouts and the address.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from app.relative import BIAS_SEED
from positional_core.relative import t5_bias_matrix, t5_random_bucket_biases
from positional_core.rope import rope_frequencies
from positional_core.sinusoidal import sinusoidal_code

from .helpers import PageWatch, open_page

_SET = """
([title, value]) => {
  const doc = Bokeh.documents[0];
  const slider = [...doc.all_models].find(
    m => typeof m.title === 'string' && m.title.startsWith(title));
  slider.value = value;
}
"""

# A throttled slider (n, d) tells the server when it is released.
_SET_RELEASED = """
([title, value]) => {
  const doc = Bokeh.documents[0];
  const slider = [...doc.all_models].find(
    m => typeof m.title === 'string' && m.title.startsWith(title));
  slider.setv({value, value_throttled: value});
}
"""

_PEAK = """
() => {
  const doc = Bokeh.documents[0];
  return [...doc.all_models]
    .filter(m => typeof m.name === 'string' && m.name.startsWith('pe-choice:t:')
                 && 'dot' in m.data && m.data.s.length === 1)
    .map(m => Array.from(m.data.s)[0]);
}
"""


def _record_frames(page: Page) -> list[str]:
    """The text frames the page receives on its websockets, as they arrive."""
    frames: list[str] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived", lambda f: frames.append(f) if isinstance(f, str) else None
        ),
    )
    return frames


def _events(frames: list[str]) -> list[dict]:
    """The server → browser document events in ``frames``."""
    return [
        event
        for frame in frames
        if frame.startswith("{") and '"events"' in frame
        for event in json.loads(frame).get("events", [])
    ]


def _data_events(frames: list[str]) -> list[str]:
    """Server → browser events that replace or patch a data source."""
    return [
        f"{e.get('kind')} {e.get('attr')}"
        for e in _events(frames)
        if e.get("kind") in {"ColumnDataChanged", "ColumnsStreamed", "ColumnsPatched"}
        or e.get("attr") == "data"
    ]


def _visibility_events(frames: list[str]) -> list[str]:
    """Server → browser events that show or hide a component (each re-lays out the page)."""
    return [
        f"{e.get('attr')} = {e.get('new')}"
        for e in _events(frames)
        if e.get("attr") in {"visible", "css_classes"}
    ]


def _open_recording(page: Page, url: str, canvases: int) -> tuple[PageWatch, list[str]]:
    """Open ``url``, then record only what the server sends from here on."""
    watch = PageWatch().attach(page)
    frames = _record_frames(page)
    open_page(page, url, min_canvases=canvases)
    page.wait_for_timeout(500)
    frames.clear()
    return watch, frames


def _only_readouts_came_back(
    page: Page, frames: list[str], watch: PageWatch, readout: str, query: str
) -> None:
    """The server heard of the last value (its readout and the address follow) but
    sent no figure data, and the page logged no error."""
    expect(page.get_by_text(readout).first).to_be_visible(timeout=5_000)
    page.wait_for_function(f"() => location.search.includes({query!r})", timeout=5_000)
    page.wait_for_timeout(500)
    assert _data_events(frames) == []
    assert not watch.errors


def test_moving_t_redraws_in_the_browser_without_server_data(server, page: Page):
    watch, frames = _open_recording(page, f"{server['url']}?page=sinusoidal", 4)
    assert page.evaluate(_PEAK) == [10]
    for t in (11, 25, 33):
        page.evaluate(_SET, ["Position t", t])
        page.wait_for_function(f"() => ({_PEAK})().every(s => s === {t})", timeout=5_000)
    _only_readouts_came_back(page, frames, watch, "for t = 33, k = 3", "t=33")


_HANDS = """
() => {
  const doc = Bokeh.documents[0];
  const source = [...doc.all_models].find(
    m => typeof m.name === 'string' && m.name.startsWith('pe-choice:t:') && 'omega' in m.data);
  return {sin: Array.from(source.data.sin), keys: new Set(source.tags[0].data.__key).size};
}
"""


def test_after_n_grows_the_browser_selects_the_new_positions(server, page: Page):
    """n is redrawn in place (BrowserChoice.refresh): the candidates the browser
    holds grow with it, and a t past the old n is drawn in the browser, right."""
    watch, frames = _open_recording(page, f"{server['url']}?page=sinusoidal", 4)
    assert page.evaluate(_HANDS)["keys"] == 64
    page.evaluate(_SET_RELEASED, ["Number of positions n", 100])
    page.wait_for_function(f"() => ({_HANDS})().keys === 100", timeout=10_000)
    page.wait_for_timeout(300)
    frames.clear()
    page.evaluate(_SET, ["Position t", 90])
    page.wait_for_function(f"() => ({_PEAK})().every(s => s === 90)", timeout=5_000)
    np.testing.assert_allclose(
        page.evaluate(_HANDS)["sin"], sinusoidal_code(90, 64)[0::2], rtol=1e-6, atol=1e-6
    )
    _only_readouts_came_back(page, frames, watch, "for t = 90, k = 3", "t=90")


def test_a_hidden_quick_check_answer_updates_without_re_laying_out_the_page(server, page: Page):
    """The answer in a collapsed card follows the controls, and showing it shows the
    current answer; but the server never sends 'visible' back to the hidden pane
    (that made the browser lay out the whole page twice per move, ~400 ms)."""
    watch, frames = _open_recording(page, f"{server['url']}?page=sinusoidal", 4)
    for t in (12, 13):
        page.evaluate(_SET, ["Position t", t])
        page.wait_for_function(f"() => location.search.includes('t={t}&')", timeout=5_000)
    page.wait_for_timeout(500)
    assert _visibility_events(frames) == []
    page.get_by_role("button", name="Show the answer").click()
    expect(page.get_by_text("PE(13)·PE(13) =").first).to_be_visible(timeout=5_000)
    assert not watch.errors


_BIAS_CELLS = """
() => {
  const doc = Bokeh.documents[0];
  const source = [...doc.all_models].find(
    m => typeof m.name === 'string' && m.name.startsWith('pe-choice:head:') && 'image' in m.data);
  const image = source.data.image[0];
  return {shape: Array.from(image.shape), cells: Array.from(image),
          low: source.tags[1].low, high: source.tags[1].high};
}
"""


def test_choosing_a_head_looks_its_biases_up_in_the_browser(server, page: Page):
    """Relative's T1b: the page ships each head's bias per bucket once; the browser
    looks the chosen head's biases up at every cell's bucket. The image it draws is
    T5's bias matrix of that head, and no image comes back from the server."""
    watch, frames = _open_recording(page, f"{server['url']}?page=relative", 4)
    table = t5_random_bucket_biases(32, 12, seed=BIAS_SEED)
    for head in (5, 12, 2):
        page.evaluate(_SET, ["Head h", head])
        expected = t5_bias_matrix(table[:, head - 1], 128, 128).astype(np.float32)
        page.wait_for_function(
            f"() => Math.abs(({_BIAS_CELLS})().cells[1] - {float(expected.ravel()[1])}) < 1e-6",
            timeout=5_000,
        )
        drawn = page.evaluate(_BIAS_CELLS)
        assert drawn["shape"] == [128, 128]
        np.testing.assert_allclose(np.reshape(drawn["cells"], (128, 128)), expected, rtol=1e-6)
        limit = float(np.abs(table[:, head - 1]).max())
        assert (drawn["low"], drawn["high"]) == pytest.approx((-limit, limit), rel=1e-6)
    _only_readouts_came_back(page, frames, watch, "Head 2 of 12", "head=2")


_BAND = """
() => {
  const doc = Bokeh.documents[0];
  const band = [...doc.all_models].find(
    m => typeof m.name === 'string' && m.name.startsWith('pe-choice:pair:') && 'y1' in m.data);
  const [, plot, prop] = band.tags;
  return {edge: Array.from(band.data.y1)[0], top: plot[prop]};
}
"""


def test_choosing_a_pair_redraws_e2_in_the_browser(server, page: Page):
    """Context extension's E2 follows the pair from rows shipped for every pair:
    the trained band of the chosen pair is θᵢ·L, and no figure data comes back."""
    watch, frames = _open_recording(page, f"{server['url']}?page=extension", 4)
    theta = rope_frequencies(128, 10000.0)  # the default preset: d = 128, base 10,000
    for pair in (0, 40, 20):
        page.evaluate(_SET, ["Pair shown in E2", pair])
        edge = float(theta[pair] * 4096)  # trained length L = 4,096
        page.wait_for_function(
            f"() => Math.abs(({_BAND})().edge / {edge} - 1) < 1e-5", timeout=5_000
        )
        assert page.evaluate(_BAND)["top"] >= edge
    _only_readouts_came_back(page, frames, watch, "Pair 20: θ =", "pair=20")


_COUNT_PAINTS = """
() => {
  // Count each figure's full-canvas and overlay-only paints from here on.
  const Plot = Bokeh.Models.get('Plot');
  let proto = Plot.prototype.default_view.prototype;
  while (proto && !Object.prototype.hasOwnProperty.call(proto, '_paint_primary')) {
    proto = Object.getPrototypeOf(proto);
  }
  const counts = window.__pePaints = {primary: {}, overlays: {}};
  if (proto.__peCounted) return;
  for (const [name, key] of [['_paint_primary', 'primary'], ['_paint_overlays', 'overlays']]) {
    const original = proto[name];
    proto[name] = function (...args) {
      const table = window.__pePaints[key];
      table[this.model.id] = (table[this.model.id] || 0) + 1;
      return original.apply(this, args);
    };
  }
  proto.__peCounted = true;
}
"""

_CLIPS = """
() => {
  const view = Bokeh.Models.get('GlyphRenderer').prototype.default_view.prototype;
  const getter = Object.getOwnPropertyDescriptor(view, 'needs_clip').get;
  return [getter.call({model: {level: 'overlay'}}), getter.call({model: {level: 'glyph'}})];
}
"""


_HEATMAPS = """
() => [...Bokeh.documents[0].all_models]
  .filter(m => Array.isArray(m.renderers)
               && m.renderers.some(r => r.glyph && r.glyph.type === 'Image')
               && m.renderers.some(r => r.level === 'overlay'))
  .map(m => m.id)
"""


_FIGURES = """
() => [...Bokeh.documents[0].all_models]
  .filter(m => m instanceof Bokeh.Models.get('Plot'))
  .map(m => m.id)
"""

_CLOCK_BAR = """
() => {
  // S2's colour bar (the one whose mapper colours line segments) as drawn.
  const doc = Bokeh.documents[0];
  const plot = [...doc.all_models].find(
    m => Array.isArray(m.renderers)
         && m.renderers.some(r => r.glyph && r.glyph.type === 'Segment'));
  const bar = plot.right.find(r => r.type === 'ColorBar');
  const view = Bokeh.index.find_one(bar);
  return {plot: plot.id, high: bar.color_mapper.high, axis_end: view._major_range.end,
          colors: bar.color_mapper.palette.length};
}
"""


def test_moving_t_repaints_only_the_overlay_layer_of_every_figure(server, page: Page):
    """Everything t moves on Sinusoidal sits on Bokeh's overlay level: S1's and
    S4's outlines, S2's hands, S3's curve and marks. Moving t redraws only that
    layer of each figure, never the images, axes or colour bars under it. S2's
    colour bar would otherwise relay out its figure on every new set of hands
    (app/static/overlay.js keeps it still while what it shows is unchanged),
    and still follows a real change (d changes the number of pairs)."""
    watch, _frames = _open_recording(page, f"{server['url']}?page=sinusoidal", 4)
    figures = page.evaluate(_FIGURES)
    assert len(figures) == 4
    page.evaluate(_COUNT_PAINTS)
    for t in (21, 22):  # the first change after the page loads included
        page.evaluate(_SET, ["Position t", t])
        page.wait_for_function(f"() => ({_PEAK})().every(s => s === {t})", timeout=5_000)
    page.wait_for_timeout(800)
    paints = page.evaluate("() => window.__pePaints")
    for plot in figures:
        assert paints["overlays"].get(plot, 0) >= 1, paints
        assert paints["primary"].get(plot, 0) == 0, paints
    assert page.evaluate(_CLIPS) == [True, False]  # overlay glyphs clipped to the frame
    bar = page.evaluate(_CLOCK_BAR)
    assert (bar["high"], bar["axis_end"], bar["colors"]) == (31, 31, 32)  # d = 64: 32 pairs
    page.evaluate(_SET_RELEASED, ["Dimension d", 16])
    page.wait_for_function(f"() => ({_CLOCK_BAR})().axis_end === 7", timeout=10_000)
    bar = page.evaluate(_CLOCK_BAR)
    assert (bar["high"], bar["colors"]) == (7, 8)
    assert page.evaluate("() => window.__pePaints")["primary"].get(bar["plot"], 0) >= 1
    assert not watch.errors
