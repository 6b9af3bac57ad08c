"""The RoPE page: its controls, the rule between them, and its layout (R1–R7)."""

from __future__ import annotations

from typing import Any, ClassVar

import panel as pn
import param

from positional_core.rope import LAYOUTS

from ...cards import card_grid
from ...page import Page
from ...widgets import POSITION
from .angles import Angles
from .curves import Distance, Mismatch
from .decay import Decay
from .layouts import Layouts
from .mistakes import Mistakes
from .pair import CONTROLS, Pair
from .wavelengths import Wavelengths

__all__ = ["BASES", "RopePage"]

#: Base choices on a 1-2-5 log grid from 100 to 10⁷; it includes the bases of
#: real models: 10,000 (RoFormer, Llama 2), 500,000 (Llama 3), 1,000,000 (Code
#: Llama, Qwen2), 5,000,000 (Yi).
BASES: tuple[int, ...] = (*(m * 10**e for e in range(2, 7) for m in (1, 2, 5)), 10_000_000)


class RopePage(Page):
    """Rotary position embedding (Su et al. 2021): rotate q and k, score by distance."""

    slug: ClassVar[str] = "rope"
    title: ClassVar[str] = "RoPE"
    intro: ClassVar[str] = (
        "Rotary position embedding (RoPE) does not add anything to the input. It "
        "<em>turns</em> each pair of dimensions of a query by an angle proportional to "
        "the query's position, and the key's pairs by the key's position. The score "
        "of two turned arrows depends only on the angle between them, so it depends on "
        "how far apart the two tokens are, never on where they are."
    )
    charts: ClassVar[dict[str, Any]] = {
        "pair": Pair,
        "distance": Distance,
        "decay": Decay,
        "angles": Angles,
        "wavelengths": Wavelengths,
        "layouts": Layouts,
        "mismatch": Mismatch,
        "mistakes": Mistakes,
    }

    # ---------------------------------------------------------- R1: one pair
    m = param.Integer(
        default=2,
        bounds=(0, 4096),
        label="Query position m",
        doc="Position of the query token (R1). The query's pair turns by m·θ.",
    )
    n = param.Integer(
        default=1,
        bounds=(0, 4096),
        label="Key position n",
        doc="Position of the key token (R1). The key's pair turns by n·θ.",
    )
    theta = param.Number(
        default=0.5,
        bounds=(0.0, 3.14),
        step=0.01,
        label="Pair frequency θ (rad per position)",
        doc="How far this pair turns per position (R1). In a real head pair i has "
        "θᵢ = base^(−2i/d): 1 for the fastest pair, tiny for the slowest.",
    )
    q_angle = param.Number(
        default=0.0,
        bounds=(-180.0, 180.0),
        step=1.0,
        label="Query content: direction (°)",
        doc="Direction of the query's pair before rotation, in degrees (R1). "
        "Or drag the query's tip on the plot.",
    )
    q_len = param.Number(
        default=1.0,
        bounds=(0.1, 1.5),
        step=0.01,
        label="Query content: length",
        doc="Length of the query's pair (R1). Rotation never changes it.",
    )
    k_angle = param.Number(
        default=90.0,
        bounds=(-180.0, 180.0),
        step=1.0,
        label="Key content: direction (°)",
        doc="Direction of the key's pair before rotation, in degrees (R1). "
        "Or drag the key's tip on the plot.",
    )
    k_len = param.Number(
        default=1.0,
        bounds=(0.1, 1.5),
        step=0.01,
        label="Key content: length",
        doc="Length of the key's pair (R1).",
    )

    # ------------------------------------------------------ R2–R7: one head
    d = param.Integer(
        default=64,
        bounds=(2, 256),
        step=2,
        label="Head dimension d (even)",
        doc="Width of the query and key vectors (R2–R7): d/2 pairs, each turning at "
        "its own speed. Real heads use 64 or 128.",
    )
    base = param.Selector(
        default=10_000,
        objects={f"{b:,}": b for b in BASES},
        label="Base (rope_theta)",
        doc="Sets the slowest pair's speed, base^(−(d−2)/d) (R2–R5, R7). 10,000 in the "
        "RoPE paper and Llama 2; 500,000 in Llama 3; 1,000,000 in Code Llama.",
    )
    layout = param.Selector(
        default="interleaved",
        objects=list(LAYOUTS),
        label="Pair layout",
        doc="Which dimensions turn together (R2, R6, R7): interleaved (2i, 2i+1) as in the "
        "RoPE paper, or half-split (i, i + d/2) as in GPT-NeoX and Hugging Face Llama.",
    )
    mistake = param.Selector(
        default="values",
        objects={"RoPE on the values": "values", "θ from the model width": "width"},
        label="Mistake (R8)",
        doc="Which classic mistake R8 measures.",
    )
    seed = param.Integer(
        default=0,
        bounds=(0, 99_999),
        label="Random q, k: seed",
        doc="Seed of the random query and key contents of R2 and R7 "
        "(the button under R2 picks the next one).",
    )
    start = param.Integer(
        default=5000,
        bounds=(0, 1_000_000),
        label="Your start position",
        doc="A fourth query position for R2 and R7, next to 0, 100 and 1,000.",
    )
    max_distance = param.Integer(
        default=256,
        bounds=(16, 2048),
        label="Largest distance Δ",
        doc="The x-axis of R2, R3, R4 and R7 runs from 0 to this many positions "
        "(R5 marks it with a dashed line).",
    )
    pair = param.Integer(
        default=8,
        bounds=(0, 127),
        label="Highlighted pair i (R4)",
        doc="The pair drawn in bold in R4 and ringed in R5 (0 is the fastest). At most d/2 − 1.",
    )

    # --------------------------------------------------- state (not controls)
    log = param.List(
        default=[],
        precedence=-1,
        doc="R1's score log, newest first: (action, m, n, θ, score) per row.",
    )
    r1_notes = param.List(
        default=[], item_type=str, precedence=-1, doc="Why a button of R1 did nothing."
    )

    # Bounded numbers get Panel's sliders without being named here.
    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "m": POSITION,
        "n": POSITION,
        "d": {"throttled": True},
        "base": {"type": pn.widgets.DiscreteSlider},
        "layout": {"type": pn.widgets.RadioButtonGroup, "color": "primary", "variant": "outline"},
        "mistake": {  # long names: one button a line, so none is cut in a narrow column
            "type": pn.widgets.RadioButtonGroup,
            "color": "primary",
            "variant": "outline",
            "orientation": "vertical",
        },
        "seed": {"type": pn.widgets.IntInput},
        "start": {"type": pn.widgets.IntInput},
        "max_distance": {"throttled": True},
    }
    consistent_on: ClassVar[tuple[str, ...]] = ("d",)
    even: ClassVar[dict[str, str]] = {
        "d": "d = {value} is odd; pairs need an even d, so d set to {even}."
    }

    # ------------------------------------------------------------------ rules
    @classmethod
    def dynamic_bounds(cls, values: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        return {"pair": (0, values["d"] // 2 - 1)}

    # ---------------------------------------------------------------- layout
    def control_items(self) -> list[Any]:
        """Three groups: the pair of R1, the head of R2–R7, the mistake of R8."""
        head = [n for n in self.control_names() if n not in (*CONTROLS, "mistake")]
        return [
            pn.pane.Markdown("**One pair (R1)**", margin=(0, 10)),
            self.param_group(CONTROLS),
            pn.pane.Markdown("**A whole head (R2–R7)**", margin=(10, 10, 0, 10)),
            self.param_group(head),
            pn.pane.Markdown("**Classic mistakes (R8)**", margin=(10, 10, 0, 10)),
            self.param_group(["mistake"]),
        ]

    def _arrange(self, cards: list[pn.viewable.Viewable]) -> pn.viewable.Viewable:
        """R1's square plot with its readout, buttons and log beside it (the identity,
        caption and formula under both); the other figures in two columns."""
        first, *rest = cards
        plot, *items = first.objects
        identity = self.figures["pair"].extras[-1]
        cut = next(i for i, item in enumerate(items) if item is identity)
        beside = pn.Column(*items[:cut], sizing_mode="stretch_width", min_width=320)
        # Side by side where there is room, the readout under the plot on a phone.
        pair = pn.Row(
            plot, beside, sizing_mode="stretch_width", stylesheets=[":host { flex-wrap: wrap; }"]
        )
        first.objects = [pair, *items[cut:]]
        grid = card_grid(*rest)
        return pn.Column(first, grid, sizing_mode="stretch_width")
