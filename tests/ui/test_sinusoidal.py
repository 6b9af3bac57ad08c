"""Sinusoidal & learned in a real browser: position t is selected in the browser.

Moving t redraws every mark of t (S1's and S4's outlines, S2's hands, S3's
curve and marks) from the candidates the page shipped, with no figure data
coming back from the server: only the small messages for the readouts and
the address. The zoom of the tall tables is tests/ui/test_large_tables.py's.
"""

from __future__ import annotations

import re

import numpy as np
from playwright.sync_api import Page, expect

from positional_core.grid2d import patch_scores
from positional_core.sinusoidal import sinusoidal_code, sinusoidal_encoding

from .helpers import (
    SET_RELEASED_JS,
    SET_SLIDER_JS,
    PageWatch,
    figure_data_events,
    open_recording,
)

_PEAK = """
() => {
  const doc = Bokeh.documents[0];
  return [...doc.all_models]
    .filter(m => typeof m.name === 'string' && m.name.startsWith('pe-choice:t:')
                 && 'dot' in m.data && m.data.s.length === 1)
    .map(m => Array.from(m.data.s)[0]);
}
"""


def _only_readouts_came_back(
    page: Page, frames: list[str], watch: PageWatch, readout: str, query: str
) -> None:
    """The server heard of the last value (its readout and the address follow) but
    sent no figure data, and the page logged no error."""
    expect(page.get_by_text(readout).first).to_be_visible(timeout=5_000)
    page.wait_for_function(f"() => location.search.includes({query!r})", timeout=5_000)
    page.wait_for_timeout(500)
    assert figure_data_events(frames) == []
    assert not watch.errors


def test_moving_t_redraws_in_the_browser_without_server_data(server, page: Page):
    watch, frames = open_recording(page, f"{server['url']}?page=sinusoidal", 4)
    assert page.evaluate(_PEAK) == [10]
    for t in (11, 25, 33):
        page.evaluate(SET_SLIDER_JS, ["Position t", t])
        page.wait_for_function(f"() => ({_PEAK})().every(s => s === {t})", timeout=5_000)
    _only_readouts_came_back(page, frames, watch, "for t = 33, k = 3", "t=33")


_CURVE = """
() => {
  const doc = Bokeh.documents[0];
  const source = [...doc.all_models].find(
    m => typeof m.name === 'string' && m.name.startsWith('pe-choice:t:')
         && 'dot' in m.data && m.data.s.length > 1);
  const shipped = source.tags.length ? source.tags[0].data.dot.length : 0;
  return {dot: Array.from(source.data.dot), shipped};
}
"""


def test_at_thousands_of_positions_the_browser_still_draws_s3(server, page: Page):
    """S3's curve for every t is a window of one vector (its value depends on
    s − t only): 2n − 1 numbers shipped instead of n², so at n = 3,000 the
    browser still draws each t, exactly the core's dot products, in the same
    frame as the peak (S2's 3,000 × 32 hands are drawn by the server there)."""
    watch, _frames = open_recording(page, f"{server['url']}?page=sinusoidal&n=3000&t=10", 4)
    codes = sinusoidal_encoding(3000, 64)
    for t in (2500, 7, 2999):
        page.evaluate(SET_SLIDER_JS, ["Position t", t])
        page.wait_for_function(f"() => ({_PEAK})().every(s => s === {t})", timeout=5_000)
        curve = page.evaluate(_CURVE)
        assert curve["shipped"] == 2 * 3000 - 1
        np.testing.assert_allclose(curve["dot"], codes @ codes[t], rtol=1e-5, atol=1e-4)
    assert not watch.errors


_HANDS = """
() => {
  const doc = Bokeh.documents[0];
  const source = [...doc.all_models].find(
    m => typeof m.name === 'string' && m.name.startsWith('pe-choice:t:') && 'omega' in m.data);
  return {sin: Array.from(source.data.sin), keys: new Set(source.tags[0].data.__key).size};
}
"""


