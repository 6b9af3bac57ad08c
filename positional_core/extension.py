"""Band helpers for stretching a RoPE model past its trained length.

Convention: training saw positions ``0 … L − 1``, so pair ``i`` (speed
``θ_i``) met the angles ``[0, θ_i · L)`` — its *band*. A fast pair turns many
times within ``L`` and has seen every angle; a slow pair with ``θ_i · L < 2π``
never completed a turn, and running to a longer ``L′`` shows it angles it never
saw (up to ``θ_i · L′``). Scaling methods shrink the speeds to ``θ′_i`` so the
new band ``[0, θ′_i · L′)`` stays inside the old one. DroPE goes further and
removes the rotations (every ``θ′_i = 0``, :func:`drope_frequencies`): no pair
moves at all, so none can leave its band.

For a 128-d head with base 10,000 and ``L = 4096``, 18 of the 64 pairs never
complete a turn; the slowest turns only 0.47 rad (7.5 % of a turn).

Limits: lengths and positions at most ``MAX_POSITION`` (2**24); frequency
vectors at most ``MAX_DIM / 2`` entries.
"""

from __future__ import annotations

import numpy as np

from ._validation import (
    MAX_DIM,
    MAX_POSITION,
    check_base,
    check_count,
    check_even_dim,
    check_finite_array,
    check_positions,
    check_real,
)

__all__ = [
    "BAND_RTOL",
    "band_excess",
    "drope_frequencies",
    "interpolate_positions",
    "never_complete_turn",
    "ntk_scaled_base",
    "out_of_band",
    "trained_max_angle",
    "trained_turns",
]

#: Relative tolerance when comparing a new band edge with the trained one, so a
#: method that lands exactly on the trained edge (position interpolation, the
#: slowest pair under NTK) is not flagged because of a rounding error.
BAND_RTOL = 1e-9

#: Largest scale factor accepted by :func:`ntk_scaled_base`.
MAX_SCALE = 1e6


def _check_inv_freq(name: str, value: object, *, zero: bool = False) -> np.ndarray:
    theta = check_finite_array(name, value)
    if theta.ndim != 1 or not 1 <= theta.size <= MAX_DIM // 2:
        raise ValueError(
            f"{name} must be a 1-D array of 1 to {MAX_DIM // 2} frequencies, "
            f"got shape {theta.shape}"
        )
    if np.any(theta < 0) if zero else np.any(theta <= 0):
        bound = ">= 0" if zero else "> 0"
        raise ValueError(f"{name} must hold frequencies {bound} (radians per position)")
    return theta


def _scaled(inv_freq: np.ndarray, scaled_inv_freq: object) -> np.ndarray:
    # A scaled speed may be 0 (DroPE: the pair no longer turns); a trained one may not.
    if scaled_inv_freq is None:
        return inv_freq
    scaled = _check_inv_freq("scaled_inv_freq", scaled_inv_freq, zero=True)
    if scaled.shape != inv_freq.shape:
        raise ValueError(
            f"scaled_inv_freq must have the shape of inv_freq {inv_freq.shape}, got {scaled.shape}"
        )
    return scaled


def drope_frequencies(inv_freq: object) -> np.ndarray:
    """The speeds of a RoPE head after DroPE: every ``θ′_i = 0``.

    DroPE (Gelberg, Eguchi, Akiba and Cetin, "Extending the Context of
    Pretrained LLMs by Dropping Their Positional Embeddings", arXiv 2512.12167,
    2025) pretrains with RoPE, then removes it and recalibrates briefly at the
    trained length. A rotation by angle 0 is the identity, so the head is a
    RoPE head whose pairs no longer turn: pass the result as
    ``scaled_inv_freq`` to :func:`out_of_band` or :func:`band_excess`. Position
    information then comes only from the causal mask
    (:func:`~positional_core.relative.causal_weight`).

    Parameters
    ----------
    inv_freq : array_like, shape (d/2,)
        Trained speeds ``θ_i`` (> 0).

    Returns
    -------
    numpy.ndarray of float64, shape (d/2,)
        Zeros.

    Examples
    --------
    >>> from positional_core.rope import rope_frequencies
    >>> theta = rope_frequencies(128)
    >>> int(out_of_band(theta, 4096, 16384, drope_frequencies(theta)).sum())
    0
    >>> float(band_excess(theta, 4096, 16384, drope_frequencies(theta)).max())
    0.0
    """
    return np.zeros_like(_check_inv_freq("inv_freq", inv_freq), dtype=np.float64)


