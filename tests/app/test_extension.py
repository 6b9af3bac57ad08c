"""Context-extension page: presets, scaling methods, bands, pasted configs, links."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import panel as pn
import pytest
from bokeh.models import Legend
from panel.io.state import set_curdoc

from app.cards import is_shown
from app.pages.extension import MAX_TARGET, ExtensionPage
from app.pages.extension.methods import METHOD_FORMULAS, Methods
from app.pages.extension.models import config_html, model_html, no_rope_html
from app.pages.extension.schedule import Schedule
from app.pages.extension.shared import ATTENTION
from app.urlstate import page_query
from positional_core.extension import never_complete_turn, ntk_scaled_base, out_of_band
from positional_core.hf_config import NoRopeError, read_rope_config, rope_from_hf_config
from positional_core.presets import MODEL_CONFIG_NAMES, model_config
from positional_core.rope import rope_frequencies, wavelengths
from positional_core.stretch import angle_lines

from .drawn import assert_same_figures, rendered

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
METHODS = ("default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope")


@pytest.fixture
def page():
    return ExtensionPage()


def drawn(page, chart: str, mark: str) -> dict:
    return page.drawings[chart].drawn(mark)


def readout(page, chart: str) -> str:
    return page.drawings[chart].chart.readout(page)


def chosen(page, chart: str, mark: str) -> dict:
    """The chosen rows of a choice mark with their hidden columns (axis followers)."""
    return page.drawings[chart].frame().marks[mark].chosen(page.pair)


def lines(page) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """E2's lines as drawn: method → (positions, angles)."""
    out = {}
    for name in ("reference_default", "reference_linear", "reference_ntk", "selected"):
        data = drawn(page, "band", name)
        out[name] = (np.asarray(data["position"]), np.asarray(data["angle"]))
    return out


def controls(page) -> dict:
    return {name: getattr(page, name) for name in page.control_names()}


def _widget(view, kind, label):
    (widget,) = [w for w in view.select(kind) if w.label == label]
    return widget


# ------------------------------------------------------------- reference numbers
def test_default_is_the_worked_example(page):
    """d = 128, base 10,000, L = 4,096, served at 16,384 with no scaling."""
    assert (page.d, page.base, page.trained_len, page.target_len) == (128, 10_000, 4096, 16_384)
    sch = page.schedule()
    assert int(sch.never.sum()) == 18 and sch.n_pairs == 64
    assert sch.counts["none"] == sch.counts["method"] == 18
    # The slowest pair reaches four times its trained maximum (1.89 rad).
    assert page.pair == 63
    _, angles = lines(page)["reference_default"]
    assert angles[-1] == pytest.approx(1.89, abs=0.005)
    assert "<b>18</b> of 64" in readout(page, "schedule")
    assert "<b>18</b> of 64" in page.quick_check.answer()
    # No method: one count, not the same count again "after no scaling".
    assert readout(page, "schedule").endswith(
        "<b>18</b> pairs meet angles never seen in training with no scaling."
    )
    page.method = "linear"
    assert "; after interpolation: <b>0</b>." in readout(page, "schedule")


def test_ntk_base_for_eight_times_the_length(page):
    page.target_len = 8 * 4096
    assert page.factor == 8.0
    page.method = "ntk"
    sch = page.schedule()
    assert round(sch.ntk_base) == 82_685 == round(ntk_scaled_base(10_000, 8, 128))
    assert "82,685" in readout(page, "methods")
    # Only the slowest pair is slowed by exactly s: 17 pairs still leave the band;
    # interpolation keeps all of them in.
    assert sch.slowest_slowdown == pytest.approx(8.0)
    assert sch.scaled[0] == 1.0
    assert sch.counts["method"] == sch.counts["ntk"] == 17
    assert sch.counts["linear"] == 0
    page.target_len = 4 * 4096
    assert round(page.schedule().ntk_base, -2) == 40_900


def test_interpolation_slows_the_fastest_pair_to_one_over_s(page):
    page.method = "linear"
    assert page.schedule().scaled[0] == pytest.approx(0.25)
    assert page.schedule().counts["method"] == 0
    assert "1 → <b>0.25</b> rad" in readout(page, "methods")


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


