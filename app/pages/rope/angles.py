"""R4 · Angle of each pair against position: a clock with d/2 hands, one pair in bold."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.rope import rope_frequencies, rotation_angles

from ...chart import KEY, Chart, Choices, Frame, Mark, Scale, padded
from ...look import hands_palette, hands_scale, plot_opts, text_color

__all__ = ["Angles", "sample_pairs"]

_POSITION = hv.Dimension("position", label="position p")
_ANGLE = hv.Dimension("angle", label="angle p·θᵢ mod 2π (rad)")
_PAIR = "pair i (0 = fastest)"
_TURN = ("0", "π/2", "π", "3π/2", "2π")
_HOVER = [("pair i", "@pair"), ("position", "@position"), ("angle", "@angle{0.000} rad")]


def sample_pairs(d: int) -> np.ndarray:
    """Up to four pairs spread from the fastest to the slowest, drawn in colour."""
    half = d // 2
    return np.unique(np.round(np.linspace(0, half - 1, min(half, 4))).astype(int))


class Angles(Chart):
    title = "R4 · Angle of each pair against position"
    caption = (
        "Each pair i turns by θᵢ per position; the angle wraps around at 2π. The "
        "fastest pair (vermillion) wraps every 6.3 positions, the slowest (blue) "
        "has barely moved: together they are like the hands of a clock with "
        "d/2 hands. Pick a pair to draw in bold."
    )
    formula = r"$$\varphi_i(p) = p\,\theta_i \bmod 2\pi,\qquad \theta_i = b^{-2i/d}$$"
    depends = ("d", "base", "max_distance")
    marks = {  # noqa: RUF012
        "samples": Mark(
            hv.Scatter,
            (_POSITION,),
            (_ANGLE, hv.Dimension("pair", label=_PAIR)),
            fields={"color": Scale("pair", tuple(hands_palette(2)), colorbar=_PAIR)},
            style={"size": 3, "tools": ["hover"], "hover_tooltips": _HOVER},
        ),
        "chosen": Mark(
            hv.Scatter,
            (_POSITION,),
            (_ANGLE, "pair"),
            choice="pair",
            on_top=True,
            style={"color": text_color, "size": 4, "tools": ["hover"], "hover_tooltips": _HOVER},
        ),
    }
    options = plot_opts(
        height=320,
        yticks=[(i * np.pi / 2, tick) for i, tick in enumerate(_TURN)],
        show_legend=False,
    )
    readout_depends = (*depends, "pair")

    def frame(self, p: Any) -> Frame:
        theta = rope_frequencies(p.d, p.base)
        positions = np.arange(p.max_distance + 1)

        def rows(pairs: np.ndarray) -> dict[str, Any]:
            pairs = np.asarray(pairs, dtype=int)
            # Wrapped to draw on the circle of angles (the core's angles are not).
            angles = np.mod(rotation_angles(positions, theta[pairs]), 2 * np.pi)
            return {
                "position": np.tile(positions, pairs.size),
                "angle": angles.T.ravel(),
                "pair": np.repeat(pairs, positions.size),
                KEY: np.repeat(pairs, positions.size),
            }

        samples = rows(sample_pairs(p.d))
        del samples[KEY]
        return Frame(
            samples=samples,
            chosen=Choices(np.arange(p.d // 2), rows, version=(p.d, p.base, p.max_distance)),
            scales={"samples": hands_scale(max(p.d // 2, 2))},
            x=padded(0, p.max_distance),
            y=(0, 2 * np.pi),
        )

    def readout(self, p: Any) -> str:
        theta = rope_frequencies(p.d, p.base)
        pairs = ", ".join(str(i) for i in sample_pairs(p.d))
        return (
            f"Coloured: pairs {pairs} of {p.d // 2} (fast → slow); bold: pair {p.pair}, "
            f"θ<sub>{p.pair}</sub> = {theta[p.pair]:.4g} rad per position."
        )
