"""S1 · The code table: positions × dimensions, position t outlined."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.sinusoidal import sinusoidal_encoding

from ...chart import Chart, Choices, Frame
from ...look import CODE_CLIM, plot_opts
from ...marks import outline_rows, row_outline
from .shared import (
    image_row_step,
    row_view,
    rows_note,
    table_image,
    table_mark,
)


def _code_rows(p: Any, start: int, stop: int, step: int) -> dict[str, Any]:
    """The image of the codes of positions ``start, start + step, …`` below ``stop``
    (float32 is ample for colours and halves what the browser receives)."""
    rows = sinusoidal_encoding(stop, p.d, p.base, step=step, start=start)
    return table_image(rows.astype(np.float32), start, step)


class CodeTable(Chart):
    title = "S1 · The code table"
    caption = (
        "Each row is the code of one position, each column one dimension. "
        "Left columns (fast pairs) flip sign from one position to the next; "
        "right columns (slow pairs) barely change. The black outline with a white "
        "edge marks position t. Colours are pinned to −1 … +1."
    )
    formula = (
        r"$$\begin{gathered}PE(t)_{2i} = \sin(t\,\omega_i),\quad "
        r"PE(t)_{2i+1} = \cos(t\,\omega_i) \\"
        r"\omega_i = \mathrm{base}^{-2i/d},\quad i = 0,\dots,d/2-1\end{gathered}$$"
    )
    depends = ("n", "d", "base")
    marks = {  # noqa: RUF012
        "image": table_mark(
            hv.Dimension("PE", label="code value PE(t)ⱼ"), ("PE", "@image{0.000}"), clim=CODE_CLIM
        ),
        **row_outline("outline", "t"),
    }
    options = plot_opts(height=340, invert_yaxis=True)
    readout_depends = ("n", "d")

    def frame(self, p: Any) -> Frame:
        rows = Choices(np.arange(p.n), outline_rows, version=(p.n,))
        return Frame(
            image=_code_rows(p, 0, p.n, image_row_step(p.n, p.d)),
            outline_halo=rows,
            outline_line=rows,
            x=(-0.5, p.d - 0.5),
            # The last drawn row may stand for positions past n − 1: not shown.
            y=(-0.5, p.n - 0.5),
        )

    def zoomed(self, p: Any, x: tuple[float, float], y: tuple[float, float]) -> Frame:
        """Every row in view once few enough are (the whole table again on reset)."""
        return Frame(image=_code_rows(p, *row_view(p.n, p.d, *y)))

    def readout(self, p: Any) -> str:
        return rows_note(p.n, p.d)
