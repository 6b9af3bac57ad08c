"""Page "Sinusoidal & learned": absolute position codes added to the input (S1–S4).

Every number comes from :mod:`positional_core`; this module only chooses what
to draw. Each figure is a ``hv.DynamicMap`` over ``param.depends`` methods, so
moving a control re-runs only the methods that depend on it and patches the
plot in place: moving ``t`` re-sends the highlight, the clock hands and one
curve (a few kB), never the code table image.
"""

from __future__ import annotations

from typing import Any, ClassVar

import holoviews as hv
import numpy as np
import panel as pn
import param

from positional_core.learned import (
    LearnedPositionTable,
    PositionOutOfRangeError,
    learned_parameter_count,
)
from positional_core.sinusoidal import (
    clock_angles,
    code_similarity,
    sinusoidal_code,
    sinusoidal_encoding,
    sinusoidal_frequencies,
)
from positional_core.views import shift_check

from .choice import KEY, BrowserChoice, stack_choices
from .inplace import Drawn, Layer, memoized, padded
from .look import (
    CODE_CLIM,
    CODE_CMAP,
    HIGHLIGHT,
    NO_ROW,
    OKABE_ITO,
    WARNING,
    Figure,
    QuickCheck,
    escape_text,
    hands_scale,
    legend_outside,
    plot_opts,
    warning_text_color,
)
from .page import Page
from .zoom import RowDetail, drawn_row_hover, full_detail_rows, image_row_step, row_centers

__all__ = ["LEARNED_PRESETS", "SinusoidalPage"]

#: Real models with a learned position table: (rows = max_len, width = d_model).
#: Public configuration values (GPT-2 small: n_positions 1024, n_embd 768;
#: BERT-base: max_position_embeddings 512, hidden_size 768).
LEARNED_PRESETS: dict[str, tuple[int, int]] = {"GPT-2": (1024, 768), "BERT": (512, 768)}

_POS = hv.Dimension("position", label="position t")
_DIM = hv.Dimension("dimension", label="dimension j")


