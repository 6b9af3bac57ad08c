"""A1 · One slope per head: the slopes, where they come from, their half-lives."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np
import panel as pn

from positional_core.alibi import alibi_half_lives, alibi_slope_sources, alibi_slopes

from ...chart import KEY, Chart, Choices, Frame, Mark, padded, padded_data
from ...look import WARNING, is_dark, legend_outside, plot_opts
from ...marks import ring
from ...numbers import join_items
from .shared import SOURCE_COLORS, power_text, slope_text

_H = hv.Dimension("h", label="head h")
_SLOPE = hv.Dimension("slope", label="slope m_h")
_HOVER = [
    ("head h", "@h"),
    ("slope m", "@slope{0.000000}"),
    ("as a power of 2", "@source"),
    ("half-life (positions)", "@half_life{0.0}"),
]


def _points(color: str) -> Mark:
    return Mark(
        hv.Points,
        (_H, _SLOPE),
        ("half_life", "source"),
        style={"color": color, "size": 8, "tools": ["hover"], "hover_tooltips": _HOVER},
    )


_TABLE_CSS = """
:host { width: 100%; }
.scroll { max-height: 240px; overflow-y: auto; border: 1px solid rgba(128,128,128,0.35);
  border-radius: 4px; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em;
  font-variant-numeric: tabular-nums; }
