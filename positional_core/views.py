"""Small derived numbers the app shows that no scheme module computes itself.

Kept apart from the scheme modules (the app's needs, not the library's); each
function only combines public functions of those modules.
"""

from __future__ import annotations

import numpy as np

from .sinusoidal import shift_matrix, sinusoidal_code

__all__ = ["shift_check"]


def shift_check(t: float, k: float, d: int, base: float = 10000.0) -> float:
    """How far ``M_k · PE(t)`` is from ``PE(t + k)``: ``max_j |PE(t+k)_j − (M_k PE(t))_j|``.

    The identity ``PE(t + k) = M_k · PE(t)`` is exact, so the result is at the
    level of floating-point rounding (about 1e−15), whatever ``t``, ``k``,
    ``d`` and ``base``.

    Parameters
    ----------
    t : float
        Position, finite, ``|t| ≤ MAX_POSITION``.
    k : float
        Shift, finite; ``|t + k| ≤ MAX_POSITION``.
    d : int
        Code dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    base : float, default 10000.0
        Wavelength base, ``> 1``.

    Returns
    -------
    float
        The largest absolute difference over the ``d`` components.

    Examples
    --------
    >>> shift_check(1, 1, 4) < 1e-12
    True
    """
    shifted = shift_matrix(k, d, base) @ sinusoidal_code(t, d, base)
    return float(np.max(np.abs(sinusoidal_code(t + k, d, base) - shifted)))
