"""A figure declared once: its marks, its options, and one pure ``frame`` method.

A chart is a class::

    class Slopes(Chart):                           # ALiBi A1: one slope per head
        title = "A1 · One slope per head"
        depends = ("heads",)
        marks = {"points": Mark(hv.Points, ("h", "slope"), ("half_life",), style=...),
                 "ring": Mark(hv.Points, ("h", "slope"), choice="head", on_top=True)}
        options = plot_opts(height=310, logy=True)

        def frame(self, p):                        # the page's state in, columns out
            m = alibi_slopes(p.heads)
            return Frame(points=dict(h=..., slope=m, half_life=...), ring=Choices(...),
                         x=padded(1, p.heads), y=padded(m.min(), m.max(), log=True))

Everything else is derived from that declaration by :class:`Drawing`, the
chart on one page:

- **the first draw** is a HoloViews overlay of the marks' elements
  (:meth:`Drawing.element`), so exports and notebooks draw it as any
  HoloViews object; a hook then brings the plot to the current frame;
- **every later change** of a control in ``depends`` computes the frame and
  sends what differs from what each plot shows: changed columns, ranges,
  colour scales, legend labels, glyph properties. No HoloViews element is
  built and HoloViews' update never runs: there is one way for a figure to
  change on screen;
- a mark with ``choice`` is selected in the browser from candidates shipped
  with it (:mod:`app.selection`); the server draws it only when the control
  was set from Python or the candidates were too large to ship;
- ``zoomed`` (optional) redraws marks for the view after a zoom or pan;
  ``dragged`` (optional) turns the points of a ``drag`` mark into control values.

tests/app/test_charts.py checks, for every chart of every page and random
states, that a plot changed in place draws exactly what a plot built fresh
at the same state draws.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import holoviews as hv
import numpy as np
from bokeh.core.property.validation import validate
from bokeh.core.property.vectorization import field
from bokeh.core.property.vectorization import value as fixed_value
from bokeh.events import RangesUpdate
from bokeh.models import ColorBar, CustomJS, FactorRange, FixedTicker, Legend, LinearColorMapper
from holoviews.core.util import range_pad

from .marks import KEY, Mark, Scale
from .selection import Choices, ship
from .sources import per_document, same_column

__all__ = ["Chart", "Drawing", "Frame", "padded"]

_GLYPHS = ("glyph", "selection_glyph", "nonselection_glyph", "hover_glyph", "muted_glyph")


def padded(low: float, high: float, *, log: bool = False, padding: float = 0.1) -> tuple:
    """``(low, high)`` widened by ``padding`` of the span each way (of its decades on a
    log axis), as HoloViews pads a data range."""
    start, end = range_pad(float(low), float(high), padding, log)
    return float(start), float(end)


class Frame:
    """A chart's frame: each mark's columns (or :class:`Choices`), and the figure's state.

    ``x``/``y``: an axis' ``(start, end)``, or its factors (a list) on a
    categorical axis; None leaves the axis as it is. ``scales``: a mark's
    colour scale, ``{"mark": {"low": 0, "high": 1, "palette": [...]}}``.
    ``props``: glyph properties per mark (``{"label": {"text_align": "left"}}``).
    ``labels``: legend labels per mark. ``x_ticks``/``y_ticks``: tick values.
    """

    def __init__(
        self,
        *,
        x: tuple[float, float] | list[str] | None = None,
        y: tuple[float, float] | list[str] | None = None,
        x_label: str | None = None,
        y_label: str | None = None,
        x_ticks: list[float] | None = None,
        y_ticks: list[float] | None = None,
        scales: Mapping[str, Mapping[str, Any]] | None = None,
        props: Mapping[str, Mapping[str, Any]] | None = None,
        labels: Mapping[str, str] | None = None,
        **marks: Mapping[str, Any] | Choices,
    ) -> None:
        self.marks = marks
        self.x, self.y, self.x_label, self.y_label = x, y, x_label, y_label
        self.x_ticks, self.y_ticks = x_ticks, y_ticks
        self.scales = dict(scales or {})
        self.props = dict(props or {})
        self.labels = dict(labels or {})


class Chart:
    """A figure's declaration (see the module docstring). Subclasses set the class
    attributes and :meth:`frame`; the rest is optional."""

    title: ClassVar[str] = ""
    caption: ClassVar[str] = ""
    formula: ClassVar[str] = ""
    #: The controls whose change computes a new frame.
    depends: ClassVar[tuple[str, ...]] = ()
    marks: ClassVar[dict[str, Mark]] = {}
    #: The figure's HoloViews plot options (height, log axes, legend).
    options: ClassVar[dict[str, Any]] = {}
    #: The controls the readout under the figure depends on (None: no readout).
    readout_depends: ClassVar[tuple[str, ...] | None] = None
    #: A quick-check question about this figure ("" for none), and the controls
    #: its computed answer follows.
    question: ClassVar[str] = ""
    answer_depends: ClassVar[tuple[str, ...]] = ()

    def frame(self, p: Any) -> Frame:
        raise NotImplementedError

    def readout(self, p: Any) -> str:
        """HTML of exact numbers under the figure (escape anything a user typed)."""
        return ""

    def answer(self, p: Any) -> str:
        """HTML of the quick check's answer, computed by the core."""
        return ""

    def zoomed(self, p: Any, x: tuple[float, float], y: tuple[float, float]) -> Frame | None:
        """Marks to redraw for the view ``x``, ``y`` after a zoom or pan (no axes)."""
        return None

    def dragged(self, p: Any, mark: str, data: Mapping[str, list]) -> dict[str, Any]:
        """Control values for the points of ``mark`` the reader dragged to ``data``."""
        return {}

    def extras(self, p: Any) -> list[Any]:
        """Panes shown under the readout (a table)."""
        return []

    def readout_depends_on(self, page: Any) -> list[Any]:
        """The page parameters the readout follows (for ``pn.bind``)."""
        return [page.param[name] for name in self.readout_depends or ()]

    @classmethod
    def choices(cls) -> dict[tuple[str, ...], tuple[int, ...]]:
        """The choice groups of the marks: controls → strides."""
        return {m.choice: m.strides for m in cls.marks.values() if m.choice}

    @classmethod
    def controls(cls) -> set[str]:
        """Every control that changes the figure or its readout."""
        names = set(cls.depends) | set(cls.readout_depends or ())
        return names | {c for group in cls.choices() for c in group}


