"""Rotary position embedding, RoPE (Su et al. 2021, "RoFormer").

RoPE splits a query or key vector of dimension ``d`` into ``d/2`` pairs and
turns pair ``i`` of the token at position ``m`` by the angle ``m · θ_i``, with
``θ_i = base^(−2i/d)``. A pair ``(a, b)`` becomes
``(a cos mθ − b sin mθ, a sin mθ + b cos mθ)``. Because rotations compose,
``⟨R_m q, R_n k⟩ = qᵀ R_(n−m) k``: the attention score depends on the offset
``n − m`` and the contents, never on the absolute positions.

Two *layouts* say which dimensions form a pair. The mathematics is the same;
mixing them silently breaks a model:

* ``"interleaved"`` — pairs ``(2i, 2i+1)``: the RoPE paper, GPT-J, Cohere.
* ``"half-split"`` — pairs ``(i, i + d/2)``: GPT-NeoX and Hugging Face Llama
  (``rotate_half``).

Every function accepts a precomputed ``inv_freq`` (the ``θ_i``, e.g. from a
RoPE scaling method) in place of ``base``. An ``inv_freq`` with fewer than
``d/2`` entries rotates only the first ``2 · len(inv_freq)`` dimensions and
passes the rest through (partial rotary embeddings, GPT-NeoX / Phi style);
``layout`` then applies inside that rotary part.

Limits: ``d`` even, at most ``MAX_DIM``; positions finite with
``|p| ≤ MAX_POSITION`` (2**24); arrays the module *creates* (matrices, score
curves, angle tables) have at most ``MAX_ELEMENTS`` (2**26) entries. The ``x``
passed to :func:`apply_rope` is the caller's memory and is not capped.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._phasors import unit_phasors
from ._validation import (
    check_base,
    check_choice,
    check_count,
    check_even_dim,
    check_finite_array,
    check_position,
    check_positions,
    check_real,
    check_size,
)

__all__ = [
    "LAYOUTS",
    "RopeScoreTerms",
    "apply_rope",
    "curve_spread",
    "pair_from_polar",
    "pair_indices",
    "pair_to_polar",
    "random_query_key",
    "rope_decay_bound",
    "rope_frequencies",
    "rope_score",
    "rope_score_terms",
    "rope_scores_by_offset",
    "rope_scores_by_start",
    "rotation_angles",
    "rotation_matrix",
    "wavelengths",
]

#: The two ways of grouping dimensions into rotating pairs.
LAYOUTS = ("interleaved", "half-split")

# Complex elements per working block of apply_rope's chunked path: small enough
# that the block's temporaries stay in the CPU cache (~128 KB as complex64).
_BLOCK_ELEMENTS = 16_384


def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """Rotation speeds ``θ_i = base^(−2i/d)`` of the ``d/2`` pairs (radians per position).

    Parameters
    ----------
    d : int
        Head dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    base : float, default 10000.0
        ``rope_theta``, ``> 1``.

    Returns
    -------
    numpy.ndarray, shape (d/2,)
        From ``1`` (fastest pair) down to ``base^(−(d−2)/d)`` (slowest).

    Examples
    --------
    >>> rope_frequencies(4)
    array([1.  , 0.01])
    >>> f"{rope_frequencies(128)[-1]:.3e}"  # the slowest pair of a 128-d head
    '1.155e-04'
    """
    d = check_even_dim("d", d)
    base = check_base("base", base)
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)


def pair_indices(d: int, layout: str = "interleaved") -> np.ndarray:
    """The two dimensions of each rotating pair under ``layout``.

    Parameters
    ----------
    d : int
        Head dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    layout : {"interleaved", "half-split"}
        ``"interleaved"`` pairs ``(2i, 2i+1)``; ``"half-split"`` pairs ``(i, i + d/2)``.

    Returns
    -------
    numpy.ndarray of int, shape (d/2, 2)
        Row ``i`` holds the (first, second) dimension of pair ``i``.

    Examples
    --------
    >>> pair_indices(4).tolist()
    [[0, 1], [2, 3]]
    >>> pair_indices(4, "half-split").tolist()
    [[0, 2], [1, 3]]
    """
    d = check_even_dim("d", d)
    layout = check_choice("layout", layout, LAYOUTS)
    half = d // 2
    i = np.arange(half)
    if layout == "interleaved":
        return np.stack([2 * i, 2 * i + 1], axis=1)
    return np.stack([i, i + half], axis=1)


def _resolve_inv_freq(d: int, base: float, inv_freq: object) -> np.ndarray:
    """Validated ``θ`` for a head of dimension ``d``: from ``base`` or a given ``inv_freq``."""
    if inv_freq is None:
        return rope_frequencies(d, base)
    theta = check_finite_array("inv_freq", inv_freq)
    if theta.ndim != 1 or not 1 <= theta.size <= d // 2:
        raise ValueError(
            f"inv_freq must be a 1-D array of 1 to d/2 = {d // 2} frequencies, "
            f"got shape {theta.shape}"
        )
    return theta


def _rotary_views(array: np.ndarray, n_pairs: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Views of the first and second member of every pair in ``array[..., :2 * n_pairs]``."""
    if layout == "interleaved":
        return array[..., 0 : 2 * n_pairs : 2], array[..., 1 : 2 * n_pairs : 2]
    return array[..., :n_pairs], array[..., n_pairs : 2 * n_pairs]