def test_after_n_grows_the_browser_selects_the_new_positions(server, page: Page):
    """n is a control of the marks' frames: the candidates the browser holds
    grow with it, and a t past the old n is drawn in the browser, right."""
    watch, frames = open_recording(page, f"{server['url']}?page=sinusoidal", 4)
    assert page.evaluate(_HANDS)["keys"] == 64
    page.evaluate(SET_RELEASED_JS, ["Number of positions n", 100])
    page.wait_for_function(f"() => ({_HANDS})().keys === 100", timeout=10_000)
    page.wait_for_timeout(300)
    frames.clear()
    page.evaluate(SET_SLIDER_JS, ["Position t", 90])
    page.wait_for_function(f"() => ({_PEAK})().every(s => s === 90)", timeout=5_000)
    np.testing.assert_allclose(
        page.evaluate(_HANDS)["sin"], sinusoidal_code(90, 64)[0::2], rtol=1e-6, atol=1e-6
    )
    _only_readouts_came_back(page, frames, watch, "for t = 90, k = 3", "t=90")


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


# The figures t moves: S1–S4 (S5, the patch grid, does not follow t).
_FIGURES = """
() => [...Bokeh.documents[0].all_models]
  .filter(m => m instanceof Bokeh.Models.get('Plot'))
  .filter(m => !(m.left || []).some(a => a.axis_label === 'patch row'))
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
    watch, _ = open_recording(page, f"{server['url']}?page=sinusoidal", 4)
    figures = page.evaluate(_FIGURES)
    assert len(figures) == 4
    page.evaluate(_COUNT_PAINTS)
    for t in (21, 22):  # the first change after the page loads included
        page.evaluate(SET_SLIDER_JS, ["Position t", t])
        page.wait_for_function(f"() => ({_PEAK})().every(s => s === {t})", timeout=5_000)
    page.wait_for_timeout(800)
    paints = page.evaluate("() => window.__pePaints")
    for plot in figures:
        assert paints["overlays"].get(plot, 0) >= 1, paints
        assert paints["primary"].get(plot, 0) == 0, paints
    assert page.evaluate(_CLIPS) == [True, False]  # overlay glyphs clipped to the frame
    bar = page.evaluate(_CLOCK_BAR)
    assert (bar["high"], bar["axis_end"], bar["colors"]) == (31, 31, 32)  # d = 64: 32 pairs
    page.evaluate(SET_RELEASED_JS, ["Dimension d", 16])
    page.wait_for_function(f"() => ({_CLOCK_BAR})().axis_end === 7", timeout=10_000)
    bar = page.evaluate(_CLOCK_BAR)
    assert (bar["high"], bar["colors"]) == (7, 8)
    assert page.evaluate("() => window.__pePaints")["primary"].get(bar["plot"], 0) >= 1
    assert not watch.errors


# Every font size of the page's figures in pixels, as the browser draws them: sizes
# in em are relative to the figure's canvas (Panel's design sets the axes' so).
FONT_SIZES_JS = """
() => {
  const sizes = [], seen = new Set();
  const roots = Bokeh.index.values ? [...Bokeh.index.values()] : Object.values(Bokeh.index);
  for (const root of roots) for (const view of root.owner.all_views()) {
    if (!view.canvas_view || seen.has(view.model.id)) continue;
    seen.add(view.model.id);
    const base = parseFloat(getComputedStyle(view.canvas_view.el).fontSize);
    for (const model of view.model.references()) {
      for (const [name, prop] of Object.entries(model.properties)) {
        if (!name.endsWith('font_size')) continue;
        let value = prop.get_value();
        if (value && typeof value === 'object') value = value.value;
        if (typeof value !== 'string') continue;
        const size = parseFloat(value);
        const px = value.endsWith('em') ? size * base : value.endsWith('pt') ? size * 4 / 3 : size;
        sizes.push([`${model.type}.${name} = ${value}`, px]);
      }
    }
  }
  return sizes;
}
"""


def test_every_text_in_the_figures_is_at_least_12px(server, page: Page):
    watch, _frames = open_recording(page, f"{server['url']}?page=sinusoidal&max_len=8", 4)
    sizes = page.evaluate(FONT_SIZES_JS)
    assert len({kind for kind, _px in sizes}) >= 5
    assert [(kind, px) for kind, px in sizes if px < 12 - 1e-6] == []
    assert not watch.errors


# S5's scores as the browser has them: the image of the figure with a "score" axis.
_GRID = """
() => {
  for (const doc of Bokeh.documents) {
    for (const m of doc.all_models) {
      const d = m.data_source && m.data_source.data;
      if (m.glyph && m.glyph.constructor.__name__ === 'Image' && d.dw && d.dw[0] === 14) {
        return Array.from(d.image[0]);
      }
    }
  }
  return null;
}
"""


def test_s5_draws_the_cores_scores_for_each_code_and_patch(server, page):
    page.goto(f"{server['url']}?page=sinusoidal&figure=grid&embed=1")
    page.wait_for_function(f"({_GRID})() !== null", timeout=30_000)

    def drawn_is(scheme: str, patch: tuple[int, int]) -> None:
        want = patch_scores(scheme, patch).ravel()
        page.wait_for_function(
            f"want => {{ const got = ({_GRID})(); return got && got.every("
            "(v, i) => Math.abs(v - want[i]) < 1e-3 * Math.max(1, Math.abs(want[i]))); }",
            arg=want.tolist(),
            timeout=10_000,
        )

    drawn_is("sincos_2d", (5, 5))
    page.get_by_role("button", name="1-D, reading order").click()
    drawn_is("sincos_1d", (5, 5))
    expect(page).to_have_url(re.compile(r"grid_scheme=sincos_1d"), timeout=5_000)
    handle = page.get_by_role("slider", name=re.compile("Patch row")).first
    handle.focus()
    page.keyboard.press("ArrowRight")
    drawn_is("sincos_1d", (6, 5))
    page.get_by_role("button", name="2-D RoPE").click()
    drawn_is("rope_2d", (6, 5))
    expect(page.get_by_text("Patch (row 6, column 5)")).to_be_visible()


# The screen point of S5's patch (row, column): from the figure's own scales.
_PATCH_SCREEN = """
([row, col]) => {
  for (const view of Bokeh.index.all_views ? Bokeh.index.all_views() : []) {
    const renderers = view.model && view.model.renderers;
    if (!view.frame || !renderers) { continue; }
    const grid = renderers.some((r) => r.glyph && r.glyph.type === 'Image'
      && r.data_source.data.dw && r.data_source.data.dw[0] === 14);
    if (grid) {
      const box = view.canvas_view.el.getBoundingClientRect();
      const {x_scale, y_scale} = view.frame;
      return [box.left + x_scale.compute(col), box.top + y_scale.compute(row)];
    }
  }
  return null;
}
"""


def test_s5_a_click_on_a_patch_rings_it(server, page):
    page.goto(f"{server['url']}?page=sinusoidal&figure=grid&embed=1")
    page.wait_for_function(f"({_PATCH_SCREEN})([0, 0]) !== null", timeout=30_000)
    page.wait_for_function(f"({_GRID})() !== null", timeout=30_000)
    x, y = page.evaluate(_PATCH_SCREEN, [2, 9])
    page.mouse.click(x, y)
    expect(page.get_by_text("Patch (row 2, column 9)")).to_be_visible(timeout=10_000)
    expect(page).to_have_url(re.compile(r"patch_row=2.*patch_col=9|patch_col=9.*patch_row=2"))
    want = patch_scores("sincos_2d", (2, 9)).ravel()
    page.wait_for_function(
        f"want => {{ const got = ({_GRID})(); return got && got.every("
        "(v, i) => Math.abs(v - want[i]) < 1e-3 * Math.max(1, Math.abs(want[i]))); }",
        arg=want.tolist(),
        timeout=10_000,
    )
