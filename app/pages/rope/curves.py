"""R2 and R7 · The score of a seeded q and k against the offset Δ, one curve per query start.

Turned with one layout the curves lie on top of each other (R2, :class:`Distance`);
read with the other layout they come apart (R7, :class:`Mismatch`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import holoviews as hv
import numpy as np
import panel as pn

from positional_core.rope import (
    LAYOUTS,
    apply_rope,
    curve_spread,
    random_query_key,
    rope_scores_by_start,
)

from ...chart import Chart, Frame, Mark, padded_data
from ...look import OKABE_ITO, legend_outside, plot_opts, text_color
from ...numbers import difference, fixed, readable

__all__ = ["FIXED_STARTS", "Distance", "Mismatch"]

#: The query positions of figures R2 and R7 (the reader adds a fourth).
FIXED_STARTS: tuple[int, ...] = (0, 100, 1000)
#: One mark per start, and its legend label.
_STARTS = {**{f"m{m}": f"m = {m:,}" for m in FIXED_STARTS}, "yours": "your m"}
# The curves coincide, so each style must stay visible when drawn on top of the others.
_STYLES = (
    {"line_dash": "solid", "line_width": 7, "alpha": 0.35, "color": OKABE_ITO["sky"]},
    {"line_dash": "dashed", "line_width": 3, "alpha": 1.0, "color": OKABE_ITO["orange"]},
    {"line_dash": "dotted", "line_width": 3, "alpha": 1.0, "color": OKABE_ITO["purple"]},
    {"line_dash": "dashdot", "line_width": 1.5, "alpha": 1.0, "color": OKABE_ITO["green"]},
)
_START = hv.Dimension("start", label="query position m")
_OFFSET = "offset Δ = n − m (positions)"
# R7's dimensions have names of their own: its axes must not link to R2's.
_MIX_DELTA = hv.Dimension("delta_mix", label=_OFFSET)
_MIX_SCORE = hv.Dimension("score_mix", label="score, layouts mixed")


@lru_cache(maxsize=8)
def _curves(
    d: int, base: int, layout: str, read_layout: str, seed: int, start: int, max_distance: int
) -> np.ndarray:
    # A pure function of its arguments (R2 and R7 and their readouts read the same
    # curves): sessions can share what it keeps.
    q, k = random_query_key(d, seed)
    offsets, starts = np.arange(max_distance + 1), [*FIXED_STARTS, start]
    table = rope_scores_by_start(
        q, k, offsets, starts, base, layout=layout, read_layout=read_layout
    )
    table.setflags(write=False)
    return table


def curves(p: Any, read_layout: str) -> np.ndarray:
    """Scores of the seeded q and k for each start (rows) and offset Δ = 0 … max_distance:
    keys turned with the page's layout, the query with ``read_layout``."""
    return _curves(p.d, p.base, p.layout, read_layout, p.seed, p.start, p.max_distance)


def _other_layout(layout: str) -> str:
    return next(name for name in LAYOUTS if name != layout)


def _marks(x: hv.Dimension, y: hv.Dimension) -> dict[str, Mark]:
    hover = [("start m", "@start"), ("Δ", f"@{x.name}"), ("score", f"@{y.name}{{0.0000}}")]
    tools = {"tools": ["hover"], "hover_tooltips": hover}
    return {
        name: Mark(hv.Curve, (x,), (y, _START), style={**style, **tools}, thin=True)
        for name, style in zip(_STARTS, _STYLES, strict=True)
    }


_OPTIONS = {
    **legend_outside("bottom", label_text_font_size="9pt", padding=2),
    **plot_opts(height=340),
}


