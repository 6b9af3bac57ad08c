"""RoPE scaling methods: golden values from transformers, relations between methods,
the worked numbers of REFERENCE_NUMBERS.md, a naive loop reference, and bad input."""

from __future__ import annotations

import inspect
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from positional_core.rope_scaling import (
    MAX_FACTOR,
    ROPE_SCALING_KEYS,
    ROPE_SCALING_METHODS,
    RopeScalingError,
    compute_rope_parameters,
    default_rope_parameters,
    dynamic_ntk_base,
    dynamic_rope_parameters,
    linear_rope_parameters,
    llama3_bands,
    llama3_rope_parameters,
    longrope_rope_parameters,
    ntk_rope_parameters,
    yarn_correction_range,
    yarn_get_mscale,
    yarn_ramp,
    yarn_rope_parameters,
)

GOLDEN_PATH = Path(__file__).parent / "data" / "rope_golden.json"
GOLDEN = json.loads(GOLDEN_PATH.read_text())
GOLDEN_RTOL = 2e-6
CALL_CASES = [case for case in GOLDEN["cases"] if "call" in case]

LLAMA31 = {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def default(base: float, dim: int) -> np.ndarray:
    return default_rope_parameters(base, dim, max_position_embeddings=1)[0]


# ---------------------------------------------------------------------------
# Golden values from transformers
# ---------------------------------------------------------------------------
class TestGolden:
    def test_made_by_transformers_5(self):
        assert GOLDEN["transformers_version"].startswith("5.")
        assert GOLDEN["torch_version"].startswith("2.13.0")
        assert len(CALL_CASES) >= 40
        methods = {case["call"]["rope_type"] for case in CALL_CASES}
        assert methods == {"default", "linear", "dynamic", "yarn", "longrope", "llama3"}

    @pytest.mark.parametrize("case", CALL_CASES, ids=[case["id"] for case in CALL_CASES])
    def test_matches_transformers(self, case):
        call = case["call"]
        inv_freq, attention = compute_rope_parameters(
            call["rope_type"],
            call["base"],
            call["dim"],
            max_position_embeddings=call["max_position_embeddings"],
            seq_len=case["seq_len"],
            **call["params"],
        )
        assert inv_freq.dtype == np.float64
        assert inv_freq.shape == (call["dim"] // 2,)
        np.testing.assert_allclose(inv_freq, case["inv_freq"], rtol=GOLDEN_RTOL, atol=0)
        assert attention == pytest.approx(case["attention_factor"], rel=1e-12)


# ---------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------
class TestRegistry:
    def test_names(self):
        assert set(ROPE_SCALING_METHODS) == {
            "default",
            "linear",
            "ntk",
            "dynamic",
            "yarn",
            "longrope",
            "llama3",
        }
        assert set(ROPE_SCALING_KEYS) == set(ROPE_SCALING_METHODS)

    @pytest.mark.parametrize("name", list(ROPE_SCALING_METHODS))
    def test_one_shared_signature(self, name):
        params = inspect.signature(ROPE_SCALING_METHODS[name]).parameters
        assert list(params) == ["base", "dim", "max_position_embeddings", "seq_len", "params"]
        assert params["max_position_embeddings"].kind is inspect.Parameter.KEYWORD_ONLY
        assert params["seq_len"].default is None
        assert params["params"].kind is inspect.Parameter.VAR_KEYWORD

    def test_read_only(self):
        with pytest.raises(TypeError):
            ROPE_SCALING_METHODS["mine"] = default_rope_parameters  # type: ignore[index]

    def test_dispatch(self):
        direct = yarn_rope_parameters(10000.0, 64, max_position_embeddings=8192, factor=2.0)
        via = compute_rope_parameters("yarn", 10000.0, 64, max_position_embeddings=8192, factor=2.0)
        np.testing.assert_array_equal(direct[0], via[0])
        assert direct[1] == via[1]

    def test_unknown_type_lists_supported(self):
        with pytest.raises(RopeScalingError, match="supported: default, linear, ntk") as info:
            compute_rope_parameters("mrope", 10000.0, 64, max_position_embeddings=8192)
        assert info.value.key == "rope_type"
        with pytest.raises(RopeScalingError, match="unknown rope_type None"):
            compute_rope_parameters(None, 10000.0, 64, max_position_embeddings=8192)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Relations between methods, as transformers' own tests state them
# ---------------------------------------------------------------------------
DIMS = [4, 8, 64, 96, 128]
BASES = [10000.0, 500000.0, 1e6]


class TestRelations:
    @pytest.mark.parametrize("dim", DIMS)
    @pytest.mark.parametrize("base", BASES)
    @pytest.mark.parametrize("factor", [1.0, 2.0, 8.0, 32.5])
    def test_linear_is_default_over_factor(self, dim, base, factor):
        inv_freq, attention = linear_rope_parameters(
            base, dim, max_position_embeddings=4096, factor=factor
        )
        np.testing.assert_allclose(inv_freq, default(base, dim) / factor, rtol=1e-15)
        assert attention == 1.0

    @pytest.mark.parametrize("dim", DIMS)
    @pytest.mark.parametrize("seq_len", [None, 1, 100, 4095, 4096])
    def test_dynamic_is_default_at_or_below_trained_length(self, dim, seq_len):
        inv_freq, attention = dynamic_rope_parameters(
            10000.0, dim, max_position_embeddings=4096, seq_len=seq_len, factor=4.0
        )
        np.testing.assert_array_equal(inv_freq, default(10000.0, dim))
        assert attention == 1.0

    @pytest.mark.parametrize("seq_len", [4097, 8192, 65536, 2**24])
    def test_dynamic_slows_down_past_trained_length(self, seq_len):
        inv_freq, _ = dynamic_rope_parameters(
            10000.0, 128, max_position_embeddings=4096, seq_len=seq_len, factor=4.0
        )
        plain = default(10000.0, 128)
        assert inv_freq[0] == 1.0  # the fastest pair is unchanged
        assert np.all(inv_freq[1:] < plain[1:])

    def test_dynamic_grows_with_served_length(self):
        slowest = [
            dynamic_rope_parameters(
                10000.0, 128, max_position_embeddings=4096, seq_len=n, factor=2.0
            )[0][-1]
            for n in (4096, 8192, 16384, 65536)
        ]
        assert slowest == sorted(slowest, reverse=True)
        assert len(set(slowest)) == 4

    @pytest.mark.parametrize("scale", [2, 4, 8])
    def test_static_ntk_is_dynamic_with_factor_one_at_scaled_length(self, scale):
        static, _ = ntk_rope_parameters(10000.0, 128, max_position_embeddings=4096, factor=scale)
        dynamic, _ = dynamic_rope_parameters(
            10000.0, 128, max_position_embeddings=4096, seq_len=4096 * scale, factor=1.0
        )
        np.testing.assert_allclose(static, dynamic, rtol=1e-14)

    @pytest.mark.parametrize("dim", [8, 64, 128])
    @pytest.mark.parametrize("base", BASES)
    @pytest.mark.parametrize("factor", [2.0, 4.0, 40.0])
    @pytest.mark.parametrize("truncate", [True, False])
    def test_yarn_between_interpolation_and_default(self, dim, base, factor, truncate):
        inv_freq, _ = yarn_rope_parameters(
            base,
            dim,
            max_position_embeddings=int(4096 * factor),
            factor=factor,
            original_max_position_embeddings=4096,
            truncate=truncate,
        )
        plain = default(base, dim)
        assert np.all(inv_freq <= plain * (1 + 1e-15))
        assert np.all(inv_freq >= plain / factor * (1 - 1e-15))

    def test_yarn_keeps_fast_pairs_and_interpolates_slow_ones(self):
        inv_freq, attention = yarn_rope_parameters(
            10000.0,
            128,
            max_position_embeddings=16384,
            factor=4.0,
            original_max_position_embeddings=4096,
        )
        plain = default(10000.0, 128)
        low, high = yarn_correction_range(10000.0, 128, original_max_position_embeddings=4096)
        assert (low, high) == (20, 46)
        np.testing.assert_array_equal(inv_freq[: low + 1], plain[: low + 1])
        np.testing.assert_allclose(inv_freq[high:], plain[high:] / 4.0, rtol=1e-15)
        middle = inv_freq[low + 1 : high] / plain[low + 1 : high]
        assert np.all((middle < 1) & (middle > 0.25))
        assert np.all(np.diff(middle) < 0)
        assert attention == pytest.approx(0.1 * math.log(4.0) + 1.0, rel=1e-15)

    @pytest.mark.parametrize("dim", [8, 64, 128])
    @pytest.mark.parametrize("base", BASES)
    def test_llama3_fast_unchanged_slow_divided(self, dim, base):
        inv_freq, attention = llama3_rope_parameters(
            base, dim, max_position_embeddings=131072, **LLAMA31
        )
        plain = default(base, dim)
        wavelength = 2 * np.pi / plain
        fast = wavelength < 8192 / 4.0
        slow = wavelength > 8192 / 1.0
        np.testing.assert_array_equal(inv_freq[fast], plain[fast])
        np.testing.assert_allclose(inv_freq[slow], plain[slow] / 8.0, rtol=1e-15)
        medium = ~fast & ~slow
        assert np.all(inv_freq[medium] <= plain[medium])
        assert np.all(inv_freq[medium] >= plain[medium] / 8.0)
        assert attention == 1.0
        bands = llama3_bands(base, dim, **LLAMA31)
        assert np.array_equal(bands == "high", fast)
        assert np.array_equal(bands == "low", slow)
        assert np.array_equal(bands == "medium", medium)

    def test_llama31_bands(self):
        bands = llama3_bands(500000.0, 128, **LLAMA31)
        assert [int((bands == name).sum()) for name in ("high", "medium", "low")] == [29, 6, 29]

    @pytest.mark.parametrize("dim", [4, 64, 128])
    @pytest.mark.parametrize("seq_len", [None, 100, 4096, 100000])
    def test_factor_one_is_default(self, dim, seq_len):
        plain = default(10000.0, dim)
        cases = {
            "linear": {"factor": 1.0},
            "ntk": {"factor": 1.0},
            "yarn": {"factor": 1.0, "original_max_position_embeddings": 4096},
            "llama3": {**LLAMA31, "factor": 1.0, "original_max_position_embeddings": 4096},
            "longrope": {"short_factor": [1.0] * (dim // 2), "long_factor": [1.0] * (dim // 2)},
        }
        for name, params in cases.items():
            inv_freq, attention = compute_rope_parameters(
                name, 10000.0, dim, max_position_embeddings=4096, seq_len=seq_len, **params
            )
            np.testing.assert_allclose(inv_freq, plain, rtol=1e-15, err_msg=name)
            assert attention == 1.0, name
        dynamic, _ = dynamic_rope_parameters(
            10000.0, dim, max_position_embeddings=4096, seq_len=seq_len, factor=1.0
        )
        if seq_len is None or seq_len <= 4096:
            np.testing.assert_array_equal(dynamic, plain)

    def test_longrope_switches_at_original_length(self):
        short = [1.0 + 0.1 * i for i in range(32)]
        long = [2.0 + i for i in range(32)]
        kw = dict(
            max_position_embeddings=131072,
            original_max_position_embeddings=4096,
            short_factor=short,
            long_factor=long,
        )
        plain = default(10000.0, 64)
        for seq_len in (None, 1, 4095, 4096):
            inv_freq, _ = longrope_rope_parameters(10000.0, 64, seq_len=seq_len, **kw)
            np.testing.assert_allclose(inv_freq, plain / np.array(short), rtol=1e-15)
        for seq_len in (4097, 131072, 2**24):
            inv_freq, attention = longrope_rope_parameters(10000.0, 64, seq_len=seq_len, **kw)
            np.testing.assert_allclose(inv_freq, plain / np.array(long), rtol=1e-15)
            assert attention == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))

    def test_longrope_factor_and_attention_factor(self):
        kw = dict(max_position_embeddings=131072, short_factor=[1.0, 1.0], long_factor=[1.0, 1.0])
        assert longrope_rope_parameters(10000.0, 4, **kw)[1] == 1.0  # factor 131072/131072
        _, attention = longrope_rope_parameters(10000.0, 4, factor=16.0, **kw)
        assert attention == pytest.approx(math.sqrt(1 + math.log(16) / math.log(131072)))
        _, attention = longrope_rope_parameters(10000.0, 4, attention_factor=1.3, **kw)
        assert attention == 1.3

    def test_yarn_attention_factor_variants(self):
        kw = dict(max_position_embeddings=163840, original_max_position_embeddings=4096)
        # DeepSeek-V3: mscale == mscale_all_dim -> 1.0
        assert (
            yarn_rope_parameters(10000.0, 64, factor=40, mscale=1.0, mscale_all_dim=1.0, **kw)[1]
            == 1.0
        )
        ratio = yarn_get_mscale(40, 0.707) / yarn_get_mscale(40, 1.0)
        assert yarn_rope_parameters(10000.0, 64, factor=40, mscale=0.707, mscale_all_dim=1.0, **kw)[
            1
        ] == pytest.approx(ratio, rel=1e-15)
        # only one of the two (or a zero) -> the plain 0.1 ln(s) + 1
        plain = 0.1 * math.log(40) + 1
        for extra in (
            {"mscale": 0.707},
            {"mscale_all_dim": 1.0},
            {"mscale": 0.0, "mscale_all_dim": 1},
        ):
            assert yarn_rope_parameters(10000.0, 64, factor=40, **extra, **kw)[1] == pytest.approx(
                plain, rel=1e-15
            )
        # factor derived from the lengths (163840 / 4096 = 40)
        assert yarn_rope_parameters(10000.0, 64, **kw)[1] == pytest.approx(plain, rel=1e-15)
        assert yarn_rope_parameters(10000.0, 64, attention_factor=0.5, factor=40, **kw)[1] == 0.5

    def test_yarn_beta_defaults_and_truncate(self):
        kw = dict(max_position_embeddings=16384, factor=4.0, original_max_position_embeddings=4096)
        base_case = yarn_rope_parameters(10000.0, 128, **kw)[0]
        explicit = yarn_rope_parameters(10000.0, 128, beta_fast=32, beta_slow=1, **kw)[0]
        np.testing.assert_array_equal(base_case, explicit)
        nulls = yarn_rope_parameters(10000.0, 128, beta_fast=None, beta_slow=None, **kw)[0]
        np.testing.assert_array_equal(base_case, nulls)
        truncated = yarn_rope_parameters(10000.0, 128, truncate=True, **kw)[0]
        np.testing.assert_array_equal(base_case, truncated)
        smooth = yarn_rope_parameters(10000.0, 128, truncate=False, **kw)[0]
        assert not np.array_equal(base_case, smooth)
        # an explicit null means "no truncation" in transformers (falsy .get result)
        null = yarn_rope_parameters(10000.0, 128, truncate=None, **kw)[0]
        np.testing.assert_array_equal(null, smooth)

    def test_yarn_ramp_and_range(self):
        low, high = yarn_correction_range(
            10000.0, 128, original_max_position_embeddings=4096, truncate=False
        )
        assert low == pytest.approx(128 * math.log(4096 / (32 * 2 * math.pi)) / (2 * math.log(1e4)))
        assert high == pytest.approx(128 * math.log(4096 / (2 * math.pi)) / (2 * math.log(1e4)))
        ramp = yarn_ramp(low, high, 64)
        assert ramp[0] == 0.0 and ramp[-1] == 1.0
        assert np.all(np.diff(ramp) >= 0)
        assert yarn_ramp(3, 3, 6).tolist() == [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
        # clipped to [0, dim - 1] like transformers
        assert yarn_correction_range(10000.0, 8, original_max_position_embeddings=2**24)[1] == 7

    def test_dynamic_ntk_base(self):
        assert (
            dynamic_ntk_base(10000.0, 128, factor=4.0, max_position_embeddings=4096, seq_len=None)
            == 10000.0
        )
        expected = 10000.0 * (4.0 * 16384 / 4096 - 3.0) ** (128 / 126)
        assert dynamic_ntk_base(
            10000.0, 128, factor=4.0, max_position_embeddings=4096, seq_len=16384
        ) == pytest.approx(expected, rel=1e-15)


# ---------------------------------------------------------------------------
# REFERENCE_NUMBERS.md, "Context extension"
# ---------------------------------------------------------------------------
class TestReferenceNumbers:
    def test_ntk_base_s8(self):
        inv_freq, _ = ntk_rope_parameters(10000.0, 128, max_position_embeddings=4096, factor=8)
        new_base = inv_freq[1] ** (-128 / 2)  # θ_1 = base'^(−2/d)
        assert round(new_base) == 82685
        assert round(8 ** (128 / 126), 2) == 8.27
        assert (
            round(
                dynamic_ntk_base(
                    10000.0, 128, factor=1.0, max_position_embeddings=4096, seq_len=8 * 4096
                )
            )
            == 82685
        )

    def test_ntk_base_s4(self):
        inv_freq, _ = ntk_rope_parameters(10000.0, 128, max_position_embeddings=4096, factor=4)
        assert round(inv_freq[1] ** -64, -2) == 40900

    def test_slowest_pair_exactly_eight_times_slower_fastest_unchanged(self):
        plain = default(10000.0, 128)
        scaled, _ = ntk_rope_parameters(10000.0, 128, max_position_embeddings=4096, factor=8)
        assert f"{plain[-1]:.2e}" == "1.15e-04"
        assert f"{scaled[-1]:.2e}" == "1.44e-05"
        assert plain[-1] / scaled[-1] == pytest.approx(8.0, rel=1e-13)
        assert scaled[0] == plain[0] == 1.0

    def test_slowest_pair_angle_in_training(self):
        plain = default(10000.0, 128)
        assert round(4096 * plain[-1], 2) == 0.47
        assert round(4096 * plain[-1] / (2 * np.pi), 3) == 0.075
        assert round(16384 * plain[-1], 2) == 1.89

    def test_position_interpolation_32000_becomes_4000(self):
        plain = default(10000.0, 128)
        scaled, _ = linear_rope_parameters(10000.0, 128, max_position_embeddings=4096, factor=8)
        np.testing.assert_allclose(32000 * scaled, 4000 * plain, rtol=1e-15)


# ---------------------------------------------------------------------------
# A deliberately naive loop reference (one pair at a time, plain floats)
# ---------------------------------------------------------------------------
def naive_yarn(base, dim, factor, original, beta_fast=32.0, beta_slow=1.0, truncate=True):
    def corr(rotations):
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = corr(beta_fast), corr(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    out = []
    for i in range(dim // 2):
        theta = 1.0 / base ** (2 * i / dim)
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        out.append(theta / factor * ramp + theta * (1 - ramp))
    return out


def naive_llama3(base, dim, factor, low_ff, high_ff, original):
    out = []
    for i in range(dim // 2):
        theta = 1.0 / base ** (2 * i / dim)
        wavelength = 2 * math.pi / theta
        if wavelength < original / high_ff:
            out.append(theta)
        elif wavelength > original / low_ff:
            out.append(theta / factor)
        else:
            smooth = (original / wavelength - low_ff) / (high_ff - low_ff)
            out.append((1 - smooth) * theta / factor + smooth * theta)
    return out


class TestNaiveReference:
    @pytest.mark.parametrize("dim", [2, 6, 32, 80, 128])
    @pytest.mark.parametrize("base", [10.0, 10000.0, 1e6])
    @pytest.mark.parametrize("original", [64, 4096, 32768])
    @pytest.mark.parametrize("truncate", [True, False])
    def test_yarn(self, dim, base, original, truncate):
        got, _ = yarn_rope_parameters(
            base,
            dim,
            max_position_embeddings=original * 4,
            factor=4.0,
            original_max_position_embeddings=original,
            truncate=truncate,
        )
        np.testing.assert_allclose(
            got, naive_yarn(base, dim, 4.0, original, truncate=truncate), rtol=1e-13
        )

    @pytest.mark.parametrize("dim", [2, 6, 32, 80, 128])
    @pytest.mark.parametrize("base", [10.0, 10000.0, 500000.0])
    @pytest.mark.parametrize(("low_ff", "high_ff"), [(1.0, 4.0), (2.0, 8.0), (0.5, 1.0)])
    def test_llama3(self, dim, base, low_ff, high_ff):
        got, _ = llama3_rope_parameters(
            base,
            dim,
            max_position_embeddings=65536,
            factor=8.0,
            low_freq_factor=low_ff,
            high_freq_factor=high_ff,
            original_max_position_embeddings=2048,
        )
        np.testing.assert_allclose(
            got, naive_llama3(base, dim, 8.0, low_ff, high_ff, 2048), rtol=1e-13
        )

    @pytest.mark.parametrize("dim", [4, 10, 128])
    @pytest.mark.parametrize("seq_len", [None, 10, 5000, 123456])
    def test_dynamic(self, dim, seq_len):
        got, _ = dynamic_rope_parameters(
            10000.0, dim, max_position_embeddings=4096, seq_len=seq_len, factor=3.0
        )
        served = max(seq_len or 4096, 4096)
        new_base = 10000.0 * (3.0 * served / 4096 - 2.0) ** (dim / (dim - 2))
        expected = [1.0 / new_base ** (2 * i / dim) for i in range(dim // 2)]
        np.testing.assert_allclose(got, expected, rtol=1e-13)


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------
valid_dims = st.integers(2, 512).map(lambda n: 2 * n)
valid_bases = st.floats(1.5, 1e9)
valid_factors = st.floats(1.0, MAX_FACTOR)


@given(dim=valid_dims, base=valid_bases, factor=valid_factors, seq_len=st.integers(1, 2**24))
def test_methods_only_slow_pairs_down(dim, base, factor, seq_len):
    plain = default(base, dim)
    params = {
        "linear": {"factor": factor},
        "ntk": {"factor": factor},
        "dynamic": {"factor": factor},
        "yarn": {"factor": factor, "original_max_position_embeddings": 4096},
        "llama3": {**LLAMA31, "factor": factor},
    }
    for name, kw in params.items():
        inv_freq, attention = compute_rope_parameters(
            name, base, dim, max_position_embeddings=4096, seq_len=seq_len, **kw
        )
        assert inv_freq.shape == (dim // 2,)
        assert np.all(np.isfinite(inv_freq)) and np.all(inv_freq > 0), name
        assert np.all(inv_freq <= plain * (1 + 1e-12)), name
        assert np.all(inv_freq >= plain / factor * (1 - 1e-12)) or name in ("ntk", "dynamic")
        assert math.isfinite(attention) and attention >= 1.0


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
ALL_KEYS = {key for keys in ROPE_SCALING_KEYS.values() for group in keys.values() for key in group}
param_names = st.sampled_from([*sorted(ALL_KEYS), "type", "rope_theta", "bogus"])


@given(
    rope_type=st.sampled_from([*ROPE_SCALING_METHODS, "mrope", ""]),
    base=json_values,
    dim=json_values | valid_dims,
    max_pos=json_values | st.integers(1, 2**20),
    seq_len=json_values | st.none(),
    params=st.dictionaries(param_names, json_values | valid_factors, max_size=5),
)
def test_junk_raises_only_rope_scaling_error(rope_type, base, dim, max_pos, seq_len, params):
    try:
        inv_freq, attention = compute_rope_parameters(
            rope_type, base, dim, max_position_embeddings=max_pos, seq_len=seq_len, **params
        )
    except RopeScalingError as error:
        assert str(error)
        return
    assert np.all(np.isfinite(inv_freq)) and math.isfinite(attention)


# ---------------------------------------------------------------------------
# Bad input: each error names the argument or key and what was expected
# ---------------------------------------------------------------------------
KW = {"max_position_embeddings": 4096}
BAD = [
    ("linear", 10000.0, 64, {}, "factor", "rope_type 'linear' needs 'factor'"),
    (
        "linear",
        10000.0,
        64,
        {"factor": "8"},
        "factor",
        "factor must be a number from 1 to 10000, got the string '8'",
    ),
    ("linear", 10000.0, 64, {"factor": True}, "factor", "got the boolean true"),
    (
        "linear",
        10000.0,
        64,
        {"factor": 0.5},
        "factor",
        r"factor must be a number from 1 to 10000, got 0\.5",
    ),
    ("linear", 10000.0, 64, {"factor": 1e5}, "factor", "got 100000"),
    ("linear", 10000.0, 64, {"factor": float("nan")}, "factor", "factor must be a finite number"),
    (
        "linear",
        10000.0,
        64,
        {"factor": 2, "beta_fast": 3},
        "beta_fast",
        "does not take the parameter 'beta_fast'; it accepts: factor",
    ),
    ("default", 10000.0, 64, {"factor": 2}, "factor", "it accepts: none"),
    ("dynamic", 10000.0, 2, {"factor": 2}, "dim", "d/\\(d-2\\) needs d >= 4"),
    ("linear", 10000.0, 63, {"factor": 2}, "dim", "dim must be even"),
    ("linear", 1.0, 64, {"factor": 2}, "base", r"base must be in \(1, 1e\+12\].*rope_theta"),
    ("linear", "1e4", 64, {"factor": 2}, "base", "base must be a number"),
    (
        "yarn",
        10000.0,
        64,
        {"factor": 4, "beta_fast": 1, "beta_slow": 32},
        "beta_fast",
        "must be at least beta_slow",
    ),
    (
        "yarn",
        10000.0,
        64,
        {"factor": 4, "beta_fast": -1},
        "beta_fast",
        "beta_fast must be a number from 0.001 to 1000",
    ),
    (
        "yarn",
        10000.0,
        64,
        {"factor": 4, "truncate": "false"},
        "truncate",
        "truncate must be true or false",
    ),
    (
        "yarn",
        10000.0,
        64,
        {"factor": 4, "attention_factor": 0},
        "attention_factor",
        "attention_factor must be",
    ),
    (
        "yarn",
        10000.0,
        64,
        {"original_max_position_embeddings": 0},
        "original_max_position_embeddings",
        "a whole number from 1 to 16777216, got 0",
    ),
    (
        "yarn",
        10000.0,
        64,
        {"original_max_position_embeddings": 4096.5},
        "original_max_position_embeddings",
        "whole number",
    ),
    ("yarn", 10000.0, 64, {"mscale": -1.0}, "mscale", "mscale must be a number from 0 to 1000"),
    (
        "llama3",
        10000.0,
        64,
        {"factor": 8, "low_freq_factor": 1},
        "high_freq_factor",
        "needs 'high_freq_factor'",
    ),
    (
        "llama3",
        10000.0,
        64,
        {"factor": 8, "low_freq_factor": 4, "high_freq_factor": 4},
        "high_freq_factor",
        "must be greater than low_freq_factor",
    ),
    ("longrope", 10000.0, 8, {"short_factor": [1, 1, 1, 1]}, "long_factor", "needs 'long_factor'"),
    (
        "longrope",
        10000.0,
        8,
        {"short_factor": [1, 1, 1], "long_factor": [1] * 4},
        "short_factor",
        "one entry per rotary pair: 4 numbers",
    ),
    (
        "longrope",
        10000.0,
        8,
        {"short_factor": [1, "2", 1, 1], "long_factor": [1] * 4},
        "short_factor",
        r"short_factor\[1\] must be a number",
    ),
    (
        "longrope",
        10000.0,
        8,
        {"short_factor": [1] * 4, "long_factor": [1, 1, 0, 1]},
        "long_factor",
        r"long_factor\[2\] must be from 0.001 to 10000",
    ),
    (
        "longrope",
        10000.0,
        8,
        {"short_factor": "1111", "long_factor": [1] * 4},
        "short_factor",
        "must be a list of 4 numbers, got the string",
    ),
    (
        "longrope",
        10000.0,
        8,
        {
            "short_factor": [1] * 4,
            "long_factor": [1] * 4,
            "factor": 2,
            "original_max_position_embeddings": 1,
        },
        "original_max_position_embeddings",
        "at least 2",
    ),
]


@pytest.mark.parametrize(("rope_type", "base", "dim", "params", "key", "match"), BAD)
def test_bad_parameters(rope_type, base, dim, params, key, match):
    with pytest.raises(RopeScalingError, match=match) as info:
        compute_rope_parameters(rope_type, base, dim, **KW, **params)
    assert info.value.key == key
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("kw", "key"),
    [
        ({"max_position_embeddings": 0}, "max_position_embeddings"),
        ({"max_position_embeddings": 2**24 + 1}, "max_position_embeddings"),
        ({"max_position_embeddings": 4096, "seq_len": 0}, "seq_len"),
        ({"max_position_embeddings": 4096, "seq_len": 2.5}, "seq_len"),
        ({"max_position_embeddings": 4096, "seq_len": 2**25}, "seq_len"),
    ],
)
def test_bad_lengths(kw, key):
    with pytest.raises(RopeScalingError, match=key) as info:
        dynamic_rope_parameters(10000.0, 64, factor=2.0, **kw)
    assert info.value.key == key


def test_helpers_validate():
    with pytest.raises(ValueError, match="n_pairs"):
        yarn_ramp(0, 1, 0)
    with pytest.raises(RopeScalingError, match="beta_fast"):
        yarn_correction_range(1e4, 64, original_max_position_embeddings=4096, beta_fast=0.5)
    with pytest.raises(RopeScalingError, match="high_freq_factor"):
        llama3_bands(
            1e4,
            64,
            factor=8,
            low_freq_factor=4,
            high_freq_factor=1,
            original_max_position_embeddings=8192,
        )
    with pytest.raises(RopeScalingError, match="factor"):
        dynamic_ntk_base(1e4, 64, factor=0.0, max_position_embeddings=4096)
