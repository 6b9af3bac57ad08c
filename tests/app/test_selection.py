"""Marks selected in the browser (app/selection.py): the candidates are the server's own rows.

For every choice mark of every charted page, what the browser's select code
would copy for a key (the candidate rows with that key) is what the server
draws when the control is set to that key in Python; the properties that
follow the choice (an axis end, a colour scale) too. Past the size limit
nothing is shipped and the server draws.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import pytest
from panel.io.state import set_curdoc

from app.main import PAGES
from app.marks import KEY
from app.respond import one_update

from .drawn import record_events, rendered

CHOOSING = [slug for slug, cls in PAGES.items() if any(c.choices() for c in cls.charts.values())]


def _rows(candidates: dict, key: int, names) -> dict:
    keep = np.asarray(candidates.get(KEY, [])) == key
    return {name: np.asarray(candidates[name])[keep] for name in names}


def browser_draws(candidates: dict, spec: list, before: dict, key: int) -> dict:
    """What the select code draws for ``key`` (app/selection.py ``_SELECT_JS``): the rows
    with that key; columns without candidates stay as drawn; a gathered column
    is its table looked up at every cell of its index; a window column the slice
    of its vector that starts at origin + key · step."""
    out = {name: before[name] for name in before if name not in candidates}
    out.update(_rows(candidates, key, [n for n in before if n in candidates]))
    for column, origin, step, rows in (g for g in spec if len(g) == 4):
        start = origin + key * step
        out[column] = np.asarray(candidates[column])[start : start + rows]
    for drawn, index, table in (g for g in spec if len(g) == 3):
        tables = _rows(candidates, key, [table])[table]
        out[drawn] = [np.asarray(t)[np.asarray(c)] for t, c in zip(tables, out[index], strict=True)]
    return out


def _assert_same(actual: dict, expected: dict, where: str) -> None:
    assert set(actual) == set(expected), where
    for name, column in expected.items():
        got = actual[name]
        if len(column) and isinstance(column[0], np.ndarray):  # images
            assert len(got) == len(column), where
            for a, b in zip(got, column, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6, err_msg=where)
            continue
        got, column = np.asarray(got), np.asarray(column)
        if column.dtype.kind in "fiu":  # candidates are float32: 1e-6 relative
            np.testing.assert_allclose(
                got.astype(float), column.astype(float), rtol=1e-6, atol=1e-6, err_msg=where
            )
        else:
            assert list(got) == list(column), where


def _choice_marks(page):
    for name, drawing in page.drawings.items():
        for mark_name, mark in drawing.chart.marks.items():
            if mark.choice:
                yield name, drawing, mark_name, mark


def _source(drawing, mark_name):
    (plot,) = drawing.plots()
    subs = sorted(plot.subplots.values(), key=lambda s: s.zorder)
    return subs[list(drawing.chart.marks).index(mark_name)].handles["source"]


@pytest.mark.parametrize("slug", CHOOSING)
@pytest.mark.parametrize("seed", [0, 1])
def test_the_browser_selects_what_the_server_draws(slug, seed):
    rng = np.random.default_rng(seed)
    page = PAGES[slug]()
    _root, doc = rendered(page)
    marks = list(_choice_marks(page))
    assert marks
    for _ in range(5):
        shipped = {}
        for name, drawing, mark_name, _mark in marks:
            source = _source(drawing, mark_name)
            # At the default sizes every choice mark is selected in the browser.
            assert source.tags, (name, mark_name)
            candidates = dict(source.tags[0].data)
            shipped[(name, mark_name)] = (
                candidates,
                list(source.tags[0].tags),
                dict(source.data),
                source.tags[1:],
            )
        group = marks[int(rng.integers(len(marks)))][3]
        values = {c: int(rng.integers(*page.param[c].bounds, endpoint=True)) for c in group.choice}
        with set_curdoc(doc), one_update():
            page.set_state(**values)
        for name, drawing, mark_name, mark in marks:
            candidates, gather, before, followers = shipped[(name, mark_name)]
            key = sum(getattr(page, c) * s for c, s in zip(mark.choice, mark.strides, strict=True))
            where = f"{slug} {name}.{mark_name} {values}"
            server = dict(_source(drawing, mark_name).data)
            _assert_same(browser_draws(candidates, gather, before, key), server, where)
            for model, prop, column in zip(
                followers[::3], followers[1::3], followers[2::3], strict=True
            ):
                expected = _rows(candidates, key, [column])[column][0]
                assert getattr(model, prop) == pytest.approx(expected, rel=1e-6), where


def test_past_the_limit_the_server_draws():
    page = PAGES["alibi"](heads=128, seq_len=128)
    _root, doc = rendered(page)
    source = _source(page.drawings["weights"], "bars")
    assert source.tags == []  # 128 heads × 128 rows × 128 bars: nothing shipped
    with set_curdoc(doc), one_update():
        page.set_state(head=100, row=90)
    assert list(source.data["j"]) == list(range(128))
    expected = page.matrices(100).weights[90]
    np.testing.assert_allclose(source.data["weight"], expected)


def test_browser_links_are_released_when_the_session_ends():
    """Panel files a widget's ``jscallback`` in a WeakKeyDictionary whose value
    holds the widget, so without ``release_with_session`` a closed session's
    widgets (and its pages with them) stayed in the server for good."""
    import gc
    import weakref

    from bokeh.document import Document
    from panel.links import Callback

    from app.selection import release_with_session

    class SessionContext:  # what Bokeh attaches to a served document
        id = "test-session"

    context = SessionContext()
    doc = Document()
    doc._session_context = weakref.ref(context)
    slider = pn.widgets.IntSlider(start=0, end=9)
    with set_curdoc(doc):
        slider.jscallback(value="console.log(t.value)", args={"t": slider})
        release_with_session(slider)
    alive = weakref.ref(slider)
    del slider
    gc.collect()
    assert alive() is not None and alive() in Callback.registry  # Panel keeps it...
    # What Bokeh does when a session ends: the callbacks, then the document goes.
    callbacks = list(doc.session_destroyed_callbacks)
    for callback in callbacks:
        callback(context)
    callback = callbacks = doc = None  # the document goes, and its callbacks with it
    gc.collect()
    assert alive() is None  # ...until the session ends


def test_after_the_browser_selected_the_server_sends_the_whole_mark_again():
    """The browser draws a choice from its candidates without telling the server the
    rows: the server's copy is stale, so the next server-side draw of that mark sends
    every column, even those its copy already holds."""
    from bokeh.document.events import ColumnDataChangedEvent, ModelChangedEvent

    page = PAGES["alibi"]()
    _root, doc = rendered(page)
    bars = _source(page.drawings["weights"], "bars")
    before = dict(bars.data)
    events: list = []
    record_events(doc, events)
    page.choosing_in_browser += 1  # as while the server handles the browser's change
    with set_curdoc(doc), one_update():
        page.set_state(head=5)
    page.choosing_in_browser -= 1
    assert not [e for e in events if getattr(e, "model", None) is bars]
    assert list(bars.data["weight"]) == list(before["weight"])  # the server's copy: stale
    with set_curdoc(doc), one_update():
        page.set_state(head=1)  # set in Python: what the server's copy holds already
    sent = [e for e in events if isinstance(e, ColumnDataChangedEvent) and e.model is bars]
    assert sent and set(sent[-1].cols) >= {"top", "weight"}
    ends = [e for e in events if isinstance(e, ModelChangedEvent) and e.attr == "end"]
    assert ends  # the y axis follows the choice: sent although its value did not change
