"""Context-extension page: presets, scaling methods, bands, pasted configs, links."""

from __future__ import annotations

import csv
import io
import json

import holoviews as hv
import numpy as np
import pytest
from bokeh.models import Legend
from panel.io.state import set_curdoc

from app.extension import MAX_TARGET, ExtensionPage, scaling_call
from app.urlstate import page_query
from positional_core.extension import never_complete_turn, ntk_scaled_base, out_of_band
from positional_core.hf_config import NoRopeError, read_rope_config, rope_from_hf_config
from positional_core.presets import MODEL_CONFIG_NAMES, model_config
from positional_core.rope import rope_frequencies, wavelengths

from .test_inplace import _assert_same_figures, _rendered

ROPE_PRESETS = [
    n
    for n in MODEL_CONFIG_NAMES
    if n not in {"gpt2", "bert-base-uncased", "bloom", "bloom-560m", "mpt-7b", "t5-base"}
]
NO_ROPE = {
    "gpt2": "sinusoidal",
    "bert-base-uncased": "sinusoidal",
    "bloom": "alibi",
    "bloom-560m": "alibi",
    "mpt-7b": "alibi",
    "t5-base": "relative",
}


@pytest.fixture
def page():
    return ExtensionPage()


def _elements(overlay, group):
    return [e for e in overlay if e.group == group]


# ------------------------------------------------------------- reference numbers
def test_default_is_the_worked_example(page):
    """d = 128, base 10,000, L = 4,096, served at 16,384 with no scaling."""
    assert (page.d, page.base, page.trained_len, page.target_len) == (128, 10_000, 4096, 16_384)
    s = page.summary()
    assert s["never_complete"] == 18
    assert s["out_of_band_before"] == s["out_of_band_after"] == 18
    assert s["pairs"] == 64
    # The slowest pair reaches four times its trained maximum (1.89 rad).
    lines = page.angle_lines(63)
    assert lines["default"][1][-1] == pytest.approx(1.89, abs=0.005)
    assert "<b>18</b> of 64" in page._schedule_readout()
    assert "<b>18</b> of 64" in page._quick_answer()


def test_ntk_base_for_eight_times_the_length(page):
    page.target_len = 8 * 4096
    assert page.factor == 8.0
    page.method = "ntk"
    s = page.summary()
    assert round(s["ntk_base"]) == 82_685 == round(ntk_scaled_base(10_000, 8, 128))
    assert "82,685" in page._methods_readout()
    # Only the slowest pair is slowed by exactly s: 17 pairs still leave the band;
    # interpolation keeps all of them in.
    assert s["slowest_slowdown"] == pytest.approx(8.0)
    assert s["fastest_scaled_angle_per_token"] == 1.0
    assert s["out_of_band_after"] == s["out_of_band_ntk"] == 17
    assert s["out_of_band_linear"] == 0
    page.target_len = 4 * 4096
    assert round(page.summary()["ntk_base"], -2) == 40_900


def test_interpolation_slows_the_fastest_pair_to_one_over_s(page):
    page.method = "linear"
    s = page.summary()
    assert s["fastest_scaled_angle_per_token"] == pytest.approx(0.25)
    assert s["out_of_band_after"] == 0
    assert "1 → <b>0.25</b> rad" in page._methods_readout()


def test_factor_and_target_drive_each_other(page):
    page.factor = 8.0
    assert page.target_len == 32_768
    page.target_len = 65_536
    assert page.factor == 16.0
    page.trained_len = 8192  # L moves, L′ stays: s follows
    assert (page.target_len, page.factor) == (65_536, 8.0)
    page.trained_len = 131_072  # past L′: L′ is pulled up to L
    assert page.target_len == 131_072 and page.factor == 1.0
    assert page.param.target_len.bounds[0] == 131_072


def test_served_length_follows_the_target_when_at_it(page):
    assert page.served_len == page.target_len
    page.target_len = 20_000
    assert page.served_len == 20_000
    page.served_len = 5000
    page.target_len = 30_000
    assert page.served_len == 5000
    page.target_len = 4096
    assert page.served_len == 4096  # clamped to L′


