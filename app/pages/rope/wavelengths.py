"""R5 · Wavelength of every pair: positions per full turn, on a log axis."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.extension import never_complete_turn
from positional_core.rope import rope_frequencies, wavelengths

from ...chart import KEY, Chart, Choices, Frame, Mark, Scale, padded, padded_data
from ...look import OKABE_ITO, hands_palette, hands_scale, plot_opts
from ...marks import labels, ring, rule

__all__ = ["Wavelengths"]

_PAIR = hv.Dimension("pair", label="pair i (0 = fastest)")
_WAVELENGTH = hv.Dimension("wavelength", label="wavelength 2π/θᵢ (positions)")


class Wavelengths(Chart):
    title = "R5 · Wavelength of every pair"
    caption = (
        "How many positions each pair needs for one full turn, on a log axis: "
        "from 2π ≈ 6.3 for pair 0 up to about 2π·base for the last pair, evenly "
        "spaced on the log scale. Pairs above the dashed line do not complete "
        "a turn within the distances shown."
    )
    formula = r"$$\lambda_i = \frac{2\pi}{\theta_i} = 2\pi\, b^{2i/d}$$"
    depends = ("d", "base", "max_distance")
    readout_depends = depends
    marks = {  # noqa: RUF012
        "dots": Mark(
            hv.Scatter,
            (_PAIR,),
            (_WAVELENGTH, "theta"),
            fields={"color": Scale("pair", tuple(hands_palette(2)))},
            style={
                "size": 7,
                "tools": ["hover"],
                "hover_tooltips": [
                    ("pair i", "@pair"),
                    ("θᵢ", "@theta{0.[0000]e} rad/position"),
                    ("wavelength", "@wavelength{0,0.0} positions"),
                ],
            },
        ),
        "shown": rule("dashed", 1.5, hv.HLines, color=OKABE_ITO["grey"], dim=_WAVELENGTH),
        "note": labels((_PAIR, _WAVELENGTH), text_align="right", text_baseline="top"),
        "ring": ring(hv.Scatter, (_PAIR,), (_WAVELENGTH, "theta"), choice="pair"),
    }
    options = plot_opts(height=320, logy=True)

    def frame(self, p: Any) -> Frame:
        theta = rope_frequencies(p.d, p.base)
        lam = wavelengths(theta)
        half, shown = p.d // 2, p.max_distance

        def chosen(pairs: np.ndarray) -> dict[str, Any]:
            pairs = np.asarray(pairs, dtype=int)
            return {"pair": pairs, "wavelength": lam[pairs], "theta": theta[pairs], KEY: pairs}

        return Frame(
            dots={"pair": np.arange(half), "wavelength": lam, "theta": theta},
            shown={"wavelength": [shown]},
            note={
                "pair": [half - 1],
                "wavelength": [shown / 1.3],
                "text": [f"largest distance shown: {shown:,}"],
            },
            ring=Choices(np.arange(half), chosen, version=(p.d, p.base)),
            scales={"dots": hands_scale(max(half, 2))},
            x=padded(0, half - 1),
            # The dashed line of the largest distance is always in view.
            y=padded_data(lam, shown, log=True),
        )

    def readout(self, p: Any) -> str:
        theta = rope_frequencies(p.d, p.base)
        lam = wavelengths(theta)
        slow = int(never_complete_turn(theta, p.max_distance + 1).sum())
        return (
            f"Fastest pair: {lam[0]:,.1f} positions per turn; slowest: {lam[-1]:,.0f}. "
            f"<b>{slow} of {p.d // 2}</b> pairs do not complete one turn within positions "
            f"0 … {p.max_distance:,}: over that range they act like a slowly turning dial."
        )
