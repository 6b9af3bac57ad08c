"""O2 · Does the layer see the word order? The pooled outputs compared, per variant."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.attention import order_similarity

from ...chart import Frame, Mark
from ...look import escape_text, ink_on, plot_background, plot_opts, text_color
from ...marks import labels
from .shared import (
    SEED_NOTE,
    VARIANT_COLORS,
    VARIANT_LABELS,
    VARIANTS,
    SentenceChart,
    similarity_text,
)

_COS = hv.Dimension("x0", label="cosine similarity of A and B")
_VARIANT = hv.Dimension("y0", label="position information")
_SENTENCES = ("sentence_a", "sentence_b")
#: A bar at least this long holds its value inside its end. The axis then ends
#: at 1 and the values need no room beyond it: on a phone the frame is 150 px
#: wide, and room in data units right of 1 was too little for "≈ 1 (0.99993)".
_INSIDE_FROM = 0.5


def similarities(p: Any) -> dict[str, float]:
    """The core's cosine similarity of the pooled outputs, per variant."""
    return {
        key: order_similarity(p.sentence_a, p.sentence_b, scheme, causal)
        for key, (scheme, causal) in VARIANTS.items()
    }


class Similarity(SentenceChart):
    title = "O2 · Does the layer see the word order?"
    caption = (
        "The attention layer turns each word into an output vector; averaging them "
        "gives one vector per sentence. The bars compare the two sentences' vectors. "
        "With no position information the similarity is exactly 1 whenever B reorders "
        "A's words. Sinusoidal codes, RoPE and even a causal mask alone (each word "
        "sees only earlier words) pull it below 1."
    )
    formula = (
        r"$$\begin{gathered}\bar o = \frac1n\sum_{i=1}^{n} \mathrm{softmax}\!\Big("
        r"\frac{q_i K^\top}{\sqrt d}\Big)V \\"
        r"\cos(\bar o_A, \bar o_B) = \frac{\bar o_A\cdot\bar o_B}"
        r"{\lVert\bar o_A\rVert\,\lVert\bar o_B\rVert}\end{gathered}$$"
    )
    depends = _SENTENCES
    # Horizontal bars on a numeric axis whose ticks name the variants (HoloViews'
    # categorical Bars with invert_axes turn the values' label positions into text).
    marks = {  # noqa: RUF012
        "bars": Mark(
            hv.Rectangles,
            (_COS, _VARIANT, "x1", "y1"),
            ("variant", "cos"),
            fields={"fill_color": "tint"},
            style={
                "line_color": "black",
                "tools": ["hover"],
                "hover_tooltips": [("variant", "@variant"), ("cosine", "@cos{0.000000}")],
            },
        ),
        # Spaces keep each value off its bar's end. Inside a bar, in black or
        # white, whichever reads on it.
        "values": labels(size="12pt", fields={"text_align": "align", "text_color": "ink"}),
    }
    options = plot_opts(height=320, invert_yaxis=True, show_legend=False)
    readout_depends = _SENTENCES

    def frame(self, p: Any) -> Frame:
        values = similarities(p)
        cos = np.asarray(list(values.values()))
        at = np.arange(len(cos), dtype=float)  # top to bottom (the y axis is inverted)
        names = [VARIANT_LABELS[key] for key in values]
        tints = [VARIANT_COLORS[key] for key in values]
        low = min(0.0, float(cos.min()))
        texts = [similarity_text(v) for v in cos]
        inside = cos >= _INSIDE_FROM
        background, ink = plot_background(), text_color()
        return Frame(
            bars={
                "x0": np.zeros(len(cos)),
                "y0": at - 0.4,
                "x1": cos,
                "y1": at + 0.4,
                "variant": names,
                "cos": cos,
                "tint": tints,
            },
            # A short or negative bar's value starts right of the zero line.
            values={
                "x": np.maximum(cos, 0.0),
                "y": at,
                "text": [f"{t}  " if i else f"  {t}" for t, i in zip(texts, inside, strict=True)],
                "align": np.where(inside, "right", "left"),
                "ink": [
                    ink_on(tint, 1.0, background) if i else ink
                    for tint, i in zip(tints, inside, strict=True)
                ],
            },
            x=(low, 1.02),
            y=(-0.6, len(cos) - 0.4),
            y_ticks=list(zip(at.tolist(), names, strict=True)),
        )

    def readout(self, p: Any) -> str:
        none = order_similarity(p.sentence_a, p.sentence_b, "none")
        a, b = escape_text(p.sentence_a, 80), escape_text(p.sentence_b, 80)
        if similarity_text(none) == "1.000":
            why = (
                "B uses the same words as A, so without positions the layer cannot tell "
                "them apart: the similarity is exactly 1."
            )
        else:
            why = (
                "B does not use the same words as A, so even without positions the "
                "outputs differ. Type the words of A in another order to see the effect."
            )
        return f"A = “{a}”, B = “{b}”. {why} {SEED_NOTE}"