# ------------------------------------------------------------------ presets
@pytest.mark.parametrize("name", ROPE_PRESETS)
def test_preset_fills_controls_and_numbers_equal_the_core(page, name):
    config = model_config(name)
    info = read_rope_config(config)
    page.preset = "custom"
    page.preset = name
    assert page.d == info.rotary_dim
    assert page.base == info.base
    assert page.trained_len == info.trained_len
    assert page.factor == info.factor
    assert page.method == info.rope_type
    assert page.target_len == max(
        info.max_position_embeddings, round(info.factor * info.trained_len)
    )
    assert page.pair == info.n_pairs - 1
    sch = page.schedule()
    inv_freq, attention = rope_from_hf_config(config, seq_len=page.served_len)
    np.testing.assert_array_equal(sch.scaled, inv_freq)
    assert sch.attention == attention
    np.testing.assert_array_equal(sch.theta, info.default_inv_freq())
    assert page.changed_since_load() == []
    assert page.config_warnings == []
    html = page._model_html()
    assert f"{info.head_dim:,}" in html and f"{info.trained_len:,}" in html
    assert f"<code>{info.rope_type}</code>" in html


def test_qwen_128k_block_targets_factor_times_trained_length(page):
    page.preset = "qwen2.5-7b-instruct-yarn-128k"
    assert (page.trained_len, page.factor, page.target_len) == (32_768, 4.0, 131_072)
    assert page.summary()["attention_factor"] == pytest.approx(0.1 * np.log(4) + 1)
    low, high = page.summary()["yarn_range"]
    assert 0 <= low < high


def test_llama31_serves_twice_what_its_factor_covers(page):
    """Llama 3.1: s = 8 on L = 8,192, maximum length 131,072 = 16 L."""
    page.preset = "llama-3.1-8b"
    assert (page.trained_len, page.factor, page.target_len) == (8192, 8.0, 131_072)
    s = page.summary()
    assert s["llama3_bands"] == {"high": 29, "medium": 6, "low": 29}
    # Its 29 interpolated pairs reach twice their trained edge at 131,072.
    assert s["out_of_band_after"] == 29
    assert "L′/L" in page._methods_readout()


def test_partial_rotary_and_longrope_presets(page):
    page.preset = "phi-2"
    assert (page.d, page.model.info.head_dim) == (32, 80)
    page.preset = "phi-3.5-mini-instruct"
    assert page.d == 96 and page.method == "longrope"
    page.served_len = 4096  # short factors up to L
    short = rope_from_hf_config(model_config("phi-3.5-mini-instruct"), seq_len=4096)
    np.testing.assert_array_equal(page.schedule().scaled, short[0])
    assert "<b>short</b>" in page._methods_readout()


@pytest.mark.parametrize("name", sorted(NO_ROPE))
def test_models_without_rope_say_so_and_link_their_page(page, name):
    before = page._values()
    page.preset = name
    assert isinstance(page.model.no_rope, NoRopeError)
    html = page._model_html()
    assert "has no RoPE" in html
    assert f'href="?page={NO_ROPE[name]}"' in html
    after = page._values()
    assert {k: v for k, v in after.items() if k != "preset"} == {
        k: v for k, v in before.items() if k != "preset"
    }


def test_edits_after_a_preset_are_listed_and_reset(page):
    page.preset = "llama-3.1-8b"
    page.high_freq_factor = 8.0
    page.d = 64
    changed = {name for name, _, _ in page.changed_since_load()}
    assert changed == {"d", "high_freq_factor"}
    assert "Changed since the model was loaded" in page._model_html()
    page.reload_preset()
    assert (page.d, page.high_freq_factor) == (128, 4.0)
    assert page.changed_since_load() == []