def test_set_state_keeps_the_values_given(page):
    page.set_state(trained_len=8192, factor=4.0)
    assert (page.trained_len, page.factor, page.target_len) == (8192, 4.0, 16_384)
    page.set_state(d=64)  # the slowest pair stays the slowest
    assert page.pair == 31


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
    assert sch.attention_factor == attention
    np.testing.assert_array_equal(sch.theta, info.default_inv_freq())
    assert page.changed_since_load() == []
    assert page.config_warnings == []
    html = model_html(page)
    assert f"{info.head_dim:,}" in html and f"{info.trained_len:,}" in html
    assert f"<code>{info.rope_type}</code>" in html


def test_qwen_128k_block_targets_factor_times_trained_length(page):
    page.preset = "qwen2.5-7b-instruct-yarn-128k"
    assert (page.trained_len, page.factor, page.target_len) == (32_768, 4.0, 131_072)
    sch = page.schedule()
    assert sch.attention_factor == pytest.approx(0.1 * np.log(4) + 1)
    low, high = sch.yarn_range
    assert 0 <= low < high


def test_llama31_serves_twice_what_its_factor_covers(page):
    """Llama 3.1: s = 8 on L = 8,192, maximum length 131,072 = 16 L."""
    page.preset = "llama-3.1-8b"
    assert (page.trained_len, page.factor, page.target_len) == (8192, 8.0, 131_072)
    sch = page.schedule()
    assert sch.band_counts == {"high": 29, "medium": 6, "low": 29}
    # Its 29 interpolated pairs reach twice their trained edge at 131,072.
    assert sch.counts["method"] == 29
    text = readout(page, "methods")
    assert "L′/L" in text and "<b>29</b> / <b>6</b> / <b>29</b> pairs" in text
    assert "wavelength &lt; 2,048, &gt; 8,192" in text


def test_partial_rotary_and_longrope_presets(page):
    page.preset = "phi-2"
    assert (page.d, page.model.info.head_dim) == (32, 80)
    page.preset = "phi-3.5-mini-instruct"
    assert page.d == 96 and page.method == "longrope"
    page.served_len = 4096  # short factors up to L
    short = rope_from_hf_config(model_config("phi-3.5-mini-instruct"), seq_len=4096)
    np.testing.assert_array_equal(page.schedule().scaled, short[0])
    assert "<b>short</b>" in readout(page, "methods")


@pytest.mark.parametrize("name", sorted(NO_ROPE))
def test_models_without_rope_say_so_and_link_their_page(page, name):
    before = controls(page)
    page.preset = name
    assert isinstance(page.model.no_rope, NoRopeError)
    html = model_html(page)
    assert "has no RoPE" in html
    assert f'href="?page={NO_ROPE[name]}"' in html
    after = controls(page)
    assert {k: v for k, v in after.items() if k != "preset"} == {
        k: v for k, v in before.items() if k != "preset"
    }


def test_edits_after_a_preset_are_listed_and_reset(page):
    page.preset = "llama-3.1-8b"
    page.high_freq_factor = 8.0
    page.d = 64
    changed = {name for name, _, _ in page.changed_since_load()}
    assert changed == {"d", "high_freq_factor"}
    assert "Changed since the model was loaded" in model_html(page)
    (reset,) = [
        b for b in page.sidebar().select(pn.widgets.Button) if b.label.startswith("Reset to")
    ]
    reset.clicks += 1
    assert (page.d, page.high_freq_factor) == (128, 4.0)
    assert page.changed_since_load() == []


