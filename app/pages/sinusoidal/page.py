"""The Sinusoidal & learned page: its controls, the rules between them, and its layout."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

import panel as pn
import param

from ...page import Page
from ...widgets import POSITION
from .clock import Clock
from .grid import SIDE, Grid
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
        "grid": Grid,
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

    # Bounded numbers get Panel's sliders without being named here.
    grid_scheme = param.Selector(
        default="sincos_2d",
        objects={
            "2-D sine–cosine": "sincos_2d",
            "2-D RoPE": "rope_2d",
            "1-D, reading order": "sincos_1d",
        },
        label="Grid code (S5)",
        doc="How the patches of S5's image grid get their positions.",
    )
    patch_row = param.Integer(
        default=5,
        bounds=(0, SIDE - 1),
        label="Patch row (S5)",
        doc="The row of the patch S5 compares with every other (0 at the top).",
    )
    patch_col = param.Integer(
        default=5,
        bounds=(0, SIDE - 1),
        label="Patch column (S5)",
        doc="The column of the patch S5 compares with every other (0 at the left).",
    )

    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "t": POSITION,
        "n": {"throttled": True},
        "d": {"throttled": True},
        "base": {"type": pn.widgets.DiscreteSlider},
        "max_len": {"throttled": True},
        # Long names: one button a line, so none is cut in a narrow column.
        "grid_scheme": {
            "type": pn.widgets.RadioButtonGroup,
            "color": "primary",
            "variant": "outline",
            "orientation": "vertical",
        },
    }
    consistent_on: ClassVar[tuple[str, ...]] = ("n", "d")
    even: ClassVar[dict[str, str]] = {
        "d": "d = {value} is odd; codes come in pairs, so d set to {even}."
    }

    # ------------------------------------------------------------------ rules
    @classmethod
    def dynamic_bounds(cls, values: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        return {"t": (0, values["n"] - 1)}

    # ---------------------------------------------------------------- layout
    def _first_missing_row(self, rows: int) -> dict[str, int]:
        """A real model's table length, at its first position with no row."""
        n = min(max(self.n, rows + 32), self.param.n.bounds[1])
        return {"max_len": rows, "n": n, "t": rows}

    def _extra_controls(self) -> list[Any]:
        return self.preset_buttons(
            "Jump to a real model's table length (S4), at the first position with no row:",
            {
                f"{name}: {rows:,} rows": partial(self._first_missing_row, rows)
                for name, (rows, _width) in LEARNED_PRESETS.items()
            },
            layout=pn.Row,
            margin=(5, 10),
        )
