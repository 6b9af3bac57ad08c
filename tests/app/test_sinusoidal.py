"""Sinusoidal & learned page: set parameters, assert on the plot data."""

from __future__ import annotations

import numpy as np
import pytest
from bokeh.document.events import ColumnDataChangedEvent
from bokeh.events import RangesUpdate
from bokeh.models import GlyphRenderer, HStrip, Image, Scatter, Segment
from bokeh.models import Line as LineGlyph

from app.sinusoidal import LEARNED_PRESETS, SinusoidalPage
from app.zoom import full_detail_rows
from positional_core.learned import LearnedPositionTable, learned_parameter_count
from positional_core.sinusoidal import code_similarity, sinusoidal_code, sinusoidal_encoding


@pytest.fixture
def page():
    return SinusoidalPage(t=10, n=64, d=32)


def _outlines(plot):
    """(bottom, top) of every row outline drawn (HStrip glyphs, one row per outline)."""
    found = set()
    for renderer in plot.state.select(GlyphRenderer):
        if isinstance(renderer.glyph, HStrip):
            data = renderer.data_source.data
            found |= set(zip(data["y0"], data["y1"], strict=True))
    return sorted((float(a), float(b)) for a, b in found)


def test_table_image_is_the_core_table_pinned_to_unit_range(page, render, sources):
    plot = render(page.figures["table"].plot)
    (src,) = sources(plot, Image)
    image = src.data["image"][0]
    assert image.shape == (64, 32)
    np.testing.assert_allclose(image, sinusoidal_encoding(64, 32), atol=1e-6)
    (renderer,) = [r for r in plot.state.renderers if isinstance(getattr(r, "glyph", None), Image)]
    mapper = renderer.glyph.color_mapper
    assert (mapper.low, mapper.high) == (-1.0, 1.0)


def test_highlight_moves_with_t_and_the_table_is_not_resent(page, render, sources, document):
    plot = render(page.figures["table"].plot)
    document.add_root(plot.state)
    (src,) = sources(plot, Image)
    before = src.data["image"][0]
    assert _outlines(plot) == [(9.5, 10.5)]
    events = []
    document.on_change(events.append)
    page.t = 40
    assert _outlines(plot) == [(39.5, 40.5)]
    assert src.data["image"][0] is before
    assert not [e for e in events if isinstance(e, ColumnDataChangedEvent) and e.model is src]


def test_table_follows_n_d_and_base(page, render, sources):
    plot = render(page.figures["table"].plot)
    page.param.update(n=100, d=8, base=100)
    (src,) = sources(plot, Image)
    np.testing.assert_allclose(src.data["image"][0], sinusoidal_encoding(100, 8, 100), atol=1e-6)


def test_clock_has_one_hand_per_pair_at_the_code(page, render, sources):
    plot = render(page.figures["clock"].plot)
    (src,) = sources(plot, Segment)
    code = sinusoidal_code(10, 32)
    assert len(src.data["x1"]) == 16
    np.testing.assert_allclose(src.data["sin"], code[0::2])
    np.testing.assert_allclose(src.data["cos"], code[1::2])
    # Fast hands are longer than slow hands, and coloured differently.
    length = np.hypot(src.data["x1"], src.data["y1"])
    assert np.all(np.diff(length) < 0)
    assert len(set(src.data["color"])) == 16
    page.t = 11
    np.testing.assert_allclose(src.data["sin"], sinusoidal_code(11, 32)[0::2])


def test_similarity_peaks_at_t_and_the_bump_moves_with_t(page, render, sources):
    plot = render(page.figures["similarity"].plot)
    (curve,) = sources(plot, LineGlyph)
    for t in (10, 37):
        page.t = t
        dots = np.asarray(curve.data["dot"])
        assert int(np.argmax(dots)) == t
        assert dots[t] == pytest.approx(16.0)
        np.testing.assert_allclose(dots, code_similarity(t, 64, 32))
        (marker,) = [s for s in sources(plot, Scatter)]
        assert list(marker.data["s"]) == [t]


def test_shift_check_readout(page):
    text = page._shift_readout()
    assert "t = 10, k = 3" in text
    value = float(text.split("<b>")[2].split("</b>")[0])
    assert value < 1e-12


def test_learned_table_has_no_row_past_max_len(page):
    page.param.update(max_len=16)
    page.t = 20
    text = page._learned_readout()
    assert "Position 20 has no row" in text
    assert "rows 0…15" in text
    assert f"{learned_parameter_count(16, 32):,}" in text
    marks = page._learned_marks()
    labels = [
        text
        for el in marks.traverse(lambda e: e, [lambda e: type(e).__name__ == "Labels"])
        for text in el.dimension_values("text")
    ]
    assert "position 20: no row" in labels
    page.t = 15
    assert "row 15 of the table" in page._learned_readout()


