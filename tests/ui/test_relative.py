"""Relative page in a real browser: num_buckets → step chart, presets, links."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

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
