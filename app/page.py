"""The pattern every page follows: a ``pn.viewable.Viewer`` whose parameters are its controls.

A page subclass declares

- its controls as ``param`` parameters (bounds, ``doc=``, ``label=``; declared
  once, the widgets are built from them by :meth:`Page.controls`);
- ``widget_specs``: only *which* widget type draws a parameter and whether it
  is throttled (never bounds or options: those come from the parameter);
- :meth:`Page.constrain`: the rules that tie parameters together (``t < n``,
  ``d`` even) as a pure function of a values dict, and :meth:`Page.dynamic_bounds`:
  the bounds that follow from other values;
- :meth:`Page._build_figures`: its figures by name (each plot built once and
  updated in place: ``self.in_place(self._plot, direct=self._drawn)`` makes a
  figure's ``DynamicMap`` from ``param.depends`` methods, and a change sends
  the columns ``_drawn`` states without building elements; see
  :mod:`app.inplace`), and :meth:`Page._build_quick_check`.

The shell (``main.py``) puts :meth:`controls` in the sidebar and :meth:`content`
in the main area; ``page.__panel__()`` shows both, for use outside the shell.
"""

from __future__ import annotations

import contextlib
import html
import sys
import time
import weakref
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import panel as pn
import param
from bokeh.model import Model
from bokeh.model.util import visit_value_and_its_immediate_references

from .chart import Chart, Drawing, choice_name
from .choice import BrowserChoice, release_with_session
from .inplace import InPlace
from .look import Figure, QuickCheck, figure_card, notice_pane, quick_check_card, text_color
from .selection import select_code
from .styles import Styles
from .urlstate import read_query

__all__ = ["Page", "one_update", "respond_at_once", "walk_the_graph_once"]


_PAGE_HEADING_CSS = "h2 { font-size: 1.4em; margin-block: 0.4em 0; }"


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


def _net_reference_change(frame: Any, balance: dict[int, list[Any]]) -> bool:
    """Add the models a ``Model.trigger`` frame swaps out (-1) and in (+1) to ``balance``.

    Returns False if ``frame`` is not ``Model.trigger`` (then the caller must
    assume the graph changed).
    """
    if frame is None or frame.f_code is not Model.trigger.__code__:
        return False
    for value, sign in ((frame.f_locals.get("old"), -1), (frame.f_locals.get("new"), 1)):

        def count(model: Any, sign: int = sign) -> None:
            entry = balance.setdefault(id(model), [model, 0])
            entry[1] += sign

        visit_value_and_its_immediate_references(value, count)
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
    balance: dict[int, list[Any]] = {}
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
        moved = any(net for _model, net in balance.values())
        if unknown or moved or list(doc.roots) != roots:
            originals["recompute"]()


