"""A2 · The bias matrix of head h, future keys masked."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from ...chart import KEY, Chart, Choices, Frame
from ...look import OKABE_ITO, plot_opts
from ...marks import image_stack, outline_rows, row_outline, square_image
from .shared import FORM_LABELS, bias_hover, drawn_bias, head_label


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
    y_tick_room = 50
    marks = {  # noqa: RUF012
        "image": square_image(
            (hv.Dimension("bias", label="bias added to the score"),),
            [("bias", "@image{custom}")],
            {"@image": bias_hover},
            offset=False,
            choice="head",
            cmap="RdBu_r",
            clipping_colors={"NaN": OKABE_ITO["grey"]},
        ),
        # Black on a white halo: the halo parts it from the dark cells and the grey
        # mask, the black line from the pale cells near 0, in either theme.
        **row_outline("outline", "row", "#000000", width=3.5),
    }
    options = plot_opts(height=340, invert_yaxis=True)
    readout_depends = ("heads", "head", "seq_len", "mask", "form")

    def frame(self, p: Any) -> Frame:
        matrices, n = p.head_matrices(), p.seq_len

        def images(heads: np.ndarray) -> dict[str, Any]:
            biases = [drawn_bias(matrices(int(head)).bias) for head in heads]
            # The colour scale follows the head: ±its largest |bias| (1 for a flat matrix).
            limit = np.array([np.nanmax(np.abs(bias)) for bias in biases])
            limit = limit + (limit == 0)
            return {
                **image_stack(biases, -0.5, -0.5, n, n),
                "__low": -limit,
                "__high": limit,
                KEY: np.asarray(heads),
            }

        edge = (-0.5, p.seq_len - 0.5)
        rows = Choices(np.arange(p.seq_len), outline_rows, version=(p.seq_len,))
        return Frame(
            image=Choices(
                np.arange(1, p.heads + 1),
                images,
                follow={"color_mapper.low": "__low", "color_mapper.high": "__high"},
            ),
            outline_halo=rows,
            outline_line=rows,
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