# ------------------------------------------------------------------ figures
def test_schedule_figure_colours_pairs_by_band(page):
    overlay = page._schedule_plot()
    (dots,) = _elements(overlay, "Pairs")
    np.testing.assert_allclose(
        dots.dimension_values("wavelength"), wavelengths(rope_frequencies(128))
    )
    status = list(dots.dimension_values("status"))
    assert status.count("no full turn; unseen angles at L′") == 18
    assert status.count("full turns within L") == 46
    (diamonds,) = _elements(overlay, "Scaled")
    assert len(diamonds) == 0  # nothing scaled with no method
    page.method = "linear"
    overlay = page._schedule_plot()
    (diamonds,) = _elements(overlay, "Scaled")
    np.testing.assert_allclose(
        diamonds.dimension_values("wavelength"), 4 * wavelengths(rope_frequencies(128))
    )
    status = list(_elements(overlay, "Pairs")[0].dimension_values("status"))
    assert status.count("no full turn; in band at L′") == 18


def test_band_chart_lines_are_exact_with_few_points_up_to_a_million(page):
    page.target_len = MAX_TARGET
    for method in ("default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"):
        page.method = method
        i = page.pair
        sch = page.schedule()
        lines = page.angle_lines()
        assert set(lines) >= {"default", "linear", "ntk", method}
        for _key, (x, y) in lines.items():
            assert len(x) <= 64 and x[0] == 0 and x[-1] == sch.target_len
            assert y[0] == 0
        T = sch.target_len
        assert lines["default"][1][-1] == sch.theta[i] * T
        assert lines["linear"][1][-1] == pytest.approx(sch.theta[i] * T / sch.factor)
        if method == "dynamic":
            # The last sampled length is L′ itself, at the core's dynamic speed there.
            served = dict(page._values(), served_len=T)
            assert lines["dynamic"][1][-1] == pytest.approx(
                scaling_call(served, "dynamic")[0][i] * T
            )
        elif method != "longrope":
            assert lines[method][1][-1] == pytest.approx(sch.scaled[i] * T)


#: E2's band label's box, as a share of the axes: measured in Chromium at the
#: narrowest card (two columns at 1,400 px), a quarter of the width and a
#: sixteenth of the height; a third and a fifteenth here, for some margin.
_LABEL_WIDTH, _LABEL_HEIGHT = 1 / 3, 1 / 15


@pytest.mark.parametrize("method", ["default", "linear", "ntk", "yarn", "dynamic"])
@pytest.mark.parametrize("factor", [1, 1.2, 1.5, 1.9, 2, 2.5, 4, 32])
@pytest.mark.parametrize("pair", [0, 40, 63])
def test_band_label_is_crossed_by_no_line(page, factor, method, pair):
    """E2's band label sits on the band's edge, and neither L's line nor a
    method's line runs through it. Written half the axis wide at L′, it was
    crossed by L's line from L′ = L to about 2 L."""
    page.target_len = round(factor * page.trained_len)
    page.method = method
    page.pair = pair
    sch = page.schedule()
    i = page._pair_key()
    rows = page._pair_rows(i, sch)
    labels = rows["labels"]
    edge = float(sch.trained_edge[i])
    assert labels["text"][1].strip() in {"trained band", "every angle seen"}
    assert labels["angle"][1] == pytest.approx(edge)
    assert labels["baseline"][1] == "bottom" == labels["text_baseline"][1]
    # The axis leaves room above the edge for the text.
    y_end = rows["band"]["__y_end"][0]
    assert y_end - edge >= _LABEL_HEIGHT * y_end
    x_end = sch.target_len * 1.02
    width = _LABEL_WIDTH * x_end
    start = labels["position"][1] - (width if labels["align"][1] == "right" else 0)
    assert start >= 0 and start + width <= x_end
    assert not start < sch.trained_len < start + width
    top = edge + _LABEL_HEIGHT * y_end
    for name, (x, y) in page.angle_lines(i, sch).items():
        inside = (x >= start) & (x <= start + width) & (y > edge * (1 + 1e-9)) & (y < top)
        assert not inside.any(), f"{name} runs through the label"


def test_e1_length_labels_sit_on_either_side_of_their_lines(page):
    """E1's "trained L" label hangs under its line when "target L′" is drawn
    above its own: at L′ = 1.2 L the lines are a few pixels apart, and the two
    labels, both above their lines, overlapped."""
    page.target_len = round(1.2 * page.trained_len)
    (labels,) = _elements(page._schedule_plot(), "Lengths")[1:]
    assert list(labels.dimension_values("baseline")) == ["top", "bottom"]
    page.target_len = page.trained_len
    (labels,) = _elements(page._schedule_plot(), "Lengths")[1:]
    # Alone, L's label reads above its line (L′'s is empty).
    assert labels.dimension_values("baseline")[0] == "bottom"
    assert labels.dimension_values("text")[1] == ""


