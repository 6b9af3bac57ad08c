"""positional_core.extension: trained angle bands, position interpolation, NTK base."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from positional_core._validation import MAX_POSITION
from positional_core.extension import (
    band_excess,
    drope_frequencies,
    interpolate_positions,
    never_complete_turn,
    ntk_scaled_base,
    out_of_band,
    trained_max_angle,
)
from positional_core.rope import rope_frequencies


def assert_rounds_to(actual, expected, decimals):
    """``actual`` equals ``expected`` to the rounding shown in REFERENCE_NUMBERS.md."""
    np.testing.assert_allclose(actual, expected, rtol=0, atol=0.5 * 10.0**-decimals + 1e-12)


THETA = rope_frequencies(128)  # head d = 128, base 10,000
L = 4096


class TestReferenceNumbers:
    def test_slowest_pair_in_training(self):
        assert_rounds_to(THETA[63] * 1e4, 1.15, 2)  # θ_63 = 1.15 × 10⁻⁴
        top = trained_max_angle(THETA, L)
        assert_rounds_to(top[63], 0.47, 2)  # 0.47 rad by position 4,096
        assert_rounds_to(top[63] / (2 * math.pi) * 100, 7.5, 1)  # 7.5 % of a turn

    def test_eighteen_pairs_never_complete_a_turn(self):
        mask = never_complete_turn(THETA, L)
        assert mask.shape == (64,)
        assert int(mask.sum()) == 18
        assert mask[46:].all() and not mask[:46].any()  # the 18 slowest

    def test_position_interpolation(self):
        assert interpolate_positions(32_000, 4096, 32_768) == 4000.0
        np.testing.assert_allclose(
            interpolate_positions(np.array([0, 8, 32_767]), 4096, 32_768), [0, 1, 4095.875]
        )

    def test_ntk_aware_base(self):
        new_base = ntk_scaled_base(10_000, 8, 128)
        assert round(new_base) == 82_685
        assert_rounds_to(8 ** (128 / 126), 8.27, 2)  # 8^1.016 ≈ 8.27
        assert_rounds_to(128 / 126, 1.016, 3)
        scaled = rope_frequencies(128, new_base)
        assert_rounds_to(THETA[63] * 1e4, 1.15, 2)
        assert_rounds_to(scaled[63] * 1e5, 1.44, 2)  # 1.44e−5
        assert THETA[63] / scaled[63] == pytest.approx(8.0, rel=1e-12)  # exactly 8× slower
        assert scaled[0] == THETA[0] == 1.0  # the fastest pair is unchanged
        assert round(ntk_scaled_base(10_000, 4, 128), -2) == 40_900  # s = 4 → ≈ 40,900

    def test_running_four_times_longer_unscaled(self):
        excess = band_excess(THETA, L, 16_384)
        assert_rounds_to(THETA[63] * 16_384, 1.89, 2)  # the slowest pair reaches 1.89 rad
        assert excess[63] == pytest.approx(4.0)  # four times its trained maximum
        np.testing.assert_allclose(excess, 4.0)

    def test_out_of_band_counts(self):
        # unscaled, 4,096 → 16,384: every pair that never completed a turn meets new angles
        assert int(out_of_band(THETA, L, 16_384).sum()) == 18
        # position interpolation θ/4 at 16,384: every pair ends exactly on its trained edge
        assert int(out_of_band(THETA, L, 16_384, THETA / 4).sum()) == 0
        assert int(out_of_band(THETA, L, 32_768, THETA / 8).sum()) == 0

    def test_ntk_at_eight_times_the_length(self):
        # NTK-aware s = 8 at L' = 8L: the slowest pair lands exactly on its trained edge
        # (θ'/θ = 1/8), but the other 17 slow pairs are slowed by less than 8×
        # (θ'_i/θ_i = 8^(−2i/(d−2))), so they still overshoot their band by 3 … 75 %:
        # the partial extrapolation of NTK scaling the YaRN paper describes.
        scaled = rope_frequencies(128, ntk_scaled_base(10_000, 8, 128))
        mask = out_of_band(THETA, L, 8 * L, scaled)
        excess = band_excess(THETA, L, 8 * L, scaled)
        assert not mask[63]
        assert excess[63] == pytest.approx(1.0, rel=1e-12)
        assert int(mask.sum()) == 17 and mask[46:63].all()
        assert_rounds_to(excess[46], 1.75, 2)
        assert excess[0] == pytest.approx(8.0)  # fast pairs keep their speed (and saw every angle)

    def test_llama3_and_code_llama_bases(self):
        # Llama 3 uses base 500,000, Code Llama 1,000,000: fewer pairs complete a turn
        counts = [
            int(never_complete_turn(rope_frequencies(128, b), L).sum()) for b in (1e4, 5e5, 1e6)
        ]
        assert counts[0] == 18 and counts[0] < counts[1] < counts[2]


class TestProperties:
    @given(
        d=st.sampled_from([4, 16, 64, 128, 256]),
        base=st.floats(2, 1e7),
        trained=st.integers(1, 100_000),
        factor=st.integers(1, 64),
    )
    def test_linear_scaling_never_leaves_the_band(self, d, base, trained, factor):
        theta = rope_frequencies(d, base)
        target = min(trained * factor, MAX_POSITION)
        assert not out_of_band(theta, trained, target, theta * trained / target).any()
        assert not out_of_band(theta, trained, trained).any()  # no extension, nothing new

    @given(base=st.floats(2, 1e6), scale=st.floats(1, 100), d=st.sampled_from([4, 64, 128]))
    def test_ntk_base_slows_the_slowest_pair_by_exactly_scale(self, base, scale, d):
        old = rope_frequencies(d, base)
        new = rope_frequencies(d, ntk_scaled_base(base, scale, d))
        assert old[-1] / new[-1] == pytest.approx(scale, rel=1e-9)
        assert new[0] == old[0]
        assert np.all(new <= old)

    @given(
        positions=st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=20),
        trained=st.integers(1, 10_000),
        factor=st.floats(1, 100),
    )
    def test_interpolation_is_linear(self, positions, trained, factor):
        new_len = min(int(trained * factor), MAX_POSITION)
        squeezed = interpolate_positions(np.array(positions), trained, new_len)
        np.testing.assert_allclose(squeezed, np.array(positions) * trained / new_len)


class TestBadInput:
    @pytest.mark.parametrize("inv_freq", [[], [[1.0]], [1.0, 0.0], [-1.0], [np.nan], "x"])
    def test_bad_inv_freq(self, inv_freq):
        for call in (
            lambda: trained_max_angle(inv_freq, 10),
            lambda: never_complete_turn(inv_freq, 10),
            lambda: band_excess(inv_freq, 10, 20),
            lambda: out_of_band(inv_freq, 10, 20),
        ):
            with pytest.raises(ValueError, match="inv_freq"):
                call()

    def test_bad_scaled_inv_freq(self):
        with pytest.raises(ValueError, match="scaled_inv_freq"):
            out_of_band([1.0, 0.1], 10, 20, [1.0])
        with pytest.raises(ValueError, match="scaled_inv_freq"):
            band_excess([1.0, 0.1], 10, 20, [1.0, -1e-9])
        with pytest.raises(ValueError, match="scaled_inv_freq"):
            band_excess([1.0, 0.1], 10, 20, [1.0, np.inf])

    @pytest.mark.parametrize("length", [0, -5, 2.5, MAX_POSITION + 1, "4096"])
    def test_bad_lengths(self, length):
        with pytest.raises(ValueError, match="trained_len"):
            trained_max_angle([1.0], length)
        with pytest.raises(ValueError, match="target_len"):
            out_of_band([1.0], 10, length)
        with pytest.raises(ValueError, match="trained_len"):
            interpolate_positions(1, length, 10)

    def test_interpolation_needs_a_longer_length(self):
        with pytest.raises(ValueError, match="new_len"):
            interpolate_positions(1, 4096, 2048)
        with pytest.raises(ValueError, match="positions"):
            interpolate_positions([1, np.nan], 4096, 8192)
        with pytest.raises(ValueError, match="positions"):
            interpolate_positions(MAX_POSITION * 2.0, 4096, 8192)

    @pytest.mark.parametrize(
        ("base", "scale", "d", "match"),
        [
            (1.0, 2, 128, "base"),
            (1e4, 0.5, 128, "scale"),
            (1e4, np.nan, 128, "scale"),
            (1e4, 1e7, 128, "scale"),
            (1e4, 2, 2, "d"),
            (1e4, 2, 127, "d"),
        ],
    )
    def test_bad_ntk_arguments(self, base, scale, d, match):
        with pytest.raises(ValueError, match=match):
            ntk_scaled_base(base, scale, d)


class TestDroPE:
    """DroPE removes the rotations: each pair's speed is 0, so no pair leaves its band."""

    @given(
        st.sampled_from([4, 16, 64, 128, 256]),
        st.sampled_from([10_000.0, 500_000.0]),
        st.integers(1, 2**16),
        st.integers(1, 2**20),
    )
    def test_no_pair_leaves_its_band_at_any_length(self, d, base, trained, target):
        theta = rope_frequencies(d, base)
        dropped = drope_frequencies(theta)
        assert dropped.shape == theta.shape and not dropped.any()
        assert not out_of_band(theta, trained, target, dropped).any()
        np.testing.assert_array_equal(band_excess(theta, trained, target, dropped), 0.0)

    def test_the_same_head_with_its_rotations_does_leave_its_band(self):
        theta = rope_frequencies(128)
        assert int(out_of_band(theta, 4096, 16384).sum()) == 18  # Llama 2's head, unscaled
        assert int(out_of_band(theta, 4096, 16384, drope_frequencies(theta)).sum()) == 0

    def test_a_zero_speed_is_a_scaled_speed_only(self):
        with pytest.raises(ValueError, match="inv_freq must hold frequencies > 0"):
            drope_frequencies([0.0, 1.0])
        with pytest.raises(ValueError, match="scaled_inv_freq must hold frequencies >= 0"):
            out_of_band([1.0, 0.5], 16, 64, [-0.1, 0.0])
