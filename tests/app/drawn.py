"""What a page's figures draw, read from their Bokeh models, comparable across documents."""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import panel as pn
import param
from bokeh.document import Document
from bokeh.models import ColorMapper, FactorRange, GlyphRenderer, Legend, Model
from panel.io.state import set_curdoc

__all__ = [
    "assert_same_figure",
    "assert_same_figures",
    "figures",
    "random_values",
    "rendered",
]


def rendered(page) -> tuple[Any, Document]:
    """The page's controls and content rendered into a new document."""
    doc = Document()
    root = pn.Row(page.sidebar(), page.content())
    with set_curdoc(doc):
        doc.add_root(root.get_root(doc))
    return root, doc


def figures(root) -> list:
    """The Bokeh figures of every HoloViews pane, in order."""
    return [
        plot.state for pane in root.select(pn.pane.HoloViews) for plot, _ in pane._plots.values()
    ]


def _value(value):
    if isinstance(value, ColorMapper):
        props = value.properties_with_values()
        return (type(value).__name__, {k: _value(v) for k, v in sorted(props.items())})
    if isinstance(value, Model):
        return type(value).__name__
    if isinstance(value, list | tuple):
        return [_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _value(v) for k, v in value.items()}
    if hasattr(value, "__dataclass_fields__"):  # Field, Value, ...
        return {k: _value(getattr(value, k)) for k in value.__dataclass_fields__}
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def _column(column):
    column = list(column) if not isinstance(column, np.ndarray) else column
    if len(column) and isinstance(column[0], np.ndarray):
        return [np.asarray(c, dtype=float) for c in column]
    array = np.asarray(column)
    if array.dtype.kind in "fiub":
        return array.astype(float)
    return [str(v) for v in column]


def assert_columns_equal(a: dict, b: dict, where: str) -> None:
    assert set(a) == set(b), (where, sorted(a), sorted(b))
    for name in a:
        x, y = _column(a[name]), _column(b[name])
        if len(x) == 0 or len(y) == 0:
            assert len(x) == len(y), f"{where}: {name}"
        elif isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-9, err_msg=f"{where}: {name}")
        elif x and isinstance(x[0], np.ndarray):
            assert len(x) == len(y), f"{where}: {name}"
            for p, q in zip(x, y, strict=True):
                np.testing.assert_allclose(p, q, rtol=1e-6, atol=1e-9, err_msg=f"{where}: {name}")
        else:
            assert list(x) == list(y), f"{where}: {name}"


def _drawn(fig) -> dict:
    """What a figure shows, independent of model ids."""
    out: dict[str, Any] = {}
    for axis in ("x_range", "y_range"):
        rng = getattr(fig, axis)
        if isinstance(rng, FactorRange):
            out[axis] = ("factors", list(rng.factors))
        else:
            out[axis] = tuple(_value(getattr(rng, k)) for k in ("start", "end"))
    out["title"] = fig.title.text if fig.title is not None else None
    out["axes"] = [_value(a.axis_label) for a in (*fig.xaxis, *fig.yaxis)]
    out["ticks"] = [_value(getattr(a.ticker, "ticks", None)) for a in (*fig.xaxis, *fig.yaxis)]
    out["legend"] = [
        (_value(item.label), len(item.renderers), item.visible)
        for legend in fig.select(Legend)
        for item in legend.items
    ]
    renderers = []
    for r in fig.renderers:
        if not isinstance(r, GlyphRenderer):
            renderers.append(type(r).__name__)
            continue
        props = {
            k: _value(v)
            for k, v in r.glyph.properties_with_values(include_defaults=True).items()
            if k not in ("name", "id")
        }
        renderers.append((type(r.glyph).__name__, r.visible, r.level, props))
    out["renderers"] = renderers
    return out


def assert_same_figure(a, b, here: str) -> None:
    da, db = _drawn(a), _drawn(b)
    for key in da:
        if key in ("x_range", "y_range"):
            for p, q in zip(da[key], db[key], strict=True):
                if isinstance(p, float) and isinstance(q, float):
                    assert math.isclose(p, q, rel_tol=1e-9, abs_tol=1e-12), (here, key, p, q)
                else:
                    assert p == q, (here, key, p, q)
        else:
            assert da[key] == db[key], (here, key)
    sources_a = [r.data_source.data for r in a.renderers if isinstance(r, GlyphRenderer)]
    sources_b = [r.data_source.data for r in b.renderers if isinstance(r, GlyphRenderer)]
    for k, (x, y) in enumerate(zip(sources_a, sources_b, strict=True)):
        assert_columns_equal(dict(x), dict(y), f"{here}, renderer {k}")


def assert_same_figures(a_root, b_root, where: str) -> None:
    a, b = figures(a_root), figures(b_root)
    assert len(a) == len(b) > 0, where
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        assert_same_figure(x, y, f"{where}, figure {i}")


def random_values(page, rng: np.random.Generator, how_many: int, ends: bool = False) -> dict:
    """New values for up to ``how_many`` random controls (within their bounds);
    with ``ends``, each number is one of its bounds half of the time."""
    names = page.control_names()
    out = {}
    for name in rng.choice(names, size=min(how_many, len(names)), replace=False):
        p = page.param[name]
        if isinstance(p, param.Boolean):
            out[name] = bool(rng.integers(2))
        elif isinstance(p, param.Selector):
            objects = list(p.get_range().values())
            out[name] = objects[int(rng.integers(len(objects)))]
        elif isinstance(p, param.Number) and p.bounds and None not in p.bounds:
            low, high = p.bounds
            if ends and rng.integers(2):
                value = (low, high)[int(rng.integers(2))]
            elif low > 0 and high / low > 100:
                value = math.exp(rng.uniform(math.log(low), math.log(high)))
            else:
                value = rng.uniform(low, high)
            out[name] = round(value) if isinstance(p, param.Integer) else float(value)
    return out


def record_events(doc: Document, into: list) -> list:
    """Append to ``into`` every change event ``doc`` sends, as a served session's would.

    Panel drops the events held by ``pn.io.hold`` (every page change runs in one)
    when the document has no connected browser, since a browser that connects later
    gets the whole document; a served session's document is connected, and owned by
    the thread that serves it. Marked so, this document's held events reach its
    change callbacks when the hold ends, as they reach a browser.
    """
    pn.state._connected[doc] = True
    pn.state._thread_id_[doc] = threading.get_ident()
    doc.on_change(into.append)
    return into


def on_a_loop(work: Callable[[], None]) -> None:
    """Run ``work`` on a running event loop, as a served session's callbacks run:
    HoloViews answers some changes (a figure's range, R1's drawn tips) by
    scheduling a task on it.

    The loop runs in a thread of its own, since this thread may already run one
    (the browser tests' Playwright keeps its loop here); the documents this
    thread owns (:func:`record_events`) are handed to that thread meanwhile.
    """
    here = threading.get_ident()
    owned = [doc for doc, owner in list(pn.state._thread_id_.items()) if owner == here]

    def run() -> None:
        for doc in owned:
            pn.state._thread_id_[doc] = threading.get_ident()

        async def body() -> None:
            work()
            await asyncio.sleep(0)

        asyncio.run(body())

    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(run).result()
    finally:
        for doc in owned:
            pn.state._thread_id_[doc] = here
