"""R6 · Which dimensions turn together: interleaved (2i, 2i+1) or half-split (i, i + d/2)."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.rope import pair_indices

from ...chart import Chart, Frame, Mark, Scale
from ...look import hands_palette, hands_scale, ink_on, plot_background, plot_opts, text_color

__all__ = ["DIAGRAM_DIM", "Layouts"]

#: Dimensions drawn in the pairing diagram: enough to see both patterns, few
#: enough that squares with 12 px numbers fit side by side on a phone.
DIAGRAM_DIM = 8
_ROWS = {"interleaved": 1.0, "half-split": 0.0}
_SCALE = Scale("pair", tuple(hands_palette(2)))
#: Points per arc (an arc is drawn as short straight pieces, all in one source).
_ARC = np.linspace(0, 1, 17)


class Layouts(Chart):
    title = "R6 · Which dimensions turn together"
    caption = (
        "Each square is a dimension of q (and k); an arc joins the two dimensions "
        "that rotate together, coloured from the fastest pair to the slowest. "
        "Interleaved layouts pair neighbours; half-split layouts pair dimension i "
        "with i + d/2. The layout in use is drawn solid."
    )
    formula = (
        r"$$\text{interleaved: }(x_{2i}, x_{2i+1})\qquad"
        r"\text{half-split: }(x_i, x_{i+d/2})$$"
    )
    depends = ("d", "layout")
    marks = {  # noqa: RUF012
        "arcs": Mark(
            hv.Segments,
            ("dim", "row", "dim_end", "row_end"),
            fields={"color": _SCALE, "alpha": "alpha"},
            style={"line_width": 2.5},
        ),
        "cells": Mark(
            hv.Points,
            ("dim", "row"),
            ("pair", "layout", "partner", "alpha"),
            fields={"fill_color": _SCALE, "alpha": "alpha"},
            style={
                "marker": "square",
                "size": 24,
                "line_color": text_color,
                "tools": ["hover"],
                "hover_tooltips": [
                    ("layout", "@layout"),
                    ("dimension", "@dim"),
                    ("turns with", "@partner"),
                    ("pair i", "@pair"),
                ],
            },
        ),
        # Each number in black or white, whichever reads on its square.
        "numbers": Mark(
            hv.Labels,
            ("dim", "row"),
            ("text",),
            fields={"text_color": "ink"},
            style={"text_font_size": "9pt", "text_font_style": "bold"},
        ),
    }
    options = plot_opts(
        height=260,
        yticks=[(0.0, "half-split"), (1.0, "interleaved")],
        ylabel="layout",
        show_legend=False,
    )
    readout_depends = depends

    def frame(self, p: Any) -> Frame:
        shown = min(p.d, DIAGRAM_DIM)
        arcs: dict[str, list] = {k: [] for k in ("dim", "row", "dim_end", "row_end", "pair")}
        arcs["alpha"] = []
        cells: dict[str, list] = {k: [] for k in ("dim", "row", "pair", "layout", "partner")}
        cells["alpha"] = []
        for layout, y in _ROWS.items():
            faded = 1.0 if layout == p.layout else 0.3
            for i, (a, b) in enumerate(pair_indices(shown, layout).tolist()):
                # An arc from dimension a to dimension b, higher for farther partners.
                x = a + (b - a) * _ARC
                lift = y + 0.15 + (0.08 + 0.05 * (b - a)) * 4 * _ARC * (1 - _ARC)
                for key, part in (
                    ("dim", x[:-1]),
                    ("dim_end", x[1:]),
                    ("row", lift[:-1]),
                    ("row_end", lift[1:]),
                    ("pair", np.full(_ARC.size - 1, i)),
                    ("alpha", np.full(_ARC.size - 1, faded)),
                ):
                    arcs[key].append(part)
                for dim, partner in ((a, b), (b, a)):
                    for key, value in zip(cells, (dim, y, i, layout, partner, faded), strict=True):
                        cells[key].append(value)
        scale = hands_scale(max(shown // 2, 2))
        background = plot_background()
        ink = [
            ink_on(scale["palette"][pair], alpha, background)
            for pair, alpha in zip(cells["pair"], cells["alpha"], strict=True)
        ]
        return Frame(
            arcs={k: np.concatenate(v) for k, v in arcs.items()},
            cells={k: np.asarray(v) for k, v in cells.items()},
            numbers={
                "dim": np.asarray(cells["dim"]),
                "row": np.asarray(cells["row"]),
                "text": [str(dim) for dim in cells["dim"]],
                "ink": ink,
            },
            scales={"arcs": scale, "cells": scale},
            x=(-0.8, shown - 0.2),
            y=(-0.45, 1.75),
            x_label=f"dimension of q and k (first {shown} of d = {p.d})"
            if shown < p.d
            else "dimension of q and k",
        )

    def readout(self, p: Any) -> str:
        rule = "(2i, 2i + 1)" if p.layout == "interleaved" else f"(i, i + {p.d // 2})"
        first = ", ".join(f"({a}, {b})" for a, b in pair_indices(p.d, p.layout)[:3].tolist())
        return (
            f"In use: <b>{p.layout}</b>, pair i = dimensions {rule}: {first}, … "
            f"for d = {p.d}. Same numbers, same rotation speeds; only the bookkeeping differs."
        )