th { position: sticky; top: 0; z-index: 1; background: var(--panel-surface-color, #fff);
  text-align: right; padding: 3px 8px; border-bottom: 1px solid rgba(128,128,128,0.5); }
td { text-align: right; padding: 2px 8px; }
td.src { text-align: left; }
.swatch { display: inline-block; width: 0.7em; height: 0.7em; border-radius: 50%;
  margin-right: 0.35em; vertical-align: baseline; }
"""


def slope_table(heads: int) -> str:
    """Every head's slope, its power of two, where it comes from and its half-life
    (the selected head's row is picked by :func:`selected_row`, a style sheet)."""
    slopes = alibi_slopes(heads)
    sources = alibi_slope_sources(heads)
    own = sources[0][0]
    rows = []
    for h, (slope, source, half) in enumerate(
        zip(slopes, sources, alibi_half_lives(slopes), strict=True), 1
    ):
        power, place = source
        kind = "own" if power == own else "extra"
        swatch = f'<span class="swatch" style="background:{SOURCE_COLORS[kind]}"></span>'
        rows.append(
            f'<tr class="{kind}" data-head="{h}">'
            f"<td>{h}</td><td>{slope_text(float(slope), source)}</td>"
            f"<td>{power_text(source)}</td>"
            f'<td class="src">{swatch}{power} heads, place {place}</td>'
            f"<td>{half:,.1f}</td></tr>"
        )
    top = (
        "<tr><th>head h</th><th>slope m</th><th>as 2<sup>x</sup></th>"
        '<th class="src" style="text-align:left">from: P heads, place</th>'
        "<th>half-life ln 2/m</th></tr>"
    )
    # Focusable and named: a keyboard user scrolls the table too (it scrolls
    # when the card is narrow or the page's text is large).
    return (
        '<div class="scroll" tabindex="0" role="region" aria-label="Slopes of every head">'
        f"<table>{top}{''.join(rows)}</table></div>"
    )


def selected_row(head: int) -> str:
    """The style rule that marks head ``head``'s row of :func:`slope_table`: opaque
    (the row is sticky), a vermillion tint on the light or the dark theme."""
    tint = "#5A3A22" if is_dark() else "#F7DCC8"
    return (
        f'tr[data-head="{int(head)}"] td {{ background: {tint}; font-weight: 700; '
        "position: sticky; top: 1.9em; bottom: 0; }"
    )


class Slopes(Chart):
    title = "A1 · One slope per head"
    caption = (
        "Each head h gets a fixed slope m<sub>h</sub> (nothing is learned). For a "
        "power-of-two H they form a geometric sequence from 2<sup>−8/H</sup> down "
        "to 1/256 (log scale: a straight line). For other H the reference code "
        "adds, after the closest smaller power of two P, every other slope of 2P "
        "(orange). The table gives each slope, the power of two it comes from and "
        "its half-life; the ringed point is the selected head."
    )
    formula = r"$$m_h = 2^{-8h/H},\ h = 1,\dots,H\qquad t_{1/2} = \frac{\ln 2}{m_h}$$"
    depends = ("heads",)
    marks = {  # noqa: RUF012
        "own": _points(SOURCE_COLORS["own"]),
        "extra": _points(SOURCE_COLORS["extra"]),
        "ring": ring(
            hv.Points, (_H, _SLOPE), color=WARNING, width=3, marker="circle", choice="head"
        ),
    }
    options = {  # noqa: RUF012
        "logy": True,
        "yticks": [(2.0**-k, f"1/{2**k}" if k else "1") for k in range(0, 9)],
        "legend_cols": 2,
        **legend_outside("top", label_text_font_size="9pt", spacing=4),
        **plot_opts(height=310),
    }
    readout_depends = ("heads",)
    question = (
        "With H = 8 heads, what are the eight slopes, and after how many positions "
        "has the weight of the shallowest head halved?"
    )
    answer_depends = ("heads",)

    def frame(self, p: Any) -> Frame:
        slopes = alibi_slopes(p.heads)
        sources = alibi_slope_sources(p.heads)
        own = sources[0][0]
        is_own = np.array([power == own for power, _ in sources])
        columns = {
            "h": np.arange(1, p.heads + 1),
            "slope": slopes,
            "half_life": np.asarray(alibi_half_lives(slopes), dtype=float),
            "source": np.array(
                [f"2^(−8·{h}/{n}) = {power_text((n, h), html=False)}" for n, h in sources]
            ),
        }
        size = {"size": 8 if p.heads <= 32 else 5}

        def chosen(heads: np.ndarray) -> dict[str, Any]:
            return {"h": heads, "slope": slopes[heads - 1], KEY: heads}

        return Frame(
            own={k: v[is_own] for k, v in columns.items()},
            extra={k: v[~is_own] for k, v in columns.items()},
            ring=Choices(columns["h"], chosen, version=(p.heads,)),
            x=padded(1, p.heads),
            y=padded_data(slopes, log=True),
            labels={
                "own": f"{own}-head sequence",
                "extra": f"every 2nd of {2 * own}" if not is_own.all() else "",
            },
            props={"own": size, "extra": size},
        )

    def readout(self, p: Any) -> str:
        sources = alibi_slope_sources(p.heads)
        own = sources[0][0]
        first = (
            f"Heads 1–{own} use the {own}-head sequence m<sub>h</sub> = 2<sup>−8h/{own}</sup>"
            if own > 1
            else "Head 1 uses m = 2<sup>−8</sup> = 1/256"
        )
        if own == p.heads:
            steepest = slope_text(float(alibi_slopes(p.heads)[0]), sources[0])
            return (
                f"<b>H = {p.heads}</b> is a power of two. {first}: a geometric sequence "
                f"from {steepest} down to 1/256."
            )
        places = join_items(str(h) for _, h in sources[own:])
        return (
            f"<b>H = {p.heads}</b> is not a power of two (the reference code's rule). "
            f"{first}; heads {own + 1}–{p.heads} "
            f"(<span style='color:{SOURCE_COLORS['extra']}'>orange</span>) take every other "
            f"slope of the {2 * own}-head sequence, places {places}: they fall between "
            "the first ones instead of repeating them, so the slopes are not sorted."
        )

    def extras(self, p: Any) -> list[Any]:
        # The table follows H only; a new head changes one short style rule, not
        # the table's HTML (45 kB at 128 heads).
        table = pn.bind(slope_table, p.param.heads)
        css = pn.bind(lambda head: [_TABLE_CSS, selected_row(head)], p.param.head)
        return [pn.pane.HTML(table, stylesheets=css, sizing_mode="stretch_width", margin=(4, 10))]

    def answer(self, p: Any) -> str:
        eight = alibi_slopes(8)
        halves = alibi_half_lives(eight)
        listed = ", ".join(
            slope_text(float(m), s) for m, s in zip(eight, alibi_slope_sources(8), strict=True)
        )
        current = alibi_slopes(p.heads)
        return (
            f"H = 8: m = <b>{listed}</b> (2<sup>−h</sup>). Their half-lives run from "
            f"<b>{halves[0]:.1f}</b> positions (m = 1/2) to <b>{halves[-1]:.0f}</b> "
            f"(m = 1/256). With the current H = {p.heads} the slopes run from "
            f"{current.max():.4g} down to {current.min():.4g}."
        )
