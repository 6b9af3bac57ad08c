"""RoPE page: set parameters, assert on what each figure draws against the core's numbers."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from typing import Any

import holoviews as hv
import numpy as np
import panel as pn
import pytest
from bokeh.document import Document
from bokeh.document.events import ColumnDataChangedEvent, ColumnsPatchedEvent, ModelChangedEvent
from bokeh.models import ColumnDataSource, HoverTool
from panel.io.state import set_curdoc

from app.cards import is_shown
from app.main import PAGES
from app.pages.rope import BASES, FIXED_STARTS, RopePage
from app.pages.rope.layouts import DIAGRAM_DIM
from app.pages.rope.pair import NAME_GAP
from app.urlstate import page_query
from positional_core.extension import never_complete_turn
from positional_core.rope import (
    apply_rope,
    pair_from_polar,
    pair_indices,
    random_query_key,
    rope_decay_bound,
    rope_frequencies,
    rope_score,
    rope_score_terms,
    rope_scores_by_offset,
    rotation_angles,
    wavelengths,
)

from .drawn import on_a_loop, record_events, rendered
from .test_sinusoidal import fixed_font_sizes

#: Rows the score log keeps.
LOG_ROWS = 50


@pytest.fixture
def page():
    return RopePage()


def drawn(page, chart: str, mark: str) -> dict:
    return page.drawings[chart].drawn(mark)


def readout(page, chart: str) -> str:
    return page.drawings[chart].chart.readout(page)


def _score(page) -> float:
    q = pair_from_polar(page.q_angle, page.q_len)
    k = pair_from_polar(page.k_angle, page.k_len)
    return rope_score(q, k, page.m, page.n, inv_freq=[page.theta])


def _shown(value: float) -> str:
    return f"{value:.3f}".replace("-0.000", "0.000").replace("-", "−")


# ------------------------------------------------------------- R1 widgets
def _button(page, label: str) -> pn.widgets.Button:
    (button,) = [
        b for b in page.figures["pair"].extras[0].select(pn.widgets.Button) if b.name == label
    ]
    return button


def _press(page, label: str) -> None:
    _button(page, label).clicks += 1


def _log_html(page) -> str:
    return page.figures["pair"].extras[2].object


def _identity(page) -> str:
    return page.figures["pair"].extras[-1].object


def _score_html(page) -> str:
    return readout(page, "pair")


# ------------------------------------------------------------ R1 dragging
def _plot(page, chart: str = "pair"):
    (plot,) = page.drawings[chart].plots()
    return plot


def _source(page, chart: str, mark: str) -> ColumnDataSource:
    subs = sorted(_plot(page, chart).subplots.values(), key=lambda s: s.zorder)
    return subs[list(page.drawings[chart].chart.marks).index(mark)].handles["source"]


def _tip_streams(page):
    """The point-draw and pan-end streams of R1's drawn tips (as the browser drives them)."""
    subs = sorted(_plot(page).subplots.values(), key=lambda s: s.zorder)
    tips = subs[list(page.drawings["pair"].chart.marks).index("tips")]
    streams = {type(s).__name__: s for s in hv.streams.Stream.registry[tips.hmap.last]}
    return streams["PointDraw"], streams["PanEnd"]


def _drag(page, doc, q, k) -> None:
    """What the browser's point-draw tool sends: both tips' coordinates."""
    drag, _release = _tip_streams(page)
    with set_curdoc(doc):
        drag.event(data={"c1": [q[0], k[0]], "c2": [q[1], k[1]], "vector": ["q", "k"]})


