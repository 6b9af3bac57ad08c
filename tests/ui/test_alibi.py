"""ALiBi page in a real browser: H → curves, bias form → same weights, links."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from positional_core.alibi import alibi_head_bias, alibi_slopes
from positional_core.attention import softmax

from .helpers import SET_SLIDER_JS, figure_data_events, record_frames

# Data of the glyph renderers of one Bokeh glyph type, read from the page's
# Bokeh document (what the browser draws, not what the server meant to send).
_GLYPH_DATA = """
(type) => {
  const out = [];
  for (const doc of Bokeh.documents) {
    for (const m of doc.all_models) {
      if (m.glyph && m.glyph.constructor.__name__ === type) {
        const data = {};
        for (const [k, v] of Object.entries(m.data_source.data)) data[k] = Array.from(v);
        out.push(data);
      }
    }
  }
  return out;
}
"""


def _glyphs(page: Page, glyph_type: str) -> list[dict]:
    return page.evaluate(_GLYPH_DATA, glyph_type)


@pytest.fixture
def errors(page: Page) -> list[str]:
    found: list[str] = []
    page.on("console", lambda m: found.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: found.append(str(e)))
    return found


def _open(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("canvas", state="attached", timeout=30_000)
    expect(page.get_by_text("A4 · How fast each head forgets")).to_be_visible(timeout=30_000)


def _family(page: Page) -> dict:
    """A4's curves: one line for all heads, broken by NaN after each (column "head")."""
    (curves,) = [d for d in _glyphs(page, "Line") if "head" in d]
    return curves


def _slider_handle(page: Page, title: str):
    group = page.locator(".bk-input-group", has=page.locator(".bk-slider-title", has_text=title))
    return group.locator(".noUi-handle").first


def test_heads_to_12_draws_12_curves_and_form_keeps_weights(server, page: Page, errors):
    _open(page, f"{server['url']}?page=alibi")
    expect(page.get_by_text("H = 8 is a power of two")).to_be_visible()
    curves = _family(page)
    assert sorted(set(curves["head"])) == list(range(1, 9))
    assert sum(1 for y in curves["y"] if y != y) == 8  # one NaN break per head

    handle = _slider_handle(page, "Heads H")
    handle.focus()
    for _ in range(4):
        handle.press("ArrowRight")
    expect(page.get_by_text("Heads H: 12")).to_be_visible()
    expect(page.get_by_text("H = 12 is not a power of two")).to_be_visible(timeout=10_000)
    page.wait_for_function(
        """() => { for (const doc of Bokeh.documents) for (const m of doc.all_models)
             if (m.glyph && m.glyph.constructor.__name__ === 'Line'
                 && m.data_source.data.head !== undefined)
               return new Set(Array.from(m.data_source.data.head)).size === 12;
           return false; }""",
        timeout=10_000,
    )
    curves = _family(page)
    assert sorted(set(curves["head"])) == list(range(1, 13))
    assert sum(1 for y in curves["y"] if y != y) == 12

    (before,) = _glyphs(page, "Quad")
    image_before = _glyphs(page, "Image")
    page.get_by_role("button", name="+m·j").click()
    expect(page.get_by_text("the same weights from")).to_be_visible()
    page.wait_for_function(
        """(old) => { for (const doc of Bokeh.documents) for (const m of doc.all_models)
             if (m.glyph && m.glyph.constructor.__name__ === 'Image') {
               const img = m.data_source.data.image[0];
               return img && Array.from(img).some((v, i) => !Number.isNaN(v) && v !== old[i]);
             }
           return false; }""",
        arg=[v for v in image_before[0]["image"][0]],
        timeout=10_000,
    )
    (after,) = _glyphs(page, "Quad")
    assert max(abs(a - b) for a, b in zip(after["weight"], before["weight"], strict=True)) <= 1e-12
    page.wait_for_url("**heads=12*form=column*", timeout=10_000)

    assert "Traceback" not in page.content()
    assert errors == []


def test_link_opens_symmetric_state_with_form_disabled(server, page: Page, errors):
    _open(page, f"{server['url']}?page=alibi&heads=16&head=12&mask=symmetric&form=column")
    expect(page.get_by_text("H = 16 is a power of two")).to_be_visible()
    expect(page.get_by_text("Head h: 12")).to_be_visible()
    # the link asked for +m·j with symmetric attention: refused, with a note
    expect(page.get_by_text("The +m·j form needs the causal mask")).to_be_visible()
    expect(page.get_by_role("button", name="+m·j")).to_be_disabled()
    expect(page.get_by_text("Bias form is fixed to −m·|i − j|")).to_be_visible()
    image = _glyphs(page, "Image")[0]["image"][0]
    assert not any(v != v for v in image)  # symmetric: no masked (NaN) cell
    assert "Traceback" not in page.content()
    assert errors == []


def test_choosing_a_head_and_a_row_draws_in_the_browser_alone(server, page: Page, errors):
    """Head and row select among rows the page shipped: A1's ring, A2's image and
    outline and A3's bars follow in the browser, and no figure data comes back."""
    frames = record_frames(page)
    _open(page, f"{server['url']}?page=alibi")
    page.wait_for_timeout(500)
    frames.clear()
    page.evaluate(SET_SLIDER_JS, ["Head h", 5])
    page.evaluate(SET_SLIDER_JS, ["Query row i", 9])
    slope = float(alibi_slopes(8)[4])
    expected = [float(w) for w in softmax(alibi_head_bias(slope, 16)[9])]
    page.wait_for_function(
        """(expected) => { for (const doc of Bokeh.documents) for (const m of doc.all_models)
             if (m.glyph && m.glyph.constructor.__name__ === 'Quad') {
               const w = Array.from(m.data_source.data.top);
               return w.every((v, i) => Math.abs(v - expected[i]) < 1e-6);
             }
           return false; }""",
        arg=expected,
        timeout=10_000,
    )
    cell = page.evaluate(
        """() => { for (const doc of Bokeh.documents) for (const m of doc.all_models)
             if (m.glyph && m.glyph.constructor.__name__ === 'Image')
               return m.data_source.data.image[0][9 * 16]; }"""
    )
    assert cell == pytest.approx(-9 * slope, rel=1e-6)  # row 9, key 0: −m·9
    expect(page.get_by_text("head 5 of 8").first).to_be_visible(timeout=5_000)
    page.wait_for_url("**head=5*", timeout=10_000)
    page.wait_for_timeout(300)
    assert figure_data_events(frames) == []
    assert errors == []
