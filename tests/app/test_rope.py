"""RoPE page: set parameters, assert on plot data against the core's numbers."""

from __future__ import annotations

import asyncio

import holoviews as hv
import numpy as np
import pytest
from bokeh.document import Document
from bokeh.models import ColumnDataSource

from app.rope import BASES, FIXED_STARTS, LOG_ROWS, RopePage
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


@pytest.fixture
def page():
    return RopePage()


def _score(page: RopePage) -> float:
    q = pair_from_polar(page.q_angle, page.q_len)
    k = pair_from_polar(page.k_angle, page.k_len)
    return rope_score(q, k, page.m, page.n, inv_freq=[page.theta])


def _drag(page: RopePage, q, k) -> None:
    """What the browser's point-draw tool sends: both tips' coordinates."""
    drag, _release = page._streams
    drag.event(data={"c1": [q[0], k[0]], "c2": [q[1], k[1]], "vector": ["q", "k"]})


def _curves(overlay: hv.Overlay) -> list[np.ndarray]:
    return [np.asarray(c.dimension_values(1)) for c in overlay.traverse(lambda e: e, [hv.Curve])]


# ------------------------------------------------------------------- R1
class TestOnePair:
    def test_defaults_are_the_reference_example(self, page):
        # REFERENCE_NUMBERS: θ = 0.5, q = (1, 0), k = (0, 1): score(m=2, n=1) = 0.479.
        assert (page.m, page.n, page.theta) == (2, 1, 0.5)
        assert "= 0.479</b>" in page._score_html()
        assert r"\mathbf{0.479}" in page._identity()

    @pytest.mark.parametrize(
        "values",
        [
            {"m": 3, "n": 7, "theta": 1.0, "q_angle": 0.0, "k_angle": 0.0},
            {"m": 40, "n": 11, "theta": 0.3, "q_angle": 35.0, "q_len": 0.4, "k_angle": -120.0},
            {"m": 0, "n": 4096, "theta": 3.14, "k_len": 1.5},
        ],
    )
    def test_readouts_equal_the_core_score(self, page, values):
        page.param.update(values)
        expected = _score(page)
        terms = rope_score_terms(
            pair_from_polar(page.q_angle, page.q_len),
            pair_from_polar(page.k_angle, page.k_len),
            page.m,
            page.n,
            page.theta,
        )
        assert terms.score == pytest.approx(expected, abs=1e-12)
        shown = f"{expected:.3f}".replace("-", "−")
        if shown == "−0.000":
            shown = "0.000"
        assert f"= {shown}</b>" in page._score_html()
        identity = page._identity()
        for part in (terms.dot, terms.cross, terms.cos, terms.sin, terms.score):
            assert f"{part:.3f}".replace("-0.000", "0.000") in identity

    def test_plot_columns_are_the_core_rotations(self, page):
        page.param.update(m=5, n=9, theta=0.7, q_angle=30.0, k_angle=-45.0, k_len=0.8)
        cols = page._arrow_columns()
        q, k = pair_from_polar(30, 1.0), pair_from_polar(-45, 0.8)
        rq = apply_rope(q, 5, inv_freq=[0.7])
        rk = apply_rope(k, 9, inv_freq=[0.7])
        assert cols["rotated_q"]["c1_end"] == pytest.approx([rq[0]])
        assert cols["rotated_k"]["c2_end"] == pytest.approx([rk[1]])
        assert cols["content_q"]["c1_end"] == pytest.approx([q[0]])
        assert cols["head_q"]["turned"] == pytest.approx(rotation_angles([5], [0.7])[0])
        assert cols["names"]["text"] == ["q", "k", "R₅q", "R₉k"]
        # rotation keeps the length
        assert np.hypot(*rk) == pytest.approx(0.8)

    def test_shift_keeps_the_score_and_logs_before_and_after(self, page):
        before = _score(page)
        page.shift_both()
        assert (page.m, page.n) == (3, 2)
        assert _score(page) == pytest.approx(before, abs=1e-12)
        assert [row[0] for row in page.log] == ["shift both +1", "before"]
        assert page.log[0][4] == pytest.approx(page.log[1][4], abs=1e-12)
        for _ in range(9):
            page.shift_both()
        # REFERENCE_NUMBERS: score(12, 11) = 0.479
        assert (page.m, page.n) == (12, 11)
        assert f"{page.log[0][4]:.3f}" == "0.479"
        assert len(page.log) == 11  # one "before", ten shifts

    def test_swap_flips_the_sign_of_the_sine_term(self, page):
        page.param.update(q_angle=20.0, k_angle=80.0, m=9, n=4)
        q, k = pair_from_polar(20, 1), pair_from_polar(80, 1)
        before = rope_score_terms(q, k, page.m, page.n, page.theta)
        page.swap()
        assert (page.m, page.n) == (4, 9)
        after = rope_score_terms(q, k, page.m, page.n, page.theta)
        assert after.sin == pytest.approx(-before.sin)
        assert after.cos == pytest.approx(before.cos)
        assert after.score == pytest.approx(before.dot * before.cos - before.cross * before.sin)
        assert after.score != pytest.approx(before.score)
        assert page.log[0][0] == "swap m and n"
        assert page.log[0][4] == pytest.approx(after.score)
        # the state was already logged: a second swap adds one row only
        page.swap()
        assert len(page.log) == 3

    def test_log_is_capped_and_clearable(self, page):
        for _ in range(LOG_ROWS + 10):
            page.swap()
        assert len(page.log) == LOG_ROWS
        assert "<table" in page._log_html()
        page.clear_log()
        assert page.log == [] and "log is empty" in page._log_html()

    def test_shift_at_the_last_position_explains_and_changes_nothing(self, page):
        top = page.param.m.bounds[1]
        page.param.update(m=top, n=top - 3)
        page.shift_both()
        assert (page.m, page.n) == (top, top - 3)
        assert page.r1_notes and f"{top:,}" in page.r1_notes[0]
        assert page.log == []
        page.swap()
        assert page.r1_notes == []

    def test_log_text_is_numbers_only(self, page):
        page.swap()
        html = page._log_html()
        assert "<script" not in html and "onerror" not in html


