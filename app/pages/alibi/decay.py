"""A4 · How fast each head forgets: e^(−m·Δ) for every head, and "train short, test long"."""

from __future__ import annotations

from functools import partial
from typing import Any

import holoviews as hv
import numpy as np

from positional_core.alibi import (
    alibi_bias_row,
    alibi_half_lives,
    alibi_slopes,
    alibi_weight_factors,
)

from ...chart import KEY, Chart, Choices, Frame, Mark, padded_data
from ...look import OKABE_ITO, WARNING, plot_opts
from ...marks import labels, layer, rule
from ...numbers import difference, readable, sci
from .shared import head_label

#: Points per decay curve: on a log axis e^(−m·Δ) falls from 0.9 to 0.1 over
#: about 1.3 decades, and 60 points over the axis' 3–4 decades put 20 on that
#: fall, one every ~8 pixels of a 500-pixel figure: no eye tells it from a
#: smooth line (128 heads: 7,808 rows of four float32 columns, 125 kB a change).
CURVE_POINTS = 60

_X = hv.Dimension("x", label="distance Δ = i − j (positions back, log scale)")
_Y = hv.Dimension("y", label="weight factor e^(−m·Δ)")


#: A layer of the selected head only, drawn on top.
_of_head = partial(layer, choice="head", on_top=True)


def _line_label(at: int, text: str, far: int) -> dict[str, list]:
    """The label above a line at distance ``at``: at the axis' end ``far``, empty past it."""
    return {"x": [min(at, far)], "y": [1.06], "text": [text if at <= far else ""]}


class Decay(Chart):
    title = "A4 · How fast each head forgets"
    caption = (
        "One curve per head: the factor by which its bias scales the weight of a "
        "key Δ positions back. On this log distance axis all curves have the same "
        "shape, shifted: each halves at its half-life ln 2 / m (dotted line at "
        "½). Steep heads see only the last few tokens, shallow heads hundreds. "
        "The dashed line is the trained length L, the green one the distance of "
        "the readout below."
    )
    formula = r"$$\frac{w_{i,\,i-\Delta}}{w_{ii}} = e^{-m_h\Delta}$$"
    depends = ("heads", "max_distance", "trained_len", "distance")
    marks = {  # noqa: RUF012
        # Every head as one line broken by NaN after each head: the same picture
        # and hover as a path per head, in columns Bokeh draws as they are.
        "curves": Mark(
            hv.Curve,
            (_X,),
            # No slope column: it would repeat each head's one number on every row
            # (A1 shows the slopes; the half-life is what this figure is about).
            (_Y, "head", "half_life"),
            style={
                "color": OKABE_ITO["sky"],
                "alpha": 0.75,
                "line_width": 1.5,
                "tools": ["hover"],
                "hover_tooltips": [
                    ("head h", "@head"),
                    ("half-life", "@half_life{0.0} positions"),
                ],
            },
        ),
        "selected": _of_head(hv.Curve, (_X,), (_Y,), color=WARNING, line_width=3.5),
        "half_life": _of_head(hv.Points, ("x", "y"), color=WARNING, size=9),
        "half_life_text": labels(size="10pt", text_align="left", choice="head", on_top=True),
        "half": rule("dotted", 1, hv.HLines, color=OKABE_ITO["grey"]),
        "length": rule("dashed", 1.5),
        "length_text": labels(size="10pt"),
        "delta": rule(width=1.5, color=OKABE_ITO["green"]),
        "delta_text": labels(color=OKABE_ITO["green"], size="10pt"),
    }
    options = plot_opts(
        height=320, logx=True, ylim=(0, 1.12), yticks=[0, 0.25, 0.5, 0.75, 1], show_legend=False
    )
    readout_depends = ("heads", "head", "trained_len", "distance")

    def frame(self, p: Any) -> Frame:
        slopes = alibi_slopes(p.heads)
        delta = np.geomspace(0.5, p.max_distance, CURVE_POINTS)
        halves = np.asarray(alibi_half_lives(slopes), dtype=float)
        column = np.full((p.heads, delta.size + 1), np.nan)
        column[:, :-1] = alibi_weight_factors(slopes, delta)
        points = delta.size + 1

        def selected(heads: np.ndarray) -> dict[str, Any]:
            factors = alibi_weight_factors(slopes[heads - 1], delta)
            return {
                "x": np.tile(delta, len(heads)),
                "y": factors.ravel(),
                KEY: np.repeat(heads, delta.size),
            }

        def half(heads: np.ndarray, text: bool = False) -> dict[str, Any]:
            x = halves[heads - 1]
            rows = {"x": x, "y": np.full(len(heads), 0.56 if text else 0.5), KEY: heads}
            if text:
                rows["text"] = np.asarray([f" half-life {h:,.1f}" for h in x], dtype=object)
            return rows

        heads = np.arange(1, p.heads + 1)
        version = (p.heads, p.max_distance)
        length, distance, far = p.trained_len, p.distance, p.max_distance
        # A label sits on the side of its line with more room.
        right = length * 4 < far
        # float32: a figure's pixels need no more, and 128 heads' curves stay
        # a few hundred kB per change (the readout's numbers are float64).
        return Frame(
            curves={
                "x": np.tile(np.append(delta, delta[-1]), p.heads).astype(np.float32),
                "y": column.ravel().astype(np.float32),
                "head": np.repeat(heads, points).astype(np.int32),
                "half_life": np.repeat(halves, points).astype(np.float32),
            },
            selected=Choices(heads, selected, version=version),
            half_life=Choices(heads, half, version=version),
            half_life_text=Choices(heads, lambda h: half(h, text=True), version=version),
            half={"y": [0.5]},
            length={"x": [length]},
            length_text=_line_label(
                length, f" L = {length:,} " if right else f"L = {length:,} ", far
            ),
            delta={"x": [distance]},
            delta_text=_line_label(distance, f" Δ = {distance:,} ", far),
            # The curves' ends and the half-lives, as HoloViews takes them from the data.
            x=padded_data(delta, halves, log=True, padding=0),
            props={
                "length_text": {"text_align": "left" if right else "right"},
                "delta_text": {"text_align": "left" if distance < 8 else "right"},
            },
        )

    def readout(self, p: Any) -> str:
        slope = float(alibi_slopes(p.heads)[p.head - 1])
        delta, length = p.distance, p.trained_len
        far_query = 4 * length + delta  # far past the trained length
        near = float(alibi_bias_row(slope, delta, delta + 1)[0])
        far = float(alibi_bias_row(slope, far_query, far_query + 1)[far_query - delta])
        factor, edge = alibi_weight_factors([slope], [delta, length])[0]
        inside = f" (inside the trained length L = {length:,})" if delta < length else ""
        new = (
            f"Δ = {delta:,} is already longer than any distance seen in training "
            f"(at most L − 1 = {length - 1:,}); its bias simply continues the same line. "
            if delta >= length
            else ""
        )
        return (
            f"<b>Train short, test long.</b> For {head_label(p.heads, p.head)}, a key "
            f"Δ = {delta:,} positions back gets bias −m·Δ = <b>{readable(near)}</b> at query "
            f"position {delta:,}{inside}, and "
            f"<b>{readable(far)}</b> at query position {far_query:,} (4·L + Δ, far past it): "
            f"difference {difference(abs(near - far))}. Its weight factor "
            f"e<sup>−m·Δ</sup> = {sci(factor)}. {new}ALiBi has no absolute position "
            "anywhere, so a longer input shows the model only biases it already knows, plus "
            "longer distances, where the factor is already small for most heads: "
            f"e<sup>−m·L</sup> = {sci(edge)} for this one."
        )
