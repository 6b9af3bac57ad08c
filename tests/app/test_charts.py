"""Every chart of every page: a plot changed in place draws what a plot built fresh draws.

The chart layer (app/chart.py) derives the first draw and every later change
from one declaration. These tests hold it to that, for every chart and random
states, without knowing any page:

- a page rendered once and then changed draws, figure by figure, exactly what
  a page built at the final state draws (columns, ranges, glyphs, legends);
- the columns the chart layer writes are the ones HoloViews itself builds
  from the chart's elements (HoloViews' naming rules are stated once, in
  app/marks.py, and checked here);
- a change sends only what changed: a control that moves no mark of a figure
  sends nothing to it.
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import panel as pn
import pytest
from bokeh.core.property.vectorization import value as fixed_value
from bokeh.document import Document
from bokeh.document.events import ColumnDataChangedEvent, ColumnsPatchedEvent, ModelChangedEvent
from bokeh.models import Legend
from panel.io.state import set_curdoc

from app.chart import Frame
from app.drawing import FRAMES, Drawing
from app.main import PAGES, build_app
from app.respond import one_update
from app.selection import Choices

from .drawn import (
    assert_columns_equal,
    assert_same_figure,
    assert_same_figures,
    figures,
    on_a_loop,
    random_values,
    record_events,
    rendered,
)

CHARTED = [slug for slug, cls in PAGES.items() if cls.charts]


def test_pages_are_charted():
    assert "alibi" in CHARTED


@pytest.mark.parametrize("slug", CHARTED)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_changed_in_place_draws_what_a_fresh_plot_draws(slug, seed):
    rng = np.random.default_rng(seed)
    page = PAGES[slug]()
    root, doc = rendered(page)
    for step in range(6):
        values = random_values(page, rng, how_many=1 + step % 3, ends=step % 2 == 1)
        with set_curdoc(doc), one_update():
            page.set_state(**values)
        FRAMES.clear()  # the fresh page computes its own frames
        fresh = PAGES[slug]()
        fresh.set_state(**page._values())
        fresh_root, _ = rendered(fresh)
        assert_same_figures(root, fresh_root, f"{slug} step {step} {values}")


@pytest.mark.parametrize("slug", CHARTED)
def test_a_frame_shared_between_sessions_draws_what_each_would_compute(slug):
    """Sessions at the same state of a chart's ``depends`` share its frame (a class
    following its teacher computes a change once): each still draws exactly what
    it would compute alone, whatever its other controls (a choice, a selection),
    and after the session that computed the frame has moved on (a choice's rows
    are drawn when asked for: they must not read that session's page then)."""
    rng = np.random.default_rng(11)
    checked = 0
    for step in range(4):
        a = PAGES[slug]()
        a.set_state(**random_values(a, rng, how_many=3, ends=step % 2 == 1))
        for name, drawing in a.drawings.items():
            chart = drawing.chart
            b = PAGES[slug]()
            b.set_state(**random_values(b, rng, how_many=3))
            same = {n: getattr(a, n) for n in chart.depends}
            controls = set(b.control_names())
            b.set_state(**{n: v for n, v in same.items() if n in controls})
            b.param.update({n: v for n, v in same.items() if n not in controls})
            if any(getattr(a, n) != getattr(b, n) for n in chart.depends):
                continue  # b's rules moved a value: not the same state
            FRAMES.clear()
            drawing._memo = None
            shared = drawing.frame()
            assert b.drawings[name].frame() is shared, f"{slug}.{name}: computed twice"
            a.set_state(**random_values(a, rng, how_many=4, ends=True))
            FRAMES.clear()
            alone = Drawing(type(chart)(), b)
            assert alone.frame() is not shared
            for mark in chart.marks:
                where = f"{slug}.{name}.{mark} step {step}"
                assert_columns_equal(b.drawings[name].drawn(mark), alone.drawn(mark), where)
            checked += 1
    assert checked >= len(PAGES[slug].charts), f"{slug}: {checked} shared frames checked"


def test_shared_frames_keep_within_their_budget():
    frames = type(FRAMES)(budget=1_000)

    def frame(rows: int) -> Frame:
        return Frame(line={"x": np.zeros(rows), "y": np.zeros(rows)})  # 16 bytes a row

    small = frame(10)
    frames.put(Frame, (1,), small)
    for key in (2, 3, 4):
        frames.put(Frame, (key,), frame(15))  # 160 + 3 * 240 = 880 bytes
    assert frames.get(Frame, (1,)) is small  # (2,) is now the least recently used
    frames.put(Frame, (5,), frame(15))  # 1,120 bytes: over budget
    assert frames.get(Frame, (2,)) is None and frames.get(Frame, (1,)) is small
    assert len(frames) == 4
    frames.put(Frame, ([1],), small)  # a state that cannot be a key is not shared
    assert frames.get(Frame, ([1],)) is None
    frames.put(Frame, (6,), frame(16))  # 256 bytes, over a quarter of the budget
    assert frames.get(Frame, (6,)) is None


def _without_hooks(element):
    """The element as HoloViews alone draws it (no chart hook)."""
    return element.opts(hooks=[], clone=True)


@pytest.mark.parametrize("slug", CHARTED)
@pytest.mark.parametrize("seed", [3, 4])
def test_holoviews_names_the_columns_as_the_charts_do(slug, seed):
    """For random states, each source HoloViews builds from a chart's elements holds
    the columns the chart layer writes into it: same names, same values."""
    rng = np.random.default_rng(seed)
    for step in range(3):
        page = PAGES[slug]()
        if step:
            page.set_state(**random_values(page, rng, how_many=3, ends=step == 2))
        for name, drawing in page.drawings.items():
            own = _hv_sources(drawing.element())
            frame = drawing.frame()
            for (mark_name, mark), source in zip(drawing.chart.marks.items(), own, strict=True):
                data = frame.marks[mark_name]
                if isinstance(data, Choices):
                    data = data.chosen(_key(page, mark))
                ours = mark.source_columns(data)
                theirs = dict(source.data)
                where = f"{slug} {name}.{mark_name} step {step}"
                assert set(theirs) <= set(ours), (where, set(theirs) - set(ours))
                assert_columns_equal(theirs, {k: ours[k] for k in theirs}, where)


def _key(page, mark) -> int:
    return sum(getattr(page, c) * s for c, s in zip(mark.choice, mark.strides, strict=True))


def _hv_sources(element) -> list:
    plot = hv.renderer("bokeh").get_plot(_without_hooks(element))
    subs = sorted(plot.subplots.values(), key=lambda sub: sub.zorder)
    return [sub.handles["source"] for sub in subs]


@pytest.mark.parametrize("slug", CHARTED)
def test_a_page_shown_again_draws_the_current_values(slug):
    rng = np.random.default_rng(7)
    other = next(s for s in PAGES if s != slug)
    doc = Document()
    with set_curdoc(doc):
        app = build_app({"page": slug})
        app.server_doc(doc)
        shell = app.shell
        page = shell.current
        for _ in range(3):
            with one_update():
                page.set_state(**random_values(page, rng, how_many=2))
        with one_update():
            shell.page = other
        with one_update():
            shell.page = slug
    shown = [
        plot.state
        for pane in page.content().select(pn.pane.HoloViews)
        for plot, _pane in pane._plots.values()
        if plot.state.document is doc
    ]
    reference = PAGES[slug]()
    reference.set_state(**page._values())
    expected = figures(rendered(reference)[0])
    assert len(shown) == len(expected) > 0
    for i, (a, b) in enumerate(zip(shown, expected, strict=True)):
        assert_same_figure(a, b, f"{slug} shown again, figure {i}")


def _events(doc: Document) -> list:
    found: list = []
    record_events(doc, found)
    return found


def _models_of(plot) -> set[int]:
    return {m.id for m in plot.state.references()}


@pytest.mark.parametrize("slug", CHARTED)
def test_a_control_sends_nothing_to_the_figures_it_does_not_draw(slug):
    page = PAGES[slug]()
    _root, doc = rendered(page)
    events = _events(doc)
    rng = np.random.default_rng(9)
    for name in page.control_names():
        values = random_values(page, rng, how_many=len(page.control_names()))
        if name not in values or values[name] == getattr(page, name):
            continue
        del events[:]

        def change(name=name, value=values[name]):
            with set_curdoc(doc), one_update():
                page.set_state(**{name: value})

        on_a_loop(change)
        for chart_name, drawing in page.drawings.items():
            if name in drawing.chart.controls():
                continue
            touched = _models_of(drawing.plots()[0])
            sent = [
                e
                for e in events
                if isinstance(e, ModelChangedEvent | ColumnDataChangedEvent | ColumnsPatchedEvent)
                and e.model.id in touched
            ]
            assert not sent, (slug, name, chart_name, sent[:3])


def test_a_frame_names_only_declared_marks():
    from app.pages.alibi.slopes import Slopes

    page = PAGES["alibi"]()
    frame = Slopes().frame(page)
    assert set(frame.marks) == set(Slopes.marks)
    assert isinstance(frame, Frame)


def _assert_shows(plot, drawing, where: str) -> None:
    """Every statement of the frame about the figure holds on the plot."""
    frame = drawing.frame()
    figure = plot.state
    subs = dict(
        zip(
            drawing.chart.marks, sorted(plot.subplots.values(), key=lambda s: s.zorder), strict=True
        )
    )
    for axis, ends in (("x", frame.x), ("y", frame.y)):
        bounds = getattr(figure, f"{axis}_range")
        if isinstance(ends, list):
            assert list(bounds.factors) == ends, (where, axis)
        elif ends is not None:
            shown = sorted((bounds.start, bounds.end))
            assert shown == pytest.approx(sorted(ends), rel=1e-9), (where, axis)
    for axis, label in (("x", frame.x_label), ("y", frame.y_label)):
        if label is not None:
            assert [a.axis_label for a in getattr(figure, f"{axis}axis")] == [label], where
    for name, props in frame.props.items():
        glyph = subs[name].handles["glyph_renderer"].glyph
        for prop, value in props.items():
            assert getattr(glyph, prop) == value, (where, name, prop)
    items = [item for legend in figure.select(type=Legend) for item in legend.items]
    for name, label in frame.labels.items():
        renderer = subs[name].handles["glyph_renderer"]
        (item,) = [i for i in items if renderer in i.renderers]
        assert item.visible == bool(label), (where, name)
        if label:
            assert item.label == fixed_value(label), (where, name)
    for name, scale in frame.scales.items():
        sub = subs[name]
        mapper = sub.handles.get("pe_color_mapper") or sub.handles["color_mapper"]
        for prop, value in scale.items():
            assert list(np.atleast_1d(getattr(mapper, prop))) == list(np.atleast_1d(value)), (
                where,
                name,
                prop,
            )


@pytest.mark.parametrize("slug", CHARTED)
def test_a_figure_shows_what_its_frame_states(slug):
    """Ranges, axis labels, glyph properties, legend labels and colour scales of the
    frame are on the figure, first drawn and after random changes."""
    rng = np.random.default_rng(13)
    page = PAGES[slug]()
    _root, doc = rendered(page)
    for step in range(8):
        for name, drawing in page.drawings.items():
            for plot in drawing.plots():
                _assert_shows(plot, drawing, f"{slug} {name} step {step}")
        with set_curdoc(doc), one_update():
            page.set_state(**random_values(page, rng, how_many=2, ends=step % 2 == 1))


#: Names HoloViews gives an axis when no element of the overlay states one.
_UNTITLED = {None, "", "x", "y", "x0", "y0", "x1", "y1"}


@pytest.mark.parametrize("slug", CHARTED)
def test_every_figure_titles_its_axes(slug):
    """An overlay takes its axis titles from its first layer, so a chart whose first
    mark is a rule or a span showed "x" and no y title (A3 did)."""
    page = PAGES[slug]()
    rendered(page)
    for name, drawing in page.drawings.items():
        for plot in drawing.plots():
            figure = plot.state
            # A figure without axes (a clock face) has nothing to title.
            titles = [a.axis_label for a in (*figure.xaxis, *figure.yaxis) if a.visible]
            assert not _UNTITLED & set(titles), f"{slug} {name}: axis titles {titles}"
