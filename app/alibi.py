"""Page "ALiBi": a distance penalty on the attention scores instead of position vectors (A1–A4).

Every number comes from :mod:`positional_core`; this module only chooses what
to draw. The per-head data (bias matrix and its softmax weights, one head at a
time, at most 128 × 128) is computed once per (H, T, mask, head, form) and kept
in a small per-instance cache, so moving the query row only re-selects a row of
data already computed, and flipping head or form back and forth costs nothing.
No (H, T, T) array is ever built: the page shows one head's matrix, and builds
only that.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import holoviews as hv
import numpy as np
import panel as pn
import param
from bokeh.models import CustomJSHover

from positional_core.alibi import (
    alibi_bias_row,
    alibi_half_lives,
    alibi_head_bias,
    alibi_slope_sources,
    alibi_slopes,
    alibi_weight_factors,
)
from positional_core.attention import softmax
from positional_core.presets import model_config

from .choice import KEY, BrowserChoice
from .inplace import Drawn, Layer, memoized, padded
from .look import (
    HIGHLIGHT,
    OKABE_ITO,
    WARNING,
    Figure,
    QuickCheck,
    is_dark,
    join_items,
    legend_outside,
    notice_pane,
    plot_opts,
)
from .page import Page

__all__ = ["ALIBI_PRESETS", "AlibiPage"]

#: Real ALiBi models: label → shipped config name (``positional_core.presets``).
ALIBI_PRESETS: dict[str, str] = {
    "BLOOM-560m": "bloom-560m",
    "BLOOM": "bloom",
    "MPT-7B": "mpt-7b",
}
#: Points per decay curve: the curves are exponentials, smooth at any zoom
#: with a few hundred points on a log axis (128 heads → 25,600 points).
_CURVE_POINTS = 200
#: Per-head matrices kept per page (each at most 2 × 128 × 128 floats).
_CACHE_SIZE = 8
#: Key of a (head, row) choice: head · 128 + row (rows are < 128).
_ROW_STRIDE = 128

_FORM_LABELS = {"distance": "−m·(i − j)", "column": "+m·j"}
_MASK_LABELS = {"causal": "causal", "symmetric": "symmetric |i − j|"}
_SOURCE_COLORS = {"own": OKABE_ITO["blue"], "extra": OKABE_ITO["orange"]}

_KEY = hv.Dimension("key", label="key position j")
_QUERY = hv.Dimension("query", label="query position i")


# The bias image holds NaN where the causal mask hides a key (−∞ in the core).
def _bias_hover() -> CustomJSHover:
    """Hover text of a bias: masked cells say so. A new model per plot: a Bokeh
    model belongs to one document, so a module-level one would be shared by
    every session and break the second."""
    return CustomJSHover(code="return Number.isNaN(value) ? 'masked (−∞)' : value.toFixed(4)")


_TABLE_CSS = """
:host { width: 100%; }
.scroll { max-height: 240px; overflow-y: auto; border: 1px solid rgba(128,128,128,0.35);
  border-radius: 4px; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em;
  font-variant-numeric: tabular-nums; }