def trained_max_angle(inv_freq: object, trained_len: int) -> np.ndarray:
    """Upper edge ``θ_i · L`` of each pair's band of trained angles (radians).

    Parameters
    ----------
    inv_freq : array_like, shape (d/2,)
        Rotation speeds ``θ_i`` (> 0).
    trained_len : int
        Trained length ``L`` (positions ``0 … L − 1``), ``1 ≤ L ≤ MAX_POSITION``.

    Returns
    -------
    numpy.ndarray, shape (d/2,)

    Examples
    --------
    >>> from positional_core.rope import rope_frequencies
    >>> round(float(trained_max_angle(rope_frequencies(128), 4096)[-1]), 2)
    0.47
    """
    theta = _check_inv_freq("inv_freq", inv_freq)
    trained_len = check_count("trained_len", trained_len)
    return theta * trained_len


def trained_turns(inv_freq: object, trained_len: int) -> np.ndarray:
    """How many turns each pair makes within the trained length: ``θ_i · L / 2π``.

    Below 1, the pair has seen only that fraction of the circle in training.

    Parameters
    ----------
    inv_freq : array_like, shape (d/2,)
        Rotation speeds ``θ_i`` (> 0).
    trained_len : int
        Trained length ``L``, ``1 ≤ L ≤ MAX_POSITION``.

    Returns
    -------
    numpy.ndarray, shape (d/2,)

    Examples
    --------
    >>> from positional_core.rope import rope_frequencies
    >>> round(float(trained_turns(rope_frequencies(128), 4096)[-1]), 3)  # 7.5 % of a turn
    0.075
    """
    return trained_max_angle(inv_freq, trained_len) / (2 * np.pi)


def never_complete_turn(inv_freq: object, trained_len: int) -> np.ndarray:
    """Mask of the pairs that never complete a turn in training: ``θ_i · L < 2π``.

    Parameters
    ----------
    inv_freq : array_like, shape (d/2,)
        Rotation speeds ``θ_i`` (> 0).
    trained_len : int
        Trained length ``L``, ``1 ≤ L ≤ MAX_POSITION``.

    Returns
    -------
    numpy.ndarray of bool, shape (d/2,)

    Examples
    --------
    >>> from positional_core.rope import rope_frequencies
    >>> int(never_complete_turn(rope_frequencies(128), 4096).sum())
    18
    """
    return trained_max_angle(inv_freq, trained_len) < 2 * np.pi


def band_excess(
    inv_freq: object, trained_len: int, target_len: int, scaled_inv_freq: object = None
) -> np.ndarray:
    """How far each pair's angles at the target length exceed its trained band: ``θ′L′ / (θL)``.

    1 means the pair ends exactly at its trained edge; 4 means it reaches four
    times the largest angle it saw.

    Parameters
    ----------
    inv_freq : array_like, shape (d/2,)
        Trained speeds ``θ_i`` (> 0).
    trained_len : int
        Trained length ``L``, ``1 ≤ L ≤ MAX_POSITION``.
    target_len : int
        Served length ``L′``, ``1 ≤ L′ ≤ MAX_POSITION``.
    scaled_inv_freq : array_like, shape (d/2,), optional
        Speeds ``θ′_i`` after a scaling method; default: unchanged (``θ``).

    Returns
    -------
    numpy.ndarray, shape (d/2,)

    Examples
    --------
    >>> from positional_core.rope import rope_frequencies
    >>> theta = rope_frequencies(128)
    >>> float(band_excess(theta, 4096, 16384)[-1])
    4.0
    >>> float(band_excess(theta, 4096, 16384, theta / 4)[-1])
    1.0
    """
    theta = _check_inv_freq("inv_freq", inv_freq)
    scaled = _scaled(theta, scaled_inv_freq)
    trained_len = check_count("trained_len", trained_len)
    target_len = check_count("target_len", target_len)
    return (scaled * target_len) / (theta * trained_len)