def in_loop(test: Callable[..., None]) -> Callable[..., None]:
    """Run the test on an event loop: a change of R1's tips from the server has
    HoloViews' point-draw callback schedule a task, as in a session."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        on_a_loop(lambda: test(*args, **kwargs))

    return run


def _release(page, doc) -> None:
    with set_curdoc(doc):
        _tip_streams(page)[1].event()


# ------------------------------------------------------------------- R1
class TestOnePair:
    def test_defaults_are_the_reference_example(self, page):
        # REFERENCE_NUMBERS: θ = 0.5, q = (1, 0), k = (0, 1): score(m=2, n=1) = 0.479.
        assert (page.m, page.n, page.theta) == (2, 1, 0.5)
        assert "= 0.479</b>" in _score_html(page)
        assert r"\mathbf{0.479}" in _identity(page)

    @pytest.mark.parametrize(
        "values",
        [
            {"m": 3, "n": 7, "theta": 1.0, "q_angle": 0.0, "k_angle": 0.0},
            {"m": 40, "n": 11, "theta": 0.3, "q_angle": 35.0, "q_len": 0.4, "k_angle": -120.0},
            {"m": 0, "n": 4096, "theta": 3.14, "k_len": 1.5},
        ],
    )
    def test_readouts_equal_the_core_score(self, page, values):
        page.set_state(**values)
        expected = _score(page)
        terms = rope_score_terms(
            pair_from_polar(page.q_angle, page.q_len),
            pair_from_polar(page.k_angle, page.k_len),
            page.m,
            page.n,
            page.theta,
        )
        assert terms.score == pytest.approx(expected, abs=1e-12)
        assert f"= {_shown(expected)}</b>" in _score_html(page)
        identity = _identity(page)
        for part in (terms.dot, terms.cross, terms.cos, terms.sin, terms.score):
            assert f"{part:.3f}".replace("-0.000", "0.000") in identity

    def test_plot_columns_are_the_core_rotations(self, page):
        page.set_state(m=5, n=9, theta=0.7, q_angle=30.0, k_angle=-45.0, k_len=0.8)
        q, k = pair_from_polar(30, 1.0), pair_from_polar(-45, 0.8)
        rq = apply_rope(q, 5, inv_freq=[0.7])
        rk = apply_rope(k, 9, inv_freq=[0.7])
        rotated, contents = drawn(page, "pair", "rotated"), drawn(page, "pair", "contents")
        assert rotated["c1_end"] == pytest.approx([rq[0], rk[0]])
        assert rotated["c2_end"] == pytest.approx([rq[1], rk[1]])
        assert contents["c1_end"] == pytest.approx([q[0], k[0]])
        heads = drawn(page, "pair", "heads")
        assert heads["turned"] == pytest.approx(rotation_angles([5, 9], [0.7])[:, 0])
        assert list(heads["position"]) == [5, 9]
        assert list(drawn(page, "pair", "names")["text"]) == ["q", "k", "R₅q", "R₉k"]
        tips = drawn(page, "pair", "tips")
        assert list(tips["direction"]) == [30.0, -45.0] and list(tips["length"]) == [1.0, 0.8]
        # rotation keeps the length
        assert np.hypot(*rk) == pytest.approx(0.8)

    def test_shift_keeps_the_score_and_logs_before_and_after(self, page):
        before = _score(page)
        _press(page, "Shift both by +1")
        assert (page.m, page.n) == (3, 2)
        assert _score(page) == pytest.approx(before, abs=1e-12)
        assert [row[0] for row in page.log] == ["shift both +1", "before"]
        assert page.log[0][4] == pytest.approx(page.log[1][4], abs=1e-12)
        for _ in range(9):
            _press(page, "Shift both by +1")
        # REFERENCE_NUMBERS: score(12, 11) = 0.479
        assert (page.m, page.n) == (12, 11)
        assert f"{page.log[0][4]:.3f}" == "0.479"
        assert len(page.log) == 11  # one "before", ten shifts
        assert "<td>shift both +1</td><td>12</td><td>11</td><td>−1</td>" in _log_html(page)

    def test_swap_flips_the_sign_of_the_sine_term(self, page):
        page.set_state(q_angle=20.0, k_angle=80.0, m=9, n=4)
        q, k = pair_from_polar(20, 1), pair_from_polar(80, 1)
        before = rope_score_terms(q, k, page.m, page.n, page.theta)
        _press(page, "Swap m and n")
        assert (page.m, page.n) == (4, 9)
        after = rope_score_terms(q, k, page.m, page.n, page.theta)
        assert after.sin == pytest.approx(-before.sin)
        assert after.cos == pytest.approx(before.cos)
        assert after.score == pytest.approx(before.dot * before.cos - before.cross * before.sin)
        assert after.score != pytest.approx(before.score)
        assert page.log[0][0] == "swap m and n"
        assert page.log[0][4] == pytest.approx(after.score)
        # the state was already logged: a second swap adds one row only
        _press(page, "Swap m and n")
        assert len(page.log) == 3

    def test_log_is_capped_and_clearable(self, page):
        for _ in range(LOG_ROWS + 10):
            _press(page, "Swap m and n")
        assert len(page.log) == LOG_ROWS
        assert "<table" in _log_html(page)
        _press(page, "Clear log")
        assert page.log == [] and "log is empty" in _log_html(page)

    def test_shift_at_the_last_position_explains_and_changes_nothing(self, page):
        top = page.param.m.bounds[1]
        page.set_state(m=top, n=top - 3)
        _press(page, "Shift both by +1")
        assert (page.m, page.n) == (top, top - 3)
        assert page.r1_notes and f"{top:,}" in page.r1_notes[0]
        notice = page.figures["pair"].extras[1]
        assert is_shown(notice) and f"{top:,}" in notice.object
        assert page.log == []
        _press(page, "Swap m and n")
        assert page.r1_notes == []

    def test_log_text_is_numbers_only(self, page):
        _press(page, "Swap m and n")
        html = _log_html(page)
        assert "<script" not in html and "onerror" not in html


class TestDragging:
    """The tips dragged as the browser drags them: through R1's point-draw stream."""

    def test_the_tips_are_dragged_by_the_active_point_draw_tool(self, page):
        rendered(page)
        toolbar = _plot(page).state.toolbar
        (tool,) = [t for t in toolbar.tools if type(t).__name__ == "PointDrawTool"]
        assert tool.description == "Drag the tips of q and k"
        assert toolbar.active_drag is tool
        assert not {"PanTool", "WheelZoomTool", "BoxZoomTool"} & {
            type(t).__name__ for t in toolbar.tools
        }

    @in_loop
    def test_drag_sets_angle_and_length_in_one_update(self, page):
        _root, doc = rendered(page)
        updates = []
        page.param.watch(lambda *events: updates.append(len(events)), ["q_angle", "q_len"])
        _drag(page, doc, pair_from_polar(30.4, 0.777), pair_from_polar(90, 1))
        assert (page.q_angle, page.q_len) == (30.0, 0.78)
        assert (page.k_angle, page.k_len) == (90.0, 1.0)
        assert updates == [2]  # both together, one batch

    @in_loop
    def test_drag_past_the_limit_is_clamped(self, page):
        dragged = page.drawings["pair"].chart.dragged
        values = dragged(page, "tips", {"c1": [0.0, -2.0], "c2": [-3.0, 0.0]})
        assert values == {"q_angle": -90.0, "q_len": 1.5, "k_angle": 180.0, "k_len": 1.5}
        values = dragged(page, "tips", {"c1": [0.001, 0.0], "c2": [0.0, 0.02]})
        assert values["q_len"] == values["k_len"] == 0.1
        _root, doc = rendered(page)
        _drag(page, doc, (0.0, -3.0), (-2.0, 0.0))
        assert (page.q_angle, page.q_len, page.k_angle, page.k_len) == (-90.0, 1.5, 180.0, 1.5)

    @pytest.mark.parametrize(
        "data",
        [
            {"c1": [1.0], "c2": [0.0]},  # a tip deleted with Backspace
            {"c1": [np.nan, 0.0], "c2": [0.0, 1.0]},
            {"c1": ["x", 0.0], "c2": [0.0, 1.0]},
            {"c1": [None, 0.0], "c2": [0.0, 1.0]},
            {"c2": [0.0, 1.0]},
        ],
    )
    @in_loop
    def test_bad_tip_data_keeps_the_contents_and_puts_the_tips_back(self, page, data):
        assert page.drawings["pair"].chart.dragged(page, "tips", data) == {}
        _root, doc = rendered(page)
        before = (page.q_angle, page.q_len, page.k_angle, page.k_len)
        tips = _source(page, "pair", "tips")
        sent: list = []
        record_events(doc, sent)

        with set_curdoc(doc):
            _tip_streams(page)[0].event(data=data)
        assert (page.q_angle, page.q_len, page.k_angle, page.k_len) == before
        # The tips are put back where the page has them (the browser moved its copy).
        assert [e.model for e in sent if getattr(e, "attr", None) == "data"] == [tips]
        assert list(tips.data["c1"]) == pytest.approx([1.0, 0.0])

    @in_loop
    def test_drag_updates_the_readout(self, page):
        _root, doc = rendered(page)
        _drag(page, doc, pair_from_polar(-90, 1.2), pair_from_polar(90, 1))
        assert page.q_angle == -90.0
        assert _shown(_score(page)) in _score_html(page)
        assert _shown(_score(page)) in page.figures["pair"].readout.object

    @in_loop
    def test_sessions_do_not_share_contents(self):
        one, two = RopePage(), RopePage()
        _root, doc = rendered(one)
        rendered(two)
        _drag(one, doc, (0.0, 1.0), (1.0, 0.0))
        assert one.q_angle == 90.0
        assert two.q_angle == 0.0

    @in_loop
    def test_the_tips_follow_a_slider_not_the_drag_until_it_ends(self, page):
        _root, doc = rendered(page)
        tips = _source(page, "pair", "tips")
        with set_curdoc(doc):
            page.q_angle = 45.0  # a slider moves the tips...
        assert tips.data["c1"][0] == pytest.approx(pair_from_polar(45, 1)[0])
        # ...a drag does not (the tip under the mouse is the browser's)...
        _drag(page, doc, pair_from_polar(60.3, 1), pair_from_polar(90, 1))
        assert page.q_angle == 60.0
        assert tips.data["c1"][0] == pytest.approx(pair_from_polar(45, 1)[0])
        contents = _source(page, "pair", "contents")
        assert contents.data["c1_end"][0] == pytest.approx(pair_from_polar(60, 1)[0])
        # ...until it ends: the tips snap to the parameters.
        _release(page, doc)
        assert tips.data["c1"][0] == pytest.approx(pair_from_polar(60, 1)[0])

    @in_loop
    def test_a_drag_only_replaces_source_data(self, page):
        # The cheap path: a drag step sends the changed columns of R1's sources and
        # the readouts' text, never a rebuilt plot (no new model, no other property).
        _root, doc = rendered(page)
        events = []
        record_events(doc, events)
        for angle in range(1, 11):
            _drag(page, doc, pair_from_polar(angle, 1), pair_from_polar(90, 1))
        assert page.q_angle == 10.0
        kinds = set()
        for event in events:
            attr = getattr(event, "attr", "data")
            kinds.add(attr)
            # Source data, the readouts' text and the angle sliders following the tips.
            assert attr in {"data", "text", "value", "value_throttled"}, (event, attr)
            if attr == "data":
                assert isinstance(event.model, ColumnDataSource), event
        assert "data" in kinds


