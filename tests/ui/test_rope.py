"""RoPE page in a real browser: buttons grow the log, a dragged tip moves the score, links."""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from app.numbers import fixed
from positional_core.rope import rope_frequencies, rope_score, rotation_angles

from .helpers import SET_SLIDER_JS, figure_data_events, new_server_errors, record_frames
from .test_sinusoidal import FONT_SIZES_JS

# Screen position of a data point of R1 (the figure with the point-draw tool),
# from the figure's own scales: where the browser really draws it.
_R1_SCREEN = """
([x, y]) => {
  const roots = Bokeh.index.values ? [...Bokeh.index.values()] : Object.values(Bokeh.index);
  for (const root of roots) {
    for (const view of root.owner.all_views ? root.owner.all_views() : []) {
      const tools = view.model && view.model.toolbar ? view.model.toolbar.tools : [];
      if (tools.some((t) => t.type === 'PointDrawTool')) {
        const box = view.canvas_view.el.getBoundingClientRect();
        return [box.left + view.frame.x_scale.compute(x), box.top + view.frame.y_scale.compute(y)];
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
    expect(page.get_by_text("R7 · Rotate with one layout, read with the other")).to_be_visible(
        timeout=30_000
    )
    page.wait_for_function(f"() => ({_R1_SCREEN.strip()})([0, 0]) !== null", timeout=30_000)


def _score(page: Page) -> str:
    return page.locator(".rope-score").inner_text()


def _log_rows(page: Page) -> list[list[str]]:
    rows = page.locator(".rope-log tbody tr")
    return [[c.strip() for c in rows.nth(i).inner_text().split("\t")] for i in range(rows.count())]


def test_buttons_log_slider_and_drag(server, page: Page, errors):
    offset = server["log"].stat().st_size
    _open(page, f"{server['url']}?page=rope")
    expect(page.locator(".rope-score")).to_contain_text("= 0.479")
    expect(page.get_by_text("The log is empty")).to_be_visible()

    page.get_by_role("button", name="Shift both by +1").click()
    expect(page.locator(".rope-log tbody tr")).to_have_count(2)
    assert _log_rows(page) == [
        ["shift both +1", "3", "2", "−1", "0.50", "0.479"],
        ["before", "2", "1", "−1", "0.50", "0.479"],
    ]
    page.get_by_role("button", name="Swap m and n").click()
    expect(page.locator(".rope-log tbody tr")).to_have_count(3)
    assert _log_rows(page)[0] == ["swap m and n", "2", "3", "1", "0.50", "−0.479"]
    expect(page.locator(".rope-score")).to_contain_text("= −0.479")
    box_m = page.get_by_role("textbox", name="Query position m")
    expect(box_m).to_have_value("2")
    page.wait_for_url(re.compile(r"[?&]m=2&n=3(&|$)"), timeout=10_000)

    page.get_by_role("button", name="Clear log").click()
    expect(page.get_by_text("The log is empty")).to_be_visible()

    # A slider moved with the keyboard: m → 3 turns the query, the score changes.
    handle = page.get_by_role("slider", name="Query position m")
    handle.focus()
    handle.press("ArrowRight")
    expect(box_m).to_have_value("3")
    expect(page.locator(".rope-score")).to_contain_text("= 0.000")
    handle.press("ArrowLeft")
    expect(page.locator(".rope-score")).to_contain_text("= −0.479")

    # Drag the tip of q down to (0, −1.2): the score follows while the button is held.
    before = _score(page)
    start = page.evaluate(_R1_SCREEN, [1.0, 0.0])  # the tip of q
    end = page.evaluate(_R1_SCREEN, [0.0, -1.2])
    page.mouse.move(*start)
    page.mouse.down()
    for i in range(1, 9):
        page.mouse.move(
            start[0] + (end[0] - start[0]) * i / 16, start[1] + (end[1] - start[1]) * i / 16
        )
        page.wait_for_timeout(30)
    # Still holding the button: the server has already followed the tip.
    expect(page.locator(".rope-score")).not_to_have_text(before, timeout=5_000)
    mid = _score(page)
    for i in range(9, 17):
        page.mouse.move(
            start[0] + (end[0] - start[0]) * i / 16, start[1] + (end[1] - start[1]) * i / 16
        )
        page.wait_for_timeout(30)
    page.mouse.up()
    # q = 1.2 · (0, −1): score = −1.2 · cos(0.5) = −1.053
    expect(page.locator(".rope-score")).to_contain_text("= −1.053", timeout=10_000)
    assert mid != _score(page)
    expect(page.get_by_text("Query content: direction (°): -90")).to_be_visible()
    page.wait_for_url(re.compile(r"q_angle=-90(&|$).*q_len=1\.2"), timeout=10_000)

    # A number past the box's limits becomes the limit, in the box and in the page.
    box_m.fill("5000")
    box_m.press("Enter")
    page.wait_for_url(re.compile(r"[?&]m=4096(&|$)"), timeout=10_000)
    expect(box_m).to_have_value("4096")

    # The lesson's positions typed into the number boxes, not 100 key presses.
    box_m.fill("105")
    box_m.press("Enter")
    box_n = page.get_by_role("textbox", name="Key position n")
    box_n.fill("102")
    box_n.press("Enter")
    page.wait_for_url(re.compile(r"[?&]m=105&n=102(&|$)"), timeout=10_000)
    score = rope_score([0.0, -1.2], [0.0, 1.0], 105, 102, inv_freq=[0.5])
    expect(page.locator(".rope-score")).to_contain_text(f"= {fixed(score)}")

    assert "Traceback" not in page.content()
    assert errors == []
    assert new_server_errors(server["log"], offset) == ""
    # Bokeh's "fixed sizing mode needs a width" does not apply to R1's frame-sized plot.
    assert "W-1005" not in server["log"].read_text(errors="replace")[offset:]


def test_link_opens_that_state(server, page: Page, errors):
    _open(
        page,
        f"{server['url']}?page=rope&m=105&n=102&theta=1&q_angle=0&k_angle=0"
        "&d=128&base=500000&layout=half-split&seed=7&start=20000&max_distance=512"
        "&pair=%3Cb%3Eabc",
    )
    # q = k = (1, 0), θ = 1, m − n = 3: score = cos 3
    expect(page.locator(".rope-score")).to_contain_text("= −0.990")
    expect(page.get_by_text("Base (rope_theta): 500,000")).to_be_visible()
    expect(page.get_by_text("Head dimension d (even): 128")).to_be_visible()
    expect(page.get_by_text("Keys rotated half-split, query rotated interleaved")).to_be_visible()
    expect(page.get_by_text("seed 7; half-split layout")).to_be_visible()

    # one value of the link could not be used: said so, the rest applied
    expect(page.get_by_text("Some settings were changed")).to_be_visible()
    expect(page.get_by_text("pair='<b>abc' is not a number; ignored.")).to_be_visible()
    assert "Traceback" not in page.content()
    assert errors == []


# The rows the two choice marks of the pair draw now: R4's bold angles and R5's ring.
_CHOSEN = """
() => {
  const out = {};
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    if (typeof m.name !== 'string' || !m.name.startsWith('pe-choice:pair:')) continue;
    const data = {};
    for (const [k, v] of Object.entries(m.data)) data[k] = Array.from(v);
    out['angle' in data ? 'angles' : 'ring'] = data;
  }
  return out;
}
"""


def test_choosing_a_pair_draws_r4_and_r5_in_the_browser_alone(server, page: Page, errors):
    """The highlighted pair selects among rows the page shipped: R4's bold angles and
    R5's ring round its wavelength follow in the browser, and no figure data comes back."""
    frames = record_frames(page)
    _open(page, f"{server['url']}?page=rope")
    page.wait_for_timeout(500)
    frames.clear()
    theta = rope_frequencies(64, 10_000)  # the defaults: d = 64, base 10,000, Δ ≤ 256
    for pair in (3, 20):
        page.evaluate(SET_SLIDER_JS, ["Highlighted pair i (R4)", pair])
        page.wait_for_function(
            f"() => {{ const c = ({_CHOSEN.strip()})(); return c.ring && c.ring.pair[0] === {pair}"
            f" && c.angles.pair.every((p) => p === {pair}); }}",
            timeout=10_000,
        )
    chosen = page.evaluate(_CHOSEN)
    expected = np.mod(rotation_angles(np.arange(257), theta[[20]])[:, 0], 2 * np.pi)
    np.testing.assert_allclose(chosen["angles"]["angle"], expected, rtol=1e-6, atol=1e-5)
    assert chosen["ring"]["wavelength"][0] == pytest.approx(2 * np.pi / theta[20], rel=1e-6)
    expect(page.get_by_text("bold: pair 20")).to_be_visible(timeout=5_000)
    page.wait_for_url(re.compile(r"[?&]pair=20(&|$)"), timeout=10_000)
    page.wait_for_timeout(300)
    assert figure_data_events(frames) == []
    assert errors == []


def test_every_text_in_the_figures_is_at_least_12px(server, page: Page, errors):
    # R6 printed its dimensions' numbers at 7 pt (9 px).
    _open(page, f"{server['url']}?page=rope&d=8")
    sizes = page.evaluate(FONT_SIZES_JS)
    assert len({kind for kind, _px in sizes}) >= 5
    small = [(kind, px) for kind, px in sizes if px < 12 - 1e-6]
    assert small == []
    assert errors == []


def test_r8_measures_both_mistakes(server, page):
    page.goto(f"{server['url']}?page=rope&figure=mistakes&embed=1")
    expect(page.get_by_text("R8 · Classic mistakes, measured")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("with the values rotated too")).to_be_visible(timeout=10_000)
    page.get_by_role("button", name="θ from the model width").click()
    expect(page.get_by_text("computed from D only 8.3")).to_be_visible(timeout=10_000)
    expect(page).to_have_url(re.compile(r"mistake=width"), timeout=5_000)
