"""The chart layer on a small page of its own: every kind of mark and each feature.

A toy page declares one chart per feature the app's pages use (colour scales
with a bar, categorical bars, paths, images looked up in the browser, zoom
detail, dragged points). Each is checked the way tests/app/test_charts.py
checks the real pages: changed in place it draws what a fresh plot draws, and
HoloViews itself names its sources' columns as the chart layer does.
"""

from __future__ import annotations

from typing import Any, ClassVar

import holoviews as hv
import numpy as np
import param
import pytest
from bokeh.models import ColorBar, FactorRange
from panel.io.state import set_curdoc

from app.chart import KEY, Chart, Choices, Frame, Mark, Scale, padded
from app.marks import circle, envelope, image_columns, thinned
from app.page import Page
from app.respond import one_update
from app.selection import ship

from .drawn import assert_same_figures, random_values, record_events, rendered

PALETTE = ("#D55E00", "#0072B2")


class Hands(Chart):
    title = "Hands"
    depends = ("n",)
    marks: ClassVar = {
        "face": Mark(hv.Path, style={"color": "grey"}),
        "hands": Mark(
            hv.Segments,
            ("x0", "y0", "x1", "y1"),
            ("pair",),
            fields={"color": Scale("pair", PALETTE, colorbar="pair")},
        ),
    }

    def frame(self, p: Any) -> Frame:
        angle = np.arange(p.n) * 0.3
        return Frame(
            face=circle(),
            hands={
                "x0": np.zeros(p.n),
                "y0": np.zeros(p.n),
                "x1": np.cos(angle),
                "y1": np.sin(angle),
                "pair": np.arange(p.n, dtype=float),
            },
            scales={"hands": {"low": 0, "high": max(p.n - 1, 1)}},
            x=(-1.2, 1.2),
            y=(-1.2, 1.2),
        )


class Counts(Chart):
    title = "Counts"
    depends = ("n", "word")
    marks: ClassVar = {
        "bars": Mark(hv.Bars, ("name",), ("count",), fields={"fill_color": "tint"}),
    }

    def frame(self, p: Any) -> Frame:
        names = [f"{p.word}{i}" for i in range(p.n)]
        return Frame(
            bars={
                "name": names,
                "count": np.arange(1, p.n + 1.0),
                "tint": [PALETTE[i % 2] for i in range(p.n)],
            },
            x=names,
            y=(0, p.n + 1.0),
            x_label=f"{p.word} names",
        )


class Named(Chart):
    """Ticks of a numeric axis named by the state (a sentence's words, one per row)."""

    title = "Named"
    depends = ("n", "word")
    marks: ClassVar = {"dots": Mark(hv.Points, ("px", "py"))}

    def frame(self, p: Any) -> Frame:
        return Frame(
            dots={"px": np.zeros(p.n), "py": np.arange(p.n, dtype=float)},
            x=(-1.0, 1.0),
            y=(-0.5, p.n - 0.5),
            y_ticks=[(float(i), f"{p.word}{i}") for i in range(p.n)],
        )


class Table(Chart):
    """An image whose rows the browser looks up (gather), and detail on zoom."""

    title = "Table"
    depends = ("n",)
    marks: ClassVar = {
        "image": Mark(
            hv.Image, ("column", "row"), ("value",), choice="pick", style={"cmap": "RdBu_r"}
        ),
    }

    def frame(self, p: Any) -> Frame:
        index = np.add.outer(np.arange(p.n), np.arange(4)) % 4

        def rows(keys: np.ndarray) -> dict[str, Any]:
            count = len(keys)
            images = np.empty(count, dtype=object)
            images[:] = [index] * count
            tables = np.empty(count, dtype=object)
            tables[:] = [np.linspace(-1, 1, 4) * (k + 1) for k in keys]
            return {
                **{k: np.full(count, v) for k, v in (("x", -0.5), ("y", -0.5), ("dw", 4.0))},
                "dh": np.full(count, float(p.n)),
                "index": images,
                "__table": tables,
                KEY: np.asarray(keys),
            }

        return Frame(
            image=Choices(np.arange(3), rows, gather={"image": ("index", "__table")}),
            x=(-0.5, 3.5),
            y=(-0.5, p.n - 0.5),
            scales={"image": {"low": -3, "high": 3}},
        )

    def zoomed(self, p: Any, x: tuple, y: tuple) -> Frame | None:
        top = min(p.n, max(1, round(y[1] + 0.5)))
        return Frame(image=image_columns(np.ones((top, 4)) * p.pick, -0.5, -0.5, 4.0, top))