def out_of_band(
    inv_freq: object, trained_len: int, target_len: int, scaled_inv_freq: object = None
) -> np.ndarray:
    """Mask of the pairs that meet angles never seen in training at the target length.

    A pair is out of band when it never completed a turn in training
    (``θ·L < 2π``, so angles beyond ``θ·L`` are unseen) *and* its angles at the
    target length go past that edge: ``θ′·L′ > θ·L·(1 + BAND_RTOL)``. Pairs that
    completed a turn have seen every angle and are never flagged.

    Parameters
    ----------
    inv_freq : array_like, shape (d/2,)
        Trained speeds ``θ_i`` (> 0).
    trained_len : int
        Trained length ``L``, ``1 ≤ L ≤ MAX_POSITION``.
    target_len : int
        Served length ``L′``, ``1 ≤ L′ ≤ MAX_POSITION``.
    scaled_inv_freq : array_like, shape (d/2,), optional
        Speeds ``θ′_i`` after a scaling method; default: unchanged (``θ``).

    Returns
    -------
    numpy.ndarray of bool, shape (d/2,)

    Notes
    -----
    NTK-aware scaling (``base·s^(d/(d−2))``) slows the slowest pair by exactly
    ``s`` but the others by less, so at ``L′ = s·L`` the intermediate slow
    pairs still overshoot their band a little — the partial extrapolation
    the YaRN paper points out. Only position interpolation (all ``θ/s``)
    keeps every pair in band.

    Examples
    --------
    >>> from positional_core.rope import rope_frequencies
    >>> theta = rope_frequencies(128)
    >>> int(out_of_band(theta, 4096, 16384).sum())
    18
    >>> int(out_of_band(theta, 4096, 16384, theta / 4).sum())  # position interpolation
    0
    """
    theta = _check_inv_freq("inv_freq", inv_freq)
    scaled = _scaled(theta, scaled_inv_freq)
    trained_len = check_count("trained_len", trained_len)
    target_len = check_count("target_len", target_len)
    trained_edge = theta * trained_len
    return (trained_edge < 2 * np.pi) & (scaled * target_len > trained_edge * (1 + BAND_RTOL))


def interpolate_positions(positions: object, trained_len: int, new_len: int) -> np.ndarray | float:
    """Position interpolation (Chen et al. 2023): squeeze ``0 … L′`` into ``0 … L``, ``p · L / L′``.

    Parameters
    ----------
    positions : float or array_like
        Finite, ``|p| ≤ MAX_POSITION``.
    trained_len : int
        Trained length ``L``, ``1 ≤ L ≤ MAX_POSITION``.
    new_len : int
        Extended length ``L′``, ``L ≤ L′ ≤ MAX_POSITION``.

    Returns
    -------
    float or numpy.ndarray
        A float for a scalar input, else an array of the input's shape.

    Examples
    --------
    >>> interpolate_positions(32000, 4096, 32768)
    4000.0
    """
    array = check_positions("positions", positions)
    trained_len = check_count("trained_len", trained_len)
    new_len = check_count("new_len", new_len, low=trained_len, high=MAX_POSITION)
    scaled = array * (trained_len / new_len)
    return float(scaled) if scaled.ndim == 0 else scaled


def ntk_scaled_base(base: float, scale: float, d: int) -> float:
    """The NTK-aware base ``base · scale^(d/(d−2))``.

    Chosen so the slowest pair (``i = d/2 − 1``) turns exactly ``scale`` times
    slower while the fastest pair (``θ_0 = 1``) is unchanged.

    Parameters
    ----------
    base : float
        Original ``rope_theta``, ``> 1``.
    scale : float
        Length factor ``s = L′ / L``, ``1 ≤ s ≤ 1e6``.
    d : int
        Rotary head dimension, even, ``4 ≤ d ≤ MAX_DIM``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(ntk_scaled_base(10000, 8, 128))
    82685
    """
    base = check_base("base", base)
    scale = check_real("scale", scale, low=1.0, high=MAX_SCALE)
    d = check_even_dim("d", d)
    if d < 4:
        raise ValueError(f"d must be at least 4 for the NTK-aware base (d/(d−2)), got {d}")
    return base * scale ** (d / (d - 2))
