"""Sinusoidal & learned page: set parameters, assert on what each figure draws against the core."""

from __future__ import annotations

import numpy as np
import panel as pn
import pytest
from bokeh.core.property.vectorization import field
from bokeh.document import Document
from bokeh.document.events import ColumnDataChangedEvent
from bokeh.events import RangesUpdate, Tap
from bokeh.models import ColorBar, ColumnDataSource, Legend, Text
from panel.io.state import set_curdoc

from app.marks import KEY
from app.numbers import difference
from app.pages.sinusoidal import LEARNED_PRESETS, SinusoidalPage
from app.pages.sinusoidal.shared import full_detail_rows, row_view
from app.respond import one_update
from app.selection import CANDIDATE_BYTES
from positional_core.learned import LearnedPositionTable, learned_parameter_count
from positional_core.sinusoidal import (
    clock_angles,
    code_similarity,
    sinusoidal_code,
    sinusoidal_encoding,
)
from positional_core.views import shift_check

from .drawn import figures, record_events, rendered
from .test_selection import browser_draws


@pytest.fixture
def page():
    return SinusoidalPage(t=10, n=64, d=32)


def drawn(page, chart: str, mark: str) -> dict:
    return page.drawings[chart].drawn(mark)


def readout(page, chart: str) -> str:
    return page.drawings[chart].chart.readout(page)


def _image(page, chart: str) -> np.ndarray:
    return np.asarray(drawn(page, chart, "image")["image"][0])


def _plot(page, chart: str):
    (plot,) = page.drawings[chart].plots()
    return plot


def _layer(page, chart: str, mark: str):
    """The plot of one mark in its figure."""
    subs = sorted(_plot(page, chart).subplots.values(), key=lambda s: s.zorder)
    return subs[list(page.drawings[chart].chart.marks).index(mark)]


def _source(page, chart: str, mark: str) -> ColumnDataSource:
    return _layer(page, chart, mark).handles["source"]


def _outline(page, chart: str, mark: str) -> list[tuple[float, float]]:
    rows = drawn(page, chart, mark)
    return [(float(a), float(b)) for a, b in zip(rows["y0"], rows["y1"], strict=True)]


# ------------------------------------------------------------- S1 the table
def test_table_image_is_the_core_table_pinned_to_unit_range(page):
    image = _image(page, "table")
    assert image.shape == (64, 32)
    np.testing.assert_allclose(image, sinusoidal_encoding(64, 32), atol=1e-6)
    _root, _doc = rendered(page)
    mapper = _layer(page, "table", "image").handles["glyph_renderer"].glyph.color_mapper
    assert (mapper.low, mapper.high) == (-1.0, 1.0)


def test_highlight_moves_with_t_and_the_table_is_not_resent(page):
    _root, doc = rendered(page)
    image = _source(page, "table", "image")
    before = image.data["image"][0]
    assert _outline(page, "table", "outline_line") == [(9.5, 10.5)]
    events = []
    record_events(doc, events)
    with set_curdoc(doc), one_update():
        page.t = 40
    assert _outline(page, "table", "outline_line") == [(39.5, 40.5)]
    assert _outline(page, "table", "outline_halo") == [(39.5, 40.5)]
    assert list(_source(page, "table", "outline_line").data["y0"]) == [39.5]
    assert image.data["image"][0] is before
    assert not [e for e in events if isinstance(e, ColumnDataChangedEvent) and e.model is image]


