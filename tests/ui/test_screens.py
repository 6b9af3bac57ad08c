"""Every page from a small phone to a wide monitor, in Chromium.

At 360 and 390 px (phones), 640 and 853 px (a 1280 × 720 projector at 200 % and
150 % zoom), 1,180 px (a tablet on its side), 1,280 px (a laptop) and 2,560 px:
the page declares its viewport (a phone would otherwise draw the desktop
layout at 40 %), does not scroll sideways, and every figure is at least
280 px wide, inside the window and clear of every other figure; no formula
or button runs out of its card, no legend out of its figure, and the header
shows the whole title. Below 900 px
the sidebar is a drawer, closed when the page opens, and a square figure
(R1, the clock faces) shrinks to the window (app/static/narrow.js);
below 1,240 px the figure cards stand in one column (app/cards.py).
"""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.lesson import STEPS
from app.main import PAGES

from .helpers import (
    SET_RELEASED_JS,
    deep_js,
    open_page,
    serious_axe_violations,
    wait_for_a11y_scan,
)

pytestmark = pytest.mark.ui

SCREENS = {
    "small-phone": (360, 740),
    "phone": (390, 844),
    "projector-200": (640, 360),
    "projector": (853, 480),
    "tablet": (1180, 820),
    "laptop": (1280, 800),
    "wide": (2560, 1440),
}

_LAYOUT = deep_js(
    """(() => {
  const figures = deepElements()
    .filter(el => el.classList && el.classList.contains('bk-Figure'))
    .map(el => el.getBoundingClientRect())
    .filter(r => r.width > 0 && r.height > 0)
    .map(r => ({x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height}));
  const sidebar = document.getElementById('sidebar');
  const up = el => el.parentElement || el.getRootNode().host || null;
  const cardOf = el => {
    for (let e = up(el); e; e = up(e)) if (e.classList.contains('card')) return e;
    return null;
  };
  // A formula or button whose right edge is past its card's (or the window's).
  const overflowing = deepElements()
    .filter(el => el.classList && (el.classList.contains('katex-display')
      || el.classList.contains('bk-btn')))
    .filter(el => el.getBoundingClientRect().width > 0)
    .map(el => {
      const card = cardOf(el);
      const right = card ? card.getBoundingClientRect().right : window.innerWidth;
      return {what: el.textContent.slice(0, 40), over: el.getBoundingClientRect().right - right};
    })
    .filter(o => o.over > 0.5);
  // A legend that runs past either edge of its figure (its end cut off).
  const legends = [];
  for (const doc of Bokeh.documents) {
    for (const m of doc.all_models) {
      const view = m.type === 'Legend' ? Bokeh.index.find_one(m) : null;
      const plot = view && view.parent && view.parent.el;
      if (!plot || view.bbox.width === 0) continue;
      const over = Math.max(view.bbox.right - plot.getBoundingClientRect().width, -view.bbox.left);
      if (over > 0.5) legends.push(Math.round(over));
    }
  }
  const title = document.querySelector('#header .title');
  return {
    viewport: document.querySelector('meta[name=viewport]')?.content ?? null,
    scrollWidth: document.documentElement.scrollWidth,
    sidebarOpen: sidebar ? sidebar.getBoundingClientRect().width > 0 : null,
    titleCut: title ? title.scrollWidth > title.clientWidth + 0.5 : null,
    overflowing,
    legends,
    figures,
  };
})()"""
)


def _overlap(a: dict, b: dict) -> float:
    dx = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    dy = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return max(dx, 0) * max(dy, 0)


#: Every step of the guided lesson (one figure each, its controls beside it).
LESSON_STEPS = [f"lesson&step={i}" for i in range(1, len(STEPS) + 1)]


@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("slug", sorted(PAGES))
def test_every_page_fits_the_screen(page, server, slug, screen):
    _fits(page, server, slug, screen, min_canvases=2)


@pytest.mark.parametrize("screen", ["small-phone", "phone", "projector", "laptop"])
@pytest.mark.parametrize("slug", LESSON_STEPS)
def test_every_lesson_step_fits_the_screen(page, server, slug, screen):
    _fits(page, server, slug, screen, min_canvases=1)


