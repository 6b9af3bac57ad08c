"""positional_core.stretch: what each scaling method does to every pair of a stretched head."""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from positional_core.extension import never_complete_turn, out_of_band, trained_turns
from positional_core.hf_config import NoRopeError, read_rope_config, rope_from_hf_config
from positional_core.presets import MODEL_CONFIG_NAMES, model_config
from positional_core.rope import rope_frequencies, wavelengths
from positional_core.rope_scaling import RopeScalingError, compute_rope_parameters
from positional_core.stretch import (
    STATUS,
    StretchSettings,
    angle_lines,
    out_of_band_counts,
    reference_frequencies,
    stretch_schedule,
)

PHI = read_rope_config(model_config("phi-3.5-mini-instruct"))
LONGROPE = {"short_factor": PHI.params["short_factor"], "long_factor": PHI.params["long_factor"]}


def _rope_presets() -> list[str]:
    names = []
    for name in MODEL_CONFIG_NAMES:
        try:
            read_rope_config(model_config(name))
        except NoRopeError:
            continue
        names.append(name)
    return names


def settings_of(info, **overrides) -> StretchSettings:
    """The settings a model's config sets (as the Context extension page fills them)."""
    p = info.params
    values = dict(
        method=info.rope_type,
        base=info.base,
        d=info.rotary_dim,
        trained_len=info.trained_len,
        target_len=info.target_len,
        factor=info.factor,
        beta_fast=p.get("beta_fast") or 32.0,
        beta_slow=p.get("beta_slow") or 1.0,
        mscale=p.get("mscale") or 0.0,
        mscale_all_dim=p.get("mscale_all_dim") or 0.0,
        truncate=bool(p.get("truncate", True)),
        attention_factor=p.get("attention_factor") or 0.0,
        low_freq_factor=p.get("low_freq_factor", 1.0),
        high_freq_factor=p.get("high_freq_factor", 4.0),
        short_factor=p.get("short_factor"),
        long_factor=p.get("long_factor"),
    )
    return StretchSettings(**{**values, **overrides})


class TestReferenceNumbers:
    """The worked example: d = 128, base 10,000, L = 4,096, served at 16,384."""

    def test_no_scaling(self):
        sch = stretch_schedule(StretchSettings())
        assert sch.n_pairs == 64
        assert int(sch.never.sum()) == 18
        assert sch.counts["none"] == sch.counts["method"] == 18
        # The slowest pair reaches four times its trained maximum (1.89 rad).
        lines = angle_lines(sch)
        assert lines["default"].angles[63, -1] == pytest.approx(1.89, abs=0.005)
        assert lines["default"].excess[63] == pytest.approx(4.0)
        assert sch.trained_turns[63] == pytest.approx(0.075, abs=0.0005)  # 7.5 % of a turn

    def test_ntk_base_for_eight_times_the_length(self):
        sch = stretch_schedule(StretchSettings(method="ntk", target_len=8 * 4096, factor=8.0))
        assert round(sch.ntk_base) == 82_685
        # Only the slowest pair is slowed by exactly s: 17 pairs still leave the
        # band; interpolation keeps all of them in.
        assert sch.slowest_slowdown == pytest.approx(8.0)
        assert sch.scaled[0] == 1.0
        assert sch.counts["method"] == sch.counts["ntk"] == 17
        assert sch.counts["linear"] == 0
        four = stretch_schedule(StretchSettings(method="ntk", factor=4.0))
        assert round(four.ntk_base, -2) == 40_900

    def test_interpolation_slows_the_fastest_pair_to_one_over_s(self):
        sch = stretch_schedule(StretchSettings(method="linear"))
        assert sch.scaled[0] == pytest.approx(0.25)
        assert sch.counts["method"] == 0
        np.testing.assert_allclose(sch.scaled, rope_frequencies(128) / 4, rtol=1e-14)

    def test_llama31_serves_twice_what_its_factor_covers(self):
        info = read_rope_config(model_config("llama-3.1-8b"))
        assert (info.trained_len, info.factor, info.target_len) == (8192, 8.0, 131_072)
        sch = stretch_schedule(settings_of(info))
        assert sch.band_counts == {"high": 29, "medium": 6, "low": 29}
        assert sch.band_limits == (2048.0, 8192.0)
        # Its 29 interpolated pairs reach twice their trained edge at 131,072.
        assert sch.counts["method"] == 29
        assert sch.factor_is_ratio is False and sch.length_ratio == 16.0

    def test_qwen_128k_block_targets_factor_times_trained_length(self):
        info = read_rope_config(model_config("qwen2.5-7b-instruct-yarn-128k"))
        assert (info.trained_len, info.factor, info.target_len) == (32_768, 4.0, 131_072)
        sch = stretch_schedule(settings_of(info))
        assert sch.attention_factor == pytest.approx(0.1 * np.log(4) + 1)
        low, high = sch.yarn_range
        assert 0 <= low < high
        assert sch.ramp[0] == 0 and sch.ramp[-1] == 1


