"""A2 · The bias matrix of head h, future keys masked."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from ...chart import KEY, Chart, Choices, Frame, Mark
from ...look import HIGHLIGHT, OKABE_ITO, plot_opts
from .shared import FORM_LABELS, bias_hover, drawn_bias, head_label

_KEY = hv.Dimension("key", label="key position j")
_QUERY = hv.Dimension("query", label="query position i")


def _outline(color: str, width: float) -> Mark:
    return Mark(
        hv.HSpans,
        ("y0", "y1"),
        choice="row",
        on_top=True,
        style={"fill_alpha": 0, "line_color": color, "line_width": width},
    )


class BiasMatrix(Chart):
    title = "A2 · The bias matrix of head h"
    caption = (
        "Row i is a query, column j a key; the colour is the number added to "
        "their attention score. With −m·(i − j) the diagonal is 0 and the penalty "
        "grows with distance (blue); with +m·j it grows to the right instead "
        "(red). Grey cells are future keys hidden by the causal mask. The outline "
        "marks the query row shown in A3. The colour scale follows the head."
    )
    formula = (
        r"$$\begin{gathered}\mathrm{score}_{ij} = \frac{q_i\cdot k_j}{\sqrt d}"
        r" + b_{ij} \\ \text{causal } (j\le i):\ \ b_{ij} = -m\,(i-j)\ \text{ or }"
        r"\ {+m\,j} \\ \text{symmetric:}\ \ b_{ij} = -m\,|i-j|\end{gathered}$$"
    )
    depends = ("heads", "seq_len", "mask", "form")
    marks = {  # noqa: RUF012
        "image": Mark(
            hv.Image,
            (_KEY, _QUERY),
            (hv.Dimension("bias", label="bias added to the score"),),
            choice="head",
            hover={"@image": bias_hover},
            style={
                "cmap": "RdBu_r",
                "clipping_colors": {"NaN": OKABE_ITO["grey"]},
                "colorbar": True,
                "tools": ["hover"],
                "hover_tooltips": [
                    ("query i", "$y{0}"),
                    ("key j", "$x{0}"),
                    ("bias", "@image{custom}"),
                ],
            },
        ),
        "outline_outer": _outline(HIGHLIGHT, 4),
        "outline_inner": _outline("#FFFFFF", 1.5),
    }
    options = plot_opts(height=340, invert_yaxis=True)
    readout_depends = ("heads", "head", "seq_len", "mask", "form")

    def frame(self, p: Any) -> Frame:
        def images(heads: np.ndarray) -> dict[str, Any]:
            column = np.empty(len(heads), dtype=object)
            column[:] = [drawn_bias(p.matrices(int(head)).bias) for head in heads]
            # The colour scale follows the head: ±its largest |bias| (1 for a flat matrix).
            limit = np.array([np.nanmax(np.abs(image)) for image in column])
            limit = limit + (limit == 0)
            edge, size = np.full(len(heads), -0.5), np.full(len(heads), float(p.seq_len))
            return {
                "image": column,
                "x": edge,
                "y": edge,
                "dw": size,
                "dh": size,
                "__low": -limit,
                "__high": limit,
                KEY: np.asarray(heads),
            }

        def outline(rows: np.ndarray) -> dict[str, Any]:
            return {"y0": rows - 0.5, "y1": rows + 0.5, KEY: rows}

        edge = (-0.5, p.seq_len - 0.5)
        rows = Choices(np.arange(p.seq_len), outline, version=(p.seq_len,))
        return Frame(
            image=Choices(
                np.arange(1, p.heads + 1),
                images,
                follow={"color_mapper.low": "__low", "color_mapper.high": "__high"},
            ),
            outline_outer=rows,
            outline_inner=rows,
            x=edge,
            y=edge,
        )

    def readout(self, p: Any) -> str:
        bias = p.matrices(p.head).bias
        masked = int(np.isinf(bias).sum())
        form = FORM_LABELS[p.form] if p.causal else "−m·|i − j|"
        where = (
            f"{masked:,} of {bias.size:,} cells are future keys, masked (grey): their "
            "score is −∞, so their weight is exactly 0."
            if p.causal
            else "Symmetric attention: no cell is masked; the bias is the same on both "
            "sides of the diagonal."
        )
        return f"<b>{head_label(p.heads, p.head)}</b>, bias {form}. {where}"