# ------------------------------------------------------------------ figures
def test_schedule_figure_colours_pairs_by_band(page):
    theta = rope_frequencies(128)
    turns, unseen = drawn(page, "schedule", "turns"), drawn(page, "schedule", "unseen")
    np.testing.assert_allclose(
        np.concatenate([turns["wavelength"], unseen["wavelength"]]), wavelengths(theta)
    )
    assert len(unseen["pair"]) == 18 and len(turns["pair"]) == 46
    assert set(unseen["status"]) == {"no full turn; unseen angles at L′"}
    assert len(drawn(page, "schedule", "scaled")["pair"]) == 0  # nothing scaled, no method
    frame = page.drawings["schedule"].frame()
    assert frame.labels["in band"] == ""  # no such pair: no legend entry
    page.method = "linear"
    diamonds = drawn(page, "schedule", "scaled")
    np.testing.assert_allclose(diamonds["wavelength"], 4 * wavelengths(theta))
    assert len(drawn(page, "schedule", "in band")["pair"]) == 18
    assert set(diamonds["tint"][46:]) == {"#0072B2"}  # in band: blue


def test_the_ring_marks_the_pair_of_e2(page):
    page.pair = 10
    ring = drawn(page, "schedule", "ring")
    assert list(ring["pair"]) == [10]
    assert ring["wavelength"][0] == pytest.approx(wavelengths(rope_frequencies(128))[10])


@pytest.mark.parametrize("method", METHODS)
def test_band_chart_lines_are_exact_with_few_points_up_to_a_million(page, method):
    page.target_len = MAX_TARGET
    page.method = method
    i, sch = page.pair, page.schedule()
    T = sch.settings.target_len
    drawn_lines = lines(page)
    for x, y in drawn_lines.values():
        assert len(x) <= 64 and x[0] == 0 and x[-1] == T
        assert y[0] == 0
    assert drawn_lines["reference_default"][1][-1] == sch.theta[i] * T
    assert drawn_lines["reference_linear"][1][-1] == pytest.approx(
        sch.theta[i] * T / sch.settings.factor
    )
    if method == "dynamic":
        # The last sampled length is L′ itself, at the core's dynamic speed there.
        speed = sch.settings.rope_parameters(seq_len=T)[0][i]
        assert drawn_lines["selected"][1][-1] == pytest.approx(speed * T)
    elif method != "longrope":
        assert drawn_lines["selected"][1][-1] == pytest.approx(sch.scaled[i] * T)


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
    texts = drawn(page, "band", "texts")
    edge = float(sch.trained_edge[pair])
    assert texts["text"][1].strip() in {"trained band", "every angle seen"}
    assert texts["angle"][1] == pytest.approx(edge)
    assert texts["baseline"][1] == "bottom"
    # The axis leaves room above the edge for the text.
    band = chosen(page, "band", "band")
    assert band["__y_start"][0] == 0
    y_end = band["__y_end"][0]
    assert y_end - edge >= _LABEL_HEIGHT * y_end
    x_end = page.drawings["band"].frame().x[1]
    assert x_end == sch.settings.target_len * 1.02
    width = _LABEL_WIDTH * x_end
    start = texts["position"][1] - (width if texts["align"][1] == "right" else 0)
    assert start >= 0 and start + width <= x_end
    assert not start < sch.settings.trained_len < start + width
    top = edge + _LABEL_HEIGHT * y_end
    for name, (x, y) in lines(page).items():
        inside = (x >= start) & (x <= start + width) & (y > edge * (1 + 1e-9)) & (y < top)
        assert not inside.any(), f"{name} runs through the label"


def test_e1_length_labels_sit_on_either_side_of_their_lines(page):
    """E1's "trained L" label hangs under its line when "target L′" is drawn
    above its own: at L′ = 1.2 L the lines are a few pixels apart, and the two
    labels, both above their lines, overlapped."""
    page.target_len = round(1.2 * page.trained_len)
    assert list(drawn(page, "schedule", "length_text")["baseline"]) == ["top", "bottom"]
    page.target_len = page.trained_len
    labels = drawn(page, "schedule", "length_text")
    # Alone, L's label reads above its line (L′'s is empty).
    assert labels["baseline"][0] == "bottom"
    assert labels["text"][1] == ""


@pytest.mark.parametrize(
    ("factor", "align"), [(1, "right"), (1.2, "right"), (1.25, "left"), (4, "left")]
)
def test_trained_length_label_stays_inside_the_axis(page, factor, align):
    """E2's "L = …" label reads away from the axis' end: at L′ = L its line is
    the right edge, and the label, written to its right, was cut off."""
    page.target_len = round(factor * page.trained_len)
    texts = drawn(page, "band", "texts")
    assert texts["position"][0] == page.trained_len
    assert texts["text"][0].strip() == f"L = {page.trained_len:,}"
    assert texts["align"][0] == align


