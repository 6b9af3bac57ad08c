"""What the Sinusoidal & learned figures share: the tables' axes, how a tall table
is drawn.

A table of 4,096 positions × 512 dimensions would be 8 MB per image and
change, for a figure ~270 px tall that Bokeh draws unsmoothed: the screen
shows one row in 8–15 anyway, and what a change sends should follow the
figure's pixels, not the table's size. So a table image holds at most
:data:`IMAGE_ROWS` rows and :data:`IMAGE_CELLS` cells: one row in ``step`` for the whole table
(:func:`image_row_step`), and every row in view once the reader zooms in far
enough (:func:`row_view`, for ``Chart.zoomed``). Hovering names the position
whose row is drawn under the cursor (:func:`drawn_row_hover`).
"""

from __future__ import annotations

import math
from typing import Any

import holoviews as hv
import numpy as np

from ...chart import Mark
from ...look import CODE_CMAP
from ...marks import image_columns, js_hover

__all__ = [
    "DIM",
    "IMAGE_CELLS",
    "IMAGE_ROWS",
    "LEARNED_PRESETS",
    "POS",
    "drawn_row_hover",
    "full_detail_rows",
    "image_row_step",
    "row_view",
    "rows_note",
    "table_image",
    "table_mark",
    "view_margin",
]

#: Real models with a learned position table: (rows = max_len, width = d_model).
#: Public configuration values (GPT-2 small: n_positions 1024, n_embd 768;
#: BERT-base: max_position_embeddings 512, hidden_size 768).
LEARNED_PRESETS: dict[str, tuple[int, int]] = {"GPT-2": (1024, 768), "BERT": (512, 768)}

POS = hv.Dimension("position", label="position t")
DIM = hv.Dimension("dimension", label="dimension j")

#: The most cells a table image sends to the browser at once (float32: 256 kB).
#: The figure is about 600 × 300 pixels: more cells than pixels show nothing
#: more, and zooming in draws every row of the view (``zoomed``).
IMAGE_CELLS = 2**16
#: The most rows a table image draws: two per pixel of the ~270 px tall frame
#: (one per device pixel on a 2× screen). Bokeh draws an image unsmoothed, so
#: rows past that would never show (at d = 64 they were half the bytes of a change).
IMAGE_ROWS = 512


def row_cap(columns: int) -> int:
    """The most rows an image of ``columns`` dimensions draws (:data:`IMAGE_ROWS`,
    :data:`IMAGE_CELLS`)."""
    return max(1, min(IMAGE_ROWS, IMAGE_CELLS // max(1, columns)))


def image_row_step(rows: int, columns: int) -> int:
    """Draw every ``step``-th row of a ``rows × columns`` table: ≤ :func:`row_cap` rows.

    >>> image_row_step(64, 64), image_row_step(4096, 64), image_row_step(4096, 512)
    (1, 8, 32)
    """
    return max(1, -(-rows // row_cap(columns)))


def view_margin(rows: int) -> int:
    """Rows drawn on each side of a zoomed-in view of ``rows`` (a tenth of it), so
    that a small pan does not uncover an empty edge."""
    return rows // 10


def full_detail_rows(columns: int) -> int:
    """The most positions a zoomed-in view may span for every row in it to be drawn
    (with :func:`view_margin` more on each side, all within :func:`row_cap`).

    >>> full_detail_rows(512), full_detail_rows(64)
    (108, 428)
    """
    cap = row_cap(columns)
    rows = cap * 10 // 12
    while rows + 1 + 2 * view_margin(rows + 1) <= cap:
        rows += 1
    return max(1, rows)


def row_view(positions: int, columns: int, low: object, high: object) -> tuple[int, int, int]:
    """``(start, stop, step)`` of the rows to draw for a y view from the browser.

    The view is clamped to the table (anything unreadable is the whole table);
    no view asks for more than :func:`row_cap` rows, and a view that
    would not draw more rows than the whole table draws the whole table.
    """
    whole = (0, positions, image_row_step(positions, columns))
    try:
        lo, hi = sorted((float(low), float(high)))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return whole
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return whole
    start = min(max(math.floor(lo + 0.5), 0), positions - 1)
    stop = max(min(math.ceil(hi + 0.5), positions), start + 1)
    margin = view_margin(stop - start)
    start, stop = max(0, start - margin), min(positions, stop + margin)
    step = image_row_step(stop - start, columns)
    return whole if step >= whole[2] else (start, stop, step)


def table_image(rows: np.ndarray, start: int, step: int) -> dict[str, Any]:
    """An image mark's columns: ``rows`` of positions ``start, start + step, …``,
    one unit per dimension and ``step`` positions per row, from (−½, start − ½).
    The last row may stand for positions past the table; the axis cuts it off."""
    count, width = rows.shape
    return image_columns(rows, -0.5, start - 0.5, float(width), float(count * step))


#: Hover text of a table's y: the position whose row is drawn under the cursor.
#:
#: With every ``step``-th row drawn the value shown is that of the drawn
#: row's position, so the tooltip names that position rather than the one
#: under the cursor. The step and first row are read from the glyph (its
#: height over its rows, its bottom edge): right after every change and zoom.
drawn_row_hover = js_hover(
    """
        const glyph = special_vars.glyph_view, i = special_vars.index;
        const [, , top, bottom] = glyph._lrtb(i);
        const step = (top - bottom) / glyph.image_height[i];
        return String(Math.round(bottom + 0.5 + Math.floor((value - bottom) / step) * step));
        """
)


def rows_note(rows: int, d: int) -> str:
    """A note under a table drawn one row in every few; empty if it draws every row.
    (True zoomed in or out: it does not follow the zoom.)"""
    step = image_row_step(rows, d)
    if step == 1:
        return ""
    return (
        f"<b>{rows:,} positions × {d} dimensions:</b> the whole table is drawn one "
        f"row in {step} (positions 0, {step}, {2 * step}, …: {-(-rows // step):,} rows, "
        f"still more than the figure is pixels tall). Zoom in (box zoom) to "
        f"{full_detail_rows(d):,} positions or fewer and every row in view is drawn; "
        f"hovering names the position whose row you see."
    )


def table_mark(value: hv.Dimension, tooltip: tuple[str, str], **style: Any) -> Mark:
    """A table as an image, one row per position: its hover names the drawn row's
    position (:data:`drawn_row_hover`), the dimension, then ``tooltip``."""
    return Mark(
        hv.Image,
        (DIM, POS),
        (value,),
        hover={"$y": drawn_row_hover},
        style={
            "cmap": CODE_CMAP,
            **style,
            "colorbar": True,
            "xticks": 4,  # the colour bar leaves a phone's table ~110 px wide
            "tools": ["hover"],
            "hover_tooltips": [("position t", "$y{custom}"), ("dimension j", "$x{0}"), tooltip],
        },
    )
