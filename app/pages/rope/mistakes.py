"""R8 · Classic mistakes, each breaking something measurable: RoPE on the values, and
speeds from the model width instead of the head size."""

from __future__ import annotations

from functools import cache
from typing import Any

import holoviews as hv
import numpy as np

from positional_core.mistakes import WidthMistake, shift_changes, width_mistake

from ...chart import Chart, Frame, padded, padded_data
from ...look import OKABE_ITO, WARNING, legend_outside, plot_opts
from ...marks import layer
from ...numbers import difference

__all__ = ["Mistakes"]

#: Shifts of the whole sentence (positions): 1 to 1,000.
SHIFTS = np.unique(np.linspace(1, 1000, 60).round().astype(int))
#: Llama 2 7B (its config.json): model width D, head size d_k, trained length, base.
LLAMA2 = {"d_model": 4096, "d_head": 128, "trained_len": 4096, "base": 10000.0}
#: The longer context the width mistake is read at (4 × the trained length).
LONGER = 16384
#: The sentence of the values mistake: tokens, head size, seed.
SENTENCE = {"n_tokens": 8, "d": 16, "seed": 0}

_X, _Y = hv.Dimension("x"), hv.Dimension("y")


# Both mistakes are measured on fixed examples: once per process, not in each
# session's frame and again in its readout (the values mistake costs ~15 ms).
@cache
def _values_measured() -> tuple[np.ndarray, np.ndarray]:
    right, wrong = shift_changes(SHIFTS, **SENTENCE)
    right.setflags(write=False)
    wrong.setflags(write=False)
    return right, wrong


@cache
def _width_measured() -> WidthMistake:
    return width_mistake(**LLAMA2, target_len=LONGER)


def _curve(color: str, dash: str = "solid", width: float = 2.5) -> Any:
    return layer(
        hv.Curve,
        (_X,),
        (_Y,),
        color=color,
        line_width=width,
        line_dash=dash,
        tools=["hover"],
        hover_tooltips=[("x", "@x{0,0}"), ("y", "@y{0.[00]e}")],
    )


class Mistakes(Chart):
    title = "R8 · Classic mistakes, measured"
    caption = (
        "Two classic mistakes, each measured by what it breaks (the buttons above "
        "switch). <b>RoPE on the values</b>: one head reads a sentence of 8 tokens, then the same "
        "sentence moved k positions later. With RoPE on queries and keys (blue) the "
        "scores depend on offsets only and the output does not change (rounding, about "
        "10⁻¹⁶); rotate the values too (orange) and every output turns with its absolute "
        "position. <b>Speeds from the model width</b>: Llama 2 7B's pairs with θ "
        "computed from the head size d_k = 128 (blue) and from the model width D = 4,096 "
        "(orange): the wrong speeds are the first 64 of 2,048, so every pair turns fast. "
        "The third classic, the interleaved / half-split mix-up, is R7."
    )
    formula = (
        r"$$\theta_i = b^{-2i/d_k}\ \ (\text{not } b^{-2i/D}),\qquad "
        r"o_m = \sum_n \mathrm{softmax}_n\!\big((R_m q_m)\cdot(R_n k_n)\big)\, v_n"
        r"\ \ (\text{not } R_n v_n)$$"
    )
    depends = ("mistake",)
    marks = {  # noqa: RUF012
        "right": _curve(OKABE_ITO["blue"]),
        "wrong": _curve(WARNING, "dashed"),
    }
    options = {  # noqa: RUF012
        **legend_outside("top", label_text_font_size="9pt"),
        **plot_opts(height=320, logy=True),
    }
    readout_depends = depends
    question = (
        "Llama 2 7B computes θ from its head size d_k = 128. Computed from the model "
        "width D = 4,096 instead, how many positions would its slowest pair need for "
        "one turn?"
    )

    def frame(self, p: Any) -> Frame:
        if p.mistake == "values":
            right, wrong = _values_measured()
            floor = 1e-17  # the log axis' floor: a change of exactly 0 is drawn there
            right, wrong = np.maximum(right, floor), np.maximum(wrong, floor)
            return Frame(
                right={"x": SHIFTS, "y": right},
                wrong={"x": SHIFTS, "y": wrong},
                labels={"right": "RoPE on q and k", "wrong": "RoPE on q, k and v"},
                x=padded(1, SHIFTS[-1]),
                y=padded_data(right, wrong, log=True),
                x_label="shift k of the whole sentence (positions)",
                y_label="largest change of an output",
            )
        w = _width_measured()
        right, wrong = w.wavelengths
        pairs = np.arange(right.size)
        return Frame(
            right={"x": pairs, "y": right},
            wrong={"x": pairs, "y": wrong},
            labels={"right": "θ from d_k = 128", "wrong": "θ from D = 4,096"},
            x=padded(0, right.size - 1),
            y=padded_data(right, wrong, log=True),
            x_label="pair i",
            y_label="wavelength 2π/θᵢ (positions)",
        )

    def readout(self, p: Any) -> str:
        if p.mistake == "values":
            right, wrong = _values_measured()
            return (
                f"Moving the sentence by 1 to {SHIFTS[-1]:,} positions changes an output by at "
                f"most <b>{difference(float(right.max()))}</b> with RoPE on queries and keys, "
                f"and by up to <b>{float(wrong.max()):.3g}</b> with the values rotated too: the "
                "same words mean something else further down the text."
            )
        w = _width_measured()
        right, wrong = w.wavelengths
        return (
            f"Llama 2 7B read at {LONGER:,} positions (trained on {LLAMA2['trained_len']:,}): "
            f"the slowest pair's wavelength is <b>{right[-1]:,.0f}</b> positions, computed "
            f"from D only <b>{wrong[-1]:,.1f}</b>. Pairs meeting angles never seen in "
            f"training: <b>{int(w.out_of_band_right.sum())}</b> of 64 with the right speeds, "
            f"{int(w.out_of_band_wrong.sum())} with the wrong ones: a context-extension "
            "method would stretch the wrong pairs."
        )

    def answer(self, p: Any) -> str:
        right, wrong = _width_measured().wavelengths
        return (
            f"About <b>{wrong[-1]:,.1f}</b> instead of {right[-1]:,.0f}: the wrong speeds "
            f"are base<sup>−2i/D</sup> for i &lt; 64, the first 64 of D/2 = 2,048, all fast."
        )
