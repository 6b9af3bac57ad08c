"""What the ALiBi figures share: each head's matrices, and how a slope is written."""

from __future__ import annotations

from collections import OrderedDict
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from positional_core.alibi import alibi_head_bias, alibi_slope_sources, alibi_slopes
from positional_core.attention import softmax

from ...look import OKABE_ITO
from ...marks import js_hover

__all__ = ["FORM_LABELS", "MASK_LABELS", "ROW_STRIDE", "HeadMatrices", "Heads", "slope_text"]

FORM_LABELS = {"distance": "−m·(i − j)", "column": "+m·j"}
MASK_LABELS = {"causal": "causal", "symmetric": "symmetric |i − j|"}
SOURCE_COLORS = {"own": OKABE_ITO["blue"], "extra": OKABE_ITO["orange"]}
#: Key of a (head, row) choice: head · 128 + row (rows are < 128).
ROW_STRIDE = 128
#: Cells of matrices kept per page (two float64 arrays a head: at most 8 MB).
_CACHE_CELLS = 2**19


#: Hover text of a bias: a masked cell (NaN here, −∞ in the core) says so.
bias_hover = js_hover("return Number.isNaN(value) ? 'masked (−∞)' : value.toFixed(4)")


def drawn_bias(bias: np.ndarray) -> np.ndarray:
    """A bias as the figures draw it: NaN where masked (Bokeh has no −∞)."""
    return np.where(np.isinf(bias), np.nan, bias)


def _exponent(source: tuple[int, int]) -> Fraction:
    """``8h/P`` for a slope ``2^(−8h/P)`` (exact, for display)."""
    power, place = source
    return Fraction(8 * place, power)


def power_text(source: tuple[int, int], html: bool = True) -> str:
    """``2^(−8h/P)`` with its simplified exponent, e.g. ``2^−3`` or ``2^−1/2``."""
    exp = _exponent(source)
    text = f"−{exp}" if exp.denominator == 1 else f"−{exp.numerator}/{exp.denominator}"
    return f"2<sup>{text}</sup>" if html else f"2^{text}"


def slope_text(slope: float, source: tuple[int, int]) -> str:
    """A slope as ``1/2^k`` when it is one, else four significant digits."""
    exp = _exponent(source)
    return f"1/{2**exp.numerator:,}" if exp.denominator == 1 else f"{slope:.4g}"


def head_label(heads: int, head: int) -> str:
    slope = float(alibi_slopes(heads)[head - 1])
    source = alibi_slope_sources(heads)[head - 1]
    return f"head {head} of {heads}, m = {slope_text(slope, source)}"


class HeadMatrices(NamedTuple):
    """One head's bias matrix (−∞ where masked) and the softmax weights of every row
    when all content scores are 0, both ``(T, T)``."""

    bias: np.ndarray
    weights: np.ndarray


class Heads:
    """The matrices of a page's heads, computed once per (H, T, mask, head, form).

    Bounded by cells, not entries, so a session never keeps more than a few MB
    whatever H and T; no (H, T, T) array is ever built.
    """

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple, HeadMatrices] = OrderedDict()

    def matrices(
        self, heads: int, seq_len: int, causal: bool, head: int, form: str
    ) -> HeadMatrices:
        key = (heads, seq_len, causal, head, form)
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        slope = float(alibi_slopes(heads)[head - 1])
        bias = alibi_head_bias(slope, seq_len, causal=causal, form=form)
        data = self._kept[key] = HeadMatrices(bias, softmax(bias, axis=-1))
        for array in data:
            array.setflags(write=False)
        while sum(k[1] ** 2 for k in self._kept) > _CACHE_CELLS and len(self._kept) > 2:
            self._kept.popitem(last=False)
        return data
