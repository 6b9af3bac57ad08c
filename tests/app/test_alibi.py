"""ALiBi page: set parameters, assert on what each figure draws against the core."""

from __future__ import annotations

import math
import re

import numpy as np
import panel as pn
import pytest
from bokeh.document.events import ColumnDataChangedEvent
from bokeh.models import ColumnDataSource, GlyphRenderer, HStrip
from panel.io.state import set_curdoc

from app.pages.alibi import ALIBI_PRESETS, AlibiPage
from app.pages.alibi.decay import CURVE_POINTS
from app.pages.alibi.page import form_notes
from app.pages.alibi.slopes import slope_table
from app.urlstate import page_query
from positional_core.alibi import (
    alibi_half_lives,
    alibi_head_bias,
    alibi_slope_sources,
    alibi_slopes,
    alibi_weight_factors,
)
from positional_core.attention import softmax

from .drawn import record_events, rendered


@pytest.fixture
def page():
    return AlibiPage()


def drawn(page, chart: str, mark: str) -> dict:
    return page.drawings[chart].drawn(mark)


def readout(page, chart: str) -> str:
    return page.drawings[chart].chart.readout(page)


def _image(page) -> np.ndarray:
    return np.asarray(drawn(page, "matrix", "image")["image"][0])


def _bars(page) -> np.ndarray:
    return np.asarray(drawn(page, "weights", "bars")["weight"], dtype=float)


# ----------------------------------------------------------------- A1 slopes
@pytest.mark.parametrize("heads", [8, 12, 16, 112])
def test_slope_points_are_the_core_slopes(page, heads):
    page.heads = heads
    own, extra = drawn(page, "slopes", "own"), drawn(page, "slopes", "extra")
    h = np.concatenate([own["h"], extra["h"]])
    slope = np.concatenate([own["slope"], extra["slope"]])[np.argsort(h)]
    half = np.concatenate([own["half_life"], extra["half_life"]])[np.argsort(h)]
    np.testing.assert_array_equal(slope, alibi_slopes(heads))
    np.testing.assert_array_equal(half, alibi_half_lives(alibi_slopes(heads)))
    # The orange points are the heads past the largest power of two.
    power = alibi_slope_sources(heads)[0][0]
    assert sorted(extra["h"]) == list(range(power + 1, heads + 1))


def test_legend_names_the_two_sequences_and_hides_an_empty_one(page):
    frame = page.drawings["slopes"].frame()
    assert frame.labels == {"own": "8-head sequence", "extra": ""}
    page.heads = 12
    frame = page.drawings["slopes"].frame()
    assert frame.labels == {"own": "8-head sequence", "extra": "every 2nd of 16"}


def test_ring_marks_the_selected_head(page):
    page.heads = 12
    page.head = 10
    ring = drawn(page, "slopes", "ring")
    assert list(ring["h"]) == [10] and ring["slope"][0] == alibi_slopes(12)[9]


def test_table_shows_slopes_half_lives_and_sources(page):
    table = slope_table(8)
    cells = re.findall(r"<td>([^<]*)</td>", table)
    assert "1/2" in cells and "1/256" in cells
    halves = [f"{h:,.1f}" for h in alibi_half_lives(alibi_slopes(8))]
    assert halves[0] == "1.4" and halves[-1] == "177.4"
    for half in halves:
        assert half in cells
    table = slope_table(12)
    assert table.count("<tr class=") == 12
    for power, place in alibi_slope_sources(12):
        assert f"{power} heads, place {place}" in table
    assert "16 heads, place 7" in table and "2<sup>−7/2</sup>" in table
    page.heads = 12
    assert "every other slope of the 16-head sequence" in readout(page, "slopes")


def test_selected_head_is_marked_by_a_style_rule_not_new_html(page):
    """A new head changes one short rule; the table (45 kB at 128 heads) is not sent again."""
    (table,) = page.figures["slopes"].extras
    before = table.object
    assert 'tr[data-head="1"] td' in table.stylesheets[-1]
    page.head = 3
    assert table.object == before
    assert '<tr class="own" data-head="3">' in table.object
    assert 'tr[data-head="3"] td' in table.stylesheets[-1]
    assert "font-weight: 700" in table.stylesheets[-1]