class TestDrawnData:
    """R1 rendered into a document: its sources follow the page's state."""

    @in_loop
    def test_a_plot_built_after_changes_draws_the_state_now(self, page):
        # A link sets the page's state after the page is made, before R1 is shown;
        # and a page shown again is built anew.
        page.apply_query({"m": "5", "n": "9", "q_angle": "30", "k_angle": "-45"})
        for labels in (["R₅q", "R₉k"], ["R₁₁q", "R₉k"]):
            doc = Document()
            doc.add_root(page.figure_view("pair").get_root(doc))
            plot = page.drawings["pair"].plots()[-1]
            subs = sorted(plot.subplots.values(), key=lambda s: s.zorder)
            marks = page.drawings["pair"].chart.marks
            source = dict(zip(marks, (s.handles["source"] for s in subs), strict=True))
            q, k = pair_from_polar(page.q_angle, 1.0), pair_from_polar(page.k_angle, 1.0)
            rq = apply_rope(q, page.m, inv_freq=[page.theta])
            rk = apply_rope(k, page.n, inv_freq=[page.theta])
            assert source["heads"].data["c1"] == pytest.approx([rq[0], rk[0]])
            assert list(source["heads"].data["position"]) == [page.m, page.n]
            assert source["rotated"].data["c2_end"][1] == pytest.approx(rk[1])
            assert source["tips"].data["c1"] == pytest.approx([q[0], k[0]])
            assert list(source["names"].data["text"][2:]) == labels
            page.param.update(m=11, q_angle=120.0)  # then shown again

    @in_loop
    def test_a_link_opens_r1_at_its_state(self):
        # The whole app, as a server session builds it from a shared link.
        from app.main import build_app

        doc = Document()
        with set_curdoc(doc):
            app = build_app({"page": "rope", "m": "5", "n": "9", "q_angle": "30", "k_angle": "-45"})
            app.server_doc(doc)
        page = app.shell.current
        heads, tips = _source(page, "pair", "heads"), _source(page, "pair", "tips")
        rk = apply_rope(pair_from_polar(-45, 1.0), 9, inv_freq=[page.theta])
        assert heads.data["c1"][1] == pytest.approx(rk[0])
        assert list(heads.data["position"]) == [5, 9]
        assert list(tips.data["direction"]) == [30.0, -45.0]
        assert heads.document is doc

    @in_loop
    def test_a_change_sends_only_the_marks_it_changes(self, page):
        # m turns the query only: the contents and the tips keep their data and are
        # not sent again; a content control moves its tip, the contents and the rest.
        _root, doc = rendered(page)
        marks = list(page.drawings["pair"].chart.marks)
        sources = {id(_source(page, "pair", mark)): mark for mark in marks}
        sent: list = []
        record_events(doc, sent)

        def changed(**values) -> set[str]:
            del sent[:]
            with set_curdoc(doc):
                page.param.update(values)
            return {
                sources[id(e.model)]
                for e in sent
                if isinstance(e, ColumnDataChangedEvent | ColumnsPatchedEvent | ModelChangedEvent)
                and id(e.model) in sources
            }

        assert changed(m=page.m + 1) == {"rotated", "heads", "arc", "names"}
        assert changed(k_angle=page.k_angle + 10.0) == {
            "contents",
            "rotated",
            "heads",
            "arc",
            "names",
            "tips",
        }
        assert changed(theta=0.9) == {"rotated", "heads", "arc", "names"}