class TestDragging:
    def test_drag_sets_angle_and_length_in_one_update(self, page):
        updates = []
        page.param.watch(lambda *events: updates.append(len(events)), ["q_angle", "q_len"])
        _drag(page, pair_from_polar(30.4, 0.777), pair_from_polar(90, 1))
        assert (page.q_angle, page.q_len) == (30.0, 0.78)
        assert (page.k_angle, page.k_len) == (90.0, 1.0)
        assert updates == [2]  # both together, one batch

    def test_drag_past_the_limit_is_clamped(self, page):
        _drag(page, (0.0, -3.0), (-2.0, 0.0))
        assert (page.q_angle, page.q_len) == (-90.0, 1.5)
        assert (page.k_angle, page.k_len) == (180.0, 1.5)
        _drag(page, (0.001, 0.0), (0.0, 0.02))
        assert page.q_len == page.k_len == 0.1

    @pytest.mark.parametrize(
        "data",
        [
            {"c1": [1.0], "c2": [0.0]},  # a tip deleted with Backspace
            {"c1": [np.nan, 0.0], "c2": [0.0, 1.0]},
            {"c1": ["x", 0.0], "c2": [0.0, 1.0]},
            {"c2": [0.0, 1.0]},
        ],
    )
    def test_bad_tip_data_keeps_the_contents(self, page, data):
        before = (page.q_angle, page.q_len, page.k_angle, page.k_len)
        page._streams[0].event(data=data)
        assert (page.q_angle, page.q_len, page.k_angle, page.k_len) == before

    def test_drag_updates_the_readout(self, page):
        _drag(page, pair_from_polar(-90, 1.2), pair_from_polar(90, 1))
        assert page.q_angle == -90.0
        assert f"{_score(page):.3f}".replace("-", "−") in page._score_html()

    def test_sessions_do_not_share_contents(self):
        one, two = RopePage(), RopePage()
        _drag(one, (0.0, 1.0), (1.0, 0.0))
        assert one.q_angle == 90.0
        assert two.q_angle == 0.0


