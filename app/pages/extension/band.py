"""E2 · Angle-band chart: one pair's angle against the position under every method."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import holoviews as hv
import numpy as np
from bokeh.models import HoverTool, NumeralTickFormatter

from positional_core.stretch import StretchSchedule, angle_lines

from ...chart import KEY, Chart, Choices, Frame, Mark
from ...look import OKABE_ITO, legend_outside, plot_opts, text_color
from ...marks import labels, rule
from ...numbers import readable
from .shared import (
    FREQUENCY,
    METHODS,
    SELECTED_ENTRY_CSS,
    SERVED,
    method_legend,
    method_lines,
    sci_ticks,
)

_POS = hv.Dimension("position", label="position p (tokens)")
_ANGLE = hv.Dimension("angle", label="angle (rad)")
_REFERENCE = ("default", "linear", "ntk")
_END_TOOLTIPS = [
    ("method", "@method"),
    ("position", "@position{0,0}"),
    ("angle (rad)", "@angle{0.0000}"),
    ("× the trained edge θᵢL", "@times_edge{0.000}"),
]


def _line_hover() -> list[HoverTool]:
    # The lines are exact straight segments: interpolating the hover position
    # along them gives the exact angle at any position.
    tooltips = [("method", "@method"), ("position p", "$x{0,0}"), ("angle (rad)", "$y{0.0000}")]
    return [HoverTool(tooltips=tooltips, line_policy="interp")]


def _curve(**style: Any) -> Mark:
    return Mark(
        hv.Curve, (_POS,), (_ANGLE, "method"), choice="pair", style={"tools": _line_hover, **style}
    )


class _PairRows:
    """E2's rows of every pair for one schedule: each method's line, its end, the
    band and the labels (stacked for the pairs asked, a KEY column naming each)."""

    def __init__(self, sch: StretchSchedule) -> None:
        s = sch.settings
        self.L, self.T, self.S = s.trained_len, s.target_len, s.served_len
        self.lines = angle_lines(sch)
        self.edge = sch.trained_edge
        highest = np.max([line.angles.max(axis=1) for line in self.lines.values()], axis=0)
        self.top = np.maximum(self.edge, highest)
        self.served = s.method in SERVED and self.S not in (self.L, self.T)
        self.names = {
            m: METHODS[m].short + (" (selected)" if m == s.method else "") for m in self.lines
        }

    def curve(self, method: str, pairs: np.ndarray) -> dict[str, Any]:
        line = self.lines[method]
        count = line.positions.size
        return {
            "position": np.tile(line.positions, len(pairs)),
            "angle": line.angles[pairs].ravel(),
            "method": np.full(len(pairs) * count, self.names[method]),
            KEY: np.repeat(pairs, count),
        }

    def band(self, pairs: np.ndarray) -> dict[str, Any]:
        zeros = np.zeros(len(pairs))
        return {
            "y0": zeros,
            "y1": self.edge[pairs],
            "__y_start": zeros,
            "__y_end": self.top[pairs] * 1.1,
            KEY: pairs,
        }

    def ends(self, pairs: np.ndarray) -> dict[str, Any]:
        lines = list(self.lines.values())
        return {
            "position": np.tile([line.positions[-1] for line in lines], len(pairs)),
            "angle": np.stack([line.angles[pairs, -1] for line in lines], axis=1).ravel(),
            "method": np.tile([METHODS[m].short for m in self.lines], len(pairs)),
            "times_edge": np.stack([line.excess[pairs] for line in lines], axis=1).ravel(),
            KEY: np.repeat(pairs, len(lines)),
        }

    def texts(self, pairs: np.ndarray) -> dict[str, Any]:
        """L's label, the band's and the served length's (empty when not marked)."""
        L, T, count = self.L, self.T, len(pairs)
        # The band's label (short: its numbers are in the readout) ends at L′ from
        # L′ = 2 L, where L's line and the fastest line (which leaves the band at
        # L) are left of it; below, it starts at 0, where every line is still low.
        at_end = T >= 2 * L
        # L's label reads to the right of its line, unless L is near the axis' end
        # (L′ < 1.25 L): there it would be cut off, so it reads to the left.
        right = T >= 1.25 * L
        seen = np.where(self.edge[pairs] >= 2 * math.pi, "every angle seen", "trained band")
        top, edge = self.top[pairs], self.edge[pairs]
        text = [
            np.full(count, f" L = {L:,}" if right else f"L = {L:,} "),
            [f"{t} " if at_end else f" {t}" for t in seen],
            np.full(count, " served S" if self.served else ""),
        ]
        return {
            "position": np.tile([L, T if at_end else 0, self.S if self.served else L], count),
            # The band's label sits on its edge: under it, the lines that end on
            # the edge at L′ crossed it, and a thin band cut it at the axis.
            "angle": np.stack([top * 0.02, edge, top * 0.5], axis=1).ravel(),
            "text": np.stack(text, axis=1).ravel(),
            "align": np.tile(
                ["left" if right else "right", "right" if at_end else "left", "left"], count
            ),
            "baseline": np.full(3 * count, "bottom"),
            KEY: np.repeat(pairs, 3),
        }