class TestPresets:
    @pytest.mark.parametrize("name", _rope_presets())
    def test_a_model_config_gives_the_reference_speeds(self, name):
        config = model_config(name)
        info = read_rope_config(config)
        sch = stretch_schedule(settings_of(info))
        inv_freq, attention = rope_from_hf_config(config, seq_len=info.target_len)
        np.testing.assert_array_equal(sch.scaled, inv_freq)
        assert sch.attention_factor == attention
        np.testing.assert_array_equal(sch.theta, info.default_inv_freq())

    def test_longrope_serves_its_short_list_up_to_the_trained_length(self):
        config = model_config("phi-3.5-mini-instruct")
        info = read_rope_config(config)
        sch = stretch_schedule(settings_of(info, served_len=4096))
        np.testing.assert_array_equal(sch.scaled, rope_from_hf_config(config, seq_len=4096)[0])
        assert sch.longrope_list == "short"
        np.testing.assert_array_equal(sch.longrope_short, sch.scaled)
        assert stretch_schedule(settings_of(info)).longrope_list == "long"


class TestRelations:
    @pytest.mark.parametrize("factor", [1.0, 2.5, 8.0])
    @pytest.mark.parametrize("d", [4, 64, 128])
    def test_linear_is_default_over_factor(self, d, factor):
        target = round(factor * 4096)
        sch = stretch_schedule(
            StretchSettings(method="linear", d=d, target_len=target, factor=factor)
        )
        np.testing.assert_allclose(sch.scaled, sch.theta / factor, rtol=1e-14)
        np.testing.assert_array_equal(sch.interpolated, sch.scaled)
        assert sch.counts["method"] == 0  # every pair ends on its trained edge at L′ = s·L

    @pytest.mark.parametrize("served", [1, 100, 4096])
    def test_dynamic_is_default_up_to_the_trained_length(self, served):
        sch = stretch_schedule(StretchSettings(method="dynamic", served_len=served))
        np.testing.assert_array_equal(sch.scaled, sch.theta)
        assert sch.dynamic_base == 10_000.0

    def test_dynamic_slows_down_as_the_served_length_grows(self):
        sch = stretch_schedule(StretchSettings(method="dynamic", target_len=65_536, factor=16.0))
        slowest = sch.dynamic_theta[:, -1]
        assert np.all(np.diff(slowest) < 0)
        assert sch.dynamic_lengths[0] == 4096 and sch.dynamic_lengths[-1] == 65_536

    @pytest.mark.parametrize("method", ["yarn", "llama3"])
    def test_blends_lie_between_interpolation_and_no_scaling(self, method):
        sch = stretch_schedule(StretchSettings(method=method, base=500_000.0, factor=8.0))
        assert np.all(sch.scaled <= sch.theta * (1 + 1e-12))
        assert np.all(sch.scaled >= sch.interpolated * (1 - 1e-12))
        assert sch.scaled[0] == sch.theta[0]  # the fastest pair keeps its speed
        assert sch.slowdown[-1] == pytest.approx(8.0)  # the slowest is interpolated

    def test_ntk_keeps_the_fastest_pair_and_slows_the_slowest_by_s(self):
        speeds = reference_frequencies(10_000.0, 128, 8.0)
        assert speeds["ntk"][0] == speeds["default"][0] == 1.0
        assert speeds["default"][-1] / speeds["ntk"][-1] == pytest.approx(8.0, rel=1e-12)

    def test_reference_speeds_are_the_registry_s(self):
        speeds = reference_frequencies(50_000.0, 64, 3.0)
        for method in ("default", "linear", "ntk"):
            kw = {} if method == "default" else {"factor": 3.0}
            expected, _ = compute_rope_parameters(
                method, 50_000.0, 64, max_position_embeddings=2048, **kw
            )
            np.testing.assert_array_equal(speeds[method], expected)

    def test_counts_are_the_masks_of_out_of_band(self):
        speeds = reference_frequencies(10_000.0, 128, 4.0)
        counts = out_of_band_counts(speeds["default"], 4096, 16_384, speeds)
        for name, scaled in speeds.items():
            assert counts[name] == int(out_of_band(speeds["default"], 4096, 16_384, scaled).sum())
        assert counts == {"none": 18, "default": 18, "linear": 0, "ntk": 17}

    def test_status_of_each_pair(self):
        sch = stretch_schedule(StretchSettings(method="linear"))
        names = [STATUS[k] for k in sch.status]
        assert names.count("turns") == 46 and names.count("in band") == 18
        sch = stretch_schedule(StretchSettings())
        assert [STATUS[k] for k in sch.status].count("unseen") == 18

    def test_the_per_pair_table(self):
        sch = stretch_schedule(StretchSettings(method="linear"))
        table = sch.pair_table()
        assert list(table) == [
            "pair",
            "theta",
            "wavelength",
            "trained_max_angle",
            "target_max_angle_unscaled",
            "scaled_theta",
            "scaled_wavelength",
            "target_max_angle",
            "never_completes_turn",
            "out_of_band_unscaled",
            "out_of_band",
        ]
        np.testing.assert_allclose(table["wavelength"], wavelengths(rope_frequencies(128)))
        np.testing.assert_allclose(table["scaled_wavelength"], 4 * table["wavelength"])
        np.testing.assert_array_equal(
            table["never_completes_turn"], never_complete_turn(rope_frequencies(128), 4096)
        )
        assert not table["out_of_band"].any() and table["out_of_band_unscaled"].sum() == 18
        assert sch.moved.all()


