"""How the app answers a widget: at once, in one message, with one walk of the model graph.

Panel waits 50 ms before handling a widget change, and Bokeh re-collects every
model of a document after each update; a drag can outrun the server. This
module holds what the pages' widgets do instead (:func:`respond_at_once`), the
block every change runs in (:func:`one_update`), the graph walk it saves
(:func:`walk_the_graph_once`), and the walk for browser links a new part of a
page saves (:func:`links_where_the_page_changed`). docs/performance.md has the
measurements.
"""

from __future__ import annotations

import contextlib
import sys
import time
import weakref
from collections import Counter
from collections.abc import Iterator
from typing import Any

import panel as pn
from bokeh.model import Model
from bokeh.model.util import visit_value_and_its_immediate_references
from panel.links import Callback

__all__ = [
    "CATCH_UP_MS",
    "links_where_the_page_changed",
    "one_update",
    "respond_at_once",
    "walk_the_graph_once",
]


#: How long a change waits when it reaches the server right after a long one
#: of the same session (a drag outrunning the server), so that the values the
#: browser sent meanwhile are read first and only the latest is drawn.
CATCH_UP_MS = 10
#: "Long": a change that kept the server busy this long (seconds) may have let
#: a drag's next values queue up (a drag sends one every frame or two).
_LONG_S = 0.015
#: "Right after": queued values are read within a few ms of the end of the
#: change they waited for, plus the time to send its patch. A change that
#: comes later found the server idle and waits for nothing.
_RIGHT_AFTER_S = 0.05
#: When each session's last change started and finished (monotonic seconds).
_last_change: weakref.WeakKeyDictionary[Any, tuple[float, float]] = weakref.WeakKeyDictionary()


def respond_at_once(view: pn.viewable.Viewable) -> pn.viewable.Viewable:
    """Make every widget in ``view`` answer a change without Panel's wait, in one hold.

    Panel 1.9 waits ``_debounce`` (50 ms) before handling a widget change on
    the server, to merge bursts; for a slider that is most of the round trip.
    With 0 the change is handled on the next turn of the event loop (changes
    Panel has heard of by then are merged). Each change is then handled
    inside one ``pn.io.hold``: the figures it touches go out as one message
    (measured: the ALiBi head control went from 27 messages to one), and
    Bokeh walks the document's model graph at most once, and only when the
    change added or removed models (see :func:`walk_the_graph_once`).

    A drag sends a value every few tens of ms, faster than most changes are
    drawn. The values that arrive while a change is being handled wait in the
    socket, and Bokeh reads them one message at a time: with no wait, each
    was handled in turn (a 15-value drag of Context extension's factor drew 14
    of them, and the figures showed the last one a second after the drag
    ended). A change that reaches the server right after a long change of the
    same session therefore waits :data:`CATCH_UP_MS`, time enough to read the
    queued values, which Panel merges into one change of the latest. A short
    change (a throttled slider's ``value`` before its ``value_throttled``)
    lets nothing queue, so what follows it does not wait.

    These are private hooks of Panel's ``Syncable`` (``_debounce``,
    ``_process_events``, ``_server_change``); tests/app/test_respond.py fails
    if a Panel upgrade changes them.
    """
    for widget in view.select(pn.widgets.Widget):
        if getattr(widget, "_responds_at_once", False):
            continue
        widget._debounce = 0
        for name in ("_process_events", "_process_event"):
            handle = getattr(widget, name, None)
            if handle is None:
                continue

            def held(arg: Any, _handle: Any = handle, _widget: Any = widget) -> None:
                inside = _within_slider(_widget, arg)
                started = time.monotonic()
                try:
                    with one_update():
                        _handle(inside)
                finally:
                    doc = pn.state.curdoc
                    if doc is not None:
                        _last_change[doc] = (started, time.monotonic())
                if inside is not arg:
                    # The browser shows a value the slider does not have: send it back.
                    _widget.param.trigger("value")

            setattr(widget, name, held)
        server_change = widget._server_change

        # Bokeh checks the signature of the callback Panel makes of this.
        def catch_up(
            doc: Any,
            ref: str,
            subpath: str | None,
            attr: str,
            old: Any,
            new: Any,
            _widget: Any = widget,
            _change: Any = server_change,
        ) -> None:
            started, finished = _last_change.get(doc, (0.0, 0.0))
            behind = finished - started >= _LONG_S and time.monotonic() - finished < _RIGHT_AFTER_S
            _widget._debounce = CATCH_UP_MS if behind else 0
            _change(doc, ref, subpath, attr, old, new)

        widget._server_change = catch_up
        widget._responds_at_once = True
    return view


