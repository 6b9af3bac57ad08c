"""Every page on a phone, a zoomed projector, a tablet and a laptop, in Chromium.

At 390 px (a phone), 853 px (a 1280 px projector at 150 % zoom), 1,180 px (a
tablet on its side) and 1,280 px:
the page declares its viewport (a phone would otherwise draw the desktop
layout at 40 %), does not scroll sideways, and every figure is at least
280 px wide, inside the window and clear of every other figure. Below 900 px
the sidebar is a drawer, closed when the page opens, and a square figure
(R1, the clock faces) shrinks to the window (app/static/narrow.js);
below 1,240 px the figure cards stand in one column (app/cards.py).
"""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.main import PAGES

from .helpers import deep_js, open_page

pytestmark = pytest.mark.ui

SCREENS = {
    "phone": (390, 844),
    "projector": (853, 480),
    "tablet": (1180, 820),
    "laptop": (1280, 800),
}

_LAYOUT = deep_js(
    """(() => {
  const figures = deepElements()
    .filter(el => el.classList && el.classList.contains('bk-Figure'))
    .map(el => el.getBoundingClientRect())
    .filter(r => r.width > 0 && r.height > 0)
    .map(r => ({x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height}));
  const sidebar = document.getElementById('sidebar');
  return {
    viewport: document.querySelector('meta[name=viewport]')?.content ?? null,
    scrollWidth: document.documentElement.scrollWidth,
    sidebarOpen: sidebar ? sidebar.getBoundingClientRect().width > 0 : null,
    figures,
  };
})()"""
)


def _overlap(a: dict, b: dict) -> float:
    dx = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    dy = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return max(dx, 0) * max(dy, 0)


@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("slug", sorted(PAGES))
def test_every_page_fits_the_screen(page, server, slug, screen):
    width, height = SCREENS[screen]
    page.set_viewport_size({"width": width, "height": height})
    open_page(page, f"{server['url']}?page={slug}", min_canvases=2)
    # The cards' layout settles after the last figure, and a square figure is
    # fitted to the window within half a second of being drawn.
    with contextlib.suppress(PlaywrightTimeout):  # the assertions below say what is off
        page.wait_for_function(
            f"arg => {{ const got = ({_LAYOUT})(arg); return got.figures.length > 0 && "
            f"got.figures.every(f => f.x + f.w <= {width} + 0.5); }}",
            timeout=5_000,
        )
    page.wait_for_timeout(300)
    got = page.evaluate(_LAYOUT)
    assert got["viewport"] == "width=device-width, initial-scale=1"
    assert got["scrollWidth"] <= width, f"scrolls sideways by {got['scrollWidth'] - width} px"
    assert got["sidebarOpen"] is (width >= 900)
    figures = got["figures"]
    assert figures, "no figure drawn"
    for fig in figures:
        assert fig["w"] >= 280, f"a figure {fig['w']:.0f} px wide"
        assert fig["x"] >= 0 and fig["x"] + fig["w"] <= width + 0.5, fig
    for i, a in enumerate(figures):
        for b in figures[i + 1 :]:
            assert _overlap(a, b) < 1, f"figures overlap: {a} {b}"