def choice_name(page: Any, controls: tuple[str, ...]) -> str:
    """The name a choice group's sources carry (the browser finds them by it)."""
    return f"pe-choice:{'-'.join(controls)}:{id(page):x}"


class Drawing:
    """A chart on one page: its element, every plot drawn from it, and each change."""

    def __init__(self, chart: Chart, page: Any) -> None:
        self.chart = chart
        self._page = weakref.ref(page)
        self._plots: list[weakref.ref] = []
        self._memo: tuple[tuple, Frame] | None = None
        self._streams: list[Any] = []
        #: The mark being dragged: its points follow the mouse, not the server.
        self._dragging: str | None = None
        if chart.depends:
            page.param.watch(self._changed, list(chart.depends))
        for group in chart.choices():
            page.param.watch(lambda *_e, g=group: self._chosen(g), list(group))

    @property
    def page(self) -> Any:
        return self._page()

    def frame(self) -> Frame:
        """The current frame, computed once per state of ``depends``."""
        page = self.page
        key = tuple(getattr(page, name) for name in self.chart.depends)
        if self._memo is None or not _same_key(self._memo[0], key):
            self._memo = (key, self.chart.frame(page))
        return self._memo[1]

    # ----------------------------------------------------------- first draw
    def element(self) -> hv.Overlay:
        """The figure as HoloViews draws it first (a fresh element for each pane)."""
        frame = self.frame()
        self._check_stated(frame)
        layers = []
        for name, mark in self.chart.marks.items():
            columns = self._columns(name, mark, frame.marks[name])
            # A function stands for a value of the session's theme (``text_color``).
            style = {k: v() if callable(v) else v for k, v in mark.style.items()}
            if mark.hover:
                style["hover_formatters"] = {k: make() for k, make in mark.hover.items()}
            # A mark with a legend entry always has one (hidden while its label is "").
            label = frame.labels[name] or " " if name in frame.labels else ""
            element = mark.element(columns, label)
            layers.append(element.opts(**style) if style else element)
            if mark.drag:
                self._drag_streams(name, element, len(columns[mark.names[0]]))
        me = weakref.ref(self)

        def attach(plot: Any, _element: Any) -> None:
            drawing = me()
            if drawing is not None:
                drawing._attach(plot)

        return hv.Overlay(layers).opts(hooks=[attach], **self.chart.options)

    def drawn(self, mark: str) -> dict[str, Any]:
        """The columns ``mark`` draws for the page's state now (a choice: the chosen rows)."""
        spec = self.chart.marks[mark]
        return spec.source_columns(self._columns(mark, spec, self.frame().marks[mark]))

    def _columns(self, name: str, mark: Mark, data: Any) -> Mapping[str, Any]:
        if isinstance(data, Choices):
            return data.chosen(self._key(mark))
        return data

    def _key(self, mark: Mark) -> int:
        page = self.page
        return int(
            sum(getattr(page, c) * s for c, s in zip(mark.choice, mark.strides, strict=True))
        )

    def _attach(self, plot: Any) -> None:
        """A plot of this chart was built: set it up once, then draw the current frame."""
        if any(ref() is plot for ref in self._plots):
            return
        self._plots.append(weakref.ref(plot))
        subs = _subplots(plot)
        for (name, mark), sub in zip(self.chart.marks.items(), subs, strict=True):
            renderer = sub.handles.get("glyph_renderer")
            if renderer is None:
                raise ValueError(f"{type(self.chart).__name__}.{name}: no data source to draw")
            if mark.on_top:
                renderer.level = "overlay"
            if mark.choice:
                renderer.data_source.name = choice_name(self.page, mark.choice)
            _map_fields(plot, sub, mark)
            if mark.drag:
                _send_while_dragging(plot.state, renderer.data_source)
        if type(self.chart).zoomed is not Chart.zoomed:
            self._listen_to_zoom(plot)
        self._send(plot, self.frame(), first=True)

    def _check_stated(self, frame: Frame) -> None:
        """Refuse a chart that leaves to HoloViews what it derives from the first
        frame's data alone (an axis, a colour scale): it would not follow a change."""
        options = self.chart.options
        followed = {
            target
            for data in frame.marks.values()
            if isinstance(data, Choices)
            for target in data.follow
        }
        for axis in ("x", "y"):
            stated = getattr(frame, axis) is not None or f"{axis}lim" in options
            if not stated and not {f"{axis}_range.start", f"{axis}_range.end"} <= followed:
                raise ValueError(f"{type(self.chart).__name__}: state the {axis} axis")
        for name, mark in self.chart.marks.items():
            if not (mark.is_image or "cmap" in mark.style) or "clim" in mark.style:
                continue
            stated = set(frame.scales.get(name, {})) | {
                target.split(".")[1] for target in followed if target.startswith("color_mapper")
            }
            if not {"low", "high"} <= stated:
                raise ValueError(f"{type(self.chart).__name__}.{name}: state its colour scale")

    # ------------------------------------------------------------ changes
    def _changed(self, *_events: Any) -> None:
        frame = self.frame()
        skip = (self._dragging,) if self._dragging else ()
        for plot in self.plots():
            self._send(plot, frame, skip=skip)

    def _chosen(self, group: tuple[str, ...]) -> None:
        """A choice control moved: draw its marks where the browser has not."""
        page, frame = self.page, self.frame()
        in_browser = getattr(page, "choosing_in_browser", 0) > 0
        names = [n for n, m in self.chart.marks.items() if m.choice == group]
        for plot in self.plots():
            subs = dict(zip(self.chart.marks, _subplots(plot), strict=True))
            # Drawn in the browser from its candidates (and synced back to the server).
            left = [n for n in names if not (in_browser and subs[n].handles["source"].tags)]
            if left:
                self._send(plot, Frame(**{n: frame.marks[n] for n in left}), ship_rows=False)

    def plots(self) -> list[Any]:
        """The live plots of this chart (in a document)."""
        alive = []
        for ref in self._plots:
            plot = ref()
            if plot is not None and plot.state.document is not None:
                alive.append(ref)
        self._plots = alive
        return [ref() for ref in alive]

    def _send(
        self, plot: Any, frame: Frame, *, first: bool = False, skip: tuple = (), ship_rows=True
    ) -> None:
        """Draw ``frame`` into ``plot``: only what differs from what it shows."""
        changes: list[tuple[Any, Callable[[], None]]] = []
        subs = dict(zip(self.chart.marks, _subplots(plot), strict=True))
        for name, data in frame.marks.items():
            mark, sub = self.chart.marks[name], subs[name]
            if name in skip:
                continue
            if isinstance(data, Choices):
                data = self._choice_changes(plot, sub, mark, data, first, ship_rows, changes)
                if data is None:
                    continue
            changes += _column_changes(sub.handles["source"], mark.source_columns(data), first)
            changes += _mark_changes(plot, sub, name, frame)
        changes.append((plot.state, lambda: _figure_changes(plot, frame)))
        per_document(changes)

    def _choice_changes(
        self,
        plot: Any,
        sub: Any,
        mark: Mark,
        data: Choices,
        first: bool,
        ship_rows: bool,
        changes: list,
    ) -> Mapping[str, Any] | None:
        """The chosen rows of a choice mark (None: drawn already), its candidates and
        followers added to ``changes``."""
        source = sub.handles["source"]
        versions = sub.handles.setdefault("pe_versions", {})
        if (
            ship_rows
            and not first
            and data.version is not None
            and versions.get("rows") == (data.version)
        ):
            return None
        versions["rows"] = data.version
        chosen = data.chosen(self._key(mark))
        followers = _followers(plot, sub, data.follow)
        if ship_rows:
            candidates = data.candidates(mark)
            changes.append((source, lambda: ship(source, candidates, data.gather, followers)))
        for model, prop, column in followers:
            if len(chosen[column]):
                changes.append((model, lambda m=model, p=prop, v=chosen[column][0]: _set(m, p, v)))
        return chosen

    # ------------------------------------------------------ zoom and drag
    def _listen_to_zoom(self, plot: Any) -> None:
        me, shown = weakref.ref(self), weakref.ref(plot)

        def on_ranges(event: RangesUpdate) -> None:
            drawing, target = me(), shown()
            if drawing is None or target is None or None in (event.y0, event.y1):
                return
            frame = drawing.chart.zoomed(drawing.page, (event.x0, event.x1), (event.y0, event.y1))
            if frame is not None:
                drawing._send(target, frame, ship_rows=False)

        plot.state.on_event(RangesUpdate, on_ranges)

    def _drag_streams(self, name: str, element: hv.Element, count: int) -> None:
        me = weakref.ref(self)
        drag = hv.streams.PointDraw(source=element, num_objects=count, add=False, drag=True)
        end = hv.streams.PanEnd(source=element)

        def moved(data: Mapping[str, list] | None = None, **_: Any) -> None:
            drawing = me()
            if drawing is not None and data:
                drawing._dragged(name, data)

        def released(**_: Any) -> None:
            drawing = me()
            if drawing is not None:
                for plot in drawing.plots():
                    drawing._send(plot, Frame(**{name: drawing.frame().marks[name]}), first=True)

        drag.add_subscriber(moved)
        end.add_subscriber(released)
        self._streams = [*self._streams[-6:], drag, end]

    def _dragged(self, name: str, data: Mapping[str, list]) -> None:
        page = self.page
        values = self.chart.dragged(page, name, data)
        changed = {k: v for k, v in values.items() if getattr(page, k) != v}
        if not changed:
            for plot in self.plots():  # an unreadable drag: put the points back
                self._send(plot, Frame(**{name: self.frame().marks[name]}), first=True)
            return
        self._dragging = name
        try:
            page.param.update(changed)
        finally:
            self._dragging = None


