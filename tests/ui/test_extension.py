"""Context-extension page in a real browser: presets, pasted configs, methods, CSV, links."""

from __future__ import annotations

import csv
import io

import pytest
from playwright.sync_api import Page, expect

from app.numbers import readable
from app.pages.extension.shared import sci_hover
from positional_core.rope import rope_frequencies

from .helpers import (
    SET_SLIDER_JS,
    figure_data_events,
    new_server_errors,
    record_frames,
    visibility_events,
)

# Labels of the Bokeh legend items, read from the page's Bokeh documents.
_LEGEND_LABELS = """
() => {
  const out = [];
  for (const doc of Bokeh.documents)
    for (const m of doc.all_models)
      if (m.constructor.__name__ === 'LegendItem' && m.label && typeof m.label.value === 'string')
        out.push(m.label.value);
  return out;
}
"""


@pytest.fixture
def errors(page: Page, server) -> list[str]:
    found: list[str] = []
    page.on("console", lambda m: found.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: found.append(str(e)))
    offset = len(server["log"].read_text(errors="replace"))
    yield found
    assert not new_server_errors(server["log"], offset)


def _open(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("canvas", state="attached", timeout=30_000)
    expect(page.get_by_text("E2 · Angle-band chart: one pair, every method")).to_be_visible(
        timeout=30_000
    )


def _slider_handle(page: Page, title: str):
    group = page.locator(".bk-input-group", has=page.locator(".bk-slider-title", has_text=title))
    return group.locator(".noUi-handle").first


def _select(page: Page, label: str):
    return page.locator(".bk-input-group", has_text=label).locator("select").first


def _wait_for_legend_label(page: Page, label: str) -> None:
    """Until some Bokeh legend entry of the page reads ``label``."""
    page.wait_for_function(
        "(label) => { for (const d of Bokeh.documents) for (const m of d.all_models) "
        "if (m.constructor.__name__ === 'LegendItem' && m.label && "
        "m.label.value === label) return true; return false; }",
        arg=label,
        timeout=20_000,
    )


def test_preset_fills_the_page_and_the_link(server, page: Page, errors):
    _open(page, f"{server['url']}?page=extension")
    expect(page.get_by_text("Llama 2 7B (preset)")).to_be_visible()
    _select(page, "Model preset").select_option(label="Llama 3.1 8B (llama3 scaling)")
    expect(page.get_by_text("Llama 3.1 8B (llama3 scaling) (preset)")).to_be_visible(timeout=10_000)
    expect(page.get_by_text("29 → 29 of 64")).to_be_visible()
    expect(page.get_by_text("Target length L′: 131,072")).to_be_visible()
    page.wait_for_url("**preset=llama-3.1-8b*method=llama3*", timeout=10_000)
    # A preset without RoPE says so and links to its page; the controls stay.
    _select(page, "Model preset").select_option(label="BLOOM 560M (ALiBi)")
    expect(page.get_by_text("has no RoPE: it uses ALiBi")).to_be_visible(timeout=10_000)
    expect(page.locator('a[href="?page=alibi"]')).to_be_visible()
    expect(page.get_by_text("Target length L′: 131,072")).to_be_visible()
    assert "Traceback" not in page.content()
    assert errors == []


def test_bad_config_gets_a_message_and_a_good_one_fills(server, page: Page, errors):
    _open(page, f"{server['url']}?page=extension")
    box = page.locator("textarea").first
    box.fill('{"hidden_size": 4096,\n "rope_scaling": {"rope_type": "linear", "factor": 2}')
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_text("invalid JSON at line 2, column")).to_be_visible(timeout=10_000)
    expect(page.get_by_text("Llama 2 7B (preset)")).to_be_visible()  # previous state kept
    box.fill(
        '{"head_dim": 64, "max_position_embeddings": 2048, "rope_scaling": '
        '{"rope_type": "xpos"}, "x": "<img src=x onerror=alert(1)>"}'
    )
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_text("'xpos' is not supported; supported: default")).to_be_visible(
        timeout=10_000
    )
    box.fill(
        '{"head_dim": 64, "max_position_embeddings": 2048, "rope_theta": 50000, '
        '"rope_scaling": {"rope_type": "linear", "factor": 4}, "note": "<b>hi</b>"}'
    )
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_text("pasted config (pasted)")).to_be_visible(timeout=10_000)
    expect(page.get_by_text("Trained length L: 2,048")).to_be_visible()
    expect(page.get_by_text('"note": "<b>hi</b>"')).to_be_visible()  # shown as text
    assert page.locator("img[src=x]").count() == 0
    page.wait_for_url("**preset=custom*", timeout=10_000)
    assert errors == []