def test_the_served_length_is_marked_for_dynamic_ntk(page):
    page.param.update(method="dynamic", target_len=65_536)
    page.served_len = 20_000
    assert list(drawn(page, "band", "lengths")["x"]) == [4096, 20_000]
    assert drawn(page, "band", "texts")["text"][2] == " served S"
    assert "(its speeds as served at S = 20,000)" in readout(page, "schedule")
    assert "Dynamic NTK base at S = 20,000" in readout(page, "methods")


def test_band_chart_highlights_the_selected_method(page):
    _root, doc = rendered(page)
    (plot,) = page.drawings["band"].plots()

    def legend_labels():
        return [item.label.value for legend in plot.state.select(Legend) for item in legend.items]

    assert "no scaling (selected)" in legend_labels()
    with set_curdoc(doc):
        page.method = "yarn"
    labels = legend_labels()
    assert "YaRN (selected)" in labels and "no scaling (selected)" not in labels
    expected = angle_lines(page.schedule())["yarn"].angles[page.pair]
    np.testing.assert_allclose(drawn(page, "band", "selected")["angle"], expected)
    edge = page.schedule().trained_edge[page.pair]
    assert drawn(page, "band", "band")["y1"][0] == pytest.approx(edge)
    assert page.drawings["band"].frame().props["selected"] == {"line_color": "#E69F00"}


def test_method_change_patches_the_plots_without_rebuilding(page):
    _root, doc = rendered(page)
    (plot,) = page.drawings["band"].plots()
    before = set(plot.subplots)
    with set_curdoc(doc):
        for method in ("yarn", "llama3", "dynamic", "longrope", "default"):
            page.method = method
    assert set(plot.subplots) == before
    assert page.drawings["band"].plots() == [plot]


def test_band_readout_names_the_pair(page):
    page.pair = 63
    text = readout(page, "band")
    assert "Pair 63: θ = 1.155 × 10⁻⁴ rad per token" in text
    assert "(7.53 % of a turn)" in text and "no scaling 1.892 rad (4×)" in text
    page.pair = 0
    assert "it turns 652 times within L" in readout(page, "band")


def test_slowdown_figure_and_ramp(page):
    page.method = "yarn"
    sch = page.schedule()
    selected = drawn(page, "methods", "selected")
    np.testing.assert_allclose(selected["slowdown"], sch.theta / sch.scaled)
    ramp = np.asarray(drawn(page, "ramp", "ramp")["ramp"])
    low, high = sch.yarn_range
    np.testing.assert_array_equal(ramp, sch.ramp)
    assert ramp[0] == 0 and ramp[-1] == 1
    assert ramp[int(np.floor(low))] == 0 and ramp[min(int(np.ceil(high)), 63)] == 1
    assert list(drawn(page, "methods", "ramp")["x0"]) == [low]
    assert "YaRN ramp" in readout(page, "methods")
    page.method = "llama3"
    assert set(drawn(page, "methods", "dots")["band"]) == {
        "high (unchanged)",
        "medium (blended)",
        "low (÷ factor)",
    }
    assert len(drawn(page, "methods", "ramp")["x0"]) == 0


def test_figures_are_numbered_once_in_reading_order(page):
    """E1 … E4 in the order the page shows them (E3's YaRN ramp was a second E3), and
    the model card after them is E5."""
    titles = [fig.title for fig in page.figures.values()]
    assert list(page.figures) == list(ExtensionPage.charts)
    assert [t.split(" ·")[0] for t in titles] == ["E1", "E2", "E3", "E4"]
    assert titles[3] == "E4 · YaRN's ramp" and "drawn in E4" in page.figures["methods"].caption
    cards = [c.title for c in page.content().select(pn.Card) if c.title]
    assert [t.split(" ·")[0] for t in cards if t[:1] == "E"] == ["E1", "E2", "E3", "E4", "E5"]
    assert "below (E5)" in page.intro