def _fits(page, server, slug: str, screen: str, min_canvases: int) -> None:
    width, height = SCREENS[screen]
    page.set_viewport_size({"width": width, "height": height})
    open_page(page, f"{server['url']}?page={slug}", min_canvases=min_canvases)
    # The cards' layout settles after the last figure; a square figure is fitted
    # to the window, a wide legend loses a column, each within half a second.
    with contextlib.suppress(PlaywrightTimeout):  # the assertions below say what is off
        page.wait_for_function(
            f"arg => {{ const got = ({_LAYOUT})(arg); return got.figures.length > 0 && "
            "got.legends.length === 0 && "
            f"got.figures.every(f => f.x + f.w <= {width} + 0.5); }}",
            timeout=5_000,
        )
    page.wait_for_timeout(300)
    got = page.evaluate(_LAYOUT)
    assert got["viewport"] == "width=device-width, initial-scale=1"
    assert got["scrollWidth"] <= width, f"scrolls sideways by {got['scrollWidth'] - width} px"
    assert got["sidebarOpen"] is (width >= 900)
    assert got["titleCut"] is False, "the header's title is cut"
    assert not got["overflowing"], f"out of their card: {got['overflowing']}"
    assert not got["legends"], f"legends past their figure's edge by {got['legends']} px"
    figures = got["figures"]
    assert figures, "no figure drawn"
    for fig in figures:
        assert fig["w"] >= 280, f"a figure {fig['w']:.0f} px wide"
        assert fig["x"] >= 0 and fig["x"] + fig["w"] <= width + 0.5, fig
    for i, a in enumerate(figures):
        for b in figures[i + 1 :]:
            assert _overlap(a, b) < 1, f"figures overlap: {a} {b}"


_LOOK = deep_js(
    """(() => {
  const els = deepElements();
  const size = el => el ? parseFloat(getComputedStyle(el).fontSize) : null;
  const title = els.find(el => el.tagName === 'H2' && el.closest && !el.closest('#sidebar')
    && el.getRootNode().host && !el.getRootNode().host.closest('#sidebar'));
  const caption = els.find(el => el.classList && el.classList.contains('caption'));
  const header = document.getElementById('header');
  const toolbars = els.filter(el => el.classList && el.classList.contains('bk-Toolbar'));
  return {
    title: size(title),
    caption: size(caption),
    header: header ? getComputedStyle(header.parentElement).backgroundColor : null,
    body: getComputedStyle(document.body).backgroundColor,
    toolbars: toolbars.length,
    hidden: toolbars.filter(el => getComputedStyle(el).opacity === '0').length,
  };
})()"""
)

#: The first toolbar's opacity, and the box of the figure it belongs to.
_FIRST_TOOLBAR = deep_js(
    """(() => {
  const bar = deepElements().find(el => el.classList && el.classList.contains('bk-Toolbar'));
  let figure = bar;
  while (figure && !figure.classList.contains('bk-Figure')) figure = figure.getRootNode().host;
  if (!bar.__pexScrolled) {
    figure.scrollIntoView({block: 'center'});
    bar.__pexScrolled = true;
  }
  const r = figure.getBoundingClientRect();
  const opacity = getComputedStyle(bar).opacity;
  return {opacity, x: r.left + r.width / 2, y: r.top + r.height / 2};
})()"""
)


@pytest.mark.parametrize("slug", sorted(PAGES))
def test_type_sizes_header_and_toolbars_read_as_an_explainer(page, server, slug):
    """A 30 px page title over 16 px text; a header in the page's colours; each
    figure's toolbar shown only under the pointer or the keyboard focus."""
    page.set_viewport_size({"width": 1280, "height": 800})
    open_page(page, f"{server['url']}?page={slug}", min_canvases=2)
    # The type ramp is a stylesheet the page links: a caption can be drawn a
    # moment before it applies. Wait for it (the assertions below still fail
    # on a page that never gets there).
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"() => ({_LOOK})().caption >= 16", timeout=10_000)
    got = page.evaluate(_LOOK)
    assert got["title"] >= 28, got
    assert got["caption"] >= 16, got
    assert got["header"] == got["body"], f"header {got['header']} on a {got['body']} page"
    assert got["hidden"] == got["toolbars"], got
    if not got["toolbars"]:
        return  # Compare's small multiples have no toolbar at all
    wait_for_a11y_scan(page)  # its sheet keeps hidden toolbars in reach of Tab
    page.wait_for_timeout(500)  # the cards' layout settles
    toolbar = page.evaluate(_FIRST_TOOLBAR)
    page.mouse.move(toolbar["x"], toolbar["y"], steps=4)
    page.wait_for_function(f"arg => ({_FIRST_TOOLBAR})(arg).opacity === '1'", timeout=5_000)
    page.mouse.move(1, 790)
    page.wait_for_function(f"arg => ({_FIRST_TOOLBAR})(arg).opacity === '0'", timeout=5_000)


