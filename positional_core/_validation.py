"""Argument checks shared by every module of :mod:`positional_core`.

Each check raises :class:`ValueError` with a message that names the argument
and the values it accepts, so a caller (or the app, which shows the message in
the page) never has to decode a bare ``KeyError`` or a silent NaN.

The size limits below keep every array the core *creates* bounded, whatever a
URL or a text box asks for. Arrays a caller passes in (``apply_rope``'s ``x``)
are the caller's memory and are not capped.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

__all__ = [
    "MAX_DIM",
    "MAX_ELEMENTS",
    "MAX_HEADS",
    "MAX_POSITION",
    "check_base",
    "check_choice",
    "check_count",
    "check_even_dim",
    "check_finite_array",
    "check_position",
    "check_positions",
    "check_real",
    "check_size",
]

#: Largest head / model dimension the core builds tables for.
MAX_DIM = 16_384
#: Largest position (or sequence length) the core accepts: 2**24 tokens.
MAX_POSITION = 2**24
#: Largest head count (BLOOM has 112; the app's slider stops at 128).
MAX_HEADS = 1_024
#: Largest number of elements in an array the core allocates (about 512 MB of
#: float64). Everything the app draws is far below this.
MAX_ELEMENTS = 2**26


def _is_int(value: object) -> bool:
    return isinstance(value, Integral | np.integer) and not isinstance(value, bool)


def check_count(name: str, value: object, *, low: int = 1, high: int = MAX_POSITION) -> int:
    """Return ``value`` as an ``int`` if it is a whole number in ``[low, high]``."""
    if not _is_int(value):
        if isinstance(value, float | np.floating) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    value = int(value)
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low} to {high}, got {value}")
    return value


def check_even_dim(name: str, value: object, *, high: int = MAX_DIM) -> int:
    """Return ``value`` as an ``int`` if it is an even dimension in ``[2, high]``."""
    value = check_count(name, value, low=2, high=high)
    if value % 2:
        raise ValueError(f"{name} must be even (pairs of dimensions rotate together), got {value}")
    return value


def check_real(
    name: str,
    value: object,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
) -> float:
    """Return ``value`` as a finite float in ``[low, high]`` (``(low, high]`` if ``low_open``)."""
    if not isinstance(value, Real | np.floating | np.integer) or isinstance(value, bool):
        raise ValueError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    too_low = value <= low if low_open else value < low
    if too_low or value > high:
        left = "(" if low_open else "["
        raise ValueError(f"{name} must be in {left}{low:g}, {high:g}], got {value:g}")
    return value


def check_base(name: str, value: object) -> float:
    """Return a RoPE / sinusoidal base as a ``float``; it must be finite and > 1."""
    return check_real(name, value, low=1.0, high=1e12, low_open=True)


def check_finite_array(name: str, value: object) -> np.ndarray:
    """Return ``value`` as a float array, refusing NaN and infinities."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be an array of numbers: {error}") from None
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    return array


def check_size(name: str, n_elements: int) -> None:
    """Refuse to allocate an array of more than :data:`MAX_ELEMENTS` elements."""
    if n_elements > MAX_ELEMENTS:
        raise ValueError(
            f"{name} would have {n_elements:,} elements; the limit is {MAX_ELEMENTS:,} "
            "(ask for fewer positions, heads or dimensions)"
        )


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of the strings in ``choices``."""
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(choice) for choice in choices)
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def check_position(name: str, value: object, *, low: float = -MAX_POSITION) -> float:
    """Return one position as a finite ``float`` in ``[low, MAX_POSITION]``.

    Positions may be fractional (position interpolation produces them).
    """
    return check_real(name, value, low=low, high=MAX_POSITION)


def check_positions(name: str, value: object, *, low: float = -MAX_POSITION) -> np.ndarray:
    """Return positions as a finite float array with values in ``[low, MAX_POSITION]``."""
    array = check_finite_array(name, value)
    if array.size and (array.min() < low or array.max() > MAX_POSITION):
        raise ValueError(
            f"{name} must lie in [{low:g}, {MAX_POSITION:g}], "
            f"got values from {array.min():g} to {array.max():g}"
        )
    return array