def test_learned_readout_gives_gpt2_and_bert_counts(page):
    text = page._learned_readout()
    assert "1,024 × 768 = 786,432" in text
    assert "BERT: 512 × 768" in text


@pytest.mark.parametrize("model", sorted(LEARNED_PRESETS))
def test_preset_jumps_to_first_position_without_row(page, model):
    rows, _ = LEARNED_PRESETS[model]
    (row,) = [o for o in page._extra_controls() if hasattr(o, "objects")]
    button = next(b for b in row.objects if b.label.startswith(model))
    button.clicks += 1
    assert (page.max_len, page.t) == (rows, rows)
    assert page.n > rows
    assert "has no row" in page._learned_readout()


def test_dependent_bounds_are_kept_consistent(page):
    page.n = 8
    assert page.t == 7
    assert page.param.t.bounds == (0, 7)
    page.n = 100
    assert page.param.t.bounds == (0, 99)
    page.d = 31
    assert page.d == 30


def test_quick_check_answer_is_d_over_two(page):
    page.d = 48
    assert "<b>24.000</b>" in page._quick_answer()


def test_axes_follow_the_number_of_positions(page, render, document):
    plots = {name: render(fig.plot, doc=document) for name, fig in page.figures.items()}
    page.set_state(n=200, t=150, max_len=20)
    assert plots["table"].state.y_range.start == pytest.approx(199.5)
    assert plots["similarity"].state.x_range.end == pytest.approx(199)
    assert plots["learned"].state.y_range.start == pytest.approx(199.5)


def test_learned_rows_past_the_table_are_empty(page, render, sources):
    page.param.update(max_len=16)
    plot = render(page.figures["learned"].plot)
    (src,) = sources(plot, Image)
    image = src.data["image"][0]
    assert image.shape == (64, 32)
    assert np.isnan(image[16:]).all() and not np.isnan(image[:16]).any()


def test_set_state_applies_related_values_in_any_order(page):
    assert page.set_state(t=150, n=200) == []
    assert (page.t, page.n, page.param.t.bounds) == (150, 200, (0, 199))
    notes = page.set_state(n=20)
    assert page.t == 19 and notes
    with pytest.raises(ValueError, match="not a control"):
        page.set_state(bogus=1)


