"""R2 · Score against distance from four starts: the curves lie on top of each other."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import panel as pn

from positional_core.rope import curve_spread

from ...chart import Chart, Frame
from .shared import curve_frame, curve_marks, curve_options, curves

__all__ = ["Distance", "new_qk"]

_DELTA = hv.Dimension("delta", label="offset Δ = n − m (positions)")
_SCORE = hv.Dimension("score", label="score ⟨Rₘq, Rₘ₊Δk⟩")


def new_qk(p: Any) -> None:
    """Next random q and k (the seed wraps round at its upper bound)."""
    low, high = p.param.seed.bounds
    p.seed = p.seed + 1 if p.seed < high else low


class Distance(Chart):
    title = "R2 · Score against distance, from four starts"
    caption = (
        "A random query and key of a whole head (d numbers each), the query at "
        "position m and the key Δ positions later. One curve per start m: 0, "
        "100, 1,000 and yours. They lie exactly on top of each other (thick, "
        "dashed, dotted and dash-dot lines all visible at once): moving both "
        "tokens along the text changes nothing."
    )
    formula = (
        r"$$s_m(\Delta) = \langle R_m q,\, R_{m+\Delta} k\rangle"
        r" = q^\top R_{\Delta}\, k = s_0(\Delta)\quad\text{for every } m$$"
    )
    depends = ("d", "base", "layout", "seed", "start", "max_distance")
    marks = curve_marks(_DELTA, _SCORE)
    options = curve_options(legend_cols=4)
    readout_depends = depends

    def frame(self, p: Any) -> Frame:
        return curve_frame(p, curves(p, p.layout), _DELTA.name, _SCORE.name)

    def readout(self, p: Any) -> str:
        spread = curve_spread(curves(p, p.layout))
        return (
            f"Largest gap between the four curves: <b>{spread:.1e}</b> "
            "(rounding): the score depends on the offset Δ only, wherever the query sits. "
            f"q and k: {p.d} random numbers each, seed {p.seed}; {p.layout} layout."
        )

    def extras(self, p: Any) -> list[Any]:
        button = pn.widgets.Button(label="New q, k", color="primary", margin=(4, 10))
        button.on_click(lambda _event: new_qk(p))
        return [button]
