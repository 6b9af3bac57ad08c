"""T2 · Shaw et al.: offsets clipped to ±k, one learned vector per clipped offset."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np
from holoviews.plotting.util import process_cmap

from positional_core.relative import shaw_clipped_distance, shaw_relative_index

from ...chart import Chart, Frame, Mark
from ...look import HIGHLIGHT, plot_opts
from ...marks import KEY_DIM, QUERY_DIM, image_columns, square_image

#: One colour per clipped offset.
_CMAP = "PuOr_r"


def _outline(color: str, width: float) -> Mark:
    return Mark(
        hv.Path, (KEY_DIM, QUERY_DIM), style={"color": color, "line_width": width, "tools": []}
    )


def _staircases(n: int, k: int) -> dict[str, list[np.ndarray]]:
    """The two staircases past which offsets are clipped (none when nothing is)."""
    if not 1 <= k <= n - 1:
        return {"xs": [], "ys": []}
    rows = np.arange(n - k)
    # Drawing only: the boundary left of column j = i + k in each row i.
    xs = np.repeat(rows + k - 0.5, 2).astype(float)
    ys = np.column_stack([rows - 0.5, rows + 0.5]).ravel().astype(float)
    return {"xs": [xs, ys], "ys": [ys, xs]}


class Shaw(Chart):
    title = "T2 · Shaw et al.: offsets clipped to ±k"
    caption = (
        "Shaw, Uszkoreit and Vaswani (2018) learn one vector per offset, added "
        "to the key in the score (and to the value). Offsets are clipped to −k … "
        "k, so there are only 2k + 1 vectors whatever the length: every key k "
        "or more positions away on one side shares one vector (the flat corners "
        "past the outlines). Hover for the vector a pair uses."
    )
    formula = (
        r"$$\begin{gathered}\mathrm{score}_{ij} = \frac{q_i\cdot\big(k_j + "
        r"w^K_{\mathrm{clip}(j-i,\,-k,\,k)}\big)}{\sqrt d} \\"
        r"\mathrm{clip}(x, -k, k) = \max(-k, \min(k, x))\end{gathered}$$"
    )
    depends = ("clip_k", "shaw_len")
    marks = {  # noqa: RUF012
        "image": square_image(
            (hv.Dimension("clipped", label="clipped offset clip(j − i, −k, k)"), "index"),
            [("clipped offset", "@image{0}"), ("vector used", "w[@index]")],
            cmap=_CMAP,
        ),
        # Staircases between offsets ±(k − 1) and ±k: a dark line under a white core.
        "halo": _outline(HIGHLIGHT, 4),
        "core": _outline("#FFFFFF", 1.5),
    }
    options = plot_opts(height=340, invert_yaxis=True)
    readout_depends = depends

    def frame(self, p: Any) -> Frame:
        n, k = p.shaw_len, p.clip_k
        limit = max(k, 1)
        image = image_columns(
            shaw_clipped_distance(n, n, k).astype(np.float32), -0.5, -0.5, float(n), float(n)
        )
        image["index"] = [shaw_relative_index(n, n, k).astype(np.int32)]
        edge = (-0.5, n - 0.5)
        lines = _staircases(n, k)
        return Frame(
            image=image,
            halo=lines,
            core=lines,
            # One colour per clipped offset −k … k, as HoloViews samples the map.
            scales={
                "image": {
                    "palette": process_cmap(_CMAP, 2 * limit + 1, categorical=False),
                    "low": -limit - 0.5,
                    "high": limit + 0.5,
                }
            },
            x=edge,
            y=edge,
        )

    def readout(self, p: Any) -> str:
        n, k = p.shaw_len, p.clip_k
        vectors = 2 * k + 1
        if k == 0:
            return (
                "<b>k = 0</b>: every pair uses the same vector w[0] — no position information "
                "at all."
            )
        clipped = shaw_clipped_distance(n, n, k)
        ends = int(np.sum(np.abs(clipped) == k))
        used = len(np.unique(shaw_relative_index(n, n, k)))
        if k >= n - 1:
            return (
                f"<b>k = {k}</b>: {vectors} vectors w[0] … w[{vectors - 1}], {used} of them "
                f"used at length {n}. No offset here is farther than k, so nothing is clipped "
                "yet: make the sequence longer than k + 1."
            )
        return (
            f"<b>k = {k}</b>: {vectors} learned vectors w[0] … w[{vectors - 1}], whatever the "
            f"length. Of the {n * n:,} (query, key) pairs, <b>{ends:,}</b> are k or more "
            f"apart and use one of the two end vectors, w[0] (offset ≤ −{k}) or "
            f"w[{vectors - 1}] (offset ≥ +{k}): the outlines mark where the sharing starts."
        )
