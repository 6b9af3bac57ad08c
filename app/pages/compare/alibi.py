"""C4 · ALiBi: the shallowest head's bias against distance, at L and at L′: one line."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.alibi import alibi_bias_row, alibi_slopes

from ...chart import Frame, Mark, padded_data
from ...look import OKABE_ITO, WARNING
from ...marks import rule
from .shared import SMALL, SchemeChart, short_ticks

#: Points drawn per curve (drawing only).
SAMPLES = 160
_DELTA = hv.Dimension("delta", label="distance Δ = i − j")
_BIAS = hv.Dimension("bias", label="bias −m·Δ")


def _curve(color: str, **style: Any) -> Mark:
    return Mark(hv.Curve, (_DELTA,), (_BIAS,), style={"color": color, "tools": ["hover"], **style})


def bias_by_distance(slope: float, length: int) -> dict[str, np.ndarray]:
    """The last query's bias for the keys Δ = 0, 1, … back (SAMPLES of them) in an input
    of ``length`` tokens."""
    row = alibi_bias_row(slope, length - 1, length)[::-1]
    delta = np.unique(np.linspace(0, row.size - 1, SAMPLES).round().astype(int))
    return {"delta": delta, "bias": row[delta]}


class Alibi(SchemeChart, key="alibi"):
    depends = ("trained_len", "target_len", "heads")
    y_tick_room = 58
    marks = {  # noqa: RUF012
        "trained": _curve(OKABE_ITO["blue"], line_width=5, alpha=0.8, xformatter=short_ticks),
        "served": _curve(WARNING, line_width=2, line_dash="dashed"),
        "edge": rule("dotted", 1.2),
    }
    options = {  # noqa: RUF012
        **SMALL,
        "legend_position": "top_right",
        "legend_opts": {"label_text_font_size": "9pt"},
        "show_legend": True,
    }

    def frame(self, p: Any) -> Frame:
        shallow = float(alibi_slopes(p.heads).min())
        trained = bias_by_distance(shallow, p.trained_len)
        served = bias_by_distance(shallow, p.target_len)
        return Frame(
            trained=trained,
            served=served,
            edge={"x": [float(p.trained_len)]},
            labels={"trained": "query at L − 1", "served": "query at L′ − 1"},
            x=(0.0, float(max(trained["delta"][-1], served["delta"][-1]))),
            # As HoloViews pads a curve's data: 10 % above and below.
            y=padded_data(trained["bias"], served["bias"]),
        )
