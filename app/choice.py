"""Controls that only *select* among data already computed: the browser selects (issue 8).

Moving the highlighted position of a figure should not cost a round trip to
the server: the figure's data for every choice of the control is known as soon
as the other controls are. A :class:`BrowserChoice` ships those *candidates*
once, with the figure, and a small ``CustomJS`` on the control's widget copies
the rows of the chosen value into the drawn data source: indexing, never the
math (that stays in :mod:`positional_core`).

How a page uses it, for a control ``t``:

- each figure element that depends on ``t`` is drawn from ``columns(values)``:
  a function that returns the element's columns for an array of ``t`` values,
  stacked, with a ``"__key"`` column holding the ``t`` of each row;
- the element is built with :meth:`BrowserChoice.element` and its
  ``DynamicMap`` does *not* depend on ``t`` (only on what changes the
  candidates), so a new ``t`` re-renders nothing on the server;
- the browser draws the new ``t`` without sending data back (``setv`` with
  ``sync: false``); the server still hears of the new ``t`` from the widget
  (links, readouts), and :meth:`BrowserChoice.sync` sends the chosen rows only
  to the sources whose browser does not show them yet: none when the browser
  drew them, all when ``t`` was set in Python (a link, a rule, a test), and
  those left to the server (past ``limit``).

Columns whose rows are the same for every value of the control (a line's
name, its ends along x) are not shipped: the browser keeps them as drawn.

Past ``limit`` candidate rows a role is left to the server (``sync`` draws it),
so no control can make the page ship an unbounded table.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Mapping
from functools import partial
from typing import Any

import holoviews as hv
import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource

from .sources import per_document, same_columns

__all__ = ["KEY", "BrowserChoice", "release_with_session", "stack_choices"]

#: Column of the candidates that holds the control value a row belongs to.
KEY = "__key"

Columns = dict[str, np.ndarray]

# Runs in the browser on every change of the control's value: for each drawn
# source of this choice, copy the candidate rows whose key is the new value.
_SELECT_JS = """
const doc = cb_obj.document;
if (doc == null) { return; }
for (const model of doc.all_models) {
  if (model.name !== NAME || model.tags.length === 0) { continue; }
  const candidates = model.tags[0].data;
  // Gathered columns: [drawn column, index column, table column]; the drawn
  // column is the chosen row's table looked up at every cell of the index
  // column, which the choice does not change (kept as drawn).
  const gather = model.tags[0].tags;
  const keys = candidates["__key"];
  const out = {};
  const names = Object.keys(model.data);
  for (const name of names) { out[name] = name in candidates ? [] : model.data[name]; }
  const tables = gather.map(() => []);
  let first = -1;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== value) { continue; }
    if (first < 0) { first = i; }
    for (const name of names) {
      if (name in candidates) { out[name].push(candidates[name][i]); }
    }
    gather.forEach((g, n) => tables[n].push(candidates[g[2]][i]));
  }
  gather.forEach(([drawn, index], n) => {
    out[drawn] = out[index].map((cells, row) => {
      const table = tables[n][row];
      const looked = new table.constructor(cells.length, cells.shape);
      for (let k = 0; k < cells.length; k++) { looked[k] = table[cells[k]]; }
      return looked;
    });
  });
  // sync: false -- drawn here only; the server already has the candidates and
  // learns the new value from the widget, so nothing is sent back.
  model.setv({data: out}, {sync: false});
  // Properties that follow the choice (an axis end, a colour scale): triples
  // (model, property, column) after the candidates.
  for (let k = 1; first >= 0 && k + 2 < model.tags.length; k += 3) {
    model.tags[k].setv({[model.tags[k + 1]]: candidates[model.tags[k + 2]][first]}, {sync: false});
  }
}
"""


def stack_choices(values: np.ndarray, rows: Callable[[int], Mapping[str, Any]]) -> Columns:
    """Columns for several control values, stacked, from a one-value function.

    ``rows(v)`` returns the element's columns for one value ``v``; the result
    has them for every ``v`` in ``values``, plus :data:`KEY`. For functions
    that are not vectorised (the caller bounds ``len(values)``).
    """
    parts = [dict(rows(int(v))) for v in values]
    if not parts:
        return {KEY: np.zeros(0, dtype=np.int64)}
    names = list(parts[0])
    out: Columns = {}
    for name in names:
        out[name] = np.concatenate([np.asarray(p[name]) for p in parts])
    out[KEY] = np.concatenate(
        [np.full(len(np.asarray(p[names[0]])), int(v)) for v, p in zip(values, parts, strict=True)]
    )
    return out


def _compact(data: Columns) -> Columns:
    """Candidates as the browser needs them: float32 and int32 halve the bytes.

    (Only for drawing and hover text, shown to at most 4–6 digits; the numbers
    the page states in text come from the server's float64.)
    """
    out: Columns = {}
    for name, column in data.items():
        column = np.asarray(column)
        if column.dtype.kind == "f":
            column = column.astype(np.float32)
        elif column.dtype.kind in "iu" and column.size and np.abs(column).max() < 2**31:
            column = column.astype(np.int32)
        elif column.dtype == object:
            column = column.copy()
            for i, item in enumerate(column):
                if isinstance(item, np.ndarray) and item.dtype.kind == "f":
                    column[i] = item.astype(np.float32)
        out[name] = column
    return out


def _cells(data: Columns, skip: Collection[str] = ()) -> int:
    """Size of candidates: rows, plus the cells of columns that hold arrays (images)."""
    size = len(data[KEY])
    for name, column in data.items():
        if name in skip:
            continue
        if isinstance(column, np.ndarray) and column.dtype == object:
            size += sum(np.size(item) for item in column if isinstance(item, np.ndarray))
    return size


def _drawn_columns(full: Columns) -> Columns:
    """The columns a source draws: without the candidates' own (``__key``, ...)."""
    return {k: v for k, v in full.items() if not k.startswith("__")}


def _fitted(source: Any, data: Columns) -> Columns:
    """``data`` cut to the columns ``source`` draws, when it has them all.

    HoloViews draws some of a role's columns only through a style (a label's
    ``align`` as ``text_align``) and leaves the others out: redrawn here, the
    source keeps its own set of columns, as the browser's selection does.
    """
    drawn = set(source.data)
    if drawn and drawn <= set(data):
        return {k: v for k, v in data.items() if k in drawn}
    return data


def _same_for_every_key(data: Columns, keys: np.ndarray) -> set[str]:
    """Drawn columns whose rows are the same for every key: not shipped.

    The browser keeps a column the candidates lack as it is drawn (a method's
    name, a label's alignment, the end points of a line along x). Only when
    every key has the same number of rows, in contiguous blocks, and the
    column holds plain values (not images).
    """
    key = np.asarray(data[KEY])
    if len(keys) < 2 or len(key) == 0 or len(key) % len(keys):
        return set()
    rows = len(key) // len(keys)
    blocks = key.reshape(len(keys), rows)
    if not (blocks == blocks[:, :1]).all() or len(np.unique(blocks[:, 0])) != len(keys):
        return set()
    same: set[str] = set()
    for name, column in data.items():
        if name.startswith("__"):
            continue
        column = np.asarray(column)
        if column.ndim != 1 or any(isinstance(item, np.ndarray) for item in column[:rows]):
            continue
        table = column.reshape(len(keys), rows)
        if bool((table == table[:1]).all()):
            same.add(name)
    return same


def release_with_session(widget: pn.widgets.Widget) -> None:
    """Drop ``widget``'s browser callbacks from Panel's registry when its session ends.

    ``widget.jscallback`` files a ``Callback`` under the widget in
    ``panel.links.Callback.registry``, a WeakKeyDictionary whose value holds the
    widget itself (``source``, and ``args`` here): the key is never released,
    and with it every page of the session. Measured with
    ``benchmarks/endurance.py``: about 1.3 MB of server memory per closed
    session, for good. Outside a served session there is nothing to end.
    """
    from panel.links import Callback

    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return

    def forget(_session_context: Any) -> None:
        Callback.registry.pop(widget, None)

    doc.on_session_destroyed(forget)


class BrowserChoice:
    """The figures of one selection control, selected in the browser (see module docs).

    ``value`` returns the current key: the control's value, or for several
    controls Σ value_k · strides_k (``BrowserChoice(("head", "row"), lambda:
    128 * head + row, strides=(128, 1))``). ``limit`` bounds the candidate rows
    shipped per role.
    """

    def __init__(
        self,
        control: str | tuple[str, ...],
        value: Callable[[], int],
        *,
        strides: tuple[int, ...] = (1,),
        limit: int = 2**17,
        by_figure: bool = False,
    ) -> None:
        #: The controls whose values make the key: key = Σ value_k · strides_k.
        self.controls = (control,) if isinstance(control, str) else tuple(control)
        if len(strides) != len(self.controls):
            raise ValueError("one stride per control")
        self.strides = strides
        self.limit = limit
        self._value = value
        self._follow: dict[str, dict[str, tuple[str, str]]] = {}
        self._followers: dict[int, list[tuple[Any, str, str]]] = {}
        self._gather: dict[str, dict[str, tuple[str, str]]] = {}
        #: Roles drawn on Bokeh's overlay level (see element's ``on_top``).
        self._on_top: dict[str, bool] = {}
        #: See figure_hook: the data of each role's latest frame.
        self._by_figure = by_figure
        self._frames: dict[str, Any] = {}
        #: The key each drawn source shows in the browser (by id of the source):
        #: the browser draws without telling the server, so this, not the
        #: server's copy of the data, says what a browser shows.
        self._shown: dict[int, int] = {}
        self.name = f"pe-choice:{'-'.join(self.controls)}:{id(self):x}"
        self._columns: dict[str, Callable[[np.ndarray], Columns]] = {}
        self._choices: dict[str, Callable[[], np.ndarray]] = {}
        self._sources: dict[str, list[weakref.ref[Any]]] = {}
        #: Per role: (key, generation) its latest element was built for. A
        #: DynamicMap hands a new plot its memoized frame (a page shown again),
        #: so a plot can be built from an element older than the current key,
        #: or than the latest refresh (the generation counts them).
        self._built: dict[str, tuple[int, int]] = {}
        self._generation: dict[str, int] = {}
        #: > 0 while the server handles a change made in the browser.
        self._from_browser = 0

    # ----------------------------------------------------------- building
    def element(
        self,
        role: str,
        kind: Callable[..., hv.Element],
        columns: Callable[[np.ndarray], Columns],
        choices: Callable[[], np.ndarray],
        follow: Mapping[str, Mapping[str, str]] | None = None,
        gather: Mapping[str, tuple[str, str]] | None = None,
        on_top: bool = False,
        **dims: Any,
    ) -> hv.Element:
        """The element drawing ``role`` for the current value, with its candidates attached.

        ``kind`` is the HoloViews element type, ``columns(values)`` the stacked
        columns for control values ``values`` (with :data:`KEY`), ``choices()``
        every value the control can take now (e.g. ``range(n)``); ``dims`` go
        to the element (``kdims``, ``vdims``, ``label``). ``follow`` names
        properties of the plot's models that follow the choice too, as
        ``{handle: {property: column}}`` (``{"y_range": {"end": "__y_end"}}``):
        the column holds the value for each row's key.

        ``gather`` draws image columns by lookup, as ``{drawn: (index, table)}``:
        ``columns`` returns, per row, ``index``, an integer image that does not
        change with the choice (T5's bucket of every cell), and ``table``, a
        short vector (that head's bias per bucket); the drawn column is
        ``table[index]``, cell by cell, here and in the browser. Only the
        tables are shipped, never an image per choice.

        ``on_top`` draws the role on Bokeh's overlay level, above everything
        else in its figure: a change that only touches such roles redraws
        the figure's overlay layer, not its whole canvas. For marks
        (outlines, pointers, the selected line), never for the figure's
        main data, unless the figure has no legend inside its frame: the
        overlay layer is drawn above a legend, whatever its level.
        """
        self._columns[role] = columns
        self._choices[role] = choices
        self._follow[role] = {k: dict(v) for k, v in (follow or {}).items()}
        self._gather[role] = dict(gather or {})
        self._on_top[role] = on_top
        key = int(self._value())
        self._built[role] = (key, self._generation.get(role, 0))
        element = kind(self._chosen(role, key), **dims)
        if self._by_figure:
            # Found by figure_hook from the frame's data: no options per frame.
            self._frames[role] = element.data
            return element
        return element.opts(hooks=[self._hook(role)])

    def figure_hook(self) -> Callable[[Any, Any], None]:
        """A hook for the figure's options, set once, that attaches every role it draws.

        Setting the attaching hook as an option of each new element (the
        default) makes HoloViews build option trees for those elements on
        every frame: measured on Context extension, ~65 ms per change of its
        figures. A page that lists this hook in its figures' options (set on
        the ``DynamicMap`` once) and builds the choice with
        ``by_figure=True`` avoids that: the hook finds each role's plot by the
        data of the frame it draws.
        """
        me = weakref.ref(self)

        def attach(plot: Any, element: Any) -> None:
            owner = me()
            if owner is None:
                return
            plots = [plot, *getattr(plot, "subplots", {}).values()]
            for sub in plots:
                frame, source = getattr(sub, "current_frame", None), sub.handles.get("source")
                if frame is None or source is None:
                    continue
                for role, data in owner._frames.items():
                    if frame.data is data:
                        owner._hook(role)(sub, frame)

        return attach

    def _draw(self, role: str, values: np.ndarray) -> Columns:
        """The columns drawn for ``values``: ``columns(values)``, gathered columns looked up."""
        data = dict(self._columns[role](values))
        for drawn, (index, table) in self._gather[role].items():
            looked = np.empty(len(data[index]), dtype=object)
            looked[:] = [
                np.asarray(t)[np.asarray(cells)]
                for t, cells in zip(data[table], data[index], strict=True)
            ]
            data[drawn] = looked
        return data

    def _kept(self, role: str) -> set[str]:
        """Columns the browser keeps as drawn: the gathered ones and their indices."""
        gather = self._gather[role]
        return set(gather) | {index for index, _table in gather.values()}

    def _chosen(self, role: str, key: int) -> Columns:
        return _drawn_columns(self._draw(role, np.asarray([key])))

    def _follower_values(self, source: Any, full: Columns) -> list[tuple[Any, str, Any]]:
        return [
            (model, prop, full[column][0])
            for model, prop, column in self._followers.get(id(source), [])
            if len(full[column])
        ]

    def _hook(self, role: str) -> Callable[[Any, Any], None]:
        me = weakref.ref(self)

        def attach(plot: Any, element: Any) -> None:
            owner, source = me(), plot.handles.get("source")
            if owner is None or source is None:
                return
            followers = [
                (plot.handles[handle], prop, column)
                for handle, props in owner._follow[role].items()
                if plot.handles.get(handle) is not None
                for prop, column in props.items()
            ]
            renderer = plot.handles.get("glyph_renderer")
            if owner._on_top.get(role) and renderer is not None:
                # Bokeh redraws only a figure's overlay layer when every
                # renderer that changed sits there (app/static/overlay.js
                # clips that level to the frame).
                renderer.level = "overlay"
            owner._attach(role, source, followers)

        return attach

    def _attach(
        self, role: str, source: ColumnDataSource, followers: list[tuple[Any, str, str]]
    ) -> None:
        source.name = self.name
        self._followers[id(source)] = followers
        key = int(self._value())
        if self._built.get(role) != (key, self._generation.get(role, 0)):
            # Maybe drawn from an outdated element (see _built): draw the current
            # one, sending only what differs.
            full = self._draw(role, np.asarray([key]))
            data = _fitted(source, _drawn_columns(full))
            if not same_columns(source.data, data):
                source.data = data
            for model, prop, value in self._follower_values(source, full):
                if getattr(model, prop) != value:
                    setattr(model, prop, value)
        self._shown[id(source)] = key
        refs = self._sources.setdefault(role, [])
        if not any(ref() is source for ref in refs):
            refs.append(weakref.ref(source))
        values = np.asarray(self._choices[role]())
        kept = self._kept(role)
        data: Columns | None = None
        if len(values) > 0 and self._rows_estimate(role, values) <= self.limit:
            data = self._columns[role](values)
            if _cells(data, kept) > self.limit or not set(source.data) - kept <= set(data):
                data = None
        if data is None or not all(column in data for _, _, column in followers):
            source.tags = []
            return
        same = _same_for_every_key(data, keys=values)
        data = _compact({k: v for k, v in data.items() if k not in kept and k not in same})
        gather = [[drawn, index, table] for drawn, (index, table) in self._gather[role].items()]
        triples = [item for model, prop, column in followers for item in (model, prop, column)]
        if source.tags and isinstance(source.tags[0], ColumnDataSource):
            source.tags[0].data = data
            source.tags[0].tags = gather
            if source.tags[1:] != triples:
                source.tags = [source.tags[0], *triples]
        else:
            source.tags = [ColumnDataSource(data, tags=gather), *triples]

    def _rows_estimate(self, role: str, values: np.ndarray) -> int:
        return _cells(self._columns[role](values[:1]), self._kept(role)) * len(values)

    # ------------------------------------------------------------ browser
    def code(self) -> str:
        """The ``CustomJS`` body for the controls' widgets (``value`` callback).

        The widgets are its arguments, named after the controls.
        """
        key = " + ".join(
            f"{name}.value * {stride}"
            for name, stride in zip(self.controls, self.strides, strict=True)
        )
        return f"const NAME = {self.name!r};\nconst value = {key};\n" + _SELECT_JS

    def link(self, widget: pn.widgets.Widget, widgets: Mapping[str, pn.widgets.Widget]) -> None:
        """Have ``widget`` select in the browser (once per widget).

        The server handles the widget's changes as usual (links, readouts),
        but knows they come from the browser: :meth:`sync` then leaves the
        sources that carry candidates alone (the browser has drawn them, and
        its copy of the data may reach the server after the value does).
        """
        linked = getattr(widget, "_choices_linked", set())
        if self.name in linked:
            return
        widget.jscallback(value=self.code(), args=dict(widgets))
        release_with_session(widget)
        handle = widget._process_events

        def from_browser(events: dict[str, Any]) -> None:
            self._from_browser += 1
            try:
                handle(events)
            finally:
                self._from_browser -= 1

        widget._process_events = from_browser
        widget._choices_linked = linked | {self.name}

    def has_candidates(self, role: str) -> bool:
        """True when every drawn source of ``role`` carries its candidates."""
        sources = self.sources(role)
        return bool(sources) and all(s.tags for s in sources)

    # ------------------------------------------------------------- server
    def sources(self, role: str) -> list[ColumnDataSource]:
        alive = [ref for ref in self._sources.get(role, []) if ref() is not None]
        self._sources[role] = alive
        return [ref() for ref in alive]

    def sync(self) -> None:
        """Draw the current value in every source whose browser does not show it yet."""
        key = int(self._value())
        changes: list[tuple[Any, Callable[[], None]]] = []
        for role in self._columns:
            sources = self.sources(role)
            full: Columns | None = None
            for source in sources:
                if self._from_browser and source.tags:
                    self._shown[id(source)] = key  # the browser drew it already
                    continue
                if self._shown.get(id(source)) == key:
                    continue
                if full is None:
                    full = self._draw(role, np.asarray([key]))
                data = _fitted(source, _drawn_columns(full))
                props = self._follower_values(source, full)
                self._shown[id(source)] = key

                def draw(source: Any = source, data: Columns = data, props: Any = props) -> None:
                    source.data = dict(data)
                    for model, prop, value in props:
                        setattr(model, prop, value)

                changes.append((source, draw))
        per_document(changes)

    def refresh(self, *roles: str) -> None:
        """Redraw ``roles`` and ship their candidates again, without HoloViews.

        For a control that changes only *which* values can be chosen, or the
        rows drawn for them (Sinusoidal's n: one more position), when the
        element's type, dimensions and its figure's ranges stay as they are:
        the role's ``DynamicMap`` need not depend on that control, and its
        sources are replaced in place (measured on Sinusoidal's n, in-process
        CPU per change: 333–347 ms re-rendering three figures, 90 ms now).
        """
        changes: list[tuple[Any, Callable[[], None]]] = []
        for role in roles:
            # A new generation: _attach redraws each source, then ships the candidates.
            self._generation[role] = self._generation.get(role, 0) + 1
            for source in self.sources(role):
                followers = self._followers.get(id(source), [])
                changes.append(
                    (source, partial(self._attach, role, source, followers)),
                )
        per_document(changes)
