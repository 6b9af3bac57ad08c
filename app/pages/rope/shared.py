"""What several RoPE figures share: the score curves of R2 and R4, drawn one per start."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import holoviews as hv
import numpy as np

from positional_core.rope import LAYOUTS, random_query_key, rope_scores_by_start

from ...chart import Frame, Mark, padded
from ...look import OKABE_ITO, legend_outside, plot_opts, text_color

__all__ = ["FIXED_STARTS", "curve_frame", "curve_marks", "curve_options", "curves", "other_layout"]

#: The query positions of figures R2 and R4 (the reader adds a fourth).
FIXED_STARTS: tuple[int, ...] = (0, 100, 1000)
#: One mark per start, and its legend label.
_STARTS = {"m0": "m = 0", "m100": "m = 100", "m1000": "m = 1,000", "yours": "your m"}
# The curves coincide, so each style must stay visible when drawn on top of the others.
_STYLES = (
    {"line_dash": "solid", "line_width": 7, "alpha": 0.35, "color": OKABE_ITO["sky"]},
    {"line_dash": "dashed", "line_width": 3, "alpha": 1.0, "color": OKABE_ITO["orange"]},
    {"line_dash": "dotted", "line_width": 3, "alpha": 1.0, "color": OKABE_ITO["purple"]},
    {"line_dash": "dashdot", "line_width": 1.5, "alpha": 1.0, "color": OKABE_ITO["green"]},
)
_START = hv.Dimension("start", label="query position m")


@lru_cache(maxsize=8)
def _curves(
    d: int, base: int, layout: str, read_layout: str, seed: int, start: int, max_distance: int
) -> np.ndarray:
    # A pure function of its arguments (R2 and R4 and their readouts read the same
    # curves): sessions can share what it keeps.
    q, k = random_query_key(d, seed)
    offsets = np.arange(max_distance + 1)
    starts = [*FIXED_STARTS, start]
    table = rope_scores_by_start(
        q, k, offsets, starts, base, layout=layout, read_layout=read_layout
    )
    table.setflags(write=False)
    return table


def curves(p: Any, read_layout: str) -> np.ndarray:
    """Scores of the seeded q and k for each start (rows) and offset Δ = 0 … max_distance:
    keys turned with the page's layout, the query with ``read_layout``."""
    return _curves(p.d, p.base, p.layout, read_layout, p.seed, p.start, p.max_distance)


def other_layout(layout: str) -> str:
    return next(name for name in LAYOUTS if name != layout)


def curve_marks(x: hv.Dimension, y: hv.Dimension, correct: bool = False) -> dict[str, Mark]:
    """One curve per start (and the curve every start should draw, on top)."""
    hover = [("start m", "@start"), ("Δ", f"@{x.name}"), ("score", f"@{y.name}{{0.0000}}")]
    tools = {"tools": ["hover"], "hover_tooltips": hover}
    marks = {
        name: Mark(hv.Curve, (x,), (y, _START), style={**style, **tools})
        for name, style in zip(_STARTS, _STYLES, strict=True)
    }
    if correct:
        marks["correct"] = Mark(
            hv.Curve,
            (x,),
            (y,),
            style={"color": text_color, "line_width": 1.5, "alpha": 0.9, "tools": []},
        )
    return marks


def curve_options(legend_cols: int) -> dict[str, Any]:
    return {
        "legend_cols": legend_cols,
        **legend_outside("bottom", label_text_font_size="9pt", padding=2),
        **plot_opts(height=340),
    }


def curve_frame(
    p: Any, table: np.ndarray, x: str, y: str, correct: np.ndarray | None = None
) -> Frame:
    """The curves of ``table`` (one row per start), axes fitted as HoloViews pads a curve:
    10 % above and below, none along Δ."""
    delta = np.arange(p.max_distance + 1)
    starts = [*FIXED_STARTS, p.start]
    marks: dict[str, Any] = {
        name: {x: delta, y: row, "start": np.full(delta.size, start)}
        for name, row, start in zip(_STARTS, table, starts, strict=True)
    }
    labels = dict(_STARTS)
    low, high = float(table.min()), float(table.max())
    if correct is not None:
        marks["correct"] = {x: delta, y: correct}
        labels["correct"] = "correct"
        low, high = min(low, float(correct.min())), max(high, float(correct.max()))
    return Frame(**marks, labels=labels, x=(0, p.max_distance), y=padded(low, high))
