"""Sinusoidal position codes (Vaswani et al. 2017, "Attention is all you need").

Position ``t`` gets a ``d``-dimensional code made of ``d/2`` (sin, cos) pairs,
one per frequency ``ω_i = base^(−2i/d)``, laid out *interleaved*::

    PE(t)[2i]     = sin(t · ω_i)
    PE(t)[2i + 1] = cos(t · ω_i)

Each pair is a point on the unit circle turning at its own speed, fast pairs
first. Moving ``k`` positions turns every pair by ``k · ω_i``, which is a fixed
linear map ``M_k`` (block-diagonal rotations) that does not depend on ``t``:
``PE(t + k) = M_k · PE(t)``. The dot product ``PE(t) · PE(s)`` therefore depends
on ``s − t`` only.

Limits: ``d`` is even and at most :data:`~positional_core._validation.MAX_DIM`;
positions are finite with ``|t| ≤ MAX_POSITION`` (2**24); no created array
has more than ``MAX_ELEMENTS`` (2**26) entries.
"""

from __future__ import annotations

import numpy as np

from ._phasors import unit_phasors
from ._validation import (
    check_base,
    check_count,
    check_even_dim,
    check_position,
    check_positions,
    check_size,
)

__all__ = [
    "clock_angles",
    "code_similarity",
    "shift_matrix",
    "sinusoidal_code",
    "sinusoidal_encoding",
    "sinusoidal_frequencies",
]


