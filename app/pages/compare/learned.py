"""C1 · Learned table: one trained row per position below L, none from L on."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.learned import missing_positions

from ...chart import Frame, Mark
from ...look import OKABE_ITO, WARNING
from ...marks import labels, rule
from .shared import SMALL, SchemeChart, short_ticks


class Learned(SchemeChart, key="learned"):
    depends = ("trained_len", "target_len")
    marks = {  # noqa: RUF012
        "rows": Mark(
            hv.Rectangles,
            (hv.Dimension("x0", label="position t"), "y0", "x1", "y1"),
            ("what", "count"),
            fields={"fill_color": "tint"},
            style={
                "line_color": None,
                "xformatter": short_ticks,
                "tools": ["hover"],
                "hover_tooltips": [("positions", "@what"), ("count", "@count{0,0}")],
            },
        ),
        "edge": rule("dashed", 1.5),
        "rows_text": labels(("x", "y"), OKABE_ITO["blue"], "9pt", text_align="left"),
        "no_row_text": labels(("x", "y"), WARNING, "9pt", text_align="right"),
    }
    options = {**SMALL, "yaxis": None, "show_legend": False}  # noqa: RUF012

    def frame(self, p: Any) -> Frame:
        length, target = p.trained_len, p.target_len
        missing = missing_positions(length, target)
        end = float(max(target, length))
        return Frame(
            rows={
                "x0": np.array([0.0, float(length)]),
                "y0": np.zeros(2),
                "x1": np.array([float(length), end]),
                "y1": np.ones(2),
                "what": np.array(
                    [f"has a row (0 … {length - 1:,})", f"no row ({missing:,} positions)"]
                ),
                "count": np.array([length, missing]),
                "tint": np.array([OKABE_ITO["blue"], WARNING]),
            },
            edge={"x": [float(length)]},
            rows_text={"x": [0.0], "y": [1.3], "text": [" rows"]},
            # Empty when every position has a row (L′ = L).
            no_row_text={"x": [float(target)], "y": [1.3], "text": ["no row " if missing else ""]},
            x=(0.0, end),
            y=(0.0, 1.5),
        )
