"""positional_core.sinusoidal: known values, identities, a naive reference, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from positional_core._validation import MAX_DIM, MAX_POSITION
from positional_core.sinusoidal import (
    clock_angles,
    code_similarity,
    shift_matrix,
    sinusoidal_code,
    sinusoidal_encoding,
    sinusoidal_frequencies,
)


def assert_rounds_to(actual, expected, decimals):
    """``actual`` equals ``expected`` to the rounding shown in REFERENCE_NUMBERS.md."""
    np.testing.assert_allclose(actual, expected, rtol=0, atol=0.5 * 10.0**-decimals + 1e-12)


def naive_encoding(n_positions, d, base=10000.0):
    """Deliberately naive: one math.sin / math.cos per cell, straight from the paper."""
    table = [[0.0] * d for _ in range(n_positions)]
    for pos in range(n_positions):
        for i in range(d // 2):
            omega = 1.0 / base ** (2 * i / d)
            table[pos][2 * i] = math.sin(pos * omega)
            table[pos][2 * i + 1] = math.cos(pos * omega)
    return np.array(table)


def naive_code(position, d, base=10000.0):
    code = []
    for i in range(d // 2):
        omega = 1.0 / base ** (2 * i / d)
        code += [math.sin(position * omega), math.cos(position * omega)]
    return np.array(code)


class TestReferenceNumbers:
    def test_frequencies_d4(self):
        np.testing.assert_allclose(sinusoidal_frequencies(4), [1.0, 0.01], rtol=1e-15)

    def test_pe1_d4(self):
        assert_rounds_to(sinusoidal_code(1, 4), [0.841, 0.540, 0.010, 1.000], 3)

    def test_pe3_and_pe4_d4(self):
        assert_rounds_to(sinusoidal_code(3, 4), [0.1411, -0.9900, 0.0300, 0.9996], 4)
        assert_rounds_to(sinusoidal_code(4, 4), [-0.7568, -0.6536, 0.0400, 0.9992], 4)

    def test_table_rows_are_the_codes(self):
        table = sinusoidal_encoding(5, 4)
        assert_rounds_to(table[3], [0.1411, -0.9900, 0.0300, 0.9996], 4)
        assert_rounds_to(table[4], [-0.7568, -0.6536, 0.0400, 0.9992], 4)

    def test_shift_by_one_d4(self):
        shifted = shift_matrix(1, 4) @ sinusoidal_code(1, 4)
        assert_rounds_to(shifted, [0.909, -0.416, 0.020, 1.000], 3)
        np.testing.assert_allclose(shifted, sinusoidal_code(2, 4), atol=1e-15)

    def test_shift_matrix_blocks(self):
        # M_k = blockdiag([[cos θ_i k, sin θ_i k], [−sin θ_i k, cos θ_i k]])
        m = shift_matrix(1, 4)
        c0, s0, c1, s1 = math.cos(1), math.sin(1), math.cos(0.01), math.sin(0.01)
        expected = np.array(
            [[c0, s0, 0, 0], [-s0, c0, 0, 0], [0, 0, c1, s1], [0, 0, -s1, c1]], dtype=float
        )
        np.testing.assert_allclose(m, expected, atol=1e-15)

    def test_dot_product_depends_on_offset_only(self):
        table = sinusoidal_encoding(300, 16)
        omega = sinusoidal_frequencies(16)
        for k in (0, 1, 5, 40):
            expected = np.cos(omega * k).sum()
            for t in (0, 7, 200):
                assert table[t] @ table[t + k] == pytest.approx(expected, abs=1e-12)

    def test_d64_pairs_on_unit_circle_and_first_step(self):
        table = sinusoidal_encoding(100, 64)
        np.testing.assert_allclose(table[:, 0::2] ** 2 + table[:, 1::2] ** 2, 1.0, atol=1e-15)
        assert_rounds_to(abs(table[0, 0] - table[1, 0]), 0.841, 3)


class TestAgainstNaiveLoop:
    @pytest.mark.parametrize("d", [2, 4, 6, 16, 64])
    @pytest.mark.parametrize("base", [2.0, 100.0, 10_000.0, 1e6])
    def test_table(self, d, base):
        np.testing.assert_allclose(
            sinusoidal_encoding(37, d, base), naive_encoding(37, d, base), rtol=0, atol=1e-12
        )

    @pytest.mark.parametrize(("n", "d", "base"), [(1000, 64, 10_000.0), (3000, 8, 50.0)])
    def test_long_table(self, n, d, base):
        # many positions: the cos / sin table is built from two small tables; same numbers
        np.testing.assert_allclose(
            sinusoidal_encoding(n, d, base), naive_encoding(n, d, base), rtol=0, atol=1e-11
        )

    @pytest.mark.parametrize(("n", "step"), [(37, 1), (37, 5), (37, 36), (37, 37), (3001, 8)])
    @pytest.mark.parametrize("start", [0, 1, 36])
    def test_every_step_th_row_from_start(self, n, step, start):
        # row r is the code of position start + r · step; the last is the last such < n
        table = sinusoidal_encoding(n, 16, 10_000.0, step=step, start=start)
        assert table.shape == (-(-(n - start) // step), 16)
        np.testing.assert_allclose(table, naive_encoding(n, 16)[start::step], rtol=0, atol=1e-11)

    @pytest.mark.parametrize("position", [0, 0.5, 3, 17.25, 1000, 123_456.75, -8])
    @pytest.mark.parametrize("d", [2, 8, 64])
    def test_code(self, position, d):
        np.testing.assert_allclose(
            sinusoidal_code(position, d), naive_code(position, d), rtol=0, atol=1e-10
        )


class TestProperties:
    @given(
        t=st.floats(-1e4, 1e4),
        k=st.floats(-1e4, 1e4),
        d=st.sampled_from([2, 4, 8, 32, 128]),
        base=st.floats(1.5, 1e6),
    )
    def test_shift_identity(self, t, k, d, base):
        shifted = shift_matrix(k, d, base) @ sinusoidal_code(t, d, base)
        np.testing.assert_allclose(shifted, sinusoidal_code(t + k, d, base), atol=1e-8)

    @given(k=st.floats(-1e3, 1e3), d=st.sampled_from([2, 4, 16, 64]))
    def test_shift_matrix_is_orthogonal_and_composes(self, k, d):
        m = shift_matrix(k, d)
        np.testing.assert_allclose(m @ m.T, np.eye(d), atol=1e-12)
        np.testing.assert_allclose(shift_matrix(-k, d) @ m, np.eye(d), atol=1e-12)

    def test_shift_zero_is_identity(self):
        np.testing.assert_array_equal(shift_matrix(0, 8), np.eye(8))

    @given(t=st.integers(0, 200), d=st.sampled_from([2, 4, 16, 64]), base=st.floats(2, 1e5))
    def test_code_similarity_equals_table_products(self, t, d, base):
        table = sinusoidal_encoding(256, d, base)
        np.testing.assert_allclose(code_similarity(t, 256, d, base), table @ table[t], atol=1e-9)

    @given(t=st.floats(0, 1e3), d=st.sampled_from([2, 8, 32]))
    def test_code_similarity_keeps_its_shape(self, t, d):
        # the bump moves with t: similarity(t + 5)[s + 5] == similarity(t)[s]
        here = code_similarity(t, 100, d)
        moved = code_similarity(t + 5, 105, d)
        np.testing.assert_allclose(moved[5:], here, atol=1e-9)
        assert code_similarity(t, 1, d).shape == (1,)

    def test_code_similarity_peak(self):
        sim = code_similarity(10, 64, 32)
        assert int(np.argmax(sim)) == 10
        assert sim[10] == pytest.approx(16.0)

    def test_clock_angles(self):
        np.testing.assert_allclose(clock_angles(3, 4), [3.0, 0.03])
        np.testing.assert_allclose(clock_angles(2.5, 8), 2.5 * sinusoidal_frequencies(8))
        code = sinusoidal_code(7, 8)
        angles = clock_angles(7, 8)
        np.testing.assert_allclose(code[0::2], np.sin(angles))
        np.testing.assert_allclose(code[1::2], np.cos(angles))

    def test_clock_angles_of_several_positions_are_one_row_each(self):
        positions = np.array([0, 7, 2.5, 4095])
        angles = clock_angles(positions, 16, 100)
        assert angles.shape == (4, 8)
        for row, t in zip(angles, positions, strict=True):
            np.testing.assert_array_equal(row, clock_angles(t, 16, 100))
        assert clock_angles([], 4).shape == (0, 2)
        with pytest.raises(ValueError, match="position"):
            clock_angles([[1, 2]], 4)
        with pytest.raises(ValueError, match="position"):
            clock_angles([1, float("nan")], 4)

    def test_fractional_positions_lie_between(self):
        assert sinusoidal_code(0.5, 2)[0] == pytest.approx(math.sin(0.5))

    def test_shapes_and_dtype(self):
        assert sinusoidal_encoding(1, 2).shape == (1, 2)
        assert sinusoidal_encoding(8192, 1024).shape == (8192, 1024)
        assert sinusoidal_encoding(3, 6).dtype == np.float64
        assert sinusoidal_frequencies(MAX_DIM).shape == (MAX_DIM // 2,)


class TestBadInput:
    @pytest.mark.parametrize("d", [0, 1, 3, -2, 2.5, MAX_DIM + 2, "4", None, True])
    def test_bad_d(self, d):
        for call in (
            lambda: sinusoidal_frequencies(d),
            lambda: sinusoidal_encoding(4, d),
            lambda: sinusoidal_code(1, d),
            lambda: shift_matrix(1, d),
            lambda: code_similarity(0, 4, d),
            lambda: clock_angles(0, d),
        ):
            with pytest.raises(ValueError, match=r"^d must"):
                call()

    @pytest.mark.parametrize("base", [1.0, 0.5, 0, -10, float("nan"), float("inf"), "1e4"])
    def test_bad_base(self, base):
        with pytest.raises(ValueError, match="base"):
            sinusoidal_encoding(4, 4, base)
        with pytest.raises(ValueError, match="base"):
            sinusoidal_code(1, 4, base)

    @pytest.mark.parametrize("n", [0, -1, 2.5, MAX_POSITION + 1, "10"])
    def test_bad_n_positions(self, n):
        with pytest.raises(ValueError, match="n_positions"):
            sinusoidal_encoding(n, 4)
        with pytest.raises(ValueError, match="n_positions"):
            code_similarity(0, n, 4)

    @pytest.mark.parametrize("step", [0, -2, 1.5, 11, "2"])
    def test_bad_step(self, step):
        with pytest.raises(ValueError, match="step"):
            sinusoidal_encoding(10, 4, step=step)

    @pytest.mark.parametrize("start", [-1, 10, 2.5, "0"])
    def test_bad_start(self, start):
        with pytest.raises(ValueError, match="start"):
            sinusoidal_encoding(10, 4, start=start)

    def test_table_size_cap(self):
        with pytest.raises(ValueError, match="limit"):
            sinusoidal_encoding(MAX_POSITION, 1024)
        with pytest.raises(ValueError, match="limit"):
            code_similarity(0, MAX_POSITION, 1024)
        with pytest.raises(ValueError, match="limit"):
            shift_matrix(1, MAX_DIM)

    @pytest.mark.parametrize("position", [float("nan"), float("inf"), -float("inf"), 2.0**25, "3"])
    def test_bad_position(self, position):
        with pytest.raises(ValueError, match="position"):
            sinusoidal_code(position, 4)
        with pytest.raises(ValueError, match="position"):
            clock_angles(position, 4)
        with pytest.raises(ValueError, match=r"^k must"):
            shift_matrix(position, 4)
        with pytest.raises(ValueError, match=r"^t must"):
            code_similarity(position, 4, 4)