def apply_rope(
    x: object,
    positions: object = None,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    inv_freq: object = None,
) -> np.ndarray:
    """Rotate every pair of ``x`` by ``position · θ_i``.

    Parameters
    ----------
    x : array_like, shape (d,) or (..., seq, d)
        Query or key vectors; ``d`` even. Any leading dimensions (batch,
        heads) are kept. NaN and infinities are refused.
    positions : float or array_like of shape (seq,), optional
        Position of each of the ``seq`` rows; default ``0, 1, …, seq − 1``
        (``0`` for a 1-D ``x``). A scalar puts every row at that position.
        Fractional positions are allowed (position interpolation makes them).
        Finite, ``|p| ≤ MAX_POSITION``. A 1-D ``x`` takes a scalar only.
    base : float, default 10000.0
        ``rope_theta``, ``> 1``; ignored when ``inv_freq`` is given.
    layout : {"interleaved", "half-split"}, keyword-only
        Which dimensions form a pair (see the module docstring).
    inv_freq : array_like, shape (r,), optional, keyword-only
        Precomputed ``θ_i`` (``1 ≤ r ≤ d/2``), e.g. from a scaling method. With
        ``r < d/2`` only the first ``2r`` dimensions rotate.

    Returns
    -------
    numpy.ndarray, same shape as ``x``
        Same dtype as ``x`` when ``x`` is floating point, else float64.

    Notes
    -----
    Vectorised and matrix-free: the ``(seq, d/2)`` table ``cos pθ + i·sin pθ``
    is computed once (in float64, then cast to the working precision) and each
    pair is treated as one complex number, so a rotation is one complex
    multiplication. ``x`` is processed in cache-sized blocks, each checked for
    NaN / inf while in cache. On a (32, 8192, 128) float32 array this costs
    about 1.5× a plain copy for the interleaved layout and 2.5× for the
    half-split one (``benchmarks/core.py``).

    Examples
    --------
    >>> apply_rope([1.0, 0.0], 3, inv_freq=[1.0]).round(3)
    array([-0.99 ,  0.141])
    >>> apply_rope(np.ones((3, 4))).round(3)  # positions 0, 1, 2
    array([[ 1.   ,  1.   ,  1.   ,  1.   ],
           [-0.301,  1.382,  0.99 ,  1.01 ],
           [-1.325,  0.493,  0.98 ,  1.02 ]])
    >>> apply_rope(np.ones(4), 1, layout="half-split").round(3)
    array([-0.301,  0.99 ,  1.382,  1.01 ])
    """
    layout = check_choice("layout", layout, LAYOUTS)
    try:
        array = np.asarray(x)
    except (TypeError, ValueError) as error:  # ragged nested lists
        raise ValueError(f"x must be an array of numbers: {error}") from None
    if array.dtype.kind not in "biuf":
        raise ValueError(f"x must hold real numbers, got dtype {array.dtype}")
    if array.ndim == 0:
        raise ValueError("x must have shape (d,) or (..., seq, d), got a scalar")
    d = check_even_dim("the last dimension of x (d)", array.shape[-1], high=2**31)
    if inv_freq is None:
        base = check_base("base", base)
    theta = _resolve_inv_freq(d, base, inv_freq)
    if array.dtype.kind == "f" and array.dtype.itemsize >= 4:
        dtype = array.dtype
    elif array.dtype == np.float16:
        dtype = np.dtype(np.float32)  # no complex32 in NumPy: compute in float32
    else:
        dtype = np.dtype(np.float64)

    one_vector = array.ndim == 1
    seq = 1 if one_vector else array.shape[-2]
    if positions is None:
        pos = np.zeros(1) if one_vector else np.arange(seq, dtype=np.float64)
    else:
        pos = check_positions("positions", positions)
        if pos.ndim == 0:
            pos = np.full(seq, float(pos))
        elif one_vector or pos.shape != (seq,):
            expected = "a scalar" if one_vector else f"a scalar or shape ({seq},)"
            raise ValueError(
                f"positions must be {expected} to match x of shape {array.shape}, "
                f"got shape {pos.shape}"
            )

    if array.size == 0:
        return np.empty(array.shape, dtype=array.dtype if array.dtype.kind == "f" else dtype)
    rotor = unit_phasors(pos, theta, np.result_type(dtype, np.complex64))
    result = _rotate(np.ascontiguousarray(array, dtype=dtype), rotor, layout)
    return result.astype(array.dtype, copy=False) if array.dtype == np.float16 else result


