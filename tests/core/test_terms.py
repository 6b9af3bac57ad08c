"""The four terms of a score: naive loops, the sum identity, and the Toeplitz checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from positional_core import sinusoidal_encoding, word_vector
from positional_core.terms import (
    MAX_TERM_POSITIONS,
    absolute_score_terms,
    relative_sinusoidal_codes,
    seeded_head,
    toeplitz_deviation,
    transformer_xl_score_terms,
)

T, D = 12, 16


@pytest.fixture(scope="module")
def head():
    return seeded_head(D, seed=7)


def _naive_absolute(head, token: str, base: float) -> np.ndarray:
    """Score term by term, one (m, n) pair at a time, straight from the formula."""
    x = word_vector(token, D)
    p = sinusoidal_encoding(T, D, base)
    a = head.w_q.T @ head.w_k / math.sqrt(head.d_head)
    out = np.zeros((4, T, T))
    for m in range(T):
        for n in range(T):
            out[0, m, n] = x @ a @ x
            out[1, m, n] = x @ a @ p[n]
            out[2, m, n] = p[m] @ a @ x
            out[3, m, n] = p[m] @ a @ p[n]
    return out


def _naive_transformer_xl(head, token: str, base: float) -> np.ndarray:
    """Dai et al. (2019), eq. in §3.3, one pair at a time; R_k = sinusoidal code of k = m − n."""
    x = word_vector(token, D)
    freqs = base ** (-np.arange(0, D, 2) / D)
    out = np.zeros((4, T, T))
    for m in range(T):
        for n in range(T):
            r = np.empty(D)
            r[0::2], r[1::2] = np.sin((m - n) * freqs), np.cos((m - n) * freqs)
            q = head.w_q @ x
            out[0, m, n] = q @ (head.w_k @ x)
            out[1, m, n] = q @ (head.w_k_r @ r)
            out[2, m, n] = head.u @ (head.w_k @ x)
            out[3, m, n] = head.v @ (head.w_k_r @ r)
    return out / math.sqrt(head.d_head)


@pytest.mark.parametrize("base", [10000.0, 100.0])
def test_absolute_terms_equal_the_naive_loop_and_sum_to_the_score(head, base):
    terms = absolute_score_terms(head, T, "dog", base)
    assert np.allclose(np.stack(terms.terms), _naive_absolute(head, "dog", base), atol=1e-12)
    x = word_vector("dog", D) + sinusoidal_encoding(T, D, base)
    score = (x @ head.w_q.T) @ (x @ head.w_k.T).T / math.sqrt(head.d_head)
    assert np.allclose(terms.total, score, atol=1e-12)


@pytest.mark.parametrize("base", [10000.0, 100.0])
def test_transformer_xl_terms_equal_the_naive_loop(head, base):
    terms = transformer_xl_score_terms(head, T, "dog", base)
    assert np.allclose(np.stack(terms.terms), _naive_transformer_xl(head, "dog", base), atol=1e-12)


def test_with_absolute_codes_three_terms_depend_on_where_the_pair_sits(head):
    cc, cp, pc, pp = absolute_score_terms(head, T).terms
    assert toeplitz_deviation(cc) < 1e-12  # the same token everywhere: a constant
    assert np.ptp(cc) < 1e-12
    for term in (cp, pc, pp):
        assert toeplitz_deviation(term) > 1e-2
    # content·position varies with the key alone, position·content with the query alone
    assert np.allclose(cp, cp[0][None, :]) and np.allclose(pc, pc[:, 0][:, None])


def test_transformer_xls_terms_depend_on_the_offset_only(head):
    terms = transformer_xl_score_terms(head, T)
    assert max(terms.deviations()) < 1e-12
    a, b, c, d = terms.terms
    assert np.ptp(a) < 1e-12 and np.ptp(c) < 1e-12  # no position at all
    assert np.ptp(np.diagonal(b, 3)) < 1e-12 and np.ptp(b) > 1e-3  # the offset only
    assert np.ptp(d) > 1e-3


def test_relative_codes_of_negative_offsets_are_sinusoids_of_them():
    r = relative_sinusoidal_codes(5, 8)
    freqs = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    for k in range(-4, 5):
        assert np.allclose(r[k + 4, 0::2], np.sin(k * freqs))
        assert np.allclose(r[k + 4, 1::2], np.cos(k * freqs))


def test_toeplitz_deviation_of_a_shifted_pattern_and_a_broken_one():
    toeplitz = np.array([[5.0 - abs(m - n) for n in range(6)] for m in range(6)])
    assert toeplitz_deviation(toeplitz) == 0.0
    broken = toeplitz.copy()
    broken[4, 1] += 0.3
    # the diagonal m − n = 3 holds 5 − 3 at three places, one raised by 0.3
    assert toeplitz_deviation(broken) == pytest.approx(0.3 * 2 / 3)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: absolute_score_terms(seeded_head(8), MAX_TERM_POSITIONS + 1), "n_positions"),
        (lambda: seeded_head(7), "even"),
        (lambda: seeded_head(10**6), "d_model"),
        (lambda: toeplitz_deviation(np.ones((2, 3))), "square"),
        (lambda: toeplitz_deviation([[1.0, np.nan], [0.0, 1.0]]), "finite"),
    ],
)
def test_bad_arguments_are_refused_with_a_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()
