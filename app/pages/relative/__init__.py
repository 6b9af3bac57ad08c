"""Page "Relative": position reaches the scores through key − query offsets (T1–T3)."""

from .nope import ORDER_PAIR
from .page import RelativePage
from .shared import BIAS_SEED, T5_PRESETS, t5_preset_values

__all__ = ["BIAS_SEED", "ORDER_PAIR", "T5_PRESETS", "RelativePage", "t5_preset_values"]
