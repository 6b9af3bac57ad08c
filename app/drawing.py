"""A chart on one page: its element, every plot drawn from it, and each change.

:class:`Drawing` is what :mod:`app.chart` declarations become on a page (see
that module for the whole picture): the first draw (a HoloViews overlay of the
marks, with a hook that brings each new plot to the current frame), the one
way every later change reaches the plots (:meth:`Drawing._send`), the browser
choices, zoom detail and dragged points.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Any

import holoviews as hv
from bokeh.events import RangesUpdate, Tap

from .chart import Chart, Frame, choice_name
from .frames import FRAMES, SharedFrames
from .look import is_dark
from .marks import Mark, thinned
from .selection import Choices, ship
from .sources import per_document
from .updates import (
    column_changes,
    figure_changes,
    followers,
    map_fields,
    mark_changes,
    same_key,
    send_while_dragging,
    set_changed,
    set_sent,
    subplots,
)

__all__ = ["FRAMES", "Drawing", "SharedFrames"]


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
        """The current frame, computed once per state of ``depends`` in this process
        (:data:`FRAMES`: a class following its teacher computes a change once)."""
        page = self.page
        key = tuple(getattr(page, name) for name in self.chart.depends)
        if self._memo is None or not same_key(self._memo[0], key):
            # The theme (a session's ``?theme=``) picks colours a frame may hold.
            shared = (*key, is_dark())
            frame = FRAMES.get(type(self.chart), shared)
            if frame is None:
                frame = self.chart.frame(page)
                marks = self.chart.marks
                frame.marks = {
                    name: data if isinstance(data, Choices) else thinned(marks[name], data)
                    for name, data in frame.marks.items()
                }
                FRAMES.put(type(self.chart), shared, frame)
            self._memo = (key, frame)
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
                tooltip = mark.drag if isinstance(mark.drag, str) else None
                self._drag_streams(name, element, len(columns[mark.names[0]]), tooltip)
        me = weakref.ref(self)

        def attach(plot: Any, _element: Any) -> None:
            drawing = me()
            if drawing is not None:
                drawing._attach(plot)

        return hv.Overlay(layers).opts(hooks=[attach], **self.options())

    def options(self) -> dict[str, Any]:
        """The chart's plot options, with the y axis' fixed room if it has one."""
        options, room = self.chart.options, self.chart.y_tick_room
        if room is None:
            return options
        # Bokeh's own way to a fixed axis width: the title sits ``room`` px from the
        # axis line instead of beside the widest tick label.
        steady = {"yaxis.axis_label_standoff_mode": "axis", "yaxis.axis_label_standoff": room}
        return {**options, "backend_opts": {**options.get("backend_opts", {}), **steady}}

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
        subs = subplots(plot)
        for (name, mark), sub in zip(self.chart.marks.items(), subs, strict=True):
            renderer = sub.handles.get("glyph_renderer")
            if renderer is None:
                raise ValueError(f"{type(self.chart).__name__}.{name}: no data source to draw")
            if mark.on_top:
                renderer.level = "overlay"
            if mark.choice:
                renderer.data_source.name = choice_name(self.page, mark.choice)
            map_fields(plot, sub, mark)
            if mark.drag:
                send_while_dragging(plot.state, renderer.data_source)
        if type(self.chart).zoomed is not Chart.zoomed:
            self._listen_to_zoom(plot)
        if type(self.chart).tapped is not Chart.tapped:
            self._listen_to_taps(plot)
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
        plots = self.plots()
        if not plots:  # not drawn (yet): the frame is computed when it is
            return
        frame = self.frame()
        skip = (self._dragging,) if self._dragging else ()
        for plot in plots:
            self._send(plot, frame, skip=skip)

    def _chosen(self, group: tuple[str, ...]) -> None:
        """A choice control moved: draw its marks where the browser has not."""
        plots = self.plots()
        if not plots:
            return
        page, frame = self.page, self.frame()
        in_browser = getattr(page, "choosing_in_browser", 0) > 0
        names = [n for n, m in self.chart.marks.items() if m.choice == group]
        for plot in plots:
            subs = dict(zip(self.chart.marks, subplots(plot), strict=True))
            left = []
            for name in names:
                if in_browser and subs[name].handles["source"].tags:
                    # Drawn in the browser from its candidates: the server's copy is
                    # stale until the server next draws this mark, whole.
                    subs[name].handles["pe_stale"] = True
                else:
                    left.append(name)
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
        subs = dict(zip(self.chart.marks, subplots(plot), strict=True))
        for name, data in frame.marks.items():
            mark, sub = self.chart.marks[name], subs[name]
            if name in skip:
                continue
            if isinstance(data, Choices):
                data = self._choice_changes(plot, sub, mark, data, first, ship_rows, changes)
                if data is None:
                    continue
            stale = sub.handles.pop("pe_stale", False)
            source = sub.handles["source"]
            changes += column_changes(source, mark.source_columns(data), first, stale)
            changes += mark_changes(plot, sub, name, frame)
        changes.append((plot.state, lambda: figure_changes(plot, frame)))
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
        if ship_rows:  # the version of the candidates the browser holds
            versions["rows"] = data.version
        chosen = data.chosen(self._key(mark))
        follow = followers(plot, sub, data.follow)
        if ship_rows:
            candidates = data.candidates(mark)
            spec = data.spec(chosen)
            changes.append((source, lambda: ship(source, candidates, spec, follow)))
        # A follower the browser moved is sent whatever the server's copy holds.
        setter = set_sent if sub.handles.get("pe_stale") else set_changed
        for model, prop, column in follow:
            if len(chosen[column]):
                changes.append(
                    (model, lambda m=model, p=prop, v=chosen[column][0]: setter(m, p, v))
                )
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

    def _listen_to_taps(self, plot: Any) -> None:
        me = weakref.ref(self)

        def on_tap(event: Tap) -> None:
            drawing = me()
            if drawing is None or event.x is None or event.y is None:
                return
            values = drawing.chart.tapped(drawing.page, float(event.x), float(event.y))
            page = drawing.page
            changed = {k: v for k, v in values.items() if getattr(page, k) != v}
            if changed:
                page.param.update(changed)

        plot.state.on_event(Tap, on_tap)

    def _drag_streams(
        self, name: str, element: hv.Element, count: int, tooltip: str | None = None
    ) -> None:
        me = weakref.ref(self)
        drag = hv.streams.PointDraw(
            source=element, num_objects=count, add=False, drag=True, tooltip=tooltip
        )
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
        if not values:
            for plot in self.plots():  # an unreadable drag: put the points back
                self._send(plot, Frame(**{name: self.frame().marks[name]}), first=True)
            return
        changed = {k: v for k, v in values.items() if getattr(page, k) != v}
        if not changed:
            # The same values (a move within one step): sent back, the point would
            # jump under the mouse, and Bokeh's tool moves it by the mouse's steps.
            return
        self._dragging = name
        try:
            page.param.update(changed)
        finally:
            self._dragging = None
