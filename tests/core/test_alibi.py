"""positional_core.alibi: slopes equal to the reference code, bias forms, bounded rows."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from positional_core._validation import MAX_HEADS, MAX_POSITION
from positional_core.alibi import (
    alibi_bias,
    alibi_bias_row,
    alibi_distance_shift,
    alibi_half_lives,
    alibi_head_bias,
    alibi_slope_sources,
    alibi_slopes,
    alibi_weight_factors,
)
from positional_core.attention import softmax


def reference_get_slopes(n):
    """Verbatim from the ALiBi reference code (ofirpress/attention_with_linear_biases)."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    else:
        closest_power_of_2 = 2 ** math.floor(math.log2(n))
        return (
            get_slopes_power_of_2(closest_power_of_2)
            + reference_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
        )


def assert_rounds_to(actual, expected, decimals):
    np.testing.assert_allclose(actual, expected, rtol=0, atol=0.5 * 10.0**-decimals + 1e-12)


class TestReferenceNumbers:
    def test_eight_heads(self):
        np.testing.assert_array_equal(alibi_slopes(8), [2.0**-h for h in range(1, 9)])

    @pytest.mark.parametrize("n_heads", [1, 2, 4, 16, 32, 64])
    def test_powers_of_two(self, n_heads):
        expected = [2 ** (-8 * h / n_heads) for h in range(1, n_heads + 1)]
        np.testing.assert_allclose(alibi_slopes(n_heads), expected, rtol=1e-14)

    @pytest.mark.parametrize("n_heads", [*range(1, 130), 255, 257, 1000, MAX_HEADS])
    def test_identical_to_reference_code(self, n_heads):
        np.testing.assert_array_equal(alibi_slopes(n_heads), reference_get_slopes(n_heads))

    def test_twelve_heads_not_monotonic(self):
        slopes = alibi_slopes(12)
        np.testing.assert_array_equal(slopes[:8], alibi_slopes(8))
        np.testing.assert_array_equal(slopes[8:], alibi_slopes(16)[0::2][:4])
        assert not np.all(np.diff(slopes) < 0)

    def test_half_lives(self):
        assert_rounds_to(alibi_half_lives([1 / 2])[0], 1.4, 1)
        assert_rounds_to(alibi_half_lives([1 / 256])[0], 177, 0)
        np.testing.assert_allclose(alibi_half_lives(alibi_slopes(8)), math.log(2) / alibi_slopes(8))

    def test_key_100_back(self):
        slopes = alibi_slopes(8)
        row_head1 = alibi_bias_row(slopes[0], 100, 101)
        row_head8 = alibi_bias_row(slopes[7], 100, 101)
        assert row_head1[0] == -50.0
        assert f"{math.exp(row_head1[0]):.0e}" == "2e-22"  # weight factor e^−50 ≈ 2 × 10⁻²²
        assert_rounds_to(row_head8[0], -0.39, 2)
        assert_rounds_to(math.exp(row_head8[0]), 0.68, 2)

    def test_both_forms_give_identical_weights(self):
        column = softmax(alibi_bias(8, 50, form="column"))
        np.testing.assert_allclose(column, softmax(alibi_bias(8, 50)), atol=1e-15)


class TestSources:
    def test_power_of_two(self):
        assert alibi_slope_sources(4) == [(4, 1), (4, 2), (4, 3), (4, 4)]

    def test_twelve(self):
        assert alibi_slope_sources(12) == [(8, h) for h in range(1, 9)] + [
            (16, 1),
            (16, 3),
            (16, 5),
            (16, 7),
        ]

    @pytest.mark.parametrize("n_heads", [1, 3, 5, 6, 7, 12, 20, 24, 100])
    def test_sources_reproduce_slopes(self, n_heads):
        sources = alibi_slope_sources(n_heads)
        assert len(sources) == n_heads
        rebuilt = [2 ** (-8 * h / p) for p, h in sources]
        np.testing.assert_allclose(alibi_slopes(n_heads), rebuilt, rtol=1e-14)


