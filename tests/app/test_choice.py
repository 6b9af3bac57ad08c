"""Browser-selected controls (app/choice.py): the candidates are the server's own figures.

For each page control whose figures the browser selects, the rows the browser
would copy for a value (the candidates with that key) must equal what the
server draws when the value is set in Python; and past the size limit the
server draws the figure itself.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from app.choice import KEY
from app.main import PAGES


def _rendered(slug: str, **values):
    page = PAGES[slug](**values)
    doc = Document()
    doc.add_root(pn.Row(page.sidebar(), page.content()).get_root(doc))
    return page


def _rows(candidates: dict, value: int, names) -> dict:
    keep = np.asarray(candidates[KEY]) == value
    return {name: np.asarray(candidates[name])[keep] for name in names}


def _browser_draws(candidates: dict, gather: list, before: dict, key: int, names) -> dict:
    """What the browser's select code draws for ``key`` (app/choice.py ``_SELECT_JS``).

    Columns with candidates are the rows with that key; the others stay as they
    were drawn (those the same for every key, and gathered columns' indices);
    a gathered column is the row's table looked up at every cell of its index
    column.
    """
    out = {name: before[name] for name in names if name not in candidates}
    out.update(_rows(candidates, key, [name for name in names if name in candidates]))
    for drawn, index, table in gather:
        tables = _rows(candidates, key, [table])[table]
        out[drawn] = [np.asarray(t)[np.asarray(c)] for t, c in zip(tables, out[index], strict=True)]
    return out


def _assert_same(actual: dict, expected: dict, where: str) -> None:
    assert set(actual) == set(expected), where
    for name, column in expected.items():
        got, column = np.asarray(actual[name]), np.asarray(column)
        if column.dtype.kind in "fiu":
            # Candidates are float32 (drawing only): 1e-6 relative.
            np.testing.assert_allclose(
                got.astype(float), column.astype(float), rtol=1e-6, atol=1e-6, err_msg=where
            )
        elif len(column) and isinstance(column[0], np.ndarray):  # images
            assert len(got) == len(column), where
            for a, b in zip(got, column, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6, err_msg=where)
        else:
            assert list(got) == list(column), where


PAGES_WITH_CHOICES = [slug for slug, cls in PAGES.items() if cls().choices]


def test_some_pages_select_in_the_browser():
    assert "sinusoidal" in PAGES_WITH_CHOICES


@pytest.mark.parametrize("slug", PAGES_WITH_CHOICES)
def test_candidates_are_what_the_server_draws(slug):
    page = _rendered(slug)
    rng = np.random.default_rng(0)
    for choice in {id(c): c for c in page.choices.values()}.values():
        roles = list(choice._columns)
        assert roles, choice.controls
        for role in roles:
            # At the default sizes every role is selected in the browser.
            assert choice.has_candidates(role), (choice.controls, role)
        for _ in range(6):
            values = {}
            for control in choice.controls:
                low, high = page.param[control].bounds
                values[control] = int(rng.integers(low, high + 1))
            _assert_browser_draws_what_the_server_draws(page, choice, values, slug)


def _assert_browser_draws_what_the_server_draws(page, choice, values: dict, where: str) -> None:
    """Set ``values`` (the choice's controls) in Python: what the server draws
    is what the browser would have selected from the candidates shipped before."""
    roles = list(choice._columns)
    shipped = [role for role in roles if choice.has_candidates(role)]
    candidates = {role: dict(choice.sources(role)[0].tags[0].data) for role in shipped}
    gather = {role: list(choice.sources(role)[0].tags[0].tags) for role in shipped}
    before = {role: dict(choice.sources(role)[0].data) for role in shipped}
    page.set_state(**values)
    assert {c: getattr(page, c) for c in values} == values
    key = sum(v * s for v, s in zip(values.values(), choice.strides, strict=True))
    for role in shipped:
        (source,) = choice.sources(role)
        # The columns the browser has (a redraw from the server may add
        # the raw columns behind HoloViews' mapped ones, e.g. align).
        drawn = {name: source.data[name] for name in before[role]}
        here = f"{where} {values} {role}"
        _assert_same(
            _browser_draws(candidates[role], gather[role], before[role], key, drawn),
            drawn,
            here,
        )
        # Properties that follow the choice (axis ends, colour scales).
        tags = source.tags
        for model, prop, column in zip(tags[1::3], tags[2::3], tags[3::3], strict=True):
            expected = _rows(candidates[role], key, [column])[column][0]
            assert getattr(model, prop) == pytest.approx(expected, rel=1e-6), here


@pytest.mark.parametrize(
    "changes", [{"n": 100}, {"max_len": 10}, {"n": 20, "max_len": 30}, {"n": 3, "t": 2}]
)
def test_sinusoidal_marks_follow_n_and_max_len_in_place(changes):
    """n and max_len only change which positions exist and which have a row:
    the marks of t are redrawn and their candidates shipped again in place
    (BrowserChoice.refresh), for exactly the positions 0 … n − 1."""
    page = _rendered("sinusoidal")
    choice = page.choices["t"]
    sources = {role: choice.sources(role) for role in page._MARKS_OF_N}
    page.set_state(**changes)
    n = page.n
    for role in page._MARKS_OF_N:
        assert choice.sources(role) == sources[role], role  # the same Bokeh sources
        (source,) = sources[role]
        assert choice.has_candidates(role), role
        keys = set(np.unique(source.tags[0].data[KEY]).tolist())
        if role.startswith("learned_row"):
            assert keys == set(range(min(n, page.max_len))), role
        elif role.startswith("learned_no_row"):
            assert keys == set(range(page.max_len, n)), role
        else:
            assert keys == set(range(n)), role
    for t in sorted({0, n - 1, n // 2, min(page.max_len, n - 1)}):
        _assert_browser_draws_what_the_server_draws(page, choice, {"t": t}, f"{changes}")


def test_a_page_shown_again_draws_the_current_choice():
    """Going to another page and back builds the figures' plots again, from the
    frames their DynamicMaps remember: the marks of t must show the t of now,
    not the t they were first drawn for."""
    from app.main import build_app
    from app.page import one_update

    doc = Document()
    with set_curdoc(doc):
        app = build_app({"page": "sinusoidal"})
        app.server_doc(doc)
        shell = app.shell
        page = shell.current
        with one_update():
            page.set_state(t=20, n=100)
        with one_update():
            shell.page = "rope"
        with one_update():
            shell.page = "sinusoidal"
        for role in page._MARKS_OF_N[:3]:
            shown = [s for s in page.choices["t"].sources(role) if s.document is doc]
            assert shown, role
            for source in shown:
                expected = page.choices["t"]._chosen(role, 20)
                _assert_same(dict(source.data), expected, role)
                assert set(np.unique(source.tags[0].data[KEY]).tolist()) == set(range(100))


def test_past_the_limit_the_server_draws_the_figure():
    page = _rendered("sinusoidal", n=4096, d=512, t=0)
    choice = page.choices["t"]
    assert not choice.has_candidates("hands")  # 4,096 × 256 rows: not shipped
    assert choice.has_candidates("peak")  # 4,096 rows: shipped
    page.t = 4000
    (hands,) = choice.sources("hands")
    from positional_core.sinusoidal import sinusoidal_code

    np.testing.assert_allclose(hands.data["sin"], sinusoidal_code(4000, 512)[0::2])
    for role in choice._columns:
        for source in choice.sources(role):
            if source.tags:
                assert len(source.tags[0].data[KEY]) <= choice.limit, role


def test_browser_links_are_released_when_the_session_ends():
    """Panel files a widget's ``jscallback`` in a WeakKeyDictionary whose value
    holds the widget, so without ``release_with_session`` a closed session's
    widgets (and its pages with them) stayed in the server for good."""
    import gc
    import weakref

    from bokeh.document import Document
    from panel.io.state import set_curdoc
    from panel.links import Callback

    from app.choice import release_with_session

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
