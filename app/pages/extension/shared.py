"""What the Context extension figures share: the schedule of a state, names, colours."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from functools import partial
from typing import Any

import holoviews as hv
from bokeh.models import CustomJSTickFormatter

from positional_core.rope_scaling import ROPE_SCALING_METHODS, RopeScalingError
from positional_core.stretch import StretchSchedule, StretchSettings, stretch_schedule

from ...chart import Mark
from ...look import OKABE_ITO
from ...marks import js_hover

__all__ = [
    "ATTENTION",
    "FREQUENCY",
    "MAX_TARGET",
    "METHODS",
    "METHOD_CONTROLS",
    "METHOD_LABELS",
    "PAIR",
    "ROWS_CSS",
    "SELECTED_ENTRY_CSS",
    "SERVED",
    "Method",
    "in_reach",
    "method_legend",
    "method_lines",
    "rows_html",
    "schedule_of",
    "sci_hover",
    "sci_ticks",
    "settings_of",
]

#: Longest target (and served) length the page draws: E2 stays fast up to here.
MAX_TARGET = 2**20


@dataclass(frozen=True)
class Method:
    """A scaling method as the page names and draws it."""

    label: str  # in the menu
    short: str  # in legends and tooltips
    color: str
    #: The controls it reads besides d, base, L, L′ and s (shown only for it).
    controls: tuple[str, ...] = ()


#: Keyed by the core's registry name (used in links).
METHODS = {
    "default": Method("none (plain RoPE)", "no scaling", OKABE_ITO["grey"]),
    "linear": Method("position interpolation (linear)", "interpolation", OKABE_ITO["blue"]),
    "ntk": Method("NTK-aware base", "NTK-aware", OKABE_ITO["green"]),
    "dynamic": Method("dynamic NTK", "dynamic NTK", OKABE_ITO["sky"], ("served_len",)),
    "yarn": Method(
        "YaRN",
        "YaRN",
        OKABE_ITO["orange"],
        ("beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate", "attention_factor"),
    ),
    "llama3": Method(
        "Llama 3", "Llama 3", OKABE_ITO["vermillion"], ("low_freq_factor", "high_freq_factor")
    ),
    # Dark yellow: readable on both themes, not the magenta of E1.
    "longrope": Method("LongRoPE", "LongRoPE", "#8A6D00", ("served_len", "attention_factor")),
}
assert set(METHODS) == set(ROPE_SCALING_METHODS), "a scaling method has no label"
METHOD_LABELS = {key: method.label for key, method in METHODS.items()}
METHOD_CONTROLS = {key: method.controls for key, method in METHODS.items()}
#: The methods whose speeds change with the served length S.
SERVED = frozenset(k for k, method in METHODS.items() if "served_len" in method.controls)

#: The knobs that change only the attention factor (a readout, no figure).
ATTENTION = ("mscale", "mscale_all_dim", "attention_factor")
#: The controls the core's settings read (LongRoPE's lists come from a config).
_LISTS = ("short_factor", "long_factor")
_SETTINGS = tuple(f.name for f in fields(StretchSettings) if f.name not in _LISTS)
#: Every control the per-pair speeds depend on (what the figures draw).
FREQUENCY = (*(n for n in _SETTINGS if n not in ATTENTION), "longrope_short", "longrope_long")

PAIR = hv.Dimension("pair", label="pair i (0 = fastest)")

# A legend that changes width makes Bokeh lay its figure out and paint it
# again one frame after the change was drawn. E2's and E3's last entry (the
# selected method) is at most 11.8 em wide in Chromium at the legend's font
# ("dynamic NTK (selected)"): its label keeps at least that width, so a new
# method moves nothing.
SELECTED_ENTRY_CSS = ".bk-item:last-child .bk-label { min-width: 12em; }"

#: The style of :func:`rows_html`'s grid: a stylesheet of the pane that shows the rows
#: (set once, so a change sends and styles only the new rows).
ROWS_CSS = """
.numbers { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(330px, 100%), 1fr));
  column-gap: 28px; row-gap: 1px; font-size: 0.93em; line-height: 1.35; }
.numbers .row { display: flex; justify-content: space-between; gap: 12px;
  border-bottom: 1px solid rgba(128, 128, 128, 0.2); padding: 2px 0; }