class TestAngleLines:
    @pytest.mark.parametrize(
        "method", ["default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"]
    )
    def test_exact_with_few_points_up_to_a_million(self, method):
        d = 96 if method == "longrope" else 128
        extra = LONGROPE if method == "longrope" else {}
        s = StretchSettings(method=method, d=d, target_len=2**20, factor=256.0, **extra)
        sch = stretch_schedule(s)
        lines = angle_lines(sch)
        assert set(lines) >= {"default", "linear", "ntk", method}
        for line in lines.values():
            assert line.positions.size <= 64
            assert line.positions[0] == 0 and line.positions[-1] == 2**20
            assert np.all(line.angles[:, 0] == 0)
            np.testing.assert_allclose(line.excess, line.angles[:, -1] / sch.trained_edge)
        np.testing.assert_array_equal(lines["default"].angles[:, -1], sch.theta * 2**20)
        np.testing.assert_allclose(lines["linear"].angles[:, -1], sch.theta * 2**20 / 256)
        if method == "dynamic":
            # Each point: the last of S tokens, at dynamic NTK's speed for S (a loop).
            for n, angles in zip(sch.dynamic_lengths, lines["dynamic"].angles.T[1:], strict=True):
                expected = s.rope_parameters(seq_len=int(n))[0] * n
                np.testing.assert_allclose(angles, expected, rtol=1e-12)
        elif method == "longrope":
            positions = lines["longrope"].positions.tolist()
            assert positions == [0, 4096, 4096, 2**20]  # the lists switch at L
        else:
            np.testing.assert_allclose(lines[method].angles[:, -1], sch.scaled * 2**20)

    def test_at_the_trained_length_nothing_leaves_the_band(self):
        sch = stretch_schedule(StretchSettings(method="dynamic", target_len=4096, factor=1.0))
        lines = angle_lines(sch)
        assert lines["dynamic"].positions.tolist() == [0, 4096]
        np.testing.assert_allclose(lines["dynamic"].excess, 1.0)
        assert sch.counts == {"none": 0, "method": 0, "linear": 0, "ntk": 0}