def _rotate(x: np.ndarray, rotor: np.ndarray, layout: str) -> np.ndarray:
    """Rotate contiguous ``x`` (``(d,)`` or ``(..., seq, d)``) by ``rotor`` ``(seq, r)``.

    Works in blocks of (heads, rows) small enough to stay in the CPU cache, and
    checks each rotated block for NaN / inf while it is still in cache (the
    rotor is finite with modulus 1, so a non-finite output means a non-finite
    input, or one so close to the dtype's maximum that rotating it overflows).
    """
    d = x.shape[-1]
    seq, n_pairs = rotor.shape
    out = np.empty_like(x)
    flat_x = x.reshape(-1, seq, d)
    flat_out = out.reshape(-1, seq, d)
    # Pair (2i, 2i+1) of a contiguous row *is* the complex number x[2i] + i·x[2i+1].
    direct = layout == "interleaved" and 2 * n_pairs == d
    if direct:
        complex_in = flat_x.view(rotor.dtype)
        complex_out = flat_out.view(rotor.dtype)
    else:
        if 2 * n_pairs < d:  # partial rotary: the tail passes through
            flat_out[..., 2 * n_pairs :] = flat_x[..., 2 * n_pairs :]
            if not np.isfinite(flat_x[..., 2 * n_pairs :]).all():
                raise ValueError(_NOT_FINITE)
        first_in, second_in = _rotary_views(flat_x, n_pairs, layout)
        first_out, second_out = _rotary_views(flat_out, n_pairs, layout)

    rows = max(1, _BLOCK_ELEMENTS // n_pairs)
    n_batch = flat_x.shape[0]
    if seq >= rows:
        head_step, row_step = 1, rows
    else:
        head_step, row_step = max(1, rows // seq), seq
    buffer = np.empty((head_step, row_step, n_pairs), dtype=rotor.dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # reported as ValueError below
        for h0 in range(0, n_batch, head_step):
            h = slice(h0, min(h0 + head_step, n_batch))
            for r0 in range(0, seq, row_step):
                r = slice(r0, min(r0 + row_step, seq))
                if direct:
                    block = complex_out[h, r]
                    np.multiply(complex_in[h, r], rotor[r], out=block)
                else:
                    block = buffer[: h.stop - h.start, : r.stop - r.start]
                    block.real = first_in[h, r]
                    block.imag = second_in[h, r]
                    block *= rotor[r]
                    first_out[h, r] = block.real
                    second_out[h, r] = block.imag
                # Check the float view: np.isfinite on complex numbers is much slower.
                if not np.isfinite(block.view(x.dtype)).all():
                    raise ValueError(_NOT_FINITE)
    return out


_NOT_FINITE = (
    "x must contain only finite numbers (no NaN or inf, and no value so close to "
    "the dtype's maximum that rotating it overflows)"
)


def rotation_matrix(
    position: float,
    d: int,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    inv_freq: object = None,
) -> np.ndarray:
    """The ``(d, d)`` matrix ``R_position`` with ``apply_rope(x, position) == R @ x``.

    Parameters
    ----------
    position : float
        Finite, ``|position| ≤ MAX_POSITION``.
    d : int
        Head dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    base : float, default 10000.0
        ``rope_theta``, ``> 1``; ignored when ``inv_freq`` is given.
    layout : {"interleaved", "half-split"}, keyword-only
    inv_freq : array_like, shape (r,), optional, keyword-only
        Precomputed ``θ_i``, ``1 ≤ r ≤ d/2``; dimensions past ``2r`` stay put.

    Returns
    -------
    numpy.ndarray, shape (d, d)
        Orthogonal; block ``[[cos, −sin], [sin, cos]]`` on each pair.

    Examples
    --------
    >>> rotation_matrix(3, 2, inv_freq=[1.0]).round(3)
    array([[-0.99 , -0.141],
           [ 0.141, -0.99 ]])
    >>> bool(np.allclose(rotation_matrix(0, 8), np.eye(8)))
    True
    """
    position = check_position("position", position)
    d = check_even_dim("d", d)
    layout = check_choice("layout", layout, LAYOUTS)
    if inv_freq is None:
        base = check_base("base", base)
    theta = _resolve_inv_freq(d, base, inv_freq)
    check_size("the rotation matrix (d × d)", d * d)
    angles = position * theta
    c, s = np.cos(angles), np.sin(angles)
    pairs = pair_indices(2 * theta.size, layout)
    a, b = pairs[:, 0], pairs[:, 1]
    matrix = np.eye(d)
    matrix[a, a] = c
    matrix[a, b] = -s
    matrix[b, a] = s
    matrix[b, b] = c
    return matrix


def _check_vector(name: str, value: object) -> np.ndarray:
    vector = check_finite_array(name, value)
    if vector.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector of shape (d,), got shape {vector.shape}")
    check_even_dim(f"the length of {name}", vector.size)
    return vector


def rope_score(
    q: object,
    k: object,
    m: float,
    n: float,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    inv_freq: object = None,
) -> float:
    """The attention score ``⟨R_m q, R_n k⟩`` of a query at ``m`` and a key at ``n``.

    Equal to ``qᵀ R_(n−m) k``: a function of ``n − m`` only.

    Parameters
    ----------
    q, k : array_like, shape (d,)
        Query and key contents, ``d`` even, finite.
    m, n : float
        Query and key positions, finite, ``|p| ≤ MAX_POSITION``.
    base : float, default 10000.0
        ``rope_theta``, ``> 1``; ignored when ``inv_freq`` is given.
    layout : {"interleaved", "half-split"}, keyword-only
    inv_freq : array_like, shape (r,), optional, keyword-only

    Returns
    -------
    float

    Examples
    --------
    >>> round(rope_score([1, 0], [1, 0], 3, 7, inv_freq=[1.0]), 3)
    -0.654
    >>> round(rope_score([1, 0], [0, 1], 2, 1, inv_freq=[0.5]), 3)
    0.479
    """
    q = _check_vector("q", q)
    k = _check_vector("k", k)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape, got {q.shape} and {k.shape}")
    m = check_position("m", m)
    n = check_position("n", n)
    rq = apply_rope(q, m, base, layout=layout, inv_freq=inv_freq)
    rk = apply_rope(k, n, base, layout=layout, inv_freq=inv_freq)
    return float(rq @ rk)


class RopeScoreTerms(NamedTuple):
    """The two-dimensional RoPE score split into its parts (see :func:`rope_score_terms`)."""

    #: ``q · k`` — the content score without positions.
    dot: float
    #: ``q₁k₂ − q₂k₁`` — the 2-D cross product of the contents.
    cross: float
    #: ``cos((m − n)θ)``.
    cos: float
    #: ``sin((m − n)θ)``.
    sin: float
    #: ``dot · cos + cross · sin`` = ``⟨R_m q, R_n k⟩``.
    score: float


def rope_score_terms(q2: object, k2: object, m: float, n: float, theta: float) -> RopeScoreTerms:
    """Decompose the score of one rotating pair: ``(q·k)·cos((m−n)θ) + (q₁k₂ − q₂k₁)·sin((m−n)θ)``.

    Parameters
    ----------
    q2, k2 : array_like, shape (2,)
        Query and key contents of one pair, finite.
    m, n : float
        Query and key positions, finite, ``|p| ≤ MAX_POSITION``.
    theta : float
        The pair's rotation speed (radians per position), finite.

    Returns
    -------
    RopeScoreTerms
        ``(dot, cross, cos, sin, score)``; ``score`` equals
        ``rope_score(q2, k2, m, n, inv_freq=[theta])``.

    Examples
    --------
    >>> terms = rope_score_terms([1, 0], [0, 1], 2, 1, 0.5)
    >>> terms.cross, round(terms.score, 3)
    (1.0, 0.479)
    """
    q = check_finite_array("q2", q2)
    k = check_finite_array("k2", k2)
    for name, vector in (("q2", q), ("k2", k)):
        if vector.shape != (2,):
            raise ValueError(f"{name} must have shape (2,) (one pair), got shape {vector.shape}")
    m = check_position("m", m)
    n = check_position("n", n)
    theta = check_position("theta", theta)
    dot = float(q[0] * k[0] + q[1] * k[1])
    cross = float(q[0] * k[1] - q[1] * k[0])
    angle = (m - n) * theta
    c, s = math.cos(angle), math.sin(angle)
    return RopeScoreTerms(dot=dot, cross=cross, cos=c, sin=s, score=dot * c + cross * s)


def rope_scores_by_offset(
    q: object,
    k: object,
    offsets: object,
    start: float = 0,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    inv_freq: object = None,
    read_layout: str | None = None,
) -> np.ndarray:
    """Scores between a query at ``start`` and the same key at ``start + offset``.

    ``score[j] = ⟨R_start q, R_(start + offsets[j]) k⟩``. With one layout the
    curve is the same for every ``start`` (the relative property).

    The layout-mismatch demo: the *keys* are rotated with ``layout`` (as a
    KV cache written by one implementation) and the *query* with
    ``read_layout`` (the code reading that cache). When the two differ, the
    score is no longer a function of the offset alone and the curves for
    different ``start`` values come apart — with no error anywhere.

    Parameters
    ----------
    q, k : array_like, shape (d,)
        Query and key contents, ``d`` even, finite.
    offsets : array_like, shape (n,)
        Key position minus query position, ``Δ = n − m``; finite.
    start : float, default 0
        Query position ``m``.
    base : float, default 10000.0
        ``rope_theta``, ``> 1``; ignored when ``inv_freq`` is given.
    layout : {"interleaved", "half-split"}, keyword-only
        Layout used to rotate the keys.
    inv_freq : array_like, shape (r,), optional, keyword-only
    read_layout : {"interleaved", "half-split"} or None, keyword-only
        Layout used to rotate the query; ``None`` means ``layout``.

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> rope_scores_by_offset([1, 0, 1, 0], [1, 0, 1, 0], [0, 1, 3, 100]).round(3)
    array([2.   , 1.54 , 0.01 , 1.403])
    >>> rope_scores_by_offset([1, 0, 1, 0], [1, 0, 1, 0], [-3], start=105).round(3)
    array([0.01])
    """
    q = _check_vector("q", q)
    k = _check_vector("k", k)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape, got {q.shape} and {k.shape}")
    layout = check_choice("layout", layout, LAYOUTS)
    read_layout = (
        layout if read_layout is None else check_choice("read_layout", read_layout, LAYOUTS)
    )
    start = check_position("start", start)
    offsets = check_positions("offsets", offsets)
    if offsets.ndim != 1:
        raise ValueError(f"offsets must be 1-D, got shape {offsets.shape}")
    check_size("the keys (offsets × d)", offsets.size * q.size)
    key_positions = check_positions("start + offsets", start + offsets)
    rq = apply_rope(q, start, base, layout=read_layout, inv_freq=inv_freq)
    keys = np.broadcast_to(k, (offsets.size, k.size))
    rk = apply_rope(keys, key_positions, base, layout=layout, inv_freq=inv_freq)
    return rk @ rq


def rope_decay_bound(d: int, base: float, distances: object) -> np.ndarray:
    """RoFormer's long-range decay bound ``(1/(d/2)) Σ_j |S_j|`` against distance.

    Section 3.4.3 of Su et al. writes the score as ``Re Σ_j h_j e^{iΔθ_j}``
    and, by Abel summation, bounds it by ``max_j |h_(j+1) − h_j| · Σ_j |S_j|``
    with partial sums ``S_j = Σ_(k<j) e^{iΔθ_k}`` (``j = 1 … d/2``). This returns
    the content-free factor averaged over pairs, the curve of the paper's
    Figure 2; it equals ``(d/2 + 1)/2`` at ``Δ = 0`` and decays with ``|Δ|``.

    Parameters
    ----------
    d : int
        Head dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    base : float
        ``rope_theta``, ``> 1``.
    distances : array_like, shape (n,)
        Relative distances ``Δ``, finite, ``|Δ| ≤ MAX_POSITION``.

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> rope_decay_bound(128, 10000.0, [0, 10, 100]).round(2)
    array([32.5 , 17.95, 10.23])
    """
    theta = rope_frequencies(d, base)
    distances = check_positions("distances", distances)
    if distances.ndim > 1:
        raise ValueError(f"distances must be a scalar or 1-D, got shape {distances.shape}")
    check_size("the partial sums (distances × d/2)", distances.size * theta.size)
    angles = np.atleast_1d(distances)[:, None] * theta
    partial = np.cumsum(np.cos(angles) + 1j * np.sin(angles), axis=1)  # S_1 … S_(d/2)
    bound = np.abs(partial).mean(axis=1)
    return bound if distances.ndim else bound.reshape(())


def rotation_angles(positions: object, inv_freq: object) -> np.ndarray:
    """Rotation angle ``p · θ_i`` of every pair at every position (radians, not wrapped).

    Parameters
    ----------
    positions : array_like, shape (n,)
        Finite, ``|p| ≤ MAX_POSITION``.
    inv_freq : array_like, shape (d/2,)
        The ``θ_i``, finite.

    Returns
    -------
    numpy.ndarray, shape (n, d/2)
        Take ``% (2 * np.pi)`` to draw on a circle.

    Examples
    --------
    >>> rotation_angles([0, 1, 2], [1.0, 0.01])
    array([[0.  , 0.  ],
           [1.  , 0.01],
           [2.  , 0.02]])
    """
    positions = np.atleast_1d(check_positions("positions", positions))
    theta = check_finite_array("inv_freq", inv_freq)
    if positions.ndim != 1 or theta.ndim != 1 or theta.size == 0:
        raise ValueError(
            "positions and inv_freq must be 1-D (inv_freq non-empty), got shapes "
            f"{positions.shape} and {theta.shape}"
        )
    check_size("the angle table (positions × pairs)", positions.size * theta.size)
    return positions[:, None] * theta


def wavelengths(inv_freq: object) -> np.ndarray:
    """Positions per full turn of each pair, ``2π / θ_i``.

    Parameters
    ----------
    inv_freq : array_like, shape (d/2,)
        The ``θ_i``; finite and ``> 0``.

    Returns
    -------
    numpy.ndarray, shape (d/2,)

    Examples
    --------
    >>> wavelengths(rope_frequencies(4)).round(2)
    array([  6.28, 628.32])
    """
    theta = check_finite_array("inv_freq", inv_freq)
    if theta.size == 0 or np.any(theta <= 0):
        raise ValueError("inv_freq must be non-empty and every frequency must be > 0")
    return 2 * np.pi / theta


# ------------------------------------------------------------------ demo helpers
# Small functions for showing RoPE (the explorer's RoPE page uses them): one
# pair's contents as an arrow, seeded demo contents, and score curves for
# several query positions at once.


def pair_from_polar(angle_degrees: float, length: float) -> np.ndarray:
    """One pair's contents from its direction and length: ``(L cos a, L sin a)``.

    Parameters
    ----------
    angle_degrees : float
        Direction ``a`` in degrees, counter-clockwise from the first axis; finite.
    length : float
        ``L ≥ 0``, finite.

    Returns
    -------
    numpy.ndarray, shape (2,)

    Examples
    --------
    >>> pair_from_polar(90, 2).round(12)
    array([0., 2.])
    >>> pair_from_polar(0, 1)
    array([1., 0.])
    """
    angle = check_real("angle_degrees", angle_degrees)
    length = check_real("length", length, low=0.0)
    radians = math.radians(angle)
    return np.array([length * math.cos(radians), length * math.sin(radians)])


def pair_to_polar(pair: object) -> tuple[float, float]:
    """Direction (degrees, in ``(−180, 180]``) and length of one pair's contents.

    The inverse of :func:`pair_from_polar`; a zero vector has direction 0.

    Parameters
    ----------
    pair : array_like, shape (2,)
        Finite.

    Returns
    -------
    (float, float)
        ``(angle_degrees, length)``.

    Examples
    --------
    >>> pair_to_polar([0, 2])
    (90.0, 2.0)
    >>> pair_to_polar([-1, 0])
    (180.0, 1.0)
    """
    vector = check_finite_array("pair", pair)
    if vector.shape != (2,):
        raise ValueError(f"pair must have shape (2,), got shape {vector.shape}")
    x, y = float(vector[0]), float(vector[1])
    angle = math.degrees(math.atan2(y, x)) + 0.0  # + 0.0 turns −0.0 into 0.0
    return (180.0 if angle == -180.0 else angle), math.hypot(x, y)


def random_query_key(d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded random query and key contents for demonstrations.

    Both are drawn from the standard normal distribution by
    ``numpy.random.default_rng(seed)`` (``q`` first, then ``k``): the same
    ``(d, seed)`` always gives the same vectors, on every machine.

    Parameters
    ----------
    d : int
        Head dimension, even, ``2 ≤ d ≤ MAX_DIM``.
    seed : int
        ``0 ≤ seed ≤ 2**32 − 1``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray), each of shape (d,)

    Examples
    --------
    >>> q, k = random_query_key(4, seed=0)
    >>> q.shape, bool(np.all(q == random_query_key(4, 0)[0]))
    ((4,), True)
    """
    d = check_even_dim("d", d)
    seed = check_count("seed", seed, low=0, high=2**32 - 1)
    rng = np.random.default_rng(seed)
    return rng.standard_normal(d), rng.standard_normal(d)


def rope_scores_by_start(
    q: object,
    k: object,
    offsets: object,
    starts: object,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    inv_freq: object = None,
    read_layout: str | None = None,
) -> np.ndarray:
    """:func:`rope_scores_by_offset` for several query positions: one curve per start.

    ``curves[s, j] = ⟨R_starts[s] q, R_(starts[s] + offsets[j]) k⟩``. With one
    layout every row is the same curve (up to rounding); with ``read_layout``
    different from ``layout`` the rows come apart (see
    :func:`rope_scores_by_offset`).

    Parameters
    ----------
    q, k : array_like, shape (d,)
    offsets : array_like, shape (n,)
        Key position minus query position, ``Δ = n − m``.
    starts : array_like, shape (s,)
        Query positions, finite, ``|p| ≤ MAX_POSITION``; at most 64 of them.
    base, layout, inv_freq, read_layout
        As in :func:`rope_scores_by_offset`.

    Returns
    -------
    numpy.ndarray, shape (s, n)

    Examples
    --------
    >>> curves = rope_scores_by_start([1, 0, 1, 0], [1, 0, 1, 0], [0, 1, 3], [0, 100])
    >>> curves.round(3)
    array([[2.  , 1.54, 0.01],
           [2.  , 1.54, 0.01]])
    """
    starts = np.atleast_1d(check_positions("starts", starts))
    if starts.ndim != 1 or not 1 <= starts.size <= 64:
        raise ValueError(
            f"starts must be 1 to 64 positions in a 1-D array, got shape {starts.shape}"
        )
    offsets = check_positions("offsets", offsets)
    check_size("the keys (starts × offsets × d)", starts.size * offsets.size * np.size(q))
    return np.stack(
        [
            rope_scores_by_offset(
                q,
                k,
                offsets,
                float(start),
                base,
                layout=layout,
                inv_freq=inv_freq,
                read_layout=read_layout,
            )
            for start in starts
        ]
    )


def curve_spread(curves: object) -> float:
    """How far curves that should coincide disagree: ``max_j (max_s c[s, j] − min_s c[s, j])``.

    Parameters
    ----------
    curves : array_like, shape (s, n)
        One curve per row (e.g. from :func:`rope_scores_by_start`), finite, ``n ≥ 1``.

    Returns
    -------
    float
        0 when every row is the same curve.

    Examples
    --------
    >>> curve_spread([[1.0, 2.0], [1.0, 2.5], [0.5, 2.0]])
    0.5
    """
    array = check_finite_array("curves", curves)
    if array.ndim != 2 or array.shape[1] == 0:
        raise ValueError(f"curves must have shape (s, n) with n ≥ 1, got shape {array.shape}")
    return float(np.max(np.ptp(array, axis=0)))