class TestDrawnData:
    """R1 rendered into a document: its sources are replaced in place."""

    @staticmethod
    def _render(page):
        async def go():
            doc = Document()
            root = page.figure_view("pair").get_root(doc)
            await asyncio.sleep(0)
            return doc, root

        return asyncio.run(go())

    def test_a_plot_built_after_changes_draws_the_state_now(self, page):
        # A link sets the page's state after the page (and R1's elements) are
        # made, before R1 is shown; and a page shown again is built anew.
        page.apply_query({"m": "5", "n": "9", "q_angle": "30", "k_angle": "-45"})

        async def go():
            for shown, labels in enumerate((["R₅q", "R₉k"], ["R₁₁q", "R₉k"])):
                page.figure_view("pair").get_root(Document())
                q, k = pair_from_polar(page.q_angle, 1.0), pair_from_polar(page.k_angle, 1.0)
                rq = apply_rope(q, page.m, inv_freq=[page.theta])
                rk = apply_rope(k, page.n, inv_freq=[page.theta])
                (head,) = page._r1.sources("head_q")[shown:]
                (rotated,) = page._r1.sources("rotated_k")[shown:]
                (tips,) = page._r1.sources("tips")[shown:]
                (names,) = page._r1.sources("names")[shown:]
                assert head.data["c1"] == pytest.approx([rq[0]])
                assert head.data["position"] == [page.m]
                assert rotated.data["c2_end"] == pytest.approx([rk[1]])
                assert tips.data["c1"] == pytest.approx([q[0], k[0]])
                assert names.data["text"][2:] == labels
                page.param.update(m=11, q_angle=120.0)  # then shown again
                await asyncio.sleep(0)

        asyncio.run(go())

    def test_a_link_opens_r1_at_its_state(self):
        # The whole app, as a server session builds it from a shared link.
        from panel.io.state import set_curdoc

        from app.main import build_app

        doc = Document()
        with set_curdoc(doc):
            app = build_app({"page": "rope", "m": "5", "n": "9", "q_angle": "30", "k_angle": "-45"})
            app.server_doc(doc)
        page = app.shell.current
        (head,) = page._r1.sources("head_k")
        (tips,) = page._r1.sources("tips")
        rk = apply_rope(pair_from_polar(-45, 1.0), 9, inv_freq=[page.theta])
        assert head.data["c1"] == pytest.approx([rk[0]]) and head.data["position"] == [9]
        assert tips.data["direction"] == [30.0, -45.0]
        assert head.document is doc

    def test_sources_follow_the_parameters_and_the_figure_is_static(self, page):
        assert not isinstance(page.figures["pair"].plot, hv.DynamicMap)

        async def go():
            page.figure_view("pair").get_root(Document())
            (head,) = page._r1.sources("head_q")
            (tips,) = page._r1.sources("tips")
            page.param.update(m=6, theta=0.25)
            rq = apply_rope(pair_from_polar(0, 1), 6, inv_freq=[0.25])
            assert head.data["c1"] == pytest.approx([rq[0]])
            assert head.data["c2"] == pytest.approx([rq[1]])
            # a slider moves the tips...
            page.q_angle = 45.0
            assert tips.data["c1"][0] == pytest.approx(pair_from_polar(45, 1)[0])
            # ...a drag does not (the tip under the mouse is the browser's)...
            _drag(page, pair_from_polar(60, 1), pair_from_polar(90, 1))
            assert page.q_angle == 60.0
            assert tips.data["c1"][0] == pytest.approx(pair_from_polar(45, 1)[0])
            (rotated,) = page._r1.sources("content_q")
            assert rotated.data["c1_end"] == pytest.approx([pair_from_polar(60, 1)[0]])
            # ...until it ends: the tips snap to the parameters.
            page._on_drag_end()
            assert tips.data["c1"][0] == pytest.approx(pair_from_polar(60, 1)[0])
            await asyncio.sleep(0)

        asyncio.run(go())

    def test_a_change_sends_only_the_sources_it_changes(self, page):
        # m turns the query only: the key, both contents and the tips keep
        # their data and are not sent again; the tips are sent whenever a
        # control moves them (the browser may have moved its copy).
        async def go():
            document = Document()
            document.add_root(page.figure_view("pair").get_root(document))
            sent = []
            document.on_change(lambda event: sent.append(getattr(event, "model", None)))
            roles = {
                id(source): role for role in page._r1._sources for source in page._r1.sources(role)
            }
            page.m = page.m + 1
            by_m = {roles[id(model)] for model in sent if id(model) in roles}
            sent.clear()
            page.k_angle = page.k_angle + 10.0
            by_k = {roles[id(model)] for model in sent if id(model) in roles}
            await asyncio.sleep(0)
            return by_m, by_k

        by_m, by_k = asyncio.run(go())
        assert by_m == {"rotated_q", "head_q", "arc", "names", "tips"}
        assert {"content_k", "rotated_k", "head_k", "arc", "names", "tips"} <= by_k
        assert not by_k & {"content_q", "rotated_q", "head_q"}

    def test_a_drag_only_replaces_source_data(self, page):
        # The cheap path: a drag step patches the data of R1's sources in place,
        # and never rebuilds a plot (no new model, no other property). Its time
        # is measured in a browser by benchmarks/latency.py, not here.
        async def go():
            document = Document()
            document.add_root(page.figure_view("pair").get_root(document))
            events = []
            document.on_change(events.append)
            for angle in range(1, 11):
                _drag(page, pair_from_polar(angle, 1), pair_from_polar(90, 1))
            await asyncio.sleep(0)
            return events

        events = asyncio.run(go())
        assert events
        kinds = set()
        for event in events:
            attr = getattr(event, "attr", "data")
            kinds.add(attr)
            # Source data, the readouts' text and the angle sliders following
            # the tips; never a rebuilt plot.
            assert attr in {"data", "text", "value"}, (event, attr)
            if attr == "data":
                assert isinstance(event.model, ColumnDataSource), event
        assert "data" in kinds


