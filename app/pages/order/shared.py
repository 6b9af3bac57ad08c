"""What the Order figures share: the four variants of the layer, the sentences, and
the picture of two sentences' rows side by side (O1 inputs, O3 outputs).

The figures draw the last sentences the core accepted (``sentence_a``,
``sentence_b``), which follow the text boxes ``a`` and ``b``: a refused edit
leaves every figure as it was. Typed words reach a figure only as Bokeh tick
labels, text glyphs and tooltips (plain text) or escaped (``escape_text``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import holoviews as hv
import numpy as np
from bokeh.models import CustomJSHover

from positional_core.attention import OrderLayer, match_rows, parse_sentence

from ...chart import Chart, Frame, Mark
from ...look import OKABE_ITO, plot_opts, text_color
from ...marks import image_columns
from ...numbers import similarity

__all__ = [
    "SEED_NOTE",
    "VARIANTS",
    "VARIANT_COLORS",
    "VARIANT_LABELS",
    "RowsChart",
    "SentenceChart",
    "row_marks",
    "row_options",
    "short",
    "similarity_text",
]

#: The four ways of (not) giving the layer positions: key → (scheme, causal).
VARIANTS: dict[str, tuple[str, bool]] = {
    "none": ("none", False),
    "sinusoidal": ("sinusoidal", False),
    "rope": ("rope", False),
    "causal": ("none", True),
}
VARIANT_LABELS = {
    "none": "no positions",
    "sinusoidal": "sinusoidal codes",
    "rope": "RoPE",
    "causal": "causal mask only",
}
VARIANT_COLORS = {
    "none": OKABE_ITO["grey"],
    "sinusoidal": OKABE_ITO["blue"],
    "rope": OKABE_ITO["vermillion"],
    "causal": OKABE_ITO["green"],
}
#: Longest word shown as a label in the pictures (drawing only).
WORD_CHARS = 14
#: Numbers per row (the layer's width), and the gap in cells between the two
#: sentences' matrices (room for the lines joining equal rows).
DIM = OrderLayer().d
LAYER_SEED = OrderLayer().seed
GAP = 7
OFFSET = DIM + GAP


#: Why the values differ from other explainers' (said where they are shown).
SEED_NOTE = (
    f"The layer's weights are random numbers drawn with a fixed seed ({LAYER_SEED}), so "
    "the exact values depend on that seed: other weights, as in another explainer, give "
    "other numbers, but not another conclusion (exactly 1 without positions, below 1 "
    "with them)."
)


def similarity_text(value: float) -> str:
    """Three decimals, as every similarity in the app (:func:`app.numbers.similarity`):
    a value 1 up to rounding, as a reordering gives with no positions, reads "1.000";
    one that is not 1 but would print so reads "≈ 1 (0.99993)"."""
    return similarity(value)


def short(word: str) -> str:
    return word if len(word) <= WORD_CHARS else word[: WORD_CHARS - 1] + "…"


class SentenceChart(Chart):
    """A figure drawn from the accepted sentences: its controls are the text boxes."""

    @classmethod
    def controls(cls) -> set[str]:
        return super().controls() | {"a", "b"}


def _dimension_hover(x0: float) -> Callable[[], CustomJSHover]:
    # The x axis runs on through the gap to B: B's first column is dimension 0 again.
    return lambda: CustomJSHover(code=f"return (value - {x0}).toFixed(0)")


def _image(name: str, x0: float, value: str) -> Mark:
    return Mark(
        hv.Image,
        ("x", "row"),
        (hv.Dimension("value", label=value),),
        hover={"$x": _dimension_hover(x0)},
        style={
            "cmap": "RdBu_r",
            "tools": ["hover"],
            "hover_tooltips": [
                ("sentence", name),
                ("row", "$y{0}"),
                ("dimension", "$x{custom}"),
                ("value", "@image{0.000}"),
            ],
        },
    )


def _text(**style: Any) -> Mark:
    return Mark(
        hv.Labels,
        ("x", "row"),
        ("word",),
        style={"text_font_size": "11pt", "text_color": text_color, "tools": [], **style},
    )


def row_marks(kind: str) -> dict[str, Mark]:
    """The marks of a :class:`RowsChart` of ``kind`` rows ("input" or "output")."""
    return {
        "a": _image("A", 0, f"{kind} value"),
        "b": _image("B", OFFSET, f"{kind} value"),
        "links": Mark(
            hv.Segments,
            ("x0", "y0", "x1", "y1"),
            style={"color": OKABE_ITO["green"], "line_width": 3, "tools": []},
        ),
        "words": _text(text_align="left"),
        "headline": _text(text_baseline="middle"),
    }


def row_options(kind: str) -> dict[str, Any]:
    return plot_opts(
        height=320, invert_yaxis=True, xlabel=f"{kind} dimension", ylabel="word of A (row)"
    )


class RowsChart(SentenceChart):
    """One row per word of A (left) and of B (right); a line joins two equal rows.
    Subclasses give :meth:`rows` and their ``marks = row_marks(kind)``."""

    depends: tuple[str, ...] = ("sentence_a", "sentence_b")

    def rows(self, p: Any) -> tuple[np.ndarray, np.ndarray]:
        """The two sentences' rows, ``(n_A, DIM)`` and ``(n_B, DIM)``."""
        raise NotImplementedError

    def frame(self, p: Any) -> Frame:
        words_a, words_b = parse_sentence(p.sentence_a), parse_sentence(p.sentence_b)
        rows_a, rows_b = self.rows(p)
        pairs = [(i, j) for i, j in enumerate(match_rows(rows_a, rows_b)) if j is not None]
        # One symmetric colour scale for both matrices.
        limit = float(max(np.abs(rows_a).max(), np.abs(rows_b).max())) or 1.0
        n = max(len(words_a), len(words_b))
        if pairs:
            status = f"{len(pairs)} of {len(words_a)} rows of A reappear in B"
        else:
            status = "no row of A reappears in B"
        ticks = [(x, str(x)) for x in range(0, DIM, 5)]
        return Frame(
            a=_matrix(rows_a, 0),
            b=_matrix(rows_b, OFFSET),
            links={
                "x0": np.full(len(pairs), DIM - 0.4),
                "y0": np.asarray([i for i, _ in pairs], dtype=float),
                "x1": np.full(len(pairs), OFFSET - 0.6),
                "y1": np.asarray([j for _, j in pairs], dtype=float),
            },
            words={
                "x": np.full(len(words_b), OFFSET + DIM + 0.2),
                "row": np.arange(len(words_b), dtype=float),
                "word": [short(w) for w in words_b],
            },
            headline={
                "x": np.asarray([DIM / 2 - 0.5, OFFSET + DIM / 2 - 0.5, DIM + GAP / 2 - 0.5]),
                "row": np.asarray([-1.1, -1.1, n + 0.2]),
                "word": ["A", "B", status],
            },
            scales={name: {"low": -limit, "high": limit} for name in ("a", "b")},
            x=(-0.5, OFFSET + DIM + 6),
            y=(-1.7, n + 0.7),
            x_ticks=ticks + [(OFFSET + x, label) for x, label in ticks],
            y_ticks=[(i, short(w)) for i, w in enumerate(words_a)],
        )


def _matrix(rows: np.ndarray, x0: float) -> dict[str, Any]:
    """Row i of ``rows`` at y = i, its columns from x0."""
    return image_columns(rows.astype(np.float32), x0 - 0.5, -0.5, rows.shape[1], rows.shape[0])
