"""Compare page in a real browser: six verdicts, a link, a slider."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

VERDICTS = (
    "No row for 12,288 positions",
    "Defined, but 18 of 64 pairs unseen",
    "18 of 64 pairs leave their band",
    "Nothing new at any trained distance",
    "No new bucket past L",
    "No rotation, so no pair leaves its band",
)


@pytest.fixture
def errors(page: Page) -> list[str]:
    found: list[str] = []
    page.on("console", lambda m: found.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: found.append(str(e)))
    return found


def test_six_verdicts_and_the_summary(server, page: Page, errors):
    page.goto(f"{server['url']}?page=compare")
    page.wait_for_selector("canvas", state="attached", timeout=30_000)
    titles = ("Learned table", "Sinusoidal codes", "RoPE", "ALiBi", "T5 relative", "DroPE")
    for title in titles:
        expect(page.locator(".card-title", has_text=title).first).to_be_visible(timeout=30_000)
    for verdict in VERDICTS:
        expect(page.locator(".badge", has_text=verdict)).to_be_visible()
    expect(page.get_by_text("Summary: what each scheme adds")).to_be_visible()
    expect(page.locator("td", has_text="0 after interpolation, 17 with NTK")).to_be_visible()
    expect(
        page.locator("td", has_text="no new bucket; distances ≥ 91 share one bias")
    ).to_be_visible()
    expect(page.locator("td", has_text="32 × 12 = 384")).to_be_visible()
    assert (
        page.evaluate(
            """() => { let n = 0; for (const doc of Bokeh.documents) for (const m of doc.all_models)
             if (m.constructor.__name__ === 'Plot' || m.constructor.__name__ === 'Figure') n++;
           return n; }"""
        )
        >= 6
    )

    # L′ one step up with the keyboard: 16,384 → 32,768, the verdicts follow.
    # A DiscreteSlider is a column (its label, then a slider): the innermost
    # column holding the label holds its handle.
    column = page.locator(
        ".bk-panel-models-layout-Column", has=page.get_by_text("Target length L′")
    ).last
    handle = column.locator(".noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")
    expect(page.locator(".badge", has_text="No row for 28,672 positions")).to_be_visible(
        timeout=10_000
    )
    expect(page.get_by_text("NTK-aware base 82,685")).to_be_visible()
    expect(page.get_by_text("the new distances 4,096 … 32,767 reuse")).to_be_visible()
    # C6: the dashed line now runs to query 32,767, whose weight the verdict gives.
    expect(page.get_by_text("3.1 × 10").first).to_be_visible()
    page.wait_for_function(
        """() => [...Bokeh.documents[0].all_models].some(m => m.data && m.data.visible
             && m.data.visible.length && m.data.visible[m.data.visible.length - 1] === 32768)""",
        timeout=10_000,
    )
    page.wait_for_url("**target_len=32768*", timeout=10_000)
    assert "Traceback" not in page.content()
    assert errors == []


def test_link_opens_its_state(server, page: Page, errors):
    page.goto(f"{server['url']}?page=compare&trained_len=2048&target_len=2048&d=64")
    page.wait_for_selector("canvas", state="attached", timeout=30_000)
    expect(page.locator(".badge", has_text="Every position has a row")).to_be_visible(
        timeout=30_000
    )
    expect(page.locator(".badge", has_text="Every pair stays in its band")).to_be_visible()
    expect(page.get_by_text("Head dimension d (even): 64")).to_be_visible()
    assert "Traceback" not in page.content()
    assert errors == []


_X_END = """
(label) => {
  const plots = [...Bokeh.documents[0].all_models].filter(m => m.left && m.x_range);
  const plot = plots.find(p => p.left.some(a => a.axis_label === label));
  return plot ? plot.x_range.end : null;
}
"""


def test_each_figure_keeps_its_own_x_axis(server, page: Page, errors):
    """Panel links the x axes of figures whose dimensions share a name: RoPE's
    pair axis (0 … 63) must not take T5's distance axis (to L′ = 16,384)."""
    page.goto(f"{server['url']}?page=compare")
    page.wait_for_selector("canvas", state="attached", timeout=30_000)
    page.wait_for_function(f"() => ({_X_END})('bucket b(j − i)') !== null", timeout=30_000)
    page.wait_for_timeout(1_000)
    assert 63 < page.evaluate(_X_END, "angle at L′ / trained edge") < 100
    assert page.evaluate(_X_END, "bucket b(j − i)") >= 16_383
    assert errors == []


def test_on_a_phone_the_summary_is_a_block_per_scheme_not_a_table_to_scroll(server, page: Page):
    """Six columns do not fit 390 px: each scheme's values stand one under the other,
    each after its column's name, and nothing runs past the card's edge."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server['url']}?page=compare")
    row = page.locator("td", has_text="32 × 12 = 384")
    row.scroll_into_view_if_needed(timeout=30_000)
    wrap = page.locator(".wrap[aria-label=Summary]")
    sizes = wrap.evaluate("el => [el.scrollWidth, el.clientWidth]")
    assert sizes[0] <= sizes[1] + 1, sizes
    assert row.evaluate("el => getComputedStyle(el, '::before').content") == (
        '"parameters added: "'
    )
    cells = wrap.evaluate(
        """el => [...el.querySelectorAll('td')].map(td => td.getBoundingClientRect())
             .map(r => [r.left, r.right])"""
    )
    box = wrap.evaluate("el => { const r = el.getBoundingClientRect(); return [r.left, r.right]; }")
    outside = [(a, b) for a, b in cells if a < box[0] - 0.5 or b > box[1] + 0.5]
    assert not outside, (box, outside)
    # On a laptop it is a table again, its column names in its head.
    page.set_viewport_size({"width": 1280, "height": 800})
    expect(page.locator("th", has_text="parameters added")).to_be_visible()
    assert row.evaluate("el => getComputedStyle(el).display") == "table-cell"
