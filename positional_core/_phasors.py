"""``exp(i · p · ω)`` tables shared by the sinusoidal and RoPE modules."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["unit_phasors"]

# Below this many positions the direct cos / sin is cheap enough.
_SPLIT_FROM = 256


def unit_phasors(
    positions: np.ndarray, freqs: np.ndarray, dtype: np.dtype | type = np.complex128
) -> np.ndarray:
    """``cos(p·ω) + i·sin(p·ω)`` for every position ``p`` and frequency ``ω``: ``(n, r)``.

    ``positions`` is a finite 1-D float array (already validated), ``freqs`` a
    1-D float array. For many whole-number positions (the usual ``0 … n − 1``)
    the ``n · r`` sines and cosines dominate the cost, so they are built from
    two small tables instead, ``exp(i(p₀ + aB)ω) · exp(i·bω)`` with
    ``p = p₀ + aB + b`` and ``B ≈ √span``: about ``2√n · r`` trig calls and one
    complex product, accurate to a few ulp — at least as accurate as
    ``cos(p·ω)`` of the rounded float64 angle ``p·ω``.

    Examples
    --------
    >>> unit_phasors(np.array([0.0, 1.0]), np.array([np.pi / 2])).round(12)
    array([[1.+0.j],
           [0.+1.j]])
    """
    whole = positions.size >= _SPLIT_FROM and bool(np.all(positions == np.round(positions)))
    if not whole:
        angles = positions[:, None] * freqs
        return (np.cos(angles) + 1j * np.sin(angles)).astype(dtype, copy=False)
    steps = positions.astype(np.int64)
    first = int(steps.min())
    steps -= first
    block = math.isqrt(int(steps.max())) + 1
    high, low = np.divmod(steps, block)
    high_angles = (first + block * np.arange(int(high.max()) + 1, dtype=np.float64))[:, None]
    low_angles = np.arange(block, dtype=np.float64)[:, None] * freqs
    high_angles = high_angles * freqs
    high_table = (np.cos(high_angles) + 1j * np.sin(high_angles)).astype(dtype, copy=False)
    low_table = (np.cos(low_angles) + 1j * np.sin(low_angles)).astype(dtype, copy=False)
    table = high_table[high]
    table *= low_table[low]
    return table