.numbers .k { flex: 1 1 auto; }
.numbers .v { flex: 0 1 auto; text-align: right; font-variant-numeric: tabular-nums; }
.numbers .row.hi { font-weight: 600; }
.muted { opacity: 0.8; }
"""


def rows_html(rows: Mapping[str, str], highlight: Collection[str] = ()) -> str:
    """Label → value rows as a grid: one column when narrow, more when wide.

    Both are app text (escape user text before passing it); the pane that shows
    them takes :data:`ROWS_CSS` as a stylesheet.
    """
    body = "".join(
        f'<div class="row{" hi" if label in highlight else ""}"><span class="k">{label}</span>'
        f'<span class="v">{value}</span></div>'
        for label, value in rows.items()
    )
    return f'<div class="numbers">{body}</div>'


#: ``powerOfTen(v, digits, times)``: 1.5 × 10⁻⁵ as the readouts write it, with
#: ``digits`` decimals at most and ``times`` between the mantissa and the ten.
_POWER_OF_TEN_JS = r"""
const powerOfTen = (v, digits, times) => {
  const [m, e] = v.toExponential(digits).split('e');
  const sup = {'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶',
               '7': '⁷', '8': '⁸', '9': '⁹', '-': '⁻'};
  const power = Array.from(String(Number(e)), (c) => sup[c]).join('');
  return m.replace(/\.?0+$/, '').replace('-', '−') + times + '10' + power;
};
"""

#: Hover text of a speed θ in scientific notation (1.155e-4).
#: A tooltip's number as :func:`app.numbers.readable` writes it: four significant
#: digits, and a power of ten (superscript digits, never 1.2e-4) past 10⁷ or below 10⁻³.
sci_hover = js_hover(
    _POWER_OF_TEN_JS
    + r"""
    if (value === 0 || !Number.isFinite(value)) return String(value);
    const a = Math.abs(value);
    if (a >= 1e-3 && a < 1e7) return Number(value.toPrecision(4)).toString().replace('-', '−');
    return powerOfTen(value, 3, ' × ');
    """
)


#: Tick labels of at most three digits: 0.25, 15k and 1m as on the position axis,
#: and a power of ten with superscript digits below 10⁻³ as the readouts write it
#: (1.5×10⁻⁵, not Bokeh's "1.500e−5" beside "0.000e+0"). The widest label is then a
#: few characters whatever the pair (a factory: one Bokeh model per figure).
sci_ticks = partial(
    CustomJSTickFormatter,
    code=_POWER_OF_TEN_JS
    + r"""
    if (tick === 0 || !Number.isFinite(tick)) return String(tick);
    const a = Math.abs(tick);
    const short = (v, unit) => Number(v.toPrecision(3)).toString().replace('-', '−') + unit;
    if (a >= 1e6) return short(tick / 1e6, 'm');  // as the position axis: 500k, 1m
    if (a >= 1e4) return short(tick / 1e3, 'k');
    if (a >= 1e-3) return short(tick, '');
    return powerOfTen(tick, 2, '×');
    """,
)


def method_lines(
    curve: Callable[..., Mark], references: Iterable[str], width: float
) -> dict[str, Mark]:
    """A dashed ``curve`` per reference method, and the selected method's, ``width`` px
    wide: its colour and legend entry name the method (:func:`method_legend`)."""
    return {
        **{
            f"reference_{m}": curve(color=METHODS[m].color, line_width=1.5, line_dash="dashed")
            for m in references
        },
        "selected": curve(line_width=width),
    }


def method_legend(references: Iterable[str], method: str) -> dict[str, Any]:
    """A frame's legend labels and the selected line's colour for :func:`method_lines`."""
    return {
        "labels": {
            **{f"reference_{m}": METHODS[m].short for m in references},
            "selected": f"{METHODS[method].short} (selected)",
        },
        "props": {"selected": {"line_color": METHODS[method].color}},
    }


def settings_of(p: Any) -> StretchSettings:
    """The page's state as the core's settings."""
    values = {name: getattr(p, name) for name in _SETTINGS}
    longrope = p.method == "longrope"
    return StretchSettings(
        **values,
        short_factor=p.longrope_short if longrope else None,
        long_factor=p.longrope_long if longrope else None,
    )


def schedule_of(settings: StretchSettings) -> tuple[StretchSchedule, str]:
    """The schedule of ``settings``, and why it shows no scaling ("" if it does not).

    A method that refuses its knobs (the page's rules make this unreachable)
    is shown as no scaling, with a note, never a traceback.
    """
    try:
        return stretch_schedule(settings), ""
    except RopeScalingError as error:
        plain = replace(settings, method="default", short_factor=None, long_factor=None)
        note = f"{METHODS[settings.method].label}: {error}; showing no scaling."
        return stretch_schedule(plain), note


def in_reach(length: int, trained_len: int) -> int:
    """A target (or served) length the page can draw: ``L … MAX_TARGET``."""
    return min(max(length, trained_len), MAX_TARGET)
