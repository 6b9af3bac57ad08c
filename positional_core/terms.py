"""The four terms of an attention score, with absolute codes and in Transformer-XL's form.

With position codes added to the input, the score of query position m and key
position n in one head is

    (x_m + p_m)ᵀ W_qᵀ W_k (x_n + p_n) / √d_h
      = x_mᵀ A x_n  +  x_mᵀ A p_n  +  p_mᵀ A x_n  +  p_mᵀ A p_n,   A = W_qᵀ W_k / √d_h,

content·content, content·position, position·content and position·position.
With the same token at every position (``x_m = x``) any change along a
diagonal m − n = const comes from the positions: the content·position term
varies with n alone, position·content with m alone, and position·position with
both, so three of the four depend on where the pair sits, not only on how far
apart it is.

Transformer-XL (Dai et al. 2019, "Transformer-XL: Attentive Language Models
Beyond a Fixed-Length Context", arXiv:1901.02860, section 3.3) rewrites the
score so that positions enter only as the offset: the key's absolute code
becomes a sinusoidal code R of m − n with its own key weights W_{k,R}, and the
query's position terms become two learned vectors u and v:

    (a) x_mᵀ W_qᵀ W_{k,E} x_n      content
    (b) x_mᵀ W_qᵀ W_{k,R} R_{m−n}  content-dependent position bias
    (c) uᵀ W_{k,E} x_n              global content bias
    (d) vᵀ W_{k,R} R_{m−n}          global position bias

(each divided by √d_h here, as the absolute form is). With the same token at
every position, each of the four is constant along every diagonal: a Toeplitz
matrix. :func:`toeplitz_deviation` measures how far a matrix is from one.

The head's weights are seeded random matrices (:func:`seeded_head`), the token
a :func:`~positional_core.attention.word_vector`; the numbers are this head's,
not a trained model's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_count, check_even_dim, check_finite_array
from .attention import word_vector
from .sinusoidal import sinusoidal_encoding

__all__ = [
    "TERM_NAMES",
    "Head",
    "ScoreTerms",
    "absolute_score_terms",
    "relative_sinusoidal_codes",
    "seeded_head",
    "toeplitz_deviation",
    "transformer_xl_score_terms",
]

#: Largest number of positions the term matrices are computed for (T × T each).
MAX_TERM_POSITIONS = 512
#: Largest model width of :func:`seeded_head`.
MAX_TERM_DIM = 1_024

#: The terms in the order of the formula, absolute form and Transformer-XL's.
TERM_NAMES = {
    "absolute": ("content·content", "content·position", "position·content", "position·position"),
    "transformer_xl": (
        "(a) content",
        "(b) content·offset",
        "(c) global content bias u",
        "(d) global offset bias v",
    ),
}


@dataclass(frozen=True)
class Head:
    """One attention head's weights: queries, content keys, offset keys, u and v."""

    w_q: np.ndarray  # (d_h, d_model)
    w_k: np.ndarray  # (d_h, d_model): the keys of contents (and of absolute codes)
    w_k_r: np.ndarray  # (d_h, d_model): Transformer-XL's keys of offset codes
    u: np.ndarray  # (d_h,)
    v: np.ndarray  # (d_h,)

    @property
    def d_head(self) -> int:
        return self.w_q.shape[0]

    @property
    def d_model(self) -> int:
        return self.w_q.shape[1]


@dataclass(frozen=True)
class ScoreTerms:
    """The four (T, T) term matrices of a score (row m: query, column n: key)."""

    form: str  # "absolute" or "transformer_xl"
    terms: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

    @property
    def names(self) -> tuple[str, ...]:
        return TERM_NAMES[self.form]

    @property
    def total(self) -> np.ndarray:
        """The score: the sum of the four terms."""
        return sum(self.terms[1:], self.terms[0].copy())

    def deviations(self) -> tuple[float, float, float, float]:
        """Each term's :func:`toeplitz_deviation`."""
        return tuple(toeplitz_deviation(t) for t in self.terms)  # type: ignore[return-value]

    def changing(self, tolerance: float = 1e-9) -> list[str]:
        """The names of the terms that change along a diagonal (depend on more than
        m − n): a deviation over ``tolerance`` times the largest entry (at least 1),
        so rounding is not a change.

        >>> absolute_score_terms(seeded_head(16), 8).changing()
        ['content·position', 'position·content', 'position·position']
        """
        scale = max(1.0, *(float(np.max(np.abs(t))) for t in self.terms))
        pairs = zip(self.names, self.deviations(), strict=True)
        return [name for name, deviation in pairs if deviation > tolerance * scale]


def seeded_head(d_model: int = 64, d_head: int | None = None, seed: int = 0) -> Head:
    """A head with standard normal weights scaled by 1/√d_model (u, v standard normal).

    Examples
    --------
    >>> head = seeded_head(16, seed=1)
    >>> head.w_q.shape, head.u.shape
    ((16, 16), (16,))
    >>> bool(np.array_equal(seeded_head(16, seed=1).w_k, head.w_k))
    True
    """
    d_model = check_even_dim("d_model", d_model, high=MAX_TERM_DIM)
    d_head = d_model if d_head is None else check_count("d_head", d_head, high=MAX_TERM_DIM)
    seed = check_count("seed", seed, low=0, high=2**32 - 1)
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(d_model)
    w_q, w_k, w_k_r = (rng.standard_normal((d_head, d_model)) * scale for _ in range(3))
    u, v = rng.standard_normal(d_head), rng.standard_normal(d_head)
    return Head(w_q, w_k, w_k_r, u, v)


