"""Page "Context extension": stretching a RoPE model past its trained length (E1–E4).

A model trained on ``L`` tokens has seen, on pair ``i``, only the angles
``[0, θ_i·L)``. Serving ``L′ > L`` tokens shows its slow pairs angles it never
saw; the scaling methods of a ``rope_scaling`` block slow the pairs down so
they stay in that band. Every number comes from :mod:`positional_core`
(the scaling registry, the band helpers and the Hugging Face config reader);
this module only chooses what to draw.

Controls are parameters (bounds on the parameters). Lengths, the base and the
stretch factor are drawn as sliders over their logarithm (:class:`LogSlider`),
so one slider covers 128 … 1,048,576 tokens; the value itself (and the link)
stays the plain number. The method-specific knobs are shown only for their
method. The stretch factor ``s`` and the target length ``L′`` drive each
other: moving ``s`` sets ``L′ = round(s·L)``; moving ``L′`` or ``L`` sets
``s = L′/L``. A model's config may hold both independently (Llama 3.1: s = 8
on L = 8,192 but 131,072 positions), so presets set them separately.

Updates: every figure is a ``DynamicMap`` whose elements keep the same types,
groups and labels from frame to frame (empty when unused), so a change patches
data sources and never rebuilds a plot. The figures depend on two counters
(:attr:`ExtensionPage.revision`, :attr:`ExtensionPage.pair_revision`) that the
rules bump once the controls are consistent, inside one ``pn.io.hold``: one
redraw and one message per change, however many controls the rules moved.

E2 never draws per-position arrays: every method is linear in the position
for a fixed served length, so each line needs two points (dynamic NTK, whose
speeds change with the served length, is sampled at a few dozen lengths from
the core, LongRoPE switches lists once at ``L``).

A pasted or uploaded ``config.json`` is parsed by the core
(:func:`~positional_core.hf_config.load_json_config`,
:func:`~positional_core.hf_config.read_rope_config`); any refusal is shown next
to the box with the core's message and the page keeps its previous state.
The config is displayed as escaped pre-formatted text, never as HTML.
"""

from __future__ import annotations

import csv
import io
import json
import math
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import holoviews as hv
import numpy as np
import panel as pn
import param
from bokeh.models import CustomJSHover, CustomJSTickFormatter, HoverTool, NumeralTickFormatter
from holoviews.core.util import label_sanitizer

from positional_core.extension import (
    band_excess,
    never_complete_turn,
    ntk_scaled_base,
    out_of_band,
    trained_max_angle,
)
from positional_core.hf_config import (
    MAX_CONFIG_BYTES,
    ConfigError,
    NoRopeError,
    RopeModelInfo,
    load_json_config,
    read_rope_config,
)
from positional_core.presets import MODEL_CONFIG_NAMES, model_config
from positional_core.rope import wavelengths
from positional_core.rope_scaling import (
    ROPE_SCALING_METHODS,
    RopeScalingError,
    compute_rope_parameters,
    dynamic_ntk_base,
    llama3_bands,
    yarn_correction_range,
    yarn_ramp,
)

from .choice import BrowserChoice, stack_choices
from .inplace import Drawn, memoized
from .look import (
    OKABE_ITO,
    Figure,
    QuickCheck,
    escape_text,
    formula_pane,
    legend_outside,
    notice_html,
    notice_pane,
    plot_opts,
    tidy_log_y_ticks,
)
from .page import Page, one_update
from .urlstate import coerce_value, normalise_query

__all__ = [
    "MAX_TARGET",
    "METHOD_LABELS",
    "PRESET_LABELS",
    "ExtensionPage",
    "LogSlider",
    "ModelCard",
    "Schedule",
]

#: Longest target (and served) length the page draws: E2 stays fast up to here.
MAX_TARGET = 2**20
#: Trained length bounds: at least two octaves of stretch always remain.
MIN_TRAINED, MAX_TRAINED = 128, 2**19

#: Method key (the core's registry name, used in links) → label.
METHOD_LABELS: dict[str, str] = {
    "default": "none (plain RoPE)",
    "linear": "position interpolation (linear)",
    "ntk": "NTK-aware base",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3",
    "longrope": "LongRoPE",
}
assert set(METHOD_LABELS) == set(ROPE_SCALING_METHODS), "a scaling method has no label"

#: Short names used in legends and tooltips.
_SHORT = {
    "default": "no scaling",
    "linear": "interpolation",
    "ntk": "NTK-aware",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3",
    "longrope": "LongRoPE",
}

#: The parameters each method reads besides d, base, L, L′ and s.
METHOD_CONTROLS: dict[str, tuple[str, ...]] = {
    "default": (),
    "linear": (),
    "ntk": (),
    "dynamic": ("served_len",),
    "yarn": ("beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate", "attention_factor"),
    "llama3": ("low_freq_factor", "high_freq_factor"),
    "longrope": ("served_len", "attention_factor"),
}

#: Preset file name → label, in menu order (RoPE models first).
PRESET_LABELS: dict[str, str] = {
    "llama-2-7b": "Llama 2 7B",
    "llama-3.1-8b": "Llama 3.1 8B (llama3 scaling)",
    "mistral-7b-v0.1": "Mistral 7B v0.1",
    "codellama-7b": "Code Llama 7B",
    "qwen2.5-7b-instruct": "Qwen2.5 7B Instruct",
    "qwen2.5-7b-instruct-yarn-128k": "Qwen2.5 7B Instruct + 128K YaRN",
    "gpt-oss": "gpt-oss (YaRN)",
    "deepseek-v3-rope": "DeepSeek-V3 RoPE block (YaRN)",
    "phi-2": "Phi-2 (partial rotary)",
    "phi-3.5-mini-instruct": "Phi-3.5-mini (LongRoPE)",
    "gpt2": "GPT-2 (learned positions)",
    "bert-base-uncased": "BERT base (learned positions)",
    "bloom-560m": "BLOOM 560M (ALiBi)",
    "bloom": "BLOOM 176B (ALiBi)",
    "mpt-7b": "MPT 7B (ALiBi)",
    "t5-base": "T5 base (relative buckets)",
}
_PRESETS = [n for n in PRESET_LABELS if n in MODEL_CONFIG_NAMES] + [
    n for n in MODEL_CONFIG_NAMES if n not in PRESET_LABELS
]
CUSTOM = "custom"
_PRESET_OBJECTS = {"custom (or a pasted config.json)": CUSTOM} | {
    PRESET_LABELS.get(n, n): n for n in _PRESETS
}
DEFAULT_PRESET = "llama-2-7b"

#: Where each no-RoPE scheme is explained: (page slug, page title).
SCHEME_PAGES = {
    "learned": ("sinusoidal", "Sinusoidal & learned"),
    "alibi": ("alibi", "ALiBi"),
    "relative": ("relative", "Relative"),
}

#: LongRoPE's per-pair factors come from a real config (never from a slider):
#: Phi-3.5-mini's, unless a pasted LongRoPE config brings its own.
_LONGROPE_PRESET = "phi-3.5-mini-instruct"
_LONGROPE_INFO = read_rope_config(model_config(_LONGROPE_PRESET))
LONGROPE_SHORT: tuple[float, ...] = tuple(_LONGROPE_INFO.params["short_factor"])
LONGROPE_LONG: tuple[float, ...] = tuple(_LONGROPE_INFO.params["long_factor"])

# Colours. Status of a pair in E1 (magenta = unseen angles at L′).
_STATUS_COLORS = {
    "full turns within L": OKABE_ITO["grey"],
    "no full turn; in band at L′": OKABE_ITO["blue"],
    "no full turn; unseen angles at L′": "#CC79A7",
}
_STATUS = list(_STATUS_COLORS)

# Legends whose width does not follow the method (issue 8). A legend that changes
# width makes Bokeh lay its figure out and paint it again one frame after the
# change was drawn (the legend's size observer): switching the method or a preset
# painted E1, E2 and E3 twice, the second time ~40–60 ms later, only to place the
# legend anew. E2's and E3's last entry (the selected method: the hook
# ``_selected_legend`` names it, its layer is drawn last) is at most 11.8 em wide
# in Chromium at the legend's font ("dynamic NTK (selected)"); E1 names the
# statuses present, the longest ("no full turn; unseen angles at L′") 15.7 em.
# Their labels keep at least that width, so a new method moves nothing.
_SELECTED_ENTRY_CSS = ".bk-item:last-child .bk-label { min-width: 12em; }"
_STATUS_ENTRY_CSS = ".bk-item .bk-label { min-width: 16em; }"
_METHOD_COLORS = {
    "default": OKABE_ITO["grey"],
    "linear": OKABE_ITO["blue"],
    "ntk": OKABE_ITO["green"],
    "dynamic": OKABE_ITO["sky"],
    "yarn": OKABE_ITO["orange"],
    "llama3": OKABE_ITO["vermillion"],
    "longrope": "#8A6D00",  # dark yellow: readable on both themes, not the magenta of E1
}
_BAND_COLORS = {
    "high (unchanged)": OKABE_ITO["blue"],
    "medium (blended)": OKABE_ITO["orange"],
    "low (÷ factor)": OKABE_ITO["vermillion"],
}
_BAND_NAMES = {"high": "high (unchanged)", "medium": "medium (blended)", "low": "low (÷ factor)"}
#: E3's dot colours: a Llama 3 band's, or else the method's (keys never colour names,
#: so HoloViews maps even a single one through the map, as a column).
_E3_FILL = {**_BAND_COLORS, **{_SHORT[m]: color for m, color in _METHOD_COLORS.items()}}
#: Served lengths at which E2 samples dynamic NTK's growing base.
_DYNAMIC_SAMPLES = 40
#: Longest config text shown in the page (the core accepts up to 256 KB).
_SHOWN_CONFIG_CHARS = 12_000

_POS = hv.Dimension("position", label="position p (tokens)")
_PAIR = hv.Dimension("pair", label="pair i (0 = fastest)")


# --------------------------------------------------------------------------
# Small helpers (formatting only)
# --------------------------------------------------------------------------
def _num(value: float, digits: int = 4) -> str:
    """A number for people: thousands separators, ``digits`` significant digits."""
    value = float(value)
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 1e7 or abs(value) < 1e-3:
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa}e{int(exponent)}".replace("-", "−")
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _round_sig(value: float, digits: int = 3) -> float:
    if value == 0:
        return 0.0
    return float(f"{value:.{digits}g}")


_TABLE_CSS = """
.numbers { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(330px, 100%), 1fr));
  column-gap: 28px; row-gap: 1px; font-size: 0.93em; line-height: 1.35; }
.numbers .row { display: flex; justify-content: space-between; gap: 12px;
  border-bottom: 1px solid rgba(128, 128, 128, 0.2); padding: 2px 0; }
.numbers .k { flex: 1 1 auto; }
.numbers .v { flex: 0 1 auto; text-align: right; font-variant-numeric: tabular-nums; }
.numbers .row.hi { font-weight: 600; }
.muted { opacity: 0.8; }
"""

_PRE_CSS = """
pre.config { max-height: 320px; overflow: auto; white-space: pre-wrap; word-break: break-all;
  font-size: 0.85em; line-height: 1.35; margin: 0; padding: 6px 8px; border-radius: 4px;
  background: rgba(128, 128, 128, 0.12); }
"""


def _rows(rows: list[tuple[str, str]], highlight: set[int] | None = None) -> str:
    """(label, value) rows as a responsive grid: one column when narrow, more when wide.

    Both are app text (escape user text before passing it).
    """
    highlight = highlight or set()
    body = "".join(
        f'<div class="row{" hi" if i in highlight else ""}"><span class="k">{label}</span>'
        f'<span class="v">{value}</span></div>'
        for i, (label, value) in enumerate(rows)
    )
    return f'<div class="numbers">{body}</div>'


def _shown(name: str, value: Any) -> str:
    """A control's value as text (the method by its label)."""
    if name == "method":
        return METHOD_LABELS.get(value, str(value))
    if isinstance(value, bool):
        return "on" if value else "off"
    return _num(value, 6)


