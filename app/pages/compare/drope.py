"""C6 · DroPE: RoPE removed after training; what is left is the causal mask's 1/(i + 1)."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.relative import causal_weight

from ...chart import Frame, Mark, padded
from ...look import OKABE_ITO, WARNING, log_ticks
from ...marks import rule
from ...numbers import sci
from .shared import SMALL, SchemeChart, short_ticks
from .verdicts import drope_counts

#: Query positions drawn per curve, evenly spaced on the log axis (drawing only).
SAMPLES = 120
# Named after the keys a query sees: C4's and C5's axes are distances, and a
# figure sharing a dimension name with another would be linked to it.
_KEYS = hv.Dimension("visible", label="keys query i sees (i + 1)")
_WEIGHT = hv.Dimension("weight", label="weight on each key")


def _curve(color: str, **style: Any) -> Mark:
    return Mark(
        hv.Curve,
        (_KEYS,),
        (_WEIGHT,),
        style={
            "color": color,
            "tools": ["hover"],
            "hover_tooltips": [("query i", "@i{0,0}"), ("weight on each key", "@weight{0.000e}")],
            **style,
        },
    )


def weights_between(first: int, last: int) -> dict[str, np.ndarray]:
    """The causal weight of queries ``first … last``, at SAMPLES of them."""
    i = np.unique(np.geomspace(first + 1, last + 1, SAMPLES).round().astype(np.int64) - 1)
    return {"visible": i + 1, "weight": causal_weight(i), "i": i}


class Drope(SchemeChart, key="drope"):
    depends = ("trained_len", "target_len")
    marks = {  # noqa: RUF012
        "trained": _curve(OKABE_ITO["blue"], line_width=5, alpha=0.8, xformatter=short_ticks),
        "served": _curve(WARNING, line_width=2, line_dash="dashed"),
        "edge": rule("dotted", 1.2),
    }
    options = {  # noqa: RUF012
        **SMALL,
        "logx": True,
        "logy": True,
        "legend_position": "top_right",
        "legend_opts": {"label_text_font_size": "9pt"},
        "show_legend": True,
    }
    question = (
        "Llama 2's head (d = 128) was trained on L = 4,096 tokens. Run it on 16,384 with "
        "its rotations, then after DroPE: how many of its 64 pairs leave their band each "
        "time, and what position signal is left after DroPE?"
    )
    answer_depends = ("trained_len", "target_len", "d", "base")

    def frame(self, p: Any) -> Frame:
        length, target = p.trained_len, p.target_len
        trained = weights_between(0, length - 1)
        served = weights_between(length - 1, target - 1)
        x = padded(1.0, float(target), log=True)
        y = padded(float(causal_weight([target - 1])[0]), 1.0, log=True)
        return Frame(
            trained=trained,
            served=served,
            edge={"x": [float(length)]},
            labels={"trained": "queries before L", "served": "queries L … L′ − 1"},
            x=x,
            y=y,
            y_ticks=log_ticks(*y),
        )

    def answer(self, p: Any) -> str:
        pairs = p.d // 2
        before, after = drope_counts(p.trained_len, p.target_len, p.d, p.base)
        last = float(causal_weight([p.target_len - 1])[0])
        return (
            f"d = {p.d}, base {p.base:,}, L = {p.trained_len:,} → L′ = {p.target_len:,}: "
            f"with its rotations <b>{before} of {pairs}</b> pairs leave their band; after "
            f"DroPE <b>{after}</b>, since no pair turns at all. What is left is the causal "
            f"mask: query i spreads its weight over the i + 1 keys it sees, 1/(i + 1) each "
            f"(the NoPE figure on the Relative page), down to {sci(last)} at L′ − 1."
        )
