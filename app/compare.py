"""Page "Compare": what each scheme does past its trained length, side by side.

For a trained length L and a target length L′ (and d, base, H), one column per
scheme, each a small figure and a verdict computed by :mod:`positional_core`,
then a summary table (parameters added, where position enters, what the score
depends on, what happens at L′, order blindness).

Adding a scheme (as T5's relative buckets were) takes three steps:

1. append a :class:`SchemeColumn` to :data:`SCHEME_COLUMNS` (its texts, its
   formula, and the ``compare_order_similarity`` scheme for the order check —
   extend the core's ``COMPARE_SCHEMES`` if it is not there yet);
2. write ``_verdict_<key>(self) -> Verdict`` (numbers from the core);
3. write ``_figure_<key>(self) -> hv.Element`` (a ``param.depends`` method).

The columns, the summary table and the quick check pick it up from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import holoviews as hv
import numpy as np
import panel as pn
import param
from bokeh.models import NumeralTickFormatter
from holoviews.operation.element import interpolate_curve

from positional_core.alibi import alibi_bias_row, alibi_slopes, alibi_weight_factors
from positional_core.attention import compare_order_similarity
from positional_core.extension import (
    band_excess,
    never_complete_turn,
    ntk_scaled_base,
    out_of_band,
    trained_max_angle,
)
from positional_core.learned import (
    LearnedPositionTable,
    learned_parameter_count,
    missing_positions,
)
from positional_core.presets import model_config
from positional_core.relative import t5_bucket_regions, t5_new_buckets, t5_relative_bucket
from positional_core.rope_scaling import RopeScalingError, compute_rope_parameters
from positional_core.sinusoidal import sinusoidal_code, sinusoidal_frequencies

from .inplace import Drawn, Layer, memoized, padded
from .look import (
    OKABE_ITO,
    WARNING,
    Figure,
    QuickCheck,
    escape_text,
    legend_outside,
    plot_opts,
    tidy_log_y_ticks,
)
from .page import Page

__all__ = [
    "ORDER_PAIR",
    "SCHEME_COLUMNS",
    "T5_SETTINGS",
    "ComparePage",
    "SchemeColumn",
    "Verdict",
    "t5_verdict",
]

#: The two sentences of the order check (the Order page's defaults): B reorders A.
ORDER_PAIR = ("dog bites man", "man bites dog")

#: The T5 column's model: T5-base's encoder (bidirectional), from the shipped config.
_T5_CONFIG = model_config("t5-base")
T5_SETTINGS: dict[str, Any] = {
    "num_buckets": int(_T5_CONFIG["relative_attention_num_buckets"]),
    "max_distance": int(_T5_CONFIG["relative_attention_max_distance"]),
    "bidirectional": True,
}
_T5_HEADS = int(_T5_CONFIG["num_heads"])
#: Where each direction's last bucket starts (91 for T5-base).
_T5_REGIONS = t5_bucket_regions(
    T5_SETTINGS["num_buckets"], T5_SETTINGS["max_distance"], T5_SETTINGS["bidirectional"]
)

#: Lengths offered for L and L′: powers of two (model lengths are).
_LENGTHS = [2**k for k in range(7, 21)]


#: Every verdict depends on all the page's settings.
_CONTROLS = ("trained_len", "target_len", "d", "base", "heads")
#: Plot options of one column's figure beyond the shared ones (the circle stays round).
_FIGURE_OPTS: dict[str, dict[str, Any]] = {
    "sinusoidal": {"responsive": False, "frame_width": 230, "frame_height": 230, "min_width": None},
}
#: Figures whose x axis runs over lengths: ticks such as 4k, 16k, 1M.
_SHORT_TICKS = {"learned", "alibi", "t5"}
#: Points drawn per curve in the small figures (drawing only).
_SAMPLES = 160
#: C3's legend: the three RoPE methods, short.
_C3_SHORT = {"none": "none", "interpolation": "interp.", "NTK-aware": "NTK"}
#: C5's two curves: keys after the query, keys before it.
_T5_SIDES = ((1, "key after the query", "#9A6700"), (-1, "key before it", OKABE_ITO["blue"]))

#: Verdict kinds → (edge colour, background): colour-blind safe, the text keeps
#: the theme's colour (readable on light and dark), and every badge says its
#: verdict in words.
_BADGES = {
    "breaks": (WARNING, "rgba(213, 94, 0, 0.16)"),
    "unseen": (OKABE_ITO["orange"], "rgba(230, 159, 0, 0.18)"),
    "fine": (OKABE_ITO["blue"], "rgba(0, 114, 178, 0.16)"),
}

_VERDICT_CSS = """
:host { width: 100%; }
.badge { display: inline-block; font-weight: 700; padding: 0.15em 0.55em; border-radius: 4px;
  border-left: 5px solid; margin-bottom: 0.35em; }
.verdict { line-height: 1.45; font-size: 0.95em; }
.verdict p { margin: 0.25em 0; }
"""
_GRID_CSS = """
:host { grid-template-columns: repeat(2, minmax(0, 1fr)) !important; }
@media (min-width: 1680px) {
  :host { grid-template-columns: repeat(3, minmax(0, 1fr)) !important; }
}
@media (min-width: 2300px) {
  :host { grid-template-columns: repeat(5, minmax(0, 1fr)) !important; }
}
"""
_TABLE_CSS = """
:host { width: 100%; }
.wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.93em; line-height: 1.4; }
th, td { text-align: left; vertical-align: top; padding: 5px 8px;
  border-bottom: 1px solid rgba(128, 128, 128, 0.35); }
th { font-weight: 700; }
td.num { font-variant-numeric: tabular-nums; }
.mark { display: inline-block; width: 0.65em; height: 0.65em; border-radius: 2px;
  margin-right: 0.4em; }
