"""Classic RoPE mistakes: RoPE on the values, and speeds from the model width."""

from __future__ import annotations

import math

import numpy as np
import pytest

from positional_core.mistakes import shift_changes, width_mistake


def _rotate(x: np.ndarray, position: int, base: float) -> np.ndarray:
    """One vector turned pair by pair, by hand (interleaved pairs)."""
    out = x.copy()
    for i in range(x.size // 2):
        angle = position * base ** (-2 * i / x.size)
        c, s = math.cos(angle), math.sin(angle)
        out[2 * i] = c * x[2 * i] - s * x[2 * i + 1]
        out[2 * i + 1] = s * x[2 * i] + c * x[2 * i + 1]
    return out


def _naive_outputs(q, k, v, shift: int, base: float, rotate_values: bool) -> np.ndarray:
    n, d = q.shape
    out = np.zeros_like(v)
    for m in range(n):
        qm = _rotate(q[m], shift + m, base)
        scores = np.array([qm @ _rotate(k[j], shift + j, base) / math.sqrt(d) for j in range(n)])
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        for j in range(n):
            out[m] += weights[j] * (_rotate(v[j], shift + j, base) if rotate_values else v[j])
    return out


@pytest.mark.parametrize("seed", [0, 5])
def test_shift_changes_equal_a_naive_loop(seed):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((6, 8)) for _ in range(3))
    right, wrong = shift_changes([0, 3, 40], n_tokens=6, d=8, base=100.0, seed=seed)
    for i, shift in enumerate([0, 3, 40]):
        for rotate_values, got in ((False, right[i]), (True, wrong[i])):
            moved = _naive_outputs(q, k, v, shift, 100.0, rotate_values)
            start = _naive_outputs(q, k, v, 0, 100.0, rotate_values)
            assert got == pytest.approx(np.max(np.abs(moved - start)), abs=1e-12)


def test_rope_on_queries_and_keys_ignores_a_shift_and_on_values_it_does_not():
    shifts = list(range(0, 200, 7))
    right, wrong = shift_changes(shifts, n_tokens=10, d=32)
    assert np.all(right < 1e-12)
    assert wrong[0] == 0 and np.all(wrong[1:] > 1e-2)


def test_speeds_from_the_model_width_are_the_first_pairs_of_a_wider_head():
    w = width_mistake(4096, 128, 4096, 16384)
    i = np.arange(64)
    assert np.allclose(w.right, 10000.0 ** (-2 * i / 128))
    assert np.allclose(w.wrong, 10000.0 ** (-2 * i / 4096))
    right_wave, wrong_wave = w.wavelengths
    assert np.all(wrong_wave <= right_wave) and wrong_wave[-1] < 10 < right_wave[-1] / 1000
    # The right speeds leave 18 pairs out of their band at 4 × L (REFERENCE_NUMBERS: Llama 2
    # has 18 pairs that never complete a turn in 4,096 positions); the wrong ones none.
    assert int(w.out_of_band_right.sum()) == 18 and not w.out_of_band_wrong.any()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: shift_changes([]), "shifts"),
        (lambda: shift_changes([0, -1]), "shifts"),
        (lambda: shift_changes([0.5]), "shifts"),
        (lambda: shift_changes([0], n_tokens=10**6), "n_tokens"),
        (lambda: width_mistake(128, 256, 4096, 8192), "d_head"),
    ],
)
def test_bad_arguments_are_refused_with_a_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()
