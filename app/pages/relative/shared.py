"""What the Relative figures share: the T5 settings, the presets, colours and the images."""

from __future__ import annotations

from typing import Any

import holoviews as hv
from bokeh.models import CustomJSHover

from positional_core.presets import model_config
from positional_core.relative import T5BucketRegions, t5_bucket_regions

from ...chart import Mark
from ...look import OKABE_ITO

__all__ = [
    "BIAS_SEED",
    "KEY_DIM",
    "MODE_LABELS",
    "QUERY_DIM",
    "REGION_COLORS",
    "T5_PRESETS",
    "regions",
    "square_image",
    "t5_preset_values",
    "t5_settings",
]

#: Seed of the illustrative per-bucket bias table (real T5 biases are learned).
BIAS_SEED = 0
#: The T5 presets: label → (shipped config name, mode). T5's encoder is
#: bidirectional; its decoder uses the same bucket settings, causally.
T5_PRESETS: dict[str, tuple[str, str]] = {
    "T5-base encoder": ("t5-base", "bidirectional"),
    "T5-base decoder": ("t5-base", "causal"),
}
MODE_LABELS = {"bidirectional": "bidirectional (encoder)", "causal": "causal (decoder)"}
#: Region colours (Okabe & Ito): the same in the step chart, its readout and captions.
REGION_COLORS = {
    "exact": OKABE_ITO["sky"],
    "logarithmic": OKABE_ITO["orange"],
    "shared": OKABE_ITO["grey"],
    "future": OKABE_ITO["purple"],
}

KEY_DIM = hv.Dimension("key", label="key position j")
QUERY_DIM = hv.Dimension("query", label="query position i")


def t5_preset_values(label: str) -> dict[str, Any]:
    """The control values of a T5 preset, read from the shipped config."""
    name, mode = T5_PRESETS[label]
    config = model_config(name)
    return {
        "num_buckets": int(config["relative_attention_num_buckets"]),
        "max_distance": int(config["relative_attention_max_distance"]),
        "heads": int(config["num_heads"]),
        "mode": mode,
    }


def t5_settings(p: Any) -> dict[str, Any]:
    """The T5 settings of ``p`` (the page, or a preset's values as attributes), as the
    core's keyword arguments."""
    return {
        "bidirectional": p.mode == "bidirectional",
        "num_buckets": p.num_buckets,
        "max_distance": p.max_distance,
    }


def regions(p: Any) -> T5BucketRegions:
    """Where the exact, logarithmic and shared regions of ``p``'s settings start."""
    return t5_bucket_regions(p.num_buckets, p.max_distance, p.mode == "bidirectional")


def _offset_hover() -> CustomJSHover:
    """Tooltip formatter: the images' x is the key j, y the query i; offset = j − i."""
    return CustomJSHover(
        code="return (Math.round(special_vars.x) - Math.round(special_vars.y)).toString()"
    )


def square_image(
    vdims: tuple, tooltips: list, hover: dict | None = None, choice: str | tuple = (), **style: Any
) -> Mark:
    """An n × n image, key j along x and query i down the page (T1b, T2); its hover
    names the cell, its offset j − i, then ``tooltips``."""
    cell = [("query i", "$y{0}"), ("key j", "$x{0}"), ("offset j − i", "$sx{offset}")]
    return Mark(
        hv.Image,
        (KEY_DIM, QUERY_DIM),
        vdims,
        hover={"$sx": _offset_hover, **(hover or {})},
        choice=choice,
        style={"colorbar": True, "tools": ["hover"], "hover_tooltips": [*cell, *tooltips], **style},
    )