# -------------------------------------------------------------- helpers
def _same_key(a: tuple, b: tuple) -> bool:
    try:
        return a == b
    except (TypeError, ValueError):
        return False


def _subplots(plot: Any) -> list[Any]:
    """The overlay's layer plots in the order of its marks."""
    return sorted(plot.subplots.values(), key=lambda sub: sub.zorder)


def _set(model: Any, prop: str, value: Any) -> None:
    if getattr(model, prop) != value:
        setattr(model, prop, value)


def _column_changes(source: Any, data: dict[str, Any], whole: bool) -> list:
    """Send the columns of ``data`` that differ from ``source``'s (all when the set or
    the lengths change: Bokeh refuses columns of unequal lengths)."""
    drawn = source.data
    lengths = {len(column) for column in data.values()}
    if whole or set(drawn) != set(data) or lengths != {len(c) for c in drawn.values()}:
        return [(source, lambda: setattr(source, "data", data))]
    changed = {k: v for k, v in data.items() if not same_column(drawn[k], v)}
    if not changed:
        return []

    def update() -> None:
        with validate(False):
            source.data.update(changed)

    return [(source, update)]


def _mapper(sub: Any) -> Any:
    return sub.handles.get("pe_color_mapper") or sub.handles.get("color_mapper")


def _label(item: Any, label: str) -> None:
    if label:
        _set(item, "label", fixed_value(label))  # a plain string would name a column
    _set(item, "visible", bool(label))