# ------------------------------------------------------------ A2 bias matrix
def test_bias_image_is_the_core_matrix_with_future_cells_masked(page):
    page.param.update(heads=8, head=2, seq_len=20)
    image = _image(page)
    expected = alibi_head_bias(alibi_slopes(8)[1], 20, causal=True, form="distance")
    future = np.triu(np.ones((20, 20), dtype=bool), k=1)
    assert np.array_equal(np.isnan(image), future)  # masked cells are exactly j > i
    np.testing.assert_array_equal(image[~future], expected[~future])
    assert f"{future.sum():,} of 400 cells are future keys" in readout(page, "matrix")


def test_symmetric_matrix_has_no_masked_cell(page):
    page.mask = "symmetric"
    image = _image(page)
    assert not np.isnan(image).any()
    np.testing.assert_array_equal(image, image.T)


def test_column_form_changes_the_matrix(page):
    before = _image(page)
    page.form = "column"
    after = _image(page)
    expected = alibi_head_bias(alibi_slopes(8)[0], 16, causal=True, form="column")
    np.testing.assert_array_equal(
        np.nan_to_num(after, nan=-1), np.where(np.isinf(expected), -1, expected)
    )
    assert not np.allclose(np.nan_to_num(before), np.nan_to_num(after))


def test_colour_scale_follows_the_head(page):
    page.heads = 8
    for head in (1, 8):
        page.head = head
        limit = float(np.nanmax(np.abs(_image(page))))
        chosen = page.drawings["matrix"].frame().marks["image"].chosen(head)
        assert (chosen["__low"][0], chosen["__high"][0]) == (-limit, limit)


def test_moving_the_row_moves_the_outline_only(page):
    _root, doc = rendered(page)
    (plot,) = page.drawings["matrix"].plots()
    image = next(s for s in plot.state.select(type=ColumnDataSource) if "image" in s.data)
    events = []
    record_events(doc, events)
    with set_curdoc(doc):
        page.row = 3
    assert not [e for e in events if isinstance(e, ColumnDataChangedEvent) and e.model is image]
    outline = drawn(page, "matrix", "outline_line")
    assert list(outline["y0"]) == [2.5] and list(outline["y1"]) == [3.5]


def test_the_selected_row_is_outlined_black_on_a_white_halo(page):
    """A2's outline was a 4 px black line with a white 1.5 px core: it read as two faint
    grey lines (HoloViews draws spans at alpha 0.5). Now an opaque 3.5 px black line on
    an 8 px white halo, drawn after (over) it."""
    _root, _doc = rendered(page)
    (plot,) = page.drawings["matrix"].plots()
    strips = [
        (r.glyph.line_color, r.glyph.line_width, r.glyph.line_alpha, r.glyph.fill_alpha)
        for r in plot.state.renderers
        if isinstance(r, GlyphRenderer) and isinstance(r.glyph, HStrip)
    ]
    assert strips == [("#FFFFFF", 8.0, 1, 0), ("#000000", 3.5, 1, 0)]
    assert [r for r in plot.state.renderers if isinstance(r, GlyphRenderer)][
        -1
    ].glyph.line_width == 3.5
    for part in ("outline_halo", "outline_line"):
        outline = drawn(page, "matrix", part)
        assert list(outline["y0"]) == [page.row - 0.5] and list(outline["y1"]) == [page.row + 0.5]


# ----------------------------------------------------------- A3 the weights
def test_both_bias_forms_give_the_same_bars(page):
    page.param.update(heads=12, seq_len=32)
    page.param.update(head=10, row=20)
    distance = _bars(page)
    page.form = "column"
    column = _bars(page)
    np.testing.assert_allclose(column, distance, rtol=0, atol=1e-12)
    expected = softmax(alibi_head_bias(alibi_slopes(12)[9], 32)[20])
    np.testing.assert_allclose(column, expected, rtol=0, atol=1e-15)
    assert np.all(column[21:] == 0)  # masked keys get weight 0


@pytest.mark.parametrize("heads", [8, 12, 112])
def test_both_bias_forms_give_the_same_weights_everywhere(page, heads):
    page.param.update(heads=heads, seq_len=64)
    for head in range(1, heads + 1):
        distance = page.matrices(head, "distance").weights
        column = page.matrices(head, "column").weights
        np.testing.assert_allclose(column, distance, rtol=0, atol=1e-12)
        assert np.all(distance[np.triu_indices(64, k=1)] == 0)


