"""ALiBi page: set parameters, assert on the plot data against the core."""

from __future__ import annotations

import math
import re

import numpy as np
import panel as pn
import pytest
from bokeh.document.events import ColumnDataChangedEvent
from bokeh.models import Image, Line, Quad, Scatter

import app.alibi as alibi_module
from app.alibi import ALIBI_PRESETS, AlibiPage
from app.urlstate import page_query
from positional_core.alibi import (
    alibi_half_lives,
    alibi_head_bias,
    alibi_slope_sources,
    alibi_slopes,
    alibi_weight_factors,
)
from positional_core.attention import softmax


@pytest.fixture
def page():
    return AlibiPage()


def _image(plot, sources):
    (src,) = sources(plot, Image)
    return src, np.asarray(src.data["image"][0])


def _bars(plot, sources) -> np.ndarray:
    (src,) = sources(plot, Quad)
    return np.asarray(src.data["weight"], dtype=float)


# ----------------------------------------------------------------- A1 slopes
@pytest.mark.parametrize("heads", [8, 12, 16, 112])
def test_slope_points_are_the_core_slopes(page, render, sources, heads):
    plot = render(page.figures["slopes"].plot)
    page.heads = heads
    src = next(s for s in sources(plot, Scatter) if "half_life" in s.data)
    np.testing.assert_array_equal(src.data["slope"], alibi_slopes(heads))
    np.testing.assert_array_equal(src.data["half_life"], alibi_half_lives(alibi_slopes(heads)))


def test_table_shows_slopes_half_lives_and_sources(page):
    table = page._slope_table()
    cells = re.findall(r"<td>([^<]*)</td>", table)
    assert "1/2" in cells and "1/256" in cells
    halves = [f"{h:,.1f}" for h in alibi_half_lives(alibi_slopes(8))]
    assert halves[0] == "1.4" and halves[-1] == "177.4"
    for half in halves:
        assert half in cells
    page.heads = 12
    table = page._slope_table()
    assert table.count("<tr class=") == 12
    for power, place in alibi_slope_sources(12):
        assert f"{power} heads, place {place}" in table
    assert "16 heads, place 7" in table and "2<sup>−7/2</sup>" in table
    assert "every other slope of the 16-head sequence" in page._sources_readout()


def test_selected_head_is_marked_in_the_table(page):
    page.head = 3
    table = page._slope_table()
    assert table.count(" selected") == 1
    assert '<tr class="own selected" data-head="3">' in table


# ------------------------------------------------------------ A2 bias matrix
def test_bias_image_is_the_core_matrix_with_future_cells_masked(page, render, sources):
    page.param.update(heads=8, head=2, seq_len=20)
    plot = render(page.figures["matrix"].plot)
    _, image = _image(plot, sources)
    expected = alibi_head_bias(alibi_slopes(8)[1], 20, causal=True, form="distance")
    future = np.triu(np.ones((20, 20), dtype=bool), k=1)
    assert np.array_equal(np.isnan(image), future)  # masked cells are exactly j > i
    np.testing.assert_array_equal(image[~future], expected[~future])
    assert f"{future.sum():,} of 400 cells are future keys" in page._bias_readout()


def test_symmetric_matrix_has_no_masked_cell(page, render, sources):
    plot = render(page.figures["matrix"].plot)
    page.mask = "symmetric"
    _, image = _image(plot, sources)
    assert not np.isnan(image).any()
    np.testing.assert_array_equal(image, image.T)


def test_column_form_changes_the_matrix(page, render, sources):
    plot = render(page.figures["matrix"].plot)
    _, before = _image(plot, sources)
    page.form = "column"
    _, after = _image(plot, sources)
    expected = alibi_head_bias(alibi_slopes(8)[0], 16, causal=True, form="column")
    np.testing.assert_array_equal(
        np.nan_to_num(after, nan=-1), np.where(np.isinf(expected), -1, expected)
    )
    assert not np.allclose(np.nan_to_num(before), np.nan_to_num(after))


def test_moving_the_row_moves_the_outline_only(page, render, sources, document):
    plot = render(page.figures["matrix"].plot)
    document.add_root(plot.state)
    src, image = _image(plot, sources)
    events = []
    document.on_change(events.append)
    page.row = 3
    assert not [e for e in events if isinstance(e, ColumnDataChangedEvent) and e.model is src]
    assert _image(plot, sources)[1] is image