class Band(Chart):
    title = "E2 · Angle-band chart: one pair, every method"
    caption = (
        "The angle of one pair (default: the slowest) against position, up to the "
        "target length L′. The shaded band is what training showed the model: "
        "angles 0 … θᵢL. With no scaling the line leaves the band right after L. "
        "Position interpolation divides every speed by s and ends exactly on the "
        "band's edge; NTK-aware scaling does the same for the slowest pair only. "
        "The thick line is the selected method (dynamic NTK is drawn at a few "
        "dozen served lengths, LongRoPE switches lists at L)."
    )
    formula = (
        r"$$\varphi_i(p) = \theta'_i\,p,\qquad \text{trained band: } "
        r"0 \le \varphi < \theta_i L$$"
    )
    depends = FREQUENCY
    # Its labels run from 1.5×10⁻⁵ to 1m as the pair moves (sci_ticks); the powers
    # of ten are the widest.
    y_tick_room = 78
    marks = {  # noqa: RUF012
        "band": Mark(
            hv.HSpans,
            ("y0", "y1"),
            choice="pair",
            style={
                "color": OKABE_ITO["sky"],
                "fill_alpha": 0.25,
                "line_color": OKABE_ITO["blue"],
                "line_width": 1.5,
                # Long positions read 1m, 500k (a Bokeh model: one per figure drawn).
                "xformatter": partial(NumeralTickFormatter, format="0,0a"),
                "yformatter": sci_ticks,
            },
        ),
        **method_lines(_curve, _REFERENCE, 4),
        "ends": Mark(
            hv.Points,
            (_POS, _ANGLE),
            ("method", "times_edge"),
            choice="pair",
            style={
                "color": text_color,
                "size": 6,
                "tools": ["hover"],
                "hover_tooltips": _END_TOOLTIPS,
            },
        ),
        "lengths": rule("dotted", 1.2),
        "texts": labels(
            (_POS, _ANGLE),
            choice="pair",
            fields={"text_align": "align", "text_baseline": "baseline"},
        ),
    }
    options = plot_opts(
        height=360,
        # Above the frame: inside, it covered the band's top-left. Anchored at the
        # right: on a phone the legend is wider than the frame and runs into the y
        # axis' room on the left instead of off the card.
        legend_cols=2,
        **legend_outside("top", stylesheets=[SELECTED_ENTRY_CSS], location="top_right"),
        xlabel=_POS.label,
        ylabel="angle of the pair (rad)",
    )
    readout_depends = (*FREQUENCY, "pair")

    def frame(self, p: Any) -> Frame:
        sch = p.schedule()
        s, rows = sch.settings, _PairRows(sch)
        pairs, method = np.arange(sch.n_pairs), s.method

        def choice(make: Any, **kw: Any) -> Choices:
            return Choices(pairs, make, version=s, **kw)

        return Frame(
            band=choice(rows.band, follow={"y_range.start": "__y_start", "y_range.end": "__y_end"}),
            **{f"reference_{m}": choice(partial(rows.curve, m)) for m in _REFERENCE},
            selected=choice(partial(rows.curve, method)),
            ends=choice(rows.ends),
            lengths={"x": [s.trained_len, s.served_len] if rows.served else [s.trained_len]},
            texts=choice(rows.texts),
            x=(0, s.target_len * 1.02),
            **method_legend(_REFERENCE, method),
        )

    def readout(self, p: Any) -> str:
        sch = p.schedule()
        i = min(p.pair, sch.n_pairs - 1)
        theta, edge, turns = sch.theta[i], sch.trained_edge[i], sch.trained_turns[i]
        text = f"Pair {i}: θ = {readable(theta)} rad per token; "
        if turns < 1:
            text += (
                f"in training it reached θL = {readable(edge)} rad "
                f"({readable(100 * turns, 3)} % of a turn). "
            )
        else:
            text += f"it turns {readable(turns, 3)} times within L, so it has seen every angle. "
        parts = [
            f"{METHODS[m].short} {readable(line.angles[i, -1])} rad "
            f"({readable(line.excess[i], 3)}×)"
            for m, line in angle_lines(sch).items()
        ]
        return text + f"At L′ = {sch.settings.target_len:,}: " + "; ".join(parts) + "."
