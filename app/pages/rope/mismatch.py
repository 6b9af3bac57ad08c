"""R4 · Rotate with one layout, read with the other: the relative property breaks, silently."""

from __future__ import annotations

from typing import Any

import holoviews as hv

from positional_core.rope import curve_spread

from ...chart import Chart, Frame
from .shared import curve_frame, curve_marks, curve_options, curves, other_layout

__all__ = ["Mismatch"]

# Names of its own: the axes must not link to R2's.
_DELTA = hv.Dimension("delta_mix", label="offset Δ = n − m (positions)")
_SCORE = hv.Dimension("score_mix", label="score, layouts mixed")


class Mismatch(Chart):
    title = "R4 · Rotate with one layout, read with the other"
    caption = (
        "The silent bug when weights and code disagree: the keys were rotated "
        "with the chosen layout (say, a checkpoint converted for one "
        "implementation) and the query with the other. The starts now give "
        "different curves, so the score depends on absolute position again; "
        "only m = 0, where the query is not turned at all, still matches the "
        "correct curve (thin solid line). No shape check fails: d is the same."
    )
    formula = (
        r"$$\langle R^{\text{other}}_m q,\, R^{\text{chosen}}_{m+\Delta} k\rangle"
        r" \ne \langle R^{\text{other}}_0 q,\, R^{\text{chosen}}_{\Delta} k\rangle$$"
    )
    depends = ("d", "base", "layout", "seed", "start", "max_distance")
    marks = curve_marks(_DELTA, _SCORE, correct=True)
    options = curve_options(legend_cols=3)
    readout_depends = depends

    def frame(self, p: Any) -> Frame:
        mixed = curves(p, other_layout(p.layout))
        correct = curves(p, p.layout)[0]
        return curve_frame(p, mixed, _DELTA.name, _SCORE.name, correct=correct)

    def readout(self, p: Any) -> str:
        other = other_layout(p.layout)
        spread = curve_spread(curves(p, other))
        matched = curve_spread(curves(p, p.layout))
        return (
            f"Keys rotated {p.layout}, query rotated {other}: the curves now "
            f"disagree by up to <b>{spread:.3g}</b> (same layout: {matched:.1e}). "
            "Nothing raises an error; the model just attends to the wrong places."
        )