def _names(page) -> np.ndarray:
    names = drawn(page, "pair", "names")
    return np.c_[names["c1"], names["c2"]]


def _closest(spots: np.ndarray) -> float:
    return min(float(np.hypot(*(a - b))) for a, b in itertools.combinations(spots, 2))


class TestNames:
    """The names of R1's four arrows (q, k, Rₘq, Rₙk) never sit on one another."""

    @pytest.mark.parametrize(
        "state",
        [
            {"m": 105, "n": 102},  # the quick check: the turned arrows 1.5 rad apart … and back
            {"m": 105, "n": 102, "q_angle": 90.0, "k_angle": 0.0},
            {"m": 105, "n": 105},
            {"m": 0, "n": 0},  # each name on its content's name
            {"m": 7, "n": 7, "k_angle": 0.0},  # all four arrows along one line
            {"m": 3, "n": 3, "k_angle": 0.0, "q_len": 1.5, "k_len": 1.5, "theta": 0.0},
        ],
    )
    def test_no_two_names_are_closer_than_the_gap(self, page, state):
        page.set_state(**state)
        spots = _names(page)
        assert _closest(spots) >= NAME_GAP * (1 - 1e-9)
        # … and inside the frame, with room for half a name on every side
        _low, high = page.drawings["pair"].frame().x
        assert np.abs(spots).max() <= high - 0.26
        assert list(drawn(page, "pair", "names")["text"])[:2] == ["q", "k"]

    def test_any_state_keeps_the_names_apart(self, page):
        rng = np.random.default_rng(7)
        for _ in range(150):
            angle = float(rng.integers(-180, 181))
            page.set_state(
                m=int(rng.integers(0, 4097)),
                n=int(rng.integers(0, 4097)),
                theta=round(float(rng.uniform(0, 3.14)), 2),
                q_angle=angle,
                k_angle=float(np.clip(angle + rng.integers(-5, 6), -180, 180)),
                q_len=round(float(rng.uniform(0.1, 1.5)), 2),
                k_len=round(float(rng.uniform(0.1, 1.5)), 2),
            )
            assert _closest(_names(page)) >= NAME_GAP * (1 - 1e-9), page.param.values()

    def test_names_with_room_stay_just_past_their_tips(self, page):
        # The defaults: q = (1, 0), k = (0, 1), turned by 1 and 0.5 rad.
        q, k = pair_from_polar(0, 1), pair_from_polar(90, 1)
        rq, rk = apply_rope(q, 2, inv_freq=[0.5]), apply_rope(k, 1, inv_freq=[0.5])
        expected = [q * 1.16, k * 1.16, rq * 1.2, rk * 1.2]
        np.testing.assert_allclose(_names(page), expected, atol=1e-12)

    @in_loop
    def test_the_dragged_tips_raise_no_tooltip_over_the_arrows(self, page):
        # Bokeh puts a point's tooltip on the side towards the frame's centre, over
        # the arrows; after a drag the pointer rests on the tip. The arrowheads,
        # which are not dragged, keep theirs.
        _root, _doc = rendered(page)
        hovered = {
            id(renderer)
            for tool in _plot(page).state.select(HoverTool)
            for renderer in (tool.renderers if isinstance(tool.renderers, list) else [])
        }
        subs = sorted(_plot(page).subplots.values(), key=lambda s: s.zorder)
        layer = dict(zip(page.drawings["pair"].chart.marks, subs, strict=True))
        assert id(layer["heads"].handles["glyph_renderer"]) in hovered
        assert id(layer["tips"].handles["glyph_renderer"]) not in hovered


