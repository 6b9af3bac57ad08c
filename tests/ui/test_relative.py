"""Relative page in a real browser: num_buckets → step chart, presets, links, the head."""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from app.pages.relative import BIAS_SEED
from positional_core.relative import t5_bias_matrix, t5_random_bucket_biases
from positional_core.terms import toeplitz_deviation

from .helpers import SET_SLIDER_JS, figure_data_events, record_frames

# The step chart's data as the browser has it: (offset, bucket) pairs of the
# Bokeh line whose source carries a "region" column.
_STEPS = """
() => {
  for (const doc of Bokeh.documents) {
    for (const m of doc.all_models) {
      if (m.glyph && m.glyph.constructor.__name__ === 'Line' && m.data_source.data.region) {
        const d = m.data_source.data;
        return {at: Array.from(d.at), bucket: Array.from(d.bucket)};
      }
    }
  }
  return null;
}
"""


@pytest.fixture
def errors(page: Page) -> list[str]:
    found: list[str] = []
    page.on("console", lambda m: found.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: found.append(str(e)))
    return found


def _open(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("canvas", state="attached", timeout=30_000)
    expect(page.get_by_text("T1a · T5: which bucket does each offset fall in?")).to_be_visible(
        timeout=30_000
    )
    page.wait_for_function(f"({_STEPS})() !== null", timeout=30_000)


def _slider_handle(page: Page, title: str):
    group = page.locator(".bk-input-group", has=page.locator(".bk-slider-title", has_text=title))
    return group.locator(".noUi-handle").first


def _max_bucket(page: Page) -> int:
    return max(page.evaluate(_STEPS)["bucket"])


def test_moving_num_buckets_changes_the_step_chart(server, page: Page, errors):
    _open(page, f"{server['url']}?page=relative")
    expect(page.get_by_text("32 buckets, bidirectional")).to_be_visible()
    assert _max_bucket(page) == 31

    handle = _slider_handle(page, "Buckets num_buckets")
    handle.focus()
    handle.press("ArrowRight")
    handle.press("ArrowRight")
    expect(page.get_by_text("Buckets num_buckets (T1): 36")).to_be_visible()
    expect(page.get_by_text("36 buckets, bidirectional")).to_be_visible(timeout=10_000)
    page.wait_for_function(
        f"(() => {{ const d = ({_STEPS})(); return d && Math.max(...d.bucket) === 35; }})()",
        timeout=10_000,
    )
    steps = page.evaluate(_STEPS)
    buckets = dict(zip(steps["at"], steps["bucket"], strict=True))
    assert buckets[0] == 0 and buckets[1] == 19  # after the query: bucket 18 + 1
    page.wait_for_url("**num_buckets=36*", timeout=10_000)

    # The preset puts T5-base back, as a decoder.
    page.get_by_role("button", name="T5-base decoder (causal)").click()
    expect(page.get_by_text("32 buckets, causal")).to_be_visible(timeout=10_000)
    expect(page.get_by_text("Buckets num_buckets (T1): 32")).to_be_visible()
    page.wait_for_function(
        f"(() => {{ const d = ({_STEPS})(); return d && d.bucket[d.bucket.length - 1] === 0; }})()",
        timeout=10_000,
    )
    assert "Traceback" not in page.content()
    assert errors == []


def test_link_opens_a_clamped_causal_state(server, page: Page, errors):
    _open(
        page,
        f"{server['url']}?page=relative&mode=causal&num_buckets=16&max_distance=3"
        "&clip_k=9999&nope_len=40",
    )
    expect(page.get_by_text("16 buckets, causal")).to_be_visible()
    expect(page.get_by_text("max_distance='3' is outside 9…1,024")).to_be_visible()
    expect(page.get_by_text("Clip value k (T2): 64")).to_be_visible()
    expect(page.get_by_text("Sequence length T (T3): 40")).to_be_visible()
    steps = page.evaluate(_STEPS)
    assert max(steps["bucket"]) == 15
    assert all(b == 0 for a, b in zip(steps["at"], steps["bucket"], strict=True) if a >= 0)
    assert "Traceback" not in page.content()
    assert errors == []


# T1b's image as the browser draws it, and its colour scale (the mapper the
# head's choice moves: the source's first follower).
_BIAS_CELLS = """
() => {
  const doc = Bokeh.documents[0];
  const source = [...doc.all_models].find(
    m => typeof m.name === 'string' && m.name.startsWith('pe-choice:head:') && 'image' in m.data);
  const image = source.data.image[0];
  return {shape: Array.from(image.shape), cells: Array.from(image),
          low: source.tags[1].low, high: source.tags[1].high,
          shipped: Object.keys(source.tags[0].data).sort()};
}
"""


def test_choosing_a_head_looks_its_biases_up_in_the_browser(server, page: Page, errors):
    """T1b: the page ships each head's bias per bucket once; the browser looks the
    chosen head's biases up at every cell's bucket. The image it draws is T5's bias
    matrix of that head, and no figure data comes back from the server."""
    frames = record_frames(page)
    _open(page, f"{server['url']}?page=relative")
    page.wait_for_timeout(500)
    frames.clear()
    assert "image" not in page.evaluate(_BIAS_CELLS)["shipped"]  # tables, not images
    table = t5_random_bucket_biases(32, 12, seed=BIAS_SEED)
    for head in (5, 12, 2):
        page.evaluate(SET_SLIDER_JS, ["Head h", head])
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
    expect(page.get_by_text("Head 2 of 12").first).to_be_visible(timeout=5_000)
    page.wait_for_url("**head=2*", timeout=10_000)
    page.wait_for_timeout(500)
    assert figure_data_events(frames) == []
    assert errors == []


def test_a_decoder_head_is_masked_in_the_browser(server, page: Page, errors):
    """Causal: the browser's lookup draws the future keys grey (NaN) for every head."""
    _open(page, f"{server['url']}?page=relative&mode=causal&bias_len=16")
    table = t5_random_bucket_biases(32, 12, seed=BIAS_SEED)
    page.evaluate(SET_SLIDER_JS, ["Head h", 4])
    expected = t5_bias_matrix(table[:, 3], 16, 16, bidirectional=False)
    expected[np.triu_indices(16, k=1)] = np.nan
    page.wait_for_function(
        f"() => Math.abs(({_BIAS_CELLS})().cells[16] - {float(expected[1, 0])}) < 1e-6",
        timeout=5_000,
    )
    cells = np.array(
        [np.nan if c is None else c for c in page.evaluate(_BIAS_CELLS)["cells"]], dtype=float
    )
    np.testing.assert_allclose(cells.reshape(16, 16), expected, rtol=1e-6)
    assert errors == []


# T4's mosaic as the browser has it: the four terms' raw values (the hover column).
_TERMS = """
() => {
  for (const doc of Bokeh.documents) {
    for (const m of doc.all_models) {
      const d = m.data_source && m.data_source.data;
      if (m.glyph && m.glyph.constructor.__name__ === 'Image' && d.value) {
        return {size: d.dw[0], values: Array.from(d.value[0])};
      }
    }
  }
  return null;
}
"""


def _quadrant(values: list, size: int, n: int, index: int) -> np.ndarray:
    """Term ``index`` (0–3) of the mosaic the browser holds, as an n × n matrix."""
    mosaic = np.asarray(values, dtype=float).reshape(size, size)
    step = size - n
    row, col = divmod(index, 2)
    return mosaic[row * step : row * step + n, col * step : col * step + n]


def _deviations(drawn: dict, n: int) -> list[float]:
    """Each drawn term's largest change along a diagonal (the core's measure)."""
    return [toeplitz_deviation(_quadrant(drawn["values"], drawn["size"], n, i)) for i in range(4)]


def test_the_four_terms_switch_form_and_length_and_the_browser_shows_the_cores_numbers(
    server, page: Page, errors
):
    page.goto(f"{server['url']}?page=relative&figure=terms&embed=1")
    expect(page.get_by_text("T4 · Why relative: the four terms of a score")).to_be_visible(
        timeout=30_000
    )
    page.wait_for_function(f"({_TERMS})() !== null", timeout=30_000)
    absolute = _deviations(page.evaluate(_TERMS), 16)
    assert absolute[0] < 1e-6 and min(absolute[1:]) > 1e-2  # three depend on where the pair is

    page.get_by_role("button", name="Transformer-XL").click()
    expect(page.get_by_text("(d) global offset bias v").first).to_be_visible(timeout=10_000)
    expect(page).to_have_url(re.compile(r"terms_form=transformer_xl"), timeout=5_000)
    relative = _deviations(page.evaluate(_TERMS), 16)
    assert max(relative) < 1e-5  # float32 on the wire: the offset alone

    handle = _slider_handle(page, "Positions (T4)")
    handle.focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_text("each 17 × 17 matrix")).to_be_visible(timeout=10_000)
    assert page.evaluate(_TERMS)["size"] == 17 + 17 + max(2, 17 // 4)
    assert errors == []
