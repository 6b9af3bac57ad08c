"""Relative position signals: T5 buckets, Shaw et al.'s clipping, and NoPE.

These schemes add nothing to the token embeddings. Position reaches attention
through the *offset* between a key and a query, ``j − i`` (key minus query,
the convention of T5 and of Hugging Face transformers), or — for NoPE —
through the causal mask alone.

- **T5 buckets** (Raffel et al. 2020). Each offset is mapped to one of
  ``num_buckets`` buckets and every head learns one scalar bias per bucket,
  added to the attention score. Small distances get one bucket each (the
  *exact* region), larger ones share logarithmically wider buckets up to
  ``max_distance``, and every distance beyond that shares the last bucket. A
  bidirectional (encoder) model splits the buckets between keys before and
  after the query; a causal (decoder) model spends them all on the past and
  sends every future offset to bucket 0. :func:`t5_relative_bucket` agrees
  exactly with ``T5Attention._relative_position_bucket`` in transformers.
- **Shaw et al. (2018)** learn one vector per clipped offset
  ``clip(j − i, −k, k)``; every distance beyond ``k`` shares one vector.
- **NoPE** (Kazemnejad et al. 2023): a causal decoder with no position
  encoding at all. With equal scores, query ``i`` spreads its attention
  evenly over its ``i + 1`` visible keys, weight ``1/(i + 1)`` each, a
  number that depends on the position — an implicit position signal.

Limits: offsets and lengths up to ``MAX_POSITION`` (2**24), ``num_buckets ≤
MAX_BUCKETS``, every array the module builds at most ``MAX_ELEMENTS``
elements.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ._validation import (
    MAX_HEADS,
    MAX_POSITION,
    check_count,
    check_finite_array,
    check_positions,
    check_size,
)

__all__ = [
    "MAX_BUCKETS",
    "T5BucketRegions",
    "causal_weight",
    "nope_causal_weights",
    "nope_row_weight",
    "shaw_clipped_distance",
    "shaw_relative_index",
    "t5_bias_matrix",
    "t5_bucket_regions",
    "t5_new_buckets",
    "t5_random_bucket_biases",
    "t5_relative_bucket",
]

#: Largest bucket count accepted (T5 uses 32; the app's slider stops far below).
MAX_BUCKETS = 4_096


# --------------------------------------------------------------------------- T5


def _check_t5_settings(
    num_buckets: object, max_distance: object, bidirectional: object
) -> tuple[int, int, int, int]:
    """Check T5 settings; return ``(num_buckets, max_distance, per_direction, max_exact)``."""
    if not isinstance(bidirectional, bool | np.bool_):
        raise ValueError(f"bidirectional must be True or False, got {bidirectional!r}")
    bidirectional = bool(bidirectional)
    if bidirectional:
        # Half the buckets for each direction, and half of those exact: at least
        # one exact and one logarithmic bucket per direction needs 4 buckets.
        # An odd count would leave the top bucket unreachable.
        num_buckets = check_count("num_buckets", num_buckets, low=4, high=MAX_BUCKETS)
        if num_buckets % 2:
            raise ValueError(
                "num_buckets must be even when bidirectional (half the buckets for keys "
                f"before the query, half for keys after), got {num_buckets}"
            )
        per_direction = num_buckets // 2
    else:
        num_buckets = check_count("num_buckets", num_buckets, low=2, high=MAX_BUCKETS)
        per_direction = num_buckets
    max_exact = per_direction // 2
    # The log region spans max_exact … max_distance; the reference divides by
    # log(max_distance / max_exact), so max_distance must lie past the exact region.
    max_distance = check_count("max_distance", max_distance, low=max_exact + 1, high=MAX_POSITION)
    return num_buckets, max_distance, per_direction, max_exact


def _one_direction_bucket(
    distance: npt.NDArray[np.int64], per_direction: int, max_exact: int, max_distance: int
) -> npt.NDArray[np.int64]:
    """Bucket of a distance ``≥ 0`` within one direction's ``per_direction`` buckets.

    Follows the reference arithmetic step by step, in float32 as torch does:
    ``max_exact + int(log(float32(d) / max_exact) / float32(log(max_distance /
    max_exact)) * (per_direction − max_exact))``, truncated toward zero, capped at
    ``per_direction − 1``. Rounding matters: for T5-base the exact value at
    distance 16 is 2, and a float32 result a hair below would truncate to 1.
    """
    # Distances in the exact region never use the log branch; clamping them to
    # max_exact keeps log() away from 0 (the reference computes log(0) = −inf and
    # then discards it with torch.where).
    ratio = np.maximum(distance, max_exact).astype(np.float32) / np.float32(max_exact)
    # torch's vectorised float32 log is not always numpy's float32 log: at
    # distance 131072 with (32, 2**20), causal, numpy's differs by one ulp and the
    # bucket by one. The float64 log rounded to float32 (the correctly rounded
    # result) agreed with torch 2.13 for every offset checked: ±2**20 over a grid
    # of settings, ±2**24 over random ones (scripts/make_golden_t5.py --check).
    log_ratio = np.log(ratio.astype(np.float64)).astype(np.float32)
    scaled = (
        log_ratio
        / np.float32(math.log(max_distance / max_exact))
        * np.float32(per_direction - max_exact)
    )
    large = max_exact + scaled.astype(np.int64)  # truncation toward zero, as .to(torch.long)
    large = np.minimum(large, per_direction - 1)
    return np.where(distance < max_exact, distance, large)


def _check_offsets(relative_position: object) -> npt.NDArray[np.int64]:
    try:
        offsets = np.asarray(relative_position)
    except (TypeError, ValueError) as error:  # pragma: no cover - ragged input
        raise ValueError(f"relative_position must be an array of integers: {error}") from None
    if offsets.dtype.kind == "f":
        if not np.all(np.isfinite(offsets)) or not np.all(offsets == np.round(offsets)):
            raise ValueError("relative_position must hold whole numbers (key − query offsets)")
    elif offsets.dtype.kind not in "iu":
        raise ValueError(
            f"relative_position must be an array of integers, got dtype {offsets.dtype}"
        )
    if offsets.size and (offsets.min() < -MAX_POSITION or offsets.max() > MAX_POSITION):
        raise ValueError(
            f"relative_position must be from {-MAX_POSITION} to {MAX_POSITION}, "
            f"got values from {offsets.min()} to {offsets.max()}"
        )
    return offsets.astype(np.int64)


def t5_relative_bucket(
    relative_position: npt.ArrayLike,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> npt.NDArray[np.int64]:
    """T5 bucket index of each key-minus-query offset.

    Identical, value for value, to Hugging Face transformers'
    ``T5Attention._relative_position_bucket`` (itself from Mesh TensorFlow),
    including its float32 logarithm and truncation toward zero.

    Per direction there are ``B = num_buckets // 2`` buckets when bidirectional,
    ``B = num_buckets`` when causal. Distances ``0 … B//2 − 1`` get one bucket
    each; distances from ``B//2`` up to ``max_distance`` share logarithmically
    wider buckets; every distance past that lands in the direction's last
    bucket ``B − 1``. Bidirectional: keys after the query (offset > 0) use
    buckets ``B … 2B − 1`` (bucket ``B`` itself, "distance 0 after the
    query", is never reached). Causal: offsets ≥ 0 (the query itself and the
    future, which the mask hides) all land in bucket 0.

    Parameters
    ----------
    relative_position : array_like of int, any shape
        Offsets ``key_position − query_position``, each in ``[−2**24, 2**24]``.
        Whole-valued floats are accepted.
    bidirectional : bool, default True
        True for an encoder (both directions), False for a causal decoder.
    num_buckets : int, default 32
        ``2 ≤ num_buckets ≤ MAX_BUCKETS``; even and ``≥ 4`` when bidirectional.
    max_distance : int, default 128
        Distance at which the logarithmic buckets end; larger than the exact
        region (``> B // 2``) and at most ``MAX_POSITION``.

    Returns
    -------
    numpy.ndarray of int64, same shape as ``relative_position``
        Buckets in ``[0, num_buckets)``. A scalar input gives a 0-d array.

    Raises
    ------
    ValueError
        If an argument is out of the ranges above.

    Examples
    --------
    T5-base (32 buckets, max distance 128), an encoder:

    >>> t5_relative_bucket([-3, -1, 0, 1, 3, 20, 200])
    array([ 3,  1,  0, 17, 19, 26, 31])

    The same offsets in a causal decoder, where the future is bucket 0:

    >>> t5_relative_bucket([-3, -1, 0, 1, 3, -20, -200], bidirectional=False)
    array([ 3,  1,  0,  0,  0, 17, 31])
    """
    num_buckets, max_distance, per_direction, max_exact = _check_t5_settings(
        num_buckets, max_distance, bidirectional
    )
    offsets = _check_offsets(relative_position)
    if bidirectional:
        distance = np.abs(offsets)
        base = np.where(offsets > 0, per_direction, 0)
    else:
        # Only the past (offset < 0) carries information in a decoder.
        distance = -np.minimum(offsets, 0)
        base = np.zeros_like(offsets)
    buckets = base + _one_direction_bucket(distance, per_direction, max_exact, max_distance)
    return np.asarray(buckets, dtype=np.int64)


class T5BucketRegions(NamedTuple):
    """Where the T5 buckets change character, as distances ``|key − query|``.

    In a bidirectional model the same distances hold on both sides; in a
    causal model they are distances into the past (offset ``−distance``) and
    every future offset is bucket 0.

    Attributes
    ----------
    buckets_per_direction : int
        ``B``: ``num_buckets // 2`` bidirectional, ``num_buckets`` causal.
    exact_end : int
        ``B // 2``. Distances ``0 … exact_end − 1`` have one bucket each.
    last_bucket_start : int
        Smallest distance in the direction's last bucket ``B − 1``; it and every
        larger distance share that bucket. Because buckets are truncated, this
        comes before ``max_distance`` (91 for T5-base).
    max_distance : int
        Where the logarithmic scale ends: distances ``exact_end … max_distance
        − 1`` follow the log formula (its last bucket reached at
        ``last_bucket_start``), distances ``≥ max_distance`` are clamped.
    """

    buckets_per_direction: int
    exact_end: int
    last_bucket_start: int
    max_distance: int


def t5_bucket_regions(
    num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True
) -> T5BucketRegions:
    """Boundaries of the exact, logarithmic and shared-last-bucket regions.

    Parameters
    ----------
    num_buckets, max_distance, bidirectional
        As for :func:`t5_relative_bucket`.

    Returns
    -------
    T5BucketRegions
        ``(buckets_per_direction, exact_end, last_bucket_start, max_distance)``,
        all distances ``|offset|``. ``last_bucket_start`` is found from
        :func:`t5_relative_bucket` itself, so it agrees with the buckets to the
        last float32 rounding.

    Examples
    --------
    >>> t5_bucket_regions(32, 128, True)
    T5BucketRegions(buckets_per_direction=16, exact_end=8, last_bucket_start=91, max_distance=128)
    >>> t5_bucket_regions(32, 128, False)
    T5BucketRegions(buckets_per_direction=32, exact_end=16, last_bucket_start=113, max_distance=128)
    """
    num_buckets, max_distance, per_direction, max_exact = _check_t5_settings(
        num_buckets, max_distance, bidirectional
    )
    last = per_direction - 1

    def bucket(distance: int) -> int:
        value = _one_direction_bucket(
            np.array([distance], dtype=np.int64), per_direction, max_exact, max_distance
        )
        return int(value[0])

    # The bucket is non-decreasing in distance and reaches the last bucket by
    # max_distance at the latest (the log term there is ≈ B − B//2, then capped),
    # so bisect on [exact_end, max_distance] for the first distance in it.
    low, high = max_exact, max_distance
    while low < high:
        middle = (low + high) // 2
        if bucket(middle) >= last:
            high = middle
        else:
            low = middle + 1
    return T5BucketRegions(per_direction, max_exact, low, max_distance)


def _t5_buckets_seen(
    length: int, bidirectional: bool, num_buckets: int, max_distance: int
) -> npt.NDArray[np.int64]:
    """Sorted buckets of every offset ``−(length − 1) … length − 1``.

    Every distance ``≥ max_distance`` shares its direction's last bucket, so the
    offsets up to ``±max_distance`` already reach every bucket a longer input does.
    """
    reach = min(length, max_distance + 1)
    offsets = np.arange(-(reach - 1), reach, dtype=np.int64)
    buckets = t5_relative_bucket(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    return np.unique(buckets)


def t5_new_buckets(
    trained_len: int,
    target_len: int,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> npt.NDArray[np.int64]:
    """Buckets an input of ``target_len`` tokens reaches that ``trained_len`` tokens never did.

    In an input of ``n`` tokens the offsets ``j − i`` run from ``−(n − 1)`` to
    ``n − 1``; a bucket none of them falls in was never used in training, so
    its bias is still at its initial value. Past the start of each direction's
    last bucket (:attr:`T5BucketRegions.last_bucket_start`, 91 for T5-base)
    every longer distance shares that bucket: once training covered that
    distance (``trained_len > last_bucket_start``, i.e. at least 92 tokens for
    T5-base), no longer input meets a new bucket — the new, longer distances
    reuse the last bucket's trained bias. (A causal model masks the future offsets; they
    are all bucket 0, which offset 0 reaches anyway.)

    Parameters
    ----------
    trained_len, target_len : int
        Input lengths, each from 1 to ``MAX_POSITION``. A ``target_len`` no
        longer than ``trained_len`` has no new bucket.
    bidirectional, num_buckets, max_distance
        As for :func:`t5_relative_bucket`.

    Returns
    -------
    numpy.ndarray of int64
        The new buckets, sorted ascending; empty when there are none.

    Raises
    ------
    ValueError
        If an argument is out of the ranges above.

    Examples
    --------
    T5-base (32 buckets, max distance 128), bidirectional: trained on 64
    tokens, the two farthest buckets on each side are new at 16,384; trained
    on 4,096 nothing is:

    >>> t5_new_buckets(64, 16_384)
    array([14, 15, 30, 31])
    >>> t5_new_buckets(4_096, 16_384)
    array([], dtype=int64)
    """
    num_buckets, max_distance, _, _ = _check_t5_settings(num_buckets, max_distance, bidirectional)
    trained_len = check_count("trained_len", trained_len, high=MAX_POSITION)
    target_len = check_count("target_len", target_len, high=MAX_POSITION)
    settings = (bool(bidirectional), num_buckets, max_distance)
    seen = _t5_buckets_seen(trained_len, *settings)
    reached = _t5_buckets_seen(target_len, *settings)
    return np.setdiff1d(reached, seen).astype(np.int64)


def t5_bias_matrix(
    bucket_biases: npt.ArrayLike,
    query_len: int,
    key_len: int,
    *,
    bidirectional: bool = True,
    num_buckets: int | None = None,
    max_distance: int = 128,
) -> npt.NDArray[np.float64]:
    """The ``(query_len, key_len)`` bias a T5 head adds to its scores.

    Entry ``[i, j]`` is ``bucket_biases[t5_relative_bucket(j − i)]``, as
    transformers' ``T5Attention.compute_bias`` builds it (query ``i`` at
    position ``i``, key ``j`` at position ``j``).

    Parameters
    ----------
    bucket_biases : array_like, shape (num_buckets,) or (num_buckets, n_heads)
        One bias per bucket (per head). Finite numbers.
    query_len, key_len : int
        Number of queries and keys, each from 1 to ``MAX_POSITION``, with
        ``query_len · key_len · n_heads ≤ MAX_ELEMENTS``.
    bidirectional : bool, default True
        As for :func:`t5_relative_bucket`.
    num_buckets : int, optional
        Defaults to ``len(bucket_biases)``; if given it must equal it.
    max_distance : int, default 128
        As for :func:`t5_relative_bucket`.

    Returns
    -------
    numpy.ndarray of float64
        Shape ``(query_len, key_len)`` for a 1-d ``bucket_biases``, or
        ``(n_heads, query_len, key_len)`` for a 2-d one (transformers' layout
        without the batch axis).

    Examples
    --------
    With bias = bucket number, the matrix shows the buckets; it is constant
    along each diagonal (it depends on ``j − i`` only):

    >>> t5_bias_matrix(np.arange(8.0), 3, 4, num_buckets=8, max_distance=4)
    array([[0., 5., 6., 7.],
           [1., 0., 5., 6.],
           [2., 1., 0., 5.]])
    """
    biases = check_finite_array("bucket_biases", bucket_biases)
    if biases.ndim not in (1, 2) or biases.shape[0] == 0:
        raise ValueError(
            "bucket_biases must have shape (num_buckets,) or (num_buckets, n_heads), "
            f"got shape {biases.shape}"
        )
    if num_buckets is None:
        num_buckets = biases.shape[0]
    num_buckets, max_distance, _, _ = _check_t5_settings(num_buckets, max_distance, bidirectional)
    if biases.shape[0] != num_buckets:
        raise ValueError(
            f"bucket_biases must have one row per bucket ({num_buckets}), "
            f"got {biases.shape[0]} rows"
        )
    query_len = check_count("query_len", query_len)
    key_len = check_count("key_len", key_len)
    n_heads = biases.shape[1] if biases.ndim == 2 else 1
    check_size("t5_bias_matrix", query_len * key_len * n_heads)
    offsets = np.arange(key_len)[None, :] - np.arange(query_len)[:, None]
    buckets = t5_relative_bucket(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    values = biases[buckets]  # (q, k) or (q, k, n_heads)
    if biases.ndim == 2:
        values = np.moveaxis(values, -1, 0)
    return np.ascontiguousarray(values)


def t5_random_bucket_biases(
    num_buckets: int, n_heads: int, seed: int | np.random.Generator = 0
) -> npt.NDArray[np.float64]:
    """An illustrative ``(num_buckets, n_heads)`` table of per-bucket biases.

    Real T5 biases are learned; these are standard normal draws, only to show
    how a table of per-bucket numbers becomes a bias matrix. The layout is that
    of transformers' ``relative_attention_bias.weight``: column ``h`` is head
    ``h``'s vector.

    Parameters
    ----------
    num_buckets : int
        From 2 to ``MAX_BUCKETS``.
    n_heads : int
        From 1 to ``MAX_HEADS``.
    seed : int or numpy.random.Generator, default 0
        Seed (a non-negative integer) of ``numpy.random.default_rng``, or a
        Generator to draw from; same seed, same table.

    Returns
    -------
    numpy.ndarray of float64, shape (num_buckets, n_heads)

    Examples
    --------
    >>> table = t5_random_bucket_biases(32, 12, seed=0)
    >>> table.shape
    (32, 12)
    >>> bool(np.array_equal(table, t5_random_bucket_biases(32, 12, seed=0)))
    True
    """
    num_buckets = check_count("num_buckets", num_buckets, low=2, high=MAX_BUCKETS)
    n_heads = check_count("n_heads", n_heads, high=MAX_HEADS)
    if isinstance(seed, np.random.Generator):
        rng = seed
    else:
        seed = check_count("seed", seed, low=0, high=2**63 - 1)
        rng = np.random.default_rng(seed)
    return rng.standard_normal((num_buckets, n_heads))


# ------------------------------------------------------------------------- Shaw


def _check_shaw(query_len: object, key_len: object, k: object) -> tuple[int, int, int]:
    query_len = check_count("query_len", query_len)
    key_len = check_count("key_len", key_len)
    k = check_count("k", k, low=0)
    check_size("the relative index matrix", query_len * key_len)
    return query_len, key_len, k


def shaw_clipped_distance(query_len: int, key_len: int, k: int) -> npt.NDArray[np.int64]:
    """Shaw et al.'s clipped offsets ``clip(j − i, −k, k)``.

    Shaw, Uszkoreit & Vaswani (2018), "Self-Attention with Relative Position
    Representations": keys farther than ``k`` from the query, on either side,
    share one offset and so one learned vector.

    Parameters
    ----------
    query_len, key_len : int
        Number of queries (rows ``i``) and keys (columns ``j``), each from 1
        to ``MAX_POSITION``, with ``query_len · key_len ≤ MAX_ELEMENTS``.
    k : int
        Clipping distance, ``0 ≤ k ≤ MAX_POSITION`` (``k = 0``: no position
        information at all).

    Returns
    -------
    numpy.ndarray of int64, shape (query_len, key_len)
        Values in ``[−k, k]``.

    Examples
    --------
    >>> shaw_clipped_distance(3, 5, 2)
    array([[ 0,  1,  2,  2,  2],
           [-1,  0,  1,  2,  2],
           [-2, -1,  0,  1,  2]])
    """
    query_len, key_len, k = _check_shaw(query_len, key_len, k)
    offsets = np.arange(key_len, dtype=np.int64)[None, :] - np.arange(query_len)[:, None]
    return np.clip(offsets, -k, k)


def shaw_relative_index(query_len: int, key_len: int, k: int) -> npt.NDArray[np.int64]:
    """Row of Shaw et al.'s table of ``2k + 1`` relative vectors: ``clip(j − i, −k, k) + k``.

    Parameters
    ----------
    query_len, key_len, k : int
        As for :func:`shaw_clipped_distance`.

    Returns
    -------
    numpy.ndarray of int64, shape (query_len, key_len)
        Indices in ``[0, 2k]``; ``k`` on the diagonal (the query itself).

    Examples
    --------
    >>> shaw_relative_index(3, 5, 2)
    array([[2, 3, 4, 4, 4],
           [1, 2, 3, 4, 4],
           [0, 1, 2, 3, 4]])
    """
    query_len, key_len, k = _check_shaw(query_len, key_len, k)
    return shaw_clipped_distance(query_len, key_len, k) + k


# ------------------------------------------------------------------------- NoPE

# Why the causal mask alone is a position signal (Kazemnejad et al. 2023, "The
# Impact of Positional Encoding on Length Generalization in Transformers",
# NeurIPS, Theorem 1): with no position encoding and equal scores, the softmax
# over query i's visible keys 0..i is uniform, 1/(i+1) each. A feature present
# only at the first token (e.g. <bos>) therefore averages to 1/(i+1) in row i —
# a strictly decreasing function of i — so the first layer can write the
# absolute position into the residual stream, and later layers can build
# relative attention from it. A bidirectional model without the mask sees 1/T
# in every row and gets no such signal. The signal is weak (it shrinks like 1/i,
# so neighbouring far positions differ by about 1/i²), implicit, and not an
# encoding anyone designed.


def causal_weight(positions: object) -> npt.NDArray[np.float64]:
    """Weight ``1/(i + 1)`` that causal query ``i`` gives each visible key under equal
    scores, at the given query positions only (no table of every position).

    Parameters
    ----------
    positions : array_like of int
        Query positions, from 0 to ``MAX_POSITION``.

    Returns
    -------
    numpy.ndarray of float64, the shape of ``positions``

    Examples
    --------
    >>> causal_weight([0, 3, 4095]).tolist()
    [1.0, 0.25, 0.000244140625]
    """
    i = check_positions("positions", positions, low=0)
    if np.any(i != np.round(i)):
        raise ValueError("positions must be whole numbers")
    return 1.0 / (i + 1.0)


def nope_row_weight(seq_len: int) -> npt.NDArray[np.float64]:
    """Weight ``1/(i + 1)`` that causal query ``i`` gives each visible key under equal scores.

    Parameters
    ----------
    seq_len : int
        Sequence length ``T``, from 1 to ``MAX_POSITION``.

    Returns
    -------
    numpy.ndarray of float64, shape (T,)

    Examples
    --------
    >>> nope_row_weight(4)
    array([1.        , 0.5       , 0.33333333, 0.25      ])
    """
    seq_len = check_count("seq_len", seq_len)
    return causal_weight(np.arange(seq_len))


def nope_causal_weights(seq_len: int) -> npt.NDArray[np.float64]:
    """Causal attention weights when every score is equal (no position encoding).

    Row ``i`` is the softmax of equal scores over keys ``0 … i``: ``1/(i + 1)``
    on each, 0 on the masked future.

    Parameters
    ----------
    seq_len : int
        Sequence length ``T``, from 1 to ``MAX_POSITION``, with ``T² ≤
        MAX_ELEMENTS``.

    Returns
    -------
    numpy.ndarray of float64, shape (T, T)
        Lower triangular; every row sums to 1.

    Examples
    --------
    >>> nope_causal_weights(3)
    array([[1.        , 0.        , 0.        ],
           [0.5       , 0.5       , 0.        ],
           [0.33333333, 0.33333333, 0.33333333]])
    """
    seq_len = check_count("seq_len", seq_len)
    check_size("the causal weight matrix", seq_len * seq_len)
    return np.tril(np.ones((seq_len, seq_len))) * nope_row_weight(seq_len)[:, None]
