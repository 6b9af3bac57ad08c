"""T3 · NoPE: the causal mask alone gives query i the weight 1/(i + 1) on each key."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np
import panel as pn

from positional_core.attention import ORDER_PAIR, order_similarity
from positional_core.relative import nope_row_weight

from ...chart import Chart, Frame, Mark
from ...look import OKABE_ITO, plot_opts, text_color
from ...numbers import num, sci, similarity

_I = hv.Dimension("i", label="query position i")
_W = hv.Dimension("weight", label="weight on each visible key")


def _curve(vdims: tuple, **style: Any) -> Mark:
    return Mark(hv.Curve, (_I,), vdims, style={**style, "tools": []})


def order_bars() -> pn.Column:
    """The Order page's similarities for its default pair (fixed: drawn once)."""
    a, b = ORDER_PAIR
    rows = [
        ("no positions", order_similarity(a, b, "none", causal=False), OKABE_ITO["grey"]),
        ("causal mask only", order_similarity(a, b, "none", causal=True), OKABE_ITO["green"]),
    ]
    kdim = hv.Dimension("variant", label=" ")
    vdim = hv.Dimension("cos", label="cosine similarity of the averaged outputs")
    bars = hv.Bars(rows, kdim, [vdim, "tint"]).opts(
        color="tint",  # literal colours, one per bar
        invert_axes=True,
        invert_yaxis=True,
        tools=["hover"],
        hover_tooltips=[("variant", "@variant"), ("cosine", "@cos{0.000000}")],
        ylim=(0, 1.3),
        xticks=[0, 0.2, 0.4, 0.6, 0.8, 1.0],
        show_legend=False,
    )
    labels = hv.Labels(
        [(name, value, f"  {similarity(value)}") for name, value, _ in rows], [kdim, vdim], "text"
    ).opts(invert_axes=True, text_align="left", text_font_size="11pt", text_color=text_color())
    plot = pn.pane.HoloViews(
        (bars * labels).opts(
            hv.opts.Overlay(
                **plot_opts(height=140, toolbar=None, fontscale=0.95), shared_axes=False
            )
        ),
        sizing_mode="stretch_width",
        margin=(0, 10),
    )
    head = pn.pane.HTML(
        f"<b>Beside it, the Order page</b>: “{a}” against “{b}” through one attention "
        "layer, cosine similarity of the averaged outputs. The layer's weights are random "
        "with a fixed seed: other weights give other values, not another conclusion.",
        sizing_mode="stretch_width",
        margin=(6, 10, 0, 10),
    )
    return pn.Column(head, plot, sizing_mode="stretch_width", margin=0)


class Nope(Chart):
    title = "T3 · NoPE: the causal mask alone"
    caption = (
        "With no position encoding and equal scores, causal query i spreads its "
        "attention evenly over the i + 1 keys it may see: 1/(i + 1) each "
        "(green). That number depends on i, so a decoder can recover its "
        "position from the mask alone; without the mask every row is 1/T "
        "(dashed). It is a weak, implicit position signal, not an encoding — "
        "on the Order page the causal mask alone also pulls the similarity "
        "below 1 (bars below)."
    )
    formula = (
        r"$$w_{ij} = \frac{e^{s}}{\sum_{k\le i} e^{s}} = \frac{1}{i+1}"
        r"\quad (j \le i),\qquad w_{ij} = 0\quad (j > i)$$"
    )
    depends = ("nope_len",)
    marks = {  # noqa: RUF012
        "flat": _curve((_W,), color=OKABE_ITO["grey"], line_dash="dashed", line_width=2),
        "curve": _curve((_W, "keys"), color=OKABE_ITO["green"], line_width=2.5),
        "points": Mark(
            hv.Scatter,
            (_I,),
            (_W, "keys"),
            style={
                "color": OKABE_ITO["green"],
                "size": 6,
                "tools": ["hover"],
                "hover_tooltips": [
                    ("query i", "@i"),
                    ("visible keys", "@keys"),
                    ("weight on each", "@weight{0.000000}"),
                ],
            },
        ),
    }
    options = plot_opts(height=300, legend_position="top_right", show_legend=True)
    readout_depends = depends

    def frame(self, p: Any) -> Frame:
        n = p.nope_len
        weights = nope_row_weight(n)
        i = np.arange(n)
        points = {"i": i, "weight": weights, "keys": i + 1}
        # Without the mask every query sees all T keys: 1/T in every row. The same
        # number is the core's weight of the last causal row.
        flat = float(weights[-1])
        return Frame(
            flat={"i": np.array([0, n - 1]), "weight": np.array([flat, flat])},
            curve=points,
            points=points,
            labels={"flat": "no mask: 1/T everywhere", "curve": "causal mask: 1/(i + 1)"},
            props={"points": {"size": 6 if n <= 64 else 3}},
            x=(-0.5, n - 0.5),
            y=(0, 1.08),
        )

    def readout(self, p: Any) -> str:
        n = p.nope_len
        weights = nope_row_weight(n)
        far = min(100, n - 2)
        gap = float(weights[far] - weights[far + 1])
        return (
            f"Query 0 gives its only key weight <b>{num(float(weights[0]), 3)}</b>; query "
            f"{n - 1:,} gives each of its {n:,} keys <b>{sci(float(weights[-1]), 3)}</b>, the "
            f"1/T that every query gives every key without the mask (T = {n:,}). A "
            "feature carried only by the first token (such as a start token) reaches query "
            f"i with strength 1/(i + 1), so a layer can read i from it. But from query "
            f"{far:,} to {far + 1:,} that strength changes by only <b>{sci(gap, 2)}</b>: the "
            "signal fades like 1/i²."
        )

    def extras(self, p: Any) -> list[Any]:
        return [order_bars()]
