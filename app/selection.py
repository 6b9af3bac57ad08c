"""Controls that only *select* among rows already computed: the browser selects.

Moving a highlighted position should not cost a round trip: the rows drawn for
every value of the control are known as soon as the other controls are. A
mark declared with ``choice="t"`` gets :class:`Choices` in its frame; the
chart layer draws the chosen key's rows and ships the rows of every key (the
*candidates*) with the mark's data source, and a small ``CustomJS`` on the
control's widgets copies the chosen key's rows into the source: indexing,
never the math (that stays in :mod:`positional_core`).

- ``rows(keys)`` returns the mark's columns for every key in ``keys``,
  stacked, with a :data:`~app.marks.KEY` column naming each row's key.
- ``follow`` names properties that follow the choice too, each read from a
  column of the rows (``{"y_range.end": "__top"}``).
- ``gather`` draws an image by lookup: ``{"image": ("index", "table")}`` ships
  one short table per key and one index image, never an image per key.
- ``window`` ships one vector for a column whose rows for key ``k`` are the
  slice ``vector[origin + k·step:][:rows]``: ``{"dot": (vector, origin, step)}``.
  S3's PE(t)·PE(s) depends on s − t only, so every t's curve is a window of
  one vector of 2n − 1 values instead of n curves of n.
- Past :data:`CANDIDATE_BYTES` nothing is shipped (a key's rows estimate the
  weight before every key's rows are computed): the server draws each selection. Candidates
  ride along with every change of the controls they are computed from, so
  what a change sends stays bounded by what a figure shows, not by n × d.

Columns whose rows are the same for every key are not shipped: the browser
keeps them as drawn.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource
from panel.links import Callback

from .marks import KEY
from .sources import same_column, same_columns

__all__ = [
    "CANDIDATE_BYTES",
    "Choices",
    "release_with_session",
    "select_code",
    "select_in_browser",
    "ship",
]

Columns = dict[str, Any]

#: The most one mark's candidates may weigh (compacted). Above it a selection
#: costs a round trip (tens of ms); below it, a compute change of a page with
#: a few such marks stays within a few hundred kB. Every mark fits at the
#: defaults (the largest, RoPE's R2 angles, weighs 99 kB).
CANDIDATE_BYTES = 128_000

# Runs in the browser on every change of a choice control: for each source of
# this choice group, copy the candidate rows whose key is the new value.
_SELECT_JS = """
const doc = cb_obj.document;
if (doc == null) { return; }
for (const model of doc.all_models) {
  if (model.name !== NAME || model.tags.length === 0) { continue; }
  const candidates = model.tags[0].data;
  // Gathered columns: [drawn, index, table]; drawn = table looked up at each
  // cell of index, which the choice does not change (kept as drawn).
  // Windows: [column, origin, step, rows]; the column is a slice of one vector.
  const gather = model.tags[0].tags.filter((g) => g.length === 3);
  const windows = model.tags[0].tags.filter((g) => g.length === 4);
  const keys = candidates["__key"] ?? [];
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
  for (const [column, origin, step, rows] of windows) {
    const start = origin + value * step;
    out[column] = candidates[column].slice(start, start + rows);
  }
  // sync: false -- drawn here only (syncing the rows back cost a round trip before
  // the paint); the server learns the value from the widget and knows its copy of
  // these sources is stale (app/drawing.py).
  model.setv({data: out}, {sync: false});
  // Properties that follow the choice: triples (model, property, column).
  for (let k = 1; first >= 0 && k + 2 < model.tags.length; k += 3) {
    model.tags[k].setv({[model.tags[k + 1]]: candidates[model.tags[k + 2]][first]}, {sync: false});
  }
}
"""


def release_with_session(widget: Any) -> None:
    """Drop ``widget``'s browser callbacks from Panel's registry when its session ends.

    ``widget.jscallback`` files a ``Callback`` under the widget in
    ``panel.links.Callback.registry``, a WeakKeyDictionary whose value holds the
    widget itself: the key is never released, and with it every page of the
    session (about 1.3 MB of server memory per closed session, measured with
    ``benchmarks/endurance.py``). Outside a served session there is nothing to end.
    """
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return

    def forget(_session_context: Any) -> None:
        Callback.registry.pop(widget, None)

    doc.on_session_destroyed(forget)


def select_in_browser(
    page: Any, widget: Any, name: str, strides: tuple[int, ...], named: dict[str, Any]
) -> None:
    """Have ``widget`` select the rows of choice group ``name`` in the browser (once
    per widget); ``named`` maps the group's controls to their widgets here.

    While the server then handles the same change, ``page.choosing_in_browser``
    is positive: the server leaves the selection the browser already drew.
    """
    linked = getattr(widget, "_pe_choices", set())
    if name in linked:
        return
    widget.jscallback(value=select_code(name, tuple(named), strides), args=named)
    release_with_session(widget)
    if not linked:
        handle = widget._process_events
        owner_ref = weakref.ref(page)

        def from_browser(events: dict[str, Any]) -> None:
            owner = owner_ref()
            if owner is not None:
                owner.choosing_in_browser += 1
            try:
                handle(events)
            finally:
                if owner is not None:
                    owner.choosing_in_browser -= 1

        widget._process_events = from_browser
    widget._pe_choices = linked | {name}


def select_code(name: str, controls: tuple[str, ...], strides: tuple[int, ...]) -> str:
    """The ``CustomJS`` body for a choice group's widgets (named after their controls)."""
    key = " + ".join(f"{c}.value * {s}" for c, s in zip(controls, strides, strict=True))
    return f"const NAME = {name!r};\nconst value = {key};\n" + _SELECT_JS