@pytest.mark.parametrize("theme", ["default", "dark"])
def test_the_outline_of_t_is_an_opaque_black_line_on_a_wider_white_halo(page, theme):
    # HoloViews draws spans half transparent by default: the outline was a grey
    # smudge on the table. Opaque, black on white, it reads on every cell.
    with pn.config.set(theme=theme):
        _root, _doc = rendered(page)
    halo = _layer(page, "table", "outline_halo")
    line = _layer(page, "table", "outline_line")
    halo_glyph = halo.handles["glyph_renderer"].glyph
    line_glyph = line.handles["glyph_renderer"].glyph
    assert (line_glyph.line_color, line_glyph.line_alpha) == ("#000000", 1.0)
    assert (halo_glyph.line_color, halo_glyph.line_alpha) == ("#FFFFFF", 1.0)
    assert line_glyph.line_width >= 3
    assert halo_glyph.line_width >= line_glyph.line_width + 4  # 2 px of white each side
    assert halo.zorder < line.zorder  # the halo under the line
    for glyph in (halo_glyph, line_glyph):
        assert glyph.fill_alpha == 0


def test_table_follows_n_d_and_base(page):
    page.param.update(n=100, d=8, base=100)
    np.testing.assert_allclose(_image(page, "table"), sinusoidal_encoding(100, 8, 100), atol=1e-6)


# ------------------------------------------------------------- S2 the clock
def test_clock_has_one_hand_per_pair_at_the_code(page):
    hands = drawn(page, "clock", "hands")
    code = sinusoidal_code(10, 32)
    assert len(hands["x1"]) == 16
    np.testing.assert_allclose(hands["sin"], code[0::2])
    np.testing.assert_allclose(hands["cos"], code[1::2])
    np.testing.assert_allclose(hands["angle"], clock_angles(10, 32))
    # Fast hands are longer than slow hands, thinner (of those drawn bold), and
    # coloured by their pair.
    length = np.hypot(hands["x1"], hands["y1"])
    bold = np.asarray(hands["alpha"]) == 1
    assert np.all(np.diff(length) < 0) and np.all(np.diff(np.asarray(hands["width"])[bold]) > 0)
    assert list(hands["pair"]) == list(range(16))
    page.t = 11
    np.testing.assert_allclose(drawn(page, "clock", "hands")["sin"], sinusoidal_code(11, 32)[0::2])


def test_at_d_64_a_few_hands_are_bold_and_the_rest_faint(page):
    # 32 hands at full strength merged into one blob round 12 o'clock.
    page.param.update(d=64, t=10)
    hands = drawn(page, "clock", "hands")
    alpha, width = np.asarray(hands["alpha"]), np.asarray(hands["width"])
    bold = alpha == 1
    assert 4 <= bold.sum() <= 8
    assert bold[0] and bold[-1]  # the fastest and the slowest hands stay bold
    assert np.all(alpha[~bold] <= 0.4) and np.all(width[~bold] < width[bold].min())
    # Every hand is still drawn, with its exact numbers for the hover.
    assert len(hands["x1"]) == 32
    np.testing.assert_allclose(hands["sin"], sinusoidal_code(10, 64)[0::2])
    np.testing.assert_allclose(hands["angle"], clock_angles(10, 64))


def test_with_few_hands_every_hand_is_bold(page):
    page.d = 8
    hands = drawn(page, "clock", "hands")
    assert list(hands["alpha"]) == [1.0] * 4
    assert np.all(np.diff(hands["width"]) > 0)


def test_the_hands_opacity_is_drawn_from_its_column(page):
    _root, _doc = rendered(page)
    glyph = _layer(page, "clock", "hands").handles["glyph_renderer"].glyph
    assert glyph.line_alpha == field("alpha") and glyph.line_width == field("width")
    assert "alpha" in _source(page, "clock", "hands").data


def test_clock_colour_bar_runs_from_the_fastest_to_the_slowest_pair(page):
    _root, doc = rendered(page)
    figure = _plot(page, "clock").state
    (bar,) = [r for r in figure.right if isinstance(r, ColorBar)]
    assert bar.title == "pair i (0 = fastest)"
    assert (bar.color_mapper.low, bar.color_mapper.high) == (0, 15)
    assert len(bar.color_mapper.palette) == 16
    with set_curdoc(doc), one_update():
        page.d = 8
    assert (bar.color_mapper.high, len(bar.color_mapper.palette)) == (3, 4)


