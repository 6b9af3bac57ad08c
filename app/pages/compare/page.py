"""The Compare page: its controls, the rule L′ ≥ L, and its layout (C1–C6 and a summary)."""

from __future__ import annotations

from typing import Any, ClassVar

import panel as pn
import param

from ...cards import card_grid
from ...page import Page
from .alibi import Alibi
from .drope import Drope
from .learned import Learned
from .rope import Rope
from .sinusoidal import Sinusoidal
from .summary import summary_card
from .t5 import T5

__all__ = ["ComparePage"]

#: Lengths offered for L and L′: powers of two (model lengths are).
_LENGTHS = [2**k for k in range(7, 21)]

_GRID_CSS = """
@media (min-width: 1680px) {
  :host { grid-template-columns: repeat(3, minmax(0, 1fr)) !important; }
}
@media (min-width: 2300px) {
  :host { grid-template-columns: repeat(6, minmax(0, 1fr)) !important; }
}
"""


class ComparePage(Page):
    """Learned, sinusoidal, RoPE, ALiBi, T5 and DroPE past the trained length, side by side."""

    slug: ClassVar[str] = "compare"
    title: ClassVar[str] = "Compare"
    intro: ClassVar[str] = (
        "A model is trained on inputs of length L and then run on longer ones, of length "
        "L′. What does each scheme do past L? The learned table has no row, sinusoidal "
        "codes are defined but never seen, RoPE pairs leave the band of angles they "
        "trained on, ALiBi's biases stay the same function of distance, T5's far "
        "distances all share one bucket, so no new bucket appears, and DroPE removes "
        "RoPE's rotations after training, leaving only the causal mask's signal."
    )
    charts: ClassVar[dict[str, Any]] = {
        c.key: c for c in (Learned, Sinusoidal, Rope, Alibi, T5, Drope)
    }

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

    # Bounded numbers get Panel's sliders without being named here.
    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "trained_len": {"type": pn.widgets.DiscreteSlider},
        "target_len": {"type": pn.widgets.DiscreteSlider},
        "d": {"throttled": True},
        "base": {"type": pn.widgets.DiscreteSlider},
    }
    consistent_on: ClassVar[tuple[str, ...]] = ("trained_len", "target_len", "d")
    even: ClassVar[dict[str, str]] = {
        "d": "d = {value} is odd; dimensions come in pairs, so d set to {even}."
    }

    # ------------------------------------------------------------------ rules
    @classmethod
    def constrain(cls, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes = cls.make_even(fixed)
        if fixed["target_len"] < fixed["trained_len"]:
            notes.append(
                f"Target length L′ = {fixed['target_len']:,} is shorter than the trained "
                f"length L = {fixed['trained_len']:,}; set to {fixed['trained_len']:,}."
            )
            fixed["target_len"] = fixed["trained_len"]
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    # ---------------------------------------------------------------- layout
    def _arrange(self, cards: list[pn.viewable.Viewable]) -> pn.viewable.Viewable:
        # Two columns on a laptop (more would leave each figure too narrow to read),
        # three on a wide screen, all six side by side on a very wide one.
        grid = card_grid(*cards, stylesheets=(_GRID_CSS,))
        return pn.Column(grid, summary_card(self), sizing_mode="stretch_width")
