"""A3 · Attention weights of row i when all content scores are 0: the same for both forms."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from ...chart import KEY, Chart, Choices, Frame, Mark
from ...look import OKABE_ITO, plot_opts
from ...marks import labels, layer, rule
from ...numbers import ROUNDING, difference, num
from .shared import FORM_LABELS, ROW_STRIDE, bias_hover, drawn_bias

_J = hv.Dimension("x0", label="key position j")
_W = hv.Dimension("y0", label="attention weight")
_PAIR = ("head", "row")
_STRIDES = (ROW_STRIDE, 1)
#: The marks of the selected (head, row) only.
_OF_ROW = {"choice": _PAIR, "strides": _STRIDES}


class Weights(Chart):
    title = "A3 · Attention weights of row i, content scores all 0"
    caption = (
        "If every content score q·k were equal, the bias alone would decide where "
        "query i looks: the weights fall off geometrically with distance, by a "
        "factor e<sup>−m</sup> per position. Switch the bias form: the matrix in "
        "A2 changes completely, these bars do not move at all — the two rows "
        "differ by the constant m·i, and softmax ignores a constant."
    )
    formula = (
        r"$$w_{ij} = \frac{e^{b_{ij}}}{\sum_{k\le i} e^{b_{ik}}},\qquad "
        r"\mathrm{softmax}(x + c) = \mathrm{softmax}(x)$$"
    )
    depends = ("heads", "seq_len", "mask", "form")
    marks = {  # noqa: RUF012
        # The query's own column, behind the bars.
        "query": rule("dashed", color=OKABE_ITO["grey"], **_OF_ROW),
        "masked": layer(
            hv.VSpans, ("x0", "x1"), color=OKABE_ITO["grey"], alpha=0.25, line_alpha=0, **_OF_ROW
        ),
        "bars": Mark(
            hv.Rectangles,
            (_J, _W, "x1", "y1"),
            ("j", "weight", "bias", "distance"),
            **_OF_ROW,
            hover={"@bias": bias_hover},
            style={
                "color": OKABE_ITO["blue"],
                "line_color": None,
                "tools": ["hover"],
                "hover_tooltips": [
                    ("key j", "@j"),
                    ("distance i − j", "@distance"),
                    ("bias", "@bias{custom}"),
                    ("weight", "@weight{0.000000}"),
                ],
            },
        ),
        "masked_label": labels(angle=90, **_OF_ROW),
    }
    # Stated: an overlay takes its axis titles from its first layer (the rule).
    options = plot_opts(height=300, xlabel=_J.label, ylabel=_W.label)
    y_tick_room = 48
    readout_depends = ("heads", "head", "seq_len", "row", "mask", "form")

    def frame(self, p: Any) -> Frame:
        n, causal, head_matrices = p.seq_len, p.causal, p.head_matrices()
        keys = (np.arange(1, p.heads + 1)[:, None] * ROW_STRIDE + np.arange(n)[None, :]).ravel()

        def weights_of(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            heads, rows = pairs // ROW_STRIDE, pairs % ROW_STRIDE
            weights, bias = np.empty((len(pairs), n)), np.empty((len(pairs), n))
            for head in np.unique(heads):  # one cache lookup per head, not per key
                at = heads == head
                matrices = head_matrices(int(head))
                weights[at], bias[at] = matrices.weights[rows[at]], matrices.bias[rows[at]]
            return rows, weights, bias

        def bars(pairs: np.ndarray) -> dict[str, Any]:
            rows, weights, bias = weights_of(pairs)
            j = np.tile(np.arange(n), len(pairs))
            return {
                "x0": j - 0.4,
                "y0": np.zeros(j.size),
                "x1": j + 0.4,
                "y1": weights.ravel(),
                "j": j,
                "weight": weights.ravel(),
                "bias": drawn_bias(bias).ravel(),
                "distance": (rows[:, None] - np.arange(n)[None, :]).ravel(),
                "__y_start": np.zeros(j.size),
                "__y_end": np.repeat(weights.max(axis=1) * 1.08, n),
                KEY: np.repeat(pairs, n),
            }

        def masked(pairs: np.ndarray, label: bool = False) -> dict[str, Any]:
            rows = pairs % ROW_STRIDE
            keep = rows < n - 1 if causal else np.zeros(len(rows), dtype=bool)
            if not label:
                return {
                    "x0": rows[keep] + 0.5,
                    "x1": np.full(keep.sum(), n - 0.5),
                    KEY: pairs[keep],
                }
            tops = weights_of(pairs[keep])[1].max(axis=1) if keep.any() else np.zeros(0)
            return {
                "x": (rows[keep] + n - 1) / 2 + 0.25,
                "y": tops * 0.55,
                "text": np.asarray(["masked: weight 0"] * int(keep.sum()), dtype=object),
                KEY: pairs[keep],
            }

        def query(pairs: np.ndarray) -> dict[str, Any]:
            return {"x": (pairs % ROW_STRIDE).astype(float), KEY: pairs}

        return Frame(
            query=Choices(keys, query),
            masked=Choices(keys, masked),
            bars=Choices(
                keys, bars, follow={"y_range.start": "__y_start", "y_range.end": "__y_end"}
            ),
            masked_label=Choices(keys, lambda pairs: masked(pairs, label=True)),
            x=(-0.7, n - 0.3),
        )

    def readout(self, p: Any) -> str:
        data = p.matrices(p.head)
        weights = data.weights[p.row]
        top = int(np.argmax(weights))
        own = f"The largest weight, {weights[top]:.4f}, goes to key j = {top}"
        own += " (the query itself)." if top == p.row else "."
        if not p.causal:
            return (
                f"<b>Row i = {p.row}</b>, symmetric −m·|i − j|: weights fall off on both "
                f"sides of the query. {own} The +m·j form does not exist here: it differs "
                "from −m·(i − j) by m·i only for keys j ≤ i, so it needs the causal mask."
            )
        other = p.matrices(p.head, "column" if p.form == "distance" else "distance")
        delta = float(np.max(np.abs(data.weights[p.row] - other.weights[p.row])))
        seen = slice(0, p.row + 1)
        shift = other.bias[p.row, seen] - data.bias[p.row, seen]
        spread = float(shift.max() - shift.min())
        same = "the same weights" if delta <= ROUNDING else "different weights"
        return (
            f"<b>Row i = {p.row}</b>: {same} from {FORM_LABELS['distance']} and "
            f"{FORM_LABELS['column']}, max |Δ| = <b>{difference(delta)}</b>. The two bias "
            f"rows differ by {num(abs(float(shift[0])))} on every visible key, with a spread "
            f"of {difference(spread)}: that is m·i, a constant for the whole row, and softmax "
            f"ignores a constant. {own}"
        )
