"""R3 · Long-range decay: the RoFormer bound on the score against distance."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.rope import rope_decay_bound

from ...chart import Chart, Frame, Mark, padded_data
from ...look import OKABE_ITO, plot_opts

__all__ = ["Decay"]

_DISTANCE = hv.Dimension("distance", label="relative distance |m − n| (positions)")
_BOUND = hv.Dimension("bound", label="bound factor (1/(d/2)) Σⱼ|Sⱼ|")


class Decay(Chart):
    title = "R3 · Long-range decay: the RoFormer bound"
    caption = (
        "Su et al. bound the score of any query and key by a content factor times "
        "this curve, which shrinks as the two tokens move apart: RoPE builds in a "
        "mild preference for nearby tokens. The wiggles come from the fast pairs; "
        "a larger base makes the decay slower."
    )
    formula = (
        r"$$\begin{gathered}\Big|\sum_{j} h_j e^{i\Delta\theta_j}\Big| \le "
        r"\big(\max_j |h_{j+1}-h_j|\big) \sum_{j=1}^{d/2} |S_j| \\"
        r"S_j = \sum_{k=0}^{j-1} e^{i\Delta\theta_k},\qquad \text{curve: }"
        r"\frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|\end{gathered}$$"
    )
    depends = ("d", "base", "max_distance")
    marks = {  # noqa: RUF012
        "bound": Mark(
            hv.Curve,
            (_DISTANCE,),
            (_BOUND,),
            style={
                "color": OKABE_ITO["vermillion"],
                "line_width": 2.5,
                "tools": ["hover"],
                "hover_tooltips": [("distance", "@distance"), ("bound", "@bound{0.000}")],
            },
            thin=True,
        )
    }
    options = plot_opts(height=320)
    readout_depends = depends

    def frame(self, p: Any) -> Frame:
        delta = np.arange(p.max_distance + 1)
        bound = rope_decay_bound(p.d, p.base, delta)
        # As HoloViews pads a curve: 10 % above and below, none along the distance.
        return Frame(
            bound={"distance": delta, "bound": bound},
            x=(0, p.max_distance),
            y=padded_data(bound),
        )

    def readout(self, p: Any) -> str:
        ends = rope_decay_bound(p.d, p.base, [0, p.max_distance])
        return (
            f"At distance 0 the factor is {ends[0]:.2f} = (d/2 + 1)/2; at {p.max_distance:,} "
            f"it is {ends[1]:.2f}. A bound, not the score itself: nearby keys <em>can</em> "
            "score higher, far ones are only mildly held back."
        )