# ---------------------------------------------------------------- R2 / R7
def _curves(page, chart: str) -> list[np.ndarray]:
    y = "score" if chart == "distance" else "score_mix"
    return [np.asarray(drawn(page, chart, m)[y]) for m in ("m0", "m100", "m1000", "yours")]


class TestScoreCurves:
    def test_curves_for_every_start_are_equal(self, page):
        page.set_state(d=32, start=12_345, max_distance=300, seed=4)
        curves = _curves(page, "distance")
        q, k = random_query_key(32, 4)
        expected = rope_scores_by_offset(q, k, np.arange(301), 0)
        for curve in curves:
            np.testing.assert_allclose(curve, expected, atol=1e-9)
        assert "<b>≈ 0 (" in readout(page, "distance")  # a rounding-level gap
        assert page.drawings["distance"].frame().x == (0, 300)

    def test_long_curves_are_drawn_at_two_points_a_pixel_with_their_envelope(self, page):
        # 2,049 offsets for a figure ~500 pixels wide: each bin of Δ keeps its
        # first, lowest, highest and last score, the core's own values.
        page.set_state(d=64, max_distance=2048, seed=3)
        q, k = random_query_key(64, 3)
        expected = rope_scores_by_offset(q, k, np.arange(2049), 0)
        for chart, y in (("distance", "score"), ("mismatch", "score_mix")):
            curve = drawn(page, chart, "m0")
            delta = np.asarray(curve["delta" if chart == "distance" else "delta_mix"])
            assert 500 < len(delta) <= 1000
            np.testing.assert_allclose(curve[y], expected[delta], atol=1e-9)
            assert np.max(curve[y]) == pytest.approx(expected.max())
            assert np.min(curve[y]) == pytest.approx(expected.min())

    @pytest.mark.parametrize("layout", ["interleaved", "half-split"])
    def test_mismatch_curves_come_apart(self, page, layout):
        page.set_state(layout=layout, d=64)
        mixed = _curves(page, "mismatch")
        correct = np.asarray(drawn(page, "mismatch", "correct")["score_mix"])
        assert np.max(np.abs(mixed[1] - mixed[0])) > 0.1
        assert np.max(np.abs(mixed[3] - mixed[2])) > 0.1
        # at m = 0 the query is not turned: the bug is invisible there
        np.testing.assert_allclose(mixed[0], correct, atol=1e-9)
        np.testing.assert_allclose(correct, _curves(page, "distance")[0])
        other = "half-split" if layout == "interleaved" else "interleaved"
        assert f"query rotated {other}" in readout(page, "mismatch")

    def test_new_qk_changes_the_seed_and_the_curves(self, page):
        (button,) = page.figures["distance"].extras
        first = _curves(page, "distance")[0]
        button.clicks += 1
        assert page.seed == 1
        assert not np.allclose(first, _curves(page, "distance")[0])
        page.seed = page.param.seed.bounds[1]
        button.clicks += 1
        assert page.seed == 0

    def test_starts_are_the_fixed_ones_and_yours(self, page):
        page.start = 777
        starts = [int(drawn(page, "distance", m)["start"][0]) for m in ("m0", "m100", "m1000")]
        assert starts == list(FIXED_STARTS)
        assert set(drawn(page, "distance", "yours")["start"]) == {777}
        assert page.drawings["distance"].frame().labels == {
            "m0": "m = 0",
            "m100": "m = 100",
            "m1000": "m = 1,000",
            "yours": "your m",
        }


