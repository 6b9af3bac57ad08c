"""The Relative page: its controls, the rules between them, and its layout (T1–T4)."""

from __future__ import annotations

from typing import Any, ClassVar

import panel as pn
import param

from positional_core.relative import t5_bucket_regions

from ...page import Page
from .buckets import Buckets
from .matrix import BiasMatrix
from .nope import Nope
from .shared import MODE_LABELS, T5_PRESETS, t5_preset_values
from .shaw import Shaw
from .terms import Terms

__all__ = ["RelativePage"]


class RelativePage(Page):
    """T5 relative buckets, Shaw et al.'s clipping, NoPE, and why relative (four terms)."""

    slug: ClassVar[str] = "relative"
    title: ClassVar[str] = "Relative"
    intro: ClassVar[str] = (
        "These schemes leave the word vectors alone. Position reaches attention only "
        "through the <em>offset</em> j − i between a key j and a query i: T5 adds one "
        "learned number per <em>bucket</em> of offsets to the score, Shaw et al. learn one "
        "vector per offset up to a clip value k, and NoPE adds nothing at all — yet a "
        "causal decoder can still tell roughly where it is."
    )
    charts: ClassVar[dict[str, Any]] = {
        "buckets": Buckets,
        "bias": BiasMatrix,
        "shaw": Shaw,
        "nope": Nope,
        "terms": Terms,
    }

    num_buckets = param.Integer(
        default=32,
        bounds=(4, 128),
        step=2,
        label="Buckets num_buckets (T1)",
        doc="Number of T5 relative-position buckets (even: a bidirectional model gives "
        "half to each direction). T5 uses 32.",
    )
    max_distance = param.Integer(
        default=128,
        bounds=(2, 1024),
        label="max_distance (T1)",
        doc="Distance at which T5's logarithmic buckets end; farther keys all share the "
        "last bucket. Must lie past the exact region. T5 uses 128.",
    )
    mode = param.Selector(
        default="bidirectional",
        objects={label: key for key, label in MODE_LABELS.items()},
        label="Direction (T1)",
        doc="Bidirectional (an encoder): half the buckets for keys before the query, half "
        "for keys after. Causal (a decoder): all buckets for the past, every future "
        "offset is bucket 0.",
    )
    offset_range = param.Integer(
        default=200,
        bounds=(8, 1024),
        label="Offsets shown ±L (T1a)",
        doc="The step chart shows the offsets −L … L.",
    )
    heads = param.Integer(
        default=12,
        bounds=(1, 32),
        label="Heads (T1b)",
        doc="Number of heads; each has its own per-bucket bias vector. T5-base has 12.",
    )
    head = param.Integer(
        default=1,
        bounds=(1, 12),
        label="Head h (T1b)",
        doc="The head whose bias matrix T1b shows. At most the number of heads.",
    )
    bias_len = param.Integer(
        default=128,
        bounds=(4, 256),
        label="Sequence length n (T1b)",
        doc="Queries and keys in the bias matrix of T1b (n × n).",
    )
    clip_k = param.Integer(
        default=4,
        bounds=(0, 64),
        label="Clip value k (T2)",
        doc="Shaw et al. clip every offset to −k … k: farther keys share one vector.",
    )
    shaw_len = param.Integer(
        default=24,
        bounds=(2, 128),
        label="Sequence length (T2)",
        doc="Queries and keys in Shaw's index matrix of T2.",
    )
    terms_form = param.Selector(
        default="absolute",
        objects={"codes added to the input": "absolute", "Transformer-XL": "transformer_xl"},
        label="Score form (T4)",
        doc="Absolute sinusoidal codes added to the input, or Transformer-XL's relative form.",
    )
    terms_len = param.Integer(
        default=16,
        bounds=(4, 64),
        label="Positions (T4)",
        doc="Queries and keys in each of T4's four matrices.",
    )
    nope_len = param.Integer(
        default=16,
        bounds=(2, 512),
        label="Sequence length T (T3)",
        doc="Number of positions in T3 (NoPE's causal weights).",
    )

    # Bounded numbers get Panel's sliders without being named here.
    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "mode": {"type": pn.widgets.RadioButtonGroup, "color": "primary", "variant": "outline"},
        "terms_form": {  # long names: one button a line, so none is cut in a narrow column
            "type": pn.widgets.RadioButtonGroup,
            "color": "primary",
            "variant": "outline",
            "orientation": "vertical",
        },
        "terms_len": {"throttled": True},
        "offset_range": {"throttled": True},
        "bias_len": {"throttled": True},
        "shaw_len": {"throttled": True},
        "nope_len": {"throttled": True},
    }
    consistent_on: ClassVar[tuple[str, ...]] = ("num_buckets", "mode", "heads")
    even: ClassVar[dict[str, str]] = {
        "num_buckets": "num_buckets = {value} is odd; the page keeps it even (a bidirectional "
        "model gives half to each direction), so it was set to {even}."
    }

    # ------------------------------------------------------------------ rules
    @classmethod
    def dynamic_bounds(cls, values: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        # Even num_buckets is enforced by constrain() first; round here too so the
        # bounds can be asked for with any value a link may carry.
        buckets = max(4, values["num_buckets"] - values["num_buckets"] % 2)
        # Distances below exact_end get one bucket each (whatever max_distance is).
        low = t5_bucket_regions(buckets, buckets, values["mode"] == "bidirectional").exact_end + 1
        return {
            "head": (1, values["heads"]),
            "max_distance": (low, cls.param.max_distance.bounds[1]),
        }

    @classmethod
    def constrain(cls, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes = cls.make_even(fixed)  # the exact region below depends on num_buckets
        low, _ = cls.dynamic_bounds(fixed)["max_distance"]
        if fixed["max_distance"] < low:
            notes.append(
                f"max_distance {fixed['max_distance']:,} lies inside the exact region "
                f"(distances 0…{low - 2:,} for {fixed['num_buckets']} {fixed['mode']} "
                f"buckets); set to {low:,}."
            )
            fixed["max_distance"] = low
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    # ---------------------------------------------------------------- presets
    def _extra_controls(self) -> list[Any]:
        presets = {label: t5_preset_values(label) for label in T5_PRESETS}
        values = next(iter(presets.values()))
        note = (
            f"Real T5 settings (T1): T5-base has {values['num_buckets']} buckets, "
            f"max_distance {values['max_distance']} and {values['heads']} heads."
        )
        return self.preset_buttons(note, {f"{k} ({v['mode']})": v for k, v in presets.items()})
