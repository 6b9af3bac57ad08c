"""Page "ALiBi": a distance penalty on the attention scores instead of position vectors."""

from .page import ALIBI_PRESETS, AlibiPage

__all__ = ["ALIBI_PRESETS", "AlibiPage"]
