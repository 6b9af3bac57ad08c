"""Look and feel shared by every page: palette, plot options, figure cards, notices.

Nothing here computes a number the page shows; it only decides how things look.
Everything a user typed goes through :func:`escape_text` (or a notice, which
escapes) so it is shown as text and never interpreted as HTML or Markdown.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import holoviews as hv
import panel as pn
import param
from bokeh.models import FixedTicker
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
# Every figure's axes follow its data from one update to the next (the
# figures are explanations: a new base or d moves the data, and the axes must
# show it). HoloViews decides that from the *elements'* ``framewise``; set on
# an overlay, as the pages did, it is used for the first frame only (measured:
# Context extension's E1 kept the y range of base 10,000 after base 10⁶, with
# its slowest pairs above the top of the figure; tests/app/test_inplace.py).
_FRAMEWISE = (
    "Bars Curve Ellipse HLines HSpans Image Labels Path Points Polygons Rectangles Scatter "
    "Segments Text VLines VSpans"
)
hv.opts.defaults(*(getattr(hv.opts, kind)(framewise=True) for kind in _FRAMEWISE.split()))

__all__ = [
    "CODE_CLIM",
    "CODE_CMAP",
    "FONT_STACK",
    "OKABE_ITO",
    "Figure",
    "QuickCheck",
    "contrast_ratio",
    "escape_text",
    "figure_card",
    "formula_pane",
    "hands_palette",
    "ink_on",
    "is_dark",
    "legend_outside",
    "log_ticks",
    "notice_html",
    "notice_pane",
    "plot_background",
    "plot_opts",
    "quick_check_card",
    "row_outline",
    "text_color",
    "tidy_log_y_ticks",
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


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two ``#RRGGBB`` colours (1 to 21)."""

    def luminance(color: str) -> float:
        value = color.lstrip("#")
        channels = [int(value[i : i + 2], 16) / 255 for i in (0, 2, 4)]
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
    under = (background or plot_background()).lstrip("#")
    top = fill.lstrip("#")
    blend = "#" + "".join(
        f"{round(alpha * int(top[i : i + 2], 16) + (1 - alpha) * int(under[i : i + 2], 16)):02X}"
        for i in (0, 2, 4)
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

    Responsive width, a fixed height, the toolbar on the right with hover
    (without Bokeh's logo), and no tool that captures the mouse wheel (the
    page must still scroll).
    """
    opts: dict[str, Any] = {
        "responsive": True,
        "height": 300,
        "min_width": 260,
        "toolbar": "right",
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
    tick label (seen in Chromium on Sinusoidal S3, ALiBi A1, Context
    extension E2 and Compare's RoPE card). Without the margin the legend
    sits against the frame, covering nothing.
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


def tidy_log_y_ticks(plot: Any, element: Any) -> None:
    """HoloViews hook: the y axis (log) ticked by :func:`log_ticks` for its current range."""
    y_range, axes = plot.state.y_range, plot.state.yaxis
    start, end = getattr(y_range, "start", None), getattr(y_range, "end", None)
    if not axes or start is None or end is None:
        return
    ticks = log_ticks(start, end)
    if not ticks:
        return
    axis = axes[0]
    if not isinstance(axis.ticker, FixedTicker):
        axis.ticker = FixedTicker(ticks=ticks)  # once per plot
    elif list(axis.ticker.ticks) != ticks:
        axis.ticker.ticks = ticks


def row_outline(row: float, color: str) -> hv.Overlay:
    """Outline of image row ``row``: a dark line with a white core, visible on every
    colour of a diverging map and on both themes, even when a row is 1 px tall."""
    outer = hv.HSpan(row - 0.5, row + 0.5).opts(fill_alpha=0, line_color=color, line_width=4)
    inner = hv.HSpan(row - 0.5, row + 0.5).opts(fill_alpha=0, line_color="#FFFFFF", line_width=1.5)
    return outer * inner


def escape_text(text: object, limit: int | None = None) -> str:
    """``text`` as HTML-safe text; cut to ``limit`` characters with an ellipsis."""
    text = str(text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    return html.escape(text, quote=True)


_NOTICE_CSS = """
:host { width: 100%; }
.notice { border-left: 4px solid var(--notice-edge); padding: 0.45em 0.8em;
  border-radius: 4px; background: var(--notice-bg); color: inherit; line-height: 1.4; }
.notice ul { margin: 0.2em 0 0 1.1em; padding: 0; }
.notice.info { --notice-edge: #0072B2; --notice-bg: rgba(0, 114, 178, 0.12); }
.notice.warning { --notice-edge: #E69F00; --notice-bg: rgba(230, 159, 0, 0.16); }
.notice.error { --notice-edge: #D55E00; --notice-bg: rgba(213, 94, 0, 0.14); }
"""


def notice_html(messages: Sequence[str] | str, kind: str = "warning", title: str = "") -> str:
    """HTML for a notice box; every message is escaped (it may quote user input)."""
    if isinstance(messages, str):
        messages = [messages]
    if not messages:
        return ""
    if kind not in {"info", "warning", "error"}:
        raise ValueError(f"kind must be info, warning or error, got {kind!r}")
    head = f"<strong>{escape_text(title)}</strong>" if title else ""
    if len(messages) == 1:
        body = f"{head} {escape_text(messages[0])}" if head else escape_text(messages[0])
    else:
        items = "".join(f"<li>{escape_text(m)}</li>" for m in messages)
        body = f"{head}<ul>{items}</ul>"
    return f'<div class="notice {kind}" role="status">{body}</div>'


def notice_pane(
    messages: Sequence[str] | Callable[..., Any] | param.Parameter = (),
    kind: str = "warning",
    title: str = "",
) -> pn.pane.HTML:
    """A notice box that hides itself when there is nothing to say.

    ``messages`` is a list of strings or a reference (a ``param.depends``
    method or a parameter) returning one; the pane updates in place.
    """
    if callable(messages) or isinstance(messages, param.Parameter):
        ref = pn.bind(lambda m: notice_html(m, kind, title), messages)
        visible = pn.bind(lambda m: bool(m), messages)
    else:
        ref = notice_html(list(messages), kind, title)
        visible = bool(messages)
    return pn.pane.HTML(
        ref, visible=visible, stylesheets=[_NOTICE_CSS], sizing_mode="stretch_width", margin=(4, 8)
    )


@dataclass(frozen=True)
class Figure:
    """One figure of a page, complete enough to be shown on its own (embedding).

    ``plot`` is built once per page instance and updates in place; ``controls``
    names the page parameters that drive it; ``readout`` is an optional pane
    of exact numbers shown under the plot.

    ``linked_axes=False`` keeps the figure's axes its own. Panel otherwise
    gives figures of the same dimensions one pair of axes (zoom one, the
    other follows), right for two views of one table, wrong for the same
    kind of plot at two lengths (Relative's T1b and T2). HoloViews'
    ``shared_axes=False`` unlinks them too, but HoloViews then never
    recomputes an overlay's ranges on an update: the axes kept the first
    frame's length when the sequence got shorter.
    """

    title: str
    plot: Any
    caption: str
    formula: str
    controls: tuple[str, ...]
    readout: Any = None
    extras: tuple[Any, ...] = field(default=())
    linked_axes: bool = True


_CARD_CSS = """
.caption { font-size: 0.95em; line-height: 1.45; margin: 0; }
"""

# KaTeX turns the formula into MathML, which the browser typesets with its own
# maths fonts. (KaTeX's HTML output would need KaTeX's web fonts, which Panel
# does not bundle: offline they would be missing.)
_FORMULA_CSS = """
:host { font-size: 1.12em; }
.katex-display { margin: 0.2em 0 0.4em 0; overflow-x: auto; overflow-y: hidden; }
math { padding-bottom: 0.15em; }
"""


def formula_pane(formula: str, **params: Any) -> pn.pane.LaTeX:
    """A display formula rendered by KaTeX (``formula`` is trusted app text)."""
    return pn.pane.LaTeX(
        formula, renderer="katex", stylesheets=[_FORMULA_CSS], sizing_mode="stretch_width", **params
    )


def figure_card(fig: Figure) -> pn.Card:
    """The standard frame of a figure: title, plot, readout, caption, formula."""
    plot = fig.plot if fig.linked_axes else pn.pane.HoloViews(fig.plot, linked_axes=False)
    items: list[Any] = [plot]
    if fig.readout is not None:
        items.append(fig.readout)
    items.extend(fig.extras)
    items.append(
        pn.pane.HTML(
            f'<p class="caption">{fig.caption}</p>',
            stylesheets=[_CARD_CSS],
            sizing_mode="stretch_width",
            margin=(6, 10, 0, 10),
        )
    )
    # A few px under the caption: flush, its last line touched the formula.
    items.append(formula_pane(fig.formula, margin=(4, 10, 6, 10)))
    return pn.Card(
        *items,
        title=fig.title,
        collapsible=False,
        sizing_mode="stretch_width",
        margin=(6, 6),
    )


@dataclass(frozen=True)
class QuickCheck:
    """A question whose answer the page computes from the core (a reference)."""

    question: str
    answer: Any  # a reference (param.depends method) returning the answer as HTML; it
    # must escape anything a user typed (``escape_text``)


class _AnswerHTML(pn.pane.HTML):
    """An HTML pane whose updates send only its text.

    A collapsed Card hides its children in the browser (``visible = false``,
    which Bokeh syncs back to the server model), and Panel's HTML update sends
    every property of the pane again. So each new answer made the hidden pane
    visible and the Card hid it again: two re-layouts of the whole page, about
    400 ms of the browser's time per slider move, for a text nobody could see.
    """

    def _update(self, ref: str, model: Any) -> None:
        text = self._get_properties(model.document)["text"]
        if model.text != text:
            model.text = text


def quick_check_card(check: QuickCheck) -> pn.Column:
    """The question, and the answer in a collapsed card revealed on click."""
    answer = pn.Card(
        _AnswerHTML(check.answer, sizing_mode="stretch_width"),
        title="Show the answer",
        collapsed=True,
        sizing_mode="stretch_width",
        margin=(0, 6, 6, 6),
    )
    return pn.Column(
        pn.pane.Markdown(f"**Quick check.** {check.question}", margin=(6, 12, 0, 12)),
        answer,
        sizing_mode="stretch_width",
    )


def join_items(items: Iterable[str]) -> str:
    """``a, b and c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
