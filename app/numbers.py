"""Numbers (and lists) written for people: one place for every page's formatting.

A true minus sign (−, not the hyphen), thousands separators, and tiny or huge
values in scientific notation that a student can read (``1.1 × 10⁻¹²``, never
a bare ``1.1e-12``). A value that is 0 (or 1) up to floating-point rounding says
so first: ``≈ 0 (1.1 × 10⁻¹²)``, ``≈ 1 (0.99984)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = [
    "ROUNDING",
    "difference",
    "fixed",
    "integer",
    "join_items",
    "num",
    "readable",
    "sci",
    "signed",
    "similarity",
    "subscript",
    "tex",
]

_SUBSCRIPTS = str.maketrans("0123456789-", "₀₁₂₃₄₅₆₇₈₉₋")
_SUPERSCRIPTS = str.maketrans("0123456789−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

#: A value at most this far from 0 is 0 up to floating-point rounding: two ways of
#: computing the same float64 sums differ by about 10⁻¹⁶ per term, and nothing
#: the pages show is meaningful this small.
ROUNDING = 1e-9


def _minus(text: str) -> str:
    return text.replace("-", "−")


def num(value: float, digits: int = 4) -> str:
    """``digits`` significant digits, thousands separators, a true minus sign.

    >>> num(-1234.5678), num(0.000123456)
    ('−1,235', '0.0001235')
    """
    return _minus(f"{value:,.{digits}g}")


def fixed(value: float, digits: int = 3) -> str:
    """``digits`` decimals, a true minus sign, and never ``−0.000``.

    >>> fixed(-0.0001), fixed(-0.4794)
    ('0.000', '−0.479')
    """
    text = f"{value:.{digits}f}"
    if float(text) == 0:
        text = f"{0:.{digits}f}"
    return _minus(text)


def integer(number: int) -> str:
    """``-1234`` → ``−1,234``."""
    return _minus(f"{number:,}")


def signed(number: int) -> str:
    """An offset with its sign: ``+3``, ``−3``, ``0``."""
    return f"+{number:,}" if number > 0 else integer(number)


def subscript(number: int) -> str:
    """``12`` → ``₁₂`` (labels such as R₁₂q drawn inside a plot)."""
    return str(number).translate(_SUBSCRIPTS)


def tex(value: float, digits: int = 3) -> str:
    """:func:`fixed` for a KaTeX formula (the hyphen is TeX's minus)."""
    return fixed(value, digits).replace("−", "-")


def sci(value: float, digits: int = 2) -> str:
    """HTML for a number that may be tiny or huge: ``1.9 × 10<sup>−22</sup>``.

    >>> sci(1.9e-22), sci(0.5)
    ('1.9 × 10<sup>−22</sup>', '0.5')
    """
    if value == 0 or 1e-3 <= abs(value) < 1e5:
        return num(value, digits + 1)
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{num(float(mantissa), digits)} × 10<sup>{integer(int(exponent))}</sup>"


def difference(value: float) -> str:
    """HTML for a max |Δ| between two computed arrays: ``≈ 0`` first when it is zero
    up to rounding (at most :data:`ROUNDING`).

    >>> difference(0.0), difference(1.1e-12), difference(0.25)
    ('0 (not one bit differs)', '≈ 0 (1.1 × 10<sup>−12</sup>)', '0.25')
    """
    if value == 0:
        return "0 (not one bit differs)"
    return f"≈ 0 ({sci(value)})" if abs(value) <= ROUNDING else sci(value)


def similarity(value: float) -> str:
    """A cosine similarity (or any value near 1) to three decimals, with one exception:
    a value that three decimals would print as ``1.000`` but that is not 1 up to
    rounding reads ``≈ 1`` and the decimals that show its gap to 1, plus one.

    >>> similarity(0.35296), similarity(1 - 1e-15), similarity(0.999843)
    ('0.353', '1.000', '≈ 1 (0.99984)')
    """
    text = fixed(value, 3)
    if text != "1.000" or abs(1.0 - value) <= ROUNDING:
        return text
    digits = 4
    while digits < 12 and fixed(value, digits) == fixed(1.0, digits):
        digits += 1
    return f"≈ 1 ({fixed(value, digits + 1)})"


def readable(value: float, digits: int = 4) -> str:
    """A value of any size as plain text (no HTML: superscript digits): whole numbers
    in full, others to ``digits`` significant digits, a power of ten only past 10⁷ or
    below 10⁻³.

    >>> readable(500000.0), readable(1.1557e-4), readable(3.14159)
    ('500,000', '1.156 × 10⁻⁴', '3.142')
    """
    value = float(value)
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e15:
        return integer(int(value))
    if abs(value) >= 1e7 or abs(value) < 1e-3:
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return _minus(mantissa) + " × 10" + integer(int(exponent)).translate(_SUPERSCRIPTS)
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    text = f"{value:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return _minus(text)


def join_items(items: Iterable[str]) -> str:
    """``a, b and c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