@dataclass
class Choices:
    """A choice mark's rows for every key (see the module docstring).

    ``version``, when given, names what the rows are computed from (a tuple of
    control values): a new frame whose ``version`` equals the one drawn
    leaves the mark as it is, without computing its rows again.
    """

    keys: np.ndarray
    rows: Callable[[np.ndarray], Mapping[str, Any]]
    follow: Mapping[str, str] = field(default_factory=dict)
    gather: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    window: Mapping[str, tuple[Any, int, int]] = field(default_factory=dict)
    version: Any = None
    _shipped: dict = field(default_factory=dict, repr=False)

    def _draw(self, keys: np.ndarray) -> Columns:
        data = dict(self.rows(np.asarray(keys)))
        for drawn, (index, table) in self.gather.items():
            looked = np.empty(len(data[index]), dtype=object)
            looked[:] = [
                np.asarray(t)[np.asarray(c)] for t, c in zip(data[table], data[index], strict=True)
            ]
            data[drawn] = looked
        return data

    def chosen(self, key: int) -> Columns:
        """The rows of ``key`` (gathered columns looked up), with the ``__`` columns."""
        return self._draw(np.asarray([key]))

    def candidates(self, mark: Any) -> Columns | None:
        """What the browser selects from for ``mark`` (its source's columns, compact);
        None past :data:`CANDIDATE_BYTES`. Computed once per mark."""
        if id(mark) not in self._shipped:
            self._shipped[id(mark)] = self._candidates(mark)
        return self._shipped[id(mark)]

    def _candidates(self, mark: Any) -> Columns | None:
        keys = np.asarray(self.keys)
        if self.window and len(keys):
            return self._windows(mark, keys)
        # Every shipped cell weighs 4 bytes at least (float32, int32, the key):
        # a key's cells times the keys bound the weight before the rows are computed.
        if len(keys) == 0 or 4 * _cells(self._draw(keys[:1]), self._kept()) * len(keys) > (
            CANDIDATE_BYTES
        ):
            return None
        rows = dict(self.rows(keys))
        hidden = {k: v for k, v in rows.items() if k.startswith("__")}
        # A gathered column is never shipped: its index stands in for it here.
        rows.update({drawn: rows[index] for drawn, (index, _table) in self.gather.items()})
        data = {**mark.source_columns(rows), **hidden}
        same = _same_for_every_key(data, len(keys))
        shipped = _compact({k: v for k, v in data.items() if k not in same | self._kept()})
        return shipped if _nbytes(shipped) <= CANDIDATE_BYTES else None

    def _windows(self, mark: Any, keys: np.ndarray) -> Columns | None:
        """Each window's vector; the mark's other columns must not change with the key
        (checked on the first and last key: the browser keeps them as drawn)."""
        first, last = (mark.source_columns(self._draw(k)) for k in (keys[:1], keys[-1:]))
        for name, column in first.items():
            if name not in self.window and not same_column(column, last[name]):
                raise ValueError(f"column {name!r} changes with the key but is not a window")
        shipped = _compact({name: np.asarray(v) for name, (v, _o, _s) in self.window.items()})
        return shipped if _nbytes(shipped) <= CANDIDATE_BYTES else None

    def spec(self, chosen: Columns) -> list[list[Any]]:
        """What the browser code reads from the candidates' ``tags``: the gathered
        columns, then the windows (as long as the ``chosen`` rows)."""
        gathered = [[drawn, index, table] for drawn, (index, table) in self.gather.items()]
        windows = [
            [name, int(origin), int(step), len(chosen[name])]
            for name, (_vector, origin, step) in self.window.items()
        ]
        return gathered + windows

    def _kept(self) -> set[str]:
        """Columns the browser keeps as drawn: the gathered images and their indices."""
        return set(self.gather) | {index for index, _table in self.gather.values()}


