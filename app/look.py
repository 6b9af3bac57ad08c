"""Look and feel shared by every page: palette, theme colours, plot options, ticks.

Nothing here computes a number the page shows; it only decides how things look.
Everything a user typed goes through :func:`escape_text` so it is shown as text
and never interpreted as HTML or Markdown. The frames around figures (cards,
notices, quick checks) are in :mod:`app.cards`.
"""

from __future__ import annotations

import html
import math
from typing import Any

import holoviews as hv
import panel as pn
from holoviews.plotting.util import linear_gradient

# The pages declare options at build time; the Bokeh backend must be selected
# before that, also when a page is imported alone (tests, embedding).
hv.extension("bokeh", logo=False)
# Canvas, not WebGL (HoloViews' default): the figures hold at most a few
# thousand marks, and the heatmaps are images, which WebGL does not draw. With
# WebGL every repaint copies the GL canvas into the 2D one; on a machine
# without a GPU (headless, many classroom laptops, a remote desktop) that copy
# was half of each repaint (measured in benchmarks/latency.py).
hv.renderer("bokeh").webgl = False

__all__ = [
    "CODE_CLIM",
    "CODE_CMAP",
    "FONT_STACK",
    "HIGHLIGHT",
    "NO_ROW",
    "OKABE_ITO",
    "WARNING",
    "contrast_ratio",
    "escape_text",
    "hands_palette",
    "hands_scale",
    "ink_on",
    "is_dark",
    "legend_outside",
    "log_ticks",
    "plot_background",
    "plot_opts",
    "text_color",
    "warning_text_color",
]

#: Okabe & Ito (2008) colours: distinguishable with every common colour-vision
#: deficiency, and readable on both the light and the dark theme.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "grey": "#8C8C8C",
}

#: Diverging map for code values: blue for −1, white for 0, red for +1 (no
#: red/green contrast, so it reads for colour-blind users too).
CODE_CMAP = "RdBu_r"
#: Codes are sines and cosines: the colour scale is pinned to −1…+1 so a
#: colour means the same value whatever the sliders say.
CODE_CLIM = (-1.0, 1.0)

#: System fonts only: the page never fetches a web font (offline classrooms).
FONT_STACK = (
    'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", '
    "Helvetica, Arial, sans-serif"
)

#: Highlight for "the selected position": black outline with a white halo reads
#: on every colour of the diverging map.
HIGHLIGHT = "#000000"
WARNING = OKABE_ITO["vermillion"]
#: Fill of table rows that do not exist (a learned table past max_len).
NO_ROW = "rgba(140, 140, 140, 0.35)"


def is_dark() -> bool:
    """True when this session uses the dark theme (``?theme=dark``; fixed per session)."""
    return pn.config.theme == "dark"


def text_color() -> str:
    """Colour for text drawn inside plots (labels, annotations) in this session's theme."""
    return "#E8E8E8" if is_dark() else "#222222"


def warning_text_color() -> str:
    """Colour for warning *text* inside plots: vermillion, darkened on the light theme.

    Okabe-Ito vermillion is 3.9:1 on white (fine for lines and marks, short of
    the 4.5:1 WCAG AA asks of text); #B84F00 is 5.1:1 on white, and the plain
    vermillion is 4.6:1 on the dark theme's background.
    """
    return OKABE_ITO["vermillion"] if is_dark() else "#B84F00"


def _rgb(color: str) -> list[int]:
    return [int(color.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)]


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two ``#RRGGBB`` colours (1 to 21)."""

    def luminance(color: str) -> float:
        channels = [c / 255 for c in _rgb(color)]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def plot_background() -> str:
    """The figure background of this session's theme (the design's Bokeh theme sets it)."""
    from panel.theme.fast import FastDarkTheme, FastDefaultTheme

    style = (FastDarkTheme if is_dark() else FastDefaultTheme).param["style"].default
    return style.create_bokeh_theme()["attrs"]["figure"]["background_fill_color"]


def ink_on(fill: str, alpha: float = 1.0, background: str | None = None) -> str:
    """Black or white, whichever reads better on ``fill`` drawn at ``alpha`` over the plot.

    For numbers printed on coloured marks: a faded mark is mostly background,
    so the ink follows what the eye sees, the blend.
    """
    under = _rgb(background or plot_background())
    blend = "#" + "".join(
        f"{round(alpha * t + (1 - alpha) * u):02X}" for t, u in zip(_rgb(fill), under, strict=True)
    )
    return max(("#000000", "#FFFFFF"), key=lambda ink: contrast_ratio(ink, blend))


