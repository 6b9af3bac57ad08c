"""O2 · Does the layer see the word order? The pooled outputs compared, per variant."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.attention import order_similarity

from ...chart import Frame, Mark
from ...look import escape_text, plot_opts
from ...marks import labels
from .shared import (
    SEED_NOTE,
    VARIANT_COLORS,
    VARIANT_LABELS,
    VARIANTS,
    SentenceChart,
    similarity_text,
)

_COS = hv.Dimension("x0", label="cosine similarity of the averaged outputs")
_VARIANT = hv.Dimension("y0", label="position information")
_SENTENCES = ("sentence_a", "sentence_b")


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
        # A leading space keeps each value off its bar's end.
        "values": labels(size="12pt", text_align="left"),
    }
    options = plot_opts(height=320, invert_yaxis=True, show_legend=False)
    readout_depends = _SENTENCES

    def frame(self, p: Any) -> Frame:
        values = similarities(p)
        cos = np.asarray(list(values.values()))
        at = np.arange(len(cos), dtype=float)  # top to bottom (the y axis is inverted)
        names = [VARIANT_LABELS[key] for key in values]
        low = min(0.0, float(cos.min()))
        texts = [similarity_text(v) for v in cos]
        return Frame(
            bars={
                "x0": np.zeros(len(cos)),
                "y0": at - 0.4,
                "x1": cos,
                "y1": at + 0.4,
                "variant": names,
                "cos": cos,
                "tint": [VARIANT_COLORS[key] for key in values],
            },
            values={"x": cos, "y": at, "text": ["  " + text for text in texts]},
            # Room right of the bars for their values ("≈ 1 (0.99993)" is the longest).
            x=(low, 1.32 if max(map(len, texts)) <= 6 else 1.6),
            y=(-0.6, len(cos) - 0.4),
            x_ticks=[x / 5 for x in range(round(low * 5), 6)],
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
