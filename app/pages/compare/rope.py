"""C3 · RoPE: per pair, how far its angles at L′ go past its trained edge, per method."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.extension import band_excess, out_of_band

from ...chart import Frame, Mark, padded
from ...look import OKABE_ITO, WARNING, legend_outside, log_ticks
from ...marks import rule, span
from .shared import SMALL, SchemeChart
from .verdicts import rope_schedule

# Named after the pair: a figure whose axis shares a name with another figure's
# would be linked to it (C5's distance runs to L′).
_PAIR = hv.Dimension("pair", label="pair i (0 = fastest)")
_EXCESS = hv.Dimension("excess", label="angle at L′ / trained edge")
#: Per method (none: the trained speeds θ): legend label, colour, marker.
METHODS = {
    "none": ("none", WARNING, "circle"),
    "interpolation": ("interp.", OKABE_ITO["blue"], "square"),
    "NTK-aware": ("NTK", "#9A6700", "triangle"),
}


def _dots(method: str) -> Mark:
    _label, color, marker = METHODS[method]
    return Mark(
        hv.Scatter,
        (_PAIR,),
        (_EXCESS, "out", "method"),
        style={
            "color": color,
            "marker": marker,
            "size": 6,
            "alpha": 0.85,
            "tools": ["hover"],
            "hover_tooltips": [
                ("pair i", "@pair"),
                ("method", "@method"),
                ("θ′L′ / (θL)", "@excess{0.000}"),
                ("out of band", "@out"),
            ],
        },
    )


class Rope(SchemeChart, key="rope"):
    depends = ("trained_len", "target_len", "d", "base")
    y_tick_room = 43
    marks = {  # noqa: RUF012
        # The pairs that complete a turn within L (none: no span).
        "turned": span((_PAIR, "pair_end"), OKABE_ITO["grey"], 0.2),
        "edge": rule("dashed", 1.2, hv.HLines),
        **{f"dots_{i}": _dots(method) for i, method in enumerate(METHODS)},
    }
    options = {  # noqa: RUF012
        **SMALL,
        "logy": True,
        "xlabel": _PAIR.label,
        "ylabel": _EXCESS.label,
        "legend_cols": 3,
        **legend_outside("top", label_text_font_size="9pt", glyph_width=12, spacing=2),
        "show_legend": True,
    }
    question = (
        "With the current settings (at the start: d = 128, trained on L = 4,096 tokens, "
        "run on L′ = 16,384 with no change), how many of the d/2 RoPE pairs meet "
        "angles they never saw in training, and how many after position interpolation?"
    )
    answer_depends = depends

    def frame(self, p: Any) -> Frame:
        length, target, pairs = p.trained_len, p.target_len, p.d // 2
        sch = rope_schedule(length, target, p.d, p.base)
        dots = {}
        method_speeds = zip(METHODS, (sch.theta, sch.interpolated, sch.ntk), strict=True)
        for i, (method, speeds) in enumerate(method_speeds):
            flagged = out_of_band(sch.theta, length, target, speeds)
            dots[f"dots_{i}"] = {
                "pair": np.arange(pairs),
                "excess": band_excess(sch.theta, length, target, speeds),
                "out": np.where(flagged, "yes", "no"),
                "method": np.full(pairs, method),
            }
        every = np.concatenate([d["excess"] for d in dots.values()])
        low, high = float(every.min()), float(every.max())
        # Every ratio is 1 at L′ = L: a log axis padded around one value would
        # reach below 0. A factor of 2 each way then; else the data, padded.
        y = (low / 2, high * 2) if high < 1.5 * low else padded(low, high, log=True)
        turned = int((~sch.never).sum())
        return Frame(
            turned={"pair": [-0.5][:turned], "pair_end": [turned - 0.5][:turned]},
            edge={"y": [1.0]},
            **dots,
            labels={f"dots_{i}": label for i, (label, _c, _m) in enumerate(METHODS.values())},
            x=(-1.0, float(pairs)),
            y=y,
            y_ticks=log_ticks(*y),
        )

    def answer(self, p: Any) -> str:
        counts = rope_schedule(p.trained_len, p.target_len, p.d, p.base).counts
        return (
            f"d = {p.d}, base {p.base:,}, L = {p.trained_len:,} → L′ = "
            f"{p.target_len:,}: <b>{counts['none']} of {p.d // 2}</b> pairs meet angles "
            f"they never saw with no change, <b>{counts['linear']}</b> after position "
            f"interpolation and <b>{counts['ntk']}</b> with the NTK-aware base. "
            "Interpolation divides every speed by L′/L, so every pair ends exactly at its "
            "trained edge; the NTK base slows only the slowest pair by the full factor."
        )