def sinusoidal_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequencies ``ω_i = base^(−2i/d)`` of the ``d/2`` (sin, cos) pairs.

    Parameters
    ----------
    d : int
        Code dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    base : float, default 10000.0
        Wavelength base, ``> 1``.

    Returns
    -------
    numpy.ndarray, shape (d/2,)
        Radians per position, from ``1`` (fastest pair) down towards ``1/base``.

    Examples
    --------
    >>> sinusoidal_frequencies(4)
    array([1.  , 0.01])
    """
    d = check_even_dim("d", d)
    base = check_base("base", base)
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)


def sinusoidal_encoding(
    n_positions: int, d: int, base: float = 10000.0, *, step: int = 1, start: int = 0
) -> np.ndarray:
    """The code table for positions ``0 … n_positions − 1``, interleaved.

    With ``start`` and ``step``, only the rows of positions ``start,
    start + step, …`` below ``n_positions`` (what a figure can show: every
    ``step``-th row of a table taller than its pixels, or a zoomed-in part).

    Parameters
    ----------
    n_positions : int
        Number of positions (rows), ``1 ≤ n_positions ≤ MAX_POSITION``.
    d : int
        Code dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    base : float, default 10000.0
        Wavelength base, ``> 1``.
    step : int, default 1
        Distance between the positions of consecutive rows, ``1 ≤ step ≤ n_positions``.
    start : int, default 0
        Position of the first row, ``0 ≤ start < n_positions``.

    Returns
    -------
    numpy.ndarray, shape (ceil((n_positions − start) / step), d)
        Row ``r`` is the code of position ``pos = start + r · step``: column
        ``2i`` is ``sin(pos · ω_i)`` and column ``2i + 1`` is ``cos(pos · ω_i)``.

    Raises
    ------
    ValueError
        For a bad argument, or a table of more than ``MAX_ELEMENTS`` entries.

    Examples
    --------
    >>> sinusoidal_encoding(2, 4).round(3)
    array([[0.   , 1.   , 0.   , 1.   ],
           [0.841, 0.54 , 0.01 , 1.   ]])
    """
    n_positions = check_count("n_positions", n_positions)
    step = check_count("step", step, high=n_positions)
    start = check_count("start", start, low=0, high=n_positions - 1)
    omega = sinusoidal_frequencies(d, base)
    positions = np.arange(start, n_positions, step, dtype=np.float64)
    check_size("the sinusoidal table (n_positions × d)", positions.size * 2 * omega.size)
    phasors = unit_phasors(positions, omega)
    table = np.empty((positions.size, 2 * omega.size), dtype=np.float64)
    table[:, 0::2] = phasors.imag
    table[:, 1::2] = phasors.real
    return table


def sinusoidal_code(position: float, d: int, base: float = 10000.0) -> np.ndarray:
    """The code ``PE(position)`` of one (possibly fractional) position.

    Parameters
    ----------
    position : float
        Finite, ``|position| ≤ MAX_POSITION``. Fractional positions are allowed.
    d : int
        Code dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    base : float, default 10000.0
        Wavelength base, ``> 1``.

    Returns
    -------
    numpy.ndarray, shape (d,)
        Interleaved ``(sin(t ω_0), cos(t ω_0), sin(t ω_1), …)``.

    Examples
    --------
    >>> sinusoidal_code(3, 4).round(4)
    array([ 0.1411, -0.99  ,  0.03  ,  0.9996])
    >>> sinusoidal_code(0.5, 2).round(4)
    array([0.4794, 0.8776])
    """
    position = check_position("position", position)
    angles = position * sinusoidal_frequencies(d, base)
    code = np.empty(2 * angles.size, dtype=np.float64)
    code[0::2] = np.sin(angles)
    code[1::2] = np.cos(angles)
    return code


def shift_matrix(k: float, d: int, base: float = 10000.0) -> np.ndarray:
    """The linear map ``M_k`` with ``PE(t + k) = M_k · PE(t)`` for every ``t``.

    ``M_k`` is block-diagonal; the block of pair ``i`` is
    ``[[cos kω_i, sin kω_i], [−sin kω_i, cos kω_i]]`` (it turns the point
    ``(sin tω_i, cos tω_i)`` on its circle by ``kω_i``). It does not depend on
    ``t`` — the reason a model can learn to attend by relative offset.

    Parameters
    ----------
    k : float
        Shift, finite, ``|k| ≤ MAX_POSITION``; may be negative or fractional.
    d : int
        Code dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    base : float, default 10000.0
        Wavelength base, ``> 1``.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    Examples
    --------
    >>> (shift_matrix(1, 4) @ sinusoidal_code(1, 4)).round(3)
    array([ 0.909, -0.416,  0.02 ,  1.   ])
    """
    k = check_position("k", k)
    angles = k * sinusoidal_frequencies(d, base)
    d = 2 * angles.size
    check_size("the shift matrix (d × d)", d * d)
    c, s = np.cos(angles), np.sin(angles)
    matrix = np.zeros((d, d), dtype=np.float64)
    even = np.arange(0, d, 2)
    matrix[even, even] = c
    matrix[even, even + 1] = s
    matrix[even + 1, even] = -s
    matrix[even + 1, even + 1] = c
    return matrix


def code_similarity(t: float, n_positions: int, d: int, base: float = 10000.0) -> np.ndarray:
    """Dot products ``PE(t) · PE(s)`` for ``s = 0 … n_positions − 1``.

    Uses ``PE(t) · PE(s) = Σ_i cos(ω_i (s − t))`` so the ``(n, d)`` table is
    never built; the result depends on ``s − t`` only (the bump keeps its shape
    as ``t`` moves). Its maximum is ``d/2``, at ``s = t``.

    Parameters
    ----------
    t : float
        Reference position, finite, ``|t| ≤ MAX_POSITION``.
    n_positions : int
        Number of positions ``s``, ``1 ≤ n_positions ≤ MAX_POSITION``.
    d : int
        Code dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    base : float, default 10000.0
        Wavelength base, ``> 1``.

    Returns
    -------
    numpy.ndarray, shape (n_positions,)

    Examples
    --------
    >>> code_similarity(1, 4, 4).round(3)
    array([1.54 , 2.   , 1.54 , 0.584])
    """
    t = check_position("t", t)
    n_positions = check_count("n_positions", n_positions)
    omega = sinusoidal_frequencies(d, base)
    check_size("the similarity grid (n_positions × d/2)", n_positions * omega.size)
    offsets = np.arange(n_positions, dtype=np.float64) - t
    return unit_phasors(offsets, omega).real.sum(axis=1)


def clock_angles(position: float | np.ndarray, d: int, base: float = 10000.0) -> np.ndarray:
    """Hand angles ``position · ω_i`` of the clock face, one per pair (radians).

    Pair ``i`` of the code is the point ``(sin a_i, cos a_i)`` with
    ``a_i = position · ω_i``: a clock hand at angle ``a_i`` measured clockwise
    from 12 o'clock. Angles are not wrapped; take ``% (2 * np.pi)`` to draw.

    Parameters
    ----------
    position : float or array_like of float, shape (n,)
        Finite, ``|position| ≤ MAX_POSITION``; several positions give one
        row of angles each.
    d : int
        Code dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    base : float, default 10000.0
        Wavelength base, ``> 1``.

    Returns
    -------
    numpy.ndarray, shape (d/2,), or (n, d/2) for n positions
        Fast hands first.

    Examples
    --------
    >>> clock_angles(3, 4)
    array([3.  , 0.03])
    >>> clock_angles([0, 3], 4)
    array([[0.  , 0.  ],
           [3.  , 0.03]])
    """
    omega = sinusoidal_frequencies(d, base)
    if np.ndim(position) == 0:
        return check_position("position", position) * omega
    positions = check_positions("position", position)
    if positions.ndim != 1:
        raise ValueError(f"position must be a number or a 1-D array, got shape {positions.shape}")
    check_size("the clock angles (positions × d/2)", positions.size * omega.size)
    return positions[:, None] * omega[None, :]