# -------------------------------------------------------- S3 the similarity
def test_similarity_peaks_at_t_and_the_bump_moves_with_t(page):
    for t in (10, 37):
        page.t = t
        dots = np.asarray(drawn(page, "similarity", "curve")["dot"])
        assert int(np.argmax(dots)) == t
        assert dots[t] == pytest.approx(16.0)
        np.testing.assert_allclose(dots, code_similarity(t, 64, 32))
        assert list(drawn(page, "similarity", "peak")["s"]) == [t]
        assert list(drawn(page, "similarity", "mark")["x"]) == [t]


def test_similarity_axes_hold_every_position_curve(page):
    frame = page.drawings["similarity"].frame()
    assert frame.x == (0, 63)
    low, high = frame.y
    for t in (0, 31, 63):
        page.t = t
        dots = drawn(page, "similarity", "curve")["dot"]
        assert low < dots.min() and dots.max() < high
    assert frame.labels == {"peak": "s = t"}


def test_shift_check_readout(page):
    text = readout(page, "similarity")
    assert "t = 10, k = 3" in text
    residual = shift_check(10, 3, page.d, page.base)  # the core's number
    assert residual < 1e-12
    assert f"<b>{difference(residual)}</b>" in text  # "≈ 0 (1.1 × 10⁻¹⁶)"


def test_quick_check_answer_is_d_over_two(page):
    page.d = 48
    assert "<b>24.000</b>" in page.quick_check.answer()


def test_quick_check_shows_the_dot_product_depends_on_the_offset_only(page):
    page.param.update(t=20, k=7)
    answer = page.quick_check.answer()
    value = sinusoidal_code(20, page.d, page.base) @ sinusoidal_code(27, page.d, page.base)
    assert answer.startswith("<b>Only on k.</b> With k = 7: t = 0: ")
    assert answer.count(f"{value:.4f}") == 3  # t = 0, 20 and 1,000 alike


# ----------------------------------------------------------- S4 the learned
def test_learned_table_has_no_row_past_max_len(page):
    page.param.update(max_len=16)
    page.t = 20
    text = readout(page, "learned")
    assert "Position 20 has no row" in text
    assert "rows 0…15" in text
    assert f"{learned_parameter_count(16, 32):,}" in text
    assert list(drawn(page, "learned", "no_row_label")["text"]) == ["position 20: no row"]
    assert _outline(page, "learned", "no_row_line") == [(19.5, 20.5)]
    assert _outline(page, "learned", "row_line") == []
    page.t = 15
    assert "row 15 of the table" in readout(page, "learned")
    assert list(drawn(page, "learned", "row_label")["text"]) == ["no rows for positions ≥ 16"]
    assert _outline(page, "learned", "row_line") == [(14.5, 15.5)]
    assert list(drawn(page, "learned", "no_row_label")["text"]) == []


def test_learned_readout_gives_gpt2_and_bert_counts(page):
    text = readout(page, "learned")
    assert "1,024 × 768 = 786,432" in text
    assert "BERT: 512 × 768" in text


@pytest.mark.parametrize("model", sorted(LEARNED_PRESETS))
def test_preset_jumps_to_first_position_without_row(page, model):
    rows, _ = LEARNED_PRESETS[model]
    (button,) = [
        b for b in page.sidebar().select(pn.widgets.Button) if b.label.startswith(model + ":")
    ]
    button.clicks += 1
    assert (page.max_len, page.t) == (rows, rows)
    assert page.n > rows
    assert "has no row" in readout(page, "learned")