class TestBias:
    def test_distance_form_causal(self):
        bias = alibi_head_bias(0.5, 4)
        expected = np.array(
            [
                [0, -np.inf, -np.inf, -np.inf],
                [-0.5, 0, -np.inf, -np.inf],
                [-1.0, -0.5, 0, -np.inf],
                [-1.5, -1.0, -0.5, 0],
            ]
        )
        np.testing.assert_array_equal(bias, expected)
        assert not np.signbit(np.diag(bias)).any()  # +0.0 on the diagonal, not −0.0

    def test_distance_form_symmetric(self):
        bias = alibi_head_bias(0.25, 5, causal=False)
        np.testing.assert_array_equal(bias, bias.T)
        assert bias[4, 0] == bias[0, 4] == -1.0
        assert np.isfinite(bias).all()

    def test_column_form(self):
        bias = alibi_head_bias(0.5, 3, form="column")
        np.testing.assert_array_equal(bias[2], [0.0, 0.5, 1.0])
        assert np.isneginf(bias[0, 1:]).all()

    def test_full_tensor_matches_heads_and_rows(self):
        slopes = alibi_slopes(6)
        for causal in (True, False):
            full = alibi_bias(6, 9, causal=causal)
            assert full.shape == (6, 9, 9)
            for h, slope in enumerate(slopes):
                head = alibi_head_bias(slope, 9, causal=causal)
                np.testing.assert_array_equal(full[h], head)
                for query in (0, 4, 8):
                    row = alibi_bias_row(slope, query, 9, causal=causal)
                    np.testing.assert_array_equal(row, head[query])
                    assert not np.signbit(row[query])
                    row = alibi_bias_row(slope, query, 9, form="column")
                    np.testing.assert_array_equal(
                        row, alibi_head_bias(slope, 9, form="column")[query]
                    )
        np.testing.assert_array_equal(
            alibi_bias(6, 9, form="column")[2], alibi_head_bias(slopes[2], 9, form="column")
        )

    def test_long_row_is_bounded(self):
        row = alibi_bias_row(1 / 256, 131_071, 131_072)
        assert row.shape == (131_072,)
        assert row[-1] == 0.0 and row[0] == pytest.approx(-131_071 / 256)
        longest = alibi_bias_row(1 / 2, 5, MAX_POSITION)
        assert longest.shape == (MAX_POSITION,)
        assert np.isneginf(longest[6:]).all()

    @given(
        n_heads=st.integers(1, 24),
        seq_len=st.integers(1, 40),
        seed=st.integers(0, 2**32 - 1),
        scale=st.floats(0, 20),
    )
    def test_softmax_ignores_the_per_row_constant(self, n_heads, seq_len, seed, scale):
        # +m·j and −m·(i − j) differ by m·i, constant along row i: identical weights,
        # with any content scores added.
        scores = scale * np.random.default_rng(seed).normal(size=(n_heads, seq_len, seq_len))
        distance = softmax(scores + alibi_bias(n_heads, seq_len, form="distance"))
        column = softmax(scores + alibi_bias(n_heads, seq_len, form="column"))
        np.testing.assert_allclose(column, distance, atol=1e-12)
        np.testing.assert_allclose(distance.sum(axis=-1), 1.0)

    @given(slope=st.floats(0, 10), query=st.integers(0, 999), shift=st.floats(-50, 50))
    def test_row_weights_equal_for_both_forms(self, slope, query, shift):
        distance = softmax(alibi_bias_row(slope, query, 1000))
        column = softmax(alibi_bias_row(slope, query, 1000, form="column") + shift)
        np.testing.assert_allclose(column, distance, atol=1e-12)


class TestBadInput:
    @pytest.mark.parametrize("n_heads", [0, -1, 2.5, MAX_HEADS + 1, "8", None])
    def test_bad_heads(self, n_heads):
        with pytest.raises(ValueError, match="n_heads"):
            alibi_slopes(n_heads)
        with pytest.raises(ValueError, match="n_heads"):
            alibi_slope_sources(n_heads)
        with pytest.raises(ValueError, match="n_heads"):
            alibi_bias(n_heads, 4)

    @pytest.mark.parametrize("seq_len", [0, -3, 1.5, "10"])
    def test_bad_seq_len(self, seq_len):
        with pytest.raises(ValueError, match="seq_len"):
            alibi_bias(8, seq_len)
        with pytest.raises(ValueError, match="seq_len"):
            alibi_head_bias(0.5, seq_len)
        with pytest.raises(ValueError, match="seq_len"):
            alibi_bias_row(0.5, 0, seq_len)

    def test_size_caps(self):
        with pytest.raises(ValueError, match="limit"):
            alibi_bias(128, 1024)
        with pytest.raises(ValueError, match="limit"):
            alibi_head_bias(0.5, 131_072)
        with pytest.raises(ValueError, match="seq_len"):
            alibi_bias_row(0.5, 0, MAX_POSITION + 1)

    @pytest.mark.parametrize("slope", [-0.1, np.nan, np.inf, 1e7, "0.5"])
    def test_bad_slope(self, slope):
        with pytest.raises(ValueError, match="slope"):
            alibi_head_bias(slope, 4)
        with pytest.raises(ValueError, match="slope"):
            alibi_bias_row(slope, 0, 4)

    @pytest.mark.parametrize("query", [-1, 4, 2.5])
    def test_bad_query(self, query):
        with pytest.raises(ValueError, match="query"):
            alibi_bias_row(0.5, query, 4)

    def test_bad_form_and_causal(self):
        with pytest.raises(ValueError, match="form"):
            alibi_bias(8, 4, form="row")
        with pytest.raises(ValueError, match="causal=True"):
            alibi_bias(8, 4, causal=False, form="column")
        with pytest.raises(ValueError, match="causal=True"):
            alibi_bias_row(0.5, 1, 4, causal=False, form="column")
        with pytest.raises(ValueError, match="causal"):
            alibi_head_bias(0.5, 4, causal="yes")

    @pytest.mark.parametrize("slopes", [[0.0], [-1.0], [], [np.nan], "x"])
    def test_bad_half_lives(self, slopes):
        with pytest.raises(ValueError, match="slopes"):
            alibi_half_lives(slopes)