# ---------------------------------------------------------------- R2 / R4
class TestScoreCurves:
    def test_curves_for_every_start_are_equal(self, page):
        page.param.update(d=32, start=12_345, max_distance=300, seed=4)
        curves = _curves(page._distance_plot())
        assert len(curves) == 4
        q, k = random_query_key(32, 4)
        expected = rope_scores_by_offset(q, k, np.arange(301), 0)
        for curve in curves:
            np.testing.assert_allclose(curve, expected, atol=1e-9)
        assert "e-1" in page._distance_readout()  # a rounding-level gap

    @pytest.mark.parametrize("layout", ["interleaved", "half-split"])
    def test_mismatch_curves_come_apart(self, page, layout):
        page.param.update(layout=layout, d=64)
        *mixed, correct = _curves(page._mismatch_plot())
        assert len(mixed) == 4
        assert np.max(np.abs(mixed[1] - mixed[0])) > 0.1
        assert np.max(np.abs(mixed[3] - mixed[2])) > 0.1
        # at m = 0 the query is not turned: the bug is invisible there
        np.testing.assert_allclose(mixed[0], correct, atol=1e-9)
        np.testing.assert_allclose(correct, _curves(page._distance_plot())[0])
        assert f"query rotated {'half-split' if layout == 'interleaved' else 'interleaved'}" in (
            page._mismatch_readout()
        )

    def test_new_qk_changes_the_seed_and_the_curves(self, page):
        first = _curves(page._distance_plot())[0]
        page.new_qk()
        assert page.seed == 1
        assert not np.allclose(first, _curves(page._distance_plot())[0])
        page.seed = page.param.seed.bounds[1]
        page.new_qk()
        assert page.seed == 0

    def test_starts_are_the_fixed_ones_and_yours(self, page):
        page.start = 777
        assert page._starts() == [*FIXED_STARTS, 777]
        overlay = page._distance_plot()
        starts = [
            int(c.dimension_values("start")[0]) for c in overlay.traverse(lambda e: e, [hv.Curve])
        ]
        assert starts == [0, 100, 1000, 777]


