"""The Sinusoidal & learned page: its controls, the rules between them, and its layout."""

from __future__ import annotations

from typing import Any, ClassVar

import panel as pn
import param

from ...page import Page
from .clock import Clock
from .learned import LearnedTable
from .shared import LEARNED_PRESETS
from .similarity import Similarity
from .table import CodeTable

__all__ = ["LEARNED_PRESETS", "SinusoidalPage"]


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
    charts: ClassVar[dict[str, Any]] = {
        "table": CodeTable,
        "clock": Clock,
        "similarity": Similarity,
        "learned": LearnedTable,
    }

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

    # ---------------------------------------------------------------- layout
    def _go_preset(self, rows: int) -> None:
        """A real model's table length, at its first position with no row."""
        n = min(max(self.n, rows + 32), self.param.n.bounds[1])
        self.set_state(max_len=rows, n=n, t=rows)

    def _preset_buttons(self) -> pn.Row:
        buttons = []
        for name, (rows, _width) in LEARNED_PRESETS.items():
            button = pn.widgets.Button(
                label=f"{name}: {rows:,} rows", color="light", sizing_mode="stretch_width"
            )
            button.on_click(lambda _event, rows=rows: self._go_preset(rows))
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