def test_method_switch_moves_the_highlight_and_pair_slider(server, page: Page, errors):
    _open(page, f"{server['url']}?page=extension&target_len=32768")
    _wait_for_legend_label(page, "no scaling (selected)")
    _select(page, "Scaling method").select_option(label="YaRN")
    _wait_for_legend_label(page, "YaRN (selected)")
    labels = page.evaluate(_LEGEND_LABELS)
    assert "no scaling (selected)" not in labels
    expect(page.get_by_text("beta_fast: 32")).to_be_visible()  # YaRN's knobs appear
    expect(page.get_by_text("YaRN ramp (pairs below keep speed")).to_be_visible()
    handle = _slider_handle(page, "Pair shown in E2")
    handle.focus()
    handle.press("ArrowLeft")
    expect(page.get_by_text("Pair 62: θ =")).to_be_visible(timeout=10_000)
    page.wait_for_url("**pair=62*", timeout=10_000)
    assert errors == []


def test_csv_download_and_link_state(server, page: Page, errors):
    _open(
        page,
        f"{server['url']}?page=extension&preset=phi-3.5-mini-instruct&served_len=4096",
    )
    expect(page.get_by_text("Phi-3.5-mini (LongRoPE) (preset)")).to_be_visible()
    expect(page.get_by_text("Served length S: 4,096")).to_be_visible()
    expect(page.get_by_text("short", exact=True)).to_be_visible()
    with page.expect_download(timeout=20_000) as info:
        page.get_by_role("button", name="Download the per-pair table (CSV)").click()
    download = info.value
    with open(download.path(), encoding="utf-8") as handle:
        rows = list(csv.DictReader(io.StringIO(handle.read())))
    assert len(rows) == 48  # Phi-3.5-mini: 96 rotary dims
    assert {"pair", "theta", "scaled_theta", "out_of_band"} <= set(rows[0])
    assert errors == []


# Every legend's box (rounded px) and how often a legend asked Bokeh to lay its
# figure out again since the hook was installed (its size observer: the figure is
# then laid out and painted a second time, one frame after the change was drawn).
_LEGEND_BOXES = """
() => {
  const Legend = Bokeh.Models.get('Legend');
  const proto = Legend.prototype.default_view.prototype;
  if (!proto.__counted) {
    const original = proto.request_layout;
    proto.request_layout = function (...args) {
      window.__legendLayouts = (window.__legendLayouts ?? 0) + 1;
      return original.apply(this, args);
    };
    proto.__counted = true;
  }
  const boxes = [];
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    if (!(m instanceof Legend)) continue;
    const view = Bokeh.index.find_one(m);
    const r = view ? view.el.getBoundingClientRect() : null;
    if (!r || r.width === 0) continue;
    boxes.push([m.id, Math.round(r.width), Math.round(r.height)]);
  }
  return {boxes: boxes.sort(), layouts: window.__legendLayouts ?? 0};
}
"""

#: Methods (option, name in the legends) whose E1 names the same number of
#: statuses at the page's defaults as no scaling does (two).
_SAME_E1_ENTRIES = [
    ("YaRN", "YaRN"),
    ("Llama 3", "Llama 3"),
    ("dynamic NTK", "dynamic NTK"),
    ("position interpolation (linear)", "interpolation"),
    ("LongRoPE", "LongRoPE"),
    ("none (plain RoPE)", "no scaling"),
]


def test_switching_the_method_lays_no_figure_out_again(server, page: Page, errors):
    """Each legend keeps its size whichever method is selected (issue 8).

    E2's and E3's last entry names the selected method and E1's the statuses
    present; a legend whose width changed made Bokeh lay its figure out and paint
    it a second time after the change was drawn (~40–60 ms later, every figure).
    """
    _open(page, f"{server['url']}?page=extension")
    page.wait_for_function(f"() => ({_LEGEND_BOXES})().boxes.length === 3", timeout=20_000)
    first = page.evaluate(_LEGEND_BOXES)
    options = _select(page, "Scaling method").locator("option").all_text_contents()
    for label, short in _SAME_E1_ENTRIES:
        assert label in options, options
        _select(page, "Scaling method").select_option(label=label)
        _wait_for_legend_label(page, f"{short} (selected)")
        page.wait_for_timeout(300)  # a size observer reports within a frame or two
        now = page.evaluate(_LEGEND_BOXES)
        assert now["boxes"] == first["boxes"], label
        assert now["layouts"] == 0, f"{label}: a legend asked for {now['layouts']} layouts"
    assert errors == []