def hands_palette(n: int) -> list[str]:
    """``n`` colours from fast (vermillion) to slow (blue) for clock hands / pairs."""
    if n <= 1:
        return [OKABE_ITO["vermillion"]]
    return linear_gradient(OKABE_ITO["vermillion"], OKABE_ITO["blue"], n)


def hands_scale(n: int) -> dict[str, Any]:
    """The colour scale of ``n`` pairs, fast to slow: a colour mapper's palette, low and high."""
    return {"palette": hands_palette(n), "low": 0, "high": max(n - 1, 1)}


def plot_opts(**overrides: Any) -> dict[str, Any]:
    """Options every HoloViews plot of the app shares (pass through ``.opts(**...)``).

    Responsive width, a fixed height, the toolbar on the right, shown on
    hover (without Bokeh's logo), and no tool that captures the mouse wheel (the
    page must still scroll).
    """
    opts: dict[str, Any] = {
        "responsive": True,
        "height": 300,
        "min_width": 260,
        "toolbar": "right",
        # The toolbar shows while the pointer is over the figure (a tap on a
        # phone): six icons on every figure at rest read as a dashboard.
        "autohide_toolbar": True,
        "default_tools": ["save", "pan", "box_zoom", "reset"],
        "active_tools": [],
        "fontscale": 1.05,
        # No Bokeh logo in the toolbar: it is a link off the (offline) site and
        # one more Tab stop per figure for keyboard users.
        "backend_opts": {"plot.toolbar.logo": None},
    }
    opts.update(overrides)
    return opts


def legend_outside(position: str, **legend_opts: Any) -> dict[str, Any]:
    """Plot options for a legend beside the frame: ``"top"``, ``"bottom"``, ``"left"``, ``"right"``.

    Bokeh draws a legend in a side panel ``margin`` px (10 by default) away
    from the panel's outer edge, and the panel was that much too small for
    it: a legend above the frame covered the frame's top 8–10 px and the top
    tick label. Without the margin the legend sits against the frame, covering
    nothing.
    """
    return {"legend_position": position, "legend_opts": {**legend_opts, "margin": 0}}


#: Tick values per decade, by how many decades an axis spans (fewer when more).
_LOG_MANTISSAS = ((1.0, (1, 1.5, 2, 3, 4, 5, 6, 8)), (3.0, (1, 2, 5)), (math.inf, (1,)))
#: Least distance between two ticks, in decades (a factor of 1.23).
_LOG_MIN_STEP = 0.09


def log_ticks(start: float, end: float) -> list[float]:
    """Tick values for a log axis from ``start`` to ``end`` (both > 0) that do not crowd.

    Bokeh's log ticker labels a range of less than a decade like a linear
    one (1, 1.5, 2, … 4.5): on a log axis the upper labels crowd together.
    Here: 1, 1.5, 2, 3, 4, 5, 6, 8 per decade for less than a decade
    (dropping one closer than a factor of 1.23 to the last kept), 1, 2, 5 up
    to 3 decades, powers of ten beyond. A range too narrow for two of those
    (3.2 … 3.9) gets evenly spaced ticks, about four.
    """
    low, high = min(start, end), max(start, end)
    if not 0 < low < high:
        return []
    decades = math.log10(high / low)
    mantissas = next(m for limit, m in _LOG_MANTISSAS if decades < limit)
    ticks: list[float] = []
    for power in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for mantissa in mantissas:
            value = mantissa * 10.0**power
            if not low <= value <= high:
                continue
            if ticks and math.log10(value / ticks[-1]) < _LOG_MIN_STEP:
                continue
            ticks.append(float(f"{value:.12g}"))
    if len(ticks) >= 2:
        return ticks
    raw = (high - low) / 4
    scale = 10.0 ** math.floor(math.log10(raw))
    step = next(m * scale for m in (1, 2, 5, 10) if m * scale >= raw)
    first = math.ceil(low / step)
    return [float(f"{k * step:.12g}") for k in range(first, math.floor(high / step) + 1)]


def escape_text(text: object, limit: int | None = None) -> str:
    """``text`` as HTML-safe text; cut to ``limit`` characters with an ellipsis."""
    text = str(text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    return html.escape(text, quote=True)