# -------------------------------------------------------------- R4 / R5
class TestAngles:
    def test_angles_are_wrapped_core_angles(self, page):
        page.set_state(d=16, base=100, max_distance=50, pair=5)
        samples, chosen = drawn(page, "angles", "samples"), drawn(page, "angles", "chosen")
        theta = rope_frequencies(16, 100)
        expected = np.mod(rotation_angles(np.arange(51), theta[[5]])[:, 0], 2 * np.pi)
        np.testing.assert_allclose(chosen["angle"], expected)
        assert set(chosen["pair"]) == {5}
        assert list(np.unique(samples["pair"])) == [0, 2, 5, 7]
        assert samples["angle"].max() < 2 * np.pi
        assert "θ<sub>5</sub> = " in readout(page, "angles")

    def test_wavelengths_and_never_completing_pairs(self, page):
        page.set_state(d=128, base=10_000, max_distance=2048)
        np.testing.assert_allclose(
            drawn(page, "wavelengths", "dots")["wavelength"], wavelengths(rope_frequencies(128))
        )
        slow = int(never_complete_turn(rope_frequencies(128), 2049).sum())
        assert f"<b>{slow} of 64</b>" in readout(page, "wavelengths")

    def test_moving_the_pair_resends_only_the_highlight(self, page):
        _root, doc = rendered(page)
        samples = _source(page, "angles", "samples")
        chosen = _source(page, "angles", "chosen")
        assert set(chosen.data["pair"]) == {8}
        events = []
        record_events(doc, events)
        with set_curdoc(doc):
            page.pair = 3
        assert samples not in {getattr(e, "model", None) for e in events}
        assert set(chosen.data["pair"]) == {3}
        assert list(_source(page, "wavelengths", "ring").data["pair"]) == [3]
        assert list(drawn(page, "wavelengths", "ring")["pair"]) == [3]

    def test_highlighted_pair_follows_d(self, page):
        page.pair = 20
        page.d = 8
        assert page.pair == 3
        assert page.param.pair.bounds == (0, 3)
        page.d = 64
        assert page.param.pair.bounds == (0, 31)