def _content(token: str, n_positions: int, d_model: int) -> np.ndarray:
    """The same token at every position: (T, d_model)."""
    return np.tile(word_vector(token, d_model), (n_positions, 1))


def _checked(n_positions: int, head: Head) -> int:
    return check_count("n_positions", n_positions, low=2, high=MAX_TERM_POSITIONS)


def absolute_score_terms(
    head: Head, n_positions: int = 32, token: str = "word", base: float = 10000.0
) -> ScoreTerms:
    """The four terms with sinusoidal codes added to the input (the same token everywhere).

    Returns
    -------
    ScoreTerms
        ``terms[i][m, n]``: content·content, content·position, position·content,
        position·position for query m and key n, each divided by √d_h.

    Examples
    --------
    >>> terms = absolute_score_terms(seeded_head(16), 8)
    >>> [d > 0.1 for d in terms.deviations()]  # cc is constant; the rest are not
    [False, True, True, True]
    """
    n_positions = _checked(n_positions, head)
    x = _content(token, n_positions, head.d_model)
    p = sinusoidal_encoding(n_positions, head.d_model, base)
    q_x, q_p = x @ head.w_q.T, p @ head.w_q.T
    k_x, k_p = x @ head.w_k.T, p @ head.w_k.T
    scale = np.sqrt(head.d_head)
    terms = (q_x @ k_x.T, q_x @ k_p.T, q_p @ k_x.T, q_p @ k_p.T)
    return ScoreTerms("absolute", tuple(t / scale for t in terms))  # type: ignore[arg-type]


def relative_sinusoidal_codes(n_positions: int, d: int, base: float = 10000.0) -> np.ndarray:
    """Sinusoidal codes of every offset m − n of ``n_positions`` positions.

    Returns
    -------
    numpy.ndarray, shape (2·n_positions − 1, d)
        Row ``k + n_positions − 1`` is the code of offset ``k`` (``sin(k·ω_i)``,
        ``cos(k·ω_i)`` interleaved, as :func:`~positional_core.sinusoidal_encoding`).

    Examples
    --------
    >>> r = relative_sinusoidal_codes(3, 4)
    >>> r.shape
    (5, 4)
    >>> bool(np.allclose(r[2], [0, 1, 0, 1]))  # offset 0
    True
    """
    n_positions = check_count("n_positions", n_positions, low=1, high=MAX_TERM_POSITIONS)
    d = check_even_dim("d", d, high=MAX_TERM_DIM)
    table = sinusoidal_encoding(n_positions, d, base)  # offsets 0 … T − 1
    backward = table[1:][::-1].copy()
    backward[:, 0::2] *= -1  # sin(−kω) = −sin(kω), cos is even
    return np.concatenate([backward, table])


def transformer_xl_score_terms(
    head: Head, n_positions: int = 32, token: str = "word", base: float = 10000.0
) -> ScoreTerms:
    """Transformer-XL's four terms (a)–(d) for the same token at every position.

    Returns
    -------
    ScoreTerms
        ``terms[i][m, n]`` for query m and key n, each divided by √d_h; every one
        depends on m − n only (or on nothing).

    Examples
    --------
    >>> terms = transformer_xl_score_terms(seeded_head(16), 8)
    >>> max(terms.deviations()) < 1e-12
    True
    """
    n_positions = _checked(n_positions, head)
    x = _content(token, n_positions, head.d_model)
    r = relative_sinusoidal_codes(n_positions, head.d_model, base)
    offsets = np.subtract.outer(np.arange(n_positions), np.arange(n_positions))  # m − n
    rel_keys = (r @ head.w_k_r.T)[offsets + n_positions - 1]  # (T, T, d_h): W_{k,R} R_{m−n}
    q = x @ head.w_q.T
    k_x = x @ head.w_k.T
    scale = np.sqrt(head.d_head)
    a = q @ k_x.T
    b = np.einsum("md,mnd->mn", q, rel_keys)
    c = np.broadcast_to(k_x @ head.u, (n_positions, n_positions)).copy()
    d = rel_keys @ head.v
    return ScoreTerms("transformer_xl", tuple(t / scale for t in (a, b, c, d)))  # type: ignore[arg-type]


def toeplitz_deviation(matrix: np.ndarray) -> float:
    """The largest distance of an entry from the mean of its diagonal (0 for a Toeplitz matrix).

    Parameters
    ----------
    matrix : array_like, shape (T, T)

    Examples
    --------
    >>> toeplitz_deviation(np.array([[1.0, 2.0], [3.0, 1.0]]))
    0.0
    >>> toeplitz_deviation(np.array([[1.0, 2.0], [3.0, 4.0]]))
    1.5
    """
    matrix = check_finite_array("matrix", matrix)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"matrix must be square, got shape {matrix.shape}")
    size = matrix.shape[0]
    worst = 0.0
    for k in range(-size + 1, size):
        diagonal = np.diagonal(matrix, offset=k)
        worst = max(worst, float(np.max(np.abs(diagonal - diagonal.mean()))))
    return worst