def _within_slider(widget: Any, events: Any) -> Any:
    """A slider's ``value`` from the browser, moved inside the slider's ends,
    and onto its steps when they are whole numbers.

    A browser may send any number (a script, a stale page): past the ends,
    the page's parameter would refuse it with an exception in the server's
    callback and the slider would show a value the page does not have. Off
    an integer slider's steps, it could break what the steps keep (an even
    d: Context extension raised on 129). Other events are returned as they are.
    """
    start, end = getattr(widget, "start", None), getattr(widget, "end", None)
    if not isinstance(events, dict) or not all(isinstance(b, int | float) for b in (start, end)):
        return events
    step = getattr(widget, "step", None)
    whole = all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end, step))
    inside = dict(events)
    for key in ("value", "value_throttled"):
        value = events.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            kept = start if value != value else min(max(value, start), end)  # NaN: start
            if whole and step > 0:
                steps = min(round((kept - start) / step), (end - start) // step)
                kept = start + steps * step
            if kept != value or type(kept) is not type(value):
                inside[key] = kept
    return inside if inside != events else events


@contextlib.contextmanager
def one_update() -> Iterator[None]:
    """Hold the session's document: what the block changes goes out as one message, one walk."""
    with pn.io.hold(), walk_the_graph_once(pn.state.curdoc):
        yield


def _net_reference_change(frame: Any, balance: Counter[Any]) -> bool:
    """Count the models a ``Model.trigger`` frame swaps out (-1) and in (+1) in ``balance``.

    Returns False if ``frame`` is not ``Model.trigger`` (then the caller must
    assume the graph changed).
    """
    if frame is None or frame.f_code is not Model.trigger.__code__:
        return False
    for name, sign in (("old", -1), ("new", 1)):
        visit_value_and_its_immediate_references(
            frame.f_locals.get(name), lambda model, sign=sign: balance.update({model: sign})
        )
    return True


@contextlib.contextmanager
def walk_the_graph_once(doc: Any) -> Iterator[None]:
    """Walk the document's model graph at most once for the block, and only if it changed.

    Bokeh re-collects every model reachable from the document's roots
    (``doc.models.recompute``: 100–250 ms on these pages) when a property
    that holds models changes (``invalidate``), and also at the end of every
    ``models.freeze()`` block, whether or not the graph changed. HoloViews
    wraps each plot update in such a block, and ``pn.io.hold(freeze=True)``
    is one; so a change that only sends new numbers (a data source's columns,
    a range, a text) paid one or more full walks. HoloViews also takes a
    legend placed outside the plot out of the figure and puts it back on
    every update, which asks for a walk although nothing changed.

    Inside this block Bokeh's own signals are noted instead, with the models
    each property change took out and put in. A walk is done once at the end
    if some model was put in or taken out on balance, if a root was added or
    removed, or if the graph was invalidated from anywhere else; none
    otherwise. Nested blocks join the outer one.
    """
    models = getattr(doc, "models", None)
    if models is None or getattr(models, "_walk_deferred", False):
        yield
        return
    unknown = False
    balance: Counter[Any] = Counter()  # models are hashed by identity
    roots = list(doc.roots)
    wrapped = {name: name in vars(models) for name in ("invalidate", "recompute")}
    originals = {name: getattr(models, name) for name in wrapped}

    def note_change() -> None:
        nonlocal unknown
        if not _net_reference_change(sys._getframe(1), balance):
            unknown = True

    models.invalidate = note_change
    models.recompute = lambda: None  # a freeze block ending: no change by itself
    models._walk_deferred = True
    try:
        yield
    finally:
        for name, own in wrapped.items():
            if own:  # a test may have wrapped it: keep its wrapper
                setattr(models, name, originals[name])
            else:
                delattr(models, name)
        del models._walk_deferred
        if unknown or any(balance.values()) or list(doc.roots) != roots:
            originals["recompute"]()


def links_where_the_page_changed() -> None:
    """Look for browser links (``jscallback``, ``jslink``) only in the part of a page
    that was built, not in the whole page, each time a part is added.

    Panel runs its link pass (``Callback._process_callbacks``) whenever a layout
    of a page changes, once any link exists in the process (Panel's own editable
    and discrete sliders make some). The pass collects every Viewable and every
    Bokeh model of the page, although links in the parts already built have their
    browser callbacks (Panel tags them and skips them). A lesson step put into a
    page paid about a sixth of its build for it, more with each step held.
    The new part is what the pass then looks in: the app's links have their source
    and arguments in the same part (a widget and its copies of one group's
    controls, a composite slider's pieces), and the first build of a page is still
    the whole page.
    """
    process = Callback._process_callbacks.__func__
    if getattr(process, "_pe_changed_part", False):
        return

    def where_changed(
        cls: type, root_view: Any, root_model: Any, changed: Any = None, old_models: Any = None
    ) -> None:
        part = root_view if changed is None else changed
        process(cls, part, root_model, changed, old_models)

    where_changed._pe_changed_part = True  # type: ignore[attr-defined]
    Callback._process_callbacks = classmethod(where_changed)  # type: ignore[method-assign]
    hooks = pn.viewable.Viewable._preprocessing_hooks
    hooks[:] = [  # a pass Panel filed before this (a link made at import) is this one now
        Callback._process_callbacks if getattr(hook, "__func__", None) is process else hook
        for hook in hooks
    ]
