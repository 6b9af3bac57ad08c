"""ALiBi: attention with linear biases (Press et al. 2021, "Train short, test long").

ALiBi adds no position vector at all. Each head ``h`` subtracts a penalty
proportional to the distance from the score of query ``i`` and key ``j``:
``score + bias`` with ``bias = −m_h · (i − j)``. Heads get geometrically
spaced slopes ``m_h`` so some look far back and some only at the last few
tokens. The bias for a key ``Δ`` positions back multiplies its weight by
``e^(−m_h·Δ)``, which halves every ``ln 2 / m_h`` positions.

Two bias forms give the same attention weights under a causal mask:
``−m·(i − j)`` ("distance") and ``+m·j`` ("column", what several fast kernels
add). They differ by ``m·i``, a constant along row ``i``, and softmax ignores
a constant added to a whole row.

Limits: ``n_heads ≤ MAX_HEADS``; full bias tensors at most ``MAX_ELEMENTS``
(2**26) entries; a single row (:func:`alibi_bias_row`) allows
``seq_len ≤ MAX_POSITION`` (2**24).
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import (
    MAX_HEADS,
    MAX_POSITION,
    check_choice,
    check_count,
    check_finite_array,
    check_real,
    check_size,
)

__all__ = [
    "ALIBI_FORMS",
    "alibi_bias",
    "alibi_bias_row",
    "alibi_distance_shift",
    "alibi_half_lives",
    "alibi_head_bias",
    "alibi_slope_sources",
    "alibi_slopes",
    "alibi_weight_factors",
]

#: The two bias forms: ``"distance"`` −m·(i − j), ``"column"`` +m·j.
ALIBI_FORMS = ("distance", "column")

#: Largest slope accepted by the one-head helpers.
MAX_SLOPE = 1e6


def _power_of_two_slopes(n: int) -> list[float]:
    # Verbatim arithmetic of the reference code (ofirpress/attention_with_linear_biases,
    # fairseq/models/transformer.py, get_slopes_power_of_2): start = 2^(−8/n), then
    # start·ratio^i with ratio = start, i.e. m_h = 2^(−8h/n). Computing it the same
    # way keeps our floats bit-identical to the reference.
    start = 2 ** (-(2 ** -(math.log2(n) - 3)))
    ratio = start
    return [start * ratio**i for i in range(n)]


def _reference_slopes(n: int) -> list[float]:
    if math.log2(n).is_integer():
        return _power_of_two_slopes(n)
    # Why: the slopes 2^(−8h/n) are only a neat geometric sequence from 1/2 down
    # to 1/256 when n is a power of two. For other head counts the reference code
    # keeps the full sequence of the closest smaller power of two P, then fills
    # the remaining n − P heads with every other slope of 2P (the ones that fall
    # *between* P's slopes), so the extra heads interleave new distances rather
    # than repeating or stretching the existing ones. The result is not sorted.
    closest = 2 ** math.floor(math.log2(n))
    return _power_of_two_slopes(closest) + _reference_slopes(2 * closest)[0::2][: n - closest]


def alibi_slopes(n_heads: int) -> np.ndarray:
    """Per-head slopes ``m_h`` exactly as the ALiBi reference code's ``get_slopes``.

    For a power-of-two head count ``H``: ``m_h = 2^(−8h/H)``, ``h = 1 … H``.
    Otherwise the slopes of the closest smaller power of two ``P``, followed
    by every other slope of ``2P`` (see :func:`alibi_slope_sources`).

    Parameters
    ----------
    n_heads : int
        Number of heads, ``1 ≤ n_heads ≤ MAX_HEADS``.

    Returns
    -------
    numpy.ndarray, shape (n_heads,)

    Examples
    --------
    >>> alibi_slopes(8) * 256
    array([128.,  64.,  32.,  16.,   8.,   4.,   2.,   1.])
    >>> alibi_slopes(12).round(4)  # not monotonic: 8 slopes, then 4 from 16
    array([0.5   , 0.25  , 0.125 , 0.0625, 0.0312, 0.0156, 0.0078, 0.0039,
           0.7071, 0.3536, 0.1768, 0.0884])
    """
    n_heads = check_count("n_heads", n_heads, high=MAX_HEADS)
    return np.array(_reference_slopes(n_heads), dtype=np.float64)


def alibi_slope_sources(n_heads: int) -> list[tuple[int, int]]:
    """Where each slope comes from: ``(P, h)`` with ``m = 2^(−8h/P)``, ``h`` from 1.

    Parameters
    ----------
    n_heads : int
        Number of heads, ``1 ≤ n_heads ≤ MAX_HEADS``.

    Returns
    -------
    list of (int, int), length n_heads
        ``P`` is the power of two whose sequence the slope belongs to and
        ``h`` its 1-based place in that sequence.

    Examples
    --------
    >>> alibi_slope_sources(3)
    [(2, 1), (2, 2), (4, 1)]
    """
    n_heads = check_count("n_heads", n_heads, high=MAX_HEADS)
    closest = 2 ** math.floor(math.log2(n_heads))
    sources = [(closest, h) for h in range(1, closest + 1)]
    # every other slope of 2P: places 1, 3, 5, … of the 2P sequence
    sources += [(2 * closest, 2 * j + 1) for j in range(n_heads - closest)]
    return sources


def _check_slope(slope: object) -> float:
    return check_real("slope", slope, low=0.0, high=MAX_SLOPE)


def _check_form(form: object, causal: object) -> str:
    form = check_choice("form", form, ALIBI_FORMS)
    if not isinstance(causal, bool | np.bool_):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    if form == "column" and not causal:
        # +m·j equals −m·(i−j) only up to the constant m·i per row, which softmax
        # ignores. Without a causal mask the symmetric bias −m·|i−j| is not
        # linear in j, so no per-row constant links it to +m·j: refuse.
        raise ValueError(
            "form='column' (+m·j) needs causal=True: it matches the distance form only "
            "under a causal mask; use form='distance' for the symmetric −m·|i−j|"
        )
    return form


def _bias(slope: np.ndarray, i: np.ndarray, j: np.ndarray, causal: bool, form: str) -> np.ndarray:
    """Bias for broadcastable slope, query ``i`` and key ``j`` grids."""
    # Written as m·(j − i) and m·min(j − i, i − j) so the diagonal is +0.0, not −0.0.
    if form == "column":
        bias = slope * j
    elif causal:
        bias = slope * (j - i)
    else:
        bias = slope * np.minimum(j - i, i - j)
    if causal:
        bias = np.where(j > i, -np.inf, bias)
    return bias


def alibi_bias(
    n_heads: int, seq_len: int, *, causal: bool = True, form: str = "distance"
) -> np.ndarray:
    """The bias added to every head's ``(seq_len, seq_len)`` score matrix.

    Parameters
    ----------
    n_heads : int
        Number of heads, ``1 ≤ n_heads ≤ MAX_HEADS``; slopes from :func:`alibi_slopes`.
    seq_len : int
        Sequence length ``T ≥ 1`` with ``n_heads · T² ≤ MAX_ELEMENTS``; use
        :func:`alibi_bias_row` for long sequences.
    causal : bool, default True, keyword-only
        Mask future keys (``j > i``) with ``-inf``. With ``False`` the distance
        form is symmetric, ``−m·|i − j|``.
    form : {"distance", "column"}, keyword-only
        ``"distance"``: ``−m·(i − j)``; ``"column"``: ``+m·j`` (causal only —
        it equals the distance form up to a per-row constant only under a
        causal mask, so ``causal=False`` with it raises ``ValueError``).

    Returns
    -------
    numpy.ndarray, shape (n_heads, seq_len, seq_len)
        Row ``i`` is the query, column ``j`` the key.

    Examples
    --------
    >>> alibi_bias(8, 3)[0]  # head 1 of 8, slope 1/2
    array([[ 0. , -inf, -inf],
           [-0.5,  0. , -inf],
           [-1. , -0.5,  0. ]])
    >>> alibi_bias(8, 3, causal=False)[0, 1]
    array([-0.5,  0. , -0.5])
    """
    slopes = alibi_slopes(n_heads)
    seq_len = check_count("seq_len", seq_len)
    form = _check_form(form, causal)
    check_size("the ALiBi bias (n_heads × seq_len × seq_len)", slopes.size * seq_len * seq_len)
    positions = np.arange(seq_len, dtype=np.float64)
    return _bias(slopes[:, None, None], positions[:, None], positions[None, :], causal, form)


def alibi_head_bias(
    slope: float, seq_len: int, *, causal: bool = True, form: str = "distance"
) -> np.ndarray:
    """The ``(seq_len, seq_len)`` bias of one head with slope ``slope``.

    Parameters
    ----------
    slope : float
        ``m``, finite, ``0 ≤ m ≤ 1e6``.
    seq_len : int
        ``T ≥ 1`` with ``T² ≤ MAX_ELEMENTS``.
    causal : bool, default True, keyword-only
    form : {"distance", "column"}, keyword-only
        See :func:`alibi_bias`.

    Returns
    -------
    numpy.ndarray, shape (seq_len, seq_len)

    Examples
    --------
    >>> alibi_head_bias(0.5, 3, form="column")
    array([[ 0. , -inf, -inf],
           [ 0. ,  0.5, -inf],
           [ 0. ,  0.5,  1. ]])
    """
    slope = _check_slope(slope)
    seq_len = check_count("seq_len", seq_len)
    form = _check_form(form, causal)
    check_size("the ALiBi bias (seq_len × seq_len)", seq_len * seq_len)
    positions = np.arange(seq_len, dtype=np.float64)
    return _bias(np.float64(slope), positions[:, None], positions[None, :], causal, form)


def alibi_bias_row(
    slope: float, query: int, seq_len: int, *, causal: bool = True, form: str = "distance"
) -> np.ndarray:
    """The bias row of one query: ``(seq_len,)``, without building the matrix.

    Parameters
    ----------
    slope : float
        ``m``, finite, ``0 ≤ m ≤ 1e6``.
    query : int
        Query position ``i``, ``0 ≤ i < seq_len``.
    seq_len : int
        ``1 ≤ T ≤ MAX_POSITION`` (2**24).
    causal : bool, default True, keyword-only
    form : {"distance", "column"}, keyword-only
        See :func:`alibi_bias`.

    Returns
    -------
    numpy.ndarray, shape (seq_len,)
        Entry ``j`` is the bias for key ``j``.

    Examples
    --------
    >>> alibi_bias_row(0.5, 1, 4)
    array([-0.5,  0. , -inf, -inf])
    >>> float(alibi_bias_row(1 / 2, 100, 101)[0])  # head 1 of 8, a key 100 back
    -50.0
    """
    slope = _check_slope(slope)
    seq_len = check_count("seq_len", seq_len, high=MAX_POSITION)
    query = check_count("query", query, low=0, high=seq_len - 1)
    form = _check_form(form, causal)
    # One array, updated in place: the peak memory is the row itself (128 MB at 2**24).
    row = np.arange(seq_len, dtype=np.float64)
    if form == "distance":
        row -= query  # j − i
        if not causal:
            np.abs(row, out=row)
            np.negative(row, out=row)  # −|i − j|
    row *= slope
    row += 0.0  # turn −0.0 into +0.0
    if causal:
        row[query + 1 :] = -np.inf
    return row


def alibi_distance_shift(slopes: object, trained_len: int, target_len: int) -> np.ndarray:
    """How much each head's bias at a trained distance changes when the input grows.

    The last query of a ``trained_len``-token input and the last query of a
    ``target_len``-token input see keys at the distances ``Δ = 0 … L − 1``
    both; this is the largest ``|b(Δ)|`` difference between their bias rows
    (:func:`alibi_bias_row`) over those distances. It is 0 for every head: the
    bias depends on the distance alone, so a longer input brings only longer
    distances, never a new bias for a distance seen in training.

    Parameters
    ----------
    slopes : array_like, shape (H,)
        Slopes ``m_h``, finite, ``0 ≤ m ≤ 1e6``.
    trained_len, target_len : int
        ``L`` and ``L′``, ``1 ≤ L ≤ L′ ≤ MAX_POSITION``.

    Returns
    -------
    numpy.ndarray, shape (H,)

    Examples
    --------
    >>> alibi_distance_shift(alibi_slopes(8)[[0, 7]], 4096, 16384)
    array([0., 0.])
    """
    array = check_finite_array("slopes", slopes)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"slopes must be a non-empty 1-D array, got shape {array.shape}")
    trained = check_count("trained_len", trained_len, high=MAX_POSITION)
    target = check_count("target_len", target_len, low=trained, high=MAX_POSITION)
    shifts = np.empty(array.size)
    for h, slope in enumerate(array):
        # Reversed, entry Δ of a row is the bias of the key Δ positions back.
        short = alibi_bias_row(float(slope), trained - 1, trained)[::-1]
        long = alibi_bias_row(float(slope), target - 1, target)[::-1][:trained]
        shifts[h] = np.max(np.abs(long - short))
    return shifts


def alibi_half_lives(slopes: object) -> np.ndarray:
    """Distance over which a head's weight factor ``e^(−m·Δ)`` halves: ``ln 2 / m``.

    Parameters
    ----------
    slopes : array_like
        Slopes ``m > 0``, finite.

    Returns
    -------
    numpy.ndarray, same shape as ``slopes``
        In positions.

    Examples
    --------
    >>> alibi_half_lives([1 / 2, 1 / 256]).round(1)
    array([  1.4, 177.4])
    """
    array = check_finite_array("slopes", slopes)
    if array.size == 0 or np.any(array <= 0):
        raise ValueError("slopes must be non-empty and every slope must be > 0")
    return np.log(2.0) / array


def alibi_weight_factors(slopes: object, distances: object) -> np.ndarray:
    """Factor ``e^(−m_h·Δ)`` by which each head's bias scales a key ``Δ`` positions back.

    With equal content scores, a key ``Δ`` positions behind the query gets
    ``e^(−m·Δ)`` times the weight of the query's own position (before the
    row is normalised): the decay curve of a head.

    Parameters
    ----------
    slopes : array_like, shape (H,)
        Slopes ``m_h ≥ 0``, finite, at most ``1e6``.
    distances : array_like, shape (n,)
        Distances ``Δ ≥ 0`` (positions back), finite, at most ``MAX_POSITION``.

    Returns
    -------
    numpy.ndarray, shape (H, n)
        Row ``h`` is head ``h``'s curve; ``H · n ≤ MAX_ELEMENTS``.

    Examples
    --------
    >>> alibi_weight_factors([1 / 2, 1 / 256], [0, 100]).round(2)
    array([[1.  , 0.  ],
           [1.  , 0.68]])
    """
    m = check_finite_array("slopes", slopes)
    delta = check_finite_array("distances", distances)
    if m.ndim != 1 or m.size == 0:
        raise ValueError(f"slopes must be a non-empty 1-D array, got shape {m.shape}")
    if delta.ndim != 1 or delta.size == 0:
        raise ValueError(f"distances must be a non-empty 1-D array, got shape {delta.shape}")
    if np.any(m < 0) or np.any(m > MAX_SLOPE):
        raise ValueError(f"slopes must be from 0 to {MAX_SLOPE:g}")
    if np.any(delta < 0) or np.any(delta > MAX_POSITION):
        raise ValueError(f"distances must be from 0 to {MAX_POSITION}")
    check_size("the decay curves (slopes × distances)", m.size * delta.size)
    return np.exp(-np.outer(m, delta))