@pytest.mark.parametrize(("n", "d", "step"), [(4096, 512, 8), (3001, 512, 6), (4096, 128, 2)])
def test_large_tables_send_every_step_th_row_and_keep_their_axis(render, sources, n, d, step):
    # A 4,096 × 512 table was 8 MB per image and change; the figure shows ~540
    # rows at most. Each drawn row is the exact code of its position.
    page = SinusoidalPage(n=n, d=d, max_len=n, t=0)
    plots = {name: render(page.figures[name].plot) for name in ("table", "learned")}
    (table,) = sources(plots["table"], Image)
    image = table.data["image"][0]
    rows = -(-n // step)
    assert image.shape == (rows, d) and image.size <= 2**18
    np.testing.assert_allclose(image, sinusoidal_encoding(n, d)[::step], atol=1e-6)
    # row r covers positions r·step … r·step + step − 1 (its bottom edge at −½)
    assert table.data["y"][0] == pytest.approx(-0.5)
    assert table.data["dh"][0] == pytest.approx(rows * step)
    (learned,) = sources(plots["learned"], Image)
    full = LearnedPositionTable(n, d, seed=0).table
    np.testing.assert_allclose(learned.data["image"][0], full[::step], atol=1e-6)
    for plot in plots.values():  # the last row's overhang past n − 1 is cut off
        assert sorted((plot.state.y_range.start, plot.state.y_range.end)) == [-0.5, n - 0.5]
    note = page._table_readout()
    assert f"drawn one row in {step} " in note and f"{rows:,} rows" in note
    # every row is drawn once at most 2**18 cells are in view (the zoom test below)
    assert f"Zoom in (box zoom) to {full_detail_rows(d):,} positions or fewer" in note
    assert f"drawn one row in {step} " in page._learned_readout()


def test_tables_that_fit_draw_every_row_and_say_nothing(page, render, sources):
    page.param.update(n=4096, d=64)
    plot = render(page.figures["table"].plot)
    (src,) = sources(plot, Image)
    assert src.data["image"][0].shape == (4096, 64)
    assert page._table_readout() == ""
    assert "drawn one row" not in page._learned_readout()


def test_step_and_axis_follow_n_and_d_when_redrawn_in_place(page, render, sources, document):
    plot = render(page.figures["table"].plot, doc=document)
    learned = render(page.figures["learned"].plot, doc=document)
    (src,) = sources(plot, Image)
    (learned_src,) = sources(learned, Image)
    changes = (
        (3001, 512, 3001, 501, 6),
        (3001, 512, 1000, 501, 6),  # the learned table's kept rows follow max_len
        (64, 64, 48, 64, 1),
        (4096, 512, 4096, 512, 8),
        (4096, 256, 4096, 1024, 4),  # and d
        (500, 512, 200, 500, 1),
    )
    for n, d, max_len, rows, step in changes:
        page.param.update(n=n, d=d, max_len=max_len)
        assert src.data["image"][0].shape == (rows, d)
        assert (plot.state.y_range.start, plot.state.y_range.end) == (n - 0.5, -0.5)
        image = learned_src.data["image"][0]
        table = LearnedPositionTable(max_len, d, seed=0).table[::step]
        assert image.shape == (rows, d)
        np.testing.assert_allclose(image[: len(table)], table, atol=1e-7)
        assert np.isnan(image[len(table) :]).all()


def _zoom(plot, y0, y1):
    """What Bokeh sends when the reader zooms or pans (y0, y1 as the browser has them)."""
    plot.state._trigger_event(RangesUpdate(plot.state, x0=-0.5, x1=511.5, y0=y0, y1=y1))


def test_zooming_in_draws_every_row_in_view_and_reset_the_whole_table(render, sources, document):
    page = SinusoidalPage(n=4096, d=512, max_len=2000, t=0)
    plots = {name: render(page.figures[name].plot, doc=document) for name in ("table", "learned")}
    (table,) = sources(plots["table"], Image)
    (learned,) = sources(plots["learned"], Image)
    _zoom(plots["table"], 1100.5, 999.5)  # inverted axis: start > end
    # rows 1000 … 1100 are in view; with a tenth of them each side, 990 … 1110
    image = table.data["image"][0]
    assert image.shape == (121, 512)
    np.testing.assert_allclose(image, sinusoidal_encoding(1111, 512)[990:], atol=1e-6)
    assert (table.data["y"][0], table.data["dh"][0]) == (989.5, 121)
    assert learned.data["image"][0].shape == (512, 512)  # the other figure is not zoomed
    _zoom(plots["learned"], 1950, 2050)  # S4 across the end of the table
    rows = learned.data["image"][0]
    start = int(learned.data["y"][0] + 0.5)
    assert rows.shape[0] == learned.data["dh"][0]  # every row
    inside = 2000 - start
    np.testing.assert_allclose(
        rows[:inside], LearnedPositionTable(2000, 512, seed=0).table[start:], atol=1e-7
    )
    assert np.isnan(rows[inside:]).all()
    _zoom(plots["table"], 4095.5, -0.5)  # reset
    assert table.data["image"][0].shape == (512, 512)
    assert (table.data["y"][0], table.data["dh"][0]) == (-0.5, 4096)
    _zoom(plots["table"], 3000, 1000)  # rows 800 … 3200 with the margins: one in 5
    assert table.data["image"][0].shape == (481, 512)
    np.testing.assert_allclose(
        table.data["image"][0], sinusoidal_encoding(3201, 512)[800::5], atol=1e-6
    )
    page.base = 100  # a control: the whole table again, for the new base
    np.testing.assert_allclose(
        table.data["image"][0], sinusoidal_encoding(4096, 512, 100)[::8], atol=1e-6
    )


@pytest.mark.parametrize("d", [512, 300, 128])
def test_the_note_names_the_widest_view_drawn_row_by_row(d):
    # The note under S1 and S4 says "zoom in to N positions or fewer and every
    # row in view is drawn": N is exactly that bound, for a view in the middle.
    page = SinusoidalPage(n=4096, d=d, t=0)
    widest = full_detail_rows(d)
    for span, every_row in ((widest, True), (widest + 1, False)):
        low = 2000 - 0.5
        start, stop, step = page._table_detail.view(low, low + span)
        assert (step == 1) is every_row, (span, start, stop, step)
    assert f"to {widest:,} positions or fewer" in page._table_readout()


@pytest.mark.parametrize(
    ("y0", "y1"),
    [(None, None), (float("nan"), 3), (-1e300, 1e300), ("1", "x"), (5000, 9000), (-90, -80)],
)
def test_a_view_from_the_browser_is_clamped_to_the_table(render, sources, document, y0, y1):
    page = SinusoidalPage(n=4096, d=512, t=0)
    plot = render(page.figures["table"].plot, doc=document)
    (table,) = sources(plot, Image)
    _zoom(plot, y0, y1)
    image = table.data["image"][0]
    assert image.size <= 2**18
    bottom, height = table.data["y"][0], table.data["dh"][0]
    assert bottom >= -0.5 and bottom + height <= 4096 - 0.5 + 8


def test_tables_drawn_whole_ignore_zooming(page, render, sources, document):
    plot = render(page.figures["table"].plot, doc=document)
    (table,) = sources(plot, Image)
    before = table.data["image"][0]
    _zoom(plot, 30, 10)
    assert table.data["image"][0] is before
    assert page._table_detail.redraws == 0