class TestWeightFactors:
    def test_reference_numbers(self):
        # A key 100 positions back: head 1 of 8 (m = 1/2) and head 8 (m = 1/256).
        factors = alibi_weight_factors(alibi_slopes(8)[[0, 7]], [100])
        assert factors[0, 0] == pytest.approx(math.exp(-50))
        assert_rounds_to(factors[1, 0], 0.68, 2)

    def test_shape_and_half_life(self):
        slopes = alibi_slopes(12)
        factors = alibi_weight_factors(slopes, alibi_half_lives(slopes))
        assert factors.shape == (12, 12)
        np.testing.assert_allclose(np.diag(factors), 0.5, rtol=1e-14)
        np.testing.assert_array_equal(alibi_weight_factors(slopes, [0])[:, 0], 1.0)

    def test_equals_softmax_ratio_of_a_bias_row(self):
        row = alibi_bias_row(0.25, 9, 10)
        weights = softmax(row)
        factors = alibi_weight_factors([0.25], np.arange(10))[0]
        np.testing.assert_allclose(weights[::-1] / weights[9], factors, rtol=1e-12)

    @pytest.mark.parametrize(
        ("slopes", "distances", "match"),
        [
            ([], [1], "^slopes"),
            ([[0.5]], [1], "^slopes"),
            ([-0.5], [1], "^slopes"),
            ([np.nan], [1], "^slopes"),
            ([0.5], [], "^distances"),
            ([0.5], [-1], "^distances"),
            ([0.5], [MAX_POSITION + 1], "^distances"),
        ],
    )
    def test_bad_input(self, slopes, distances, match):
        with pytest.raises(ValueError, match=match):
            alibi_weight_factors(slopes, distances)

    def test_size_cap(self):
        with pytest.raises(ValueError):
            alibi_weight_factors(np.ones(MAX_HEADS), np.arange(2**17))


class TestDistanceShift:
    """Train short, test long: a longer input changes no bias at a trained distance."""

    def test_zero_for_every_head_and_length(self):
        slopes = alibi_slopes(12)
        for trained, target in ((1, 1), (128, 2**20), (4096, 16384), (4096, 4096)):
            np.testing.assert_array_equal(alibi_distance_shift(slopes, trained, target), 0.0)

    def test_naive_reference(self):
        # Bias of the key Δ back from the last query, as −m·Δ written out, per length.
        slope, trained, target = 0.25, 7, 19
        short = [-slope * (trained - 1 - j) for j in range(trained)][::-1]
        long = [-slope * (target - 1 - j) for j in range(target)][::-1][:trained]
        expected = max(abs(a - b) for a, b in zip(short, long, strict=True))
        assert alibi_distance_shift([slope], trained, target)[0] == expected == 0

    @pytest.mark.parametrize(
        ("slopes", "trained", "target", "match"),
        [
            ([], 4, 8, "^slopes"),
            ([[0.5]], 4, 8, "^slopes"),
            ([np.inf], 4, 8, "^slopes"),
            ([0.5], 0, 8, "^trained_len"),
            ([0.5], 8, 4, "^target_len"),
            ([0.5], 4, MAX_POSITION + 1, "^target_len"),
        ],
    )
    def test_bad_input(self, slopes, trained, target, match):
        with pytest.raises(ValueError, match=match):
            alibi_distance_shift(slopes, trained, target)