def _mark_changes(plot: Any, sub: Any, name: str, frame: Frame) -> list:
    changes: list[tuple[Any, Callable[[], None]]] = []
    renderer = sub.handles["glyph_renderer"]
    scale = frame.scales.get(name)
    if scale and _mapper(sub) is not None:
        mapper = _mapper(sub)
        changes += [
            (mapper, lambda k=k, v=v: _set(mapper, k, list(v) if k == "palette" else v))
            for k, v in scale.items()
        ]
    for prop, value in frame.props.get(name, {}).items():
        changes.append((renderer, lambda p=prop, v=value: _set(renderer.glyph, p, v)))
    label = frame.labels.get(name)
    if label is not None:
        if "pe_legend_items" not in plot.handles:
            plot.handles["pe_legend_items"] = [
                item for legend in plot.state.select(type=Legend) for item in legend.items
            ]
        for item in plot.handles["pe_legend_items"]:
            if renderer in item.renderers:
                # An empty label hides the item (a mark with no rows in this state).
                changes.append((item, lambda i=item: _label(i, label)))
    return changes


def _figure_changes(plot: Any, frame: Frame) -> None:
    figure = plot.state
    for axis, ends, label, ticks in (
        ("x", frame.x, frame.x_label, frame.x_ticks),
        ("y", frame.y, frame.y_label, frame.y_ticks),
    ):
        bounds = getattr(figure, f"{axis}_range")
        if isinstance(ends, list) and isinstance(bounds, FactorRange):
            _set(bounds, "factors", ends)
        elif ends is not None:
            start, end = (float(v) for v in ends)
            if getattr(plot, f"invert_{axis}axis"):
                start, end = end, start
            bounds.update(
                **{
                    k: v
                    for k, v in (
                        ("start", start),
                        ("end", end),
                        ("reset_start", start),
                        ("reset_end", end),
                    )
                    if getattr(bounds, k) != v
                }
            )
        for model in getattr(figure, f"{axis}axis"):
            if label is not None:
                _set(model, "axis_label", label)
            if ticks is not None:
                if isinstance(model.ticker, FixedTicker):
                    _set(model.ticker, "ticks", list(ticks))
                else:
                    model.ticker = FixedTicker(ticks=list(ticks))