def _attention_row(page) -> str:
    text = re.sub(r"<[^>]+>", "", readout(page, "methods"))
    return text[text.index("Attention factor") :]


def test_yarn_attention_formula_is_the_default_rule_without_mscale(page):
    """Default YaRN: 0.1·ln s + 1, in the formula and the readout."""
    (formula,) = page.figures["methods"].extras
    page.method = "yarn"
    assert r"\text{attention factor} = 0.1\ln s + 1" in formula.object
    assert "mscale" not in formula.object
    assert _attention_row(page).startswith("Attention factor, 0.1·ln s + 11.13863")


def test_deepseek_v3_attention_formula_is_the_mscale_ratio(page):
    """DeepSeek-V3 sets mscale = mscale_all_dim = 1: the factor is the ratio
    get_mscale(s, mscale) / get_mscale(s, mscale_all_dim) = 1, and the formula says so
    (it read 0.1·ln s + 1 = 1.369 beside the value 1)."""
    (formula,) = page.figures["methods"].extras
    page.preset = "deepseek-v3-rope"
    assert (page.method, page.mscale, page.mscale_all_dim) == ("yarn", 1.0, 1.0)
    assert page.schedule().attention_factor == 1.0
    assert r"\frac{0.1\cdot\text{mscale}\cdot\ln s + 1}" in formula.object
    assert r"\text{mscale} = 1,\ \text{mscale\_all\_dim} = 1" in formula.object
    assert r"0.1\ln s + 1" not in formula.object
    assert _attention_row(page).startswith("Attention factor, the mscale / mscale_all_dim ratio1Ya")
    page.mscale_all_dim = 0.5  # the ratio follows the knobs
    assert r"\text{mscale\_all\_dim} = 0.5" in formula.object
    ratio = (0.1 * np.log(40) + 1) / (0.05 * np.log(40) + 1)
    assert _attention_row(page).startswith(
        f"Attention factor, the mscale / mscale_all_dim ratio{ratio:.6g}"
    )
    page.attention_factor = 1.25  # given: it overrides both rules
    assert r"\text{attention factor} = \text{attention\_factor}" in formula.object
    assert "given" in formula.object and "mscale" not in formula.object
    assert _attention_row(page).startswith("Attention factor, given by attention_factor1.25")
    given = formula.object
    page.attention_factor = 1.5  # the value is the readout's: the formula is not set again
    assert formula.object == given
    assert _attention_row(page).startswith("Attention factor, given by attention_factor1.5")


def test_the_method_formula_follows_the_method(page):
    (formula,) = page.figures["methods"].extras
    page.method = "llama3"
    assert formula.object == METHOD_FORMULAS["llama3"]


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
        assert page.schedule_note() == ""
        assert page.schedule().method == method


def test_csv_is_the_core_table(page):
    page.method = "linear"
    (download,) = page.figures["schedule"].extras
    rows = list(csv.DictReader(io.StringIO(download.callback().read())))
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
    values, model = controls(page), page.model
    frames = {name: d.frame() for name, d in page.drawings.items()}
    assert page.apply_config(text) is False
    assert len(page.config_errors) == 1 and message in page.config_errors[0]
    assert controls(page) == values
    assert page.model is model
    assert all(d.frame() is frames[name] for name, d in page.drawings.items())
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
    assert page.schedule().attention_factor == attention
    assert page.model.source == "pasted"
    shown = config_html(page.model)
    assert "<script>" not in shown and "&lt;script&gt;" in shown
    query = page_query("extension", page, page.control_names())
    assert query["preset"] == "custom" and "_source" not in json.dumps(query)


def test_pasted_config_without_rope_links_to_its_page(page):
    assert not page.apply_config(json.dumps(model_config("bloom")))
    assert "has no RoPE" in page.config_errors[0]
    assert 'href="?page=alibi"' in no_rope_html(page.config_link)
    assert page.apply_config(json.dumps(model_config("llama-2-7b")))
    assert page.config_link is None


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
    (upload,) = page.content().select(pn.widgets.FileInput)
    upload.filename = "my config.json"
    upload.value = json.dumps(model_config("gpt-oss")).encode()
    assert page.model.source == "uploaded" and page.method == "yarn" and page.truncate is False
    assert page.model.label == "uploaded file my config.json"
    upload.value = b"\xff\xfe{"
    assert "not UTF-8" in page.config_errors[0]
    assert page.model.source == "uploaded"