# ------------------------------------------------------------------- R3
class TestAngles:
    def test_angles_are_wrapped_core_angles(self, page):
        page.param.update(d=16, base=100, max_distance=50, pair=5)
        samples, chosen = page._angles_plot(), page._angles_highlight()
        theta = rope_frequencies(16, 100)
        expected = np.mod(rotation_angles(np.arange(51), theta[[5]])[:, 0], 2 * np.pi)
        np.testing.assert_allclose(chosen.dimension_values("angle"), expected)
        pairs = np.unique(samples.dimension_values("pair"))
        assert list(pairs) == [0, 2, 5, 7]
        assert samples.dimension_values("angle").max() < 2 * np.pi

    def test_wavelengths_and_never_completing_pairs(self, page):
        page.param.update(d=128, base=10_000, max_distance=2048)
        dots = page._wavelength_plot().traverse(lambda e: e, [hv.Scatter])[0]
        np.testing.assert_allclose(
            dots.dimension_values("wavelength"), wavelengths(rope_frequencies(128))
        )
        slow = int(never_complete_turn(rope_frequencies(128), 2049).sum())
        assert f"<b>{slow} of 64</b>" in page._wavelength_readout()

    def test_moving_the_pair_resends_only_the_highlight(self, page):
        plot = hv.renderer("bokeh").get_plot(page.figures["angles"].plot)
        doc = Document()
        doc.add_root(plot.state)
        sources = {
            int(r.data_source.data["pair"][0])
            if len(set(r.data_source.data["pair"])) == 1
            else "samples": r.data_source
            for r in plot.state.renderers
            if hasattr(r, "data_source") and "pair" in r.data_source.data
        }
        assert set(sources) == {"samples", 8}
        events = []
        doc.on_change(events.append)
        page.pair = 3
        changed = {getattr(e, "model", None) for e in events}
        assert sources["samples"] not in changed
        assert list(set(sources[8].data["pair"])) == [3]
        assert page._wavelength_highlight().dimension_values("pair").tolist() == [3]

    def test_highlighted_pair_follows_d(self, page):
        page.pair = 20
        page.d = 8
        assert page.pair == 3
        assert page.param.pair.bounds == (0, 3)
        page.d = 64
        assert page.param.pair.bounds == (0, 31)


# ------------------------------------------------------------------- R4
class TestLayouts:
    @pytest.mark.parametrize("d", [4, 16, 64])
    def test_diagram_pairs_are_the_core_pairs(self, page, d):
        page.d = d
        overlay = page._pairing_plot()
        (cells,) = overlay.traverse(lambda e: e, [hv.Points])
        shown = min(d, 16)
        for layout in ("interleaved", "half-split"):
            rows = cells.select(layout=layout)
            partner = dict(
                zip(rows.dimension_values("dim"), rows.dimension_values("partner"), strict=True)
            )
            for a, b in pair_indices(shown, layout):
                assert partner[a] == b and partner[b] == a
        assert f"for d = {d}" in page._pairing_readout()

    def test_readout_names_the_rule_in_use(self, page):
        page.param.update(layout="half-split", d=64)
        assert "(i, i + 32)" in page._pairing_readout()
        assert "(0, 32), (1, 33)" in page._pairing_readout()


# ------------------------------------------------------------------- R5
def test_decay_curve_is_the_core_bound(page):
    page.param.update(d=128, base=10_000, max_distance=100)
    curve = page._decay_plot()
    np.testing.assert_allclose(
        curve.dimension_values(1), rope_decay_bound(128, 10_000, np.arange(101))
    )
    assert "32.50" in page._decay_readout()  # (d/2 + 1) / 2


# ----------------------------------------------------------- quick check
def test_quick_check_uses_positions_105_and_102(page):
    answer = page._quick_answer()
    q, k = pair_from_polar(0, 1), pair_from_polar(90, 1)
    far = rope_score_terms(q, k, 105, 102, 0.5).score
    assert f"<b>{far:.3f}".replace("-", "−") in answer


# -------------------------------------------------------------- URL state
class TestUrlState:
    def test_round_trip(self, page):
        page.d = 128  # first: the highlighted pair's bound follows d
        page.param.update(
            m=105,
            n=102,
            theta=1.25,
            q_angle=-30.0,
            q_len=0.5,
            k_angle=150.0,
            k_len=1.2,
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
        assert other._values() == page._values()

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
        before = page._values()
        notes = page.apply_query({key: raw})
        assert page._values() == before
        assert notes and key in notes[0]

    def test_odd_d_and_pair_past_d(self, page):
        notes = page.apply_query({"d": "33", "pair": "100"})
        assert page.d == 32 and page.pair == 15
        assert any("odd" in n for n in notes)

    def test_link_moves_the_tips(self, page):
        async def go():
            page.figure_view("pair").get_root(Document())
            page.apply_query({"q_angle": "90", "q_len": "0.5"})
            (tips,) = page._r1.sources("tips")
            assert tips.data["c2"][0] == pytest.approx(0.5)
            await asyncio.sleep(0)

        asyncio.run(go())


def test_base_choices_cover_the_real_models():
    assert BASES[0] == 100 and BASES[-1] == 10_000_000
    for real in (10_000, 500_000, 1_000_000):
        assert real in BASES
    assert list(BASES) == sorted(BASES)