def test_row_head_and_form_select_from_cached_data(page, monkeypatch):
    calls = []
    real = alibi_module.alibi_head_bias

    def counting(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(alibi_module, "alibi_head_bias", counting)
    page._matrices.clear()
    page._weights_readout()  # computes both forms of head 1
    first = len(calls)
    assert first == 2
    for row in range(16):
        page.row = row
        page._weights_readout()
        page._weight_bars()
    page.form = "column"
    page.form = "distance"
    page._bias_image()
    assert len(calls) == first  # nothing recomputed


# ----------------------------------------------------------- A3 the weights
def test_both_bias_forms_give_the_same_bars(page, render, sources):
    page.param.update(heads=12, seq_len=32)
    page.param.update(head=10, row=20)
    plot = render(page.figures["weights"].plot)
    distance = _bars(plot, sources)
    page.form = "column"
    column = _bars(plot, sources)
    np.testing.assert_allclose(column, distance, rtol=0, atol=1e-12)
    expected = softmax(alibi_head_bias(alibi_slopes(12)[9], 32)[20])
    np.testing.assert_allclose(column, expected, rtol=0, atol=1e-15)
    assert np.all(column[21:] == 0)  # masked keys get weight 0


@pytest.mark.parametrize("heads", [8, 12, 112])
def test_both_bias_forms_give_the_same_weights_everywhere(page, heads):
    page.param.update(heads=heads, seq_len=64)
    for head in range(1, heads + 1):
        distance = page._head_matrices(head, "distance").weights
        column = page._head_matrices(head, "column").weights
        np.testing.assert_allclose(column, distance, rtol=0, atol=1e-12)
        assert np.all(distance[np.triu_indices(64, k=1)] == 0)


def test_weights_readout_compares_the_forms_numerically(page):
    text = page._weights_readout()
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
    assert "fixed to −m·|i − j|" in alibi_module._form_notes(page.mask)[0]
    page.mask = "causal"
    assert not form_widget.disabled and alibi_module._form_notes(page.mask) == []


# ------------------------------------------------------------ A4 decay curves
@pytest.mark.parametrize("heads", [8, 12, 112])
def test_one_decay_curve_per_head(page, render, sources, heads):
    plot = render(page.figures["decay"].plot)
    page.heads = heads
    # The family is one line broken by NaN after each head (the selected
    # head's curve is another line, without a "head" column).
    (src,) = [s for s in sources(plot, Line) if "head" in s.data]
    ys = np.asarray(src.data["y"], dtype=float)
    breaks = np.flatnonzero(np.isnan(ys))
    assert len(breaks) == heads
    curves = np.split(ys, breaks + 1)[:-1]
    xs = np.split(np.asarray(src.data["x"], dtype=float), breaks + 1)[0][:-1]
    assert xs.size == 200 and xs[-1] == pytest.approx(2048)
    expected = alibi_weight_factors(alibi_slopes(heads), xs)
    heads_col = np.asarray(src.data["head"])
    for h, curve in enumerate(curves):
        np.testing.assert_allclose(curve[:-1], expected[h], rtol=1e-12)
        assert set(heads_col[breaks[h] - 200 : breaks[h] + 1]) == {h + 1}


def test_selected_curve_follows_the_head_and_its_half_life(page):
    page.head = 8
    overlay = page._decay_selected()
    texts = [t for el in overlay if type(el).__name__ == "Labels" for t in el["text"]]
    assert texts == [" half-life 177.4"]


def test_train_short_test_long_readout(page):
    page.distance = 100
    text = page._long_readout()
    assert "bias −m·Δ = <b>−50</b>" in text and "<b>−50</b> at query position 4,196" in text
    assert "difference 0 (not one bit differs)" in text
    assert "1.9 × 10<sup>−22</sup>" in text  # e^−50
    page.head = 8
    text = page._long_readout()
    assert "<b>−0.3906</b>" in text and "= 0.677" in text
    page.param.update(trained_len=64, distance=100)
    assert "already longer than any distance seen in training" in page._long_readout()


@pytest.mark.parametrize("label", sorted(ALIBI_PRESETS))
def test_presets_set_the_model_head_count(page, label):
    expected = {"BLOOM-560m": 16, "BLOOM": 112, "MPT-7B": 32}[label]
    page.head = 8
    buttons = page._extra_controls()[1]
    button = next(b for b in buttons.objects if b.label.startswith(label + ":"))
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
    page._bias_image(), page._weight_bars(), page._decay_paths(), page._long_readout()


def test_largest_settings_stay_small(page):
    # Their time is measured by benchmarks/robustness.py (budget 1 s), not here.
    page.param.update(heads=128, seq_len=128, max_distance=16384, trained_len=16384, distance=16384)
    page.head = 128
    page.row = 127
    for method in (
        page._bias_image,
        page._weight_bars,
        page._decay_paths,
        page._long_readout,
        page._slope_table,
        page._weights_readout,
    ):
        assert method() is not None
    # at most _CACHE_SIZE single-head matrices kept, never an (H, T, T) array
    assert len(page._matrices) <= alibi_module._CACHE_SIZE
    assert all(m.bias.ndim == 2 and m.bias.shape[0] <= 128 for m in page._matrices.values())


def test_quick_check_answer(page):
    answer = page._quick_answer()
    assert "1/2, 1/4, 1/8, 1/16, 1/32, 1/64, 1/128, 1/256" in answer
    assert "<b>1.4</b>" in answer and "<b>177</b>" in answer
    assert math.isclose(float(alibi_half_lives([1 / 256])[0]), 177.4, abs_tol=0.05)
