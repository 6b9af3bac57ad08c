"""What the Relative figures share: the T5 settings, the presets and colours."""

from __future__ import annotations

from typing import Any

from positional_core.presets import model_config
from positional_core.relative import T5BucketRegions, t5_bucket_regions

from ...look import OKABE_ITO

__all__ = [
    "BIAS_SEED",
    "MODE_LABELS",
    "REGION_COLORS",
    "T5_PRESETS",
    "regions",
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