def test_apply_button_reads_the_box(page):
    content = page.content()
    (box,) = content.select(pn.widgets.TextAreaInput)
    box.value = json.dumps(model_config("codellama-7b"))
    _widget(content, pn.widgets.Button, "Apply").clicks += 1
    assert page.base == 1_000_000 and page.trained_len == 16_384


def test_model_card_shows_the_config_as_text(page):
    page.preset = "llama-3.1-8b"
    html = model_html(page)
    assert "Llama 3.1 8B (llama3 scaling)" in html and "(preset)" in html
    assert "attention factor at S = 131,072" in html
    page.preset = "custom"
    assert "No preset" in model_html(page) and config_html(page.model) == ""


# ------------------------------------------------------------------- links
def test_link_round_trip(page):
    page.preset = "gpt-oss"
    page.param.update(pair=7, beta_fast=16.0)
    query = page_query("extension", page, page.control_names())
    other = ExtensionPage()
    notes = other.apply_query(query)
    assert notes == []
    assert controls(other) == controls(page)
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
    assert any(n.startswith("attention_factor (4.521 × 10⁻²⁴¹) is below 0.001") for n in notes)


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
    assert [name for name, _, _ in page.changed_since_load()] == ["target_len"]


def test_a_link_with_a_preset_and_values_draws_once(page, monkeypatch):
    """The preset's fill and the link's values are one change: every control set
    once, and each figure computed once, for the final values."""
    _root, doc = rendered(page)
    seen: list[str] = []
    page.param.watch(lambda *es: seen.extend(e.name for e in es), page.control_names())
    computed = []
    frame = Schedule.frame
    monkeypatch.setattr(Schedule, "frame", lambda self, p: computed.append(p.d) or frame(self, p))
    with set_curdoc(doc):
        page.apply_query({"preset": "qwen2.5-7b-instruct-yarn-128k", "d": "96", "pair": "3"})
    assert (page.d, page.pair, page.method) == (96, 3, "yarn")
    assert len(seen) == len(set(seen)) and {"preset", "d", "pair", "method"} <= set(seen)
    assert computed == [96]


def test_a_change_is_fast_at_the_largest_target(page):
    """E2 at L′ = 1,048,576 under dynamic NTK: a few dozen points, never per position."""
    _root, doc = rendered(page)
    with set_curdoc(doc):
        page.param.update(target_len=MAX_TARGET, method="dynamic")
        assert page.served_len == MAX_TARGET
        page.served_len = MAX_TARGET // 2
    # Its time is measured by benchmarks/latency.py and robustness.py, not here.
    assert sum(len(x) for x, _ in lines(page).values()) < 100


# ------------------------------------------------------------- log sliders
def _log_slider(page, name):
    return _widget(page.sidebar(), pn.widgets.FloatSlider, page.param[name].label)


def test_log_sliders_map_positions_to_values_both_ways(page):
    target, base = _log_slider(page, "target_len"), _log_slider(page, "base")
    target.value = 15.0  # log2 of 32,768
    assert page.target_len == 32_768 and page.factor == 8.0
    target.value = 14.1
    assert page.target_len == 17_560  # floor(2**14.1 + 0.5), as the label shows
    base.value = 4.05
    assert page.base == 11_220.0  # four significant digits
    page.preset = "llama-3.1-8b"  # set elsewhere: exact value, slider follows
    assert page.base == 500_000.0
    assert base.value == pytest.approx(np.log10(500_000))
    assert target.start == pytest.approx(13.0)  # L′ ≥ L = 8,192
    factor = _log_slider(page, "factor")
    assert factor.end == pytest.approx(np.log2(MAX_TARGET / 8192))