def test_weights_axis_follows_the_row(page):
    page.param.update(head=3, row=5)
    chosen = page.drawings["weights"].frame().marks["bars"].chosen(3 * 128 + 5)
    top = float(page.matrices(3).weights[5].max())
    assert chosen["__y_end"][0] == pytest.approx(top * 1.08)


def test_weights_readout_compares_the_forms_numerically(page):
    text = readout(page, "weights")
    delta = re.search(r"max \|Δ\| = <b>([^<(]*)", text).group(1).strip()
    assert delta == "0" or float(delta.replace("×", "e").replace(" ", "")) <= 1e-12
    assert "the same weights" in text
    # the two rows differ by m·i: head 1 (m = 1/2), row 12 → 6
    assert "differ by 6 on every visible key" in text


def test_symmetric_mask_makes_the_column_form_impossible(page):
    page.form = "column"
    page.mask = "symmetric"
    assert page.form == "distance"
    page.form = "column"  # e.g. from Python: the rule puts it back
    assert page.form == "distance" and page.effective_form == "distance"
    controls = page.controls()
    (form_widget,) = [
        w for w in controls.select(pn.widgets.RadioButtonGroup) if "+m·j" in w.options
    ]
    assert form_widget.disabled
    assert "fixed to −m·|i − j|" in form_notes(page.mask)[0]
    page.mask = "causal"
    assert not form_widget.disabled and form_notes(page.mask) == []


# ------------------------------------------------------------ A4 decay curves
@pytest.mark.parametrize("heads", [8, 12, 112])
def test_one_decay_curve_per_head(page, heads):
    page.heads = heads
    # One line broken by NaN after each head.
    curves = drawn(page, "decay", "curves")
    ys = np.asarray(curves["y"], dtype=float)
    breaks = np.flatnonzero(np.isnan(ys))
    assert len(breaks) == heads
    parts = np.split(ys, breaks + 1)[:-1]
    xs = np.split(np.asarray(curves["x"], dtype=float), breaks + 1)[0][:-1]
    assert xs.size == CURVE_POINTS and xs[-1] == pytest.approx(2048)
    expected = alibi_weight_factors(alibi_slopes(heads), xs)
    heads_col = np.asarray(curves["head"])
    for h, curve in enumerate(parts):
        # drawn in float32 (pixels need no more): equal to single precision
        np.testing.assert_allclose(curve[:-1], expected[h], rtol=1e-5, atol=1e-9)
        assert set(heads_col[breaks[h] - CURVE_POINTS : breaks[h] + 1]) == {h + 1}


def test_selected_curve_follows_the_head_and_its_half_life(page):
    page.head = 8
    assert list(drawn(page, "decay", "half_life_text")["text"]) == [" half-life 177.4"]
    selected = drawn(page, "decay", "selected")
    np.testing.assert_allclose(
        selected["y"], alibi_weight_factors([alibi_slopes(8)[7]], selected["x"])[0]
    )


def test_marks_past_the_axis_have_no_label(page):
    page.param.update(max_distance=100, trained_len=1024, distance=50)
    assert list(drawn(page, "decay", "length_text")["text"]) == [""]
    assert list(drawn(page, "decay", "delta_text")["text"]) == [" Δ = 50 "]


def test_train_short_test_long_readout(page):
    page.distance = 100
    text = readout(page, "decay")
    assert "bias −m·Δ = <b>−50</b>" in text and "<b>−50</b> at query position 4,196" in text
    assert "difference 0 (not one bit differs)" in text
    assert "1.9 × 10<sup>−22</sup>" in text  # e^−50
    page.head = 8
    text = readout(page, "decay")
    assert "<b>−0.3906</b>" in text and "= 0.677" in text
    page.param.update(trained_len=64, distance=100)
    assert "already longer than any distance seen in training" in readout(page, "decay")


#: A number in bare e-notation: 1.1e-12, −1.568e+04.
BARE_E = re.compile(r"\d[eE][+−-]?\d")


def test_large_biases_read_in_full_not_in_e_notation(page):
    """−m·Δ for a steep head at Δ = 16,384 read −1.568e+04."""
    page.param.update(heads=128, max_distance=16384, trained_len=16384, distance=16384)
    page.head = 1
    text = readout(page, "decay")
    bias = -float(alibi_slopes(128)[0]) * 16384
    assert f"bias −m·Δ = <b>{bias:,.0f}</b>".replace("-", "−") in text
    assert not BARE_E.search(text), text


