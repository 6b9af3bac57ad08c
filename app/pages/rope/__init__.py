"""Page "RoPE": rotating queries and keys makes scores depend on distance only."""

from .page import BASES, RopePage
from .shared import FIXED_STARTS

__all__ = ["BASES", "FIXED_STARTS", "RopePage"]