class _ScoreCurves(Chart):
    """One curve per query start of the seeded q and k against the offset Δ."""

    depends = ("d", "base", "layout", "seed", "start", "max_distance")
    readout_depends = depends

    def curves_frame(self, p: Any, table: np.ndarray, **extra: np.ndarray) -> Frame:
        """The curves of ``table`` (one row per start) and any ``extra`` curve, by name;
        axes fitted as HoloViews pads a curve: 10 % above and below, none along Δ."""
        x, y = self.marks["m0"].names[:2]
        delta = np.arange(p.max_distance + 1)
        starts = [*FIXED_STARTS, p.start]
        marks: dict[str, Any] = {
            name: {x: delta, y: row, "start": np.full(delta.size, start)}
            for name, row, start in zip(_STARTS, table, starts, strict=True)
        }
        marks.update({name: {x: delta, y: row} for name, row in extra.items()})
        labels = {**_STARTS, **{name: name for name in extra}}
        y_range = padded_data(table, *extra.values())
        return Frame(**marks, labels=labels, x=(0, p.max_distance), y=y_range)


class Distance(_ScoreCurves):
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
    marks = _marks(
        hv.Dimension("delta", label=_OFFSET), hv.Dimension("score", label="score ⟨Rₘq, Rₘ₊Δk⟩")
    )
    options = {**_OPTIONS, "legend_cols": 4}  # noqa: RUF012
    question = (
        "Work it out on paper first: RoPE with d = 4, frequencies θ = (1, 0.01), and "
        "q = k = (1, 0, 1, 0). What is the score of the query at m and the key at m + 3?"
    )
    answer_depends = ()

    def frame(self, p: Any) -> Frame:
        return self.curves_frame(p, curves(p, p.layout))

    def answer(self, p: Any) -> str:
        q = k = np.array([1.0, 0.0, 1.0, 0.0])
        theta = [1.0, 0.01]
        scores = [
            float(apply_rope(q, m, inv_freq=theta) @ apply_rope(k, m + 3, inv_freq=theta))
            for m in (0, 100)
        ]
        return (
            f"<b>{fixed(scores[0], 3)}</b> ({scores[0]:.5f}): each pair adds cos(3·θᵢ), "
            f"so cos 3 + cos 0.03 = {fixed(np.cos(3), 4)} + {fixed(np.cos(0.03), 4)}. "
            f"The fast pair has turned almost half a circle and cancels the slow one. "
            f"At m = 100 it is {fixed(scores[1], 3)}: only the offset counts."
        )

    def readout(self, p: Any) -> str:
        spread = curve_spread(curves(p, p.layout))
        return (
            f"Largest gap between the four curves: <b>{difference(spread)}</b>: "
            "the score depends on the offset Δ only, wherever the query sits. "
            f"q and k: {p.d} random numbers each, seed {p.seed}; {p.layout} layout."
        )

    def extras(self, p: Any) -> list[Any]:
        def new_qk(_event: Any) -> None:
            low, high = p.param.seed.bounds  # the seed wraps round at its upper bound
            p.seed = p.seed + 1 if p.seed < high else low

        button = pn.widgets.Button(label="New q, k", color="primary", margin=(4, 10))
        button.on_click(new_qk)
        return [button]


class Mismatch(_ScoreCurves):
    title = "R7 · Rotate with one layout, read with the other"
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
    marks = {  # noqa: RUF012
        **_marks(_MIX_DELTA, _MIX_SCORE),
        "correct": Mark(
            hv.Curve,
            (_MIX_DELTA,),
            (_MIX_SCORE,),
            style={"color": text_color, "line_width": 1.5, "alpha": 0.9},
            thin=True,
        ),
    }
    options = {**_OPTIONS, "legend_cols": 3}  # noqa: RUF012

    def frame(self, p: Any) -> Frame:
        mixed = curves(p, _other_layout(p.layout))
        correct = curves(p, p.layout)[0]
        return self.curves_frame(p, mixed, correct=correct)

    def readout(self, p: Any) -> str:
        other = _other_layout(p.layout)
        spread = curve_spread(curves(p, other))
        matched = curve_spread(curves(p, p.layout))
        return (
            f"Keys rotated {p.layout}, query rotated {other}: the curves now "
            f"disagree by up to <b>{readable(spread, 3)}</b> (same layout: {difference(matched)}). "
            "Nothing raises an error; the model just attends to the wrong places."
        )