class Tips(Chart):
    title = "Tips"
    depends = ("angle",)
    marks: ClassVar = {
        "tips": Mark(hv.Points, ("px", "py"), ("who",), drag=True, style={"size": 12}),
        "names": Mark(hv.Labels, ("px", "py"), ("who",)),
    }

    def frame(self, p: Any) -> Frame:
        a = np.radians([p.angle, p.angle + 90])
        columns = {"px": np.cos(a), "py": np.sin(a), "who": ["q", "k"]}
        return Frame(tips=columns, names=columns, x=padded(-1, 1), y=padded(-1, 1))

    def dragged(self, p: Any, mark: str, data: dict) -> dict[str, Any]:
        angle = float(np.degrees(np.arctan2(data["py"][0], data["px"][0])))
        return {"angle": round(angle) % 360}


class Gaps(Chart):
    """A line broken by NaN (ALiBi's A4 draws one line per head so) that ``word``
    scales and ``n`` leaves alone."""

    title = "Gaps"
    depends = ("n", "word")
    marks: ClassVar = {
        "line": Mark(hv.Curve, ("gx",), ("gy",)),
        "end": Mark(hv.Scatter, ("gx",), ("gy",)),
    }

    def frame(self, p: Any) -> Frame:
        scale = 1.0 if p.word == "a" else 2.0
        return Frame(
            line={"gx": np.arange(5.0), "gy": np.array([0, 1, np.nan, 3, 4]) * scale},
            end={"gx": [float(p.n)], "gy": [float(p.n)]},
            x=(-1, 13),
            y=(-1, 13),
        )


class Toy(Page):
    slug: ClassVar[str] = "toy"
    title: ClassVar[str] = "Toy"
    charts: ClassVar = {
        "hands": Hands,
        "counts": Counts,
        "named": Named,
        "table": Table,
        "tips": Tips,
        "gaps": Gaps,
    }

    n = param.Integer(default=5, bounds=(1, 12))
    word = param.Selector(default="a", objects=["a", "b"])
    pick = param.Integer(default=0, bounds=(0, 2))
    angle = param.Integer(default=30, bounds=(0, 359))


def _plot(page, chart):
    (plot,) = page.drawings[chart].plots()
    return plot


