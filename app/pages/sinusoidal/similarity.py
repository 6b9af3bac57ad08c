"""S3 · PE(t)·PE(s) for every s: the bump moves with t and keeps its shape."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.sinusoidal import code_similarity, sinusoidal_code
from positional_core.views import shift_check

from ...chart import KEY, Chart, Choices, Frame, Mark, padded_data
from ...look import OKABE_ITO, legend_outside, plot_opts
from ...marks import rule
from ...numbers import difference, fixed

_S = hv.Dimension("s", label="position s")
_DOT = hv.Dimension("dot", label="PE(t)·PE(s)")
_MARK = OKABE_ITO["vermillion"]


class Similarity(Chart):
    title = "S3 · How alike are two positions' codes?"
    caption = (
        "The dot product of PE(t) with the code of every position s. It peaks at "
        "s = t (value d/2) and falls off with distance. Move t: the bump moves "
        "and keeps its shape, because the value depends only on s − t. That is "
        "because shifting by k is the same rotation M<sub>k</sub> for every t."
    )
    formula = (
        r"$$\begin{gathered}PE(t)\cdot PE(s) = \sum_{i=0}^{d/2-1}"
        r"\cos\big((s-t)\,\omega_i\big) \\"
        r"PE(t+k) = M_k\,PE(t),\quad M_k = \mathrm{diag}_i\begin{pmatrix}"
        r"\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i"
        r"\end{pmatrix}\end{gathered}$$"
    )
    depends = ("n", "d", "base")
    y_tick_room = 46
    # Everything moves with t, so everything sits on the overlay level (a move
    # of t repaints only that layer); the legend sits above the frame.
    marks = {  # noqa: RUF012
        "curve": Mark(
            hv.Curve,
            (_S,),
            (_DOT,),
            choice="t",
            on_top=True,
            style={"color": OKABE_ITO["blue"], "line_width": 2, "tools": ["hover"]},
        ),
        "mark": rule("dashed", color=_MARK, choice="t", on_top=True),
        "peak": Mark(
            hv.Points,
            (_S, _DOT),
            choice="t",
            on_top=True,
            style={"color": _MARK, "size": 9, "tools": []},
        ),
    }
    options = {**plot_opts(height=340), **legend_outside("top"), "show_legend": True}  # noqa: RUF012
    readout_depends = ("t", "k", "d", "base")
    question = (
        "Predict, then move t and watch the curve: what does PE(t)·PE(t + k) depend on: "
        "the position t, the offset k, or both? And how high is the peak PE(t)·PE(t)?"
    )
    answer_depends = ("t", "k", "d", "base")

    def frame(self, p: Any) -> Frame:
        n = p.n
        # PE(t)·PE(s) = Σ cos((s − t)·ωᵢ) depends on |s − t| only: one row of the
        # core's result over the distances 0 … n − 1, indexed for each t.
        by_distance = code_similarity(0, n, p.d, p.base)
        s = np.arange(n)

        def curve(keys: np.ndarray) -> dict[str, Any]:
            return {
                "s": np.tile(s, len(keys)),
                "dot": by_distance[np.abs(s[None, :] - keys[:, None])].ravel(),
                KEY: np.repeat(keys, n),
            }

        def peak(keys: np.ndarray) -> dict[str, Any]:
            return {"s": keys, "dot": np.full(len(keys), by_distance[0]), KEY: keys}

        def mark(keys: np.ndarray) -> dict[str, Any]:
            return {"x": keys.astype(float), KEY: keys}

        # Every t's curve is a window of one vector: by_distance mirrored,
        # mirrored[j] = by_distance[|j − (n − 1)|], t's curve from n − 1 − t.
        mirrored = np.concatenate([by_distance[:0:-1], by_distance])
        return Frame(
            curve=Choices(s, curve, window={"dot": (mirrored, n - 1, -1)}),
            mark=Choices(s, mark),
            peak=Choices(s, peak),
            x=(0, n - 1),
            # Every t's curve, 10 % above and below: the axes stay still as t moves.
            y=padded_data(by_distance),
            labels={"peak": "s = t"},
        )

    def readout(self, p: Any) -> str:
        residual = shift_check(p.t, p.k, p.d, p.base)
        return (
            f"<b>Shift check</b> for t = {p.t}, k = {p.k}: "
            f"max |PE(t+k) − M<sub>k</sub>·PE(t)| = <b>{difference(residual)}</b> "
            "(the same matrix M<sub>k</sub> works for every t)."
        )

    def answer(self, p: Any) -> str:
        starts = (0, p.t, 1000)
        dots = [
            float(sinusoidal_code(t, p.d, p.base) @ sinusoidal_code(t + p.k, p.d, p.base))
            for t in starts
        ]
        own = code_similarity(p.t, p.t + 1, p.d, p.base)[p.t]
        shown = ", ".join(f"t = {t:,}: {fixed(v, 4)}" for t, v in zip(starts, dots, strict=True))
        return (
            f"<b>Only on k.</b> With k = {p.k}: {shown} (largest difference "
            f"{difference(max(dots) - min(dots))}). Each (sin, cos) pair adds "
            f"cos(ω·k), whatever t is. The peak PE({p.t})·PE({p.t}) = <b>{own:.3f}</b> = d/2 "
            f"for d = {p.d}: each of the d/2 pairs adds sin² + cos² = 1."
        )