# ------------------------------------------------------------------- R6
class TestLayouts:
    @pytest.mark.parametrize("d", [4, 16, 64])
    def test_diagram_pairs_are_the_core_pairs(self, page, d):
        page.d = d
        cells = drawn(page, "layouts", "cells")
        shown = min(d, DIAGRAM_DIM)
        for layout in ("interleaved", "half-split"):
            rows = np.asarray(cells["layout"]) == layout
            partner = dict(
                zip(np.asarray(cells["dim"])[rows], np.asarray(cells["partner"])[rows], strict=True)
            )
            for a, b in pair_indices(shown, layout):
                assert partner[a] == b and partner[b] == a
        assert f"for d = {d}" in readout(page, "layouts")

    def test_readout_names_the_rule_in_use(self, page):
        page.set_state(layout="half-split", d=64)
        assert "(i, i + 32)" in readout(page, "layouts")
        assert "(0, 32), (1, 33)" in readout(page, "layouts")
        assert (
            page.drawings["layouts"].frame().x_label
            == f"dimension of q and k (first {DIAGRAM_DIM} of d = 64)"
        )


# ------------------------------------------------------------------- R3
def test_decay_curve_is_the_core_bound(page):
    page.set_state(d=128, base=10_000, max_distance=100)
    np.testing.assert_allclose(
        drawn(page, "decay", "bound")["bound"], rope_decay_bound(128, 10_000, np.arange(101))
    )
    assert "32.50" in readout(page, "decay")  # (d/2 + 1) / 2


# ----------------------------------------------------------- quick check
def test_quick_check_uses_positions_105_and_102(page):
    answer = page.quick_check.answer()
    q, k = pair_from_polar(0, 1), pair_from_polar(90, 1)
    far = rope_score_terms(q, k, 105, 102, 0.5).score
    assert f"<b>{_shown(far)}" in answer


def test_r2_asks_the_classic_d4_question_and_the_core_answers_0_010(page):
    """d = 4, θ = (1, 0.01), q = k = (1, 0, 1, 0), offset 3: cos 3 + cos 0.03."""
    answer = page.quick_checks["distance"].answer  # fixed numbers: text, not a reference
    expected = np.cos(3.0) + np.cos(0.03)
    assert abs(expected - 0.00955) < 1e-5
    assert answer.startswith(f"<b>0.010</b> ({expected:.5f})")


# -------------------------------------------------------------- URL state
class TestUrlState:
    def test_round_trip(self, page):
        page.set_state(
            m=105,
            n=102,
            theta=1.25,
            q_angle=-30.0,
            q_len=0.5,
            k_angle=150.0,
            k_len=1.2,
            d=128,
            base=500_000,
            layout="half-split",
            seed=42,
            start=77_000,
            max_distance=1000,
            pair=40,
        )
        query = page_query("rope", page, page.control_names())
        assert query["base"] == "500000" and query["q_angle"] == "-30"
        other = RopePage()
        assert other.apply_query(query) == []
        assert {n: getattr(other, n) for n in other.control_names()} == {
            n: getattr(page, n) for n in page.control_names()
        }

    @pytest.mark.parametrize(
        ("key", "raw", "expected", "word"),
        [
            ("m", "99999", 4096, "outside"),
            ("n", "-3", 0, "outside"),
            ("theta", "1e9", 3.14, "outside"),
            ("q_len", "0", 0.1, "outside"),
            ("k_angle", "720", 180.0, "outside"),
            ("d", "1000", 256, "outside"),
            ("base", "12345", 10_000, "nearest"),
            ("base", "1e12", 10_000_000, "nearest"),
            ("seed", "-5", 0, "outside"),
            ("start", "1e300", 1_000_000, "outside"),
            ("max_distance", "5", 16, "outside"),
        ],
    )
    def test_out_of_range_values_are_clamped_with_a_note(self, page, key, raw, expected, word):
        notes = page.apply_query({key: raw})
        assert getattr(page, key) == expected
        assert any(word in note for note in notes), notes

    @pytest.mark.parametrize(
        ("key", "raw"),
        [("m", "nan"), ("q_angle", "inf"), ("layout", "<script>"), ("d", ""), ("seed", "x" * 2000)],
    )
    def test_unusable_values_are_ignored_with_a_note(self, page, key, raw):
        before = {n: getattr(page, n) for n in page.control_names()}
        notes = page.apply_query({key: raw})
        assert {n: getattr(page, n) for n in page.control_names()} == before
        assert notes and key in notes[0]

    def test_odd_d_and_pair_past_d(self, page):
        notes = page.apply_query({"d": "33", "pair": "100"})
        assert page.d == 32 and page.pair == 15
        assert any("odd" in n for n in notes)

    @in_loop
    def test_link_moves_the_tips(self, page):
        _root, doc = rendered(page)
        with set_curdoc(doc):
            page.apply_query({"q_angle": "90", "q_len": "0.5"})
        assert _source(page, "pair", "tips").data["c2"][0] == pytest.approx(0.5)