def _followers(plot: Any, sub: Any, follow: Mapping[str, str]) -> list[tuple[Any, str, str]]:
    """``{"y_range.end": column}`` as (model, property, column) triples."""
    out = []
    for target, column in follow.items():
        handle, prop = target.split(".")
        model = _mapper(sub) if handle == "color_mapper" else getattr(plot.state, handle)
        out.append((model, prop, column))
    return out


def _map_fields(plot: Any, sub: Any, mark: Mark) -> None:
    """Point the mark's glyph properties at their columns (``Mark.fields``)."""
    renderer = sub.handles["glyph_renderer"]
    for prop, value in mark.glyph_fields().items():
        if isinstance(value, Scale):
            mapper = sub.handles.get("pe_color_mapper")
            if mapper is None:
                mapper = LinearColorMapper(
                    palette=list(value.palette), low=value.low, high=value.high
                )
                sub.handles["pe_color_mapper"] = mapper
                if value.colorbar is not None:
                    bar = ColorBar(color_mapper=mapper, title=value.colorbar, width=12)
                    plot.state.add_layout(bar, "right")
            spec = field(value.column, transform=mapper)
        else:
            spec = field(value)
        for kind in _GLYPHS:
            glyph = getattr(renderer, kind, None)
            if glyph not in (None, "auto") and prop in glyph.properties():
                setattr(glyph, prop, spec)


#: Sent by the browser on every mouse move of a drag: Bokeh's point-draw tool
#: moves the point in ``source.data`` but tells the server only on release.
_LIVE_DRAG_JS = """
if (source.selected.indices.length > 0) {
  source.setv({data: source.data}, {check_eq: false});
}
"""


def _send_while_dragging(figure: Any, source: Any) -> None:
    figure.js_on_event("pan", CustomJS(args={"source": source}, code=_LIVE_DRAG_JS))


def stacked(keys: np.ndarray, per_key: int) -> np.ndarray:
    """The key column of rows stacked ``per_key`` to a key."""
    return np.repeat(np.asarray(keys), per_key)


__all__ += ["KEY", "Choices", "Mark", "Scale", "stacked"]