def test_tiny_weight_differences_read_approximately_zero(page):
    """The two bias forms' weights differ by rounding only: "≈ 0 (… × 10⁻¹⁶)", and the
    spread of the two bias rows' difference likewise (it read a bare 1.8 × 10⁻¹⁵)."""
    page.heads = 112
    page.param.update(head=1, row=15)
    text = readout(page, "weights")
    delta = re.search(r"max \|Δ\| = <b>(.*?)</b>", text).group(1)
    spread = re.search(r"with a spread of (.*?): that is m·i", text).group(1)
    for value in (delta, spread):
        assert re.fullmatch(r"≈ 0 \(\d\.\d × 10<sup>−1[5-7]</sup>\)", value), value
    assert "the same weights" in text and not BARE_E.search(text)


@pytest.mark.parametrize("label", sorted(ALIBI_PRESETS))
def test_presets_set_the_model_head_count(page, label):
    expected = {"BLOOM-560m": 16, "BLOOM": 112, "MPT-7B": 32}[label]
    page.head = 8
    (button,) = [
        b for b in page.sidebar().select(pn.widgets.Button) if b.label.startswith(label + ":")
    ]
    button.clicks += 1
    assert page.heads == expected
    assert page.param.head.bounds == (1, expected)
    if label == "MPT-7B":
        assert page.trained_len == 2048


# ------------------------------------------------------------- rules and URL
def test_dependent_bounds(page):
    page.heads = 16
    page.head = 16
    page.heads = 4
    assert page.head == 4 and page.param.head.bounds == (1, 4)
    page.seq_len = 8
    assert page.row == 7 and page.param.row.bounds == (0, 7)


def test_url_state_round_trip(page):
    page.param.update(heads=12, seq_len=40)
    page.param.update(
        head=10,
        row=30,
        mask="causal",
        form="column",
        max_distance=4096,
        trained_len=2048,
        distance=300,
    )
    query = page_query("alibi", page, page.control_names())
    other = AlibiPage()
    assert other.apply_query(query) == []
    assert other._values() == page._values()


@pytest.mark.parametrize(
    ("query", "expected", "note"),
    [
        ({"heads": "100000"}, {"heads": 128}, "outside 1…128"),
        ({"heads": "nan"}, {"heads": 8}, "not a number"),
        ({"heads": "20", "head": "40"}, {"heads": 20, "head": 20}, "outside 1…20"),
        ({"seq_len": "1e9", "row": "500"}, {"seq_len": 128, "row": 127}, "outside"),
        ({"seq_len": "-3"}, {"seq_len": 4}, "outside 4…128"),
        ({"mask": "symmetric", "form": "column"}, {"form": "distance"}, "needs the causal mask"),
        ({"form": "<script>"}, {"form": "distance"}, "is not one of"),
        ({"max_distance": "99999999"}, {"max_distance": 16384}, "outside"),
    ],
)
def test_url_values_are_clamped_or_ignored_with_a_note(page, query, expected, note):
    notes = page.apply_query(query)
    for key, value in expected.items():
        assert getattr(page, key) == value
    assert any(note in n for n in notes), notes
    rendered(page)


def test_largest_settings_stay_small(page):
    # Their time is measured by benchmarks/robustness.py (budget 1 s), not here.
    page.param.update(heads=128, seq_len=128, max_distance=16384, trained_len=16384, distance=16384)
    page.param.update(head=128, row=127)
    rendered(page)
    for name, drawing in page.drawings.items():
        assert drawing.chart.readout(page)
        for mark in drawing.chart.marks:
            columns = drawing.drawn(mark)
            cells = sum(
                np.size(c) if not isinstance(c, list) else sum(map(np.size, c))
                for c in columns.values()
            )
            assert cells < 2**18, (name, mark, cells)
    # No candidates past the limit: 128 heads × 128 rows of 128 bars are not shipped.
    bars = page.drawings["weights"]
    assert bars.frame().marks["bars"].candidates(bars.chart.marks["bars"]) is None


def test_quick_check_answer(page):
    answer = page.quick_check.answer()
    assert "1/2, 1/4, 1/8, 1/16, 1/32, 1/64, 1/128, 1/256" in answer
    assert "<b>1.4</b>" in answer and "<b>177</b>" in answer
    assert math.isclose(float(alibi_half_lives([1 / 256])[0]), 177.4, abs_tol=0.05)
