"""Page "Order": why a transformer needs position information at all (O1–O3)."""

from .page import OrderPage
from .shared import VARIANTS

__all__ = ["VARIANTS", "OrderPage"]