def test_learned_rows_past_the_table_are_empty(page):
    page.param.update(max_len=16)
    image = _image(page, "learned")
    assert image.shape == (64, 32)
    assert np.isnan(image[16:]).all() and not np.isnan(image[:16]).any()
    np.testing.assert_allclose(image[:16], LearnedPositionTable(16, 32).table, atol=1e-7)
    limit = float(np.abs(LearnedPositionTable(16, 32).table).max())
    assert page.drawings["learned"].frame().scales["image"] == {"low": -limit, "high": limit}


# ------------------------------------------- the t choice, n and max_len
@pytest.mark.parametrize(
    "changes", [{"n": 100}, {"max_len": 10}, {"n": 20, "max_len": 30}, {"n": 3, "t": 2}]
)
def test_marks_of_t_ship_candidates_for_every_position_after_n_and_max_len(changes):
    """n and max_len change which positions exist and which have a row: the marks
    of t ship candidates for exactly the positions 0 … n − 1, in the same sources."""
    page = SinusoidalPage()
    _root, doc = rendered(page)
    marks = [
        (chart, mark)
        for chart, drawing in page.drawings.items()
        for mark, spec in drawing.chart.marks.items()
        if spec.choice == ("t",)
    ]
    sources = {m: _source(page, *m) for m in marks}
    with set_curdoc(doc), one_update():
        page.set_state(**changes)
    n, max_len = page.n, page.max_len
    for chart, mark in marks:
        source = _source(page, chart, mark)
        assert source is sources[(chart, mark)], mark
        assert source.tags, mark
        if KEY not in source.tags[0].data:  # a window (S3's curve): 2n − 1 values
            assert [len(v) for v in source.tags[0].data.values()] == [2 * n - 1], mark
            continue
        keys = set(np.unique(source.tags[0].data[KEY]).tolist())
        if mark.startswith("row_"):
            assert keys == set(range(min(n, max_len))), mark
        elif mark.startswith("no_row_"):
            assert keys == set(range(max_len, n)), mark
        else:
            assert keys == set(range(n)), mark
    # The browser draws from them what the server draws, on both sides of max_len.
    for t in sorted({0, n - 1, n // 2, min(max_len, n - 1)}):
        shipped = {m: _source(page, *m) for m in marks}
        before = {
            m: (dict(s.tags[0].data), list(s.tags[0].tags), dict(s.data))
            for m, s in shipped.items()
        }
        with set_curdoc(doc), one_update():
            page.t = t
        for m, (candidates, gather, drawn_before) in before.items():
            browser = browser_draws(candidates, gather, drawn_before, t)
            server = dict(shipped[m].data)
            assert set(browser) == set(server), m
            for name, column in server.items():
                if np.asarray(column).dtype.kind in "fiu":
                    np.testing.assert_allclose(
                        np.asarray(browser[name], dtype=float),
                        np.asarray(column, dtype=float),
                        rtol=1e-6,
                        err_msg=f"{m} {name} t={t}",
                    )
                else:
                    assert list(browser[name]) == list(column), (m, name, t)


def test_a_page_shown_again_draws_the_current_t():
    """Going to another page and back builds the figures' plots again: the marks
    of t show the t of now, with candidates for the n of now."""
    from app.main import build_app

    doc = Document()
    with set_curdoc(doc):
        app = build_app({"page": "sinusoidal"})
        app.server_doc(doc)
        shell = app.shell
        page = shell.current
        with one_update():
            page.set_state(t=20, n=100)
        with one_update():
            shell.page = "alibi"
        with one_update():
            shell.page = "sinusoidal"
    shown = [
        plot.state
        for pane in page.content().select(pn.pane.HoloViews)
        for plot, _pane in pane._plots.values()
        if plot.state.document is doc
    ]
    assert len(shown) == len(page.figures)  # S1–S5
    peaks = [
        source.data["s"]
        for figure in shown
        for source in figure.select(type=ColumnDataSource)
        if {"s", "dot"} <= set(source.data) and len(source.data["s"]) == 1
    ]
    assert [list(p) for p in peaks] == [[20]]
    hands = [
        source
        for figure in shown
        for source in figure.select(type=ColumnDataSource)
        if "omega" in source.data
    ]
    np.testing.assert_allclose(hands[0].data["sin"], sinusoidal_code(20, 64)[0::2])
    assert set(np.unique(hands[0].tags[0].data[KEY]).tolist()) == set(range(100))


def test_past_the_limit_the_server_draws_the_marks_of_t():
    page = SinusoidalPage(n=4096, d=512, t=0)
    _root, doc = rendered(page)
    assert _source(page, "clock", "hands").tags == []  # 4,096 × 256 rows: not shipped
    assert _source(page, "similarity", "peak").tags  # 4,096 rows: shipped
    with set_curdoc(doc), one_update():
        page.t = 4000
    hands = _source(page, "clock", "hands")
    np.testing.assert_allclose(hands.data["sin"], sinusoidal_code(4000, 512)[0::2])
    for chart, drawing in page.drawings.items():
        for mark in drawing.chart.marks:
            source = _source(page, chart, mark)
            if source.tags:  # what a change ships for the browser stays small
                weight = sum(np.asarray(c).nbytes for c in source.tags[0].data.values())
                assert weight <= CANDIDATE_BYTES, (mark, weight)


# --------------------------------------------------------------- the rules
def test_dependent_bounds_are_kept_consistent(page):
    page.n = 8
    assert page.t == 7
    assert page.param.t.bounds == (0, 7)
    page.n = 100
    assert page.param.t.bounds == (0, 99)
    page.d = 31
    assert page.d == 30


def test_axes_follow_the_number_of_positions(page):
    _root, doc = rendered(page)
    with set_curdoc(doc), one_update():
        page.set_state(n=200, t=150, max_len=20)
    assert _plot(page, "table").state.y_range.start == pytest.approx(199.5)
    assert _plot(page, "similarity").state.x_range.end == pytest.approx(199)
    assert _plot(page, "learned").state.y_range.start == pytest.approx(199.5)


def test_set_state_applies_related_values_in_any_order(page):
    assert page.set_state(t=150, n=200) == []
    assert (page.t, page.n, page.param.t.bounds) == (150, 200, (0, 199))
    notes = page.set_state(n=20)
    assert page.t == 19 and notes
    with pytest.raises(ValueError, match="not a control"):
        page.set_state(bogus=1)


# ------------------------------------------------------------- tall tables
@pytest.mark.parametrize(("n", "d", "step"), [(4096, 512, 32), (3001, 512, 24), (4096, 128, 8)])
def test_large_tables_send_every_step_th_row_and_keep_their_axis(n, d, step):
    # A 4,096 × 512 table would be 8 MB per image and change; the figure is
    # about 300 pixels tall. Each drawn row is the exact code of its position.
    page = SinusoidalPage(n=n, d=d, max_len=n, t=0)
    table = drawn(page, "table", "image")
    image = table["image"][0]
    rows = -(-n // step)
    assert image.shape == (rows, d) and image.size <= 2**16
    np.testing.assert_allclose(image, sinusoidal_encoding(n, d)[::step], atol=1e-6)
    # row r covers positions r·step … r·step + step − 1 (its bottom edge at −½)
    assert table["y"][0] == pytest.approx(-0.5)
    assert table["dh"][0] == pytest.approx(rows * step)
    full = LearnedPositionTable(n, d, seed=0).table
    np.testing.assert_allclose(_image(page, "learned"), full[::step], atol=1e-6)
    for chart in ("table", "learned"):  # the last row's overhang past n − 1 is cut off
        assert page.drawings[chart].frame().y == (-0.5, n - 0.5)
    note = readout(page, "table")
    assert f"drawn one row in {step} " in note and f"{rows:,} rows" in note
    # every row is drawn once at most 2**16 cells are in view (the zoom test below)
    assert f"Zoom in (box zoom) to {full_detail_rows(d):,} positions or fewer" in note
    assert f"drawn one row in {step} " in readout(page, "learned")


def test_tables_that_fit_draw_every_row_and_say_nothing(page):
    page.param.update(n=512, d=128)  # at both limits: 512 rows, 2**16 cells
    assert _image(page, "table").shape == (512, 128)
    assert readout(page, "table") == ""
    assert "drawn one row" not in readout(page, "learned")


def test_step_and_axis_follow_n_and_d_when_redrawn_in_place(page):
    _root, doc = rendered(page)
    table, learned = _source(page, "table", "image"), _source(page, "learned", "image")
    changes = (
        (3001, 512, 3001, 126, 24),
        (3001, 512, 1000, 126, 24),  # the learned table's kept rows follow max_len
        (64, 64, 48, 64, 1),
        (4096, 512, 4096, 128, 32),
        (4096, 256, 4096, 256, 16),  # and d
        (1024, 64, 1024, 512, 2),  # no more rows than about two per pixel
        (128, 512, 100, 128, 1),
    )
    for n, d, max_len, rows, step in changes:
        with set_curdoc(doc), one_update():
            page.param.update(n=n, d=d, max_len=max_len)
        assert table.data["image"][0].shape == (rows, d)
        figure = _plot(page, "table").state
        assert (figure.y_range.start, figure.y_range.end) == (n - 0.5, -0.5)
        image = learned.data["image"][0]
        expected = LearnedPositionTable(max_len, d, seed=0).table[::step]
        assert image.shape == (rows, d)
        np.testing.assert_allclose(image[: len(expected)], expected, atol=1e-7)
        assert np.isnan(image[len(expected) :]).all()


def _zoom(page, chart, doc, y0, y1):
    """What Bokeh sends when the reader zooms or pans (y0, y1 as the browser has them)."""
    figure = _plot(page, chart).state
    with set_curdoc(doc):
        figure._trigger_event(RangesUpdate(figure, x0=-0.5, x1=511.5, y0=y0, y1=y1))


def test_zooming_in_draws_every_row_in_view_and_reset_the_whole_table():
    page = SinusoidalPage(n=4096, d=512, max_len=2000, t=0)
    _root, doc = rendered(page)
    table, learned = _source(page, "table", "image"), _source(page, "learned", "image")
    _zoom(page, "table", doc, 1100.5, 999.5)  # inverted axis: start > end
    # rows 1000 … 1100 are in view; with a tenth of them each side, 990 … 1110
    image = table.data["image"][0]
    assert image.shape == (121, 512)
    np.testing.assert_allclose(image, sinusoidal_encoding(1111, 512)[990:], atol=1e-6)
    assert (table.data["y"][0], table.data["dh"][0]) == (989.5, 121)
    assert learned.data["image"][0].shape == (128, 512)  # the other figure is not zoomed
    _zoom(page, "learned", doc, 1950, 2050)  # S4 across the end of the table
    rows = learned.data["image"][0]
    start = int(learned.data["y"][0] + 0.5)
    assert rows.shape[0] == learned.data["dh"][0]  # every row
    inside = 2000 - start
    np.testing.assert_allclose(
        rows[:inside], LearnedPositionTable(2000, 512, seed=0).table[start:], atol=1e-7
    )
    assert np.isnan(rows[inside:]).all()
    _zoom(page, "table", doc, 4095.5, -0.5)  # reset
    assert table.data["image"][0].shape == (128, 512)
    assert (table.data["y"][0], table.data["dh"][0]) == (-0.5, 4096)
    _zoom(page, "table", doc, 3000, 1000)  # rows 800 … 3200 with the margins: one in 19
    assert table.data["image"][0].shape == (127, 512)
    np.testing.assert_allclose(
        table.data["image"][0], sinusoidal_encoding(3201, 512)[800::19], atol=1e-6
    )
    with set_curdoc(doc), one_update():
        page.base = 100  # a control: the whole table again, for the new base
    np.testing.assert_allclose(
        table.data["image"][0], sinusoidal_encoding(4096, 512, 100)[::32], atol=1e-6
    )


@pytest.mark.parametrize("d", [512, 300, 128])
def test_the_note_names_the_widest_view_drawn_row_by_row(d):
    # The note under S1 and S4 says "zoom in to N positions or fewer and every
    # row in view is drawn": N is exactly that bound, for a view in the middle.
    page = SinusoidalPage(n=4096, d=d, t=0)
    widest = full_detail_rows(d)
    for span, every_row in ((widest, True), (widest + 1, False)):
        low = 2000 - 0.5
        start, stop, step = row_view(4096, d, low, low + span)
        assert (step == 1) is every_row, (span, start, stop, step)
    assert f"to {widest:,} positions or fewer" in readout(page, "table")


@pytest.mark.parametrize(
    ("y0", "y1"),
    [(float("nan"), 3), (-1e300, 1e300), ("1", "x"), (5000, 9000), (-90, -80)],
)
def test_a_view_from_the_browser_is_clamped_to_the_table(y0, y1):
    page = SinusoidalPage(n=4096, d=512, t=0)
    _root, doc = rendered(page)
    table = _source(page, "table", "image")
    _zoom(page, "table", doc, y0, y1)
    image = table.data["image"][0]
    assert image.size <= 2**16
    bottom, height = table.data["y"][0], table.data["dh"][0]
    assert bottom >= -0.5 and bottom + height <= 4096 - 0.5 + 8


def test_tables_drawn_whole_ignore_zooming(page):
    _root, doc = rendered(page)
    table = _source(page, "table", "image")
    before = table.data["image"][0]
    events = []
    record_events(doc, events)
    _zoom(page, "table", doc, 30, 10)
    assert table.data["image"][0] is before
    assert not [e for e in events if isinstance(e, ColumnDataChangedEvent) and e.model is table]


# ------------------------------------------------------------- every figure
def fixed_font_sizes(root) -> list[float]:
    """The sizes in pixels of the texts the figures draw at a fixed size: their labels
    and legends in pt or px. (Sizes in em follow the page's text, ≥ 14 px.)"""
    sizes = []
    for figure in figures(root):
        specs = [glyph.text_font_size for glyph in figure.select(Text)]
        specs += [legend.label_text_font_size for legend in figure.select(Legend)]
        for spec in specs:
            text = spec.value if hasattr(spec, "value") else spec
            if text.endswith("pt"):
                sizes.append(float(text[:-2]) * 4 / 3)
            elif text.endswith("px"):
                sizes.append(float(text[:-2]))
    return sizes


@pytest.mark.parametrize("d", [8, 64])
def test_every_text_drawn_in_the_figures_is_at_least_12px(page, d):
    page.param.update(d=d, max_len=8, t=20)  # S4 writes "no row" on the table
    root, _doc = rendered(page)
    sizes = fixed_font_sizes(root)
    assert len(sizes) >= 3 and min(sizes) >= 12


def test_a_tap_on_s5_picks_the_patch_under_it_and_a_tap_beside_the_grid_nothing():
    page = SinusoidalPage()
    _root, doc = rendered(page)
    figure = _plot(page, "grid").state
    with set_curdoc(doc):
        figure._trigger_event(Tap(figure, x=8.7, y=2.2))  # nearest patch centre: (2, 9)
    assert (page.patch_row, page.patch_col) == (2, 9)
    assert "Patch (row 2, column 9)" in readout(page, "grid")
    with set_curdoc(doc):
        figure._trigger_event(Tap(figure, x=13.6, y=2.0))  # past the last column's edge
        figure._trigger_event(Tap(figure, x=4.0, y=-0.7))  # above the first row
    assert (page.patch_row, page.patch_col) == (2, 9)
