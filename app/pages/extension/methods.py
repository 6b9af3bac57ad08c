"""E3 · What the method does to each pair: the slow-down θᵢ/θ′ᵢ and the method's numbers;
E4 · YaRN's ramp (how far each pair is interpolated, shown with the YaRN method)."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np
import panel as pn

from positional_core.rope_scaling import yarn_correction_range, yarn_ramp

from ...cards import formula_pane
from ...chart import Chart, Frame, Mark
from ...look import OKABE_ITO, escape_text, legend_outside, log_ticks, plot_opts
from ...numbers import readable
from .shared import (
    ATTENTION,
    FREQUENCY,
    METHODS,
    PAIR,
    ROWS_CSS,
    SELECTED_ENTRY_CSS,
    method_legend,
    method_lines,
    rows_html,
    sci_hover,
)

#: Llama 3's bands: name shown, colour.
BANDS = {
    "high": ("high (unchanged)", OKABE_ITO["blue"]),
    "medium": ("medium (blended)", OKABE_ITO["orange"]),
    "low": ("low (÷ factor)", OKABE_ITO["vermillion"]),
}

_RAMP_FORMULA = (
    r"r_i = \mathrm{clip}\!\left(\frac{i - \mathrm{lo}}{\mathrm{hi} - \mathrm{lo}}, 0, 1\right)"
)
#: Each method's formula; YaRN's and LongRoPE's ``{attention}`` is filled by :func:`method_formula`.
METHOD_FORMULAS = {
    "default": r"$$\theta'_i = \theta_i = b^{-2i/d}$$",
    "linear": (
        r"$$\theta'_i = \frac{\theta_i}{s}\quad\Longleftrightarrow\quad "
        r"p \mapsto \frac{p}{s}$$"
    ),
    "ntk": r"$$\theta'_i = b'^{\,-2i/d},\qquad b' = b\,s^{d/(d-2)}$$",
    "dynamic": (
        r"$$\theta'_i(S) = b'(S)^{-2i/d},\qquad b'(S) = b\left(\frac{s\,\max(S, L)}{L} - (s-1)"
        r"\right)^{d/(d-2)}$$"
    ),
    "yarn": (
        r"$$\begin{gathered}\theta'_i = (1 - r_i)\,\theta_i + r_i\,\frac{\theta_i}{s},\quad "
        + _RAMP_FORMULA
        + r" \\ {attention}\end{gathered}$$"
    ),
    "llama3": (
        r"$$\begin{gathered}\theta'_i = \theta_i \ \text{ if } \lambda_i < L/h,\qquad "
        r"\theta'_i = \theta_i / s \ \text{ if } \lambda_i > L/l \\"
        r"\text{else } \theta'_i = \Big(\frac{1-\sigma_i}{s} + \sigma_i\Big)\theta_i,\quad "
        r"\sigma_i = \frac{L/\lambda_i - l}{h - l}\end{gathered}$$"
    ),
    "longrope": (
        r"$$\begin{gathered}\theta'_i = \frac{\theta_i}{f_i},\quad f = \text{short\_factor}"
        r" \text{ if } S \le L,\ \text{long\_factor} \text{ if } S > L \\"
        r"{attention}\end{gathered}$$"
    ),
}

#: The attention factor each method derives from s when the config gives none.
_ATTENTION_FORMULAS = {
    "yarn": r"0.1\ln s + 1",
    "longrope": r"\sqrt{1 + \frac{\ln s}{\ln L}}",
}
_MSCALE_FORMULA = (
    r"\frac{0.1\cdot\text{mscale}\cdot\ln s + 1}{0.1\cdot\text{mscale\_all\_dim}\cdot\ln s + 1}"
)


def attention_rule(
    method: str, mscale: float, mscale_all_dim: float, attention_factor: float
) -> str:
    """Which rule sets the attention factor: ``"given"`` (the config's attention_factor),
    ``"mscale"`` (YaRN with mscale and mscale_all_dim both set, as transformers'
    ``get_mscale(s, mscale) / get_mscale(s, mscale_all_dim)``) or ``"formula"``."""
    if attention_factor > 0:
        return "given"
    if method == "yarn" and mscale and mscale_all_dim:  # transformers: both non-zero
        return "mscale"
    return "formula"


def method_formula(
    method: str, mscale: float = 0.0, mscale_all_dim: float = 0.0, attention_factor: float = 0.0
) -> str:
    """The method's formula, with the attention factor's rule that applies to these knobs."""
    formula = METHOD_FORMULAS[method]
    if method not in _ATTENTION_FORMULAS:
        return formula
    rule = attention_rule(method, mscale, mscale_all_dim, attention_factor)
    if rule == "given":
        # Its value is the readout's row above; without it here the formula stays the
        # same text while the knob moves, and the browser does not typeset it again.
        attention = (
            r"\text{attention factor} = \text{attention\_factor}\ "
            r"\text{(given in the config)}"
        )
    elif rule == "mscale":
        attention = (
            rf"\text{{attention factor}} = {_MSCALE_FORMULA},\quad \text{{mscale}} = "
            rf"{readable(mscale)},\ \text{{mscale\_all\_dim}} = {readable(mscale_all_dim)}"
        )
    else:
        attention = rf"\text{{attention factor}} = {_ATTENTION_FORMULAS[method]}"
    return formula.replace("{attention}", attention)


_REFERENCE = ("linear", "ntk")
_NTK_ROW = "NTK-aware base b·s<sup>d/(d−2)</sup>"
_OUT_ROW = "Pairs out of band at L′: no scaling → this method"
_RAMP = hv.Dimension("ramp", label="ramp rᵢ")
_SLOW = hv.Dimension("slowdown", label="slow-down θᵢ / θ′ᵢ (log scale)")
_TOOLTIPS = [
    ("pair i", "@pair"),
    ("slow-down θᵢ/θ′ᵢ", "@slowdown{0.0000}"),
    ("θᵢ (rad / token)", "@theta{custom}"),
    ("θ′ᵢ (rad / token)", "@scaled_theta{custom}"),
    ("Llama 3 band", "@band"),
    ("YaRN ramp rᵢ", "@ramp{0.000}"),
]


def _curve(**style: Any) -> Mark:
    return Mark(hv.Curve, (PAIR,), (_SLOW,), style=style)


class Methods(Chart):
    title = "E3 · What the method does to each pair"
    caption = (
        "How much each pair is slowed down (θᵢ/θ′ᵢ, 1 = unchanged). Interpolation "
        "slows every pair by s, blurring the fast pairs that tell neighbouring "
        "tokens apart; NTK-aware scaling leaves the fastest pair alone and slows the "
        "slowest by s. YaRN and Llama 3 keep fast pairs, interpolate slow ones and "
        "blend in between (YaRN's ramp is shaded here, and drawn in E4 when YaRN is "
        "selected); YaRN also sharpens attention by its attention factor. The numbers "
        "below are the core's."
    )
    formula = r"$$\text{slow-down}_i = \frac{\theta_i}{\theta'_i},\qquad s = \frac{L'}{L}$$"
    depends = FREQUENCY
    y_tick_room = 45
    marks = {  # noqa: RUF012
        "ramp": Mark(
            hv.VSpans,
            ("x0", "x1"),
            style={"color": OKABE_ITO["orange"], "fill_alpha": 0.15, "line_alpha": 0},
        ),
        **method_lines(_curve, _REFERENCE, 3),
        # Each dot in its Llama 3 band's colour, or else the method's.
        "dots": Mark(
            hv.Scatter,
            (PAIR,),
            (_SLOW, "theta", "scaled_theta", "band", "ramp"),
            fields={"fill_color": "tint"},
            hover={"@theta": sci_hover, "@scaled_theta": sci_hover},
            style={"size": 7, "line_color": None, "tools": ["hover"], "hover_tooltips": _TOOLTIPS},
        ),
    }
    options = plot_opts(
        height=300,
        logy=True,
        # Above the frame, in one row: inside, it covered the lines' left ends.
        legend_cols=4,
        **legend_outside("top", stylesheets=[SELECTED_ENTRY_CSS]),
        xlabel=PAIR.label,
        ylabel=_SLOW.label,
    )
    readout_depends = (*FREQUENCY, *ATTENTION, "longrope_source")
    readout_css = ROWS_CSS

    def frame(self, p: Any) -> Frame:
        sch = p.schedule()
        s, n = sch.settings, sch.n_pairs
        pairs = np.arange(n)
        top = float(max(np.nanmax(sch.slowdown), np.nanmax(sch.slowdown_ntk), s.factor, 1.0))
        if sch.bands is not None:
            band = np.array([BANDS[b][0] for b in sch.bands])
            tint = np.array([BANDS[b][1] for b in sch.bands])
        else:
            band, tint = np.full(n, "—"), np.full(n, METHODS[s.method].color)
        span = {"x0": np.zeros(0), "x1": np.zeros(0)}
        if sch.yarn_range is not None:
            low, high = sch.yarn_range[0], min(sch.yarn_range[1], n - 1)
            if high > low:
                span = {"x0": np.array([float(low)]), "x1": np.array([float(high)])}
        y = (0.8, max(top * 1.8, 2.0))
        return Frame(
            ramp=span,
            reference_linear={"pair": pairs, "slowdown": sch.slowdown_linear},
            reference_ntk={"pair": pairs, "slowdown": sch.slowdown_ntk},
            selected={"pair": pairs, "slowdown": sch.slowdown},
            dots={
                "pair": pairs,
                "slowdown": sch.slowdown,
                "theta": sch.theta,
                "scaled_theta": sch.scaled,
                "band": band,
                "ramp": sch.ramp if sch.ramp is not None else np.full(n, np.nan),
                "tint": tint,
            },
            x=(-1, n),
            y=y,
            y_ticks=log_ticks(*y),
            **method_legend(_REFERENCE, s.method),
        )

    def readout(self, p: Any) -> str:
        sch = p.schedule()
        s, n, counts = sch.settings, sch.n_pairs, sch.counts
        L, T = s.trained_len, s.target_len
        rows = {}
        if sch.factor_is_ratio:
            rows["Stretch factor s = L′/L"] = f"{T:,} / {L:,} = <b>{readable(s.factor)}</b>"
        else:
            rows["Stretch factor s (the config's factor); L′/L"] = (
                f"<b>{readable(s.factor)}</b>; {T:,} / {L:,} = <b>{readable(sch.length_ratio)}</b>"
            )
        rows[_NTK_ROW] = f"<b>{round(sch.ntk_base):,}</b>"
        highlight = {_OUT_ROW, _NTK_ROW} if s.method == "ntk" else {_OUT_ROW}
        if s.method == "dynamic":
            dynamic = f"Dynamic NTK base at S = {s.served_len:,}"
            rows[dynamic] = f"<b>{round(sch.dynamic_base):,}</b>"
            highlight.add(dynamic)
        rows[_OUT_ROW] = f"<b>{counts['none']}</b> → <b>{counts['method']}</b> of {n}"
        rows["… with interpolation / NTK-aware"] = f"{counts['linear']} / {counts['ntk']} of {n}"
        rows["Fastest pair's angle per token θ₀ → θ′₀"] = (
            f"{readable(sch.theta[0])} → <b>{readable(sch.scaled[0])}</b> rad"
        )
        rows["Slowest pair slowed by"] = f"{readable(sch.slowest_slowdown)}×"
        rows[_attention_label(p)] = f"<b>{readable(sch.attention_factor, 6)}</b>"
        if sch.yarn_range is not None:
            low, high = (readable(end) for end in sch.yarn_range)
            rows["YaRN ramp (pairs below keep speed, above ÷ s)"] = f"<b>{low}</b> … <b>{high}</b>"
        if sch.band_counts is not None:
            b, (short, long) = sch.band_counts, sch.band_limits
            rows["Llama 3 bands: unchanged / blended / ÷ s"] = (
                f"<b>{b['high']}</b> / <b>{b['medium']}</b> / <b>{b['low']}</b> pairs "
                f"(wavelength &lt; {readable(short)}, &gt; {readable(long)})"
            )
        if s.method == "longrope":
            which = sch.longrope_list
            rows["LongRoPE factors in use"] = (
                f"<b>{which}</b> (S = {s.served_len:,} {'&gt;' if which == 'long' else '≤'} L) "
                f"from {escape_text(p.longrope_source, 60)}"
            )
        return rows_html(rows, highlight)

    def extras(self, p: Any) -> list[Any]:
        formula = pn.bind(method_formula, *(p.param[name] for name in ("method", *ATTENTION)))
        return [formula_pane(formula, margin=(0, 10))]


def _attention_label(p: Any) -> str:
    """The readout's name of the attention factor, with the rule that sets it (the
    formula under the readout spells it out)."""
    if p.method not in _ATTENTION_FORMULAS:
        return "Attention factor"
    rule = attention_rule(p.method, p.mscale, p.mscale_all_dim, p.attention_factor)
    if rule == "given":
        return "Attention factor, given by attention_factor"
    if rule == "mscale":
        return "Attention factor, the mscale / mscale_all_dim ratio"
    return "Attention factor, " + ("0.1·ln s + 1" if p.method == "yarn" else "√(1 + ln s / ln L)")


class Ramp(Chart):
    title = "E4 · YaRN's ramp"
    caption = (
        "YaRN's ramp r<sub>i</sub>: 0 keeps pair i, 1 divides it by s. Pairs that turn "
        "more than beta_fast times within L keep their speed, pairs that turn fewer "
        "than beta_slow times are divided by s, and the pairs between are blended."
    )
    formula = f"$${_RAMP_FORMULA}$$"
    depends = ("d", "base", "trained_len", "beta_fast", "beta_slow", "truncate")
    marks = {  # noqa: RUF012
        "ramp": Mark(
            hv.Curve,
            (PAIR,),
            (_RAMP,),
            style={"color": OKABE_ITO["orange"], "line_width": 2.5, "tools": ["hover"]},
        ),
    }
    options = plot_opts(height=170, ylim=(-0.05, 1.05))

    def frame(self, p: Any) -> Frame:
        low, high = yarn_correction_range(
            p.base,
            p.d,
            original_max_position_embeddings=p.trained_len,
            beta_fast=p.beta_fast,
            beta_slow=p.beta_slow,
            truncate=p.truncate,
        )
        n = p.d // 2
        return Frame(ramp={"pair": np.arange(n), "ramp": yarn_ramp(low, high, n)}, x=(-1, n))
