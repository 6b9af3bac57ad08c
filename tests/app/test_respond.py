"""Controls answer without Panel's 50 ms wait, and each change is one hold (issue 8).

:func:`app.respond.respond_at_once` relies on two private hooks of Panel's
``Syncable`` (``_debounce`` and ``_process_events``); these tests fail if an
upgrade of Panel changes them, instead of the pages silently getting slower.
"""

from __future__ import annotations

from typing import Any

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import Legend, Title
from bokeh.plotting import figure
from panel.io.state import set_curdoc

from app import respond
from app.main import PAGES
from app.respond import CATCH_UP_MS, one_update, walk_the_graph_once


def _widget(view: pn.viewable.Viewable, name: str) -> pn.widgets.Widget:
    for pane in view.select(pn.Param):
        if name in pane._widgets:
            return pane._widgets[name]
    raise LookupError(name)


@pytest.mark.parametrize("slug", list(PAGES))
def test_every_control_widget_answers_at_once(slug):
    page = PAGES[slug]()
    views = [page.sidebar(), page.content(), *(page.figure_view(n) for n in page.figures)]
    widgets = [w for view in views for w in view.select(pn.widgets.Widget)]
    assert widgets
    for widget in widgets:
        assert widget._debounce == 0, widget
        assert widget._responds_at_once, widget


class _Walks:
    """Counts Bokeh's walks of ``doc``'s model graph (``doc.models.recompute``)."""

    def __init__(self, doc: Document) -> None:
        self.count = 0
        self._recompute = doc.models.recompute
        doc.models.recompute = self

    def __call__(self) -> None:
        self.count += 1
        self._recompute()


def _recomputes_for_one_change(process_events, page, widget, value) -> int:
    doc = Document()
    doc.add_root(pn.Row(page.sidebar(), page.content()).get_root(doc))
    walks = _Walks(doc)
    with set_curdoc(doc):
        process_events({"value": value})
    return walks.count


def test_one_change_walks_the_model_graph_at_most_once():
    # The ALiBi head redraws four figures; without the hold Bokeh may walk the
    # whole document once per figure (whether it does depends on what earlier
    # renders left in HoloViews' caches, so only the held count is asserted).
    page = PAGES["alibi"]()
    widget = _widget(page.sidebar(), "head")
    held = _recomputes_for_one_change(widget._process_events, page, widget, 5)
    assert page.head == 5
    assert held <= 1


def test_a_change_that_only_sends_numbers_does_not_walk_the_model_graph():
    # RoPE's θ moves R1's arrows: new columns in existing data sources, a new
    # readout text. Nothing adds or removes a model, so Bokeh need not walk
    # the document (100-250 ms on these pages); hold(freeze=True) walked it anyway.
    page = PAGES["rope"]()
    widget = _widget(page.sidebar(), "theta")
    walks = _recomputes_for_one_change(widget._process_events, page, widget, 0.9)
    assert page.theta == 0.9
    assert walks == 0


def test_models_added_inside_the_block_are_attached_once_at_its_end():
    doc = Document()
    plot = figure()
    doc.add_root(plot)
    walks = _Walks(doc)
    first, second = Title(text="one"), Title(text="two")
    with walk_the_graph_once(doc):
        plot.title = first
        plot.title = second
        with walk_the_graph_once(doc):  # nested blocks join the outer one
            plot.above.append(Title(text="three"))
        assert walks.count == 0
    assert walks.count == 1
    assert doc.get_model_by_id(second.id) is second
    assert doc.get_model_by_id(first.id) is None
    assert doc.models.recompute is walks  # a wrapper set before the block is kept

    with walk_the_graph_once(doc):
        plot.title.text = "only text"
        with doc.models.freeze():  # as HoloViews wraps each plot update
            plot.width = 321
    assert walks.count == 1

    with walk_the_graph_once(doc):
        doc.add_root(Title(text="a new root"))
    assert walks.count == 2


