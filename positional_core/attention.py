"""A tiny single-head attention layer for the order demo ("dog bites man").

Attention with no position information is *permutation-equivariant*: shuffle
the input words and the output rows are shuffled the same way, so any
order-free summary (mean pooling) is unchanged. "dog bites man" and "man bites
dog" then look identical to the model. Adding sinusoidal codes to the inputs,
rotating queries and keys with RoPE, or even just a causal mask breaks the tie.

Everything here is deterministic: word vectors come from a hash of the word
(``hashlib.blake2b``, the same in every process, unlike Python's salted
``hash()``) and the layer's weights from an explicit seed.

Limits: sentences of at most 32 words and 400 characters by default (see
:func:`parse_sentence`); ``d`` even, at most ``MAX_DIM``; attention score
matrices of at most ``MAX_ELEMENTS`` entries.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ._validation import (
    MAX_DIM,
    check_choice,
    check_count,
    check_even_dim,
    check_finite_array,
    check_real,
    check_size,
)
from .alibi import alibi_head_bias
from .learned import LearnedPositionTable
from .relative import t5_bias_matrix, t5_random_bucket_biases
from .rope import apply_rope
from .sinusoidal import sinusoidal_encoding

__all__ = [
    "COMPARE_SCHEMES",
    "ORDER_PAIR",
    "SCHEMES",
    "OrderLayer",
    "causal_mask",
    "compare_order_similarity",
    "embed_sentence",
    "encode_sentence",
    "match_rows",
    "order_similarity",
    "parse_sentence",
    "scaled_dot_product_attention",
    "softmax",
    "word_vector",
]

#: Position schemes of the order demo.
SCHEMES = ("none", "sinusoidal", "rope")
#: Schemes of :func:`compare_order_similarity`: :data:`SCHEMES` plus a learned
#: table added to the inputs, an ALiBi bias and a T5 bucket bias added to the scores.
COMPARE_SCHEMES = (*SCHEMES, "learned", "alibi", "t5")
#: The lesson's two sentences (the Order page's defaults, the pair every other page
#: checks order blindness with): B reorders the words of A.
ORDER_PAIR = ("dog bites man", "man bites dog")


def softmax(scores: object, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax; a row that is all ``-inf`` gives all zeros.

    Parameters
    ----------
    scores : array_like
        Real scores; ``-inf`` marks a masked cell. NaN and ``+inf`` are refused.
    axis : int, default -1
        The axis that sums to one.

    Returns
    -------
    numpy.ndarray, same shape as ``scores``
        Non-negative weights summing to 1 along ``axis`` (0 for a fully
        masked row, where no key may be attended to).

    Notes
    -----
    Subtracting the row maximum first avoids overflow; it changes nothing
    because softmax ignores a constant added to every score of a row — the
    fact that makes ALiBi's two bias forms equivalent.

    Examples
    --------
    >>> softmax([0.0, np.log(3.0)])
    array([0.25, 0.75])
    >>> softmax([[0.0, -np.inf], [-np.inf, -np.inf]])
    array([[1., 0.],
           [0., 0.]])
    """
    try:
        array = np.asarray(scores, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"scores must be an array of numbers: {error}") from None
    if np.isnan(array).any() or np.isposinf(array).any():
        raise ValueError("scores must not contain NaN or +inf (-inf marks a masked cell)")
    if array.ndim == 0:
        raise ValueError("scores must have at least one axis")
    if not -array.ndim <= axis < array.ndim:
        raise ValueError(f"axis must be from {-array.ndim} to {array.ndim - 1}, got {axis}")
    peak = np.max(array, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)  # an all -inf row: exp gives zeros
    weights = np.exp(array - peak)
    total = weights.sum(axis=axis, keepdims=True)
    return np.divide(weights, total, out=np.zeros_like(weights), where=total > 0)