@pytest.mark.parametrize(
    ("factor", "align"), [(1, "right"), (1.2, "right"), (1.25, "left"), (4, "left")]
)
def test_trained_length_label_stays_inside_the_axis(page, factor, align):
    """E2's "L = …" label reads away from the axis' end: at L′ = L its line is
    the right edge, and the label, written to its right, was cut off."""
    page.target_len = round(factor * page.trained_len)
    rows = page._pair_rows(page._pair_key(), page.schedule())
    labels = rows["labels"]
    assert labels["position"][0] == page.trained_len
    assert labels["text"][0].strip() == f"L = {page.trained_len:,}"
    assert labels["align"][0] == align == labels["text_align"][0]


def test_band_chart_highlights_the_selected_method(page, render, document):
    plot = render(page.figures["band"].plot)
    document.add_root(plot.state)

    def legend_labels():
        return [item.label.value for legend in plot.state.select(Legend) for item in legend.items]

    assert "no scaling (selected)" in legend_labels()
    page.method = "yarn"
    labels = legend_labels()
    assert "YaRN (selected)" in labels and "no scaling (selected)" not in labels
    (selected,) = _elements(page._band_plot(), "Selected")
    _, y = page.angle_lines()["yarn"]
    np.testing.assert_allclose(selected.dimension_values("angle"), y)
    (band,) = _elements(page._band_plot(), "Band")
    edge = page.schedule().trained_edge[page.pair]
    assert band.dimension_values(1)[0] == pytest.approx(edge)


def test_method_change_patches_the_plots_without_rebuilding(page, render):
    plot = render(page.figures["band"].plot)
    before = set(plot.subplots)
    for method in ("yarn", "llama3", "dynamic", "longrope", "default"):
        page.method = method
    assert set(plot.subplots) == before


def test_slowdown_figure_and_ramp(page):
    page.method = "yarn"
    overlay = page._slowdown_plot()
    (line,) = [e for e in _elements(overlay, "Selected") if isinstance(e, hv.Curve)]
    sch = page.schedule()
    np.testing.assert_allclose(line.dimension_values("slowdown"), sch.theta / sch.scaled)
    ramp = page._ramp_plot().dimension_values("ramp")
    low, high = sch.yarn_range
    assert ramp[0] == 0 and ramp[-1] == 1
    assert ramp[int(np.floor(low))] == 0 and ramp[min(int(np.ceil(high)), 63)] == 1
    assert "YaRN ramp" in page._methods_readout()


def test_longrope_pins_d_to_its_factors(page):
    page.method = "longrope"
    assert page.d == 96
    assert page.pair == 47  # the slowest pair stays the slowest
    assert any("LongRoPE" in n for n in page.notes)
    page.d = 128
    assert page.d == 96


def test_rules_keep_method_parameters_valid(page):
    page.beta_fast = 2.0
    page.beta_slow = 8.0
    assert page.beta_slow == 2.0
    page.low_freq_factor = 8.0
    assert page.high_freq_factor > page.low_freq_factor
    page.attention_factor = 0.0001
    assert page.attention_factor == 0.001
    for method in ("yarn", "llama3", "longrope"):
        page.method = method
        assert page.schedule().notes == ()


