"""The Context extension page: its controls, the rules between them, and its layout (E1–E5).

A model trained on ``L`` tokens has seen, on pair ``i``, only the angles
``[0, θ_i·L)``. Serving ``L′ > L`` tokens shows its slow pairs angles it never
saw; the scaling methods of a ``rope_scaling`` block slow the pairs down so
they stay in that band. Every number comes from :mod:`positional_core`.

Lengths, the base and the stretch factor are sliders over their logarithm
(:class:`app.widgets.LogSlider`); the value (and the link) stays the plain
number. The stretch factor ``s`` and the target length ``L′`` drive each
other: moving ``s`` sets ``L′ = round(s·L)``; moving ``L′`` or ``L`` sets
``s = L′/L``. A model's config may hold both independently (Llama 3.1: s = 8
on L = 8,192 but 131,072 positions), so presets and links set them separately.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator, Mapping
from functools import lru_cache
from typing import Any, ClassVar

import panel as pn
import param

from positional_core.stretch import StretchSchedule

from ...cards import card_grid, shown_when
from ...numbers import readable
from ...page import Page
from ...widgets import LogSlider
from . import models
from .band import Band
from .loading import ModelLoading
from .methods import Methods, Ramp
from .models import CUSTOM, LONGROPE_SHORT
from .params import ExtensionControls
from .schedule import Schedule
from .shared import MAX_TARGET, METHODS, SERVED, in_reach, schedule_of, settings_of

__all__ = ["ExtensionPage"]


class ExtensionPage(ModelLoading, ExtensionControls, Page):
    """Context extension: RoPE scaling methods and real models' ``rope_scaling``."""

    slug: ClassVar[str] = "extension"
    title: ClassVar[str] = "Context extension"
    intro: ClassVar[str] = (
        "A RoPE model trained on <em>L</em> tokens has only ever seen, on each pair of "
        "dimensions, the angles from 0 up to θ<sub>i</sub>·<em>L</em>. Serve it longer and "
        "its slow pairs turn to angles it never saw in training. The scaling methods of a "
        "<code>rope_scaling</code> block slow the pairs down so they stay in that band. Pick a "
        "real model in the sidebar, or paste its <code>config.json</code> below (E5). "
        "DroPE goes the other way and drops the rotations after training, so no pair turns "
        "at all: see it beside the other schemes on the "
        '<a href="?page=compare">Compare</a> page (C6).'
    )
    charts: ClassVar[dict[str, Any]] = {
        "schedule": Schedule,
        "band": Band,
        "methods": Methods,
        "ramp": Ramp,
    }
    #: Every control the rules look after (the preset loads a model instead).
    consistent_on: ClassVar[tuple[str, ...]] = tuple(
        name
        for name, p in ExtensionControls.param.objects().items()
        if p.precedence is None and name not in ("name", "preset")
    )
    even: ClassVar[dict[str, str]] = {
        "d": "d = {value} is odd; dimensions rotate in pairs, so d set to {even}."
    }

    def __init__(self, **params: Any) -> None:
        #: The last few schedules, by settings (every figure and readout asks).
        self._schedules = lru_cache(maxsize=4)(schedule_of)
        self._busy = False
        #: The controls as the rules last left them (what a change moved is compared to it).
        self._settled: dict[str, Any] | None = None
        self._rule_notes: list[str] = []
        super().__init__(**params)
        self._settled = self._state()
        self.reload_preset(fill="preset" in params)

    # --------------------------------------------------------------- the data
    def schedule(self) -> StretchSchedule:
        """The core's schedule of the current state: one for every figure and readout
        (the figures do not read the attention factor; they do not follow its knobs)."""
        return self._schedules(settings_of(self))[0]

    def schedule_note(self) -> str:
        """Why the schedule shows no scaling although a method is selected ("" if it does not)."""
        return self._schedules(settings_of(self))[1]

    # ------------------------------------------------------------------ rules
    def _state(self) -> dict[str, Any]:
        """The controls, and the number of pairs LongRoPE's factors cover (its rule needs it)."""
        return {**self._values(), "longrope_pairs": self.longrope_pairs}

    @classmethod
    def dynamic_bounds(cls, values: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
        L = values["trained_len"]
        return {
            "target_len": (L, MAX_TARGET),
            "factor": (1.0, MAX_TARGET / L),
            "served_len": (1, in_reach(values["target_len"], L)),
            "pair": (0, values["d"] // 2 - 1),
        }

    @classmethod
    def constrain(cls, values: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes = cls.make_even(fixed)
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
            high = min(fixed["low_freq_factor"] + 1.0, cls.param.high_freq_factor.bounds[1])
            low = fixed["low_freq_factor"] if high > fixed["low_freq_factor"] else high - 1.0
            notes.append(
                f"high_freq_factor ({fixed['high_freq_factor']:g}) must exceed low_freq_factor "
                f"({fixed['low_freq_factor']:g}); set to {high:g} and {low:g}."
            )
            fixed["high_freq_factor"], fixed["low_freq_factor"] = high, low
        if 0 < fixed["attention_factor"] < 0.001:
            notes.append(
                f"attention_factor ({readable(fixed['attention_factor'])}) is below 0.001 "
                "(0 means: from the formula); set to 0.001."
            )
            fixed["attention_factor"] = 0.001
        L = fixed["trained_len"]
        target = in_reach(fixed["target_len"], L)
        if target != fixed["target_len"]:
            notes.append(
                f"Target length {fixed['target_len']:,} is outside L … {MAX_TARGET:,} "
                f"(L = {L:,}); set to {target:,}."
            )
            fixed["target_len"] = target
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    @classmethod
    def rules(
        cls, values: Mapping[str, Any], moved: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        """``values`` made consistent after the controls in ``moved`` (name → value before)
        moved, and what the rules changed.

        s and L′ drive each other (L′ = round(s·L); s = L′/L after L′ or L); a served
        length on L′ stays on it; the slowest pair stays the slowest when d changes.
        """
        out = dict(values)
        L = out["trained_len"]
        lengths = {"target_len", "trained_len"} & set(moved)
        if "factor" in moved and not lengths:
            out["target_len"] = in_reach(round(out["factor"] * L), L)
        elif lengths and "factor" not in moved:
            out["factor"] = in_reach(out["target_len"], L) / L
        if "served_len" not in moved and out["served_len"] == moved.get(
            "target_len", values["target_len"]
        ):
            out["served_len"] = in_reach(out["target_len"], L)
        old_d = moved.get("d", values["d"])
        fixed, notes = cls.constrain(out)
        if "pair" not in moved and fixed["d"] != old_d and values["pair"] == old_d // 2 - 1:
            fixed["pair"] = fixed["d"] // 2 - 1
            notes = [n for n in notes if not n.startswith(cls.param.pair.label)]
        return fixed, notes

    def keep_consistent(self, *_events: param.parameterized.Event) -> None:
        """Apply :meth:`rules` to what moved since the rules last ran, and say what they changed."""
        if self._busy or self._settled is None:
            return
        now = self._state()
        moved = {k: v for k, v in self._settled.items() if k in now and now[k] != v}
        fixed, notes = self.rules(now, moved)
        with self._quietly():
            self._apply(fixed)
        previous, self._rule_notes = self._rule_notes, notes
        if notes or previous:
            self.notes = [n for n in self.notes if n not in previous] + notes

    def _forget_notes(self, *_events: param.parameterized.Event) -> None:
        # What the rules just changed stays in the notice; the rest goes.
        kept = [n for n in self.notes if n in self._rule_notes]
        if kept != self.notes:
            self.notes = kept

    @contextlib.contextmanager
    def _quietly(self) -> Iterator[None]:
        """Changes the page makes itself: the rules and the preset watcher stay out."""
        busy, self._busy = self._busy, True
        try:
            yield
        finally:
            self._busy = busy
            self._settled = self._state()

    def set_state(self, **values: Any) -> list[str]:
        """Set controls at once: a preset's values first, then the ones given (kept as
        given, the rules move the others)."""
        unknown = sorted(set(values) - set(self.control_names()))
        if unknown:
            raise ValueError(f"not a control of {type(self).__name__}: {', '.join(unknown)}")
        start, extra = self._state(), {}
        if "preset" in values and values["preset"] != self.preset:
            start, extra = self._preset_state(values["preset"], start)
        fixed, notes = self.rules({**start, **values}, {k: start[k] for k in values})
        self._set(fixed, extra)
        return notes

    @param.depends("preset", watch=True)
    def _on_preset(self) -> None:
        if not self._busy:
            self.reload_preset()

    # ---------------------------------------------------------------- layout
    def _for_methods(self, methods: Collection[str], *items: Any) -> pn.Column:
        return pn.Column(
            *items,
            styles=shown_when(self.param.method.rx().rx.pipe(lambda m: m in methods)),
            sizing_mode="stretch_width",
            margin=0,
        )

    def control_items(self) -> list[Any]:
        """Preset, head and lengths (log sliders), method, then only that method's knobs."""
        reload = pn.widgets.Button(
            label="Reset to the model's values", color="light", sizing_mode="stretch_width"
        )
        reload.on_click(lambda _event: self.reload_preset())
        reload.visible = self.param.preset.rx().rx.pipe(lambda v: v != CUSTOM)
        logs = [
            LogSlider(self, "base", log_base=10.0, step=0.05),
            *(LogSlider(self, n) for n in ("trained_len", "target_len", "factor")),
        ]
        sources = (self.param.longrope_source, self.param.longrope_pairs)
        longrope_note = pn.pane.HTML(
            pn.bind(models.longrope_note, *sources), sizing_mode="stretch_width", margin=(0, 10)
        )
        return [
            self.param_group(["preset"]),
            reload,
            self.param_group(["d"]),
            *(log.widget for log in logs),
            self.param_group(["method"]),
            self._for_methods(SERVED, LogSlider(self, "served_len").widget),
            self._for_methods({"yarn"}, self.param_group(METHODS["yarn"].controls)),
            self._for_methods({"llama3"}, self.param_group(METHODS["llama3"].controls)),
            self._for_methods({"longrope"}, self.param_group(["attention_factor"]), longrope_note),
            self.param_group(["pair"]),
        ]

    def _arrange(self, cards: list[pn.viewable.Viewable]) -> pn.viewable.Viewable:
        # E1 and E2 side by side; E3 beside the paste box would squeeze both, so E3
        # (with E4, YaRN's ramp, under it, for YaRN) and E5 each get a full row.
        schedule, band, methods, ramp = cards
        return pn.Column(
            card_grid(schedule, band),
            methods,
            self._for_methods({"yarn"}, ramp),
            models.models_card(self),
            sizing_mode="stretch_width",
        )