def causal_mask(n: int) -> np.ndarray:
    """Lower-triangular mask: ``mask[i, j]`` is True when query ``i`` may attend to key ``j ≤ i``.

    Parameters
    ----------
    n : int
        Sequence length, ``1 ≤ n`` and ``n² ≤ MAX_ELEMENTS``.

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    n = check_count("n", n)
    check_size("the causal mask (n × n)", n * n)
    return np.tri(n, dtype=bool)


def scaled_dot_product_attention(
    q: object, k: object, v: object, mask: object = None
) -> tuple[np.ndarray, np.ndarray]:
    """``softmax(q kᵀ / √d) v`` with an optional boolean mask.

    Parameters
    ----------
    q : array_like, shape (..., n, d)
        Queries.
    k : array_like, shape (..., m, d)
        Keys.
    v : array_like, shape (..., m, d_v)
        Values.
    mask : array_like of bool, shape broadcastable to (..., n, m), optional
        True where query ``i`` may attend to key ``j``. A query with no
        allowed key gets zero weights and a zero output row.

    Returns
    -------
    out : numpy.ndarray, shape (..., n, d_v)
    weights : numpy.ndarray, shape (..., n, m)
        Rows sum to 1 (0 for a fully masked row).

    Examples
    --------
    >>> q = k = np.eye(2)
    >>> v = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> out, w = scaled_dot_product_attention(q, k, v, causal_mask(2))
    >>> w.round(2)
    array([[1.  , 0.  ],
           [0.33, 0.67]])
    """
    q = check_finite_array("q", q)
    k = check_finite_array("k", k)
    v = check_finite_array("v", v)
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise ValueError("q, k and v must have at least 2 dimensions: (..., n, d)")
    if q.shape[-1] != k.shape[-1] or q.shape[-1] == 0:
        raise ValueError(
            f"q and k must share a non-zero last dimension d, got {q.shape[-1]} and {k.shape[-1]}"
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of rows, got {k.shape[-2]} and {v.shape[-2]}"
        )
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    check_size("the score matrix", int(np.prod(lead)) * q.shape[-2] * k.shape[-2])
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        allowed = np.asarray(mask)
        if allowed.dtype != bool:
            raise ValueError(f"mask must be boolean (True = may attend), got dtype {allowed.dtype}")
        try:
            scores = np.where(allowed, scores, -np.inf)
        except ValueError:
            raise ValueError(
                f"mask of shape {allowed.shape} does not broadcast to the scores {scores.shape}"
            ) from None
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


def word_vector(word: str, d: int = 16) -> np.ndarray:
    """A stable pseudo-random embedding of ``word`` (case-insensitive).

    The seed is the 64-bit BLAKE2b digest of the lowercased UTF-8 word, so the
    vector is the same in every process, run and machine (Python's ``hash()``
    is salted per process and would not be).

    Parameters
    ----------
    word : str
        A non-empty word.
    d : int, default 16
        Dimension, ``1 ≤ d ≤ MAX_DIM``.

    Returns
    -------
    numpy.ndarray, shape (d,)
        Standard normal entries.

    Examples
    --------
    >>> bool(np.array_equal(word_vector("Dog"), word_vector("dog")))
    True
    >>> word_vector("dog", 4).round(3)
    array([-1.262, -0.265, -0.094, -2.805])
    """
    if not isinstance(word, str) or not word:
        raise ValueError(f"word must be a non-empty string, got {word!r}")
    d = check_count("d", d, high=MAX_DIM)
    digest = hashlib.blake2b(word.lower().encode("utf-8"), digest_size=8).digest()
    rng = np.random.default_rng(int.from_bytes(digest, "little"))
    return rng.standard_normal(d)


def _strip_edges(word: str) -> str:
    """Drop characters that are neither letters nor digits from both ends of ``word``."""
    start, end = 0, len(word)
    while start < end and not word[start].isalnum():
        start += 1
    while end > start and not word[end - 1].isalnum():
        end -= 1
    return word[start:end]


def parse_sentence(
    text: str, *, min_words: int = 2, max_words: int = 32, max_chars: int = 400
) -> list[str]:
    """Split a typed sentence into lowercase words, or explain in plain words why not.

    Words are separated by whitespace; punctuation and symbols at the edges of
    a word are dropped (``"dog,"`` → ``"dog"``, ``"don't"`` stays), and words
    are lowercased.

    Parameters
    ----------
    text : str
        What the user typed.
    min_words, max_words : int, keyword-only
        Allowed word count, ``1 ≤ min_words ≤ max_words ≤ 1024``.
    max_chars : int, keyword-only
        Longest accepted text, ``1 … 100000`` characters.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        With a message meant for the user: the text is empty, too long, has
        too few or too many words, contains a control character, or a "word"
        with no letter or digit (only symbols or emoji).

    Examples
    --------
    >>> parse_sentence("  The dog bites, the MAN! ")
    ['the', 'dog', 'bites', 'the', 'man']
    >>> parse_sentence("dog")
    Traceback (most recent call last):
    ...
    ValueError: Type at least 2 words; "dog" has 1.
    """
    max_words = check_count("max_words", max_words, high=1024)
    min_words = check_count("min_words", min_words, high=max_words)
    max_chars = check_count("max_chars", max_chars, high=100_000)
    if not isinstance(text, str):
        raise ValueError(f"The sentence must be text, got {type(text).__name__}.")
    if len(text) > max_chars:
        raise ValueError(
            f"The sentence is too long: {len(text):,} characters; at most {max_chars:,}."
        )
    raw = text.split()
    if not raw:
        raise ValueError("The sentence is empty: type a few words, e.g. “dog bites man”.")
    if len(raw) > max_words:
        raise ValueError(f"Too many words: {len(raw)}; at most {max_words}.")
    words = []
    for token in raw:
        if any(unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Cn") for char in token):
            raise ValueError("The sentence contains an invisible or control character.")
        word = _strip_edges(token)
        if not word:
            raise ValueError(
                f"“{token}” is not a word: every word needs at least one letter or digit."
            )
        words.append(word.lower())
    if len(words) < min_words:
        shown = text.strip()
        raise ValueError(f'Type at least {min_words} words; "{shown}" has {len(words)}.')
    return words


@dataclass(frozen=True)
class OrderLayer:
    """One fixed, seeded attention head for the order demo.

    Parameters
    ----------
    d : int, default 16
        Model and head dimension, even, ``2 ≤ d ≤ 256``.
    seed : int, default 0
        Seed of ``numpy.random.default_rng`` for ``Wq``, ``Wk``, ``Wv``
        (entries N(0, 1/d), so outputs keep the scale of the inputs).

    Attributes
    ----------
    Wq, Wk, Wv : numpy.ndarray, shape (d, d)
        Read-only projection matrices; a row vector ``x`` maps to ``x @ W``.

    Examples
    --------
    >>> layer = OrderLayer()
    >>> layer.encode(["dog", "bites", "man"], "rope").shape
    (3, 16)
    """

    d: int = 16
    seed: int = 0
    Wq: np.ndarray = field(init=False, repr=False, compare=False)
    Wk: np.ndarray = field(init=False, repr=False, compare=False)
    Wv: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        d = check_even_dim("d", self.d, high=256)
        seed = check_count("seed", self.seed, low=0, high=2**63 - 1)
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "seed", seed)
        rng = np.random.default_rng(seed)
        for name in ("Wq", "Wk", "Wv"):
            matrix = rng.standard_normal((d, d)) / np.sqrt(d)
            matrix.setflags(write=False)
            object.__setattr__(self, name, matrix)

    def embed(self, words: list[str], scheme: str = "none") -> np.ndarray:
        """Input rows ``(n, d)``: word vectors, plus sinusoidal codes for that scheme."""
        scheme = check_choice("scheme", scheme, SCHEMES)
        if not isinstance(words, list | tuple) or not words:
            raise ValueError("words must be a non-empty list of words")
        x = np.stack([word_vector(word, self.d) for word in words])
        if scheme == "sinusoidal":
            x = x + sinusoidal_encoding(len(words), self.d)
        return x

    def encode(self, words: list[str], scheme: str = "none", causal: bool = False) -> np.ndarray:
        """Output rows of the head for ``words`` under a position ``scheme``.

        Parameters
        ----------
        words : list of str
            Non-empty list, at most 1024 words (see :func:`parse_sentence`).
        scheme : {"none", "sinusoidal", "rope"}
            ``"sinusoidal"`` adds codes to the inputs; ``"rope"`` rotates the
            queries and keys (positions 0 … n−1).
        causal : bool
            Apply a causal mask (each word sees itself and earlier words).

        Returns
        -------
        numpy.ndarray, shape (n, d)
        """
        if not isinstance(causal, bool | np.bool_):
            raise ValueError(f"causal must be True or False, got {causal!r}")
        if isinstance(words, list | tuple) and len(words) > 1024:
            raise ValueError(f"words must hold at most 1024 words, got {len(words)}")
        x = self.embed(words, scheme)
        q, k, v = x @ self.Wq, x @ self.Wk, x @ self.Wv
        if scheme == "rope":
            q, k = apply_rope(q), apply_rope(k)
        mask = causal_mask(len(words)) if causal else None
        out, _ = scaled_dot_product_attention(q, k, v, mask)
        return out


@lru_cache(maxsize=1)
def _default_layer() -> OrderLayer:
    return OrderLayer()


def encode_sentence(sentence: str, scheme: str = "none", causal: bool = False) -> np.ndarray:
    """Output rows ``(n, 16)`` of the default :class:`OrderLayer` for a typed sentence.

    Parameters
    ----------
    sentence : str
        Parsed by :func:`parse_sentence` (2 to 32 words).
    scheme : {"none", "sinusoidal", "rope"}
    causal : bool, default False

    Returns
    -------
    numpy.ndarray, shape (n, 16)

    Examples
    --------
    >>> a = encode_sentence("dog bites man")
    >>> b = encode_sentence("man bites dog")
    >>> match_rows(a, b)  # the same rows, reordered
    [2, 1, 0]
    """
    return _default_layer().encode(parse_sentence(sentence), scheme, causal)


def embed_sentence(sentence: str, scheme: str = "none") -> np.ndarray:
    """Input rows ``(n, 16)`` of the default :class:`OrderLayer` for a typed sentence.

    Each row is the word's :func:`word_vector` (plus the sinusoidal code of its
    position for ``scheme="sinusoidal"``): the same word gives the same row
    wherever it stands.

    Parameters
    ----------
    sentence : str
        Parsed by :func:`parse_sentence` (2 to 32 words).
    scheme : {"none", "sinusoidal", "rope"}
        RoPE acts on queries and keys, not on the inputs: its rows are those of "none".

    Returns
    -------
    numpy.ndarray, shape (n, 16)

    Examples
    --------
    >>> a = embed_sentence("dog bites man")
    >>> b = embed_sentence("man bites dog")
    >>> match_rows(a, b)  # the same words: the same rows, reordered
    [2, 1, 0]
    >>> match_rows(a, embed_sentence("man bites dog", "sinusoidal"))
    [None, None, None]
    """
    return _default_layer().embed(parse_sentence(sentence), scheme)


def order_similarity(
    sentence_a: str, sentence_b: str, scheme: str = "none", causal: bool = False
) -> float:
    """Cosine similarity of the mean-pooled outputs of two sentences.

    For ``scheme="none"`` without a mask, two sentences that are permutations
    of each other give the same output rows in another order, so the pooled
    vectors agree up to the order of a floating-point sum: the similarity is
    1 within about 1e-15 (clipped to ``[-1, 1]``), printed "1.000".

    Parameters
    ----------
    sentence_a, sentence_b : str
        Parsed by :func:`parse_sentence`.
    scheme : {"none", "sinusoidal", "rope"}
    causal : bool, default False

    Returns
    -------
    float
        In ``[-1, 1]``.

    Examples
    --------
    >>> f"{order_similarity('dog bites man', 'man bites dog'):.3f}"
    '1.000'
    >>> order_similarity('dog bites man', 'man bites dog', 'rope') < 1
    True
    """
    pooled_a = encode_sentence(sentence_a, scheme, causal).mean(axis=0)
    pooled_b = encode_sentence(sentence_b, scheme, causal).mean(axis=0)
    norm = float(np.linalg.norm(pooled_a) * np.linalg.norm(pooled_b))
    if norm == 0.0:
        return 0.0
    return float(np.clip(pooled_a @ pooled_b / norm, -1.0, 1.0))


def match_rows(out_a: object, out_b: object, atol: float = 1e-9) -> list[int | None]:
    """For each row of ``out_a``, the index of an equal row of ``out_b`` (or None).

    Rows are equal when every entry differs by at most ``atol``. Each row of
    ``out_b`` is used at most once (the first unused equal row wins), so a
    repeated word maps to distinct rows.

    Parameters
    ----------
    out_a : array_like, shape (n, d)
    out_b : array_like, shape (m, d)
    atol : float, default 1e-9
        Absolute tolerance, ``0 ≤ atol ≤ 1``.

    Returns
    -------
    list of int or None, length n

    Examples
    --------
    >>> match_rows([[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [5.0, 6.0]])
    [None, 0]
    """
    a = check_finite_array("out_a", out_a)
    b = check_finite_array("out_b", out_b)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1]:
        raise ValueError(
            f"out_a and out_b must be 2-D with the same width, got {a.shape} and {b.shape}"
        )
    atol = check_real("atol", atol, low=0.0, high=1.0)
    check_size("the row comparison", a.shape[0] * b.shape[0] * max(a.shape[1], 1))
    equal = np.all(np.abs(a[:, None, :] - b[None, :, :]) <= atol, axis=2)
    used: set[int] = set()
    matches: list[int | None] = []
    for row in equal:
        match = next((int(j) for j in np.flatnonzero(row) if int(j) not in used), None)
        if match is not None:
            used.add(match)
        matches.append(match)
    return matches


#: Rows of the learned stand-in table used by :func:`compare_order_similarity`
#: (``OrderLayer.encode`` accepts at most 1024 words).
_COMPARE_TABLE_ROWS = 1024


#: T5-base's bucket settings for the ``"t5"`` scheme of :func:`compare_order_similarity`.
_T5_NUM_BUCKETS = 32
_T5_MAX_DISTANCE = 128


@lru_cache(maxsize=4)
def _learned_rows(d: int, seed: int) -> np.ndarray:
    return LearnedPositionTable(_COMPARE_TABLE_ROWS, d, seed=seed).table


@lru_cache(maxsize=4)
def _t5_biases(seed: int) -> np.ndarray:
    biases = t5_random_bucket_biases(_T5_NUM_BUCKETS, 1, seed=seed)[:, 0]
    biases.setflags(write=False)
    return biases


def _check_t5_biases(t5_bucket_biases: object) -> np.ndarray | None:
    if t5_bucket_biases is None:
        return None
    biases = check_finite_array("t5_bucket_biases", t5_bucket_biases)
    if biases.shape != (_T5_NUM_BUCKETS,):
        raise ValueError(
            f"t5_bucket_biases must hold one bias per bucket, shape ({_T5_NUM_BUCKETS},), "
            f"got shape {biases.shape}"
        )
    return biases


def compare_order_similarity(
    sentence_a: str,
    sentence_b: str,
    scheme: str = "none",
    causal: bool = False,
    *,
    alibi_slope: float = 0.5,
    t5_bucket_biases: object = None,
) -> float:
    """:func:`order_similarity` for every scheme of the comparison: learned, ALiBi, T5 too.

    The same fixed layer as :func:`encode_sentence` (``OrderLayer()``, d = 16).
    For the schemes of :data:`SCHEMES` the result *is* :func:`order_similarity`.
    The three more:

    * ``"learned"`` adds row ``t`` of a seeded learned table
      (:class:`~positional_core.learned.LearnedPositionTable` with the layer's
      seed, GPT-2's initialisation: small N(0, 0.02²) entries) to word ``t``;
    * ``"alibi"`` adds the ALiBi bias of one head with slope ``alibi_slope``
      to the scaled scores: ``−m·(i − j)`` with the causal mask, the symmetric
      ``−m·|i − j|`` without it;
    * ``"t5"`` adds a T5 relative bias to the scaled scores: the bias of the
      bucket of ``j − i`` (:func:`~positional_core.relative.t5_relative_bucket`
      with T5-base's settings, 32 buckets and max distance 128; bidirectional,
      or causal with the causal mask) from a table of 32 per-bucket biases —
      by default seeded standard normal draws
      (:func:`~positional_core.relative.t5_random_bucket_biases` with the
      layer's seed; real T5 biases are learned).

    Note that the symmetric ALiBi bias depends on ``|i − j|`` only, which
    reversing a sentence keeps: "dog bites man" and its reversal "man bites
    dog" stay exactly alike (similarity 1 up to rounding). T5's buckets tell
    a key before the query from one after it (offsets ``−1`` and ``+1`` fall
    in different buckets), so reversal does change its scores.

    Parameters
    ----------
    sentence_a, sentence_b : str
        Parsed by :func:`parse_sentence` (2 to 32 words).
    scheme : {"none", "sinusoidal", "rope", "learned", "alibi", "t5"}
    causal : bool, default False
    alibi_slope : float, keyword-only, default 0.5
        ``m`` for ``"alibi"`` (head 1 of 8), ``0 ≤ m ≤ 1e6``.
    t5_bucket_biases : array_like of shape (32,), keyword-only, optional
        The per-bucket biases for ``"t5"`` (finite numbers); ``None`` (the
        default) for the seeded table. Equal biases everywhere add a constant
        to every score, which softmax ignores: the result is that of ``"none"``.

    Returns
    -------
    float
        In ``[-1, 1]``.

    Examples
    --------
    >>> compare_order_similarity("dog bites man", "man bites dog", "learned") < 1
    True
    >>> f"{compare_order_similarity('dog bites man', 'man bites dog', 'alibi'):.3f}"
    '1.000'
    >>> compare_order_similarity("dog bites man", "man bites dog", "alibi", causal=True) < 1
    True

    T5's buckets, and the same with one bias for every bucket (no position
    information left):

    >>> a, b = "dog bites man", "man bites dog"
    >>> compare_order_similarity(a, b, "t5") < 1
    True
    >>> f"{compare_order_similarity(a, b, 't5', t5_bucket_biases=np.full(32, 0.7)):.3f}"
    '1.000'
    """
    scheme = check_choice("scheme", scheme, COMPARE_SCHEMES)
    if not isinstance(causal, bool | np.bool_):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    slope = check_real("alibi_slope", alibi_slope, low=0.0, high=1e6)
    t5_biases = _check_t5_biases(t5_bucket_biases)
    if scheme in SCHEMES:
        return order_similarity(sentence_a, sentence_b, scheme, causal)
    layer = _default_layer()

    def pooled(sentence: str) -> np.ndarray:
        words = parse_sentence(sentence)
        n = len(words)
        x = np.stack([word_vector(word, layer.d) for word in words])
        if scheme == "learned":
            x = x + _learned_rows(layer.d, layer.seed)[:n]
        q, k, v = x @ layer.Wq, x @ layer.Wk, x @ layer.Wv
        scores = q @ k.T / np.sqrt(layer.d)
        if scheme == "alibi":
            # alibi_head_bias masks future keys itself (-inf) when causal.
            scores = scores + alibi_head_bias(slope, n, causal=bool(causal))
        elif scheme == "t5":
            biases = _t5_biases(layer.seed) if t5_biases is None else t5_biases
            scores = scores + t5_bias_matrix(
                biases,
                n,
                n,
                bidirectional=not causal,
                num_buckets=_T5_NUM_BUCKETS,
                max_distance=_T5_MAX_DISTANCE,
            )
        if causal and scheme != "alibi":
            scores = np.where(causal_mask(n), scores, -np.inf)
        return (softmax(scores) @ v).mean(axis=0)

    pooled_a, pooled_b = pooled(sentence_a), pooled(sentence_b)
    norm = float(np.linalg.norm(pooled_a) * np.linalg.norm(pooled_b))
    if norm == 0.0:
        return 0.0
    return float(np.clip(pooled_a @ pooled_b / norm, -1.0, 1.0))
