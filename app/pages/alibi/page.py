"""The ALiBi page: its controls, the rules between them, and its layout (A1–A4)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import panel as pn
import param

from positional_core.presets import model_config

from ...cards import notice_pane
from ...page import Page
from ...widgets import POSITION
from .decay import Decay
from .matrix import BiasMatrix
from .shared import FORM_LABELS, MASK_LABELS, HeadMatrices, Heads
from .slopes import Slopes
from .weights import Weights

__all__ = ["ALIBI_PRESETS", "AlibiPage"]

#: Real ALiBi models: label → shipped config name (``positional_core.presets``).
ALIBI_PRESETS: dict[str, str] = {"BLOOM-560m": "bloom-560m", "BLOOM": "bloom", "MPT-7B": "mpt-7b"}


def form_notes(mask: str) -> list[str]:
    """Why the bias-form buttons are disabled (shown under them)."""
    if mask == "causal":
        return []
    return [
        "Bias form is fixed to −m·|i − j|: +m·j equals −m·(i − j) plus a constant per "
        "row only when the causal mask hides the keys after i."
    ]


class AlibiPage(Page):
    """ALiBi (Press et al. 2021): linear biases on the scores, one slope per head."""

    slug: ClassVar[str] = "alibi"
    title: ClassVar[str] = "ALiBi"
    intro: ClassVar[str] = (
        "ALiBi adds no position vector at all. Each head subtracts a penalty "
        "proportional to the distance between query and key from the attention score: "
        "<em>bias = −m·(i − j)</em>. Heads get different slopes m, so some look far back "
        "and some only at the last few tokens. Because the penalty depends on distance "
        "only, a model trained on short inputs meets nothing new on long ones."
    )
    charts: ClassVar[dict[str, Any]] = {
        "slopes": Slopes,
        "matrix": BiasMatrix,
        "weights": Weights,
        "decay": Decay,
    }

    heads = param.Integer(
        default=8,
        bounds=(1, 128),
        label="Heads H",
        doc="Number of attention heads. Powers of two use 2^(−8h/H); other counts "
        "follow the reference code's rule (see the slope table).",
    )
    head = param.Integer(
        default=1,
        bounds=(1, 8),
        label="Head h",
        doc="The selected head (1 = steepest slope of the first sequence). At most H.",
    )
    seq_len = param.Integer(
        default=16,
        bounds=(4, 128),
        label="Sequence length T (A2, A3)",
        doc="Number of positions in the bias matrix and the weight bars.",
    )
    row = param.Integer(
        default=12,
        bounds=(0, 15),
        label="Query row i (A3)",
        doc="The query whose attention weights figure A3 shows. At most T − 1.",
    )
    mask = param.Selector(
        default="causal",
        objects={label: key for key, label in MASK_LABELS.items()},
        label="Attention: causal (decoders) or symmetric (encoders)",
        doc="Causal: each query sees itself and earlier keys (GPT-style decoders). "
        "Symmetric: every key, with bias −m·|i − j| (bidirectional encoders).",
    )
    form = param.Selector(
        default="distance",
        objects={label: key for key, label in FORM_LABELS.items()},
        label="Bias form",
        doc="−m·(i − j), the paper's form, or +m·j, what several fast kernels add. "
        "They differ by m·i, the same for a whole row; needs the causal mask.",
    )
    max_distance = param.Integer(
        default=2048,
        bounds=(16, 16384),
        label="Decay curves up to Δ (A4)",
        doc="Largest distance drawn in figure A4.",
    )
    trained_len = param.Integer(
        default=1024,
        bounds=(16, 16384),
        label="Trained length L (A4)",
        doc="The length the model was trained on (marked in A4; MPT-7B: 2,048).",
    )
    distance = param.Integer(
        default=100,
        bounds=(1, 16384),
        label="Distance Δ for the readout (A4)",
        doc="A key this many positions before the query, for the 'train short, "
        "test long' readout under A4.",
    )

    # Bounded numbers get Panel's sliders without being named here.
    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "mask": {"type": pn.widgets.RadioButtonGroup, "color": "primary", "variant": "outline"},
        "form": {"type": pn.widgets.RadioButtonGroup, "color": "primary", "variant": "outline"},
        "row": POSITION,
        "max_distance": {"throttled": True},
        "trained_len": {"throttled": True},
        "distance": {"throttled": True},
    }
    consistent_on: ClassVar[tuple[str, ...]] = ("heads", "seq_len", "mask", "form")

    def __init__(self, **params: Any) -> None:
        self._heads = Heads()
        super().__init__(**params)

    # ------------------------------------------------------------------ rules
    @classmethod
    def dynamic_bounds(cls, values: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        return {"head": (1, values["heads"]), "row": (0, values["seq_len"] - 1)}

    @classmethod
    def constrain(cls, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes: list[str] = []
        if fixed["mask"] == "symmetric" and fixed["form"] == "column":
            # The core refuses this pair: +m·j matches −m·|i − j| by no per-row
            # constant, so it is not ALiBi without the causal mask.
            notes.append(
                "The +m·j form needs the causal mask; with symmetric attention the "
                "bias form is −m·|i − j|."
            )
            fixed["form"] = "distance"
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    # --------------------------------------------------------------- the data
    @property
    def causal(self) -> bool:
        return self.mask == "causal"

    @property
    def effective_form(self) -> str:
        """The form drawn: ``form``, except that symmetric attention only has "distance"
        (valid even while the rule that resets ``form`` has not run yet)."""
        return self.form if self.causal else "distance"

    def head_matrices(self) -> Callable[[int], HeadMatrices]:
        """``head → its matrices`` at the state now. A chart's frame draws its choice
        rows later, and may be shared with other sessions at the same state
        (``app.frames.FRAMES``): its rows must not read this page then."""
        kept, form = self._heads, self.effective_form
        heads, seq_len, causal = self.heads, self.seq_len, self.causal
        return lambda head: kept.matrices(heads, seq_len, causal, head, form)

    def matrices(self, head: int, form: str | None = None) -> HeadMatrices:
        """Bias and weights of ``head`` for the current H, T and mask (cached)."""
        form = self.effective_form if form is None else form
        return self._heads.matrices(self.heads, self.seq_len, self.causal, head, form)

    # ---------------------------------------------------------------- layout
    def _radio(self, name: str, **extra: Any) -> list[Any]:
        """A labelled button group for a selector (button groups show no title)."""
        spec = {k: v for k, v in self.widget_specs[name].items() if k != "type"}
        return [
            pn.pane.HTML(
                f'<span style="font-size: 0.9em">{self.param[name].label}</span>',
                margin=(8, 10, 2, 10),
            ),
            pn.widgets.RadioButtonGroup.from_param(
                self.param[name], name="", sizing_mode="stretch_width", **spec, **extra
            ),
        ]

    def control_items(self) -> list[Any]:
        """The sliders, the two selectors with a title above them; the form buttons
        are disabled with symmetric attention."""
        symmetric = pn.bind(lambda mask: mask == "symmetric", self.param.mask)
        return [
            self.param_group(["heads", "head", "seq_len", "row"]),
            *self._radio("mask"),
            *self._radio("form", disabled=symmetric),
            notice_pane(pn.bind(form_notes, self.param.mask), kind="info"),
            self.param_group(["max_distance", "trained_len", "distance"]),
        ]

    def _extra_controls(self) -> list[Any]:
        """One button per real model: it sets H, and L where the config states it."""
        presets = {}
        for label, name in ALIBI_PRESETS.items():
            config = model_config(name)
            values = {"heads": int(config.get("n_head") or config.get("n_heads"))}
            if "max_seq_len" in config:
                values["trained_len"] = int(config["max_seq_len"])
            presets[f"{label}: {values['heads']} heads"] = values
        return self.preset_buttons("Real ALiBi models (sets H):", presets)
