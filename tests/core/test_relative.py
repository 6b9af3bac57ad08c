"""Tests of positional_core.relative: T5 buckets, Shaw's clipping, NoPE.

Golden T5 buckets come from transformers' own ``T5Attention._relative_position_bucket``
(scripts/make_golden_t5.py); the suite itself never needs torch.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from positional_core._validation import MAX_POSITION
from positional_core.relative import (
    MAX_BUCKETS,
    T5BucketRegions,
    causal_weight,
    nope_causal_weights,
    nope_row_weight,
    shaw_clipped_distance,
    shaw_relative_index,
    t5_bias_matrix,
    t5_bucket_regions,
    t5_new_buckets,
    t5_random_bucket_biases,
    t5_relative_bucket,
)

GOLDEN = json.loads((Path(__file__).parent / "data" / "t5_buckets_golden.json").read_text())
SETTING_KEYS = ("bidirectional", "num_buckets", "max_distance")


def _setting(case: dict) -> dict:
    return {key: case[key] for key in SETTING_KEYS}


def _case_id(case: dict) -> str:
    mode = "bidirectional" if case["bidirectional"] else "causal"
    return f"{case['num_buckets']}-{case['max_distance']}-{mode}"


@st.composite
def t5_settings(draw, bidirectional: bool | None = None) -> dict:
    """Any valid (bidirectional, num_buckets, max_distance); fix the mode if given."""
    if bidirectional is None:
        bidirectional = draw(st.booleans())
    if bidirectional:
        num_buckets = 2 * draw(st.integers(2, 256))
        per_direction = num_buckets // 2
    else:
        num_buckets = draw(st.integers(2, 512))
        per_direction = num_buckets
    max_exact = per_direction // 2
    max_distance = draw(st.integers(max_exact + 1, max_exact + 5_000))
    return {
        "bidirectional": bidirectional,
        "num_buckets": num_buckets,
        "max_distance": max_distance,
    }


def _per_direction(setting: dict) -> int:
    return setting["num_buckets"] // 2 if setting["bidirectional"] else setting["num_buckets"]


# --------------------------------------------------------------------------- T5


class TestT5Golden:
    def test_golden_covers_the_issue(self):
        settings = {
            (c["num_buckets"], c["max_distance"], c["bidirectional"]) for c in GOLDEN["cases"]
        }
        assert {(32, 128, True), (32, 128, False), (16, 64, True), (16, 64, False)} <= settings
        assert GOLDEN["offsets"] == list(range(-300, 301))
        assert GOLDEN["transformers_version"] and GOLDEN["torch_version"]

    def test_t5_base_setting_is_from_its_config(self):
        config = GOLDEN["t5_base_config"]
        assert (
            config["relative_attention_num_buckets"],
            config["relative_attention_max_distance"],
        ) == (
            32,
            128,
        )

    @pytest.mark.parametrize("case", GOLDEN["cases"], ids=_case_id)
    def test_buckets_equal_transformers(self, case):
        got = t5_relative_bucket(np.array(GOLDEN["offsets"]), **_setting(case))
        np.testing.assert_array_equal(got, case["buckets"])

    @pytest.mark.parametrize("case", GOLDEN["far_cases"], ids=_case_id)
    def test_far_offsets_equal_transformers(self, case):
        # Includes −131072 with (32, 2**20), causal, where a plain float32 np.log
        # would give a bucket one too high.
        got = t5_relative_bucket(GOLDEN["far_offsets"], **_setting(case))
        np.testing.assert_array_equal(got, case["buckets"])

    @pytest.mark.parametrize("case", GOLDEN["cases"], ids=_case_id)
    def test_last_bucket_start_equals_transformers(self, case):
        regions = t5_bucket_regions(
            case["num_buckets"], case["max_distance"], case["bidirectional"]
        )
        assert regions.last_bucket_start == case["last_bucket_start"]

    @pytest.mark.parametrize("case", GOLDEN["cases"], ids=_case_id)
    def test_bias_matrix_with_identity_biases_shows_golden_buckets(self, case):
        # With bias = bucket number, entry [i, j] is the golden bucket of j − i.
        setting = _setting(case)
        matrix = t5_bias_matrix(np.arange(float(case["num_buckets"])), 40, 300, **setting)
        lookup = dict(zip(GOLDEN["offsets"], case["buckets"], strict=True))
        expected = [[lookup[j - i] for j in range(300)] for i in range(40)]
        np.testing.assert_array_equal(matrix, expected)


class TestT5RelativeBucket:
    def test_known_values_t5_base(self):
        # The page's quick check: offset +200 in T5-base's encoder is bucket 31.
        assert int(t5_relative_bucket(200)) == 31
        assert int(t5_relative_bucket(-200)) == 15
        assert int(t5_relative_bucket(-200, bidirectional=False)) == 31
        np.testing.assert_array_equal(t5_relative_bucket(np.arange(8)), [0, *range(17, 24)])

    def test_float32_truncation_at_exact_log_values(self):
        # log(16/8) / log(128/8) · 8 is exactly 2 in real numbers; the float32
        # result must not fall below and truncate to 1.
        assert int(t5_relative_bucket(-16)) == 10
        assert int(t5_relative_bucket(-32)) == 12

    def test_shape_and_dtype(self):
        offsets = np.arange(-6, 6).reshape(3, 4)
        got = t5_relative_bucket(offsets)
        assert got.shape == (3, 4)
        assert got.dtype == np.int64
        assert t5_relative_bucket(5).shape == ()
        assert t5_relative_bucket([]).shape == (0,)

    def test_accepts_whole_floats_and_unsigned(self):
        np.testing.assert_array_equal(
            t5_relative_bucket([-3.0, 4.0]), t5_relative_bucket(np.array([-3, 4]))
        )
        np.testing.assert_array_equal(
            t5_relative_bucket(np.array([3, 300], dtype=np.uint16)), t5_relative_bucket([3, 300])
        )

    def test_all_t5_base_buckets_used(self):
        causal = t5_relative_bucket(np.arange(-300, 301), bidirectional=False)
        assert set(causal.tolist()) == set(range(32))
        # Bidirectional: bucket 16 would be "distance 0 after the query", which no
        # offset is (offset 0 is bucket 0), so transformers never uses it either.
        encoder = t5_relative_bucket(np.arange(-300, 301), bidirectional=True)
        assert set(encoder.tolist()) == set(range(32)) - {16}

    @given(t5_settings(), st.lists(st.integers(-MAX_POSITION, MAX_POSITION), max_size=50))
    def test_range(self, setting, offsets):
        buckets = t5_relative_bucket(np.array(offsets, dtype=np.int64), **setting)
        assert np.all(buckets >= 0)
        assert np.all(buckets < setting["num_buckets"])
        per_direction = _per_direction(setting)
        offsets = np.array(offsets, dtype=np.int64)
        if setting["bidirectional"]:
            # Keys after the query use the upper half, the rest the lower half.
            assert np.all((buckets >= per_direction) == (offsets > 0))

    @given(t5_settings())
    def test_monotone_in_distance_per_direction(self, setting):
        distances = np.arange(0, 2 * setting["max_distance"] + 10)
        past = t5_relative_bucket(-distances, **setting)
        assert np.all(np.diff(past) >= 0)
        if setting["bidirectional"]:
            future = t5_relative_bucket(distances[1:], **setting)
            assert np.all(np.diff(future) >= 0)

    @given(t5_settings())
    def test_exact_region_is_one_bucket_per_distance(self, setting):
        per_direction = _per_direction(setting)
        distances = np.arange(per_direction // 2)
        np.testing.assert_array_equal(t5_relative_bucket(-distances, **setting), distances)
        if setting["bidirectional"]:
            np.testing.assert_array_equal(
                t5_relative_bucket(distances[1:], **setting), per_direction + distances[1:]
            )

    @given(t5_settings(), st.integers(0, 10**6))
    def test_past_max_distance_shares_the_last_bucket(self, setting, beyond):
        per_direction = _per_direction(setting)
        distance = min(setting["max_distance"] + beyond, MAX_POSITION)
        assert int(t5_relative_bucket(-distance, **setting)) == per_direction - 1
        if setting["bidirectional"]:
            assert int(t5_relative_bucket(distance, **setting)) == 2 * per_direction - 1

    @given(t5_settings(bidirectional=False), st.lists(st.integers(0, MAX_POSITION), min_size=1))
    def test_causal_sends_the_future_to_bucket_zero(self, setting, offsets):
        buckets = t5_relative_bucket(np.array(offsets), **setting)
        assert np.all(buckets == 0)

    @given(t5_settings(bidirectional=True))
    def test_bidirectional_is_symmetric_but_for_the_half(self, setting):
        distances = np.arange(1, setting["max_distance"] + 20)
        np.testing.assert_array_equal(
            t5_relative_bucket(distances, **setting),
            t5_relative_bucket(-distances, **setting) + setting["num_buckets"] // 2,
        )


class TestT5BucketRegions:
    def test_t5_base(self):
        assert t5_bucket_regions() == T5BucketRegions(16, 8, 91, 128)
        assert t5_bucket_regions(32, 128, False) == T5BucketRegions(32, 16, 113, 128)

    @given(t5_settings())
    def test_boundaries_agree_with_the_buckets(self, setting):
        regions = t5_bucket_regions(
            setting["num_buckets"], setting["max_distance"], setting["bidirectional"]
        )
        per_direction = _per_direction(setting)
        assert regions.buckets_per_direction == per_direction
        assert regions.exact_end == per_direction // 2
        assert regions.exact_end <= regions.last_bucket_start <= regions.max_distance
        assert regions.max_distance == setting["max_distance"]
        last = per_direction - 1
        start = regions.last_bucket_start
        assert int(t5_relative_bucket(-start, **setting)) == last
        assert int(t5_relative_bucket(-(start - 1), **setting)) < last


class TestT5NewBuckets:
    def test_t5_base_hand_worked(self):
        # Trained on 64 tokens (distances ≤ 63, bucket 13 / 29 at most), run on
        # 16,384: the two farthest buckets of each direction are new.
        np.testing.assert_array_equal(t5_new_buckets(64, 16_384), [14, 15, 30, 31])
        # Once training covers distance 91 (the last bucket's start), i.e. from
        # 92 tokens on, nothing is new at any length.
        assert t5_new_buckets(4_096, 16_384).size == 0
        assert t5_new_buckets(92, 2**24).size == 0
        np.testing.assert_array_equal(t5_new_buckets(91, 92), [15, 31])
        assert t5_new_buckets(16_384, 16_384).size == 0
        assert t5_new_buckets(16_384, 64).size == 0

    def test_causal(self):
        # Causal T5-base: 32 buckets for the past, the last from distance 113.
        assert t5_new_buckets(114, 10**6, bidirectional=False).size == 0
        np.testing.assert_array_equal(t5_new_buckets(113, 114, bidirectional=False), [31])
        new = t5_new_buckets(64, 16_384, bidirectional=False)
        assert new.size and new.min() > 16 and new.max() == 31

    @given(
        t5_settings(),
        st.integers(1, 600),
        st.integers(1, 600),
    )
    def test_equals_the_buckets_of_every_offset(self, setting, trained, target):
        def seen(n):
            return set(t5_relative_bucket(np.arange(-(n - 1), n), **setting).tolist())

        expected = sorted(seen(target) - seen(trained))
        got = t5_new_buckets(trained, target, **setting)
        assert got.dtype == np.int64
        assert got.tolist() == expected

    @given(t5_settings(), st.integers(1, 10**6))
    def test_nothing_new_once_the_last_bucket_is_reached(self, setting, extra):
        regions = t5_bucket_regions(
            setting["num_buckets"], setting["max_distance"], setting["bidirectional"]
        )
        start = regions.last_bucket_start + 1  # length whose farthest distance is the start
        assert t5_new_buckets(start, start + extra, **setting).size == 0

    @pytest.mark.parametrize(
        ("args", "kwargs", "match"),
        [
            ((0, 10), {}, "trained_len"),
            ((10, MAX_POSITION + 1), {}, "target_len"),
            ((10, 20), {"num_buckets": 31}, "num_buckets"),
            ((10, 20), {"max_distance": 4}, "max_distance"),
            ((10, 20), {"bidirectional": "yes"}, "bidirectional"),
        ],
    )
    def test_bad_input(self, args, kwargs, match):
        with pytest.raises(ValueError, match=match):
            t5_new_buckets(*args, **kwargs)


class TestT5BiasMatrix:
    def naive(self, biases, query_len, key_len, **setting):
        out = np.empty((query_len, key_len))
        for i in range(query_len):
            for j in range(key_len):
                out[i, j] = biases[int(t5_relative_bucket(j - i, **setting))]
        return out

    @given(t5_settings(), st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32))
    def test_equals_naive_loop(self, setting, query_len, key_len, seed):
        biases = t5_random_bucket_biases(setting["num_buckets"], 1, seed)[:, 0]
        np.testing.assert_array_equal(
            t5_bias_matrix(biases, query_len, key_len, **setting),
            self.naive(biases, query_len, key_len, **setting),
        )

    def test_depends_on_offset_only(self):
        matrix = t5_bias_matrix(t5_random_bucket_biases(32, 1, 3)[:, 0], 50, 60)
        for offset in range(-49, 60):
            assert np.ptp(np.diagonal(matrix, offset)) == 0

    def test_heads_layout(self):
        table = t5_random_bucket_biases(32, 12, seed=1)
        stacked = t5_bias_matrix(table, 5, 7)
        assert stacked.shape == (12, 5, 7)
        for head in range(12):
            np.testing.assert_array_equal(stacked[head], t5_bias_matrix(table[:, head], 5, 7))

    def test_num_buckets_defaults_to_the_table(self):
        biases = np.linspace(-1, 1, 16)
        np.testing.assert_array_equal(
            t5_bias_matrix(biases, 4, 4, max_distance=64),
            t5_bias_matrix(biases, 4, 4, num_buckets=16, max_distance=64),
        )


class TestT5RandomBucketBiases:
    def test_seeded(self):
        a = t5_random_bucket_biases(32, 12, seed=5)
        assert a.shape == (32, 12)
        assert a.dtype == np.float64
        np.testing.assert_array_equal(a, t5_random_bucket_biases(32, 12, seed=5))
        assert not np.array_equal(a, t5_random_bucket_biases(32, 12, seed=6))

    def test_generator(self):
        expected = t5_random_bucket_biases(8, 2, seed=7)
        np.testing.assert_array_equal(
            t5_random_bucket_biases(8, 2, np.random.default_rng(7)), expected
        )


# ------------------------------------------------------------------------- Shaw


class TestShaw:
    @given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 50))
    def test_clipping_identities(self, query_len, key_len, k):
        index = shaw_relative_index(query_len, key_len, k)
        clipped = shaw_clipped_distance(query_len, key_len, k)
        assert index.shape == clipped.shape == (query_len, key_len)
        assert index.dtype == clipped.dtype == np.int64
        assert index.min() >= 0
        assert index.max() <= 2 * k
        np.testing.assert_array_equal(index, clipped + k)
        offsets = np.arange(key_len)[None, :] - np.arange(query_len)[:, None]
        inside = np.abs(offsets) <= k
        # Inside the window the index is offset + k; outside it is constant per side.
        np.testing.assert_array_equal(index[inside], offsets[inside] + k)
        assert np.all(index[offsets > k] == 2 * k)
        assert np.all(index[offsets < -k] == 0)
        np.testing.assert_array_equal(np.diagonal(index), k)

    def test_naive_loop(self):
        k = 3
        expected = [[min(max(j - i, -k), k) + k for j in range(9)] for i in range(7)]
        np.testing.assert_array_equal(shaw_relative_index(7, 9, k), expected)

    def test_k_zero_carries_no_position(self):
        assert np.all(shaw_relative_index(5, 5, 0) == 0)

    def test_large_k_is_the_plain_offset(self):
        offsets = np.arange(6)[None, :] - np.arange(4)[:, None]
        np.testing.assert_array_equal(shaw_clipped_distance(4, 6, 100), offsets)


# ------------------------------------------------------------------------- NoPE


class TestNoPE:
    @given(st.integers(1, 200))
    def test_rows_sum_to_one_and_equal_inverse_position(self, seq_len):
        weights = nope_causal_weights(seq_len)
        assert weights.shape == (seq_len, seq_len)
        np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-12)
        row = nope_row_weight(seq_len)
        np.testing.assert_allclose(row, 1.0 / (np.arange(seq_len) + 1), rtol=0)
        for i in range(seq_len):
            np.testing.assert_array_equal(weights[i, : i + 1], row[i])
            assert np.all(weights[i, i + 1 :] == 0)

    def test_is_the_masked_softmax_of_equal_scores(self):
        seq_len = 9
        scores = np.where(np.tril(np.ones((seq_len, seq_len))) > 0, 0.0, -np.inf)
        softmax = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(nope_causal_weights(seq_len), softmax, rtol=1e-15)

    def test_signal_decreases_with_position(self):
        assert np.all(np.diff(nope_row_weight(50)) < 0)

    @given(st.lists(st.integers(0, MAX_POSITION), min_size=1, max_size=20))
    def test_causal_weight_at_any_positions_is_the_masked_softmax_row(self, positions):
        # The row of query i, from a masked softmax over i + 1 equal scores (no table).
        for i, weight in zip(positions, causal_weight(positions), strict=True):
            assert weight == pytest.approx(1.0 / (i + 1), rel=1e-15)
        small = [i for i in positions if i < 64]
        if small:
            np.testing.assert_array_equal(causal_weight(small), nope_row_weight(64)[small])

    def test_causal_weight_refuses_what_is_not_a_position(self):
        for bad in ([-1], [2.5], [MAX_POSITION + 1], [np.nan]):
            with pytest.raises(ValueError, match="positions"):
                causal_weight(bad)


# -------------------------------------------------------------------- bad input


class TestBadInput:
    @pytest.mark.parametrize(
        ("kwargs", "match"),
        [
            ({"num_buckets": 2}, "num_buckets must be from 4"),
            ({"num_buckets": 31}, "num_buckets must be even"),
            ({"num_buckets": 0, "bidirectional": False}, "num_buckets must be from 2"),
            ({"num_buckets": MAX_BUCKETS + 2}, "num_buckets"),
            ({"num_buckets": 32.5}, "num_buckets must be a whole number"),
            ({"num_buckets": "32"}, "num_buckets"),
            ({"max_distance": 8}, "max_distance must be from 9"),
            ({"max_distance": 16, "bidirectional": False}, "max_distance must be from 17"),
            ({"max_distance": MAX_POSITION + 1}, "max_distance"),
            ({"bidirectional": 1}, "bidirectional must be True or False"),
            ({"bidirectional": "yes"}, "bidirectional"),
        ],
    )
    def test_t5_settings(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            t5_relative_bucket([0, 1], **kwargs)
        if "bidirectional" not in kwargs or isinstance(kwargs["bidirectional"], bool):
            settings = {"num_buckets": 32, "max_distance": 128, "bidirectional": True, **kwargs}
            with pytest.raises(ValueError, match=match):
                t5_bucket_regions(**settings)

    @pytest.mark.parametrize(
        "offsets",
        [[0.5], [np.nan], ["a"], [MAX_POSITION + 1], [-MAX_POSITION - 1], [True, False]],
    )
    def test_relative_position(self, offsets):
        with pytest.raises(ValueError, match="relative_position"):
            t5_relative_bucket(np.array(offsets))

    def test_bias_matrix(self):
        with pytest.raises(ValueError, match="bucket_biases must have one row per bucket"):
            t5_bias_matrix(np.zeros(16), 3, 3, num_buckets=32)
        with pytest.raises(ValueError, match="bucket_biases must have shape"):
            t5_bias_matrix(np.zeros((32, 2, 2)), 3, 3)
        with pytest.raises(ValueError, match="bucket_biases must have shape"):
            t5_bias_matrix(5.0, 3, 3)
        with pytest.raises(ValueError, match="bucket_biases must contain only finite"):
            t5_bias_matrix(np.full(32, np.nan), 3, 3)
        with pytest.raises(ValueError, match="num_buckets must be even"):
            t5_bias_matrix(np.zeros(33), 3, 3)
        with pytest.raises(ValueError, match="query_len must be from 1"):
            t5_bias_matrix(np.zeros(32), 0, 3)
        with pytest.raises(ValueError, match="key_len"):
            t5_bias_matrix(np.zeros(32), 3, 2.5)
        with pytest.raises(ValueError, match="limit"):
            t5_bias_matrix(np.zeros(32), 2**14, 2**13)
        with pytest.raises(ValueError, match="limit"):
            t5_bias_matrix(np.zeros((32, 12)), 2**12, 2**12)

    def test_random_bucket_biases(self):
        with pytest.raises(ValueError, match="num_buckets"):
            t5_random_bucket_biases(1, 12)
        with pytest.raises(ValueError, match="n_heads must be from 1"):
            t5_random_bucket_biases(32, 0)
        with pytest.raises(ValueError, match="seed"):
            t5_random_bucket_biases(32, 12, seed=-1)
        with pytest.raises(ValueError, match="seed"):
            t5_random_bucket_biases(32, 12, seed="abc")

    @pytest.mark.parametrize("function", [shaw_relative_index, shaw_clipped_distance])
    def test_shaw(self, function):
        with pytest.raises(ValueError, match="k must be from 0"):
            function(4, 4, -1)
        with pytest.raises(ValueError, match="query_len"):
            function(0, 4, 2)
        with pytest.raises(ValueError, match="key_len"):
            function(4, MAX_POSITION + 1, 2)
        with pytest.raises(ValueError, match="limit"):
            function(2**14, 2**13, 2)

    def test_nope(self):
        with pytest.raises(ValueError, match="seq_len must be from 1"):
            nope_row_weight(0)
        with pytest.raises(ValueError, match="seq_len"):
            nope_causal_weights(-3)
        with pytest.raises(ValueError, match="limit"):
            nope_causal_weights(2**14)
