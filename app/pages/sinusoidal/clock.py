"""S2 · The clock face of position t: one hand per (sin, cos) pair, fast to slow."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.sinusoidal import clock_angles, sinusoidal_encoding, sinusoidal_frequencies

from ...chart import KEY, Chart, Choices, Frame, Mark, Scale
from ...look import OKABE_ITO, hands_palette, hands_scale, plot_opts
from ...marks import circle, labels

_PAIR = "pair i (0 = fastest)"
_EDGE = (-1.25, 1.25)
#: Hands drawn bold at most: more merge into one blob where the slow hands all
#: point near 12 o'clock. The others are drawn thin and faint (hover still
#: finds them).
BOLD_HANDS = 8
#: Opacity and width of a faint hand.
_FAINT = (0.3, 1.0)


def bold_pairs(pairs: int) -> np.ndarray:
    """The pairs whose hands are drawn bold: every pair up to :data:`BOLD_HANDS`,
    else that many spread evenly from the fastest to the slowest.

    >>> bold_pairs(4).tolist(), bold_pairs(32).tolist()
    ([0, 1, 2, 3], [0, 4, 9, 13, 18, 22, 27, 31])
    """
    return np.unique(np.round(np.linspace(0, pairs - 1, min(pairs, BOLD_HANDS))).astype(int))


class Clock(Chart):
    title = "S2 · The clock face of position t"
    caption = (
        "Each (sin, cos) pair of PE(t) is a clock hand at angle t·ωᵢ from "
        "12 o'clock. Fast pairs (long, thin, vermillion) spin around many "
        "times; slow pairs (short, thick, blue) have barely moved. Together the "
        "hands tell every position apart, like a clock tells seconds from hours. "
        "With more than eight pairs, eight hands from fast to slow are drawn bold "
        "and the others faint; hover over any hand for its numbers."
    )
    formula = (
        r"$$\big(PE(t)_{2i},\,PE(t)_{2i+1}\big) = "
        r"\big(\sin(t\,\omega_i),\,\cos(t\,\omega_i)\big)$$"
    )
    depends = ("n", "d", "base")
    marks = {  # noqa: RUF012
        "face": Mark(hv.Path, style={"color": OKABE_ITO["grey"], "line_width": 1}),
        "ticks": labels(color=OKABE_ITO["grey"]),
        "hands": Mark(
            hv.Segments,
            ("x0", "y0", "x1", "y1"),
            (hv.Dimension("pair", label=_PAIR), "omega", "angle", "sin", "cos", "width", "alpha"),
            choice="t",
            on_top=True,
            fields={
                "color": Scale("pair", tuple(hands_palette(2)), colorbar=_PAIR),
                "line_width": "width",
                "alpha": "alpha",
            },
            style={
                "tools": ["hover"],
                "hover_tooltips": [
                    ("pair i", "@pair"),
                    ("ω_i (rad / position)", "@omega{0.[0000]e}"),
                    ("angle t·ω_i (rad)", "@angle{0.000}"),
                    ("sin (x)", "@sin{0.000}"),
                    ("cos (y)", "@cos{0.000}"),
                ],
            },
        ),
    }
    options = plot_opts(
        responsive=False,
        frame_width=290,
        frame_height=290,
        min_width=None,
        xaxis=None,
        yaxis=None,
    )

    def frame(self, p: Any) -> Frame:
        d, base = p.d, p.base
        pairs = d // 2
        omega = sinusoidal_frequencies(d, base)
        # Drawing only: fast hands long and thin, slow hands short and thick,
        # like a clock's second and hour hands; past BOLD_HANDS, most faint.
        length = np.linspace(1.0, 0.35, pairs) if pairs > 1 else np.ones(1)
        width = np.linspace(1.5, 5.0, pairs) if pairs > 1 else np.full(1, 3.0)
        alpha = np.full(pairs, _FAINT[0])
        alpha[bold_pairs(pairs)] = 1.0
        width = np.where(alpha < 1.0, _FAINT[1], width)

        def hands(keys: np.ndarray) -> dict[str, Any]:
            first, count = int(keys.min()), len(keys)
            codes = sinusoidal_encoding(int(keys.max()) + 1, d, base, start=first)[keys - first]
            sin, cos = codes[:, 0::2], codes[:, 1::2]
            return {
                "x0": np.zeros(count * pairs),
                "y0": np.zeros(count * pairs),
                "x1": (length * sin).ravel(),
                "y1": (length * cos).ravel(),
                "pair": np.tile(np.arange(pairs), count),
                "omega": np.tile(omega, count),
                "angle": clock_angles(keys, d, base).ravel(),
                "sin": sin.ravel(),
                "cos": cos.ravel(),
                "width": np.tile(width, count),
                "alpha": np.tile(alpha, count),
                KEY: np.repeat(keys, pairs),
            }

        return Frame(
            face=circle(),
            ticks={"x": [0.0, 1.13], "y": [1.1, 0.0], "text": ["angle 0", "π/2"]},
            hands=Choices(np.arange(p.n), hands),
            scales={"hands": hands_scale(pairs)},
            x=_EDGE,
            y=_EDGE,
        )
