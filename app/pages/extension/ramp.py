"""YaRN's ramp: how far each pair is interpolated (shown with the YaRN method)."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.rope_scaling import yarn_correction_range, yarn_ramp

from ...chart import Chart, Frame, Mark
from ...look import OKABE_ITO, plot_opts
from .shared import PAIR

_RAMP = hv.Dimension("ramp", label="ramp rᵢ")


class Ramp(Chart):
    title = "E3 · YaRN's ramp"
    caption = (
        "YaRN's ramp r<sub>i</sub>: 0 keeps pair i, 1 divides it by s. Pairs that turn "
        "more than beta_fast times within L keep their speed, pairs that turn fewer "
        "than beta_slow times are divided by s, and the pairs between are blended."
    )
    formula = (
        r"$$r_i = \mathrm{clip}\!\left(\frac{i - \mathrm{lo}}{\mathrm{hi} - \mathrm{lo}}, "
        r"0, 1\right)$$"
    )
    depends = ("d", "base", "trained_len", "beta_fast", "beta_slow", "truncate")
    marks = {  # noqa: RUF012
        "ramp": Mark(
            hv.Curve,
            (PAIR,),
            (_RAMP,),
            style={"color": OKABE_ITO["orange"], "line_width": 2.5, "tools": ["hover"]},
        ),
    }
    options = plot_opts(height=170, ylim=(-0.05, 1.05))

    def frame(self, p: Any) -> Frame:
        low, high = yarn_correction_range(
            p.base,
            p.d,
            original_max_position_embeddings=p.trained_len,
            beta_fast=p.beta_fast,
            beta_slow=p.beta_slow,
            truncate=p.truncate,
        )
        n = p.d // 2
        return Frame(ramp={"pair": np.arange(n), "ramp": yarn_ramp(low, high, n)}, x=(-1, n))
