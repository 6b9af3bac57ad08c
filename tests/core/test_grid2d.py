"""Positions in 2-D: naive references, and the relative property along both axes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from positional_core.grid2d import grid_positions, patch_scores, rope_2d, sincos_2d
from positional_core.rope import random_query_key
from positional_core.sinusoidal import sinusoidal_encoding

H, W, D = 5, 7, 16


def _naive_sincos_2d(h: int, w: int, d: int, base: float) -> np.ndarray:
    """MAE's get_2d_sincos_pos_embed, written out: per patch, per dimension."""
    quarter = d // 4
    out = np.zeros((h * w, d))
    for r in range(h):
        for c in range(w):
            for half, value in ((0, c), (1, r)):  # column half first, as MAE's meshgrid
                for k in range(quarter):
                    omega = 1.0 / base ** (k / quarter)
                    out[r * w + c, half * 2 * quarter + k] = math.sin(value * omega)
                    out[r * w + c, half * 2 * quarter + quarter + k] = math.cos(value * omega)
    return out


def _turn(x: np.ndarray, position: int, base: float) -> np.ndarray:
    out = x.copy()
    for i in range(x.size // 2):
        angle = position * base ** (-2 * i / x.size)
        c, s = math.cos(angle), math.sin(angle)
        out[2 * i], out[2 * i + 1] = (
            c * x[2 * i] - s * x[2 * i + 1],
            s * x[2 * i] + c * x[2 * i + 1],
        )
    return out


@pytest.mark.parametrize("base", [10000.0, 100.0])
def test_sincos_2d_is_maes_code(base):
    assert np.allclose(sincos_2d(H, W, D, base), _naive_sincos_2d(H, W, D, base), atol=1e-12)


def test_rope_2d_turns_the_first_half_by_the_row_and_the_second_by_the_column():
    x = np.random.default_rng(1).standard_normal((H * W, D))
    turned = rope_2d(x, H, W, 100.0)
    for i, (r, c) in enumerate(grid_positions(H, W)):
        expected = np.concatenate(
            [_turn(x[i, : D // 2], r, 100.0), _turn(x[i, D // 2 :], c, 100.0)]
        )
        assert np.allclose(turned[i], expected, atol=1e-12)


def test_patch_scores_equal_naive_dot_products():
    code = _naive_sincos_2d(H, W, D, 10000.0)
    assert np.allclose(patch_scores("sincos_2d", (2, 3), H, W, D).ravel(), code @ code[2 * W + 3])
    q, k = random_query_key(D, 0)
    query = np.concatenate([_turn(q[: D // 2], 2, 1e4), _turn(q[D // 2 :], 3, 1e4)])
    for r, c in [(0, 0), (4, 6), (2, 4)]:
        key = np.concatenate([_turn(k[: D // 2], r, 1e4), _turn(k[D // 2 :], c, 1e4)])
        assert patch_scores("rope_2d", (2, 3), H, W, D)[r, c] == pytest.approx(query @ key)


@pytest.mark.parametrize("scheme", ["sincos_2d", "rope_2d"])
def test_2d_scores_depend_on_the_offset_in_both_axes_only(scheme):
    a = patch_scores(scheme, (1, 1), H, W, D)
    b = patch_scores(scheme, (3, 4), H, W, D)
    for dr in range(-1, 2):
        for dc in range(-1, 3):
            assert a[1 + dr, 1 + dc] == pytest.approx(b[3 + dr, 4 + dc], abs=1e-12)


def test_a_1d_code_in_reading_order_puts_the_patch_below_far_away():
    s = patch_scores("sincos_1d", (5, 5), 14, 14, 64)
    code = sinusoidal_encoding(196, 64)
    assert s[6, 5] == pytest.approx(code[5 * 14 + 5] @ code[6 * 14 + 5])  # 14 positions apart
    assert s[5, 6] > s[6, 5]  # the next in the row is nearer than the one just below
    # The end of one row and the start of the next are neighbours, however far apart.
    ends = patch_scores("sincos_1d", (3, 13), 14, 14, 64)
    assert ends[4, 0] == pytest.approx(ends[3, 12])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: grid_positions(0, 3), "height"),
        (lambda: grid_positions(3, 10**6), "width"),
        (lambda: sincos_2d(3, 3, 6), "multiple of 4"),
        (lambda: patch_scores("spiral", (0, 0)), "scheme"),
        (lambda: patch_scores("sincos_2d", (14, 0)), "patch row"),
    ],
)
def test_bad_arguments_are_refused_with_a_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()