def pretty_config(config: Mapping[str, Any]) -> str:
    """The config as JSON text, lists of numbers kept on one line (plain text, not escaped)."""

    def dump(value: Any, indent: int) -> str:
        pad = "  " * (indent + 1)
        if isinstance(value, dict) and value:
            items = [f"{pad}{json.dumps(str(k))}: {dump(v, indent + 1)}" for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
        if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
            items = [f"{pad}{dump(v, indent + 1)}" for v in value]
            return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
        return json.dumps(value, ensure_ascii=False)

    return dump(config, 0)


# --------------------------------------------------------------------------
# A slider over the logarithm of a parameter (drawing only)
# --------------------------------------------------------------------------
_LOG_FORMAT_JS = """
const v = Math.pow({base}, tick);
const shown = {integer} ? Math.floor(v + 0.5) : Number(v.toPrecision({digits}));
return shown.toLocaleString('en-US', {{maximumFractionDigits: 6}});
"""


class LogSlider:
    """A slider over ``log(value)`` for a positive parameter of ``owner``.

    The label and range come from the parameter (its bounds, also when they
    move); the parameter keeps the plain value (and the link shows it). A
    slider position maps to the value the slider's label shows: the nearest
    integer, or ``digits`` significant digits, rounded the same way in the
    browser and here, so the server never has to correct the slider while it
    is being dragged or stepped with the keys (such echoes lose key presses).
    Values set elsewhere (a preset, a link) are kept exactly; the label then
    shows them rounded to ``digits`` digits.
    """

    def __init__(
        self,
        owner: param.Parameterized,
        name: str,
        *,
        log_base: float = 2.0,
        step: float = 0.125,
        digits: int = 4,
    ) -> None:
        p = owner.param[name]
        self._owner, self._name = owner, name
        self._base = float(log_base)
        self._integer = isinstance(p, param.Integer)
        self._digits = digits
        self._syncing = False
        self._sending = False
        low, high = p.bounds
        code = _LOG_FORMAT_JS.format(
            base=self._base, integer="true" if self._integer else "false", digits=digits
        )
        self.widget = pn.widgets.FloatSlider(
            label=p.label,
            start=self._log(low),
            end=self._log(high),
            step=step,
            value=self._log(getattr(owner, name)),
            format=CustomJSTickFormatter(code=code),
            sizing_mode="stretch_width",
        )
        self.widget.param.watch(self._from_slider, "value")
        owner.param.watch(self._from_param, name)
        owner.param.watch(self._from_bounds, name, what="bounds")

    def _log(self, value: float) -> float:
        return math.log(value) / math.log(self._base)

    def value_at(self, x: float) -> float | int:
        """The parameter value for slider position ``x`` (as its label shows it).

        ``x`` outside the slider (a browser may send any number) counts as its
        nearest end; NaN as its start.
        """
        start, end = self.widget.start, self.widget.end
        x = start if math.isnan(x) else min(max(x, start), end)
        raw = self._base**x
        low, high = self._owner.param[self._name].bounds
        # floor(v + 0.5) is JavaScript's Math.round (Python's round() ties to even).
        value: float | int = (
            math.floor(raw + 0.5) if self._integer else _round_sig(raw, self._digits)
        )
        return min(max(value, low), high)

    def _from_slider(self, event: param.parameterized.Event) -> None:
        if self._syncing:
            return
        value = self.value_at(event.new)
        if value != getattr(self._owner, self._name):
            self._sending = True
            try:
                self._owner.param.update({self._name: value})
            finally:
                self._sending = False
        if not (math.isfinite(event.new) and self.widget.start <= event.new <= self.widget.end):
            # Past the slider's ends: put the handle back on the value used.
            self._syncing = True
            try:
                self.widget.value = self._log(getattr(self._owner, self._name))
            finally:
                self._syncing = False

    def _from_param(self, event: param.parameterized.Event) -> None:
        if self._sending:
            return  # this slider set it: no correction sent back
        x = self._log(event.new)
        if abs(self.widget.value - x) > 1e-12:
            self._syncing = True
            try:
                self.widget.value = x
            finally:
                self._syncing = False

    def _from_bounds(self, event: param.parameterized.Event) -> None:
        low, high = event.new
        self._syncing = True
        try:
            self.widget.param.update(start=self._log(low), end=self._log(high))
        finally:
            self._syncing = False


# --------------------------------------------------------------------------
# What the page computes for one state (all numbers from the core)
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class Schedule:
    """Per-pair arrays (shape ``(d/2,)``) and scalars for one state of the page."""

    method: str
    d: int
    trained_len: int
    target_len: int
    factor: float
    served_len: int
    theta: np.ndarray
    scaled: np.ndarray
    attention: float
    interpolated: np.ndarray
    ntk: np.ndarray
    wavelength: np.ndarray
    scaled_wavelength: np.ndarray
    trained_edge: np.ndarray
    target_edge_raw: np.ndarray
    target_edge: np.ndarray
    excess: np.ndarray
    never: np.ndarray
    out_of_band_raw: np.ndarray
    out_of_band: np.ndarray
    out_of_band_linear: np.ndarray
    out_of_band_ntk: np.ndarray
    ntk_base: float
    dynamic_base: float
    yarn_range: tuple[float, float] | None = None
    ramp: np.ndarray | None = None
    bands: np.ndarray | None = None
    longrope_short: np.ndarray | None = None
    longrope_long: np.ndarray | None = None
    dynamic_lengths: np.ndarray | None = None
    dynamic_theta: np.ndarray | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def n_pairs(self) -> int:
        return self.d // 2

    def status(self) -> list[str]:
        """E1's status of each pair after the method."""
        out = []
        for never, oob in zip(self.never, self.out_of_band, strict=True):
            out.append(_STATUS[2] if oob else _STATUS[1] if never else _STATUS[0])
        return out


#: Schedule fields only the readouts show: a change of these alone redraws no figure.
_READOUT_ONLY = frozenset({"attention", "notes"})


def same_drawing(a: Schedule, b: Schedule) -> bool:
    """True when every figure draws ``a`` as it draws ``b`` (they may differ in the readouts).

    YaRN's ``mscale`` and ``mscale_all_dim`` and the ``attention_factor`` knob
    only change the attention factor, a readout: with this check a change of
    them updates the text and leaves the four figures alone (in-process CPU
    per change of ``mscale``, 2026-12-02: ~100 → ~10 ms).
    """
    for f in fields(Schedule):
        if f.name in _READOUT_ONLY:
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not (
                isinstance(x, np.ndarray)
                and isinstance(y, np.ndarray)
                and x.shape == y.shape
                and np.array_equal(x, y)
            ):
                return False
        elif x != y:
            return False
    return True


@dataclass(frozen=True)
class ModelCard:
    """The model shown in E4: a preset or a pasted/uploaded config."""

    label: str
    source: str  # "preset", "pasted", "uploaded"
    config: Mapping[str, Any]
    info: RopeModelInfo | None = None
    no_rope: NoRopeError | None = None


def scaling_call(
    values: Mapping[str, Any],
    method: str,
    seq_len: int | None = None,
    short: tuple[float, ...] = LONGROPE_SHORT,
    long: tuple[float, ...] = LONGROPE_LONG,
) -> tuple[np.ndarray, float]:
    """``(inv_freq, attention_factor)`` of ``method`` for the page's ``values``, from the registry.

    The page's controls map onto Hugging Face keys: the trained length ``L`` is
    ``original_max_position_embeddings`` (``max_position_embeddings`` for the
    methods without that key), the target ``L′`` is ``max_position_embeddings``
    and ``s`` is ``factor``.
    """
    L, T, s = values["trained_len"], values["target_len"], values["factor"]
    kw: dict[str, Any] = {}
    max_pos = L
    if method in ("linear", "ntk", "dynamic"):
        kw["factor"] = s
    elif method == "yarn":
        max_pos = T
        kw.update(
            factor=s,
            original_max_position_embeddings=L,
            beta_fast=values["beta_fast"],
            beta_slow=values["beta_slow"],
            truncate=values["truncate"],
        )
        for key in ("mscale", "mscale_all_dim", "attention_factor"):
            if values[key] > 0:  # 0 = "not set", as transformers tests truthiness
                kw[key] = values[key]
    elif method == "llama3":
        max_pos = T
        kw.update(
            factor=s,
            low_freq_factor=values["low_freq_factor"],
            high_freq_factor=values["high_freq_factor"],
            original_max_position_embeddings=L,
        )
    elif method == "longrope":
        max_pos = T
        kw.update(
            factor=s,
            original_max_position_embeddings=L,
            short_factor=list(short),
            long_factor=list(long),
        )
        if values["attention_factor"] > 0:
            kw["attention_factor"] = values["attention_factor"]
    uses_served = method in ("dynamic", "longrope")
    return compute_rope_parameters(
        method,
        values["base"],
        values["d"],
        max_position_embeddings=max_pos,
        seq_len=(seq_len if seq_len is not None else values["served_len"]) if uses_served else None,
        **kw,
    )


#: Columns of E1's dots (and of the CSV, which adds the masks).
_E1_COLUMNS = (
    "pair",
    "theta",
    "wavelength",
    "trained_max_angle",
    "target_max_angle_unscaled",
    "scaled_theta",
    "scaled_wavelength",
    "target_max_angle",
)
_E1_VDIMS = [
    hv.Dimension("wavelength", label="wavelength 2π/θᵢ (tokens, log scale)"),
    "theta",
    "trained_max_angle",
    "target_max_angle_unscaled",
    "scaled_theta",
    "scaled_wavelength",
    "target_max_angle",
    "status",
    "excess",
]


_E1_TOOLTIPS = [
    ("pair i", "@pair"),
    ("θᵢ (rad / token)", "@theta{custom}"),
    ("wavelength (tokens)", "@{wavelength}{0,0.0}"),
    ("max angle in training θᵢL (rad)", "@trained_max_angle{0.000}"),
    ("max angle at L′, no scaling (rad)", "@target_max_angle_unscaled{0.000}"),
    ("θ′ᵢ after the method", "@scaled_theta{custom}"),
    ("max angle at L′ after it (rad)", "@target_max_angle{0.000}"),
    ("… × the trained maximum", "@excess{0.000}"),
    ("status", "@status"),
]
_END_TOOLTIPS = [
    ("method", "@method"),
    ("position", "@position{0,0}"),
    ("angle (rad)", "@angle{0.0000}"),
    ("× the trained edge θᵢL", "@times_edge{0.000}"),
]
_E3_TOOLTIPS = [
    ("pair i", "@pair"),
    ("slow-down θᵢ/θ′ᵢ", "@slowdown{0.0000}"),
    ("θᵢ (rad / token)", "@theta{custom}"),
    ("θ′ᵢ (rad / token)", "@scaled_theta{custom}"),
    ("Llama 3 band", "@band"),
    ("YaRN ramp rᵢ", "@ramp{0.000}"),
]


def _sci_hover(tooltips: list[tuple[str, str]]) -> HoverTool:
    """A hover tool that prints the speeds θ in scientific notation (1.155e-4)."""
    sci = CustomJSHover(code="return value.toExponential(3)")
    return HoverTool(tooltips=tooltips, formatters={"@theta": sci, "@scaled_theta": sci})


def _line_hover() -> HoverTool:
    # The lines are exact straight segments: interpolating the hover position
    # along them gives the exact angle at any position.
    return HoverTool(
        tooltips=[("method", "@method"), ("position p", "$x{0,0}"), ("angle (rad)", "$y{0.0000}")],
        line_policy="interp",
    )


def _selected_legend(method_of: Any) -> Any:
    """A plot hook that names and colours the selected method's line.

    Its layer has a fixed label ("selected method"), so changing the method
    patches the plot instead of rebuilding it; this hook then sets the legend
    text and the line colour of that one renderer.
    """

    def hook(plot: Any, element: Any) -> None:
        method = method_of()
        name = f"{_SHORT[method]} (selected)"
        for legend in plot.state.legend:
            for item in legend.items:
                text = getattr(item.label, "value", None)
                if text == "selected method" or (
                    isinstance(text, str) and text.endswith("(selected)")
                ):
                    if text != name:
                        item.label = {"value": name}
                    for renderer in item.renderers:
                        renderer.glyph.line_color = _METHOD_COLORS[method]

    return hook


# --------------------------------------------------------------------------
# The page
# --------------------------------------------------------------------------
#: Every parameter the computed schedule depends on.
_SCHEDULE_PARAMS = (
    "d",
    "base",
    "trained_len",
    "target_len",
    "factor",
    "method",
    "served_len",
    "beta_fast",
    "beta_slow",
    "mscale",
    "mscale_all_dim",
    "truncate",
    "attention_factor",
    "low_freq_factor",
    "high_freq_factor",
    "longrope_short",
    "longrope_long",
)


class ExtensionPage(Page):
    """Context extension: RoPE scaling methods and real models' ``rope_scaling``."""

    slug: ClassVar[str] = "extension"
    title: ClassVar[str] = "Context extension"
    intro: ClassVar[str] = (
        "A RoPE model trained on <em>L</em> tokens has only ever seen, on each pair of "
        "dimensions, the angles from 0 up to θ<sub>i</sub>·<em>L</em>. Serve it longer and "
        "its slow pairs turn to angles it never saw in training. The scaling methods of a "
        "<code>rope_scaling</code> block slow the pairs down so they stay in that band. Pick a "
        "real model in the sidebar, or paste its <code>config.json</code> below (E4)."
    )

    preset = param.Selector(
        default=DEFAULT_PRESET,
        objects=_PRESET_OBJECTS,
        label="Model preset",
        doc="Fills every control from a real model's config.json (E4). Models without "
        "RoPE say which positions they use instead.",
    )
    d = param.Integer(
        default=128,
        bounds=(4, 512),
        step=2,
        label="Rotary dimensions d",
        doc="Dimensions that rotate in one head (head_dim × partial_rotary_factor); "
        "d/2 pairs. Even.",
    )
    base = param.Number(
        default=10_000.0,
        bounds=(10.0, 1e9),
        label="Base b (rope_theta)",
        doc="θ_i = b^(−2i/d): a larger base gives slower slow pairs. Llama 2: 10,000; "
        "Llama 3: 500,000; Code Llama: 1,000,000.",
    )
    trained_len = param.Integer(
        default=4096,
        bounds=(MIN_TRAINED, MAX_TRAINED),
        label="Trained length L",
        doc="Positions 0 … L − 1 were seen in training (original_max_position_embeddings).",
    )
    target_len = param.Integer(
        default=16_384,
        bounds=(MIN_TRAINED, MAX_TARGET),
        label="Target length L′",
        doc="The length you want to serve; at least L. Moving it sets s = L′/L.",
    )
    factor = param.Number(
        default=4.0,
        bounds=(1.0, MAX_TARGET / MIN_TRAINED),
        label="Stretch factor s",
        doc="The rope_scaling factor; usually L′/L. Moving it sets L′ = s·L (a model's "
        "config may use a smaller s than its maximum length suggests: Llama 3.1).",
    )
    method = param.Selector(
        default="default",
        objects={label: key for key, label in METHOD_LABELS.items()},
        label="Scaling method",
        doc="How the speeds θ_i are changed to reach L′ (Hugging Face rope_type; "
        "NTK-aware is the static form of dynamic NTK).",
    )
    served_len = param.Integer(
        default=16_384,
        bounds=(1, MAX_TARGET),
        label="Served length S",
        doc="Tokens in the current input (dynamic NTK and LongRoPE change with it); at most L′.",
    )
    beta_fast = param.Number(
        default=32.0,
        bounds=(1.0, 128.0),
        step=0.5,
        label="beta_fast",
        doc="YaRN: pairs turning more than beta_fast times within L keep their speed.",
    )
    beta_slow = param.Number(
        default=1.0,
        bounds=(0.1, 32.0),
        step=0.1,
        label="beta_slow",
        doc="YaRN: pairs turning fewer than beta_slow times within L are divided by s. "
        "At most beta_fast.",
    )
    mscale = param.Number(
        default=0.0,
        bounds=(0.0, 10.0),
        step=0.05,
        label="mscale (0 = not set)",
        doc="YaRN (DeepSeek): with mscale_all_dim, attention factor = "
        "(0.1·mscale·ln s + 1) / (0.1·mscale_all_dim·ln s + 1).",
    )
    mscale_all_dim = param.Number(
        default=0.0,
        bounds=(0.0, 10.0),
        step=0.05,
        label="mscale_all_dim (0 = not set)",
        doc="YaRN (DeepSeek): used with mscale; both must be set to count.",
    )
    truncate = param.Boolean(
        default=True,
        label="truncate (round the ramp ends)",
        doc="YaRN: floor / ceil the ramp ends to whole pairs (transformers' default; "
        "gpt-oss turns it off).",
    )
    attention_factor = param.Number(
        default=0.0,
        bounds=(0.0, 10.0),
        step=0.01,
        label="attention_factor (0 = from the formula)",
        doc="YaRN and LongRoPE: overrides the attention factor the method derives from s.",
    )
    low_freq_factor = param.Number(
        default=1.0,
        bounds=(0.25, 32.0),
        step=0.25,
        label="low_freq_factor",
        doc="Llama 3: pairs with wavelength above L / low_freq_factor are divided by s.",
    )
    high_freq_factor = param.Number(
        default=4.0,
        bounds=(0.5, 64.0),
        step=0.25,
        label="high_freq_factor",
        doc="Llama 3: pairs with wavelength below L / high_freq_factor keep their speed. "
        "Greater than low_freq_factor.",
    )
    pair = param.Integer(
        default=63,
        bounds=(0, 255),
        label="Pair shown in E2",
        doc="Which pair's angle E2 draws (0 = fastest, d/2 − 1 = slowest).",
    )

    # State that is not a control (not in links).
    longrope_short = param.Parameter(
        default=LONGROPE_SHORT, precedence=-1, doc="LongRoPE short_factor (from a config)."
    )
    longrope_long = param.Parameter(
        default=LONGROPE_LONG, precedence=-1, doc="LongRoPE long_factor (from a config)."
    )
    longrope_pairs = param.Integer(
        default=len(LONGROPE_SHORT), precedence=-1, doc="Pairs the LongRoPE factors are for."
    )
    longrope_source = param.String(
        default=PRESET_LABELS[_LONGROPE_PRESET], precedence=-1, doc="Where the factors come from."
    )
    model = param.Parameter(default=None, precedence=-1, doc="The ModelCard shown in E4.")
    config_errors = param.List(
        default=[], item_type=str, precedence=-1, doc="Why the last pasted config was refused."
    )
    config_warnings = param.List(
        default=[],
        item_type=str,
        precedence=-1,
        doc="What the page could not show exactly for the loaded config.",
    )
    config_link = param.Parameter(
        default=None, precedence=-1, doc="(scheme, model_type) of a pasted config with no RoPE."
    )
    pair_revision = param.Integer(
        default=0,
        precedence=-1,
        doc="Bumped when the pair shown in E2 changes (inside the same hold as revision).",
    )
    revision = param.Integer(
        default=0,
        precedence=-1,
        doc="Bumped once per consistent change of the schedule: the figures depend on it, "
        "so a change that the rules complete (s after L′) redraws once, not twice.",
    )
    readout_revision = param.Integer(
        default=0,
        precedence=-1,
        doc="Bumped instead of revision when a change of the schedule leaves every figure "
        "as drawn (same_drawing): only the readouts depend on it.",
    )

    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "preset": {"type": pn.widgets.Select},
        "d": {"type": pn.widgets.IntSlider},
        "base": {"type": pn.widgets.FloatInput},
        "trained_len": {"type": pn.widgets.IntInput},
        "target_len": {"type": pn.widgets.IntInput},
        "factor": {"type": pn.widgets.FloatInput},
        "method": {"type": pn.widgets.Select},
        "served_len": {"type": pn.widgets.IntInput},
        "pair": {"type": pn.widgets.IntSlider},
    }

    def __init__(self, **params: Any) -> None:
        self._schedule_cache: tuple[tuple, Schedule] | None = None
        self._pair_rows_cache: tuple[Schedule, dict[int, dict[str, Any]]] | None = None
        self._busy = False
        self._from_link = False
        # Inside a link, redraws are counted here and done once at its end.
        self._pending: set[str] | None = None
        #: The schedule the figures draw (set at each bump of revision).
        self._drawn: Schedule | None = None
        self._rule_notes: list[str] = []
        self._preset_fill: dict[str, Any] | None = None
        self._pasting = False
        preset = params.get("preset")
        super().__init__(**params)
        self._drawn = self.schedule()
        self._show_preset(fill=preset is not None)
        self._text_box: pn.widgets.TextAreaInput | None = None
        self._file_input: pn.widgets.FileInput | None = None

    # ------------------------------------------------------------------ rules
    def _values(self) -> dict[str, Any]:
        # The LongRoPE rule needs the number of pairs its factors cover.
        return {**super()._values(), "longrope_pairs": self.longrope_pairs}

    @classmethod
    def dynamic_bounds(cls, values: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
        L = values["trained_len"]
        target = min(max(values["target_len"], L), MAX_TARGET)
        return {
            "target_len": (L, MAX_TARGET),
            "factor": (1.0, MAX_TARGET / L),
            "served_len": (1, target),
            "pair": (0, values["d"] // 2 - 1),
        }

    @classmethod
    def constrain(cls, values: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes: list[str] = []
        if fixed["d"] % 2:
            even = fixed["d"] - 1 if fixed["d"] > 4 else 4
            notes.append(
                f"d = {fixed['d']} is odd; dimensions rotate in pairs, so d set to {even}."
            )
            fixed["d"] = even
        pairs = fixed.get("longrope_pairs", len(LONGROPE_SHORT))
        if fixed["method"] == "longrope" and fixed["d"] != 2 * pairs:
            notes.append(
                f"LongRoPE has one factor per pair and its factors cover {pairs} pairs, "
                f"so d set to {2 * pairs}."
            )
            fixed["d"] = 2 * pairs
        if fixed["beta_slow"] > fixed["beta_fast"]:
            notes.append(
                f"beta_slow ({fixed['beta_slow']:g}) must not exceed beta_fast "
                f"({fixed['beta_fast']:g}); beta_slow set to {fixed['beta_fast']:g}."
            )
            fixed["beta_slow"] = fixed["beta_fast"]
        if fixed["high_freq_factor"] <= fixed["low_freq_factor"]:
            high_max = cls.param.high_freq_factor.bounds[1]
            high = min(fixed["low_freq_factor"] + 1.0, high_max)
            low = fixed["low_freq_factor"] if high > fixed["low_freq_factor"] else high - 1.0
            notes.append(
                f"high_freq_factor ({fixed['high_freq_factor']:g}) must exceed low_freq_factor "
                f"({fixed['low_freq_factor']:g}); set to {high:g} and {low:g}."
            )
            fixed["high_freq_factor"], fixed["low_freq_factor"] = high, low
        if 0 < fixed["attention_factor"] < 0.001:
            notes.append(
                f"attention_factor ({fixed['attention_factor']:g}) is below 0.001 (0 means: "
                "from the formula); set to 0.001."
            )
            fixed["attention_factor"] = 0.001
        L = fixed["trained_len"]
        target = min(max(fixed["target_len"], L), MAX_TARGET)
        if target != fixed["target_len"]:
            notes.append(
                f"Target length {fixed['target_len']:,} is outside L … {MAX_TARGET:,} "
                f"(L = {L:,}); set to {target:,}."
            )
            fixed["target_len"] = target
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    def _on_controls(self, *events: param.parameterized.Event) -> None:
        """Keep the controls consistent after any of them moved (one update).

        s and L′ drive each other: moving s sets L′ = s·L, moving L′ or L sets
        s = L′/L. (A model's config may hold both independently: Llama 3.1 has
        s = 8 but serves 16 × L; presets set both.)
        """
        if self._busy:
            return
        changed = {e.name: e for e in events}
        values = self._values()
        L = values["trained_len"]
        old_target = changed["target_len"].old if "target_len" in changed else self.target_len
        if not self._from_link:
            if "factor" in changed and not {"target_len", "trained_len"} & set(changed):
                values["target_len"] = min(max(round(values["factor"] * L), L), MAX_TARGET)
            elif {"target_len", "trained_len"} & set(changed) and "factor" not in changed:
                target = min(max(values["target_len"], L), MAX_TARGET)
                values["factor"] = min(max(target / L, 1.0), MAX_TARGET / L)
            # A served length equal to the target stays equal to it.
            if "served_len" not in changed and values["served_len"] == old_target:
                values["served_len"] = min(max(values["target_len"], L), MAX_TARGET)
        old_d = changed["d"].old if "d" in changed else self.d
        fixed, notes = self.constrain(values)
        if (
            not self._from_link
            and "pair" not in changed
            and fixed["d"] != old_d
            and values["pair"] == old_d // 2 - 1
        ):
            # The slowest pair stays the slowest when d changes (also when a rule set d).
            fixed["pair"] = fixed["d"] // 2 - 1
            label = type(self).param.pair.label
            notes = [n for n in notes if not n.startswith(label)]
        redraw = bool(set(changed) & set(_SCHEDULE_PARAMS)) or any(
            fixed[k] != getattr(self, k) for k in _SCHEDULE_PARAMS if k in fixed
        )
        self._busy = True
        try:
            # One hold for the whole change: the figures' updates go out as one message
            # and Bokeh walks the document's model graph at most once, not once per plot.
            with one_update():
                old_pair = self.pair
                self._apply(fixed)
                if redraw:
                    self._redraw("revision")
                if "pair" in changed or self.pair != old_pair:
                    self._redraw("pair_revision")
        finally:
            self._busy = False
        if notes or self._rule_notes:
            kept = [n for n in self.notes if n not in self._rule_notes]
            self._rule_notes = notes
            self.notes = kept + notes

    # ---------------------------------------------------------------- presets
    def _on_preset(self, event: param.parameterized.Event) -> None:
        self._show_preset(fill=True)

    def _show_preset(self, *, fill: bool) -> None:
        name = self.preset
        if name == CUSTOM:
            if not self._pasting:
                self.param.update(model=None, config_warnings=[])
                self._preset_fill = None
            return
        label = PRESET_LABELS.get(name, name)
        config = model_config(name)
        try:
            info = read_rope_config(config)
        except NoRopeError as error:
            self.param.update(
                model=ModelCard(label, "preset", config, no_rope=error), config_warnings=[]
            )
            self._preset_fill = None
            return
        card = ModelCard(label, "preset", config, info=info)
        if fill:
            self._fill(info, card)
        else:
            self._preset_fill = self._fill_values(info)[0]
            self.param.update(model=card, config_warnings=[])

    def reload_preset(self) -> None:
        """Fill the controls from the selected preset again (after edits)."""
        self._show_preset(fill=True)

    def _fill_values(self, info: RopeModelInfo) -> tuple[dict[str, Any], list[str]]:
        """The control values that show ``info`` (clamped to the page's bounds, with notes)."""
        p = info.params
        values = self._values()
        notes: list[str] = []

        def bounded(name: str, value: Any, what: str) -> Any:
            low, high = type(self).param[name].bounds
            clamped = min(max(value, low), high)
            if clamped != value:
                notes.append(
                    f"{what} = {_num(value)} is outside the page's range {_num(low)} … "
                    f"{_num(high)}; shown with {_num(clamped)}, so the figures differ from the "
                    "model."
                )
            return clamped

        d = bounded("d", info.rotary_dim, "the rotary dimensions")
        trained = bounded("trained_len", info.trained_len, "the trained length")
        factor = bounded("factor", info.factor, "factor")
        # The longest length the config claims: max_position_embeddings, or factor × L
        # when that is longer (Qwen2.5's 128K block keeps max_position_embeddings at 32K).
        target = max(info.max_position_embeddings, round(info.factor * info.trained_len))
        if target > MAX_TARGET:
            notes.append(
                f"the target length {target:,} is past the page's limit {MAX_TARGET:,}; "
                f"shown with {MAX_TARGET:,}."
            )
            target = MAX_TARGET
        target = max(target, trained)
        values.update(
            d=d,
            base=bounded("base", info.base, "rope_theta"),
            trained_len=trained,
            target_len=target,
            factor=factor,
            method=info.rope_type,
            served_len=target,
            pair=d // 2 - 1,
            beta_fast=bounded("beta_fast", float(p.get("beta_fast") or 32.0), "beta_fast"),
            beta_slow=bounded("beta_slow", float(p.get("beta_slow") or 1.0), "beta_slow"),
            mscale=bounded("mscale", float(p.get("mscale") or 0.0), "mscale"),
            mscale_all_dim=bounded(
                "mscale_all_dim", float(p.get("mscale_all_dim") or 0.0), "mscale_all_dim"
            ),
            truncate=bool(p["truncate"]) if "truncate" in p else True,
            attention_factor=bounded(
                "attention_factor", float(p.get("attention_factor") or 0.0), "attention_factor"
            ),
            low_freq_factor=bounded(
                "low_freq_factor", float(p.get("low_freq_factor", 1.0)), "low_freq_factor"
            ),
            high_freq_factor=bounded(
                "high_freq_factor", float(p.get("high_freq_factor", 4.0)), "high_freq_factor"
            ),
        )
        if info.rope_type == "longrope":
            if d == info.rotary_dim:
                values["longrope_pairs"] = len(p["short_factor"])
            else:
                values["method"] = "default"
                notes.append(
                    f"LongRoPE needs one factor per pair; {info.n_pairs} pairs is past the "
                    "page's limit, so the method is shown as none."
                )
        if info.rope_type == "dynamic" and info.max_position_embeddings != info.trained_len:
            notes.append(
                "dynamic NTK starts growing the base past max_position_embeddings "
                f"({info.max_position_embeddings:,}); the page uses the trained length L = "
                f"{info.trained_len:,} for both."
            )
        if info.ignored_keys:
            keys = ", ".join(k[:40] for k in info.ignored_keys[:8])
            notes.append(
                f"{info.rope_type} does not read these keys (transformers ignores them "
                f"too): {keys}."
            )
        return values, notes

    def _fill(self, info: RopeModelInfo, card: ModelCard) -> None:
        values, notes = self._fill_values(info)
        updates: dict[str, Any] = {}
        if values["method"] == "longrope":
            updates.update(
                longrope_short=tuple(info.params["short_factor"]),
                longrope_long=tuple(info.params["long_factor"]),
                longrope_pairs=len(info.params["short_factor"]),
                longrope_source=card.label,
            )
        fixed, rule_notes = self.constrain(values)
        self._busy = True
        try:
            with one_update():
                if updates:
                    self.param.update(updates)
                self._apply(fixed)
                self._redraw("revision")
        finally:
            self._busy = False
        self._preset_fill = {k: fixed[k] for k in self.control_names() if k != "preset"}
        self.param.update(model=card, config_warnings=notes + rule_notes)

    def _redraw(self, counter: str) -> None:
        """Bump ``counter`` (the figures redraw), or note it for the end of a link."""
        if self._pending is not None:
            self._pending.add(counter)
        else:
            self._bump({counter})

    def _bump(self, counters: set[str]) -> None:
        """Bump ``counters`` in one update; ``revision`` only if a figure draws differently.

        A change of the schedule that every figure draws as before (see
        :func:`same_drawing`) bumps ``readout_revision`` instead: the readouts
        are written again, the figures are not.
        """
        counters = set(counters)
        if "revision" in counters:
            schedule = self.schedule()
            if self._drawn is not None and same_drawing(schedule, self._drawn):
                counters.discard("revision")
                counters.add("readout_revision")
            else:
                self._drawn = schedule
        self.param.update({c: getattr(self, c) + 1 for c in sorted(counters)})

    # ------------------------------------------------------------------ links
    def apply_query(self, query: Mapping[str, Any]) -> list[str]:
        """Set the preset first (it fills every control), then the other values of the link.

        The figures are computed once, at the end, for the final values: the
        preset's fill and the link's values only note that a redraw is due.
        All of it in one hold, so Bokeh gets one message (see Page._apply).
        """
        self._pending = set()
        try:
            with one_update():
                notes = self._apply_link(query)
                if self._pending:
                    self._bump(self._pending)
        finally:
            self._pending = None
        return notes

    def _apply_link(self, query: Mapping[str, Any]) -> list[str]:
        query = normalise_query(query)
        notes: list[str] = []
        self._from_link = True
        try:
            if "preset" in query:
                try:
                    value, note = coerce_value(type(self).param.preset, query["preset"])
                except ValueError as error:
                    notes.append(str(error))
                else:
                    if note:
                        notes.append(note)
                    if value != self.preset:
                        self.preset = value
                    else:  # a link names its preset to get that model's values
                        self._show_preset(fill=True)
            rest = {k: v for k, v in query.items() if k != "preset"}
            trained = self._link_value("trained_len", rest)
            factor = self._link_value("factor", rest) if "factor" in rest else None
            target = self._link_value("target_len", rest) if "target_len" in rest else None
            if trained is not None:
                if factor is not None and "target_len" not in rest:
                    # A link with s but no L′: s drives L′.
                    target = min(max(round(factor * trained), trained), MAX_TARGET)
                    rest["target_len"] = str(target)
                elif target is not None and "factor" not in rest:
                    # A link with L′ but no s: L′ drives s.
                    target = min(max(target, trained), MAX_TARGET)
                    rest["factor"] = repr(min(max(target / trained, 1.0), MAX_TARGET / trained))
                if (
                    target is not None
                    and "served_len" not in rest
                    and self.served_len == self.target_len
                ):
                    # As a slider does: a served length equal to the target stays
                    # equal to it (`?factor=1` alone had S clamped from 16,384, with a
                    # note about a control the method does not even show).
                    rest["served_len"] = str(min(max(target, trained), MAX_TARGET))
            notes += super().apply_query(rest)
        finally:
            self._from_link = False
        self.notes = notes
        return notes

    def _link_value(self, name: str, query: Mapping[str, Any]) -> Any:
        """The link's value of ``name`` (the current one if it has none); None if unusable."""
        try:
            value, _ = coerce_value(
                type(self).param[name], query.get(name, str(getattr(self, name)))
            )
        except ValueError:
            return None
        return value

    # ------------------------------------------------------- the computation
    def _key(self) -> tuple:
        return tuple((n, getattr(self, n)) for n in _SCHEDULE_PARAMS)

    def schedule(self) -> Schedule:
        """Everything the figures draw for the current state (cached per state)."""
        key = self._key()
        if self._schedule_cache is not None and self._schedule_cache[0] == key:
            return self._schedule_cache[1]
        result = self._compute(dict(key))
        self._schedule_cache = (key, result)
        return result

    def _compute(self, v: dict[str, Any]) -> Schedule:
        method, d, L, T, s = v["method"], v["d"], v["trained_len"], v["target_len"], v["factor"]
        short, long = v["longrope_short"], v["longrope_long"]
        notes: list[str] = []
        theta, _ = scaling_call(v, "default")
        interpolated, _ = scaling_call(v, "linear")
        ntk, _ = scaling_call(v, "ntk")
        try:
            scaled, attention = scaling_call(v, method, short=short, long=long)
            extra = self._extras(v)
        except RopeScalingError as error:  # the rules make this unreachable; never a traceback
            notes.append(f"{METHOD_LABELS[method]}: {error}; showing no scaling.")
            scaled, attention, extra = theta, 1.0, {}
            method = "default"
        return Schedule(
            method=method,
            d=d,
            trained_len=L,
            target_len=T,
            factor=s,
            served_len=v["served_len"],
            theta=theta,
            scaled=scaled,
            attention=attention,
            interpolated=interpolated,
            ntk=ntk,
            wavelength=wavelengths(theta),
            scaled_wavelength=wavelengths(scaled),
            trained_edge=trained_max_angle(theta, L),
            target_edge_raw=trained_max_angle(theta, T),
            target_edge=trained_max_angle(scaled, T),
            excess=band_excess(theta, L, T, scaled),
            never=never_complete_turn(theta, L),
            out_of_band_raw=out_of_band(theta, L, T),
            out_of_band=out_of_band(theta, L, T, scaled),
            out_of_band_linear=out_of_band(theta, L, T, interpolated),
            out_of_band_ntk=out_of_band(theta, L, T, ntk),
            ntk_base=ntk_scaled_base(v["base"], s, d),
            dynamic_base=dynamic_ntk_base(
                v["base"], d, factor=s, max_position_embeddings=L, seq_len=v["served_len"]
            ),
            notes=tuple(notes),
            **extra,
        )

    @staticmethod
    def _extras(v: dict[str, Any]) -> dict[str, Any]:
        """Method-specific arrays: YaRN's ramp, Llama 3's bands, LongRoPE's two lists,
        dynamic NTK's speeds at a few served lengths."""
        method, d, L, T, s = v["method"], v["d"], v["trained_len"], v["target_len"], v["factor"]
        short, long = v["longrope_short"], v["longrope_long"]
        extra: dict[str, Any] = {}
        if method == "yarn":
            low, high = yarn_correction_range(
                v["base"],
                d,
                original_max_position_embeddings=L,
                beta_fast=v["beta_fast"],
                beta_slow=v["beta_slow"],
                truncate=v["truncate"],
            )
            extra["yarn_range"] = (low, high)
            extra["ramp"] = yarn_ramp(low, high, d // 2)
        if method == "llama3":
            extra["bands"] = llama3_bands(
                v["base"],
                d,
                factor=s,
                low_freq_factor=v["low_freq_factor"],
                high_freq_factor=v["high_freq_factor"],
                original_max_position_embeddings=L,
            )
        if method == "longrope":
            extra["longrope_short"] = scaling_call(v, method, seq_len=L, short=short, long=long)[0]
            extra["longrope_long"] = scaling_call(v, method, seq_len=L + 1, short=short, long=long)[
                0
            ]
        if method == "dynamic":
            lengths = np.unique(
                np.round(np.geomspace(L, T, _DYNAMIC_SAMPLES)).astype(np.int64)
                if T > L
                else np.array([L], dtype=np.int64)
            )
            extra["dynamic_lengths"] = lengths
            extra["dynamic_theta"] = np.stack(
                [scaling_call(v, "dynamic", seq_len=int(n))[0] for n in lengths]
            )
        return extra

    def angle_lines(
        self, pair: int | None = None, sch: Schedule | None = None
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """E2's lines for ``pair``: method → (positions, angles), a few points each.

        Every method but dynamic NTK turns pair ``i`` at a fixed speed for a given
        served length, so its angle is linear in the position: two points. Dynamic
        NTK's speed depends on the served length ``S`` (the angle of the last of
        ``S`` tokens is ``θ′_i(S)·S``): sampled at a few lengths. LongRoPE uses
        its short list up to ``L`` and its long list past it. ``sch`` defaults
        to the current schedule.
        """
        sch = self.schedule() if sch is None else sch
        i = self.pair if pair is None else pair
        L, T = sch.trained_len, sch.target_len
        ends = np.array([0.0, T])
        lines = {
            "default": (ends, sch.theta[i] * ends),
            "linear": (ends, sch.interpolated[i] * ends),
            "ntk": (ends, sch.ntk[i] * ends),
        }
        if sch.method == "dynamic" and sch.dynamic_lengths is not None:
            lengths = sch.dynamic_lengths.astype(np.float64)
            positions = np.concatenate([[0.0], lengths])
            angles = np.concatenate([[0.0], sch.dynamic_theta[:, i] * lengths])
            lines["dynamic"] = (positions, angles)
        elif sch.method == "longrope" and sch.longrope_short is not None:
            positions = np.array([0.0, L, L, T]) if T > L else np.array([0.0, T])
            if T > L:
                angles = np.array(
                    [
                        0.0,
                        sch.longrope_short[i] * L,
                        sch.longrope_long[i] * L,
                        sch.longrope_long[i] * T,
                    ]
                )
            else:
                angles = sch.longrope_short[i] * positions
            lines["longrope"] = (positions, angles)
        elif sch.method not in lines:
            lines[sch.method] = (ends, sch.scaled[i] * ends)
        return lines

    def summary(self) -> dict[str, Any]:
        """The E3 readouts as numbers (the tests read these)."""
        sch = self.schedule()
        out: dict[str, Any] = {
            "pairs": sch.n_pairs,
            "stretch": sch.factor,
            "ntk_base": sch.ntk_base,
            "dynamic_base": sch.dynamic_base,
            "never_complete": int(sch.never.sum()),
            "out_of_band_before": int(sch.out_of_band_raw.sum()),
            "out_of_band_after": int(sch.out_of_band.sum()),
            "out_of_band_linear": int(sch.out_of_band_linear.sum()),
            "out_of_band_ntk": int(sch.out_of_band_ntk.sum()),
            "fastest_angle_per_token": float(sch.theta[0]),
            "fastest_scaled_angle_per_token": float(sch.scaled[0]),
            "slowest_slowdown": float(sch.theta[-1] / sch.scaled[-1]),
            "attention_factor": sch.attention,
        }
        if sch.yarn_range is not None:
            out["yarn_range"] = sch.yarn_range
        if sch.bands is not None:
            out["llama3_bands"] = {
                b: int((sch.bands == b).sum()) for b in ("high", "medium", "low")
            }
        return out

    # ------------------------------------------------------------ E1 schedule
    def _pair_table(self) -> dict[str, np.ndarray]:
        sch = self.schedule()
        return {
            "pair": np.arange(sch.n_pairs),
            "theta": sch.theta,
            "wavelength": sch.wavelength,
            "trained_max_angle": sch.trained_edge,
            "target_max_angle_unscaled": sch.target_edge_raw,
            "scaled_theta": sch.scaled,
            "scaled_wavelength": sch.scaled_wavelength,
            "target_max_angle": sch.target_edge,
            "never_completes_turn": sch.never,
            "out_of_band_unscaled": sch.out_of_band_raw,
            "out_of_band": sch.out_of_band,
        }

    @memoized
    @param.depends("revision")
    def _schedule_drawn(self) -> Drawn:
        """E1 as Bokeh draws it: its layers' columns and axes (see :meth:`_schedule_plot`)."""
        sch = self.schedule()
        table = self._pair_table()
        data = {k: table[k] for k in _E1_COLUMNS}
        data["status"] = np.array(sch.status())
        data["excess"] = sch.excess
        changed = np.flatnonzero(~np.isclose(sch.scaled, sch.theta, rtol=1e-12, atol=0))
        moved = {k: v[changed] for k, v in data.items()}
        moved["wavelength"] = sch.scaled_wavelength[changed]
        L, T = sch.trained_len, sch.target_len
        low = float(min(sch.wavelength.min(), sch.scaled_wavelength.min(), L))
        high = float(max(sch.wavelength.max(), sch.scaled_wavelength.max(), T))
        links = {
            "pair": changed,
            "wavelength": sch.wavelength[changed],
            "pair_to": changed,
            "wavelength_to": sch.scaled_wavelength[changed],
        }
        labels = {
            "pair": np.array([-0.5, -0.5]),
            "wavelength": np.array([L, T]),
            "text": np.array([f"trained L = {L:,}", f"target L′ = {T:,}" if T != L else ""]),
            # L's label under its line when L′'s is drawn above: at L′ = 1.2 L
            # the two lines are a few pixels apart and the labels overlapped.
            # (Never both alike: HoloViews would then draw one value, not the column.)
            "text_baseline": np.array(["top", "bottom"] if T != L else ["bottom", "top"]),
        }
        return Drawn(
            # As HoloViews draws them: the status colours mapped from a copy
            # of the column, named after the style.
            sources=[
                {**data, "color": data["status"]},
                links,
                {**moved, "color": moved["status"]},
                {"y": np.array([L, T])},
                labels,
                None,  # the highlighted pair, selected in the browser
            ],
            x_range=(-1, sch.n_pairs),
            y_range=(low / 2, high * 4),
            refresh=[(self._pair_choice, ("highlight",))],
        )

    @param.depends("revision")
    def _schedule_plot(self) -> hv.Overlay:
        # The same five elements every time (empty when unused) and no per-frame
        # options (they are set once in _build_figures): a change sends the
        # columns of _schedule_drawn, which these are built from.
        drawn = self._schedule_drawn()
        dots, links, diamonds, lengths, labels, _ = drawn.sources
        # Ranges ride on the dimensions (cheaper than cloning with redim per frame).
        x = _PAIR.clone(range=drawn.x_range)
        y = _E1_VDIMS[0].clone(range=drawn.y_range)
        vdims = [y, *_E1_VDIMS[1:]]
        plain = lambda columns: {k: v for k, v in columns.items() if k != "color"}  # noqa: E731
        return hv.Overlay(
            [
                hv.Scatter(plain(dots), x, vdims, group="Pairs"),
                hv.Segments(links, kdims=[x, y, "pair_to", "wavelength_to"], group="Links"),
                hv.Scatter(plain(diamonds), x, vdims, group="Scaled"),
                hv.HLines(lengths["y"], group="Lengths"),
                hv.Labels(
                    {**labels, "baseline": labels["text_baseline"]},
                    [x, y],
                    ["text", "baseline"],
                    group="Lengths",
                ),
            ]
        )

    @param.depends("revision")
    def _schedule_highlight(self) -> hv.Points:
        return self._pair_choice.element(
            "highlight",
            hv.Points,
            self._pair_columns("highlight"),
            self._pairs_range,
            on_top=True,
            kdims=[_PAIR, "wavelength"],
            group="Highlight",
        )

    @param.depends("revision", "readout_revision")
    def _schedule_readout(self) -> str:
        sch = self.schedule()
        s = self.summary()
        n, L, T = sch.n_pairs, sch.trained_len, sch.target_len
        text = (
            f"<b>{s['never_complete']}</b> of {n} pairs never complete a turn within "
            f"L = {L:,} (wavelength above L). "
        )
        if T > L:
            served = (
                f" (its speeds as served at S = {sch.served_len:,})"
                if sch.method in ("dynamic", "longrope") and sch.served_len != T
                else ""
            )
            text += (
                f"At L′ = {T:,}, <b>{s['out_of_band_before']}</b> pairs meet angles never seen "
                f"in training with no scaling; after {_SHORT[sch.method]}{served}: "
                f"<b>{s['out_of_band_after']}</b>."
            )
        else:
            text += "L′ = L: nothing to stretch yet. Move the target length L′."
        for note in sch.notes:
            text += f"<br>{escape_text(note)}"
        return text

    def _csv(self) -> io.StringIO:
        """The per-pair table of E1 as CSV (numbers from the core, full precision)."""
        table = self._pair_table()
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(list(table))
        for row in zip(*table.values(), strict=True):
            writer.writerow(
                [
                    int(v)
                    if isinstance(v, np.integer)
                    else str(bool(v)).lower()
                    if isinstance(v, np.bool_)
                    else repr(float(v))
                    for v in row
                ]
            )
        out.seek(0)
        return out

    # -------------------------------------------------------------- E2 band
    # E1's highlight and E2 follow the pair, selected in the browser: every
    # pair's rows are shipped with the figures (app/choice.py) and only the
    # readout asks the server.
    def _pairs_range(self) -> np.ndarray:
        return np.arange(self.schedule().n_pairs)

    def _pair_key(self) -> int:
        return min(self.pair, self.schedule().n_pairs - 1)

    def _pair_rows(self, i: int, sch: Schedule | None = None) -> dict[str, dict[str, Any]]:
        """The columns of E1's highlight and E2's pair-dependent layers for pair ``i``, by role.

        Cached per schedule: the candidates of every role come from one pass
        over the pairs.
        """
        sch = self.schedule() if sch is None else sch
        if self._pair_rows_cache is None or self._pair_rows_cache[0] is not sch:
            self._pair_rows_cache = (sch, {})
        cache = self._pair_rows_cache[1]
        if i in cache:
            return cache[i]
        L, T = sch.trained_len, sch.target_len
        edge = float(sch.trained_edge[i])
        lines = self.angle_lines(i, sch)
        top = max(edge, *(float(np.max(y)) for _, y in lines.values()))

        def curve(method: str) -> dict[str, Any]:
            x, y = lines[method]
            name = _SHORT[method] + (" (selected)" if method == sch.method else "")
            return {"position": x, "angle": y, "method": np.full(len(x), name)}

        served = sch.method in ("dynamic", "longrope") and sch.served_len not in (L, T)
        # Short (its numbers are in the readout under the figure): a label half
        # the axis wide was crossed by L's line or by the fastest line at some
        # L′ wherever it sat. This one (under a third of the axis) ends at L′
        # from L′ = 2 L, where L's line and the fastest line (which leaves the
        # band at L) are left of it; below, it starts at 0, where every line
        # is still low.
        band_text = "every angle seen" if edge >= 2 * math.pi else "trained band"
        band_at_end = T >= 2 * L
        band_text = f"{band_text} " if band_at_end else f" {band_text}"
        ends = [(float(x[-1]), float(y[-1]), _SHORT[m]) for m, (x, y) in lines.items()]
        # L's label reads to the right of its line, unless L is near the axis'
        # end (L′ < 1.25 L): there it would be cut off, so it reads to the left.
        l_right = T >= 1.25 * L
        rows = {
            "highlight": {"pair": [i], "wavelength": [float(sch.wavelength[i])]},
            "band": {"y0": [0.0], "y1": [edge], "__y_end": [top * 1.1]},
            **{f"reference {m}": curve(m) for m in ("default", "linear", "ntk")},
            "selected": curve(sch.method),
            "ends": {
                "position": [e[0] for e in ends],
                "angle": [e[1] for e in ends],
                "method": [e[2] for e in ends],
                "times_edge": [e[1] / edge for e in ends],
            },
            "labels": {
                "position": [L, T if band_at_end else 0, sch.served_len if served else L],
                "angle": [top * 0.02, edge, top * 0.5],
                "text": [
                    f" L = {L:,}" if l_right else f"L = {L:,} ",
                    band_text,
                    " served S" if served else "",
                ],
                "align": [
                    "left" if l_right else "right",
                    "right" if band_at_end else "left",
                    "left",
                ],
                # The band's label sits on its edge: under it, the lines that end
                # on the edge at L′ crossed it, and a thin band (the slowest pairs
                # at large L′, 3 % of the axis) cut it at the axis.
                "baseline": ["bottom", "bottom", "bottom"],
            },
        }
        # As drawn: HoloViews maps the align and baseline columns to these.
        rows["labels"]["text_align"] = rows["labels"]["align"]
        rows["labels"]["text_baseline"] = rows["labels"]["baseline"]
        cache[i] = rows
        return rows

    def _pair_columns(self, role: str) -> Any:
        def columns(pairs: np.ndarray) -> dict[str, np.ndarray]:
            sch = self.schedule()
            return stack_choices(pairs, lambda i: self._pair_rows(i, sch)[role])

        return columns

    #: E2's layers drawn by the pair choice, in the order of its overlay.
    _BAND_ROLES = (
        "band",
        "reference default",
        "reference linear",
        "reference ntk",
        "selected",
        "ends",
        "labels",
    )

    def _band_marks(self) -> np.ndarray:
        sch = self.schedule()
        L, T = sch.trained_len, sch.target_len
        marks = [L]
        if sch.method in ("dynamic", "longrope") and sch.served_len not in (L, T):
            marks.append(sch.served_len)
        return np.array(marks)

    @memoized
    @param.depends("revision")
    def _band_drawn(self) -> Drawn:
        """E2 as Bokeh draws it: the pair's layers are the choice's, redrawn with their
        candidates; the marks and the x axis are the page's (the y axis follows the pair)."""
        sch = self.schedule()
        roles = self._BAND_ROLES
        return Drawn(
            sources=[None] * 6 + [{"x": self._band_marks()}, None],
            x_range=(0, sch.target_len * 1.02),
            refresh=[(self._pair_choice, roles)],
            hooks=[self._selected_hook],
        )

    @param.depends("revision")
    def _band_plot(self) -> hv.Overlay:
        # A fixed set of elements (band, three reference lines, the selected
        # method's line, end points, marks, labels), styled once: updates patch data.
        i = self._pair_key()
        x_dim = _POS.clone(range=self._band_drawn().x_range)
        y_end = self._pair_rows(i)["band"]["__y_end"][0]
        y_dim = hv.Dimension("angle", label="angle (rad)", range=(0, y_end))
        choice = self._pair_choice

        def layer(role: str, kind: Any, **dims: Any) -> hv.Element:
            return choice.element(role, kind, self._pair_columns(role), self._pairs_range, **dims)

        elements: list[Any] = [
            layer("band", hv.HSpans, follow={"y_range": {"end": "__y_end"}}, group="Band")
        ]
        elements += [
            layer(
                f"reference {m}",
                hv.Curve,
                kdims=[x_dim],
                vdims=[y_dim, "method"],
                group="Reference",
                label=_SHORT[m],
            )
            for m in ("default", "linear", "ntk")
        ]
        elements.append(
            layer(
                "selected",
                hv.Curve,
                kdims=[x_dim],
                vdims=[y_dim, "method"],
                group="Selected",
                label="selected method",
            )
        )
        elements.append(
            layer(
                "ends",
                hv.Points,
                kdims=[x_dim, y_dim],
                vdims=["method", "times_edge"],
                group="Ends",
            )
        )
        elements.append(hv.VLines(self._band_marks(), group="Marks"))

        def labels(data: dict[str, Any], **dims: Any) -> hv.Labels:
            names = ("position", "angle", "text", "align", "baseline")
            return hv.Labels({k: data[k] for k in names}, **dims)

        elements.append(
            layer(
                "labels",
                labels,
                kdims=[x_dim, y_dim],
                vdims=["text", "align", "baseline"],
                group="Marks",
            )
        )
        return hv.Overlay(elements)

    @param.depends("pair_revision", "revision")
    def _band_readout(self) -> str:
        sch = self.schedule()
        i = min(self.pair, sch.n_pairs - 1)
        edge = sch.trained_edge[i]
        turns = edge / (2 * math.pi)
        text = (
            f"Pair {i}: θ = {_num(sch.theta[i])} rad per token; in training it reached "
            f"θL = {_num(edge)} rad ({_num(100 * turns, 3)} % of a turn). "
            if turns < 1
            else f"Pair {i}: θ = {_num(sch.theta[i])} rad per token; it turns "
            f"{_num(turns, 3)} times within L, so it has seen every angle. "
        )
        parts = []
        for method, (_x, y) in self.angle_lines(i).items():
            parts.append(f"{_SHORT[method]} {_num(y[-1])} rad ({_num(y[-1] / edge, 3)}×)")
        return text + f"At L′ = {sch.target_len:,}: " + "; ".join(parts) + "."

    # ----------------------------------------------------------- E3 methods
    @memoized
    @param.depends("revision")
    def _slowdown_drawn(self) -> Drawn:
        """E3 as Bokeh draws it (see :meth:`_slowdown_plot`)."""
        sch = self.schedule()
        pairs = np.arange(sch.n_pairs)
        slow = sch.theta / sch.scaled
        top = float(max(np.nanmax(slow), np.nanmax(sch.theta / sch.ntk), sch.factor, 1.0))
        if sch.bands is not None:
            kind = np.array([_BAND_NAMES[b] for b in sch.bands])
            fill = kind
        else:
            kind = np.full(sch.n_pairs, "—")
            fill = np.full(sch.n_pairs, _SHORT[sch.method])
        ramp = sch.ramp if sch.ramp is not None else np.full(sch.n_pairs, np.nan)
        dots = {
            "pair": pairs,
            "slowdown": slow,
            "theta": sch.theta,
            "scaled_theta": sch.scaled,
            "band": kind,
            "ramp": ramp,
            # The colour's key (a band, or the method): mapped through _E3_FILL,
            # so a single colour stays a column, as every other frame draws it.
            "fill": fill,
            "color": fill,
        }
        high = min(sch.yarn_range[1], sch.n_pairs - 1) if sch.yarn_range is not None else None
        if sch.yarn_range is not None and high > sch.yarn_range[0]:
            span = {"x0": np.array([float(sch.yarn_range[0])]), "x1": np.array([float(high)])}
        else:
            span = {"x0": np.zeros(0), "x1": np.zeros(0)}
        return Drawn(
            sources=[
                span,
                {"pair": pairs, "slowdown": sch.theta / sch.interpolated},
                {"pair": pairs, "slowdown": sch.theta / sch.ntk},
                {"pair": pairs, "slowdown": slow},
                dots,
            ],
            x_range=(-1, sch.n_pairs),
            y_range=(0.8, max(top * 1.8, 2.0)),
            hooks=[self._selected_hook, tidy_log_y_ticks],
        )

    @param.depends("revision")
    def _slowdown_plot(self) -> hv.Overlay:
        # Fixed structure, styled once, as the other figures: a change sends the
        # columns of _slowdown_drawn, which these are built from.
        drawn = self._slowdown_drawn()
        span, interpolated, ntk, selected, dots = drawn.sources
        x_dim = _PAIR.clone(range=drawn.x_range)
        y_dim = hv.Dimension(
            "slowdown", label="slow-down θᵢ / θ′ᵢ (log scale)", range=drawn.y_range
        )
        curve = lambda data, **kw: hv.Curve(  # noqa: E731
            (data["pair"], data["slowdown"]), x_dim, y_dim, **kw
        )
        return hv.Overlay(
            [
                hv.VSpans(list(zip(span["x0"], span["x1"], strict=True)), group="Ramp"),
                curve(interpolated, group="Reference", label="interpolation"),
                curve(ntk, group="Reference", label="NTK-aware"),
                curve(selected, group="Selected", label="selected method"),
                hv.Scatter(
                    {k: v for k, v in dots.items() if k != "color"},
                    x_dim,
                    [y_dim, "theta", "scaled_theta", "band", "ramp", "fill"],
                    group="Selected",
                ),
            ]
        )

    @memoized
    @param.depends("revision")
    def _ramp_drawn(self) -> Drawn:
        sch = self.schedule()
        ramp = sch.ramp if sch.ramp is not None else np.zeros(sch.n_pairs)
        return Drawn(
            sources=[{"pair": np.arange(sch.n_pairs), "ramp": ramp}],
            x_range=(-1, sch.n_pairs),
            y_range=(-0.05, 1.05),
        )

    @param.depends("revision")
    def _ramp_plot(self) -> hv.Curve:
        drawn = self._ramp_drawn()
        (data,) = drawn.sources
        return hv.Curve(
            (data["pair"], data["ramp"]),
            _PAIR.clone(range=drawn.x_range),
            hv.Dimension("ramp", label="ramp rᵢ", range=drawn.y_range),
        )

    @param.depends("revision", "readout_revision")
    def _methods_readout(self) -> str:
        sch = self.schedule()
        s = self.summary()
        v = self._values()
        n = sch.n_pairs
        ratio = sch.target_len / sch.trained_len
        if math.isclose(ratio, sch.factor, rel_tol=0, abs_tol=0.5 / sch.trained_len):
            stretch = (
                "Stretch factor s = L′/L",
                f"{sch.target_len:,} / {sch.trained_len:,} = <b>{_num(sch.factor)}</b>",
            )
        else:
            stretch = (
                "Stretch factor s (the config's factor); L′/L",
                f"<b>{_num(sch.factor)}</b>; {sch.target_len:,} / {sch.trained_len:,} = "
                f"<b>{_num(ratio)}</b>",
            )
        rows = [
            stretch,
            ("NTK-aware base b·s<sup>d/(d−2)</sup>", f"<b>{round(s['ntk_base']):,}</b>"),
            (
                "Pairs out of band at L′: no scaling → this method",
                f"<b>{s['out_of_band_before']}</b> → <b>{s['out_of_band_after']}</b> of {n}",
            ),
            (
                "… with interpolation / NTK-aware",
                f"{s['out_of_band_linear']} / {s['out_of_band_ntk']} of {n}",
            ),
            (
                "Fastest pair's angle per token θ₀ → θ′₀",
                f"{_num(s['fastest_angle_per_token'])} → "
                f"<b>{_num(s['fastest_scaled_angle_per_token'])}</b> rad",
            ),
            ("Slowest pair slowed by", f"{_num(s['slowest_slowdown'])}×"),
            ("Attention factor", f"<b>{_num(s['attention_factor'], 6)}</b>"),
        ]
        highlight = {2}
        if sch.method == "ntk":
            highlight.add(1)
        if sch.method == "dynamic":
            rows.insert(
                2,
                (
                    f"Dynamic NTK base at S = {sch.served_len:,}",
                    f"<b>{round(s['dynamic_base']):,}</b>",
                ),
            )
            highlight = {2, 3}
        if sch.yarn_range is not None:
            low, high = sch.yarn_range
            rows.append(
                (
                    "YaRN ramp (pairs below keep speed, above ÷ s)",
                    f"<b>{_num(low)}</b> … <b>{_num(high)}</b>",
                )
            )
        if "llama3_bands" in s:
            b = s["llama3_bands"]
            rows.append(
                (
                    "Llama 3 bands: unchanged / blended / ÷ s",
                    f"<b>{b['high']}</b> / <b>{b['medium']}</b> / <b>{b['low']}</b> pairs "
                    f"(wavelength &lt; {_num(sch.trained_len / v['high_freq_factor'])}, "
                    f"&gt; {_num(sch.trained_len / v['low_freq_factor'])})",
                )
            )
        if sch.method == "longrope":
            which = "long" if sch.served_len > sch.trained_len else "short"
            rows.append(
                (
                    "LongRoPE factors in use",
                    f"<b>{which}</b> (S = {sch.served_len:,} "
                    f"{'&gt;' if which == 'long' else '≤'} L) "
                    f"from {escape_text(self.longrope_source, 60)}",
                )
            )
        return _rows(rows, highlight)

    @param.depends("method")
    def _method_formula(self) -> str:
        return _METHOD_FORMULAS[self.method]

    # --------------------------------------------------------------- E4 view
    def changed_since_load(self) -> list[tuple[str, Any, Any]]:
        """Controls that differ from the loaded model's values: (name, now, model)."""
        fill = self._preset_fill
        if fill is None:
            return []
        names = ["d", "base", "trained_len", "target_len", "factor", "method"]
        for method in (self.method, fill["method"]):
            names += [n for n in METHOD_CONTROLS[method] if n not in names]
        out = []
        for name in names:
            now, then = getattr(self, name), fill[name]
            same = now == then or (
                isinstance(then, float) and math.isclose(now, then, rel_tol=1e-12)
            )
            if not same:
                out.append((name, now, then))
        return out

    @param.depends("model", "revision", "readout_revision")
    def _model_html(self) -> str:
        card: ModelCard | None = self.model
        if card is None:
            return (
                "<p>No preset: the controls are your own settings. Choose a model in the "
                "sidebar, or paste or upload a <code>config.json</code>.</p>"
            )
        title = f"<b>{escape_text(card.label, 80)}</b> <span class=muted>({card.source})</span>"
        if card.no_rope is not None:
            return f"<p>{title}</p>" + _no_rope_html(card.no_rope)
        info = card.info
        assert info is not None
        trained_from = (
            "original_max_position_embeddings"
            if info.original_max_position_embeddings
            else "max_position_embeddings"
        )
        block = (
            f" (from <code>{info.block_key}</code>)" if info.block_key else " (no scaling block)"
        )
        rows = [
            ("model_type", escape_text(info.model_type, 40) if info.model_type else "—"),
            ("head_dim", f"{info.head_dim:,}"),
            (
                "rotary dimensions",
                f"{info.rotary_dim:,} ({info.n_pairs} pairs; partial_rotary_factor "
                f"{_num(info.partial_rotary_factor)})",
            ),
            ("rope_theta θ (base)", _num(info.base, 8)),
            ("trained length L", f"{info.trained_len:,} <span class=muted>({trained_from})</span>"),
            (
                "maximum length",
                f"{info.max_position_embeddings:,} "
                "<span class=muted>(max_position_embeddings)</span>",
            ),
            ("rope_type", f"<code>{info.rope_type}</code>{block}"),
            ("factor", _num(info.factor, 6)),
            (
                f"attention factor at S = {self.served_len:,}",
                _num(info.attention_factor(min(self.served_len, 2**24)), 6),
            ),
        ]
        html = f"<p>{title}</p>" + _rows(rows)
        differ = [
            f"{type(self).param[k].label} {_shown(k, now)} (model: {_shown(k, then)})"
            for k, now, then in self.changed_since_load()
        ]
        if differ:
            html += (
                "<p class=muted>Changed since the model was loaded: "
                + escape_text("; ".join(differ))
                + ".</p>"
            )
        return html

    @param.depends("model")
    def _config_html(self) -> str:
        card: ModelCard | None = self.model
        if card is None:
            return ""
        text = pretty_config(card.config)
        if len(text) > _SHOWN_CONFIG_CHARS:
            text = (
                text[:_SHOWN_CONFIG_CHARS]
                + f"\n… ({len(text) - _SHOWN_CONFIG_CHARS:,} more characters)"
            )
        return f'<pre class="config">{escape_text(text)}</pre>'

    @param.depends("config_link")
    def _link_html(self) -> str:
        error = self.config_link
        return _no_rope_html(error) if error is not None else ""

    # ----------------------------------------------------- pasted configs
    def apply_config(
        self, text: str | bytes, label: str = "pasted config", source: str = "pasted"
    ) -> bool:
        """Read a pasted or uploaded ``config.json``; on success fill every control.

        On any problem the core's message is shown next to the box
        (:attr:`config_errors`) and nothing else changes. Returns ``True`` on success.
        """
        try:
            config = load_json_config(text, MAX_CONFIG_BYTES)
            info = read_rope_config(config)
        except NoRopeError as error:
            self.param.update(config_errors=[str(error)], config_link=error)
            return False
        except ConfigError as error:
            self.param.update(config_errors=[str(error)], config_link=None)
            return False
        self.param.update(config_errors=[], config_link=None)
        card = ModelCard(label, source, config, info=info)
        self._pasting = True
        try:
            self.preset = CUSTOM
        finally:
            self._pasting = False
        self._fill(info, card)
        return True

    def _on_apply(self, _event: Any = None) -> None:
        box = self._text_box
        if box is not None:
            self.apply_config(box.value or "", "pasted config", "pasted")

    def _on_upload(self, event: param.parameterized.Event) -> None:
        data = event.new
        if not data:
            return
        name = self._file_input.filename if self._file_input is not None else "file"
        self.apply_config(bytes(data), f"uploaded file {name or ''}".strip(), "uploaded")

    def _e4_card(self) -> pn.Card:
        self._text_box = pn.widgets.TextAreaInput(
            label="Paste a config.json",
            placeholder='{"hidden_size": 4096, "num_attention_heads": 32, '
            '"max_position_embeddings": 4096, "rope_theta": 10000.0, "rope_scaling": null}',
            rows=7,
            max_length=2 * MAX_CONFIG_BYTES,
            sizing_mode="stretch_width",
        )
        apply = pn.widgets.Button(label="Apply", color="primary", width=100)
        apply.on_click(self._on_apply)
        self._file_input = pn.widgets.FileInput(
            label="Upload a config.json",
            accept=".json,application/json,text/plain",
            multiple=False,
            sizing_mode="stretch_width",
        )
        self._file_input.param.watch(self._on_upload, "value")
        errors = notice_pane(self.param.config_errors, kind="error", title="Config not loaded:")
        link = pn.pane.HTML(self._link_html, sizing_mode="stretch_width", margin=(0, 8))
        warnings = notice_pane(
            self.param.config_warnings, kind="warning", title="Shown approximately:"
        )
        numbers = pn.Column(
            pn.pane.HTML(self._model_html, stylesheets=[_TABLE_CSS], sizing_mode="stretch_width"),
            warnings,
            sizing_mode="stretch_width",
        )
        shown = pn.Column(
            pn.pane.Markdown("**The config** (as read; text only)", margin=(4, 10, 0, 10)),
            pn.pane.HTML(self._config_html, stylesheets=[_PRE_CSS], sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )
        paste = pn.Column(
            self._text_box,
            apply,
            pn.pane.Markdown("…or upload a `config.json` (256 KB at most):", margin=(8, 10, 0, 10)),
            self._file_input,
            errors,
            link,
            pn.pane.HTML(
                "<p class=caption>Both <code>rope_scaling</code> and <code>rope_parameters</code> "
                "are read; the head size from <code>head_dim</code> or hidden_size / "
                "num_attention_heads; <code>partial_rotary_factor</code> for partial rotary "
                "models. A pasted config fills every control (it is not part of the link; the "
                "controls are).</p>",
                stylesheets=[".caption { font-size: 0.9em; line-height: 1.4; margin: 0; }"],
                sizing_mode="stretch_width",
            ),
            sizing_mode="stretch_width",
        )
        return pn.Card(
            pn.GridBox(
                pn.Column(numbers, shown, sizing_mode="stretch_width"),
                paste,
                ncols=2,
                sizing_mode="stretch_width",
            ),
            title="E4 · Real models: the config, its numbers, and your own config.json",
            collapsible=False,
            sizing_mode="stretch_width",
            margin=(6, 6),
        )

    # ----------------------------------------------------------- controls
    def controls(self) -> pn.viewable.Viewable:
        """Preset, head and lengths (log sliders), method, then only that method's knobs."""
        if self._controls is None:

            def widget(name: str, **kw: Any) -> pn.widgets.Widget:
                spec = {"sizing_mode": "stretch_width", **kw}
                p = self.param[name]
                if isinstance(p, param.Boolean):
                    return pn.widgets.Checkbox.from_param(p, **spec)
                if isinstance(p, param.Selector):
                    return pn.widgets.Select.from_param(p, **spec)
                if isinstance(p, param.Integer):
                    return pn.widgets.IntSlider.from_param(p, **spec)
                return pn.widgets.FloatSlider.from_param(p, **spec)

            reload = pn.widgets.Button(
                label="Reset to the model's values", color="light", sizing_mode="stretch_width"
            )
            reload.on_click(lambda _e: self.reload_preset())
            reload.visible = self.param.preset.rx().rx.pipe(lambda v: v != CUSTOM)
            self._log_sliders = {
                "base": LogSlider(self, "base", log_base=10.0, step=0.05),
                "trained_len": LogSlider(self, "trained_len", step=0.125),
                "target_len": LogSlider(self, "target_len", step=0.125),
                "factor": LogSlider(self, "factor", step=0.125),
                "served_len": LogSlider(self, "served_len", step=0.125),
            }

            def for_method(names: tuple[str, ...], methods: set[str]) -> pn.Column:
                items = [
                    self._log_sliders[n].widget if n in self._log_sliders else widget(n)
                    for n in names
                ]
                return pn.Column(
                    *items,
                    visible=self.param.method.rx().rx.pipe(lambda m: m in methods),
                    sizing_mode="stretch_width",
                    margin=0,
                )

            pair = widget("pair")
            self._pair_choice.link(pair, {"pair": pair})
            longrope_note = pn.pane.HTML(
                pn.bind(
                    lambda src, n: (
                        f"<small>short_factor / long_factor: {n} pairs each, from "
                        f"{escape_text(src, 60)} (read-only).</small>"
                    ),
                    self.param.longrope_source,
                    self.param.longrope_pairs,
                ),
                sizing_mode="stretch_width",
                margin=(0, 10),
            )
            self._controls = pn.Column(
                widget("preset"),
                reload,
                widget("d"),
                self._log_sliders["base"].widget,
                self._log_sliders["trained_len"].widget,
                self._log_sliders["target_len"].widget,
                self._log_sliders["factor"].widget,
                widget("method"),
                for_method(("served_len",), {"dynamic", "longrope"}),
                for_method(METHOD_CONTROLS["yarn"], {"yarn"}),
                for_method(METHOD_CONTROLS["llama3"], {"llama3"}),
                pn.Column(
                    widget("attention_factor"),
                    longrope_note,
                    visible=self.param.method.rx().rx.pipe(lambda m: m == "longrope"),
                    sizing_mode="stretch_width",
                    margin=0,
                ),
                pair,
                sizing_mode="stretch_width",
                margin=0,
            )
        return self._controls

    # ---------------------------------------------------------------- figures
    def _build_figures(self) -> dict[str, Figure]:
        # The rules watch first, so that the plots (whose watchers are made below)
        # only ever see consistent values.
        self.param.watch(self._on_controls, [n for n in self.control_names() if n != "preset"])
        self.param.watch(self._on_preset, "preset")
        ink = self._ink
        # The hook lives in HoloViews' global option store for as long as the
        # plot's DynamicMap does; a strong reference to the page from there
        # would keep every closed session's page (and the map) alive.
        page = weakref.ref(self)
        selected = _selected_legend(lambda: page().schedule().method)
        self._selected_hook = selected
        self._pair_choice = BrowserChoice("pair", lambda: page()._pair_key(), by_figure=True)
        attach_pairs = self._pair_choice.figure_hook()
        self.choices = {"pair": self._pair_choice}
        e1_hover = _sci_hover(_E1_TOOLTIPS)
        in_place = self.in_place
        schedule = in_place(
            self._schedule_plot, self._schedule_highlight, direct=self._schedule_drawn
        ).opts(
            hv.opts.Scatter(
                "Pairs",
                color="status",
                cmap=_STATUS_COLORS,
                size=7,
                line_color=None,
                tools=[e1_hover],
                show_legend=True,
            ),
            hv.opts.Scatter(
                "Scaled",
                color="status",
                cmap=_STATUS_COLORS,
                marker="diamond",
                size=10,
                fill_alpha=0,
                line_width=1.5,
                tools=[e1_hover],
                show_legend=False,
            ),
            hv.opts.Segments("Links", color=OKABE_ITO["grey"], line_width=1, line_alpha=0.7),
            hv.opts.HLines("Lengths", color=ink, line_dash="dashed", line_width=1.2),
            hv.opts.Labels(
                "Lengths",
                text_align="left",
                text_baseline=hv.dim("baseline"),
                text_font_size="9pt",
                text_color=ink,
            ),
            hv.opts.Points(
                "Highlight", size=16, fill_alpha=0, line_color=ink, line_width=2, tools=[]
            ),
            hv.opts.Overlay(
                framewise=True,
                logy=True,
                legend_position="bottom_right",
                legend_opts={"stylesheets": [_STATUS_ENTRY_CSS]},
                xlabel=_PAIR.label,
                ylabel=_E1_VDIMS[0].label,
                hooks=[attach_pairs],
                **plot_opts(height=360),
            ),
        )
        reference_styles = [
            hv.opts.Curve(
                f"Reference.{label_sanitizer(_SHORT[m])}",
                color=_METHOD_COLORS[m],
                line_width=1.5,
                line_dash="dashed",
            )
            for m in ("default", "linear", "ntk")
        ]
        band = in_place(self._band_plot, direct=self._band_drawn).opts(
            hv.opts.HSpans(
                "Band",
                color=OKABE_ITO["sky"],
                fill_alpha=0.25,
                line_color=OKABE_ITO["blue"],
                line_width=1.5,
            ),
            hv.opts.Curve("Reference", tools=[_line_hover()]),
            *reference_styles,
            hv.opts.Curve("Selected", line_width=4, tools=[_line_hover()]),
            hv.opts.Points("Ends", color=ink, size=6, tools=[HoverTool(tooltips=_END_TOOLTIPS)]),
            hv.opts.VLines("Marks", color=ink, line_dash="dotted", line_width=1.2),
            hv.opts.Labels(
                "Marks",
                text_align=hv.dim("align"),
                text_baseline=hv.dim("baseline"),
                text_font_size="9pt",
                text_color=ink,
            ),
            hv.opts.Overlay(
                framewise=True,
                xformatter=NumeralTickFormatter(format="0,0a"),
                # Above the frame: inside, it covered the band's top-left.
                legend_cols=2,
                **legend_outside("top", stylesheets=[_SELECTED_ENTRY_CSS]),
                xlabel=_POS.label,
                ylabel="angle of the pair (rad)",
                hooks=[selected, attach_pairs],
                **plot_opts(height=360),
            ),
        )
        slowdown = in_place(self._slowdown_plot, direct=self._slowdown_drawn).opts(
            hv.opts.VSpans("Ramp", color=OKABE_ITO["orange"], fill_alpha=0.15, line_alpha=0),
            *reference_styles,
            hv.opts.Curve("Selected", line_width=3),
            hv.opts.Scatter(
                "Selected",
                color="fill",
                cmap=_E3_FILL,
                show_legend=False,
                size=7,
                line_color=None,
                tools=[_sci_hover(_E3_TOOLTIPS)],
            ),
            hv.opts.Overlay(
                framewise=True,
                logy=True,
                # Above the frame, in one row: inside, it covered the lines' left ends.
                legend_cols=4,
                **legend_outside("top", stylesheets=[_SELECTED_ENTRY_CSS]),
                xlabel=_PAIR.label,
                ylabel="slow-down θᵢ / θ′ᵢ (log scale)",
                hooks=[selected, tidy_log_y_ticks],
                **plot_opts(height=300),
            ),
        )
        ramp = in_place(self._ramp_plot, direct=self._ramp_drawn).opts(
            hv.opts.Curve(
                framewise=True,
                color=OKABE_ITO["orange"],
                line_width=2.5,
                tools=["hover"],
                **plot_opts(height=170),
            )
        )
        download = pn.widgets.FileDownload(
            callback=self._csv,
            filename="rope_pairs.csv",
            label="Download the per-pair table (CSV)",
            color="light",
            sizing_mode="stretch_width",
            margin=(4, 10),
        )
        ramp_box = pn.Column(
            pn.pane.Markdown(
                "**YaRN's ramp** rᵢ: 0 keeps pair i, 1 divides it by s.", margin=(4, 10, 0, 10)
            ),
            pn.pane.HoloViews(ramp, sizing_mode="stretch_width"),
            visible=self.param.method.rx().rx.pipe(lambda m: m == "yarn"),
            sizing_mode="stretch_width",
        )
        readout = lambda fn: pn.pane.HTML(  # noqa: E731
            fn, stylesheets=[_TABLE_CSS], sizing_mode="stretch_width", margin=(0, 10)
        )
        return {
            "schedule": Figure(
                title="E1 · Frequency schedule: which pairs leave their trained band",
                plot=schedule,
                caption=(
                    "One dot per pair: how many tokens it takes to turn once (its wavelength). "
                    "Pairs above the line L never complete a turn in training, so they have only "
                    "seen a slice of the circle. Serve L′ tokens and those pairs reach angles "
                    "never seen (magenta). A scaling method slows the pairs down: the diamonds "
                    "are the new wavelengths. Set the scaling the checkpoint expects, and test "
                    "at the length you will serve. The ring marks the pair drawn in E2."
                ),
                formula=(
                    r"$$\begin{gathered}\theta_i = b^{-2i/d},\quad "
                    r"\lambda_i = \frac{2\pi}{\theta_i}"
                    r",\quad \text{never a full turn: } \theta_i L < 2\pi \\"
                    r"\text{unseen at } L':\ \theta_i L < 2\pi \ \text{and}\ \theta'_i L' > "
                    r"\theta_i L\end{gathered}$$"
                ),
                controls=(
                    "d",
                    "base",
                    "trained_len",
                    "target_len",
                    "factor",
                    "method",
                    "served_len",
                    "pair",
                ),
                readout=readout(self._schedule_readout),
                extras=(download,),
            ),
            "band": Figure(
                title="E2 · Angle-band chart: one pair, every method",
                plot=band,
                caption=(
                    "The angle of one pair (default: the slowest) against position, up to the "
                    "target length L′. The shaded band is what training showed the model: "
                    "angles 0 … θᵢL. With no scaling the line leaves the band right after L. "
                    "Position interpolation divides every speed by s and ends exactly on the "
                    "band's edge; NTK-aware scaling does the same for the slowest pair only. "
                    "The thick line is the selected method (dynamic NTK is drawn at a few "
                    "dozen served lengths, LongRoPE switches lists at L)."
                ),
                formula=(
                    r"$$\varphi_i(p) = \theta'_i\,p,\qquad \text{trained band: } "
                    r"0 \le \varphi < \theta_i L$$"
                ),
                controls=(
                    "pair",
                    "d",
                    "base",
                    "trained_len",
                    "target_len",
                    "factor",
                    "method",
                    "served_len",
                ),
                readout=readout(self._band_readout),
            ),
            "methods": Figure(
                title="E3 · What the method does to each pair",
                plot=slowdown,
                caption=(
                    "How much each pair is slowed down (θᵢ/θ′ᵢ, 1 = unchanged). Interpolation "
                    "slows every pair by s, blurring the fast pairs that tell neighbouring "
                    "tokens apart; NTK-aware scaling leaves the fastest pair alone and slows the "
                    "slowest by s. YaRN and Llama 3 keep fast pairs, interpolate slow ones and "
                    "blend in between (YaRN's ramp is shaded); YaRN also sharpens attention by "
                    "its attention factor. The numbers below are the core's."
                ),
                formula=(
                    r"$$\text{slow-down}_i = \frac{\theta_i}{\theta'_i},\qquad "
                    r"s = \frac{L'}{L}$$"
                ),
                controls=(
                    "d",
                    "base",
                    "trained_len",
                    "target_len",
                    "factor",
                    "method",
                    "served_len",
                    *METHOD_CONTROLS["yarn"],
                    *METHOD_CONTROLS["llama3"],
                ),
                readout=readout(self._methods_readout),
                extras=(formula_pane(self._method_formula, margin=(0, 10)), ramp_box),
            ),
        }

    def _arrange(self, cards: list[pn.viewable.Viewable]) -> pn.viewable.Viewable:
        # E1, E2 side by side; E3 beside the paste box would squeeze both, so E3 and
        # E4 each get a full row.
        return pn.Column(
            pn.GridBox(*cards[:2], ncols=2, sizing_mode="stretch_width"),
            *cards[2:],
            self._e4_card(),
            sizing_mode="stretch_width",
        )

    # ----------------------------------------------------------- quick check
    @param.depends("d", "base", "trained_len")
    def _quick_answer(self) -> str:
        theta, _ = scaling_call({**self._values(), "method": "default"}, "default")
        never = never_complete_turn(theta, self.trained_len)
        count = int(never.sum())
        slowest = float(trained_max_angle(theta, self.trained_len)[-1])
        first = int(np.argmax(never)) if count else None
        which = (
            f"pairs {first} … {self.d // 2 - 1}"
            if count > 1
            else f"pair {first}"
            if count == 1
            else "none"
        )
        return (
            f"<b>{count}</b> of {self.d // 2} pairs ({which}): a pair completes a turn "
            f"only if its wavelength 2π/θᵢ is below L = {self.trained_len:,}. The slowest "
            f"turns {slowest:.3g} rad by position L ({100 * slowest / (2 * math.pi):.3g} % of "
            "a turn). These are the pairs that meet unseen angles as soon as you serve "
            "more than L tokens (for d = 128, base 10,000, L = 4,096 the answer is 18)."
        )

    def _build_quick_check(self) -> QuickCheck:
        return QuickCheck(
            question=(
                "For the current d, base and trained length L: how many pairs never complete "
                "a full turn within the trained length?"
            ),
            answer=self._quick_answer,
        )


def _no_rope_html(error: NoRopeError) -> str:
    slug, title = SCHEME_PAGES.get(error.scheme, ("sinusoidal", "Sinusoidal & learned"))
    return notice_html(str(error) + ".", kind="info", title="No RoPE here.").replace(
        "</div>",
        f' See <a href="?page={slug}">the {escape_text(title)} page</a>.</div>',
        1,
    )


_METHOD_FORMULAS = {
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
        r"r_i = \mathrm{clip}\!\left(\frac{i - \mathrm{lo}}{\mathrm{hi} - \mathrm{lo}}, "
        r"0, 1\right) \\"
        r"\text{attention factor} = 0.1\ln s + 1\end{gathered}$$"
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
        r"\text{attention factor} = \sqrt{1 + \frac{\ln s}{\ln L}}\end{gathered}$$"
    ),
}