def _source(page, chart, mark):
    subs = sorted(_plot(page, chart).subplots.values(), key=lambda s: s.zorder)
    return subs[list(page.drawings[chart].chart.marks).index(mark)].handles["source"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_changed_in_place_draws_what_a_fresh_plot_draws(seed):
    rng = np.random.default_rng(seed)
    page = Toy()
    root, doc = rendered(page)
    for step in range(8):
        values = random_values(page, rng, how_many=2, ends=step % 2 == 0)
        with set_curdoc(doc), one_update():
            page.set_state(**values)
        fresh = Toy(**page._values())
        assert_same_figures(root, rendered(fresh)[0], f"step {step} {values}")


def test_a_colour_scale_has_its_bar_and_follows_the_frame():
    page = Toy()
    _root, doc = rendered(page)
    figure = _plot(page, "hands").state
    (bar,) = [r for r in figure.right if isinstance(r, ColorBar)]
    assert bar.title == "pair" and list(bar.color_mapper.palette) == list(PALETTE)
    glyph = _plot(page, "hands").subplots
    with set_curdoc(doc):
        page.n = 9
    assert bar.color_mapper.high == 8
    del glyph


def test_categorical_bars_move_their_factors_and_label():
    page = Toy()
    _root, doc = rendered(page)
    figure = _plot(page, "counts").state
    assert isinstance(figure.x_range, FactorRange)
    with set_curdoc(doc):
        page.param.update(word="b", n=3)
    assert list(figure.x_range.factors) == ["b0", "b1", "b2"]
    assert [a.axis_label for a in figure.xaxis] == ["b names"]
    assert list(_source(page, "counts", "bars").data["tint"]) == ["#D55E00", "#0072B2"] * 1 + [
        "#D55E00"
    ]


def test_named_ticks_follow_the_state():
    page = Toy()
    _root, doc = rendered(page)
    (axis,) = _plot(page, "named").state.yaxis
    assert list(axis.ticker.ticks) == [0, 1, 2, 3, 4]
    assert axis.major_label_overrides == {i: f"a{i}" for i in range(5)}
    with set_curdoc(doc):
        page.param.update(word="b", n=3)
    assert list(axis.ticker.ticks) == [0, 1, 2]
    assert axis.major_label_overrides == {0: "b0", 1: "b1", 2: "b2"}


def test_gathered_images_ship_one_table_per_key():
    page = Toy()
    _root, doc = rendered(page)
    source = _source(page, "table", "image")
    candidates = source.tags[0].data
    assert "image" not in candidates and "index" not in candidates  # never an image per key
    assert len(candidates["__table"]) == 3
    with set_curdoc(doc):
        page.pick = 2
    expected = (np.linspace(-1, 1, 4) * 3)[np.add.outer(np.arange(5), np.arange(4)) % 4]
    np.testing.assert_allclose(source.data["image"][0], expected)


def test_ship_without_candidates_clears_the_tags():
    page = Toy()
    rendered(page)
    source = _source(page, "table", "image")
    ship(source, None, [], [])
    assert source.tags == []


def test_zoom_redraws_the_view_and_a_change_redraws_the_whole():
    from bokeh.events import RangesUpdate

    page = Toy(n=10)
    _root, doc = rendered(page)
    plot = _plot(page, "table")
    source = _source(page, "table", "image")
    with set_curdoc(doc):
        plot.state._trigger_event(RangesUpdate(plot.state, x0=0, x1=3, y0=-0.5, y1=3.4))
    assert np.shape(source.data["image"][0]) == (4, 4)
    with set_curdoc(doc):
        page.n = 11
    assert np.shape(source.data["image"][0]) == (11, 4)


def test_dragged_points_set_the_page_and_are_not_sent_back_while_dragging():
    page = Toy()
    _root, doc = rendered(page)
    drawing = page.drawings["tips"]
    tips = _source(page, "tips", "tips")
    with set_curdoc(doc):
        # What the point-draw tool sends: the tip under the mouse has moved.
        moved = {"px": [0.0, -1.0], "py": [1.0, 0.0], "who": ["q", "k"]}
        drawing._dragged("tips", moved)
    assert page.angle == 90
    names = _source(page, "tips", "names")
    np.testing.assert_allclose(names.data["py"], [1.0, 0.0], atol=1e-12)
    assert tips.data["px"][0] == pytest.approx(np.cos(np.radians(30)))  # not sent back


def test_a_drag_within_one_step_sends_nothing_back():
    # Bokeh's point-draw tool moves a point by the mouse's steps: points sent back
    # while they are dragged would jump under the mouse, and a slow drag (each
    # step rounding to the same value) would not move them at all.
    page = Toy()
    _root, doc = rendered(page)
    tips = _source(page, "tips", "tips")
    events = []
    record_events(doc, events)
    a = np.radians([30.3, 120.3])
    with set_curdoc(doc):
        page.drawings["tips"]._dragged(
            "tips", {"px": np.cos(a), "py": np.sin(a), "who": ["q", "k"]}
        )
    assert page.angle == 30
    assert not [e for e in events if getattr(e, "model", None) is tips]


def test_a_column_with_nan_is_sent_only_when_it_changes():
    page = Toy()
    _root, doc = rendered(page)
    line = _source(page, "gaps", "line")
    events = []
    record_events(doc, events)

    def sent(**values):
        events.clear()
        with set_curdoc(doc), one_update():
            page.set_state(**values)
        return [c for e in events if getattr(e, "model", None) is line for c in e.cols]

    assert sent(n=7) == []  # NaN equals NaN: nothing of the line changed
    assert sent(word="b") == ["gy"]
    np.testing.assert_array_equal(line.data["gy"], [0, 2, np.nan, 6, 8])


def test_a_chart_must_state_what_holoviews_would_derive_from_its_first_frame():
    class Unstated(Table):
        def frame(self, p: Any) -> Frame:
            frame = super().frame(p)
            frame.scales = {}
            return frame

    class Page2(Toy):
        charts: ClassVar = {"table": Unstated}

    with pytest.raises(ValueError, match="state its colour scale"):
        rendered(Page2())


def test_a_thinned_curve_keeps_each_bins_first_lowest_highest_and_last_point():
    # A fast oscillation aliases at any fixed stride; its envelope must survive.
    x = np.arange(4097)
    y = np.cos(2.9 * x) * (1 + x / 4096)
    rows = envelope(x, y, bins=250)
    assert len(rows) <= 4 * 250 and np.all(np.diff(rows) > 0)
    where = np.minimum(x * 250 // 4096, 249)
    for b in range(250):
        inside = np.flatnonzero(where == b)
        kept = np.intersect1d(rows, inside)
        assert {inside[0], inside[-1]} <= set(kept)
        assert y[kept].min() == y[inside].min() and y[kept].max() == y[inside].max()
    short = np.arange(999)
    assert np.array_equal(envelope(short, np.sin(short), bins=250), short)  # ≤ 4 a bin


def test_a_thin_mark_is_drawn_thinned_in_the_first_draw_and_every_change():
    mark = Mark(hv.Curve, ("x",), ("y", "tag"), thin=True)
    columns = {"x": np.arange(5000), "y": np.sin(np.arange(5000)), "tag": np.arange(5000) % 7}
    out = thinned(mark, columns)
    rows = envelope(columns["x"], columns["y"])
    for name in columns:  # every column cut to the same rows
        np.testing.assert_array_equal(out[name], columns[name][rows])
    assert thinned(Mark(hv.Curve, ("x",), ("y", "tag")), columns) is columns
