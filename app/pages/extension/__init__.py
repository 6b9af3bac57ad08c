"""Page "Context extension": stretching a RoPE model past its trained length (E1–E5)."""

from .models import PRESET_LABELS
from .page import ExtensionPage
from .shared import MAX_TARGET, METHOD_CONTROLS, METHOD_LABELS

__all__ = ["MAX_TARGET", "METHOD_CONTROLS", "METHOD_LABELS", "PRESET_LABELS", "ExtensionPage"]
