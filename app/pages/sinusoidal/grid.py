"""S5 · Positions in 2-D: one patch's score with every patch of a 14 × 14 image grid."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.grid2d import grid_positions, patch_scores

from ...chart import Chart, Frame
from ...look import HIGHLIGHT, plot_opts
from ...marks import image_columns, layer, ring
from ...numbers import fixed

#: A 224 × 224 image in 16 × 16 patches (ViT-B/16): 14 × 14; a code of width 64.
SIDE, GRID_D = 14, 64
_COL = hv.Dimension("col", label="patch column")
_ROW = hv.Dimension("row", label="patch row")


def grid_scores(p: Any) -> np.ndarray:
    """The chosen patch's score with every patch (rows down the page)."""
    return patch_scores(p.grid_scheme, (p.patch_row, p.patch_col), SIDE, SIDE, GRID_D)


class Grid(Chart):
    title = "S5 · Positions in 2-D: a grid of image patches"
    caption = (
        "A vision transformer cuts an image into patches, here 14 × 14, and each needs "
        "a position. Colour: the score of the ringed patch with every patch (click a "
        "patch to ring it). With a 2-D "
        "sine–cosine code (half the dimensions for the column, half for the row, as MAE "
        "and DiT) or 2-D RoPE (half the pairs turned by the row, half by the column) the "
        "picture only moves when you move the patch: the score depends on (Δrow, Δcol). "
        "Number the patches in reading order and use a 1-D code instead, and the patch "
        "just below is 14 positions away, while the last patch of a row is the next "
        "one's neighbour."
    )
    formula = (
        r"$$\mathrm{PE}(r, c) = \big[\mathrm{PE}_{d/2}(c),\ \mathrm{PE}_{d/2}(r)\big],"
        r"\qquad \mathrm{PE}(r, c)\cdot\mathrm{PE}(r', c') = "
        r"\sum_k \cos\omega_k (c - c') + \sum_k \cos\omega_k (r - r')$$"
    )
    depends = ("grid_scheme", "patch_row", "patch_col")
    marks = {  # noqa: RUF012
        "image": layer(
            hv.Image,
            (_COL, _ROW),
            (hv.Dimension("score", label="score with the ringed patch"),),
            cmap="viridis",
            colorbar=True,
            tools=["hover"],
            hover_tooltips=[("row", "$y{0}"), ("column", "$x{0}"), ("score", "@image{0.000}")],
        ),
        "patch": ring(hv.Points, (_COL, _ROW), color=HIGHLIGHT),
    }
    options = plot_opts(height=380, invert_yaxis=True, xticks=[0, 4, 8, 13], yticks=[0, 4, 8, 13])
    readout_depends = depends
    question = (
        "Patches in reading order with a 1-D sinusoidal code: how many positions apart "
        "are a patch and the patch just below it, and a patch at the end of a row and "
        "the first patch of the next row?"
    )

    def frame(self, p: Any) -> Frame:
        scores = grid_scores(p).astype(np.float32)
        edge = (-0.5, SIDE - 0.5)
        return Frame(
            image=image_columns(scores, -0.5, -0.5, float(SIDE), float(SIDE)),
            patch={"col": [p.patch_col], "row": [p.patch_row]},
            scales={"image": {"low": float(scores.min()), "high": float(scores.max())}},
            x=edge,
            y=edge,
        )

    def tapped(self, p: Any, x: float, y: float) -> dict[str, Any]:
        col, row = round(x), round(y)
        if not (0 <= row < SIDE and 0 <= col < SIDE):
            return {}  # the margin beside the grid
        return {"patch_row": row, "patch_col": col}

    def readout(self, p: Any) -> str:
        scores = grid_scores(p)
        r, c = p.patch_row, p.patch_col
        near = []
        if c + 1 < SIDE:
            near.append(f"the next patch in its row <b>{fixed(scores[r, c + 1])}</b>")
        if r + 1 < SIDE:
            near.append(f"the patch below <b>{fixed(scores[r + 1, c])}</b>")
        named = " and ".join(near) or "no patch to its right or below"
        return (
            f"Patch (row {r}, column {c}) with itself: <b>{fixed(scores[r, c])}</b>; with {named}."
        )

    def answer(self, p: Any) -> str:
        order = {tuple(rc): i for i, rc in enumerate(grid_positions(SIDE, SIDE).tolist())}
        below = order[(1, 0)] - order[(0, 0)]
        wrap = order[(1, 0)] - order[(0, SIDE - 1)]
        return (
            f"<b>{below}</b> and <b>{wrap}</b>: the index of patch (r, c) is r·{SIDE} + c, so "
            f"the one below is {below} further, while the last of a row and the first of the "
            "next are neighbours. A 2-D code measures both axes instead."
        )
