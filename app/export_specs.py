"""Which figures the static export writes, and which of their controls each keeps.

A static file can only show states computed when it was written: each
:class:`ExportSpec` names the controls a reader moves there (a :class:`Grid`
each: the control, its precomputed values, its widget) and the file holds every
combination of them. A second control multiplies the states, so the grids are
chosen to keep each file under the export's size limit (``app.export.MAX_BYTES``;
the sizes are in docs/performance.md): a control over a wide range keeps a
sample of it, and the file's note says which controls are sampled and which
are fixed at the page's defaults.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .main import PAGES

__all__ = ["SPECS", "ExportSpec", "Grid", "select_specs"]


@dataclass(frozen=True)
class Grid:
    """One control of a static figure: its values, every one precomputed."""

    #: The page parameter it sets.
    control: str
    #: Its values, in the order the widget shows them (the page's default among them).
    values: tuple[Any, ...]
    #: Widget: ``"slider"`` (numbers), ``"buttons"`` or ``"select"``.
    widget: str = "slider"


@dataclass(frozen=True)
class ExportSpec:
    """One exported figure: the controls the reader moves, and their values."""

    page: str
    figure: str
    #: The controls, first the figure's main one; the file holds every combination.
    grids: tuple[Grid, ...]
    #: Which of the figure's ``extras`` to keep, by position; by default every
    #: one without a widget in it (a button or a download needs a server).
    extras: tuple[int, ...] | None = None
    #: Buttons done in the browser among the precomputed states: (label,
    #: JavaScript) with ``a`` and ``b`` the first two controls' sliders (their
    #: ``value`` is the index of the value shown, ``end`` the last index).
    actions: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return f"{self.page}:{self.figure}"

    @property
    def filename(self) -> str:
        return f"{self.page}-{self.figure}.html"

    @property
    def control(self) -> str:
        """The main control's name."""
        return self.grids[0].control

    @property
    def values(self) -> tuple[Any, ...]:
        """The main control's values."""
        return self.grids[0].values

    @property
    def widget(self) -> str:
        return self.grids[0].widget

    @property
    def states(self) -> int:
        """How many states the file holds: every combination of the grids' values."""
        return math.prod(len(g.values) for g in self.grids)


def _span(low: int, high: int, step: int = 1) -> tuple[int, ...]:
    return tuple(range(low, high + 1, step))


def _options(page: str, control: str) -> tuple[Any, ...]:
    return tuple(PAGES[page].param[control].objects)


def _specs(
    page: str,
    figures: str,
    control: str,
    values: tuple[Any, ...] | None = None,
    *,
    widget: str = "slider",
    also: tuple[Grid, ...] = (),
    **kw: Any,
) -> list[ExportSpec]:
    """One spec per figure (space-separated names) moved by the same controls.

    ``values`` defaults to every option of the page's selector, in its order;
    ``also``: the controls after the main one.
    """
    main = Grid(control, _options(page, control) if values is None else values, widget)
    return [ExportSpec(page, figure, (main, *also), **kw) for figure in figures.split()]


#: R1's buttons, on the grid of m and n (the same values: an index is a position).
_SHIFT_BOTH = (
    "Shift both by +1",
    "if (a.value < a.end && b.value < b.end) { a.value += 1; b.value += 1; }",
)
_SWAP = ("Swap m and n", "const m = a.value; a.value = b.value; b.value = m;")

_MODE = Grid("mode", _options("relative", "mode"), "buttons")

#: Served lengths of Compare's choices from its default trained length on.
_PAST_4096 = tuple(v for v in PAGES["compare"].param["target_len"].objects if v >= 4096)

#: Sentences B of the Order figures (A stays "dog bites man").
_ORDER_B = ("man bites dog", "dog man bites", "bites dog man", "dog bites man", "a dog bites a man")

#: The exported figures. The main control tells the figure's story; a second
#: one is kept where the figure is about how it changes the picture and the
#: states fit the size limit.
SPECS: tuple[ExportSpec, ...] = (
    # Order: the two sentences go through one attention head.
    *_specs("order", "inputs similarity", "b", _ORDER_B, widget="select"),
    *_specs(
        "order",
        "permutation",
        "scheme",
        widget="buttons",
        also=(Grid("b", _ORDER_B, "select"),),
    ),
    # Sinusoidal: position t over n = 64 rows (S3 at two widths of the code: a
    # second d in S1 or S2 would resend their tables, 0.9 and 2.3 MB).
    *_specs("sinusoidal", "table clock learned", "t", _span(0, 63)),
    *_specs(
        "sinusoidal", "similarity", "t", _span(0, 62, 2), also=(Grid("d", (16, 64), "buttons"),)
    ),
    *_specs("sinusoidal", "grid", "grid_scheme", widget="buttons"),
    # RoPE. R1: the query's and the key's positions (only their offset moves the score).
    *_specs(
        "rope",
        "pair",
        "m",
        _span(0, 7),
        also=(Grid("n", _span(0, 7)),),
        extras=(3,),
        actions=(_SHIFT_BOTH, _SWAP),
    ),
    *_specs("rope", "distance decay", "base"),
    *_specs("rope", "angles wavelengths", "pair", _span(0, 31)),
    *_specs("rope", "layouts mismatch", "layout", widget="buttons"),
    *_specs("rope", "mistakes", "mistake", widget="buttons"),
    # Context extension (d = 128: 64 pairs).
    *_specs("extension", "schedule", "method", widget="buttons"),
    *_specs("extension", "band", "pair", _span(0, 63)),
    *_specs("extension", "methods", "method", widget="buttons"),
    # ALiBi (8 heads, 16 positions).
    *_specs("alibi", "slopes", "head", _span(1, 8)),
    *_specs("alibi", "matrix weights", "row", _span(0, 15)),
    *_specs("alibi", "decay", "head", _span(1, 8)),
    # Relative biases.
    *_specs("relative", "buckets", "num_buckets", (4, 8, 16, 32, 64, 128)),
    *_specs("relative", "bias", "head", _span(1, 12), also=(_MODE,)),
    *_specs("relative", "shaw", "clip_k", (0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)),
    *_specs("relative", "nope", "nope_len", (2, 4, 8, 16, 32, 64, 128, 256, 512)),
    *_specs("relative", "terms", "terms_form", widget="buttons"),
    # Compare: the served length L′ from the trained length L = 4,096 up (the page
    # keeps L′ ≥ L: a shorter one would be drawn at L under a widget saying otherwise).
    *_specs("compare", "learned sinusoidal rope alibi drope", "target_len", _PAST_4096),
)


def select_specs(only: Sequence[str] | None = None) -> list[ExportSpec]:
    """The specs named by ``only`` (``page:figure`` or ``page``), all when empty."""
    if not only:
        return list(SPECS)
    chosen: list[ExportSpec] = []
    for item in only:
        matches = [s for s in SPECS if item in (s.name, s.page)]
        if not matches:
            raise SystemExit(f"app.export: no figure {item!r} (see --list)")
        chosen.extend(m for m in matches if m not in chosen)
    return chosen
