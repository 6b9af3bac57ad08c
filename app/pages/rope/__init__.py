"""Page "RoPE": rotating queries and keys makes scores depend on distance only."""

from .curves import FIXED_STARTS
from .page import BASES, RopePage

__all__ = ["BASES", "FIXED_STARTS", "RopePage"]