def test_csv_is_the_core_table(page):
    page.method = "linear"
    rows = list(csv.DictReader(io.StringIO(page._csv().read())))
    assert len(rows) == 64
    assert list(rows[0]) == [
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
    sch = page.schedule()
    np.testing.assert_array_equal([float(r["theta"]) for r in rows], sch.theta)
    np.testing.assert_array_equal([float(r["scaled_theta"]) for r in rows], sch.scaled)
    theta = rope_frequencies(128)
    np.testing.assert_allclose(sch.scaled, theta / 4, rtol=1e-14)
    np.testing.assert_array_equal(
        [r["never_completes_turn"] == "true" for r in rows], never_complete_turn(theta, 4096)
    )
    np.testing.assert_array_equal(
        [r["out_of_band_unscaled"] == "true" for r in rows], out_of_band(theta, 4096, 16_384)
    )
    assert not any(r["out_of_band"] == "true" for r in rows)


# ------------------------------------------------------------ pasted configs
BAD_CONFIGS = {
    "invalid JSON": ('{"hidden_size": 4096,', "line 1, column 22"),
    "empty": ("   ", "config is empty"),
    "too large": ("{" + " " * 300_000 + "}", "the limit is 262,144 bytes"),
    "not UTF-8": (b'{"hidden_size": 4096, "x": "\xff"}', "not UTF-8"),
    "NaN": ('{"hidden_size": NaN}', "NaN, which is not valid JSON"),
    "Infinity": ('{"head_dim": 128, "rope_theta": Infinity}', "Infinity"),
    "an array": ("[1, 2]", "must be a JSON object"),
    "too deep": ('{"a":' * 30 + "1" + "}" * 30, "nested deeper than 20"),
    "no head size": (
        '{"num_attention_heads": 32, "max_position_embeddings": 4096}',
        "hidden_size is missing",
    ),
    "number as string": (
        '{"hidden_size": "4096", "num_attention_heads": 32, "max_position_embeddings": 4096}',
        "hidden_size must be a whole number",
    ),
    "negative size": ('{"head_dim": -128, "max_position_embeddings": 4096}', "head_dim must be"),
    "no max length": ('{"head_dim": 128}', "max_position_embeddings is missing"),
    "unknown rope_type": (
        '{"head_dim": 128, "max_position_embeddings": 4096, "rope_scaling": '
        '{"rope_type": "xpos", "factor": 2}}',
        "supported: default, linear, dynamic, yarn, longrope, llama3",
    ),
    "factor below 1": (
        '{"head_dim": 128, "max_position_embeddings": 4096, "rope_scaling": '
        '{"rope_type": "linear", "factor": 0.5}}',
        "rope_scaling.factor must be a number from 1",
    ),
    "llama3 key missing": (
        '{"head_dim": 128, "max_position_embeddings": 4096, "rope_scaling": '
        '{"rope_type": "llama3", "factor": 8, "high_freq_factor": 4}}',
        "needs 'low_freq_factor'",
    ),
    "odd rotary dims": (
        '{"head_dim": 90, "partial_rotary_factor": 0.5, "max_position_embeddings": 2048}',
        "must be even",
    ),
    "block not an object": (
        '{"head_dim": 128, "max_position_embeddings": 4096, "rope_scaling": "yarn"}',
        "rope_scaling must be an object",
    ),
    "betas reversed": (
        '{"head_dim": 128, "max_position_embeddings": 4096, "rope_scaling": '
        '{"rope_type": "yarn", "factor": 4, "beta_fast": 1, "beta_slow": 32}}',
        "beta_fast (1) must be at least beta_slow (32)",
    ),
    "LongRoPE list length": (
        '{"head_dim": 8, "max_position_embeddings": 4096, "rope_scaling": '
        '{"rope_type": "longrope", "short_factor": [1, 1], "long_factor": [1, 2, 3, 4]}}',
        "short_factor must have one entry per rotary pair",
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD_CONFIGS))
def test_bad_config_gets_its_message_and_keeps_the_state(page, kind):
    text, message = BAD_CONFIGS[kind]
    page.preset = "llama-3.1-8b"
    values, model, revision = page._values(), page.model, page.revision
    assert page.apply_config(text) is False
    assert len(page.config_errors) == 1 and message in page.config_errors[0]
    assert page._values() == values
    assert page.model is model and page.revision == revision
    # The next good config clears the message.
    assert page.apply_config(json.dumps(model_config("mistral-7b-v0.1")))
    assert page.config_errors == []


def test_pasted_config_fills_controls_and_is_not_in_the_link(page):
    config = model_config("deepseek-v3-rope")
    config["rope_scaling"]["factor"] = 16
    config["_source"] = "<script>alert(1)</script>"
    assert page.apply_config(json.dumps(config), "pasted config")
    assert page.preset == "custom"
    assert (page.d, page.trained_len, page.factor, page.method) == (64, 4096, 16.0, "yarn")
    inv_freq, attention = rope_from_hf_config(config, seq_len=page.served_len)
    np.testing.assert_array_equal(page.schedule().scaled, inv_freq)
    assert page.summary()["attention_factor"] == attention
    assert page.model.source == "pasted"
    shown = page._config_html()
    assert "<script>" not in shown and "&lt;script&gt;" in shown
    query = page_query("extension", page, page.control_names())
    assert query["preset"] == "custom" and "_source" not in json.dumps(query)


def test_pasted_config_without_rope_links_to_its_page(page):
    assert not page.apply_config(json.dumps(model_config("bloom")))
    assert "has no RoPE" in page.config_errors[0]
    assert 'href="?page=alibi"' in page._link_html()
    assert page.apply_config(json.dumps(model_config("llama-2-7b")))
    assert page._link_html() == ""


def test_config_past_the_page_limits_is_clamped_with_notes(page):
    config = {
        "head_dim": 2048,
        "max_position_embeddings": 10_000_000,
        "rope_theta": 5,
        "rope_scaling": {"rope_type": "yarn", "factor": 64, "beta_fast": 500, "foo": 1},
    }
    assert page.apply_config(json.dumps(config))
    warnings = " ".join(page.config_warnings)
    assert "2,048" in warnings and "rope_theta" in warnings and "beta_fast" in warnings
    assert "foo" in warnings
    assert page.d == 512 and page.target_len == MAX_TARGET


def test_upload_handler_reads_bytes(page):
    page._e4_card()
    page._file_input.filename = "my config.json"
    page._file_input.value = json.dumps(model_config("gpt-oss")).encode()
    assert page.model.source == "uploaded" and page.method == "yarn" and page.truncate is False
    page._file_input.value = b"\xff\xfe{"
    assert "not UTF-8" in page.config_errors[0]
    assert page.model.source == "uploaded"


def test_apply_button_reads_the_box(page):
    page._e4_card()
    page._text_box.value = json.dumps(model_config("codellama-7b"))
    page._on_apply()
    assert page.base == 1_000_000 and page.trained_len == 16_384


# ------------------------------------------------------------------- links
def test_link_round_trip(page):
    page.preset = "gpt-oss"
    page.param.update(pair=7, beta_fast=16.0)
    query = page_query("extension", page, page.control_names())
    other = ExtensionPage()
    notes = other.apply_query(query)
    assert notes == []
    assert other._values() == page._values()
    np.testing.assert_array_equal(other.schedule().scaled, page.schedule().scaled)


def test_link_values_are_clamped_or_ignored_with_notes(page):
    notes = page.apply_query(
        {
            "d": "65",
            "target_len": "1e12",
            "method": "xpos",
            "preset": "nope",
            "beta_fast": "nan",
            "pair": "999",
        }
    )
    text = " ".join(notes)
    assert page.d == 64 and "d = 65 is odd" in text
    assert page.target_len == MAX_TARGET
    assert page.method == "default" and "xpos" in text
    assert page.preset == "llama-2-7b" and "nope" in text
    assert page.beta_fast == 32.0
    assert page.pair == 31
    assert page.notes == notes


def test_a_tiny_attention_factor_from_a_link_is_raised_with_a_note(page):
    """Found by the link fuzz: 4.5e-241 was raised to 0.001 without a word."""
    notes = page.apply_query({"attention_factor": "4.520767403848584e-241"})
    assert page.attention_factor == 0.001
    assert any(n.startswith("attention_factor (4.52077e-241) is below 0.001") for n in notes)


def test_link_with_factor_only_sets_the_target(page):
    page.apply_query({"factor": "8", "trained_len": "2048"})
    assert (page.trained_len, page.factor, page.target_len) == (2048, 8.0, 16_384)
    page.apply_query({"target_len": "8192"})
    assert page.factor == 4.0


def test_a_link_moving_the_target_takes_a_served_length_that_was_on_it(page):
    """``?factor=1`` alone clamped S (16,384) to L′ = 4,096 with a note about a
    knob the default method does not show; a slider keeps S on L′ instead."""
    assert page.served_len == page.target_len
    notes = page.apply_query({"factor": "1"})
    assert page.target_len == page.trained_len == page.served_len == 4096
    assert not any("Served length" in note for note in notes)
    # A link that names S keeps its S (clamped, with a note, past L′).
    notes = page.apply_query({"target_len": "8192", "served_len": "20000"})
    assert page.served_len == 8192 and any("Served length" in note for note in notes)
    # An S moved off L′ stays where it is.
    page.apply_query({"served_len": "5000"})
    page.apply_query({"target_len": "16384"})
    assert (page.served_len, page.target_len) == (5000, 16_384)


def test_link_with_a_preset_gets_its_values(page):
    page.apply_query({"preset": "llama-2-7b"})  # the default preset: still filled
    assert page.target_len == 4096
    page.apply_query({"preset": "llama-3.1-8b", "target_len": "65536"})
    assert (page.method, page.target_len, page.factor) == ("llama3", 65_536, 8.0)


def test_a_link_with_a_preset_and_values_redraws_once(page):
    """The preset's fill and the link's values are one change: one schedule, one redraw."""
    computed = []
    compute = page._compute
    page._compute = lambda values: computed.append(values) or compute(values)
    seen = []
    page.param.watch(lambda *es: seen.extend(e.name for e in es), ["revision", "pair_revision"])
    page.figures  # noqa: B018 (the figures are built, so redraws compute)
    page.apply_query({"preset": "qwen2.5-7b-instruct-yarn-128k", "d": "96", "pair": "3"})
    assert (page.d, page.pair, page.method) == (96, 3, "yarn")
    assert sorted(seen) == ["pair_revision", "revision"]
    page.schedule()
    assert [v["d"] for v in computed] == [96]


def test_a_change_is_fast_at_the_largest_target(page, render, document):
    """E2 at L′ = 1,048,576 under dynamic NTK: a few dozen points, never per position."""
    page.param.update(target_len=MAX_TARGET, method="dynamic")
    assert page.served_len == MAX_TARGET
    document.add_root(render(page.figures["band"].plot).state)
    with set_curdoc(document):
        page.served_len = MAX_TARGET // 2
    # Its time is measured by benchmarks/latency.py and robustness.py, not here.
    assert sum(len(x) for x, _ in page.angle_lines().values()) < 100


def test_log_sliders_map_positions_to_values_both_ways(page):
    page.controls()
    target = page._log_sliders["target_len"]
    base = page._log_sliders["base"]
    target.widget.value = 15.0  # log2 of 32,768
    assert page.target_len == 32_768 and page.factor == 8.0
    assert target.value_at(14.1) == 17_560  # floor(2**14.1 + 0.5), as the label shows
    base.widget.value = 4.05
    assert page.base == 11_220.0  # four significant digits
    page.preset = "llama-3.1-8b"  # set elsewhere: exact value, slider follows
    assert page.base == 500_000.0
    assert base.widget.value == pytest.approx(np.log10(500_000))
    assert target.widget.start == pytest.approx(13.0)  # L′ ≥ L = 8,192
    factor = page._log_sliders["factor"]
    assert factor.widget.end == pytest.approx(np.log2(MAX_TARGET / 8192))


@pytest.mark.parametrize("position", [65_536.0, -1e9, float("inf"), float("nan")])
def test_a_log_slider_position_past_its_ends_is_its_nearest_end(page, position):
    """A browser can send any number for a slider: it must not raise (2**65536
    overflowed in the server's callback), and the handle goes back on the value."""
    page.controls()
    target = page._log_sliders["target_len"]
    target.widget.value = position
    low, high = page.param.target_len.bounds
    assert page.target_len == (high if position > 0 else low)  # NaN > 0 is False
    assert target.widget.start <= target.widget.value <= target.widget.end
    assert target.widget.value == pytest.approx(np.log2(page.target_len))


def test_the_browser_refuses_uploads_over_the_same_limit_as_the_server():
    """app/static/a11y.js stops a file over the limit before it is sent (one
    websocket message too big closes the session); its limit is the core's."""
    import re
    from pathlib import Path

    from positional_core.hf_config import MAX_CONFIG_BYTES

    script = (Path(__file__).resolve().parents[2] / "app" / "static" / "a11y.js").read_text()
    (limit,) = re.findall(r"var MAX_UPLOAD_BYTES = (\d+);", script)
    assert int(limit) == MAX_CONFIG_BYTES


# ------------------------------------------------ readout-only changes (issue 8)
#: YaRN's knobs that only change the attention factor, with a second value each.
ATTENTION_ONLY = {"mscale": 1.5, "mscale_all_dim": 0.5, "attention_factor": 1.3}
#: A YaRN state in which each of them matters (mscale alone, without
#: mscale_all_dim, is not read: transformers' _compute_yarn_parameters).
YARN = {"method": "yarn", "factor": 4.0, "mscale": 1.0, "mscale_all_dim": 1.0}


@pytest.mark.parametrize("name", sorted(ATTENTION_ONLY))
def test_an_attention_only_knob_rewrites_the_readouts_not_the_figures(name):
    """mscale, mscale_all_dim and attention_factor change no frequency: the figures
    stay as drawn (no redraw) and the readouts show the new attention factor, and
    what is drawn is what a page opened at the new values draws."""
    page = ExtensionPage(**YARN)
    root, doc = _rendered(page)
    before = page.summary()["attention_factor"]
    seen = []
    page.param.watch(lambda *es: seen.extend(e.name for e in es), ["revision", "readout_revision"])
    patched = page.in_place.patched + page.in_place.direct
    with set_curdoc(doc):
        page.param.update({name: ATTENTION_ONLY[name]})
    after = page.summary()["attention_factor"]
    assert after != before
    assert seen == ["readout_revision"]
    assert page.in_place.patched + page.in_place.direct == patched, "a figure was redrawn"
    expected = f"<b>{after:.6g}"
    assert expected in page._methods_readout()
    fresh = ExtensionPage(**{**YARN, name: ATTENTION_ONLY[name]})
    fresh_root, _doc = _rendered(fresh)
    _assert_same_figures(root, fresh_root, name)


@pytest.mark.parametrize(
    ("name", "value"),
    [("beta_fast", 16.0), ("beta_slow", 2.0), ("truncate", False), ("factor", 8.0), ("d", 64)],
)
def test_a_knob_that_moves_a_frequency_redraws_the_figures(name, value):
    page = ExtensionPage(**YARN)
    _rendered(page)
    seen = []
    page.param.watch(lambda *es: seen.extend(e.name for e in es), ["revision", "readout_revision"])
    page.param.update({name: value})
    assert "revision" in seen


def test_same_drawing_compares_every_drawn_field():
    from dataclasses import fields, replace

    from app.extension import Schedule, same_drawing

    page = ExtensionPage(method="yarn", factor=4.0)
    base = page.schedule()
    assert same_drawing(base, replace(base, attention=base.attention * 2, notes=("x",)))
    for f in fields(Schedule):
        if f.name in ("attention", "notes"):
            continue
        value = getattr(base, f.name)
        if isinstance(value, np.ndarray):
            other = value.copy()
            other.flat[0] = other.flat[0] + 1 if other.dtype.kind != "b" else not other.flat[0]
        elif value is None:
            other = np.zeros(1)
        elif isinstance(value, tuple):
            other = (value[0] + 1, value[1])
        elif isinstance(value, str):
            other = value + "x"
        else:
            other = value + 1
        assert not same_drawing(base, replace(base, **{f.name: other})), f.name


def test_a_link_with_only_an_attention_knob_redraws_no_figure():
    page = ExtensionPage(method="yarn", factor=4.0)
    _ = page.figures
    seen = []
    page.param.watch(lambda *es: seen.extend(e.name for e in es), ["revision", "readout_revision"])
    page.apply_query({"mscale": "1.5"})
    assert page.mscale == 1.5
    assert seen == ["readout_revision"]