def test_base_choices_cover_the_real_models():
    assert BASES[0] == 100 and BASES[-1] == 10_000_000
    for real in (10_000, 500_000, 1_000_000):
        assert real in BASES
    assert list(BASES) == sorted(BASES)


# ---------------------------------------------------------- figure numbers
#: The pages whose figure numbers this checks. Every page's should be unique and in
#: reading order; the other pages are being renumbered: add them here when they are
#: (and move this test to test_pages.py).
NUMBERED_PAGES = ("rope", "sinusoidal")
_NUMBER = re.compile(r"([A-Z]+)(\d+)([a-z]?)")


@pytest.mark.parametrize("slug", NUMBERED_PAGES)
def test_figure_numbers_are_unique_and_in_reading_order(slug):
    # A page's figures, in the order its cards are laid out (left to right, then down).
    titles = [figure.title for figure in PAGES[slug]().figures.values()]
    numbers = [_NUMBER.fullmatch(title.split(" · ")[0]) for title in titles]
    assert all(numbers), titles
    assert len({n[1] for n in numbers}) == 1, titles  # one letter per page
    keys = [(int(n[2]), n[3]) for n in numbers]
    assert keys == sorted(set(keys)), titles  # unique and increasing
    assert sorted({k[0] for k in keys}) == list(range(1, keys[-1][0] + 1)), titles  # no gap


def test_rope_figures_are_r1_to_r8_in_reading_order(page):
    numbers = {name: figure.title.split(" · ")[0] for name, figure in page.figures.items()}
    assert numbers == {
        "pair": "R1",
        "distance": "R2",
        "decay": "R3",
        "angles": "R4",
        "wavelengths": "R5",
        "layouts": "R6",
        "mismatch": "R7",
        "mistakes": "R8",
    }
    assert list(numbers.values()) == [f"R{i}" for i in range(1, 9)]


def _figures_named(text: str) -> set[int]:
    """The RoPE figure numbers a text names: "R2 and R7", "R2–R5, R7"."""
    out: set[int] = set()
    for first, last in re.findall(r"R(\d)(?:–R(\d))?", text):
        out |= set(range(int(first), int(last or first) + 1))
    return out


def _controls_of(chart) -> set[str]:
    """The controls a figure follows: what it draws, its readout, its choices."""
    choices = {control for mark in chart.marks.values() for control in mark.choice}
    return {*chart.depends, *chart.readout_depends, *choices}


def test_every_control_names_the_figures_it_moves(page):
    # A control's label or help names figures by number: exactly those it changes.
    number = {name: int(figure.title[1]) for name, figure in page.figures.items()}
    for control in page.control_names():
        moved = {
            number[name]
            for name, chart in RopePage.charts.items()
            if control in _controls_of(chart)
        }
        parameter = page.param[control]
        assert _figures_named(f"{parameter.label} {parameter.doc}") == moved, control


# ------------------------------------------------------------------ fonts
@pytest.mark.parametrize("d", [8, 64])
def test_every_text_drawn_in_the_figures_is_at_least_12px(page, d):
    # R6 printed each dimension's number at 7 pt (9 px).
    page.d = d
    root, _doc = rendered(page)
    sizes = fixed_font_sizes(root)
    assert len(sizes) >= 4 and min(sizes) >= 12


def test_r8s_question_is_answered_by_the_core():
    from app.pages.rope.mistakes import LLAMA2, LONGER, Mistakes
    from positional_core.mistakes import width_mistake

    right, wrong = width_mistake(**LLAMA2, target_len=LONGER).wavelengths
    answer = Mistakes().answer(RopePage())
    assert f"About <b>{wrong[-1]:,.1f}</b> instead of {right[-1]:,.0f}" in answer