def test_a_compute_change_whose_plots_keep_their_models_does_not_walk_the_graph():
    # Extension's base recomputes every schedule: HoloViews updates each
    # figure inside a models.freeze() block, which walks the graph at its end
    # whether or not anything was added. Here no figure gains or loses a model.
    page = PAGES["extension"]()
    label = page.param["base"].label
    widget = next(w for w in page.sidebar().select(pn.widgets.FloatSlider) if w.name == label)
    before = page.base
    doc = Document()
    doc.add_root(pn.Row(page.sidebar(), page.content()).get_root(doc))
    walks = _Walks(doc)
    with set_curdoc(doc):
        for step in (1, 2):
            widget._process_events({"value": widget.start + step * widget.step * 10})
    assert page.base != before
    assert walks.count == 0


@pytest.mark.parametrize(
    ("name", "values"), [("trained_len", (2048, 8192)), ("target_len", (8192, 131072))]
)
def test_compare_lengths_move_the_spans_without_walking_the_graph(name, values):
    # The shaded spans of C3 and C4 were annotations (hv.VSpan): HoloViews set
    # their open top and bottom as new Bokeh models on every update, one walk each.
    page = PAGES["compare"]()
    doc = Document()
    with set_curdoc(doc):
        with walk_the_graph_once(doc):
            doc.add_root(pn.Row(page.sidebar(), page.content()).get_root(doc))
        walks = _Walks(doc)
        for value in values:
            with one_update():
                setattr(page, name, value)
    assert getattr(page, name) == values[-1]
    assert walks.count == 0


def test_a_legend_taken_out_and_put_back_does_not_walk_the_graph():
    # HoloViews does this to a legend placed outside the plot on every update.
    doc = Document()
    plot = figure()
    legend = Legend()
    plot.add_layout(legend, "below")
    doc.add_root(plot)
    walks = _Walks(doc)
    with walk_the_graph_once(doc):
        plot.below.remove(legend)
        plot.add_layout(legend, "below")
    assert walks.count == 0
    moved = Legend()
    with walk_the_graph_once(doc):
        plot.below.remove(legend)
        plot.add_layout(moved, "below")
    assert walks.count == 1
    assert doc.get_model_by_id(moved.id) is moved
    assert doc.get_model_by_id(legend.id) is None


@pytest.mark.parametrize(
    ("slug", "name", "values"),
    [
        ("rope", "d", (96, 64)),
        ("extension", "method", ("yarn", "longrope", "default")),
        ("alibi", "heads", (12, 8)),
        ("compare", "trained_len", (4096, 2048)),
        ("relative", "mode", ("causal", "bidirectional")),
    ],
)
def test_the_document_knows_every_model_after_changes_that_skipped_the_walk(slug, name, values):
    page = PAGES[slug]()
    doc = Document()
    with set_curdoc(doc):
        with walk_the_graph_once(doc):
            doc.add_root(pn.Row(page.sidebar(), page.content()).get_root(doc))
        for value in values:
            with one_update():
                setattr(page, name, value)
        known = {m.id for m in doc.models}
        doc.models.recompute()
    assert getattr(page, name) == values[-1]
    assert known == {m.id for m in doc.models}


@pytest.mark.parametrize("part", [pn.widgets.IntSlider, pn.widgets.IntInput])
@pytest.mark.parametrize("value", [90, -5, 10**9, float("nan")])
def test_a_slider_value_past_its_ends_is_moved_inside_and_sent_back(value, part):
    """A browser may send any number for a slider or its number box: the page
    takes the nearest end (NaN: the start) without an exception, and the
    slider (or box) shows it."""
    page = PAGES["sinusoidal"]()
    sidebar = page.sidebar()
    (editable,) = [
        w for w in sidebar.select(pn.widgets.EditableIntSlider) if w.label == page.param["t"].label
    ]
    (widget,) = [w for w in editable.select(part) if type(w) is part]
    doc = Document()
    doc.add_root(pn.Row(sidebar, page.content()).get_root(doc))
    (model,) = [m for m, _ in widget._models.values()]
    with set_curdoc(doc):
        widget._process_events({"value": value})
    low, high = page.param["t"].bounds
    expected = high if value == value and value > high else low
    assert page.t == expected
    assert widget.value == expected and model.value == expected


