"""The Order page: two editable sentences, the rule that accepts them, and its layout (O1–O3).

Two sentences go through one fixed, seeded attention head
(:mod:`positional_core.attention`). With no position information the output
rows of "man bites dog" are exactly those of "dog bites man", reordered.

What a user types is parsed by the core's ``parse_sentence``; a sentence it
refuses gets the core's message under its box, and the figures keep the last
sentence it accepted.
"""

from __future__ import annotations

from typing import Any, ClassVar

import panel as pn
import param

from positional_core.attention import parse_sentence

from ...cards import notice_pane
from ...page import Page
from .inputs import Inputs
from .permutation import Permutation
from .shared import VARIANT_LABELS
from .similarity import Similarity

__all__ = ["OrderPage"]


class OrderPage(Page):
    """Word order through a single attention head, with and without positions."""

    slug: ClassVar[str] = "order"
    title: ClassVar[str] = "Order"
    intro: ClassVar[str] = (
        "Attention compares every word with every other word, wherever they stand. "
        "Give it the same words in another order and, without position information, "
        "it returns the same vectors in another order: after averaging, "
        "<em>dog bites man</em> and <em>man bites dog</em> are identical to it."
    )
    charts: ClassVar[dict[str, Any]] = {
        "inputs": Inputs,
        "similarity": Similarity,
        "permutation": Permutation,
    }

    a = param.String(
        default="dog bites man",
        label="Sentence A",
        doc="2 to 32 words. Press Enter (or leave the box) to apply.",
    )
    b = param.String(
        default="man bites dog",
        label="Sentence B",
        doc="2 to 32 words; try the words of A in another order. Press Enter to apply.",
    )
    scheme = param.Selector(
        default="none",
        objects={label: key for key, label in VARIANT_LABELS.items()},
        label="Positions in the permutation picture (O3)",
        doc="Which position information the layer gets in figure O3.",
    )

    # The last sentences the core accepted: the figures draw these, so a
    # refused edit leaves the page showing the previous valid state.
    sentence_a = param.String(default="dog bites man", precedence=-1, doc="Last valid A.")
    sentence_b = param.String(default="man bites dog", precedence=-1, doc="Last valid B.")
    error_a = param.List(default=[], item_type=str, precedence=-1, doc="Why A was refused.")
    error_b = param.List(default=[], item_type=str, precedence=-1, doc="Why B was refused.")

    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "scheme": {"type": pn.widgets.RadioButtonGroup, "orientation": "vertical"},
    }

    # ------------------------------------------------------------------ rules
    @classmethod
    def constrain(cls, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes: list[str] = []
        for key in ("a", "b"):
            try:
                parse_sentence(fixed[key])
            except ValueError as err:
                default = cls.param[key].default
                notes.append(f"{key}: {err} Kept “{default}”.")
                fixed[key] = default
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    @param.depends("a", "b", watch=True, on_init=True)
    def _accept_sentences(self) -> None:
        """Commit typed sentences the core accepts; explain the ones it refuses."""
        updates: dict[str, Any] = {}
        for key in ("a", "b"):
            text = getattr(self, key)
            try:
                parse_sentence(text)
            except ValueError as err:
                updates[f"error_{key}"] = [str(err)]
            else:
                updates[f"error_{key}"] = []
                updates[f"sentence_{key}"] = text
        self.param.update(updates)

    # ---------------------------------------------------------------- layout
    def control_items(self) -> list[Any]:
        """Text boxes with their messages right under them, then the scheme."""
        return [
            pn.widgets.TextInput.from_param(
                self.param.a, placeholder="e.g. dog bites man", sizing_mode="stretch_width"
            ),
            notice_pane(self.param.error_a, kind="error"),
            pn.widgets.TextInput.from_param(
                self.param.b, placeholder="e.g. man bites dog", sizing_mode="stretch_width"
            ),
            notice_pane(self.param.error_b, kind="error"),
            pn.pane.Markdown(self.param.scheme.label, margin=(10, 10, 0, 10)),
            pn.widgets.RadioButtonGroup.from_param(
                self.param.scheme,
                orientation="vertical",
                color="primary",
                variant="outline",
                sizing_mode="stretch_width",
            ),
        ]
