"""T1b · One head's bias matrix: each cell is the head's bias of the bucket of j − i."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.attention import causal_mask
from positional_core.relative import t5_bias_matrix, t5_random_bucket_biases, t5_relative_bucket

from ...chart import KEY, Chart, Choices, Frame
from ...look import plot_opts
from ...marks import image_stack, js_hover, object_column, square_image
from ...numbers import sci
from .shared import BIAS_SEED, regions, t5_settings

#: The bucket index of a cell the causal mask hides: past every bucket the page
#: allows (num_buckets ≤ 128). Each head's table has NaN there, drawn grey.
MASKED = 128
_MASKED_COLOR = "rgba(140, 140, 140, 0.55)"


def bias_table(p: Any) -> np.ndarray:
    """The illustrative (num_buckets, heads) table (seeded; real values are learned)."""
    return t5_random_bucket_biases(p.num_buckets, p.heads, seed=BIAS_SEED)


#: A masked cell's bucket is 0, like the query's own; its score is −∞ (bias NaN here).
#: (Bokeh shows a NaN value as "NaN" without calling a formatter.)
_bucket_hover = js_hover(f"return value >= {MASKED} ? '0 (masked: score −∞)' : value.toFixed(0)")


class BiasMatrix(Chart):
    title = "T1b · One head's bias matrix (illustrative — real values are learned)"
    caption = (
        "Each head has a table of one bias per bucket; entry (i, j) of its "
        "matrix is the bias of the bucket of j − i, added to the attention "
        "score. The numbers here are seeded random draws (real T5 biases are "
        "learned), but the pattern is T5's: constant along every diagonal, "
        "fine-grained near it, and one flat colour far from it. Hover: offset → "
        "bucket → bias."
    )
    formula = (
        r"$$\mathrm{score}_{ij} = q_i\cdot k_j + \beta^{(h)}_{\,b(j-i)},"
        r"\qquad \beta^{(h)}\in\mathbb{R}^{N}\ \text{learned per head}$$"
    )
    depends = ("num_buckets", "max_distance", "mode", "heads", "bias_len")
    marks = {  # noqa: RUF012
        "image": square_image(
            (hv.Dimension("bias", label="bias added to the score"), "bucket"),
            [("bucket", "@{bucket}{custom}"), ("bias (illustrative)", "@image{0.000}")],
            # HoloViews writes "@bucket" as "@{bucket}" in the tooltips.
            hover={"@{bucket}": _bucket_hover},
            choice="head",
            cmap="RdBu_r",
            clipping_colors={"NaN": _MASKED_COLOR},
        ),
    }
    options = plot_opts(height=340, invert_yaxis=True)
    readout_depends = ("num_buckets", "max_distance", "mode", "heads", "head", "bias_len")

    def frame(self, p: Any) -> Frame:
        n, table = p.bias_len, bias_table(p)
        # The browser draws a head as its table looked up at every cell's bucket:
        # T5's compute_bias is that lookup (t5_bias_matrix agrees, see the tests).
        buckets = t5_bias_matrix(np.arange(p.num_buckets, dtype=float), n, n, **t5_settings(p))
        cells = buckets.astype(np.uint8)
        if p.mode != "bidirectional":
            cells[~causal_mask(n)] = MASKED
        padded = np.full((MASKED + 1, p.heads), np.nan, dtype=np.float32)
        padded[: p.num_buckets] = table
        limits = np.abs(table).max(axis=0)
        limits[limits == 0] = 1.0

        def rows(heads: np.ndarray) -> dict[str, Any]:
            return {
                **image_stack([cells] * len(heads), -0.5, -0.5, n, n, name="bucket"),
                "__table": object_column([padded[:, h - 1] for h in heads]),
                "__low": -limits[heads - 1],
                "__high": limits[heads - 1],
                KEY: np.asarray(heads),
            }

        edge = (-0.5, n - 0.5)
        return Frame(
            image=Choices(
                np.arange(1, p.heads + 1),
                rows,
                follow={"color_mapper.low": "__low", "color_mapper.high": "__high"},
                gather={"image": ("bucket", "__table")},
            ),
            x=edge,
            y=edge,
        )

    def readout(self, p: Any) -> str:
        column, start, n = bias_table(p)[:, p.head - 1], regions(p).last_bucket_start, p.bias_len
        last = int(t5_relative_bucket(-start, **t5_settings(p)))
        far = (
            f"Keys {start:,} or more positions before the query all get "
            f"bucket {last}'s bias, {sci(float(column[last]), 2)}: past that distance this "
            "head cannot tell them apart."
            if start < n
            else f"At n = {n:,} no key is far enough ({start:,}) to reach "
            "the shared last bucket; make n larger."
        )
        mask = (
            " Grey: future keys. They land in bucket 0, but the causal mask hides them."
            if p.mode != "bidirectional"
            else ""
        )
        return (
            f"<b>Head {p.head} of {p.heads}</b>: {p.num_buckets} biases, one per "
            f"bucket, from a seeded random table (seed {BIAS_SEED}) — "
            f"<b>illustrative: real values are learned</b>. Every diagonal j − i = const has "
            f"one colour: the bias depends on the offset only. {far}{mask}"
        )