th { position: sticky; top: 0; z-index: 1; background: var(--panel-surface-color, #fff);
  text-align: right; padding: 3px 8px; border-bottom: 1px solid rgba(128,128,128,0.5); }
td { text-align: right; padding: 2px 8px; }
td.src { text-align: left; }
tr.extra td.src { color: inherit; }
.swatch { display: inline-block; width: 0.7em; height: 0.7em; border-radius: 50%;
  margin-right: 0.35em; vertical-align: baseline; }
"""


def _exponent(source: tuple[int, int]) -> Fraction:
    """``8h/P`` for a slope ``2^(−8h/P)`` (exact, for display)."""
    power, place = source
    return Fraction(8 * place, power)


def _power_text(source: tuple[int, int], html: bool = True) -> str:
    """``2^(−8h/P)`` written with its simplified exponent, e.g. ``2^−3`` or ``2^−1/2``."""
    exp = _exponent(source)
    text = f"−{exp}" if exp.denominator == 1 else f"−{exp.numerator}/{exp.denominator}"
    return f"2<sup>{text}</sup>" if html else f"2^{text}"


def _slope_text(slope: float, source: tuple[int, int]) -> str:
    """A slope as ``1/2^k`` when it is one, else four significant digits."""
    exp = _exponent(source)
    if exp.denominator == 1:
        return f"1/{2**exp.numerator:,}"
    return f"{slope:.4g}"


def _num(value: float, digits: int = 4) -> str:
    """``value`` with ``digits`` significant digits and a true minus sign."""
    return f"{value:,.{digits}g}".replace("-", "−")


def _sci(value: float, digits: int = 2) -> str:
    """Readable HTML for numbers that may be tiny: ``1.9 × 10<sup>−22</sup>``."""
    if value == 0 or 1e-3 <= abs(value) < 1e5:
        return _num(value, digits + 1)
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{_num(float(mantissa), digits)} × 10<sup>{_num(int(exponent))}</sup>"


def _difference(value: float) -> str:
    """A max |Δ| between two computed arrays, in words."""
    if value == 0:
        return "0 (not one bit differs)"
    return f"{_sci(value)} (equal up to rounding)" if value <= 1e-12 else _sci(value)


def _form_notes(mask: str) -> list[str]:
    """Why the bias-form buttons are disabled (shown under them)."""
    if mask == "causal":
        return []
    return [
        "Bias form is fixed to −m·|i − j|: +m·j equals −m·(i − j) plus a constant per "
        "row only when the causal mask hides the keys after i."
    ]


@dataclass(frozen=True)
class _HeadMatrices:
    """One head's bias matrix (−∞ where masked) and the softmax weights of every row
    when all content scores are 0, both ``(T, T)``."""

    bias: np.ndarray
    weights: np.ndarray


class AlibiPage(Page):
    """ALiBi (Press et al. 2021): linear biases on the scores, one slope per head."""

    slug: ClassVar[str] = "alibi"
    title: ClassVar[str] = "ALiBi"
    intro: ClassVar[str] = (
        "ALiBi adds no position vector at all. Each head subtracts a penalty "
        "proportional to the distance between query and key from the attention score: "
        "<em>bias = −m·(i − j)</em>. Heads get different slopes m, so some look far back "
        "and some only at the last few tokens. Because the penalty depends on distance "
        "only, a model trained on short inputs meets nothing new on long ones."
    )

    heads = param.Integer(
        default=8,
        bounds=(1, 128),
        label="Heads H",
        doc="Number of attention heads. Powers of two use 2^(−8h/H); other counts "
        "follow the reference code's rule (see the slope table).",
    )
    head = param.Integer(
        default=1,
        bounds=(1, 8),
        label="Head h",
        doc="The selected head (1 = steepest slope of the first sequence). At most H.",
    )
    seq_len = param.Integer(
        default=16,
        bounds=(4, 128),
        label="Sequence length T (A2, A3)",
        doc="Number of positions in the bias matrix and the weight bars.",
    )
    row = param.Integer(
        default=12,
        bounds=(0, 15),
        label="Query row i (A3)",
        doc="The query whose attention weights figure A3 shows. At most T − 1.",
    )
    mask = param.Selector(
        default="causal",
        objects={label: key for key, label in _MASK_LABELS.items()},
        label="Attention: causal (decoders) or symmetric (encoders)",
        doc="Causal: each query sees itself and earlier keys (GPT-style decoders). "
        "Symmetric: every key, with bias −m·|i − j| (bidirectional encoders).",
    )
    form = param.Selector(
        default="distance",
        objects={label: key for key, label in _FORM_LABELS.items()},
        label="Bias form",
        doc="−m·(i − j), the paper's form, or +m·j, what several fast kernels add. "
        "They differ by m·i, the same for a whole row; needs the causal mask.",
    )
    max_distance = param.Integer(
        default=2048,
        bounds=(16, 16384),
        label="Decay curves up to Δ (A4)",
        doc="Largest distance drawn in figure A4.",
    )
    trained_len = param.Integer(
        default=1024,
        bounds=(16, 16384),
        label="Trained length L (A4)",
        doc="The length the model was trained on (marked in A4; MPT-7B: 2,048).",
    )
    distance = param.Integer(
        default=100,
        bounds=(1, 16384),
        label="Distance Δ for the readout (A4)",
        doc="A key this many positions before the query, for the 'train short, "
        "test long' readout under A4.",
    )

    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "heads": {"type": pn.widgets.IntSlider},
        "head": {"type": pn.widgets.IntSlider},
        "seq_len": {"type": pn.widgets.IntSlider},
        "row": {"type": pn.widgets.IntSlider},
        "mask": {"type": pn.widgets.RadioButtonGroup, "color": "primary", "variant": "outline"},
        "form": {"type": pn.widgets.RadioButtonGroup, "color": "primary", "variant": "outline"},
        "max_distance": {"type": pn.widgets.IntSlider, "throttled": True},
        "trained_len": {"type": pn.widgets.IntSlider, "throttled": True},
        "distance": {"type": pn.widgets.IntSlider, "throttled": True},
    }

    def __init__(self, **params: Any) -> None:
        # Opaque (the row is sticky), per theme: vermillion tint on light or dark.
        self._selected_bg = "#5A3A22" if is_dark() else "#F7DCC8"
        # Per-instance cache of per-head matrices (never shared between sessions).
        self._matrices: OrderedDict[tuple, _HeadMatrices] = OrderedDict()
        self._candidates: dict[tuple, _HeadMatrices] = {}
        # Sticky: the selected row stays in view at the top or bottom edge of the
        # scrolled table. (Panel does not re-send a pane's changed stylesheets, so
        # the table marks the selected row itself.)
        self._selected_css = (
            f"tr.selected td {{ background: {self._selected_bg}; font-weight: 700; "
            "position: sticky; top: 1.9em; bottom: 0; }"
        )
        super().__init__(**params)

    # ------------------------------------------------------------------ rules
    @classmethod
    def dynamic_bounds(cls, values: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        return {"head": (1, values["heads"]), "row": (0, values["seq_len"] - 1)}

    @classmethod
    def constrain(cls, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes: list[str] = []
        if fixed["mask"] == "symmetric" and fixed["form"] == "column":
            # The core refuses this pair: +m·j matches −m·|i − j| by no per-row
            # constant, so it is not ALiBi without the causal mask.
            notes.append(
                "The +m·j form needs the causal mask; with symmetric attention the "
                "bias form is −m·|i − j|."
            )
            fixed["form"] = "distance"
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    @param.depends("heads", "seq_len", "mask", "form", watch=True)
    def _keep_consistent(self) -> None:
        self.keep_consistent()

    # ------------------------------------------------------------- the data
    @property
    def causal(self) -> bool:
        return self.mask == "causal"

    @property
    def effective_form(self) -> str:
        """The form drawn: ``form``, except that symmetric attention only has "distance".

        :meth:`constrain` resets ``form`` too; this keeps every view valid even
        while a watcher has not run yet (the core refuses "column" without the mask).
        """
        return self.form if self.causal else "distance"

    def _slopes(self) -> np.ndarray:
        return alibi_slopes(self.heads)

    def _head_matrices(self, head: int, form: str, *, keep: bool = True) -> _HeadMatrices:
        """Bias and weights of one head for the current H, T and mask (cached).

        ``keep=False`` is for the candidates of every head (shipped to the
        browser): those go to a second cache that holds only the current H, T,
        mask and form, so they do not push the selected head out of the first.
        Both are bounded: the candidates are built only under the choice's
        size limit (app/choice.py).
        """
        key = (self.heads, self.seq_len, self.mask, head, form)
        hit = self._matrices.get(key) or self._candidates.get(key)
        if hit is not None:
            if key in self._matrices:
                self._matrices.move_to_end(key)
            return hit
        slope = float(self._slopes()[head - 1])
        bias = alibi_head_bias(slope, self.seq_len, causal=self.causal, form=form)
        data = _HeadMatrices(bias=bias, weights=softmax(bias, axis=-1))
        for array in (data.bias, data.weights):
            array.setflags(write=False)
        if not keep:
            if any(k[:3] != key[:3] or k[4] != form for k in self._candidates):
                self._candidates.clear()
            self._candidates[key] = data
            return data
        self._matrices[key] = data
        while len(self._matrices) > _CACHE_SIZE:
            self._matrices.popitem(last=False)
        return data

    def _current(self) -> _HeadMatrices:
        return self._head_matrices(self.head, self.effective_form)

    def _head_label(self, head: int | None = None) -> str:
        head = self.head if head is None else head
        slope = float(self._slopes()[head - 1])
        source = alibi_slope_sources(self.heads)[head - 1]
        return f"head {head} of {self.heads}, m = {_slope_text(slope, source)}"

    # ------------------------------------------------------- A1 slope chart
    @memoized
    @param.depends("heads")
    def _slopes_drawn(self) -> Drawn:
        slopes = self._slopes()
        sources = alibi_slope_sources(self.heads)
        own = sources[0][0]
        label = {"own": f"{own}-head sequence", "extra": f"every 2nd of {2 * own}"}
        group = np.array([label["own" if p == own else "extra"] for p, _ in sources])
        points = {
            "h": np.arange(1, self.heads + 1),
            "slope": slopes,
            "half_life": np.asarray(alibi_half_lives(slopes), dtype=float),
            "group": group,
            "source": np.array(
                [f"2^(−8·{h}/{p}) = {_power_text((p, h), html=False)}" for p, h in sources]
            ),
            "color": group,  # the colours' column, as HoloViews names it
        }
        return Drawn(
            sources=[
                Layer(
                    points,
                    models={
                        "glyph": {"size": 8 if self.heads <= 32 else 5},
                        # The two groups' names follow H (their colours do not).
                        "color_color_mapper": {
                            "factors": [label["own"], label["extra"]],
                            "palette": [_SOURCE_COLORS["own"], _SOURCE_COLORS["extra"]],
                        },
                    },
                ),
                None,  # the ring round the selected head, selected in the browser
            ],
            x_range=padded(1, self.heads),
            y_range=padded(float(slopes.min()), float(slopes.max()), log=True),
            refresh=[(self._head, ("slope",))],
        )

    @param.depends("heads")
    def _slope_points(self) -> hv.Points:
        drawn = self._slopes_drawn()
        points = drawn.sources[0]
        data = {k: v for k, v in points.columns.items() if k != "color"}
        mapper = points.models["color_color_mapper"]
        return self.style(
            hv.Points(
                data,
                kdims=[
                    hv.Dimension("h", label="head h", range=drawn.x_range),
                    hv.Dimension("slope", label="slope m_h", range=drawn.y_range),
                ],
                vdims=["half_life", "group", "source"],
            ),
            "slope_points",
            color="group",
            cmap=dict(zip(mapper["factors"], mapper["palette"], strict=True)),
            size=points.models["glyph"]["size"],
            logy=True,
            yticks=[(2.0**-k, f"1/{2**k}" if k else "1") for k in range(0, 9)],
            tools=["hover"],
            hover_tooltips=[
                ("head h", "@h"),
                ("slope m", "@slope{0.000000}"),
                ("as a power of 2", "@source"),
                ("half-life (positions)", "@half_life{0.0}"),
                ("from", "@group"),
            ],
            show_legend=True,
            framewise=True,
        )

    # Everything that only follows the selected head or row is drawn from
    # candidates for every head / row, selected in the browser (app/choice.py).
    def _heads_range(self) -> np.ndarray:
        return np.arange(1, self.heads + 1)

    def _rows_range(self) -> np.ndarray:
        return np.arange(self.seq_len)

    def _head_row_keys(self) -> np.ndarray:
        heads, rows = np.meshgrid(self._heads_range(), self._rows_range(), indexing="ij")
        return (heads * _ROW_STRIDE + rows).ravel()

    def _slope_rows(self, heads: np.ndarray) -> dict[str, np.ndarray]:
        heads = np.asarray(heads, dtype=int)
        return {"h": heads, "slope": self._slopes()[heads - 1], KEY: heads}

    @param.depends("heads")
    def _slope_selected(self) -> hv.Points:
        return self.style(
            self._head.element(
                "slope",
                hv.Points,
                self._slope_rows,
                self._heads_range,
                on_top=True,
                kdims=[hv.Dimension("h", label="head h"), hv.Dimension("slope", label="slope m_h")],
            ),
            "slope_selected",
            marker="circle",
            size=16,
            fill_alpha=0,
            line_color=WARNING,
            line_width=3,
            tools=[],
        )

    @param.depends("heads", "head")
    def _slope_table(self) -> str:
        slopes = self._slopes()
        sources = alibi_slope_sources(self.heads)
        halves = alibi_half_lives(slopes)
        own = sources[0][0]
        rows = []
        for h, (slope, source, half) in enumerate(zip(slopes, sources, halves, strict=True), 1):
            power, place = source
            kind = "own" if power == own else "extra"
            swatch = f'<span class="swatch" style="background:{_SOURCE_COLORS[kind]}"></span>'
            rows.append(
                f'<tr class="{kind}{" selected" if h == self.head else ""}" '
                f'data-head="{h}"><td>{h}</td>'
                f"<td>{_slope_text(float(slope), source)}</td>"
                f"<td>{_power_text(source)}</td>"
                f'<td class="src">{swatch}{power} heads, place {place}</td>'
                f"<td>{half:,.1f}</td></tr>"
            )
        head = (
            "<tr><th>head h</th><th>slope m</th><th>as 2<sup>x</sup></th>"
            '<th class="src" style="text-align:left">from: P heads, place</th>'
            "<th>half-life ln 2/m</th></tr>"
        )
        return f'<div class="scroll"><table>{head}{"".join(rows)}</table></div>'

    @param.depends("heads")
    def _sources_readout(self) -> str:
        sources = alibi_slope_sources(self.heads)
        own = sources[0][0]
        first = (
            f"Heads 1–{own} use the {own}-head sequence m<sub>h</sub> = 2<sup>−8h/{own}</sup>"
            if own > 1
            else "Head 1 uses m = 2<sup>−8</sup> = 1/256"
        )
        if own == self.heads:
            return (
                f"<b>H = {self.heads}</b> is a power of two. {first}: a geometric sequence "
                f"from {_slope_text(float(self._slopes()[0]), sources[0])} down to 1/256."
            )
        places = join_items(str(h) for _, h in sources[own:])
        return (
            f"<b>H = {self.heads}</b> is not a power of two (the reference code's rule). "
            f"{first}; heads {own + 1}–{self.heads} "
            f"(<span style='color:{_SOURCE_COLORS['extra']}'>orange</span>) take every other "
            f"slope of the {2 * own}-head sequence, places {places}: they fall between "
            "the first ones instead of repeating them, so the slopes are not sorted."
        )

    # ------------------------------------------------------ A2 bias matrix
    def _image_rows(self, heads: np.ndarray) -> dict[str, Any]:
        """The bias image of each head (NaN where masked) and its colour scale."""
        heads = np.asarray(heads, dtype=int)
        images, limits = [], []
        for head in heads:
            bias = self._head_matrices(int(head), self.effective_form, keep=False).bias
            finite = bias[np.isfinite(bias)]
            limit = float(np.max(np.abs(finite))) if finite.size else 1.0
            images.append(np.where(np.isinf(bias), np.nan, bias))
            limits.append(limit or 1.0)
        count, size = len(heads), float(self.seq_len)
        column = np.empty(count, dtype=object)
        column[:] = images
        return {
            "image": column,
            "x": np.full(count, -0.5),
            "y": np.full(count, -0.5),
            "dw": np.full(count, size),
            "dh": np.full(count, size),
            "__low": -np.asarray(limits),
            "__high": np.asarray(limits),
            KEY: heads,
        }

    def _image_element(self, data: dict[str, Any], **dims: Any) -> hv.Image:
        t = np.arange(self.seq_len)
        return hv.Image((t, t, data["image"][0]), **dims)

    @param.depends("heads", "seq_len", "mask", "form")
    def _bias_image(self) -> hv.Image:
        limit = float(-self._image_rows(np.asarray([self.head]))["__low"][0])
        return self.style(
            self._head.element(
                "image",
                self._image_element,
                self._image_rows,
                self._heads_range,
                follow={"color_mapper": {"low": "__low", "high": "__high"}},
                kdims=[_KEY, _QUERY],
                vdims=[hv.Dimension("bias", label="bias added to the score")],
            ),
            "bias_image",
            cmap="RdBu_r",
            clim=(-limit, limit),
            clipping_colors={"NaN": OKABE_ITO["grey"]},
            colorbar=True,
            invert_yaxis=True,
            tools=["hover"],
            hover_tooltips=[
                ("query i", "$y{0}"),
                ("key j", "$x{0}"),
                ("bias", "@image{custom}"),
            ],
            hover_formatters={"@image": _bias_hover()},
            framewise=True,
        )

    @param.depends("heads", "seq_len", "mask", "form")
    def _matrix_drawn(self) -> Drawn:
        """A2: the image is the head choice's (its colour scale follows the head), the
        row's outline the row choice's."""
        edge = (-0.5, self.seq_len - 0.5)
        return Drawn(
            sources=[None, None, None],
            x_range=edge,
            y_range=edge,
            refresh=[
                (self._head, ("image",)),
                (self._row, ("outline_outer", "outline_inner")),
            ],
        )

    def _outline_rows(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        rows = np.asarray(rows, dtype=int)
        return {"y0": rows - 0.5, "y1": rows + 0.5, KEY: rows}

    @param.depends("seq_len")
    def _row_highlight(self) -> hv.Overlay:
        # The row's outline, moved by the browser (its candidates: every row).
        outer = self._row.element(
            "outline_outer", hv.HSpans, self._outline_rows, self._rows_range, on_top=True
        )
        inner = self._row.element(
            "outline_inner", hv.HSpans, self._outline_rows, self._rows_range, on_top=True
        )
        return self.style(
            outer, "outline_outer", fill_alpha=0, line_color=HIGHLIGHT, line_width=4
        ) * self.style(inner, "outline_inner", fill_alpha=0, line_color="#FFFFFF", line_width=1.5)

    @param.depends("heads", "head", "seq_len", "mask", "form")
    def _bias_readout(self) -> str:
        bias = self._current().bias
        masked = int(np.isinf(bias).sum())
        form = _FORM_LABELS[self.form] if self.causal else "−m·|i − j|"
        where = (
            f"{masked:,} of {bias.size:,} cells are future keys, masked (grey): their "
            "score is −∞, so their weight is exactly 0."
            if self.causal
            else "Symmetric attention: no cell is masked; the bias is the same on both "
            "sides of the diagonal."
        )
        return f"<b>{self._head_label()}</b>, bias {form}. {where}"

    # ---------------------------------------------------- A3 weight bars
    def _split(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        keys = np.asarray(keys, dtype=int)
        return keys // _ROW_STRIDE, keys % _ROW_STRIDE

    def _weights_of(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Weight and bias rows of the (head, row) ``keys``: two (len(keys), T) arrays.

        One cache lookup per head, not per key (ALiBi's largest state has
        128 heads × 128 rows of candidates).
        """
        heads, rows = self._split(keys)
        weights = np.empty((len(heads), self.seq_len))
        bias = np.empty((len(heads), self.seq_len))
        for head in np.unique(heads):
            at = heads == head
            data = self._head_matrices(int(head), self.effective_form, keep=False)
            weights[at] = data.weights[rows[at]]
            bias[at] = data.bias[rows[at]]
        return weights, bias

    def _bar_rows(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        keys = np.asarray(keys, dtype=int)
        _, rows = self._split(keys)
        n, count = self.seq_len, len(keys)
        weights, bias = self._weights_of(keys)
        j = np.tile(np.arange(n), count)
        out = {
            "x0": j - 0.4,
            "y0": np.zeros(n * count),
            "x1": j + 0.4,
            "y1": weights.ravel(),
            "j": j,
            "weight": weights.ravel(),
            "bias": np.where(np.isinf(bias), np.nan, bias).ravel(),
            "distance": (rows[:, None] - np.arange(n)[None, :]).ravel(),
        }
        # The columns HoloViews draws the rectangles from.
        out.update(left=out["x0"], right=out["x1"], bottom=out["y0"], top=out["y1"])
        ends = weights.max(axis=1) * 1.08 if count else np.zeros(0)
        out["__y_end"] = np.repeat(ends, n)
        out[KEY] = np.repeat(keys, n)
        return out

    def _query_rows(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        _, rows = self._split(keys)
        return {"x": rows.astype(float), KEY: np.asarray(keys, dtype=int)}

    def _masked_rows(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        keys = np.asarray(keys, dtype=int)
        _, rows = self._split(keys)
        keep = rows < self.seq_len - 1 if self.causal else np.zeros(len(rows), dtype=bool)
        return {
            "x0": rows[keep] + 0.5,
            "x1": np.full(int(keep.sum()), self.seq_len - 0.5),
            KEY: keys[keep],
        }

    def _masked_label_rows(self, keys: np.ndarray) -> dict[str, Any]:
        keys = np.asarray(keys, dtype=int)
        _, rows = self._split(keys)
        keep = rows < self.seq_len - 1 if self.causal else np.zeros(len(rows), dtype=bool)
        heights = self._weights_of(keys[keep])[0].max(axis=1) if keep.any() else np.zeros(0)
        return {
            "x": (rows[keep] + self.seq_len - 1) / 2 + 0.25,
            "y": np.asarray(heights) * 0.55,
            "text": np.asarray(["masked: weight 0"] * int(keep.sum()), dtype=object),
            KEY: keys[keep],
        }

    @param.depends("heads", "seq_len", "mask", "form")
    def _bars_drawn(self) -> Drawn:
        """A3: every layer is the (head, row) choice's; the axes the page's."""
        top = float(self._current().weights[self.row].max())
        return Drawn(
            sources=[None] * 4,
            x_range=(-0.7, self.seq_len - 0.3),
            y_range=(0, top * 1.08),
            refresh=[(self._pair, ("query", "masked", "bars", "masked_label"))],
        )

    @param.depends("heads", "seq_len", "mask", "form")
    def _weight_bars(self) -> hv.Overlay:
        keys = self._head_row_keys
        bars = self.style(
            self._pair.element(
                "bars",
                hv.Rectangles,
                self._bar_rows,
                keys,
                follow={"y_range": {"end": "__y_end"}},
                kdims=["x0", "y0", "x1", "y1"],
                vdims=["j", "weight", "bias", "distance"],
            ),
            "weight_bars bars",
            color=OKABE_ITO["blue"],
            line_color=None,
            tools=["hover"],
            hover_tooltips=[
                ("key j", "@j"),
                ("distance i − j", "@distance"),
                ("bias", "@bias{custom}"),
                ("weight", "@weight{0.000000}"),
            ],
            hover_formatters={"@bias": _bias_hover()},
        )
        masked = self.style(
            self._pair.element("masked", hv.VSpans, self._masked_rows, keys, kdims=["x0", "x1"]),
            "weight_bars masked",
            color=OKABE_ITO["grey"],
            alpha=0.25,
            line_alpha=0,
        )
        label = self.style(
            self._pair.element(
                "masked_label",
                hv.Labels,
                self._masked_label_rows,
                keys,
                kdims=["x", "y"],
                vdims=["text"],
            ),
            "weight_bars label",
            text_color=self._ink,
            text_font_size="9pt",
            angle=90,
        )
        # The query's own column, behind the bars.
        query = self.style(
            self._pair.element("query", hv.VLines, self._query_rows, keys),
            "weight_bars query",
            color=OKABE_ITO["grey"],
            line_dash="dashed",
        )
        drawn = self._bars_drawn()
        return self.style(
            hv.Overlay([query, masked, bars, label]),
            "weight_bars",
            xlim=drawn.x_range,
            ylim=drawn.y_range,
            xlabel="key position j",
            ylabel="attention weight",
        )

    @param.depends("heads", "head", "seq_len", "row", "mask", "form")
    def _weights_readout(self) -> str:
        data = self._current()
        weights = data.weights[self.row]
        top = int(np.argmax(weights))
        own = f"The largest weight, {weights[top]:.4f}, goes to key j = {top}"
        own += " (the query itself)." if top == self.row else "."
        if not self.causal:
            return (
                f"<b>Row i = {self.row}</b>, symmetric −m·|i − j|: weights fall off on both "
                f"sides of the query. {own} The +m·j form does not exist here: it differs "
                "from −m·(i − j) by m·i only for keys j ≤ i, so it needs the causal mask."
            )
        other = "column" if self.form == "distance" else "distance"
        mine = data
        theirs = self._head_matrices(self.head, other)
        delta = float(np.max(np.abs(mine.weights[self.row] - theirs.weights[self.row])))
        seen = slice(0, self.row + 1)
        shift = theirs.bias[self.row, seen] - mine.bias[self.row, seen]
        spread = float(shift.max() - shift.min())
        same = "the same weights" if delta <= 1e-12 else "different weights"
        return (
            f"<b>Row i = {self.row}</b>: {same} from {_FORM_LABELS['distance']} and "
            f"{_FORM_LABELS['column']}, max |Δ| = <b>{_difference(delta)}</b>. The two bias "
            f"rows differ by {_num(abs(float(shift[0])))} on every visible key (spread "
            f"{_sci(spread)}): that is m·i, a constant for the whole row, and softmax ignores "
            f"a constant. {own}"
        )

    # ---------------------------------------------------- A4 decay curves
    def _distances(self) -> np.ndarray:
        # Drawing only: where to sample the smooth curves (log-spaced distances).
        return np.geomspace(0.5, self.max_distance, _CURVE_POINTS)

    @memoized
    @param.depends("heads", "max_distance")
    def _paths_columns(self) -> dict[str, np.ndarray]:
        slopes = self._slopes()
        delta = self._distances()
        factors = alibi_weight_factors(slopes, delta)
        halves = np.asarray(alibi_half_lives(slopes), dtype=float)
        # One line per head, drawn as a single line broken by NaN after each
        # head: the same picture and hover as one path per head, but columns
        # HoloViews hands to Bokeh as they are (an hv.Contours of 128 paths
        # took about a third of a second per change at H = 128).
        points = delta.size + 1
        column = np.full((self.heads, points), np.nan)
        column[:, :-1] = factors
        return {
            "x": np.tile(np.append(delta, delta[-1]), self.heads),
            "y": column.ravel(),
            "head": np.repeat(np.arange(1, self.heads + 1), points),
            "slope": np.repeat(slopes, points),
            "half_life": np.repeat(halves, points),
        }

    @param.depends("heads", "max_distance")
    def _decay_paths(self) -> hv.Curve:
        return self.style(
            hv.Curve(
                self._paths_columns(),
                kdims=[hv.Dimension("x", label="distance Δ = i − j (positions back, log scale)")],
                vdims=[
                    hv.Dimension("y", label="weight factor e^(−m·Δ)"),
                    "head",
                    "slope",
                    "half_life",
                ],
            ),
            "decay_paths",
            color=OKABE_ITO["sky"],
            alpha=0.75,
            line_width=1.5,
            tools=["hover"],
            hover_tooltips=[
                ("head h", "@head"),
                ("slope m", "@slope{0.000000}"),
                ("half-life", "@half_life{0.0} positions"),
            ],
        )

    def _decay_rows(self, heads: np.ndarray) -> dict[str, np.ndarray]:
        heads = np.asarray(heads, dtype=int)
        delta = self._distances()
        factors = alibi_weight_factors(self._slopes()[heads - 1], delta)
        return {
            "x": np.tile(delta, len(heads)),
            "y": factors.ravel(),
            KEY: np.repeat(heads, delta.size),
        }

    def _half_life_rows(self, heads: np.ndarray, *, text: bool) -> dict[str, Any]:
        heads = np.asarray(heads, dtype=int)
        halves = np.asarray(alibi_half_lives(self._slopes()[heads - 1]), dtype=float)
        rows: dict[str, Any] = {"x": halves, "y": np.full(len(heads), 0.56 if text else 0.5)}
        if text:
            rows["text"] = np.asarray([f" half-life {h:,.1f}" for h in halves], dtype=object)
        rows[KEY] = heads
        return rows

    @param.depends("heads", "max_distance")
    def _decay_selected(self) -> hv.Overlay:
        x_dim = hv.Dimension("x", label="distance Δ = i − j (positions back, log scale)")
        # Moving with the head, on the overlay level (A4 has no legend for it to cover).
        curve = self.style(
            self._head.element(
                "decay",
                hv.Curve,
                self._decay_rows,
                self._heads_range,
                on_top=True,
                kdims=[x_dim],
                vdims=[hv.Dimension("y", label="weight factor e^(−m·Δ)")],
                label="selected head",
            ),
            "decay_selected curve",
            color=WARNING,
            line_width=3.5,
            tools=[],
        )
        point = self.style(
            self._head.element(
                "half_life",
                hv.Points,
                lambda heads: self._half_life_rows(heads, text=False),
                self._heads_range,
                on_top=True,
                kdims=["x", "y"],
            ),
            "decay_selected point",
            color=WARNING,
            size=9,
            tools=[],
        )
        text = self.style(
            self._head.element(
                "half_life_text",
                hv.Labels,
                lambda heads: self._half_life_rows(heads, text=True),
                self._heads_range,
                on_top=True,
                kdims=["x", "y"],
                vdims=["text"],
            ),
            "decay_selected text",
            text_color=self._ink,
            text_align="left",
            text_font_size="10pt",
        )
        return curve * point * text

    def _marks(self) -> list[Layer]:
        """A4's marks: the trained length's line and label, then Δ's."""
        # Drawing only: a label sits on the side of its line with more room.
        # Every mark is always there, a line past the axis off the figure and
        # its label empty: a figure whose layers come and go is rebuilt by
        # HoloViews instead of redrawn in place. (A VLine does not stretch the
        # axis; a Text would, so an empty one stays inside it.)
        length, delta, far = self.trained_len, self.distance, self.max_distance
        right = length * 4 < far
        length_text = f" L = {length:,} " if right else f"L = {length:,} "
        length_text = length_text if length <= far else ""
        delta_text = f" Δ = {delta:,} " if delta <= far else ""

        def label(x: float, text: str, align: str) -> Layer:
            return Layer({"x": [x], "y": [1.06], "text": [text]}, {"glyph": {"text_align": align}})

        return [
            Layer(models={"glyph": {"location": length}}),
            label(min(length, far), length_text, "left" if right else "right"),
            Layer(models={"glyph": {"location": delta}}),
            label(min(delta, far), delta_text, "left" if delta < 8 else "right"),
        ]

    @param.depends("heads", "max_distance", "trained_len", "distance")
    def _decay_drawn(self) -> Drawn:
        # The selected head's layers are the head choice's: shipped again only
        # when what they are drawn from changed (not for a mark's move).
        roles = ("decay", "half_life", "half_life_text")
        delta = self._distances()
        half = float(self._half_life_rows(np.asarray([self.head]), text=False)["x"][0])
        return Drawn(
            sources=[self._paths_columns(), None, None, None, None, *self._marks()],
            # The sampled distances' ends and the selected head's half-life mark, as
            # HoloViews takes them from the data (a curve is not padded along x; on a
            # log axis the ends go through log10).
            x_range=padded(float(delta[0]), max(float(delta[-1]), half), log=True, padding=0),
            refresh=[(self._head, roles, (self.heads, self.max_distance))],
        )

    @param.depends("trained_len", "distance", "max_distance")
    def _decay_marks(self) -> hv.Overlay:
        length_line, length_text, delta_line, delta_text = self._marks()

        def text(layer: Layer, slot: str, color: str) -> hv.Text:
            return self.style(
                hv.Text(layer.columns["x"][0], 1.06, layer.columns["text"][0], fontsize=10),
                slot,
                color=color,
                text_align=layer.models["glyph"]["text_align"],
            )

        layers: list[Any] = [
            self.style(
                hv.HLine(0.5),
                "decay_marks half",
                color=OKABE_ITO["grey"],
                line_dash="dotted",
                line_width=1,
            ),
            self.style(
                hv.VLine(length_line.models["glyph"]["location"]),
                "decay_marks length_line",
                color=self._ink,
                line_dash="dashed",
                line_width=1.5,
            ),
            text(length_text, "decay_marks length_text", self._ink),
            self.style(
                hv.VLine(delta_line.models["glyph"]["location"]),
                "decay_marks delta_line",
                color=OKABE_ITO["green"],
                line_width=1.5,
            ),
            text(delta_text, "decay_marks delta_text", OKABE_ITO["green"]),
        ]
        return hv.Overlay(layers)

    @param.depends("heads", "head", "trained_len", "distance")
    def _long_readout(self) -> str:
        slope = float(self._slopes()[self.head - 1])
        delta, length = self.distance, self.trained_len
        near_query = delta  # the query at position Δ, the key at 0
        far_query = 4 * length + delta  # far past the trained length
        near = float(alibi_bias_row(slope, near_query, near_query + 1)[0])
        far = float(alibi_bias_row(slope, far_query, far_query + 1)[far_query - delta])
        factor, edge = alibi_weight_factors([slope], [delta, length])[0]
        inside = (
            f"at query position {near_query:,} (inside the trained length L = {length:,})"
            if near_query < length
            else f"at query position {near_query:,}"
        )
        new = (
            f"Δ = {delta:,} is already longer than any distance seen in training "
            f"(at most L − 1 = {length - 1:,}); its bias simply continues the same line. "
            if delta >= length
            else ""
        )
        return (
            f"<b>Train short, test long.</b> For {self._head_label()}, a key Δ = {delta:,} "
            f"positions back gets bias −m·Δ = <b>{_num(near)}</b> {inside}, and "
            f"<b>{_num(far)}</b> at query position {far_query:,} (4·L + Δ, far past it): "
            f"difference {_difference(abs(near - far))}. Its weight factor "
            f"e<sup>−m·Δ</sup> = {_sci(factor)}. {new}ALiBi has no absolute position "
            "anywhere, so a longer input shows the model only biases it already knows, plus "
            "longer distances, where the factor is already small for most heads: "
            f"e<sup>−m·L</sup> = {_sci(edge)} for this one."
        )

    # ---------------------------------------------------------------- presets
    def _go_preset(self, name: str) -> None:
        config = model_config(name)
        heads = int(config.get("n_head") or config.get("n_heads"))
        values = {**self._values(), "heads": heads}
        if "max_seq_len" in config:
            values["trained_len"] = int(config["max_seq_len"])
        self._apply(self.constrain(values)[0])

    def _preset_buttons(self) -> pn.Row:
        buttons = []
        for label, name in ALIBI_PRESETS.items():
            config = model_config(name)
            heads = int(config.get("n_head") or config.get("n_heads"))
            button = pn.widgets.Button(
                label=f"{label}: {heads} heads",
                color="light",
                sizing_mode="stretch_width",
                margin=(2, 4),
            )
            button.on_click(lambda _event, name=name: self._go_preset(name))
            buttons.append(button)
        return pn.Column(*buttons, sizing_mode="stretch_width")

    def _radio(self, name: str, **extra: Any) -> list[Any]:
        """A labelled button group for a selector (button groups show no title)."""
        spec = {k: v for k, v in self.widget_specs[name].items() if k != "type"}
        return [
            pn.pane.HTML(
                f'<span style="font-size: 0.9em">{self.param[name].label}</span>',
                margin=(8, 10, 2, 10),
            ),
            pn.widgets.RadioButtonGroup.from_param(
                self.param[name], name="", sizing_mode="stretch_width", **spec, **extra
            ),
        ]

    def _sliders(self, names: list[str]) -> pn.Param:
        return pn.Param(
            self.param,
            parameters=names,
            widgets={n: self.widget_specs[n] for n in names},
            show_name=False,
            sizing_mode="stretch_width",
            margin=0,
        )

    def controls(self) -> pn.viewable.Viewable:
        """The parameter widgets (built from the parameters), the two selectors with a
        title above them; the form buttons are disabled with symmetric attention."""
        if self._controls is None:
            self._controls = pn.Column(
                self._sliders(["heads", "head", "seq_len", "row"]),
                *self._radio("mask"),
                *self._radio(
                    "form", disabled=pn.bind(lambda mask: mask == "symmetric", self.param.mask)
                ),
                notice_pane(pn.bind(_form_notes, self.param.mask), kind="info"),
                self._sliders(["max_distance", "trained_len", "distance"]),
                sizing_mode="stretch_width",
                margin=0,
            )
        return self._controls

    def _extra_controls(self) -> list[Any]:
        return [
            pn.pane.Markdown("Real ALiBi models (sets H):", margin=(8, 10, 0, 10)),
            self._preset_buttons(),
        ]

    # ---------------------------------------------------------------- figures
    def _build_figures(self) -> dict[str, Figure]:
        #: The selected head, the selected row, and both (A3), selected in the browser.
        self._head = BrowserChoice("head", lambda: self.head)
        self._row = BrowserChoice("row", lambda: self.row)
        self._pair = BrowserChoice(
            ("head", "row"), lambda: self.head * _ROW_STRIDE + self.row, strides=(_ROW_STRIDE, 1)
        )
        self.choices = {"head": self._head, "row": self._row, "head, row": self._pair}
        slopes = self.in_place(
            self._slope_points, self._slope_selected, direct=self._slopes_drawn
        ).opts(
            # The legend's options on the overlay, which draws it (set on the
            # points, only its position and columns reached the legend).
            hv.opts.Overlay(
                legend_cols=2,
                **legend_outside("top", label_text_font_size="9pt", spacing=4),
                **plot_opts(height=310),
            )
        )
        matrix = self.in_place(
            self._bias_image, self._row_highlight, direct=self._matrix_drawn
        ).opts(hv.opts.Overlay(**plot_opts(height=340)))
        bars = self.in_place(self._weight_bars, direct=self._bars_drawn).opts(
            hv.opts.Overlay(framewise=True, **plot_opts(height=300))
        )
        decay = self.in_place(
            self._decay_paths, self._decay_selected, self._decay_marks, direct=self._decay_drawn
        ).opts(
            hv.opts.Overlay(
                logx=True,
                ylim=(0, 1.12),
                yticks=[0, 0.25, 0.5, 0.75, 1],
                framewise=True,
                show_legend=False,
                **plot_opts(height=320),
            )
        )
        table = pn.pane.HTML(
            self._slope_table,
            stylesheets=[_TABLE_CSS, self._selected_css],
            sizing_mode="stretch_width",
            margin=(4, 10),
        )
        return {
            "slopes": Figure(
                title="A1 · One slope per head",
                plot=slopes,
                caption=(
                    "Each head h gets a fixed slope m<sub>h</sub> (nothing is learned). For a "
                    "power-of-two H they form a geometric sequence from 2<sup>−8/H</sup> down "
                    "to 1/256 (log scale: a straight line). For other H the reference code "
                    "adds, after the closest smaller power of two P, every other slope of 2P "
                    "(orange). The table gives each slope, the power of two it comes from and "
                    "its half-life; the ringed point is the selected head."
                ),
                formula=(
                    r"$$m_h = 2^{-8h/H},\ h = 1,\dots,H"
                    r"\qquad t_{1/2} = \frac{\ln 2}{m_h}$$"
                ),
                controls=("heads", "head"),
                readout=pn.pane.HTML(
                    self._sources_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
                extras=(table,),
            ),
            "matrix": Figure(
                title="A2 · The bias matrix of head h",
                plot=matrix,
                caption=(
                    "Row i is a query, column j a key; the colour is the number added to "
                    "their attention score. With −m·(i − j) the diagonal is 0 and the penalty "
                    "grows with distance (blue); with +m·j it grows to the right instead "
                    "(red). Grey cells are future keys hidden by the causal mask. The outline "
                    "marks the query row shown in A3. The colour scale follows the head."
                ),
                formula=(
                    r"$$\begin{gathered}\mathrm{score}_{ij} = \frac{q_i\cdot k_j}{\sqrt d}"
                    r" + b_{ij} \\ \text{causal } (j\le i):\ \ b_{ij} = -m\,(i-j)\ \text{ or }"
                    r"\ {+m\,j} \\ \text{symmetric:}\ \ b_{ij} = -m\,|i-j|\end{gathered}$$"
                ),
                controls=("heads", "head", "seq_len", "row", "mask", "form"),
                readout=pn.pane.HTML(
                    self._bias_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
            ),
            "weights": Figure(
                title="A3 · Attention weights of row i, content scores all 0",
                plot=bars,
                caption=(
                    "If every content score q·k were equal, the bias alone would decide where "
                    "query i looks: the weights fall off geometrically with distance, by a "
                    "factor e<sup>−m</sup> per position. Switch the bias form: the matrix in "
                    "A2 changes completely, these bars do not move at all — the two rows "
                    "differ by the constant m·i, and softmax ignores a constant."
                ),
                formula=(
                    r"$$w_{ij} = \frac{e^{b_{ij}}}{\sum_{k\le i} e^{b_{ik}}},\qquad "
                    r"\mathrm{softmax}(x + c) = \mathrm{softmax}(x)$$"
                ),
                controls=("heads", "head", "seq_len", "row", "mask", "form"),
                readout=pn.pane.HTML(
                    self._weights_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
            ),
            "decay": Figure(
                title="A4 · How fast each head forgets",
                plot=decay,
                caption=(
                    "One curve per head: the factor by which its bias scales the weight of a "
                    "key Δ positions back. On this log distance axis all curves have the same "
                    "shape, shifted: each halves at its half-life ln 2 / m (dotted line at "
                    "½). Steep heads see only the last few tokens, shallow heads hundreds. "
                    "The dashed line is the trained length L, the green one the distance of "
                    "the readout below."
                ),
                formula=r"$$\frac{w_{i,\,i-\Delta}}{w_{ii}} = e^{-m_h\Delta}$$",
                controls=("heads", "head", "max_distance", "trained_len", "distance"),
                readout=pn.pane.HTML(
                    self._long_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
            ),
        }

    # ----------------------------------------------------------- quick check
    @param.depends("heads")
    def _quick_answer(self) -> str:
        eight = alibi_slopes(8)
        sources = alibi_slope_sources(8)
        halves = alibi_half_lives(eight)
        listed = ", ".join(_slope_text(float(m), s) for m, s in zip(eight, sources, strict=True))
        current = alibi_slopes(self.heads)
        return (
            f"H = 8: m = <b>{listed}</b> (2<sup>−h</sup>). Their half-lives run from "
            f"<b>{halves[0]:.1f}</b> positions (m = 1/2) to <b>{halves[-1]:.0f}</b> "
            f"(m = 1/256). With the current H = {self.heads} the slopes run from "
            f"{current.max():.4g} down to {current.min():.4g}."
        )

    def _build_quick_check(self) -> QuickCheck:
        return QuickCheck(
            question=(
                "With H = 8 heads, what are the eight slopes, and after how many positions "
                "has the weight of the shallowest head halved?"
            ),
            answer=self._quick_answer,
        )