"""


@dataclass(frozen=True)
class Verdict:
    """What a scheme does at the target length, from the core's numbers.

    ``kind`` is ``"breaks"`` (the model cannot run), ``"unseen"`` (it runs on
    inputs it never saw in training) or ``"fine"`` (nothing new). ``headline``
    and ``short`` are plain text; ``detail`` and ``parameters`` are trusted HTML
    built from numbers.
    """

    kind: str
    headline: str
    detail: str
    short: str
    parameters: str


@dataclass(frozen=True)
class SchemeColumn:
    """One scheme of the comparison: its texts and how to check its order blindness."""

    key: str
    title: str
    enters: str
    depends: str
    order_scheme: str
    order_causal: bool
    caption: str
    formula: str


#: The columns, left to right. A scheme is one entry here plus its
#: ``_verdict_<key>`` and ``_figure_<key>`` methods.
SCHEME_COLUMNS: tuple[SchemeColumn, ...] = (
    SchemeColumn(
        key="learned",
        title="Learned table",
        enters="a trained row added to each input vector",
        depends="absolute positions i and j (through their rows)",
        order_scheme="learned",
        order_causal=False,
        caption=(
            "A learned table (GPT-2, BERT) has one trained row per position 0 … L − 1. "
            "Positions from L on (vermillion) have no row at all: past L the model "
            "cannot even be run."
        ),
        formula=(
            r"$$\begin{gathered}x_t = e_{w_t} + W[t] \\ "
            r"W\in\mathbb{R}^{L\times d},\ \ t < L\end{gathered}$$"
        ),
    ),
    SchemeColumn(
        key="sinusoidal",
        title="Sinusoidal codes",
        enters="a fixed code added to each input vector",
        depends="absolute positions (the code mixes with the content)",
        order_scheme="sinusoidal",
        order_causal=False,
        caption=(
            "The slowest (sin, cos) pair of the code as a point on a circle. In training "
            "it only moved along the blue arc; up to L′ it goes on along the vermillion "
            "arc, to codes the model has never seen."
        ),
        formula=(
            r"$$\begin{gathered}PE(t)_{2i} = \sin(t\,\omega_i) \\ "
            r"PE(t)_{2i+1} = \cos(t\,\omega_i) \\ "
            r"\omega_i = \mathrm{base}^{-2i/d}\end{gathered}$$"
        ),
    ),
    SchemeColumn(
        key="rope",
        title="RoPE",
        enters="a rotation of each query and key",
        depends="the offset m − n only",
        order_scheme="rope",
        order_causal=False,
        caption=(
            "Per pair, how far its angles at L′ go beyond the largest angle seen in "
            "training (1 = the trained edge), with no change, with position "
            "interpolation and with the NTK-aware base. Pairs in the grey zone completed "
            "a turn in training and have seen every angle."
        ),
        formula=(
            r"$$\begin{gathered}\text{pair } i \text{ out of band:} \\ "
            r"\theta_i L < 2\pi\ \text{ and }\ \theta'_i L' > \theta_i L\end{gathered}$$"
        ),
    ),
    SchemeColumn(
        key="alibi",
        title="ALiBi",
        enters="a penalty added to each attention score",
        depends="the distance i − j only",
        order_scheme="alibi",
        order_causal=True,
        caption=(
            "The bias of the shallowest head against distance, for the last query of a "
            "training-length input (blue) and of a target-length input (dashed). They lie "
            "on one line: past L there are only longer distances, never a new bias for "
            "a distance already seen."
        ),
        formula=(
            r"$$\begin{gathered}b_{ij} = -m_h\,(i - j) \\ "
            r"m_h = 2^{-8h/H}\end{gathered}$$"
        ),
    ),
    SchemeColumn(
        key="t5",
        title="T5 relative buckets",
        enters="a learned scalar bias per (bucket of j − i, head) added to each score",
        depends="q·k plus the bucket of j − i",
        order_scheme="t5",
        order_causal=False,
        caption=(
            "T5-base's bucket for each distance between key and query (log scale), for "
            "keys after the query and before it. Near distances get a "
            "bucket each, far ones share wider buckets, and from "
            f"{_T5_REGIONS.last_bucket_start} on every distance shares the last bucket: "
            "past L there are only longer distances in a bucket already trained."
        ),
        formula=(
            r"$$\begin{gathered}\mathrm{score}_{ij} = q_i\cdot k_j + \beta^{(h)}_{b(j-i)} \\ "
            r"b(\Delta) = \text{last bucket for } |\Delta| \ge "
            f"{_T5_REGIONS.last_bucket_start}"
            r"\end{gathered}$$"
        ),
    ),
)


def _sci(value: float) -> str:
    """Readable HTML for a number that may be tiny: ``1.1 × 10<sup>−7</sup>``.
    (The ALiBi page has the same helper; a candidate for ``look.py``.)"""
    if value == 0 or 1e-3 <= abs(value) < 1e5:
        return f"{value:.3g}"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa} × 10<sup>{int(exponent)}</sup>".replace("-", "−")


def _similarity_text(value: float) -> str:
    """Three decimals, unless that would print a value below 1 as "1.000"."""
    if abs(1.0 - value) <= 1e-12:
        return "1.000"
    text = f"{value:.3f}"
    return f"{value:.6f}" if text == "1.000" else text


def _order_words(value: float) -> str:
    return "order-blind" if abs(1.0 - value) <= 1e-12 else "order-aware"


def _bucket_list(buckets: np.ndarray) -> str:
    return ", ".join(str(int(b)) for b in buckets)


def t5_verdict(trained_len: int, target_len: int) -> Verdict:
    """The T5 column's verdict: T5-base's encoder trained at L, run at L′.

    A function of the two lengths only (the page offers L ≥ 128, where nothing
    is ever new; shorter L show the other case).
    """
    new = t5_new_buckets(trained_len, target_len, **T5_SETTINGS)
    start = _T5_REGIONS.last_bucket_start
    buckets, max_distance = T5_SETTINGS["num_buckets"], T5_SETTINGS["max_distance"]
    parameters = (
        f"num_buckets × H = {buckets} × {_T5_HEADS} = {buckets * _T5_HEADS:,} "
        "(T5-base, per stack: shared by its layers)"
    )
    model = f"T5-base ({buckets} buckets, max distance {max_distance}, bidirectional)"
    if new.size:
        return Verdict(
            "unseen",
            f"{new.size} new buckets past L",
            (
                f"{model}: trained on L = {trained_len:,} tokens, distances reach only "
                f"{trained_len - 1:,}; at L′ = {target_len:,} offsets fall in buckets "
                f"<b>{_bucket_list(new)}</b>, whose biases were never trained. From "
                f"distance {start} on every distance shares one bucket, so a model trained "
                f"on more than {start} tokens meets no new bucket."
            ),
            f"runs, but {new.size} buckets ({_bucket_list(new)}) never trained",
            parameters,
        )
    detail = (
        f"{model}: every offset up to L′ = {target_len:,} falls in a bucket already "
        f"reached at L = {trained_len:,}: <b>no new bucket</b>."
    )
    if target_len > trained_len and trained_len > start:
        detail += (
            f" Distances ≥ {start} share one bias (the last bucket of each direction): the "
            f"new distances {trained_len:,} … {target_len - 1:,} reuse the bias trained on "
            f"distances {start} … {trained_len - 1:,}."
        )
    return Verdict(
        "fine",
        "No new bucket past L",
        detail,
        f"no new bucket; distances ≥ {start} share one bias",
        parameters,
    )


class ComparePage(Page):
    """Learned, sinusoidal, RoPE, ALiBi and T5 past the trained length, side by side."""

    slug: ClassVar[str] = "compare"
    title: ClassVar[str] = "Compare"
    intro: ClassVar[str] = (
        "A model is trained on inputs of length L and then run on longer ones, of length "
        "L′. What does each scheme do past L? The learned table has no row, sinusoidal "
        "codes are defined but never seen, RoPE pairs leave the band of angles they "
        "trained on, ALiBi's biases stay the same function of distance, and T5's far "
        "distances all share one bucket, so no new bucket appears."
    )

    trained_len = param.Selector(
        default=4096,
        objects={f"{n:,}": n for n in _LENGTHS[:-2]},
        label="Trained length L",
        doc="The longest input seen in training (positions 0 … L − 1).",
    )
    target_len = param.Selector(
        default=16384,
        objects={f"{n:,}": n for n in _LENGTHS},
        label="Target length L′",
        doc="The length the model is run at. At least L.",
    )
    d = param.Integer(
        default=128,
        bounds=(4, 512),
        step=2,
        label="Head dimension d (even)",
        doc="Dimensions of the code (sinusoidal) or of a head (RoPE); d/2 pairs.",
    )
    base = param.Selector(
        default=10_000,
        objects={f"{b:,}": b for b in (1_000, 10_000, 100_000, 500_000, 1_000_000)},
        label="Base",
        doc="Sets the slowest pair's speed (about 2π·base positions per turn). "
        "10,000 in the original transformer; Llama 3 uses 500,000.",
    )
    heads = param.Integer(
        default=8,
        bounds=(1, 128),
        label="ALiBi heads H",
        doc="Number of ALiBi heads; slopes 2^(−8h/H).",
    )

    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "trained_len": {"type": pn.widgets.DiscreteSlider},
        "target_len": {"type": pn.widgets.DiscreteSlider},
        "d": {"type": pn.widgets.IntSlider, "throttled": True},
        "base": {"type": pn.widgets.DiscreteSlider},
        "heads": {"type": pn.widgets.IntSlider},
    }

    def __init__(self, **params: Any) -> None:
        # Last verdicts by (key, settings): the columns and the summary table
        # share one computation. Per instance, never shared between sessions.
        self._verdicts: dict[tuple, Verdict] = {}
        self._order: dict[str, tuple[float, float, float]] = {}
        # C2's unit circle, the same element in every frame: drawn once, never updated.
        self._circle = hv.Ellipse(0, 0, 2).opts(color=OKABE_ITO["grey"], line_width=1, alpha=0.6)
        super().__init__(**params)

    # ------------------------------------------------------------------ rules
    @classmethod
    def constrain(cls, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes: list[str] = []
        if fixed["d"] % 2:
            even = fixed["d"] - 1 if fixed["d"] > 4 else 4
            notes.append(f"d = {fixed['d']} is odd; dimensions come in pairs, so d set to {even}.")
            fixed["d"] = even
        if fixed["target_len"] < fixed["trained_len"]:
            notes.append(
                f"Target length L′ = {fixed['target_len']:,} is shorter than the trained "
                f"length L = {fixed['trained_len']:,}; set to {fixed['trained_len']:,}."
            )
            fixed["target_len"] = fixed["trained_len"]
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    @param.depends("trained_len", "target_len", "d", watch=True)
    def _keep_consistent(self) -> None:
        self.keep_consistent()

    # --------------------------------------------------------------- verdicts
    def _settings(self) -> tuple:
        return (self.trained_len, self.target_len, self.d, self.base, self.heads)

    def verdict(self, key: str) -> Verdict:
        """The verdict of scheme ``key`` for the current settings (cached per settings)."""
        cache_key = (key, *self._settings())
        if cache_key not in self._verdicts:
            if len(self._verdicts) > 4 * len(SCHEME_COLUMNS):
                self._verdicts.clear()
            self._verdicts[cache_key] = getattr(self, f"_verdict_{key}")()
        return self._verdicts[cache_key]

    def order_check(self, column: SchemeColumn) -> tuple[float, float, float]:
        """(similarity with the scheme, without positions, symmetric-ALiBi) for ORDER_PAIR.

        The first value uses the scheme's own mask (``column.order_causal``), the
        second the same mask with no position information; the third is filled for
        ALiBi only (its symmetric form, else NaN).
        """
        if column.key not in self._order:
            a, b = ORDER_PAIR
            own = compare_order_similarity(a, b, column.order_scheme, column.order_causal)
            base = compare_order_similarity(a, b, "none", column.order_causal)
            extra = (
                compare_order_similarity(a, b, "alibi", False)
                if column.order_scheme == "alibi"
                else float("nan")
            )
            self._order[column.key] = (own, base, extra)
        return self._order[column.key]

    def _scale(self) -> float:
        return self.target_len / self.trained_len

    def _verdict_learned(self) -> Verdict:
        length, target = self.trained_len, self.target_len
        missing = missing_positions(length, target)
        table = LearnedPositionTable(length, self.d)  # the table itself is never built
        count = learned_parameter_count(length, self.d)
        parameters = f"L × d = {length:,} × {self.d} = {count:,}"
        if missing == 0:
            return Verdict(
                "fine",
                "Every position has a row",
                f"L′ = L: rows 0 … {length - 1:,} cover every position.",
                "every position has a row",
                parameters,
            )
        last = target - 1
        return Verdict(
            "breaks",
            f"No row for {missing:,} positions",
            (
                f"Rows 0 … {length - 1:,} exist; positions {length:,} … {last:,} have "
                f"<b>no row</b> ({missing:,} positions). Position {last:,} has a row: "
                f"<b>{'yes' if table.has_row(last) else 'no'}</b>. The model cannot be run "
                "at L′ unless the table is extended and trained."
            ),
            f"breaks: no row for {missing:,} positions",
            parameters,
        )

    def _verdict_sinusoidal(self) -> Verdict:
        length, target, pairs = self.trained_len, self.target_len, self.d // 2
        omega = sinusoidal_frequencies(self.d, self.base)
        never = int(never_complete_turn(omega, length).sum())
        unseen = int(out_of_band(omega, length, target).sum())
        seen_angle = float(trained_max_angle(omega, length)[-1])
        target_angle = float(trained_max_angle(omega, target)[-1])
        excess = float(band_excess(omega, length, target)[-1])
        detail = (
            "Codes exist for every position: nothing is missing. "
            f"{never} of {pairs} pairs never completed a turn in training. "
            f"The slowest turns to <b>{target_angle:.3g} rad</b> at L′ against "
            f"{seen_angle:.3g} rad in training ({excess:.3g}× its range)"
        )
        if unseen:
            return Verdict(
                "unseen",
                f"Defined, but {unseen} of {pairs} pairs unseen",
                detail + f": <b>{unseen} of {pairs}</b> pairs show angles, so codes, "
                "the model never trained on.",
                f"runs, but {unseen} of {pairs} pairs reach unseen angles",
                "0 (a fixed formula)",
            )
        return Verdict(
            "fine",
            "Every angle already seen",
            detail + ": every pair stays within angles seen in training.",
            "nothing unseen",
            "0 (a fixed formula)",
        )

    def _rope_counts(self) -> dict[str, Any]:
        length, target = self.trained_len, self.target_len
        common = {"max_position_embeddings": length}
        inv, _ = compute_rope_parameters("default", float(self.base), self.d, **common)
        scale = self._scale()
        linear, _ = compute_rope_parameters(
            "linear", float(self.base), self.d, factor=scale, **common
        )
        ntk, _ = compute_rope_parameters("ntk", float(self.base), self.d, factor=scale, **common)
        return {
            "inv": inv,
            "scale": scale,
            "methods": {"none": inv, "interpolation": linear, "NTK-aware": ntk},
            "counts": {
                "none": int(out_of_band(inv, length, target).sum()),
                "interpolation": int(out_of_band(inv, length, target, linear).sum()),
                "NTK-aware": int(out_of_band(inv, length, target, ntk).sum()),
            },
            "ntk_base": ntk_scaled_base(float(self.base), scale, self.d),
            "never": int(never_complete_turn(inv, length).sum()),
        }

    def _verdict_rope(self) -> Verdict:
        pairs = self.d // 2
        try:
            info = self._rope_counts()
        except (RopeScalingError, ValueError) as err:
            return Verdict(
                "unseen",
                "Cannot compute",
                f"The core refused these settings: {escape_text(err)}",
                "—",
                "0",
            )
        counts, scale = info["counts"], info["scale"]
        detail = (
            f"{info['never']} of {pairs} pairs never completed a turn in training. At L′ "
            f"with no change <b>{counts['none']} of {pairs}</b> pairs leave their band; "
            f"with position interpolation (every θ / {scale:g}): "
            f"<b>{counts['interpolation']}</b>; with the NTK-aware base "
            f"{info['ntk_base']:,.0f}: <b>{counts['NTK-aware']}</b>"
        )
        if counts["NTK-aware"]:
            detail += " (it slows the slowest pair by exactly the factor, the others by less)"
        kind = "unseen" if counts["none"] else "fine"
        headline = (
            f"{counts['none']} of {pairs} pairs leave their band"
            if counts["none"]
            else "Every pair stays in its band"
        )
        return Verdict(
            kind,
            headline,
            detail + ".",
            f"{counts['none']} of {pairs} pairs out of band; {counts['interpolation']} after "
            f"interpolation, {counts['NTK-aware']} with NTK",
            "0 (a fixed rotation)",
        )

    def _alibi_rows(self, slope: float) -> tuple[np.ndarray, np.ndarray]:
        """Bias by distance 0 … for the last query at L and at L′ (core rows, reversed)."""
        length, target = self.trained_len, self.target_len
        trained = alibi_bias_row(slope, length - 1, length)[::-1]
        served = alibi_bias_row(slope, target - 1, target)[::-1]
        return trained, served

    def _verdict_alibi(self) -> Verdict:
        length, target = self.trained_len, self.target_len
        slopes = alibi_slopes(self.heads)
        steep, shallow = float(slopes.max()), float(slopes.min())
        worst = 0.0
        for slope in {steep, shallow}:
            trained, served = self._alibi_rows(slope)
            worst = max(worst, float(np.max(np.abs(trained - served[:length]))))
        edge = float(alibi_weight_factors([shallow], [length])[0, 0])
        detail = (
            "At every distance seen in training the bias at L′ is the same as at L "
            f"(steepest and shallowest of the {self.heads} heads: max |Δ| = <b>{worst:g}</b>)."
        )
        if target > length:
            detail += (
                f" Distances {length:,} … {target - 1:,} are new, but only continue the line "
                f"−m·Δ: even the shallowest head (m = {shallow:.4g}) scales them by at most "
                f"e<sup>−m·L</sup> = {_sci(edge)}."
            )
        return Verdict(
            "fine",
            "Nothing new at any trained distance",
            detail,
            "same bias at every trained distance; only longer distances are new",
            "0 (fixed slopes)",
        )

    def _verdict_t5(self) -> Verdict:
        return t5_verdict(self.trained_len, self.target_len)

    # ---------------------------------------------------------------- figures
    # Each figure is drawn from a ``*_drawn`` frame (app/inplace.py): the
    # columns of its layers, as HoloViews names them, and its axes. The first
    # draw builds HoloViews elements from it; a change sends it as it is.
    @memoized
    @param.depends("trained_len", "target_len", "d")
    def _learned_drawn(self) -> Drawn:
        length, target = self.trained_len, self.target_len
        missing = missing_positions(length, target)
        end = float(max(target, length))
        x0, x1 = np.array([0.0, float(length)]), np.array([float(length), end])
        y0, y1 = np.zeros(2), np.ones(2)
        # Two colours always (HoloViews draws a single one as a constant, not a column).
        color = np.array([OKABE_ITO["blue"], WARNING])
        rows = {
            "left": x0,
            "right": x1,
            "bottom": y0,
            "top": y1,
            "x0": x0,
            "y0": y0,
            "x1": x1,
            "y1": y1,
            "what": np.array(
                [f"has a row (0 … {length - 1:,})", f"no row ({missing:,} positions)"]
            ),
            "count": np.array([length, missing]),
            "c": color,
            "color": color,
        }
        # Always there, empty when every position has a row: a figure whose
        # layers come and go is rebuilt by HoloViews, not redrawn in place.
        no_row = {"x": [target], "y": [1.3], "text": ["no row " if missing else ""]}
        return Drawn(
            sources=[rows, Layer(models={"glyph": {"location": length}}), None, no_row],
            x_range=(0, end),
            y_range=(0, 1.5),
        )

    @param.depends("trained_len", "target_len", "d")
    def _figure_learned(self) -> hv.Overlay:
        drawn = self._learned_drawn()
        rows, edge, _, no_row = drawn.sources
        rects = self.style(
            hv.Rectangles(
                {k: rows[k] for k in ("x0", "y0", "x1", "y1", "what", "count", "c")},
                kdims=["x0", "y0", "x1", "y1"],
                vdims=["what", "count", "c"],
            ),
            "c1 rows",
            color="c",
            line_color=None,
            tools=["hover"],
            hover_tooltips=[("positions", "@what"), ("count", "@count{0,0}")],
            show_legend=False,
        )
        edge = self.style(
            hv.VLine(edge.models["glyph"]["location"]),
            "c1 L",
            color=self._ink,
            line_dash="dashed",
            line_width=1.5,
        )
        has_row = self.style(
            hv.Text(0, 1.3, " rows", fontsize=9),
            "c1 rows label",
            color=OKABE_ITO["blue"],
            text_align="left",
        )
        no_row = hv.Text(no_row["x"][0], no_row["y"][0], no_row["text"][0], fontsize=9)
        no_row = self.style(no_row, "c1 no row", color=WARNING, text_align="right")
        return self.style(
            hv.Overlay([rects, edge, has_row, no_row]),
            "c1",
            xlabel="position t",
            ylabel="",
            yaxis=None,
            xlim=drawn.x_range,
            ylim=drawn.y_range,
        )

    @memoized
    @param.depends("trained_len", "target_len", "d", "base")
    def _sinusoidal_drawn(self) -> Drawn:
        length, target = self.trained_len, self.target_len

        def arc(start: float, stop: float) -> dict[str, np.ndarray]:
            positions = np.linspace(start, stop, _SAMPLES)
            codes = np.array([sinusoidal_code(t, self.d, self.base)[-2:] for t in positions])
            omega = sinusoidal_frequencies(self.d, self.base)[-1]
            return {
                "x": codes[:, 0],
                "y": codes[:, 1],
                "t": positions,
                "angle": positions * omega,
            }

        seen, beyond = arc(0, length - 1), arc(length - 1, target - 1)
        ends = {"x": np.array([seen["x"][-1], beyond["x"][-1]])}
        ends["y"] = np.array([seen["y"][-1], beyond["y"][-1]])
        return Drawn(
            sources=[
                None,  # the unit circle, never changed
                {"x": seen["x"], "y": seen["y"]},
                {"x": beyond["x"], "y": beyond["y"]},
                {k: np.concatenate([seen[k], beyond[k]]) for k in seen},
                {**ends, "color": np.array([OKABE_ITO["blue"], WARNING])},
                {
                    "x": np.array([0.0, ends["x"][0] * 1.28, ends["x"][1] * 1.28]),
                    "y": np.array([1.18, ends["y"][0] * 1.28, ends["y"][1] * 1.28]),
                    "text": np.array(["t = 0", "L", "L′"]),
                },
            ],
            x_range=(-1.4, 1.4),
            y_range=(-1.4, 1.4),
        )

    @param.depends("trained_len", "target_len", "d", "base")
    def _figure_sinusoidal(self) -> hv.Overlay:
        drawn = self._sinusoidal_drawn()
        _, seen, beyond, dots, ends, labels = drawn.sources
        kdims = [hv.Dimension("x", label="sin(t·ω)"), hv.Dimension("y", label="cos(t·ω)")]
        hover = [("position t", "@t{0,0}"), ("angle t·ω (rad)", "@angle{0.000}")]
        # The arcs as curves drawn in order of position: one line each, which
        # HoloViews builds, measures and updates at a fraction of a Path's cost
        # (its multi-path machinery was ~11 % of a change of L here).
        seen_path = self.style(
            hv.Curve(seen, *kdims), "c2 seen", color=OKABE_ITO["blue"], line_width=6
        )
        beyond_path = self.style(hv.Curve(beyond, *kdims), "c2 beyond", color=WARNING, line_width=3)
        dots = self.style(
            hv.Points(dots, kdims=kdims, vdims=["t", "angle"]),
            "c2 dots",
            size=6,
            alpha=0,
            hover_alpha=1,
            color=self._ink,
            tools=["hover"],
            hover_tooltips=hover,
        )
        ends = self.style(
            hv.Points(
                {"x": ends["x"], "y": ends["y"], "c": ends["color"]}, kdims=kdims, vdims=["c"]
            ),
            "c2 ends",
            color="c",
            size=9,
            tools=[],
        )
        labels = self.style(
            hv.Labels(labels, kdims=kdims, vdims="text"),
            "c2 labels",
            text_color=self._ink,
            text_font_size="10pt",
            tools=[],
        )
        return self.style(
            self._circle * seen_path * beyond_path * dots * ends * labels,
            "c2",
            xlim=drawn.x_range,
            ylim=drawn.y_range,
            xaxis=None,
            yaxis=None,
        )

    @memoized
    @param.depends("trained_len", "target_len", "d", "base")
    def _rope_drawn(self) -> Drawn | None:
        """C3's frame; None when the core cannot compute the schedule."""
        length, target = self.trained_len, self.target_len
        try:
            info = self._rope_counts()
        except (RopeScalingError, ValueError):
            return None
        inv = info["inv"]
        completed = int((~never_complete_turn(inv, length)).sum())
        pair = np.arange(inv.size)
        # A data-driven span (a glyph with a source), always present: a new L only
        # patches its data.
        spans = {
            "pair": np.array([-0.5] if completed else []),
            "pair_end": np.array([completed - 0.5] if completed else []),
        }
        dots = []
        for method, scaled in info["methods"].items():
            flagged = out_of_band(inv, length, target, scaled)
            dots.append(
                {
                    "pair": pair,
                    "excess": band_excess(inv, length, target, scaled),
                    "out": np.where(flagged, "yes", "no"),
                    "method": np.full(pair.size, method),
                }
            )
        # Every ratio is 1 at L′ = L: a log axis padded around one value would
        # reach below 0. A factor of 2 each way then; else the data, padded.
        low = float(min(np.min(d["excess"]) for d in dots))
        high = float(max(np.max(d["excess"]) for d in dots))
        y_range = (low / 2, high * 2) if high < 1.5 * low else padded(low, high, log=True)
        return Drawn(
            sources=[spans, None, *dots],
            x_range=(-1, inv.size),
            y_range=y_range,
            hooks=[tidy_log_y_ticks],
        )

    @param.depends("trained_len", "target_len", "d", "base")
    def _figure_rope(self) -> hv.Overlay:
        drawn = self._rope_drawn()
        if drawn is None:
            return hv.Overlay([hv.Text(0, 0, "cannot compute")])
        spans, _, *dots = drawn.sources
        colors = {"none": WARNING, "interpolation": OKABE_ITO["blue"], "NTK-aware": "#9A6700"}
        markers = {"none": "circle", "interpolation": "square", "NTK-aware": "triangle"}
        # Named after the pair axis: Panel links the x axes of figures whose
        # dimensions share a name, and C4's span runs to L′.
        pair_dim = hv.Dimension("pair", label="pair i (0 = fastest)", range=drawn.x_range)
        excess_dim = hv.Dimension("excess", label="angle at L′ / trained edge", range=drawn.y_range)
        layers: list[Any] = [
            self.style(
                hv.VSpans(
                    list(zip(spans["pair"], spans["pair_end"], strict=True)),
                    kdims=[pair_dim, "pair_end"],
                ),
                "c3 trained",
                color=OKABE_ITO["grey"],
                alpha=0.2,
                line_alpha=0,
                tools=[],
            ),
            self.style(
                hv.HLine(1.0), "c3 edge", color=self._ink, line_dash="dashed", line_width=1.2
            ),
        ]
        for data in dots:
            method = str(data["method"][0])
            layers.append(
                self.style(
                    hv.Scatter(
                        data,
                        kdims=[pair_dim],
                        vdims=[excess_dim, "out", "method"],
                        label=_C3_SHORT[method],
                    ),
                    f"c3 {method}",
                    color=colors[method],
                    marker=markers[method],
                    size=6,
                    alpha=0.85,
                    tools=["hover"],
                    hover_tooltips=[
                        ("pair i", "@pair"),
                        ("method", "@method"),
                        ("θ′L′ / (θL)", "@excess{0.000}"),
                        ("out of band", "@out"),
                    ],
                )
            )
        return self.style(
            hv.Overlay(layers),
            "c3",
            logy=True,
            xlabel="pair i (0 = fastest)",
            ylabel="angle at L′ / trained edge",
            hooks=[tidy_log_y_ticks],
            legend_cols=3,
            **legend_outside("top", label_text_font_size="8pt", glyph_width=12, spacing=2),
            show_legend=True,
        )

    @memoized
    @param.depends("trained_len", "target_len", "heads")
    def _alibi_drawn(self) -> Drawn:
        length = self.trained_len
        shallow = float(alibi_slopes(self.heads).min())
        rows = self._alibi_rows(shallow)

        def sampled(row: np.ndarray) -> dict[str, np.ndarray]:
            index = np.unique(np.linspace(0, row.size - 1, _SAMPLES).round().astype(int))
            return {"delta": index, "bias": row[index]}

        trained, served = (sampled(row) for row in rows)
        # As HoloViews pads a curve's data: 10 % above and below, none along x.
        low = float(min(trained["bias"].min(), served["bias"].min()))
        high = float(max(trained["bias"].max(), served["bias"].max()))
        return Drawn(
            sources=[trained, served, Layer(models={"glyph": {"location": length}})],
            x_range=(0, int(max(trained["delta"][-1], served["delta"][-1]))),
            y_range=padded(low, high),
        )

    @param.depends("trained_len", "target_len", "heads")
    def _figure_alibi(self) -> hv.Overlay:
        drawn = self._alibi_drawn()
        trained, served, edge = drawn.sources
        kdims = [hv.Dimension("delta", label="distance Δ = i − j", range=drawn.x_range)]
        vdims = [hv.Dimension("bias", label="bias −m·Δ", range=drawn.y_range)]
        served_curve = self.style(
            hv.Curve(served, kdims=kdims, vdims=vdims, label="query at L′ − 1"),
            "c4 served",
            color=WARNING,
            line_width=2,
            line_dash="dashed",
            tools=["hover"],
        )
        trained_curve = self.style(
            hv.Curve(trained, kdims=kdims, vdims=vdims, label="query at L − 1"),
            "c4 trained",
            color=OKABE_ITO["blue"],
            line_width=5,
            alpha=0.8,
            tools=["hover"],
        )
        edge = self.style(
            hv.VLine(edge.models["glyph"]["location"]),
            "c4 L",
            color=self._ink,
            line_dash="dotted",
            line_width=1.2,
        )
        return self.style(
            trained_curve * served_curve * edge,
            "c4",
            legend_position="top_right",
            legend_opts={"label_text_font_size": "8pt"},
            show_legend=True,
        )

    @memoized
    @param.depends("trained_len", "target_len")
    def _t5_drawn(self) -> Drawn:
        length, target = self.trained_len, self.target_len
        max_distance = T5_SETTINGS["max_distance"]
        # Every distance up to max_distance (where the buckets change), then a log
        # sample to L′ − 1 (one bucket there): the steps are exact.
        far = np.geomspace(max_distance + 1, max(target - 1, max_distance + 2), _SAMPLES // 4)
        distance = np.unique(
            np.concatenate([np.arange(1, max_distance + 1), far.round().astype(int)])
        )
        distance = distance[distance <= max(target - 1, 1)]
        curves = []
        for sign, _label, _color in _T5_SIDES:
            buckets = t5_relative_bucket(sign * distance, **T5_SETTINGS)
            # Drawn as steps (``interpolation="steps-post"``): HoloViews' own points.
            steps, (values,) = interpolate_curve.pts_to_poststep(distance, [buckets])
            curves.append({"distance": steps, "bucket": values})
        return Drawn(
            sources=[
                # A data-driven span: a new L or L′ patches its data.
                {"distance": np.array([length]), "distance_end": np.array([max(target, length)])},
                *curves,
                None,  # the last bucket's start, never moved
                Layer(models={"glyph": {"location": length}}),
                None,
                {"x": [length], "y": [2], "text": [" L"]},
            ],
            x_range=(1, max(target, length)),
            # Headroom above the top bucket for the legend, clear of the curves.
            y_range=(-1, T5_SETTINGS["num_buckets"] * 1.3),
        )

    @param.depends("trained_len", "target_len")
    def _figure_t5(self) -> hv.Overlay:
        drawn = self._t5_drawn()
        span, *curves, _, edge, _, length_label = drawn.sources
        start = _T5_REGIONS.last_bucket_start
        kdim = hv.Dimension("distance", label="distance |j − i| (positions)")
        vdim = hv.Dimension("bucket", label="bucket b(j − i)")
        hover = [("distance |j − i|", "@distance{0,0}"), ("bucket", "@bucket")]
        layers: list[Any] = [
            self.style(
                hv.VSpans(
                    [(span["distance"][0], span["distance_end"][0])],
                    kdims=[kdim, "distance_end"],
                ),
                "c5 new",
                color=WARNING,
                alpha=0.12,
                line_alpha=0,
                tools=[],
            )
        ]
        for data, (sign, label, color) in zip(curves, _T5_SIDES, strict=True):
            points = {k: v[0::2] for k, v in data.items()}  # the steps' corners
            layers.append(
                self.style(
                    hv.Curve(points, kdim, vdim, label=label),
                    f"c5 {sign}",
                    interpolation="steps-post",
                    color=color,
                    line_width=2.5,
                    tools=["hover"],
                    hover_tooltips=hover,
                )
            )
        ink = self._ink
        length = edge.models["glyph"]["location"]
        layers += [
            self.style(hv.VLine(start), "c5 last", color=ink, line_dash="dashed", line_width=1.2),
            self.style(hv.VLine(length), "c5 L", color=ink, line_dash="dotted", line_width=1.5),
            self.style(
                hv.Text(start, 2, f" {start}: last bucket ", fontsize=8),
                "c5 last label",
                color=ink,
                text_align="right",
            ),
            self.style(
                hv.Text(
                    length_label["x"][0], length_label["y"][0], length_label["text"][0], fontsize=9
                ),
                "c5 L label",
                color=ink,
                text_align="left",
            ),
        ]
        return self.style(
            hv.Overlay(layers),
            "c5",
            logx=True,
            xlim=drawn.x_range,
            ylim=drawn.y_range,
            yticks=[0, 8, 16, 24, T5_SETTINGS["num_buckets"] - 1],
            xlabel="distance |j − i| (log scale)",
            ylabel="bucket b(j − i)",
            legend_position="top_left",
            legend_cols=2,
            legend_opts={"label_text_font_size": "8pt", "glyph_width": 12, "spacing": 10},
            show_legend=True,
        )

    # -------------------------------------------------------------- readouts
    def verdict_html(self, column: SchemeColumn) -> str:
        """The verdict of one column as HTML (numbers only; no user text)."""
        v = self.verdict(column.key)
        color, background = _BADGES[v.kind]
        own, base, _ = self.order_check(column)
        a, b = ORDER_PAIR
        order = f"Order: “{a}” vs “{b}” → {_similarity_text(own)}, {_order_words(own)}"
        if column.order_causal:
            order += f" (causal mask alone: {_similarity_text(base)})"
        return (
            f'<div class="verdict"><span class="badge" style="border-color:{color};'
            f'background:{background}">{escape_text(v.headline)}</span>'
            f"<p>{v.detail}</p><p><i>Parameters added:</i> {v.parameters}.</p>"
            f"<p>{order}.</p></div>"
        )

    def _verdict_ref(self, column: SchemeColumn) -> Callable[..., str]:
        """A reference that re-renders ``column``'s verdict when a setting changes."""
        return pn.bind(lambda *_: self.verdict_html(column), *(self.param[n] for n in _CONTROLS))

    @param.depends("trained_len", "target_len", "d", "base", "heads")
    def _summary_table(self) -> str:
        head = (
            "<tr><th>scheme</th><th>parameters added</th><th>where position enters</th>"
            "<th>the score depends on</th>"
            f"<th>at L′ = {self.target_len:,} (trained L = {self.trained_len:,})</th>"
            f"<th>order check: “{ORDER_PAIR[0]}” vs “{ORDER_PAIR[1]}”</th></tr>"
        )
        rows = []
        for column in SCHEME_COLUMNS:
            v = self.verdict(column.key)
            own, base, extra = self.order_check(column)
            order = f"{_similarity_text(own)}: {_order_words(own)}"
            if column.order_causal:
                order += f" with its causal mask (the mask alone: {_similarity_text(base)})"
            if not np.isnan(extra):
                order += (
                    f"; symmetric −m·|i − j|: {_similarity_text(extra)}, {_order_words(extra)}"
                    " for this pair — reversing a sentence keeps every distance"
                )
            color, _ = _BADGES[v.kind]
            rows.append(
                f"<tr><td><b>{column.title}</b></td><td class='num'>{v.parameters}</td>"
                f"<td>{column.enters}</td><td>{column.depends}</td>"
                f'<td><span class="mark" style="background:{color}"></span>'
                f"{escape_text(v.short)}</td>"
                f"<td class='num'>{order}</td></tr>"
            )
        none = compare_order_similarity(*ORDER_PAIR, "none", False)
        note = (
            f"<p>With no position information at all the two sentences give "
            f"{_similarity_text(none)}: {_order_words(none)}. Every value above is computed "
            "by the same fixed attention layer as the Order page.</p>"
        )
        return f'<div class="wrap"><table>{head}{"".join(rows)}</table></div>{note}'

    def _build_figures(self) -> dict[str, Figure]:
        figures = {}
        small = plot_opts(height=270, min_width=200, toolbar=None, fontscale=0.95)
        for column in SCHEME_COLUMNS:
            method = getattr(self, f"_figure_{column.key}")
            opts = {**small, **_FIGURE_OPTS.get(column.key, {})}
            if column.key in _SHORT_TICKS:
                # One model per figure, set once: a Bokeh model belongs to one
                # document (session), and a new formatter per frame would be a
                # new figure option, so HoloViews would rebuild the figure
                # instead of it being redrawn in place.
                opts["xformatter"] = NumeralTickFormatter(format="0a")
            drawn = getattr(self, f"_{column.key}_drawn")
            plot = self.in_place(method, direct=drawn).opts(hv.opts.Overlay(framewise=True, **opts))
            figures[column.key] = Figure(
                title=column.title,
                plot=plot,
                caption=column.caption,
                formula=column.formula,
                controls=_CONTROLS,
                readout=pn.pane.HTML(
                    self._verdict_ref(column),
                    stylesheets=[_VERDICT_CSS],
                    sizing_mode="stretch_width",
                    margin=(0, 10),
                ),
            )
        return figures

    def _arrange(self, cards: list[pn.viewable.Viewable]) -> pn.viewable.Viewable:
        # Two columns on a laptop (more would leave each figure too narrow to read;
        # the fifth card starts a third row), three on a wide screen, all five
        # side by side on a very wide one.
        grid = pn.GridBox(*cards, ncols=2, sizing_mode="stretch_width", stylesheets=[_GRID_CSS])
        summary = pn.Card(
            pn.pane.HTML(
                self._summary_table, stylesheets=[_TABLE_CSS], sizing_mode="stretch_width"
            ),
            title="Summary: what each scheme adds, and what happens at L′",
            collapsible=False,
            sizing_mode="stretch_width",
            margin=(6, 6),
        )
        return pn.Column(grid, summary, sizing_mode="stretch_width")

    # ----------------------------------------------------------- quick check
    @param.depends("trained_len", "target_len", "d", "base")
    def _quick_answer(self) -> str:
        pairs = self.d // 2
        try:
            counts = self._rope_counts()["counts"]
        except (RopeScalingError, ValueError) as err:
            return f"<b>Cannot compute</b>: {escape_text(err)}"
        return (
            f"d = {self.d}, base {self.base:,}, L = {self.trained_len:,} → L′ = "
            f"{self.target_len:,}: <b>{counts['none']} of {pairs}</b> pairs meet angles "
            f"they never saw with no change, <b>{counts['interpolation']}</b> after position "
            f"interpolation and <b>{counts['NTK-aware']}</b> with the NTK-aware base. "
            "Interpolation divides every speed by L′/L, so every pair ends exactly at its "
            "trained edge; the NTK base slows only the slowest pair by the full factor."
        )

    def _build_quick_check(self) -> QuickCheck:
        return QuickCheck(
            question=(
                "With the current settings (at the start: d = 128, trained on L = 4,096 tokens, "
                "run on L′ = 16,384 with no change), how many of the d/2 RoPE pairs meet "
                "angles they never saw in training, and how many after position interpolation?"
            ),
            answer=self._quick_answer,
        )
