"""Tall heatmaps: one row in ``step`` for the whole table, every row when zoomed in (issue 8).

A position table of 4,096 rows × 512 columns was 8 MB per image and change;
its figure is ~270 px tall, and Bokeh draws images unsmoothed, so the screen
showed one row in 8–15 of them anyway (one in 4–8 on a 2× screen). A heatmap
now holds at most :data:`IMAGE_CELLS` cells:

- :func:`image_row_step` says which rows to draw, :func:`row_centers` where;
- :class:`RowDetail` redraws the rows in view when the reader zooms in or
  pans (Bokeh's ``RangesUpdate``), at every row once few enough are in view,
  and the whole table again on reset;
- :func:`drawn_row_hover` makes the tooltip name the position whose row is
  drawn under the cursor, whatever the step.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
from bokeh.events import RangesUpdate
from bokeh.models import CustomJSHover

__all__ = [
    "IMAGE_CELLS",
    "RowDetail",
    "drawn_row_hover",
    "full_detail_rows",
    "image_row_step",
    "row_centers",
    "view_margin",
]

#: The most cells a heatmap sends to the browser at once (float32: 1 MB).
IMAGE_CELLS = 2**18


def image_row_step(rows: int, columns: int) -> int:
    """Draw every ``step``-th row of a ``rows × columns`` heatmap: ≤ :data:`IMAGE_CELLS` cells.

    >>> image_row_step(64, 64), image_row_step(4096, 64), image_row_step(4096, 512)
    (1, 1, 8)
    """
    return max(1, -(-rows // max(1, IMAGE_CELLS // max(1, columns))))


def view_margin(rows: int) -> int:
    """Rows drawn on each side of a zoomed-in view of ``rows`` (a tenth of it), so
    that a small pan does not uncover an empty edge."""
    return rows // 10


def full_detail_rows(columns: int) -> int:
    """The most positions a zoomed-in view may span for :class:`RowDetail` to draw every row.

    The rows drawn are the view's and :func:`view_margin` more on each side,
    all within :data:`IMAGE_CELLS` cells.

    >>> full_detail_rows(512), full_detail_rows(64)
    (428, 3414)
    """
    cap = max(1, IMAGE_CELLS // max(1, columns))
    rows = cap * 10 // 12
    while rows + 1 + 2 * view_margin(rows + 1) <= cap:
        rows += 1
    return max(1, rows)


def row_centers(count: int, step: int, start: int = 0) -> np.ndarray:
    """y of ``count`` drawn rows from position ``start``, each standing for ``step`` rows.

    Row ``r`` covers ``start + r·step − ½ … start + (r + 1)·step − ½``: the
    cells of positions ``start + r·step`` onwards, of which it shows the first.
    """
    return start + np.arange(count) * step + (step - 1) / 2


def drawn_row_hover() -> CustomJSHover:
    """Hover text of a heatmap's y: the position whose row is drawn under the cursor.

    With every ``step``-th row drawn the value shown is that of the drawn
    row's position, so the tooltip names that position rather than the one
    under the cursor. The step and first row are read from the glyph (its
    height over its rows, its bottom edge), so they are right after every
    change and zoom. A new model per plot: a Bokeh model belongs to one
    document.
    """
    return CustomJSHover(
        code="""
        const glyph = special_vars.glyph_view, i = special_vars.index;
        const [, , top, bottom] = glyph._lrtb(i);
        const step = (top - bottom) / glyph.image_height[i];
        return String(Math.round(bottom + 0.5 + Math.floor((value - bottom) / step) * step));
        """
    )


#: rows(start, stop, step) → the drawn rows of positions start, start + step, … < stop.
Rows = Callable[[int, int, int], np.ndarray]


class RowDetail:
    """Redraws a tall heatmap's rows in view when its figure is zoomed or panned.

    ``detail = RowDetail(rows, size)``: ``rows(start, stop, step)`` gives the
    drawn rows (float32, one per position ``start + r·step`` below ``stop``)
    and ``size()`` the table's ``(positions, columns)`` now. Put
    ``detail.hook`` in the image element's ``hooks``; the image's y must be
    positions, one unit per row, from −½ (:func:`row_centers`).

    The view's range comes from the browser: it is clamped to the table, and
    no view asks for more than :data:`IMAGE_CELLS` cells. A change of the
    page's controls redraws the whole table (HoloViews) and its axes follow
    it, so detail only ever lives until the next change.
    """

    def __init__(self, rows: Rows, size: Callable[[], tuple[int, int]]) -> None:
        self._rows = rows
        self._size = size
        self._figures: weakref.WeakSet = weakref.WeakSet()
        #: Redraws made (for tests).
        self.redraws = 0

    @property
    def hook(self) -> Callable[[Any, Any], None]:
        """HoloViews hook of the image layer: listen to its figure's ranges, once.

        It holds this object weakly: HoloViews keeps hooks in a global store
        for as long as their element lives, and a hook holding the page kept
        closed sessions in memory (tests/app/test_pages.py).
        """
        me = weakref.ref(self)

        def listen(plot: Any, element: Any) -> None:
            owner, figure, source = me(), plot.state, plot.handles.get("source")
            if owner is None or source is None or figure in owner._figures:
                return
            owner._figures.add(figure)
            shown = weakref.ref(source)

            def on_ranges(event: RangesUpdate) -> None:
                detail, target = me(), shown()
                if detail is not None and target is not None:
                    detail.show(target, event.y0, event.y1)

            figure.on_event(RangesUpdate, on_ranges)

        return listen

    def view(self, low: object, high: object) -> tuple[int, int, int]:
        """(start, stop, step) of the rows to draw for a y range from the browser."""
        positions, columns = self._size()
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

    def show(self, source: object, low: object, high: object) -> None:
        """Draw the rows for a view of y from ``low`` to ``high`` into ``source``."""
        start, stop, step = self.view(low, high)
        data = source.data  # type: ignore[attr-defined]
        drawn = data.get("image")
        count = -(-(stop - start) // step)
        if (
            drawn
            and np.shape(drawn[0])[0] == count
            and data["y"][0] == start - 0.5
            and data["dh"][0] == count * step
        ):
            return  # already drawn (the view after a change of the page's controls)
        rows = self._rows(start, stop, step)
        source.data.update(image=[rows], y=[start - 0.5], dh=[count * step])  # type: ignore[attr-defined]
        self.redraws += 1