class SinusoidalPage(Page):
    """Sinusoidal codes (Vaswani et al. 2017) and learned position tables."""

    slug: ClassVar[str] = "sinusoidal"
    title: ClassVar[str] = "Sinusoidal & learned"
    intro: ClassVar[str] = (
        "The first transformers <em>add</em> a code for each position to the word's "
        "vector. The sinusoidal code is a fixed formula: pairs of dimensions turn like "
        "clock hands, fast to slow. A learned table is just a list of rows, one per "
        "position, and has nothing to offer past its last row."
    )

    t = param.Integer(
        default=10,
        bounds=(0, 4095),
        label="Position t",
        doc="The selected position (a token's index, from 0). At most n − 1.",
    )
    n = param.Integer(
        default=64,
        bounds=(2, 4096),
        label="Number of positions n",
        doc="How many positions (rows of the code table) are drawn.",
    )
    d = param.Integer(
        default=64,
        bounds=(2, 512),
        step=2,
        label="Dimension d (even)",
        doc="Length of each code. Even: the dimensions come in (sin, cos) pairs.",
    )
    base = param.Selector(
        default=10_000,
        objects={f"{b:,}": b for b in (10, 100, 1_000, 10_000, 100_000, 1_000_000)},
        label="Base",
        doc="Sets the slowest pair's wavelength (about 2π·base positions). "
        "The original transformer uses 10,000.",
    )
    k = param.Integer(
        default=3,
        bounds=(-256, 256),
        label="Shift k (S3 check)",
        doc="Offset used in the check PE(t + k) = M_k · PE(t) under figure S3.",
    )
    max_len = param.Integer(
        default=48,
        bounds=(1, 4096),
        label="Learned table rows max_len",
        doc="Number of rows of the learned table (S4): positions 0 … max_len − 1 "
        "have a row; any later position has none.",
    )

    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "t": {"type": pn.widgets.IntSlider},
        "n": {"type": pn.widgets.IntSlider, "throttled": True},
        "d": {"type": pn.widgets.IntSlider, "throttled": True},
        "base": {"type": pn.widgets.DiscreteSlider, "throttled": True},
        "k": {"type": pn.widgets.IntSlider},
        "max_len": {"type": pn.widgets.IntSlider, "throttled": True},
    }

    # ------------------------------------------------------------------ rules
    @classmethod
    def dynamic_bounds(cls, values: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        return {"t": (0, values["n"] - 1)}

    @classmethod
    def constrain(cls, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes: list[str] = []
        if fixed["d"] % 2:
            even = fixed["d"] - 1 if fixed["d"] > 2 else 2
            notes.append(f"d = {fixed['d']} is odd; codes come in pairs, so d set to {even}.")
            fixed["d"] = even
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    @param.depends("n", "d", watch=True)
    def _keep_consistent(self) -> None:
        self.keep_consistent()

    # ------------------------------------------------------------ S1 table
    @staticmethod
    def _image_source(rows: np.ndarray, step: int) -> dict[str, list[Any]]:
        """A heatmap's drawn rows as HoloViews puts them in the image's source: every
        cell one unit wide, each row ``step`` positions tall, from (−½, −½)."""
        return {
            "image": [rows],
            "x": [-0.5],
            "y": [-0.5],
            "dw": [float(rows.shape[1])],
            "dh": [float(rows.shape[0] * step)],
        }

    @memoized
    @param.depends("n", "d", "base")
    def _table_drawn(self) -> Drawn:
        step = image_row_step(self.n, self.d)
        table = self._table_rows(0, self.n, step)
        return Drawn(
            # The row outline follows t and n (_refresh_marks), not this frame.
            sources=[self._image_source(table, step), None, None],
            x_range=(-0.5, self.d - 0.5),
            # The last drawn row may stand for positions past n − 1: not shown.
            y_range=(-0.5, self.n - 0.5),
        )

    @param.depends("n", "d", "base")
    def _table_image(self) -> hv.Image:
        drawn = self._table_drawn()
        step = image_row_step(self.n, self.d)
        table = drawn.sources[0]["image"][0]
        data = (np.arange(self.d), row_centers(len(table), step), table)
        return self.style(
            hv.Image(
                data, kdims=[_DIM, _POS], vdims=[hv.Dimension("PE", label="code value PE(t)ⱼ")]
            ),
            "table_image",
            cmap=CODE_CMAP,
            clim=CODE_CLIM,
            colorbar=True,
            invert_yaxis=True,
            tools=["hover"],
            hover_tooltips=[
                ("position t", "$y{custom}"),
                ("dimension j", "$x{0}"),
                ("PE", "@image{0.000}"),
            ],
            hover_formatters={"$y": drawn_row_hover()},
            ylim=drawn.y_range,
            hooks=[self._table_zoom],
            framewise=True,
            **plot_opts(height=340),
        )

    def _table_rows(self, start: int, stop: int, step: int) -> np.ndarray:
        """S1's rows of positions ``start, start + step, …`` below ``stop``: the
        whole figure's, or a zoomed-in part's (app/zoom.py). float32 is ample
        for colours and halves what the browser receives."""
        table = sinusoidal_encoding(stop, self.d, self.base, step=step, start=start)
        return table.astype(np.float32)

    @staticmethod
    def _rows_drawn(rows: int, d: int) -> str:
        """A note under a heatmap that draws only every step-th row; empty if it draws all."""
        step = image_row_step(rows, d)
        if step == 1:
            return ""
        # True zoomed in or out: the note is not redrawn on every zoom.
        return (
            f"<b>{rows:,} positions × {d} dimensions:</b> the whole table is drawn one "
            f"row in {step} (positions 0, {step}, {2 * step}, …: {-(-rows // step):,} rows, "
            f"still more than the figure is pixels tall). Zoom in (box zoom) to "
            f"{full_detail_rows(d):,} positions or fewer and every row in view is drawn; "
            f"hovering names the position whose row you see."
        )

    @param.depends("n", "d")
    def _table_readout(self) -> str:
        return self._rows_drawn(self.n, self.d)

    # Everything that only follows t is drawn from candidates for every t,
    # selected in the browser (app/choice.py); these DynamicMaps depend only on
    # what changes the candidates, so moving t redraws nothing on the server.
    def _positions(self) -> np.ndarray:
        return np.arange(self.n)

    @staticmethod
    def _outline(values: np.ndarray) -> dict[str, np.ndarray]:
        values = np.asarray(values, dtype=float)
        return {"y0": values - 0.5, "y1": values + 0.5, KEY: values.astype(int)}

    def _outline_pair(self, role: str, color: str, columns: Any = None) -> hv.Overlay:
        """A row outline (dark line, white core) as two browser-selected layers."""
        columns = columns or self._outline
        outer = self._t.element(f"{role}_outer", hv.HSpans, columns, self._positions, on_top=True)
        inner = self._t.element(f"{role}_inner", hv.HSpans, columns, self._positions, on_top=True)
        return outer.opts(fill_alpha=0, line_color=color, line_width=4) * inner.opts(
            fill_alpha=0, line_color="#FFFFFF", line_width=1.5
        )

    # The marks' DynamicMaps do not depend on n (or max_len) either: those only
    # change which positions exist, and _refresh_marks redraws the marks and
    # ships their candidates in place (BrowserChoice.refresh), sparing
    # HoloViews a re-render of three figures per change.
    _MARKS_OF_N: ClassVar[tuple[str, ...]] = (
        "table_outer",
        "table_inner",
        "hands",
        *(f"learned_{r}_{p}" for r in ("row", "no_row") for p in ("outer", "inner", "label")),
    )

    @param.depends("n", "max_len", watch=True)
    def _refresh_marks(self) -> None:
        self._t.refresh(*self._MARKS_OF_N)

    def _table_highlight(self) -> hv.Overlay:
        # Built once, not a DynamicMap: nothing but t and n moves it (a
        # DynamicMap without dependencies would be called on every update).
        return self._outline_pair("table", HIGHLIGHT)

    # ------------------------------------------------------------- S2 clock
    def _hand_rows(self, t: int) -> dict[str, np.ndarray]:
        code = sinusoidal_code(t, self.d, self.base)
        pairs = self.d // 2
        sin, cos = code[0::2], code[1::2]
        # Drawing only: fast hands long and thin, slow hands short and thick,
        # like a clock's second and hour hands.
        length = np.linspace(1.0, 0.35, pairs) if pairs > 1 else np.ones(1)
        width = np.linspace(1.5, 5.0, pairs) if pairs > 1 else np.full(1, 3.0)
        return {
            "x0": np.zeros(pairs),
            "y0": np.zeros(pairs),
            "x1": length * sin,
            "y1": length * cos,
            "pair": np.arange(pairs),
            "omega": sinusoidal_frequencies(self.d, self.base),
            "angle": clock_angles(t, self.d, self.base),
            "sin": sin,
            "cos": cos,
            "width": width,
            # The columns HoloViews derives from color="pair" and line_width="width".
            "color": np.arange(pairs),
            "line_width": width,
        }

    @param.depends("d", "base")
    def _clock_drawn(self) -> Drawn | None:
        """S2: the hands are the t choice's; their colour scale follows d."""
        if self.d == 2:
            # One hand: HoloViews draws its colour and width as constants, not
            # through the scale and the column: the elements' way.
            return None
        return Drawn(
            sources=[
                None,
                None,
                None,
                Layer(models={"color_color_mapper": hands_scale(self.d // 2)}),
            ],
            refresh=[(self._t, ("hands",))],
        )

    @param.depends("d", "base")
    def _clock_hands(self) -> hv.Segments:
        scale = hands_scale(self.d // 2)
        return self.style(
            self._t.element(
                "hands",
                hv.Segments,
                lambda values: stack_choices(values, self._hand_rows),
                self._positions,
                on_top=True,
                kdims=["x0", "y0", "x1", "y1"],
                vdims=[
                    hv.Dimension("pair", label="pair i (0 = fastest)"),
                    "omega",
                    "angle",
                    "sin",
                    "cos",
                    "width",
                ],
            ),
            "clock_hands",
            color="pair",
            cmap=scale["palette"],
            clim=(scale["low"], scale["high"]),
            line_width="width",
            colorbar=True,
            tools=["hover"],
            hover_tooltips=[
                ("pair i", "@pair"),
                ("ω_i (rad / position)", "@omega{0.[0000]e}"),
                ("angle t·ω_i (rad)", "@angle{0.000}"),
                ("sin (x)", "@sin{0.000}"),
                ("cos (y)", "@cos{0.000}"),
            ],
        )

    @staticmethod
    def _clock_face() -> hv.Overlay:
        face = hv.Ellipse(0, 0, 2).opts(color=OKABE_ITO["grey"], line_width=1)
        ticks = hv.Text(0, 1.1, "angle 0", fontsize=9) * hv.Text(1.13, 0, "π/2", fontsize=9)
        return face * ticks.opts(hv.opts.Text(color=OKABE_ITO["grey"]))

    # -------------------------------------------------------- S3 similarity
    #: (n, d, base) → PE(0)·PE(s) for s = 0 … n − 1 (see _similarity_rows).
    _by_distance: tuple[tuple[Any, ...], np.ndarray | None] = ((), None)

    def _similarity_rows(self, values: np.ndarray) -> dict[str, np.ndarray]:
        # PE(t)·PE(s) = Σ cos((s − t)·ωᵢ) depends on |s − t| only: one row of the
        # core's result over the distances 0 … n − 1, indexed for each t (no new
        # arithmetic here). Kept per (n, d, base): the candidates' size estimate
        # and their rows ask for it in the same change (4,096 × 512: 30 ms each).
        n = self.n
        key = (n, self.d, self.base)
        if self._by_distance[0] != key:
            self._by_distance = (key, code_similarity(0, n, self.d, self.base))
        by_distance = self._by_distance[1]
        values = np.asarray(values, dtype=int)
        s = np.arange(n)
        return {
            "s": np.tile(s, len(values)),
            "dot": by_distance[np.abs(s[None, :] - values[:, None])].ravel(),
            KEY: np.repeat(values, n),
        }

    def _peak_rows(self, values: np.ndarray) -> dict[str, np.ndarray]:
        top = code_similarity(0, 1, self.d, self.base)[0]
        values = np.asarray(values, dtype=int)
        return {"s": values, "dot": np.full(len(values), top), KEY: values}

    @param.depends("n", "d", "base")
    def _similarity_drawn(self) -> Drawn:
        """S3: every layer is the t choice's; the axes follow t's curve and its peak."""
        dot = self._similarity_rows(np.asarray([self.t]))["dot"]
        top = float(self._peak_rows(np.asarray([self.t]))["dot"][0])
        return Drawn(
            sources=[None, None, None],
            x_range=(0, self.n - 1),
            # The curve and its peak, 10 % above and below (none along s).
            y_range=padded(min(float(dot.min()), top), max(float(dot.max()), top)),
            refresh=[(self._t, ("similarity", "mark", "peak"))],
        )

    @param.depends("n", "d", "base")
    def _similarity(self) -> hv.Overlay:
        # The curve moves with t like its marks, so it is drawn on the overlay
        # level with them; the legend sits above the frame, out of its way.
        drawn = self._similarity_drawn()
        s_dim = hv.Dimension("s", label="position s", range=drawn.x_range)
        dot_dim = hv.Dimension("dot", label="PE(t)·PE(s)", range=drawn.y_range)
        curve = self.style(
            self._t.element(
                "similarity",
                hv.Curve,
                self._similarity_rows,
                self._positions,
                on_top=True,
                kdims=[s_dim],
                vdims=[dot_dim],
            ),
            "similarity curve",
            color=OKABE_ITO["blue"],
            line_width=2,
            tools=["hover"],
            framewise=True,
        )
        peak = self.style(
            self._t.element(
                "peak",
                hv.Points,
                self._peak_rows,
                self._positions,
                on_top=True,
                kdims=[s_dim, dot_dim],
                label="s = t",
            ),
            "similarity peak",
            color=OKABE_ITO["vermillion"],
            size=9,
            tools=[],
            framewise=True,
        )
        mark = self.style(
            self._t.element(
                "mark",
                hv.VLines,
                lambda values: {"x": np.asarray(values, float), KEY: np.asarray(values, int)},
                self._positions,
                on_top=True,
            ),
            "similarity mark",
            color=OKABE_ITO["vermillion"],
            line_dash="dashed",
        )
        return self.style(
            curve * mark * peak, "similarity", **legend_outside("top"), show_legend=True
        )

    @param.depends("t", "k", "d", "base")
    def _shift_readout(self) -> str:
        residual = shift_check(self.t, self.k, self.d, self.base)
        return (
            f"<b>Shift check</b> for t = {self.t}, k = {self.k}: "
            f"max |PE(t+k) − M<sub>k</sub>·PE(t)| = <b>{residual:.1e}</b> "
            "(zero up to rounding: the same matrix M<sub>k</sub> works for every t)."
        )

    # ---------------------------------------------------------- S4 learned
    #: (max_len, d, step) → the learned table's drawn rows and its largest |value|.
    _learned: tuple[tuple[int, ...], np.ndarray | None, float] = ((), None, 1.0)

    def _learned_rows_drawn(self, step: int) -> tuple[np.ndarray, float]:
        """Every ``step``-th row of the learned table (float32) and its colour limit.

        Kept while max_len, d and the step stay: n only changes what is drawn
        past the table (at 4,096 × 512 the table takes ~30 ms to draw and
        scan). At most IMAGE_CELLS numbers are kept, not the table.
        """
        key = (self.max_len, self.d, step)
        if self._learned[0] != key:
            table = LearnedPositionTable(self.max_len, self.d, seed=0).table
            limit = float(np.max(np.abs(table))) or 1.0
            self._learned = (key, table[::step].astype(np.float32), limit)
        return self._learned[1], self._learned[2]

    def _learned_part(self, start: int, stop: int, step: int) -> np.ndarray:
        """S4's rows of positions ``start, start + step, …`` below ``stop`` (float32).

        Positions past the table are empty (NaN) rows: there is no row to
        show, and hovering there says so. From position 0 (the whole figure)
        the kept rows are used; a zoomed-in part (app/zoom.py) is taken from
        the table.
        """
        positions = np.arange(start, stop, step)
        rows = np.full((positions.size, self.d), np.nan, dtype=np.float32)
        inside = positions < self.max_len
        count = int(inside.sum())
        if count and start == 0:
            rows[:count] = self._learned_rows_drawn(step)[0][:count]
        elif count:
            table = LearnedPositionTable(self.max_len, self.d, seed=0).table
            rows[inside] = table[positions[inside]]
        return rows

    @memoized
    @param.depends("max_len", "d", "n")
    def _learned_drawn(self) -> Drawn:
        top = max(self.n, self.max_len)
        step = image_row_step(top, self.d)
        rows = self._learned_part(0, top, step)
        limit = self._learned_rows_drawn(step)[1]
        # The marks follow t, n and max_len (_refresh_marks) and are drawn for d:
        # shipped again here only when d changed.
        marks = tuple(r for r in self._MARKS_OF_N if r.startswith("learned_"))
        return Drawn(
            sources=[
                Layer(
                    self._image_source(rows, step),
                    models={"color_mapper": {"low": -limit, "high": limit}},
                ),
                *[None] * 6,
            ],
            x_range=(-0.5, self.d - 0.5),
            y_range=(-0.5, top - 0.5),
            refresh=[(self._t, marks, self.d)],
        )

    @param.depends("max_len", "d", "n")
    def _learned_image(self) -> hv.Image:
        drawn = self._learned_drawn()
        image = drawn.sources[0]
        rows = image.columns["image"][0]
        step = image_row_step(max(self.n, self.max_len), self.d)
        high = image.models["color_mapper"]["high"]
        return self.style(
            hv.Image(
                (np.arange(self.d), row_centers(len(rows), step), rows),
                kdims=[_DIM, _POS],
                vdims=[hv.Dimension("W", label="learned value W[t, j]")],
            ),
            "learned_image",
            cmap=CODE_CMAP,
            clim=(-high, high),
            clipping_colors={"NaN": NO_ROW},
            colorbar=True,
            invert_yaxis=True,
            framewise=True,
            tools=["hover"],
            hover_tooltips=[
                ("position t", "$y{custom}"),
                ("dimension j", "$x{0}"),
                ("value (NaN = no row)", "@image{0.000}"),
            ],
            hover_formatters={"$y": drawn_row_hover()},
            ylim=drawn.y_range,
            hooks=[self._learned_zoom],
            **plot_opts(height=340),
        )

    def _learned_rows(self, values: np.ndarray, has_row: bool) -> dict[str, np.ndarray]:
        values = np.asarray(values, dtype=int)
        return self._outline(values[(values < self.max_len) == has_row])

    def _learned_label_rows(self, values: np.ndarray, has_row: bool) -> dict[str, Any]:
        values = np.asarray(values, dtype=int)
        values = values[(values < self.max_len) == has_row]
        top = max(self.n, self.max_len)
        if not has_row:
            where = values.astype(float)
            text = [f"position {v}: no row" for v in values]
        elif top > self.max_len:
            where = np.full(len(values), (self.max_len + top) / 2 - 0.5)
            text = [f"no rows for positions ≥ {self.max_len}"] * len(values)
        else:
            where = np.zeros(len(values))
            text = [""] * len(values)
        return {
            "x": np.full(len(values), (self.d - 1) / 2),
            "y": where,
            "text": np.asarray(text, dtype=object),
            KEY: values,
        }

    @param.depends("d")
    def _learned_marks(self) -> hv.Overlay:
        layers = []
        for has_row, color in ((True, HIGHLIGHT), (False, WARNING)):
            role = "row" if has_row else "no_row"
            layers.append(
                self._outline_pair(
                    f"learned_{role}",
                    color,
                    lambda values, has_row=has_row: self._learned_rows(values, has_row),
                )
            )
            label = self.style(
                self._t.element(
                    f"learned_{role}_label",
                    hv.Labels,
                    lambda values, has_row=has_row: self._learned_label_rows(values, has_row),
                    self._positions,
                    on_top=True,
                    kdims=["x", "y"],
                    vdims=["text"],
                ),
                "learned_marks label",
                text_color=self._ink if has_row else warning_text_color(),
                text_font_size="11pt",
            )
            layers.append(label)
        return hv.Overlay(layers)

    @param.depends("t", "max_len", "d", "n")
    def _learned_readout(self) -> str:
        table = LearnedPositionTable(self.max_len, self.d, seed=0)
        try:
            if not table.has_row(self.t):
                table.lookup(self.t)  # raises before building the table; we show its message
        except PositionOutOfRangeError as err:
            lookup = (
                f'<span style="color:{warning_text_color()}">'
                f"<b>Position {self.t} has no row.</b></span> "
                f"The table stops at row {self.max_len - 1:,}; the model cannot represent "
                f"this position at all. (The lookup says: <i>{escape_text(err)}</i>)"
            )
        else:
            lookup = f"Position {self.t} → row {self.t} of the table ({self.d} learned numbers)."
        presets = " · ".join(
            f"{name}: {rows:,} × {width:,} = {learned_parameter_count(rows, width):,}"
            for name, (rows, width) in LEARNED_PRESETS.items()
        )
        drawn = self._rows_drawn(max(self.n, self.max_len), self.d)
        return (
            f"{lookup}<br>"
            + (f"{drawn}<br>" if drawn else "")
            + f"<b>Parameters:</b> {self.max_len:,} rows × d = {self.d} = "
            f"<b>{table.n_parameters:,}</b> numbers, all learned in training. "
            f"Real models: {presets}."
        )

    def _preset_buttons(self) -> pn.Row:
        def go(rows: int) -> None:
            n = min(max(self.n, rows + 32), self.param.n.bounds[1])
            self.set_state(max_len=rows, n=n, t=rows)

        buttons = []
        for name, (rows, _) in LEARNED_PRESETS.items():
            button = pn.widgets.Button(
                label=f"{name}: {rows:,} rows", color="light", sizing_mode="stretch_width"
            )
            button.on_click(lambda _event, rows=rows: go(rows))
            buttons.append(button)
        return pn.Row(*buttons, sizing_mode="stretch_width")

    def _extra_controls(self) -> list[Any]:
        return [
            pn.pane.Markdown(
                "Jump to a real model's table length (S4), at the first position with no row:",
                margin=(8, 10, 0, 10),
            ),
            self._preset_buttons(),
        ]

    # ---------------------------------------------------------------- figures
    def _build_figures(self) -> dict[str, Figure]:
        #: S1–S4's marks of position t, selected in the browser.
        self._t = BrowserChoice("t", lambda: self.t)
        self.choices = {"t": self._t}
        #: S1 and S4 draw every row of what is in view when zoomed in.
        self._table_detail = RowDetail(self._table_rows, lambda: (self.n, self.d))
        self._learned_detail = RowDetail(
            self._learned_part, lambda: (max(self.n, self.max_len), self.d)
        )
        self._table_zoom = self._table_detail.hook
        self._learned_zoom = self._learned_detail.hook
        table = self.in_place(self._table_image, self._table_highlight(), direct=self._table_drawn)
        clock = self.in_place(self._clock_face(), self._clock_hands, direct=self._clock_drawn).opts(
            hv.opts.Overlay(
                xlim=(-1.25, 1.25),
                ylim=(-1.25, 1.25),
                xaxis=None,
                yaxis=None,
                **plot_opts(responsive=False, frame_width=290, frame_height=290, min_width=None),
            )
        )
        similarity = self.in_place(self._similarity, direct=self._similarity_drawn).opts(
            hv.opts.Overlay(framewise=True, **plot_opts(height=340))
        )
        learned = self.in_place(
            self._learned_image, self._learned_marks, direct=self._learned_drawn
        )
        return {
            "table": Figure(
                title="S1 · The code table",
                plot=table,
                caption=(
                    "Each row is the code of one position, each column one dimension. "
                    "Left columns (fast pairs) flip sign from one position to the next; "
                    "right columns (slow pairs) barely change. The black outline marks "
                    "position t. Colours are pinned to −1 … +1."
                ),
                formula=(
                    r"$$\begin{gathered}PE(t)_{2i} = \sin(t\,\omega_i),\quad "
                    r"PE(t)_{2i+1} = \cos(t\,\omega_i) \\"
                    r"\omega_i = \mathrm{base}^{-2i/d},\quad i = 0,\dots,d/2-1\end{gathered}$$"
                ),
                controls=("t", "n", "d", "base"),
                readout=pn.pane.HTML(
                    self._table_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
            ),
            "clock": Figure(
                title="S2 · The clock face of position t",
                plot=clock,
                caption=(
                    "Each (sin, cos) pair of PE(t) is a clock hand at angle t·ωᵢ from "
                    "12 o'clock. Fast pairs (long, thin, vermillion) spin around many "
                    "times; slow pairs (short, thick, blue) have barely moved. Together the "
                    "hands tell every position apart, like a clock tells seconds from hours."
                ),
                formula=(
                    r"$$\big(PE(t)_{2i},\,PE(t)_{2i+1}\big) = "
                    r"\big(\sin(t\,\omega_i),\,\cos(t\,\omega_i)\big)$$"
                ),
                controls=("t", "d", "base"),
            ),
            "similarity": Figure(
                title="S3 · How alike are two positions' codes?",
                plot=similarity,
                caption=(
                    "The dot product of PE(t) with the code of every position s. It peaks at "
                    "s = t (value d/2) and falls off with distance. Move t: the bump moves "
                    "and keeps its shape, because the value depends only on s − t. That is "
                    "because shifting by k is the same rotation M<sub>k</sub> for every t."
                ),
                formula=(
                    r"$$\begin{gathered}PE(t)\cdot PE(s) = \sum_{i=0}^{d/2-1}"
                    r"\cos\big((s-t)\,\omega_i\big) \\"
                    r"PE(t+k) = M_k\,PE(t),\quad M_k = \mathrm{diag}_i\begin{pmatrix}"
                    r"\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i"
                    r"\end{pmatrix}\end{gathered}$$"
                ),
                controls=("t", "n", "d", "base", "k"),
                readout=pn.pane.HTML(
                    self._shift_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
            ),
            "learned": Figure(
                title="S4 · A learned table has no row past its end",
                plot=learned,
                caption=(
                    "A learned position table (GPT-2, BERT) is a matrix with one trained "
                    "row per position, here filled with random start values. Positions "
                    "0 … max_len − 1 look up their row; past the end (grey) there is "
                    "nothing to look up, so the model cannot take longer inputs."
                ),
                formula=(
                    r"$$p_t = W[t,:],\quad W \in \mathbb{R}^{\text{max\_len}\times d},"
                    r"\quad t < \text{max\_len}$$"
                ),
                controls=("t", "n", "d", "max_len"),
                readout=pn.pane.HTML(
                    self._learned_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
            ),
        }

    # ----------------------------------------------------------- quick check
    @param.depends("t", "d", "base")
    def _quick_answer(self) -> str:
        own = code_similarity(self.t, self.t + 1, self.d, self.base)[self.t]
        return (
            f"PE({self.t})·PE({self.t}) = <b>{own:.3f}</b> = d/2 for d = {self.d}, and the same "
            "for every t and every base: each of the d/2 (sin, cos) pairs adds "
            "sin² + cos² = 1. A code's length never changes; only its direction does."
        )

    def _build_quick_check(self) -> QuickCheck:
        return QuickCheck(
            question=(
                "Without moving anything: what is PE(t)·PE(t), the peak of figure S3, "
                "for the current d? Does it depend on t?"
            ),
            answer=self._quick_answer,
        )
