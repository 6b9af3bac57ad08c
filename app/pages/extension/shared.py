"""What the Context extension figures share: the schedule of a state, names, colours."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from typing import Any

import holoviews as hv
from bokeh.models import CustomJSHover

from positional_core.rope_scaling import ROPE_SCALING_METHODS, RopeScalingError
from positional_core.stretch import StretchSchedule, StretchSettings, stretch_schedule

from ...look import OKABE_ITO

__all__ = [
    "ATTENTION",
    "FREQUENCY",
    "MAX_TARGET",
    "METHOD_COLORS",
    "METHOD_CONTROLS",
    "METHOD_LABELS",
    "PAIR",
    "SELECTED_ENTRY_CSS",
    "SHORT",
    "Schedules",
    "rows_html",
    "sci_hover",
    "settings_of",
]

#: Longest target (and served) length the page draws: E2 stays fast up to here.
MAX_TARGET = 2**20

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
SHORT = {
    "default": "no scaling",
    "linear": "interpolation",
    "ntk": "NTK-aware",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3",
    "longrope": "LongRoPE",
}

#: The controls each method reads besides d, base, L, L′ and s (shown only for it).
METHOD_CONTROLS: dict[str, tuple[str, ...]] = {
    "default": (),
    "linear": (),
    "ntk": (),
    "dynamic": ("served_len",),
    "yarn": ("beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate", "attention_factor"),
    "llama3": ("low_freq_factor", "high_freq_factor"),
    "longrope": ("served_len", "attention_factor"),
}

METHOD_COLORS = {
    "default": OKABE_ITO["grey"],
    "linear": OKABE_ITO["blue"],
    "ntk": OKABE_ITO["green"],
    "dynamic": OKABE_ITO["sky"],
    "yarn": OKABE_ITO["orange"],
    "llama3": OKABE_ITO["vermillion"],
    "longrope": "#8A6D00",  # dark yellow: readable on both themes, not the magenta of E1
}

#: Every control the per-pair speeds depend on (what the figures draw).
FREQUENCY = (
    "d",
    "base",
    "trained_len",
    "target_len",
    "factor",
    "method",
    "served_len",
    "beta_fast",
    "beta_slow",
    "truncate",
    "low_freq_factor",
    "high_freq_factor",
    "longrope_short",
    "longrope_long",
)
#: The knobs that change only the attention factor (a readout, no figure).
ATTENTION = ("mscale", "mscale_all_dim", "attention_factor")

PAIR = hv.Dimension("pair", label="pair i (0 = fastest)")

# A legend that changes width makes Bokeh lay its figure out and paint it
# again one frame after the change was drawn. E2's and E3's last entry (the
# selected method) is at most 11.8 em wide in Chromium at the legend's font
# ("dynamic NTK (selected)"): its label keeps at least that width, so a new
# method moves nothing.
SELECTED_ENTRY_CSS = ".bk-item:last-child .bk-label { min-width: 12em; }"

_ROWS_CSS = """<style>
.numbers { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(330px, 100%), 1fr));
  column-gap: 28px; row-gap: 1px; font-size: 0.93em; line-height: 1.35; }
.numbers .row { display: flex; justify-content: space-between; gap: 12px;
  border-bottom: 1px solid rgba(128, 128, 128, 0.2); padding: 2px 0; }
.numbers .k { flex: 1 1 auto; }
.numbers .v { flex: 0 1 auto; text-align: right; font-variant-numeric: tabular-nums; }
.numbers .row.hi { font-weight: 600; }
.muted { opacity: 0.8; }
</style>"""


def rows_html(rows: list[tuple[str, str]], highlight: set[int] | None = None) -> str:
    """(label, value) rows as a grid: one column when narrow, more when wide.

    Both are app text (escape user text before passing it); the grid's style
    comes with it, so it reads the same in any pane.
    """
    highlight = highlight or set()
    body = "".join(
        f'<div class="row{" hi" if i in highlight else ""}"><span class="k">{label}</span>'
        f'<span class="v">{value}</span></div>'
        for i, (label, value) in enumerate(rows)
    )
    return f'{_ROWS_CSS}<div class="numbers">{body}</div>'


def sci_hover() -> CustomJSHover:
    """Hover text of a speed θ in scientific notation (1.155e-4)."""
    return CustomJSHover(code="return value.toExponential(3)")


def settings_of(p: Any, *, figures: bool = False) -> StretchSettings:
    """The page's state as the core's settings; for ``figures``, without the knobs
    that only move the attention factor (the figures do not follow them)."""
    longrope = p.method == "longrope"
    return StretchSettings(
        method=p.method,
        base=p.base,
        d=p.d,
        trained_len=p.trained_len,
        target_len=p.target_len,
        factor=p.factor,
        served_len=p.served_len,
        beta_fast=p.beta_fast,
        beta_slow=p.beta_slow,
        mscale=0.0 if figures else p.mscale,
        mscale_all_dim=0.0 if figures else p.mscale_all_dim,
        truncate=p.truncate,
        attention_factor=0.0 if figures else p.attention_factor,
        low_freq_factor=p.low_freq_factor,
        high_freq_factor=p.high_freq_factor,
        short_factor=p.longrope_short if longrope else None,
        long_factor=p.longrope_long if longrope else None,
    )


class Schedules:
    """A page's schedules, computed once per settings (the last few kept).

    A method that refuses its knobs (the page's rules make this unreachable)
    is shown as no scaling, with a note, never a traceback.
    """

    def __init__(self, keep: int = 4) -> None:
        self._kept: OrderedDict[StretchSettings, tuple[StretchSchedule, str]] = OrderedDict()
        self._keep = keep

    def get(self, settings: StretchSettings) -> tuple[StretchSchedule, str]:
        """The schedule of ``settings`` and the note of a refused method ("" if none)."""
        hit = self._kept.get(settings)
        if hit is not None:
            self._kept.move_to_end(settings)
            return hit
        try:
            found = (stretch_schedule(settings), "")
        except RopeScalingError as error:
            plain = replace(settings, method="default", short_factor=None, long_factor=None)
            note = f"{METHOD_LABELS[settings.method]}: {error}; showing no scaling."
            found = (stretch_schedule(plain), note)
        self._kept[settings] = found
        while len(self._kept) > self._keep:
            self._kept.popitem(last=False)
        return found