def test_a_position_number_box_takes_exactly_the_values_its_slider_can():
    """t's number box follows t's bounds as n moves them: at n = 100 it takes
    80 (refused while the box kept the first bounds, 0 … 63) and clamps 150 to 99."""
    page = PAGES["sinusoidal"]()
    sidebar = page.sidebar()
    (editable,) = [
        w for w in sidebar.select(pn.widgets.EditableIntSlider) if w.label == "Position t"
    ]
    (box,) = [w for w in editable.select(pn.widgets.IntInput) if type(w) is pn.widgets.IntInput]
    doc = Document()
    doc.add_root(pn.Row(sidebar, page.content()).get_root(doc))
    page.n = 100
    with set_curdoc(doc):
        box._process_events({"value": 80})
    assert page.t == 80
    with set_curdoc(doc):
        box._process_events({"value": 150})
    assert page.t == 99 and box.value == 99
    page.n = 50  # t follows the page's rule (t < n), the box its bounds
    assert (box.start, box.end) == (0, 49) and box.value == page.t <= 49


@pytest.mark.parametrize("value", [129, 128.4, 130.9])
def test_an_integer_slider_value_off_its_steps_goes_to_the_nearest_step(value):
    """Context extension's d moves in steps of 2 (pairs rotate together). A
    browser that sends an odd or fractional d gets the nearest step, and the
    core never sees it (129 raised RopeScalingError in the server's callback)."""
    page = PAGES["extension"]()
    sidebar = page.sidebar()
    widget = next(
        w for w in sidebar.select(pn.widgets.IntSlider) if w.name == page.param["d"].label
    )
    assert widget.step == 2
    doc = Document()
    doc.add_root(pn.Row(sidebar, page.content()).get_root(doc))
    (model,) = [m for m, _ in widget._models.values()]
    with set_curdoc(doc):
        widget._process_events({"value": value})
    expected = widget.start + 2 * round((value - widget.start) / 2)
    assert page.d == expected and page.d % 2 == 0
    assert widget.value == expected and model.value == expected


def _served_widget(slug: str, name: str) -> tuple[Any, pn.widgets.Widget, Document, str]:
    page = PAGES[slug]()
    sidebar = page.sidebar()
    widget = next(w for w in sidebar.select(pn.widgets.Widget) if w.name == page.param[name].label)
    doc = Document()
    doc.add_root(pn.Row(sidebar, page.content()).get_root(doc))
    (model,) = [m for m, _ in widget._models.values()]
    return page, widget, doc, model.ref["id"]


class _Clock:
    """``time.monotonic`` for app.respond: 20 ms pass at each reading (every change
    is a long one) and ``pause`` jumps ahead, so the rule is tested, not this
    shared machine's speed (a 50 ms stall here once made the wait look wrong)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        self.now += 0.020
        return self.now

    def pause(self, seconds: float) -> None:
        self.now += seconds


def test_a_change_right_after_a_long_one_waits_for_the_values_queued_behind_it(monkeypatch):
    """A drag outrunning the server: the next value, arriving as a long change
    ends, waits CATCH_UP_MS so that the values queued behind it are read first
    (and merged by Panel); one arriving after a pause does not wait."""
    clock = _Clock()
    monkeypatch.setattr(respond, "time", clock)
    page, widget, doc, ref = _served_widget("extension", "d")
    with set_curdoc(doc):
        widget._process_events({"value": 64})  # 20 ms: a long change
        # Without a session Panel handles the change at once, after setting the wait.
        widget._server_change(doc, ref, None, "value", 64, 96)
        assert widget._debounce == CATCH_UP_MS
        assert page.d == 96
        clock.pause(0.1)
        widget._server_change(doc, ref, None, "value", 96, 64)
        assert widget._debounce == 0
        assert page.d == 64


def test_a_throttled_slider_release_does_not_wait_after_its_own_value():
    """A throttled slider sends ``value`` (nothing to draw: a short change) and
    then ``value_throttled``; the release must not wait behind the first."""
    page, widget, doc, ref = _served_widget("sinusoidal", "d")
    assert page.widget_specs["d"].get("throttled")
    with set_curdoc(doc):
        widget._process_events({"value": 32})
        widget._server_change(doc, ref, None, "value_throttled", 64, 32)
        assert widget._debounce == 0
        assert page.d == 32