def test_yarn_s_ramp_comes_and_goes_without_laying_the_page_out(server, page: Page, errors):
    """E4 is shown for YaRN only, drawn at its full width when it appears. It is
    hidden by a style, not ``visible``: a change of ``visible`` makes Bokeh lay out
    the page's whole root again, every figure (~70 ms a switch on this page)."""
    frames = record_frames(page)
    _open(page, f"{server['url']}?page=extension")
    card = page.locator(".card", has_text="E4 · YaRN's ramp")
    expect(card).to_be_hidden()
    frames.clear()
    _select(page, "Scaling method").select_option(label="YaRN")
    expect(card).to_be_visible(timeout=10_000)
    canvas = card.locator("canvas").first
    page.wait_for_function(
        "c => c.getBoundingClientRect().width > 400", arg=canvas.element_handle(), timeout=10_000
    )
    _select(page, "Scaling method").select_option(label="Llama 3")
    expect(card).to_be_hidden(timeout=10_000)
    expect(page.get_by_text("low_freq_factor")).to_be_visible()  # Llama 3's knobs
    assert visibility_events(frames, page) == []
    assert errors == []


# E2's band (its edge, and the y axis' end that follows the pair) and E1's ring.
_PAIR_MARKS = """
() => {
  const out = {};
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    if (typeof m.name !== 'string' || !m.name.startsWith('pe-choice:pair:')) continue;
    if ('y1' in m.data) {
      out.edge = Array.from(m.data.y1)[0];
      for (let k = 1; k + 2 < m.tags.length; k += 3)
        if (m.tags[k + 1] === 'end') out.top = m.tags[k].end;
    }
    if ('wavelength' in m.data && !('theta' in m.data)) out.ring = Array.from(m.data.pair);
  }
  return out;
}
"""


def test_choosing_a_pair_redraws_e1_and_e2_in_the_browser_alone(server, page: Page, errors):
    """The pair selects among rows shipped for every pair: E2's trained band is
    θᵢ·L of the chosen pair, its y axis follows, E1's ring moves, and no figure
    data comes back from the server (only the readout and the address)."""
    frames = record_frames(page)
    _open(page, f"{server['url']}?page=extension")
    page.wait_for_timeout(500)
    frames.clear()
    theta = rope_frequencies(128, 10000.0)  # the default preset: d = 128, base 10,000
    for pair in (0, 40, 20):
        page.evaluate(SET_SLIDER_JS, ["Pair shown in E2", pair])
        edge = float(theta[pair] * 4096)  # trained length L = 4,096
        page.wait_for_function(
            f"() => Math.abs(({_PAIR_MARKS})().edge / {edge} - 1) < 1e-5", timeout=5_000
        )
        marks = page.evaluate(_PAIR_MARKS)
        assert marks["top"] >= edge and marks["ring"] == [pair]
    expect(page.get_by_text("Pair 20: θ =").first).to_be_visible(timeout=5_000)
    page.wait_for_url("**pair=20*", timeout=10_000)
    page.wait_for_timeout(300)
    assert figure_data_events(frames) == []
    assert errors == []


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.1557e-4, "1.156 × 10⁻⁴"),
        (-2.5e-9, "−2.5 × 10⁻⁹"),
        (3.25e8 + 0.5, "3.25 × 10⁸"),
        (0.4731, "0.4731"),
        (1.0, "1"),
    ],
)
def test_tooltips_write_powers_of_ten_like_the_readouts(page: Page, value, text):
    """E1's and E3's θ tooltips ran toExponential: a bare 1.156e-4 beside readouts
    reading 1.156 × 10⁻⁴. The formatter's own code, run by Chromium."""
    code = sci_hover().code
    assert page.evaluate(f"(value) => {{ {code} }}", value) == text == readable(value)