def ship(source: ColumnDataSource, candidates: Columns | None, spec: list, followers: list) -> None:
    """Attach ``candidates`` to ``source`` (``tags``, read by the browser code with
    ``spec``, :meth:`Choices.spec`), or none: the server draws then."""
    if candidates is None or not all(column in candidates for _, _, column in followers):
        if source.tags:
            source.tags = []
        return
    triples = [item for model, prop, column in followers for item in (model, prop, column)]
    shipped = source.tags[0] if source.tags else None
    if isinstance(shipped, ColumnDataSource):
        if not same_columns(shipped.data, candidates):
            shipped.data = candidates
        if shipped.tags != spec:
            shipped.tags = spec
        if source.tags[1:] != triples:
            source.tags = [shipped, *triples]
    else:
        source.tags = [ColumnDataSource(candidates, tags=spec), *triples]


def _compact(data: Columns) -> Columns:
    """float32 and int32 halve the bytes (drawing and hover text only; the numbers
    a page states in text come from the server's float64). A column of images
    stays a list of arrays."""
    out: Columns = {}
    for name, column in data.items():
        if isinstance(column, list | tuple) or (
            isinstance(column, np.ndarray) and column.dtype.kind == "O"
        ):
            out[name] = [
                item.astype(np.float32)
                if isinstance(item, np.ndarray) and item.dtype.kind == "f"
                else item
                for item in column
            ]
            continue
        column = np.asarray(column)
        if column.dtype.kind == "f":
            column = column.astype(np.float32)
        elif column.dtype.kind in "iu" and column.size and np.abs(column).max() < 2**31:
            column = column.astype(np.int32)
        out[name] = column
    return out


def _nbytes(data: Columns) -> int:
    """Bytes of compacted columns (a column of images counts its images)."""
    total = 0
    for column in data.values():
        if isinstance(column, np.ndarray) and column.dtype.kind != "O":
            total += column.nbytes
        else:
            total += sum(np.asarray(item).nbytes for item in column)
    return total


def _cells(data: Columns, skip: set[str]) -> int:
    """Size of candidates: rows, plus the cells of columns that hold arrays (images)."""
    size = len(data[KEY])
    for name, column in data.items():
        if name not in skip and isinstance(column, np.ndarray) and column.dtype == object:
            size += sum(np.size(item) for item in column if isinstance(item, np.ndarray))
    return size


def _same_for_every_key(data: Columns, count: int) -> set[str]:
    """Plain columns whose rows repeat for every key (same number of rows per key)."""
    key = np.asarray(data[KEY])
    if count < 2 or len(key) == 0 or len(key) % count:
        return set()
    rows = len(key) // count
    blocks = key.reshape(count, rows)
    if not (blocks == blocks[:, :1]).all() or len(np.unique(blocks[:, 0])) != count:
        return set()
    same: set[str] = set()
    for name, column in data.items():
        column = np.asarray(column)
        if name.startswith("__") or column.ndim != 1:
            continue
        if column.dtype == object and any(isinstance(v, np.ndarray) for v in column[:rows]):
            continue
        table = column.reshape(count, rows)
        if bool((table == table[:1]).all()):
            same.add(name)
    return same
