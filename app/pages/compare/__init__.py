"""Page "Compare": what each scheme does past its trained length, side by side."""

from .columns import ORDER_PAIR, SCHEME_COLUMNS, T5_SETTINGS, SchemeColumn
from .page import ComparePage
from .summary import summary_table, verdict_html
from .verdicts import Verdict, order_check, t5_verdict, verdict

__all__ = [
    "ORDER_PAIR",
    "SCHEME_COLUMNS",
    "T5_SETTINGS",
    "ComparePage",
    "SchemeColumn",
    "Verdict",
    "order_check",
    "summary_table",
    "t5_verdict",
    "verdict",
    "verdict_html",
]
