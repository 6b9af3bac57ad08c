"""S4 · A learned table has no row past its end (max_len rows; GPT-2 and BERT)."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.learned import (
    LearnedPositionTable,
    PositionOutOfRangeError,
    learned_parameter_count,
)

from ...chart import KEY, Chart, Choices, Frame
from ...look import NO_ROW, WARNING, escape_text, plot_opts, warning_text_color
from ...marks import labels, outline_rows, row_outline
from .shared import (
    LEARNED_PRESETS,
    image_row_step,
    row_view,
    rows_note,
    table_image,
    table_mark,
)


class LearnedTable(Chart):
    title = "S4 · A learned table has no row past its end"
    caption = (
        "A learned position table (GPT-2, BERT) is a matrix with one trained "
        "row per position, here filled with random start values. Positions "
        "0 … max_len − 1 look up their row; past the end (grey) there is "
        "nothing to look up, so the model cannot take longer inputs."
    )
    formula = (
        r"$$p_t = W[t,:],\quad W \in \mathbb{R}^{\text{max\_len}\times d},"
        r"\quad t < \text{max\_len}$$"
    )
    depends = ("max_len", "d", "n")
    marks = {  # noqa: RUF012
        "image": table_mark(
            hv.Dimension("W", label="learned value W[t, j]"),
            ("value (NaN = no row)", "@image{0.000}"),
            clipping_colors={"NaN": NO_ROW},
        ),
        **row_outline("row", "t"),
        "row_label": labels(size="11pt", choice="t", on_top=True),
        **row_outline("no_row", "t", WARNING),
        "no_row_label": labels(color=warning_text_color, size="11pt", choice="t", on_top=True),
    }
    options = plot_opts(height=340, invert_yaxis=True)
    readout_depends = ("t", "max_len", "d", "n")

    #: (max_len, d, step) → every step-th row of the table (float32) and its largest
    #: |value|: kept while they stay, since n only changes what is drawn past the
    #: table (at 4,096 × 512, building and scanning the table takes ~30 ms).
    _kept: tuple[tuple[int, ...], np.ndarray, float] = ((), np.zeros((0, 0)), 1.0)

    def _drawn_rows(self, p: Any, step: int) -> tuple[np.ndarray, float]:
        key = (p.max_len, p.d, step)
        if self._kept[0] != key:
            table = LearnedPositionTable(p.max_len, p.d, seed=0).table
            limit = float(np.max(np.abs(table))) or 1.0
            self._kept = (key, table[::step].astype(np.float32), limit)
        return self._kept[1], self._kept[2]

    def _rows(self, p: Any, start: int, stop: int, step: int) -> dict[str, Any]:
        """The image of positions ``start, start + step, …`` below ``stop``: positions
        past the table are empty (NaN) rows, and hovering there says so."""
        positions = np.arange(start, stop, step)
        rows = np.full((positions.size, p.d), np.nan, dtype=np.float32)
        inside = positions < p.max_len
        count = int(inside.sum())
        if count and start == 0:
            rows[:count] = self._drawn_rows(p, step)[0][:count]
        elif count:  # a zoomed-in part
            rows[inside] = LearnedPositionTable(p.max_len, p.d, seed=0).table[positions[inside]]
        return table_image(rows, start, step)

    def frame(self, p: Any) -> Frame:
        top, max_len, d = max(p.n, p.max_len), p.max_len, p.d
        step = image_row_step(top, d)
        limit = self._drawn_rows(p, step)[1]

        def outlines(keys: np.ndarray, has_row: bool) -> dict[str, Any]:
            return outline_rows(keys[(keys < max_len) == has_row])

        def labels(keys: np.ndarray, has_row: bool) -> dict[str, Any]:
            keys = keys[(keys < max_len) == has_row]
            if not has_row:
                where = keys.astype(float)
                text = [f"position {k}: no row" for k in keys]
            elif top > max_len:
                where = np.full(len(keys), (max_len + top) / 2 - 0.5)
                text = [f"no rows for positions ≥ {max_len}"] * len(keys)
            else:
                where, text = np.zeros(len(keys)), [""] * len(keys)
            return {
                "x": np.full(len(keys), (d - 1) / 2),
                "y": where,
                "text": np.asarray(text, dtype=object),
                KEY: keys,
            }

        positions = np.arange(p.n)
        marks: dict[str, Choices] = {}
        for role, has_row in (("row", True), ("no_row", False)):
            rows = Choices(positions, lambda k, h=has_row: outlines(k, h), version=(p.n, max_len))
            marks[f"{role}_halo"] = marks[f"{role}_line"] = rows
            marks[f"{role}_label"] = Choices(
                positions, lambda k, h=has_row: labels(k, h), version=(p.n, max_len, d)
            )
        return Frame(
            image=self._rows(p, 0, top, step),
            **marks,
            scales={"image": {"low": -limit, "high": limit}},
            x=(-0.5, d - 0.5),
            y=(-0.5, top - 0.5),
        )

    def zoomed(self, p: Any, x: tuple[float, float], y: tuple[float, float]) -> Frame:
        """Every row in view once few enough are (the whole table again on reset)."""
        return Frame(image=self._rows(p, *row_view(max(p.n, p.max_len), p.d, *y)))

    def readout(self, p: Any) -> str:
        table = LearnedPositionTable(p.max_len, p.d, seed=0)
        try:
            if not table.has_row(p.t):
                table.lookup(p.t)  # raises before building the table; we show its message
        except PositionOutOfRangeError as err:
            lookup = (
                f'<span style="color:{warning_text_color()}">'
                f"<b>Position {p.t} has no row.</b></span> "
                f"The table stops at row {p.max_len - 1:,}; the model cannot represent "
                f"this position at all. (The lookup says: <i>{escape_text(err)}</i>)"
            )
        else:
            lookup = f"Position {p.t} → row {p.t} of the table ({p.d} learned numbers)."
        presets = " · ".join(
            f"{name}: {rows:,} × {width:,} = {learned_parameter_count(rows, width):,}"
            for name, (rows, width) in LEARNED_PRESETS.items()
        )
        drawn = rows_note(max(p.n, p.max_len), p.d)
        return (
            f"{lookup}<br>"
            + (f"{drawn}<br>" if drawn else "")
            + f"<b>Parameters:</b> {p.max_len:,} rows × d = {p.d} = "
            f"<b>{table.n_parameters:,}</b> numbers, all learned in training. "
            f"Real models: {presets}."
        )