class Page(pn.viewable.Viewer):
    """Base class of the app's pages (see the module docstring)."""

    #: Name in links (``?page=<slug>``) and the registry.
    slug: ClassVar[str] = ""
    #: Title in the navigation.
    title: ClassVar[str] = ""
    #: One or two sentences at the top of the page (trusted HTML).
    intro: ClassVar[str] = ""
    #: Widget type / throttling per parameter, for ``pn.Param``.
    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {}
    #: The page's figures, by name, in reading order (app/chart.py).
    charts: ClassVar[dict[str, type[Chart]]] = {}

    notes = param.List(
        default=[],
        item_type=str,
        precedence=-1,
        doc="Sentences shown in the page's notice: values from a link that were "
        "changed or ignored, and changes the page made to keep its settings consistent.",
    )

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        #: Colour of text drawn inside plots, for this session's theme.
        self._ink = text_color()
        self._apply(self.constrain(self._values())[0])
        # The notice describes the link the page was opened with; it goes
        # away as soon as the user moves a control.
        self.param.watch(self._forget_notes, self.control_names())
        #: Controls whose figures the browser selects (set by ``_build_figures``).
        self.choices: dict[str, BrowserChoice] = {}
        #: Each chart on this page, by name.
        self.drawings: dict[str, Drawing] = {}
        #: > 0 while the server handles a choice control moved in the browser.
        self.choosing_in_browser = 0
        #: Builds figures redrawn in place: ``self.in_place(self._plot)`` (app/inplace.py).
        self.in_place = InPlace(self)
        #: Styles a figure's elements, sharing unchanged options between frames:
        #: ``self.style(element, "slot", color=...)`` (app/styles.py).
        self.style = Styles()
        self._figures: dict[str, Figure] = self._build_figures()
        for choice in {id(c): c for c in self.choices.values()}.values():
            self.param.watch(lambda *_events, choice=choice: choice.sync(), list(choice.controls))
        self._quick_check: QuickCheck = self._build_quick_check()
        self._controls: pn.viewable.Viewable | None = None
        self._content: pn.viewable.Viewable | None = None
        self._layout: pn.viewable.Viewable | None = None

    # ----------------------------------------------------------- parameters
    @classmethod
    def control_names(cls) -> list[str]:
        """The parameters shown as controls (and carried in links), in order."""
        return [
            name
            for name, p in cls.param.objects("existing").items()
            if name != "name" and (p.precedence is None or p.precedence >= 0)
        ]

    @classmethod
    def constrain(cls, values: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """Make ``values`` (all controls) consistent; say what changed.

        The base rule clamps each value to its :meth:`dynamic_bounds`.
        Subclasses add their own rules and call ``super()``.
        """
        fixed = dict(values)
        notes: list[str] = []
        for name, (low, high) in cls.dynamic_bounds(fixed).items():
            value = fixed[name]
            clamped = min(max(value, low), high)
            if clamped != value:
                label = cls.param[name].label or name
                limit = f"below {low:,}" if clamped == low else f"past {high:,}"
                notes.append(f"{label} {value:,} is {limit}; set to {clamped:,}.")
                fixed[name] = clamped
        return fixed, notes

    @classmethod
    def dynamic_bounds(cls, values: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
        """Bounds that depend on other values, e.g. ``{"t": (0, n - 1)}``."""
        return {}

    def _values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.control_names()}

    def _apply(self, values: Mapping[str, Any]) -> None:
        """Set consistent ``values`` in one ``param.update``, moving dependent bounds.

        Bounds are first widened to cover both the old and the new value (so
        the update is valid whatever the order), then narrowed to their final
        range once the values are in place.
        """
        final = self.dynamic_bounds(values)
        for name, (low, high) in final.items():
            old_low, old_high = self.param[name].bounds
            self.param[name].bounds = (min(low, old_low), max(high, old_high))
        changed = {k: v for k, v in values.items() if getattr(self, k) != v}
        if changed:
            # One hold for all the figures a link (or a rule) changes, as for a
            # widget (respond_at_once): Bokeh walks the model graph once.
            with one_update():
                self.param.update(changed)
        for name, bounds in final.items():
            if self.param[name].bounds != bounds:
                self.param[name].bounds = bounds

    def _forget_notes(self, *_events: param.parameterized.Event) -> None:
        if self.notes:
            self.notes = []

    def keep_consistent(self) -> None:
        """Re-apply :meth:`constrain` after a control moved (call from a watcher)."""
        fixed, _ = self.constrain(self._values())
        self._apply(fixed)

    def set_state(self, **values: Any) -> list[str]:
        """Set several controls at once, in any order, made consistent first.

        ``page.param.update(n=200, t=150)`` can fail because ``t``'s bound
        still follows the old ``n`` while the values are set; this applies
        the page's rules (and moves dependent bounds) before setting anything.
        Returns the notes of what the rules changed.
        """
        unknown = sorted(set(values) - set(self.control_names()))
        if unknown:
            raise ValueError(f"not a control of {type(self).__name__}: {', '.join(unknown)}")
        fixed, notes = self.constrain({**self._values(), **values})
        self._apply(fixed)
        return notes

    def apply_query(self, query: Mapping[str, Any]) -> list[str]:
        """Set the controls from a link; return (and show) what was changed.

        Values are validated against the parameters' bounds and the page's
        rules *before* anything is set; unusable values are ignored.
        """
        names = self.control_names()
        first = read_query(type(self).param, query, names)
        # Read again with the bounds that follow from the values just read
        # (t < n), so a clamped value gets one note that names the real limit.
        dynamic = self.dynamic_bounds({**self._values(), **first.values})
        result = read_query(type(self).param, query, names, bounds=dynamic)
        merged = {**self._values(), **result.values}
        fixed, rule_notes = self.constrain(merged)
        self._apply(fixed)
        notes = result.notes + rule_notes
        self.notes = notes
        return notes

    # ----------------------------------------------------------------- views
    def _build_figures(self) -> dict[str, Figure]:
        """One figure per chart of :attr:`charts`."""
        self.drawings = {name: Drawing(chart(), self) for name, chart in self.charts.items()}
        return {name: self._figure(drawing) for name, drawing in self.drawings.items()}

    def _figure(self, drawing: Drawing) -> Figure:
        chart = drawing.chart
        readout = None
        if chart.readout_depends is not None:
            readout = pn.pane.HTML(
                pn.bind(lambda *_: chart.readout(self), *chart.readout_depends_on(self)),
                sizing_mode="stretch_width",
                margin=(0, 10),
            )
        order = self.control_names()
        return Figure(
            title=chart.title,
            plot=drawing.element(),
            caption=chart.caption,
            formula=chart.formula,
            controls=tuple(n for n in order if n in chart.controls()),
            readout=readout,
            extras=tuple(chart.extras(self)),
            linked_axes=False,
        )

    def _chart_choices(self) -> dict[tuple[str, ...], tuple[int, ...]]:
        return {g: s for d in self.drawings.values() for g, s in d.chart.choices().items()}

    def _build_quick_check(self) -> QuickCheck | None:
        """The question of the first chart that asks one."""
        for drawing in self.drawings.values():
            chart = drawing.chart
            if chart.question:
                depends = [self.param[name] for name in chart.answer_depends]
                answer = pn.bind(lambda *_, c=chart: c.answer(self), *depends)
                return QuickCheck(question=chart.question, answer=answer)
        return None

    @property
    def figures(self) -> dict[str, Figure]:
        """The page's figures by name (each can be shown alone, e.g. for embedding)."""
        return self._figures

    @property
    def quick_check(self) -> QuickCheck:
        return self._quick_check

    def figure_view(self, name: str) -> pn.viewable.Viewable:
        """One figure in its card, with the controls that drive it."""
        fig = self._figures[name]
        controls = pn.Param(
            self.param,
            parameters=list(fig.controls),
            widgets={k: v for k, v in self.widget_specs.items() if k in fig.controls},
            show_name=False,
            sizing_mode="stretch_width",
        )
        return self._wire(pn.Column(controls, figure_card(fig), sizing_mode="stretch_width"))

    def controls(self) -> pn.viewable.Viewable:
        """The page's controls, built from its parameters (built once)."""
        if self._controls is None:
            self._controls = pn.Param(
                self.param,
                parameters=self.control_names(),
                widgets=self.widget_specs,
                show_name=False,
                sizing_mode="stretch_width",
                margin=0,
            )
        return self._controls

    def _wire(self, view: pn.viewable.Viewable) -> pn.viewable.Viewable:
        """Make ``view``'s widgets answer at once, and select in the browser where they can."""
        respond_at_once(view)
        widgets: dict[str, list[pn.widgets.Widget]] = {}
        for pane in view.select(pn.Param):
            for name, widget in pane._widgets.items():
                widgets.setdefault(name, []).append(widget)
        for choice in {id(c): c for c in self.choices.values()}.values():
            found = [widgets.get(name, []) for name in choice.controls]
            # Each copy of the controls (sidebar, one figure's view) is linked as a set.
            for group in zip(*found, strict=False):
                named = dict(zip(choice.controls, group, strict=True))
                for widget in group:
                    choice.link(widget, named)
        for controls, strides in self._chart_choices().items():
            found = [widgets.get(name, []) for name in controls]
            for group in zip(*found, strict=False):
                named = dict(zip(controls, group, strict=True))
                for widget in group:
                    self._select_in_browser(widget, controls, strides, named)
        return view

    def _select_in_browser(
        self, widget: Any, controls: tuple[str, ...], strides: tuple[int, ...], named: dict
    ) -> None:
        """Have ``widget`` select its choice group's rows in the browser (once per widget)."""
        name = choice_name(self, controls)
        linked = getattr(widget, "_pe_choices", set())
        if name in linked:
            return
        widget.jscallback(value=select_code(name, controls, strides), args=named)
        release_with_session(widget)
        if not linked:
            handle = widget._process_events
            page = weakref.ref(self)

            def from_browser(events: dict[str, Any]) -> None:
                owner = page()
                if owner is not None:
                    owner.choosing_in_browser += 1
                try:
                    handle(events)
                finally:
                    if owner is not None:
                        owner.choosing_in_browser -= 1

            widget._process_events = from_browser
        widget._pe_choices = linked | {name}

    def _extra_controls(self) -> list[Any]:
        """Anything the sidebar shows under the parameter widgets (buttons, notes)."""
        return []

    def sidebar(self) -> pn.viewable.Viewable:
        return self._wire(
            pn.Column(self.controls(), *self._extra_controls(), sizing_mode="stretch_width")
        )

    def _arrange(self, cards: list[pn.viewable.Viewable]) -> pn.viewable.Viewable:
        """How the figure cards are laid out (two columns by default)."""
        return pn.GridBox(*cards, ncols=2, sizing_mode="stretch_width")

    def content(self) -> pn.viewable.Viewable:
        """Intro, notice, figures and quick check (built once)."""
        if self._content is None:
            cards = [figure_card(fig) for fig in self._figures.values()]
            self._content = pn.Column(
                # The page's heading: level 2 under the site's title, above the
                # figure cards' level-3 titles (a screen reader's outline has no gap).
                pn.pane.HTML(
                    f"<h2>{html.escape(self.title)}</h2>",
                    stylesheets=[_PAGE_HEADING_CSS],
                    sizing_mode="stretch_width",
                    margin=(0, 10),
                ),
                pn.pane.HTML(f"<p>{self.intro}</p>", sizing_mode="stretch_width", margin=(0, 10)),
                notice_pane(self.param.notes, kind="warning", title="Some settings were changed:"),
                self._arrange(cards),
                *([quick_check_card(self._quick_check)] if self._quick_check else []),
                sizing_mode="stretch_width",
            )
            self._wire(self._content)
        return self._content

    def __panel__(self) -> pn.viewable.Viewable:
        if self._layout is None:
            self._layout = pn.Row(
                pn.Column(self.sidebar(), width=300),
                self.content(),
                sizing_mode="stretch_width",
            )
        return self._layout