@pytest.mark.parametrize(
    ("slug", "screen"),
    [(s, w) for s in sorted(PAGES) for w in ("phone", "projector")]
    + [(s, "phone") for s in LESSON_STEPS],
)
def test_axe_finds_no_serious_violation_on_a_small_screen(page, server, slug, screen):
    """axe-core at a phone's and a zoomed projector's width (the laptop width,
    both themes, is in test_a11y.py): the drawer, the one-column cards and the
    number boxes stay accessible."""
    width, height = SCREENS[screen]
    page.set_viewport_size({"width": width, "height": height})
    open_page(page, f"{server['url']}?page={slug}", min_canvases=1 if "step=" in slug else 2)
    wait_for_a11y_scan(page)
    # A lesson builds the next step's view, hidden, 0.4 s after showing a step:
    # scan once it is in the page, not while the browser is still drawing it
    # (CI once caught its card's header button before its title was drawn).
    page.wait_for_timeout(1_200 if "step=" in slug else 300)
    serious = serious_axe_violations(page)
    assert not serious, serious


# Every ticker's tick count, read every 40 ms into window.__peTicks: how many
# times each one changed.
_WATCH_TICKS = """() => {
  window.__peTickChanges = {};
  const last = {};
  setInterval(() => {
    for (const doc of Bokeh.documents) {
      for (const model of doc.all_models) {
        if (model.type !== "BasicTicker") { continue; }
        const n = model.desired_num_ticks;
        if (model.id in last && last[model.id] !== n) {
          window.__peTickChanges[model.id] = (window.__peTickChanges[model.id] || 0) + 1;
        }
        last[model.id] = n;
      }
    }
  }, 40);
}"""


def test_tick_counts_hold_still_while_a_control_moves(page, server):
    """A figure whose tick labels move its frame's edge keeps one tick count.

    RoPE's R2 is 333 px wide with five ticks and 325 with six, around the width
    where narrow.js asks for one tick fewer: a count that followed the width both
    ways flipped at every scan and re-laid the figure out in the middle of the
    student's next change (a 200–350 ms stall in one change of five).
    """
    page.set_viewport_size({"width": 1280, "height": 800})
    open_page(page, f"{server['url']}?page=rope", min_canvases=6)
    page.wait_for_timeout(1500)  # narrow.js has fitted the figures once
    page.evaluate(_WATCH_TICKS)
    for value in (68, 70, 72, 70, 68, 66, 64, 66, 68, 70):
        page.evaluate(SET_RELEASED_JS, ["Head dimension d (even)", value])
        page.wait_for_timeout(400)
    changes = page.evaluate("window.__peTickChanges")
    assert changes == {}, f"tick counts changed while d moved: {changes}"


def test_the_page_below_a_readout_holds_still_while_a_control_moves(page, server):
    """A readout keeps its tallest height until the window's width changes.

    RoPE's layout changes R2's readout by a line (96 ↔ 73 px): every figure below
    it moved, and Bokeh laid the whole page out again for it (~20 ms a change).
    """
    page.set_viewport_size({"width": 1280, "height": 800})
    open_page(page, f"{server['url']}?page=rope", min_canvases=6)
    page.wait_for_timeout(1500)  # narrow.js has seen the readouts
    last = page.get_by_text("R8 · ", exact=False).first
    tops = [last.bounding_box()["y"]]
    for label in ("half-split", "interleaved", "half-split", "interleaved"):
        page.get_by_role("button", name=label, exact=True).click()
        page.wait_for_timeout(800)
        tops.append(last.bounding_box()["y"])
    assert len(set(tops)) == 1, f"the last figure's title moved: {tops}"
    # A new width lets the text wrap anew: the held heights are let go, and
    # half-split's shorter readout takes its own height.
    page.get_by_role("button", name="half-split", exact=True).click()
    page.wait_for_timeout(800)
    assert last.bounding_box()["y"] == tops[0]
    page.set_viewport_size({"width": 1000, "height": 800})
    page.wait_for_timeout(800)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_timeout(800)
    assert last.bounding_box()["y"] < tops[0]
