"""Page "Sinusoidal & learned": absolute position codes added to the input (S1–S4)."""

from .page import LEARNED_PRESETS, SinusoidalPage

__all__ = ["LEARNED_PRESETS", "SinusoidalPage"]