@pytest.mark.parametrize("position", [65_536.0, -1e9, float("inf"), float("nan")])
def test_a_log_slider_position_past_its_ends_is_its_nearest_end(page, position):
    """A browser can send any number for a slider: it must not raise (2**65536
    overflowed in the server's callback), and the handle goes back on the value."""
    target = _log_slider(page, "target_len")
    target.value = position
    low, high = page.param.target_len.bounds
    assert page.target_len == (high if position > 0 else low)  # NaN > 0 is False
    assert target.start <= target.value <= target.end
    assert target.value == pytest.approx(np.log2(page.target_len))


def test_only_the_method_s_knobs_are_shown(page):
    sidebar = page.sidebar()
    beta = _widget(sidebar, pn.widgets.FloatSlider, "beta_fast")
    holders = [c for c in sidebar.select(pn.Column) if beta in c.select(pn.widgets.Widget)]
    assert not all(is_shown(c) for c in holders)
    page.method = "yarn"
    assert all(is_shown(c) for c in holders)


def test_the_browser_refuses_uploads_over_the_same_limit_as_the_server():
    """app/static/a11y.js stops a file over the limit before it is sent (one
    websocket message too big closes the session); its limit is the core's."""
    import re
    from pathlib import Path

    from positional_core.hf_config import MAX_CONFIG_BYTES

    script = (Path(__file__).resolve().parents[2] / "app" / "static" / "a11y.js").read_text()
    (limit,) = re.findall(r"var MAX_UPLOAD_BYTES = (\d+);", script)
    assert int(limit) == MAX_CONFIG_BYTES


# --------------------------------------------------- readout-only changes
#: YaRN's knobs that only change the attention factor, with a second value each.
ATTENTION_ONLY = {"mscale": 1.5, "mscale_all_dim": 0.5, "attention_factor": 1.3}
#: A YaRN state in which each of them matters (mscale alone, without
#: mscale_all_dim, is not read: transformers' _compute_yarn_parameters).
YARN = {"method": "yarn", "factor": 4.0, "mscale": 1.0, "mscale_all_dim": 1.0}


def test_the_attention_knobs_move_no_figure():
    assert set(ATTENTION_ONLY) == set(ATTENTION)
    for name, drawing in ExtensionPage().drawings.items():
        assert not set(ATTENTION) & set(drawing.chart.depends), name
    assert set(ATTENTION) <= set(Methods.readout_depends)


@pytest.mark.parametrize("name", sorted(ATTENTION_ONLY))
def test_an_attention_only_knob_rewrites_the_readouts_not_the_figures(name):
    """mscale, mscale_all_dim and attention_factor change no frequency: the figures
    keep their frame and the readouts show the new attention factor, and what is
    drawn is what a page opened at the new values draws."""
    page = ExtensionPage(**YARN)
    root, doc = rendered(page)
    before = page.schedule().attention_factor
    frames = {n: d.frame() for n, d in page.drawings.items()}
    with set_curdoc(doc):
        page.param.update({name: ATTENTION_ONLY[name]})
    after = page.schedule().attention_factor
    assert after != before
    assert all(d.frame() is frames[n] for n, d in page.drawings.items()), "a figure was redrawn"
    assert f"<b>{after:.6g}" in readout(page, "methods")
    fresh = ExtensionPage(**{**YARN, name: ATTENTION_ONLY[name]})
    assert_same_figures(root, rendered(fresh)[0], name)


@pytest.mark.parametrize(
    ("name", "value"),
    [("beta_fast", 16.0), ("beta_slow", 2.0), ("truncate", False), ("factor", 8.0), ("d", 64)],
)
def test_a_knob_that_moves_a_frequency_redraws_the_figures(name, value):
    page = ExtensionPage(**YARN)
    before = page.drawings["methods"].frame()
    page.param.update({name: value})
    after = page.drawings["methods"].frame()
    assert after is not before
    assert not np.array_equal(
        after.marks["selected"]["slowdown"], before.marks["selected"]["slowdown"]
    )


def test_a_link_with_only_an_attention_knob_redraws_no_figure():
    page = ExtensionPage(method="yarn", factor=4.0)
    frames = {n: d.frame() for n, d in page.drawings.items()}
    page.apply_query({"mscale": "1.5"})
    assert page.mscale == 1.5
    assert all(d.frame() is frames[n] for n, d in page.drawings.items())