class TestSettings:
    def test_hugging_face_keys(self):
        s = StretchSettings(method="yarn", factor=4.0, mscale=1.0, mscale_all_dim=0.0)
        max_pos, keys = s.hf_parameters()
        assert max_pos == 16_384 and keys["original_max_position_embeddings"] == 4096
        assert "mscale" in keys and "mscale_all_dim" not in keys  # 0 means "not set"
        assert s.hf_parameters("linear") == (4096, {"factor": 4.0})
        assert s.served_len == s.target_len

    def test_hashable_and_equal_by_value(self):
        a = StretchSettings(method="longrope", d=96, **LONGROPE)
        b = StretchSettings(method="longrope", d=96, **{k: list(v) for k, v in LONGROPE.items()})
        assert a == b and hash(a) == hash(b)

    @pytest.mark.parametrize(
        ("kwargs", "name"),
        [
            ({"method": "xpos"}, "method"),
            ({"base": 1.0}, "base"),
            ({"d": 129}, "d"),
            ({"d": 2}, "d"),
            ({"trained_len": 0}, "trained_len"),
            ({"target_len": 100}, "target_len"),
            ({"factor": 0.5}, "factor"),
            ({"served_len": 0}, "served_len"),
            ({"beta_fast": -1.0}, "beta_fast"),
            ({"mscale": -1.0}, "mscale"),
            ({"attention_factor": float("nan")}, "attention_factor"),
            ({"truncate": "yes"}, "truncate"),
            ({"method": "longrope"}, "longrope needs short_factor"),
            ({"short_factor": []}, "short_factor"),
        ],
    )
    def test_bad_arguments_are_named(self, kwargs, name):
        with pytest.raises(ValueError, match=name):
            StretchSettings(**kwargs)

    def test_a_method_refusing_its_knobs_names_it(self):
        with pytest.raises(RopeScalingError, match="beta_fast"):
            stretch_schedule(StretchSettings(method="yarn", beta_fast=1.0, beta_slow=8.0))
        with pytest.raises(ValueError, match="method"):
            StretchSettings().hf_parameters("xpos")

    def test_trained_turns(self):
        theta = rope_frequencies(128)
        np.testing.assert_allclose(trained_turns(theta, 4096), theta * 4096 / (2 * math.pi))
        with pytest.raises(ValueError, match="trained_len"):
            trained_turns(theta, 0)


@settings(max_examples=60, deadline=None)
@given(
    method=st.sampled_from(["default", "linear", "ntk", "dynamic", "yarn", "llama3"]),
    d=st.integers(2, 128).map(lambda k: 2 * k),
    base=st.floats(100.0, 1e7),
    trained=st.integers(128, 2**16),
    stretch=st.floats(1.0, 64.0),
    served=st.floats(0.0, 1.0),
)
def test_any_setting_is_consistent(method, d, base, trained, stretch, served):
    target = min(round(trained * stretch), 2**20)
    s = StretchSettings(
        method=method,
        base=base,
        d=d,
        trained_len=trained,
        target_len=target,
        factor=target / trained,
        served_len=max(1, round(served * target)),
    )
    sch = stretch_schedule(s)
    assert sch.theta.shape == sch.scaled.shape == (d // 2,)
    assert np.all(np.isfinite(sch.scaled)) and np.all(sch.scaled > 0)
    # Every method only slows pairs down (dynamic and LongRoPE never speed them up).
    assert np.all(sch.scaled <= sch.theta * (1 + 1e-9))
    assert sch.counts["method"] == int(sch.out_of_band.sum())
    assert sch.counts["linear"] == 0
    np.testing.assert_array_equal(sch.status == 2, sch.out_of_band)
    np.testing.assert_array_equal(sch.status == 1, sch.never & ~sch.out_of_band)
    for line in angle_lines(sch).values():
        assert line.positions[-1] == target and np.all(np.diff(line.positions) >= 0)
    assert replace(s, method="default") == StretchSettings(**{**s.__dict__, "method": "default"})
