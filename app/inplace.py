"""Figures redrawn in place: a change sends new data into the Bokeh models HoloViews built.

A page's figures keep their structure from one frame to the next: the same
elements, types and options; numbers and texts change. HoloViews draws each
figure once, from the page's ``param.depends`` methods (and fixed elements);
:class:`InPlace` then redraws it on every change of their dependencies, in
one of three ways, fastest first:

1. **The page's own columns** (``direct=``, :class:`Drawn`). The page states
   the next frame as Bokeh draws it: each layer's source columns, named as
   HoloViews names them, the model properties that follow the state (an
   annotation's location, a colour scale, a glyph's size), the axes, the
   browser-choice roles to redraw. Only what changed is sent, and no
   HoloViews element, option lookup or range computation runs: building
   them was ~80 % of a change's server time (in-process CPU per change of
   Context extension's d 88 → 13 ms, RoPE's d 90 → 13, Compare's L 90 → 12,
   ALiBi's heads 83 → 11, Sinusoidal's d 85 → 10). The element methods
   build their elements from the same data (see :func:`memoized`), for the
   first draw and for the ways below. A frame whose sources do not hold the
   columns the plot's do (a layer came or went) goes the next way.
2. **Patched from HoloViews' elements.** The frame's elements are built and,
   for each plot, matched to its layers as HoloViews does; if the figure's
   own options are unchanged (its axis limits may change), HoloViews gives
   the ranges, each layer's options and columns (``compute_ranges``,
   ``get_data``), and the glyph properties that change, the columns that
   changed, the axes and the hooks are set as HoloViews' update sets them.
   A layer without a data source (a ``Span``) or whose glyph would draw from
   another column is left to HoloViews' update of that layer alone
   (Context extension, before its columns: 203 → 160 ms per change).
3. **HoloViews' own update**, when an element came or went or the figure's
   options changed.

tests/app/test_inplace.py drives two copies of each page with the same random
changes, one drawn the fast ways and one left to HoloViews, and checks that
every figure draws the same after each change and when the page is shown
again; and that each ``direct`` frame holds what HoloViews builds for random
states (the names it gives the columns, the styles it maps from them).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import holoviews as hv
import param
from bokeh.core.property.validation import validate
from bokeh.core.property.vectorization import Field
from holoviews.core import util as hv_util
from holoviews.core.data import disable_pipeline
from holoviews.core.util import range_pad
from holoviews.plotting.bokeh.element import ElementPlot, OverlayPlot
from holoviews.plotting.bokeh.styles import mpl_to_bokeh
from holoviews.plotting.bokeh.util import cds_column_replace

from .sources import per_document, same_column

__all__ = ["Drawn", "InPlace", "Layer", "memoized", "padded"]

#: The stream of an in-place figure: its frame counter. Each redraw bumps it,
#: so HoloViews' memo of the DynamicMap never hands out an outdated frame
#: (a plot built later, e.g. a page shown again, draws the current one).
_Frame = hv.streams.Stream.define("Frame", frame=0)


#: A key no state has (see ``Drawn.refresh``).
_NEVER = object()

#: Values compared to tell whether a figure already shows the page's state.
_PLAIN = (bool, int, float, str, bytes, type(None))


def _plain(values: tuple) -> tuple | None:
    """``values`` when every one is a plain immutable value (tuples of them too), else None.

    Only such values can be compared to tell that nothing changed: a list or an
    array may have been changed in place, and then it is drawn again.
    """

    def plain(value: Any) -> bool:
        if isinstance(value, tuple):
            return all(plain(v) for v in value)
        return type(value) in _PLAIN

    return values if all(plain(v) for v in values) else None


@dataclass(frozen=True)
class Layer:
    """One layer of a :class:`Drawn` frame: its source's columns and/or model properties.

    ``models`` maps a handle of the layer's HoloViews plot to properties to
    set on that model: ``{"glyph": {"location": 4096}}`` moves an annotation
    (a ``VLine``'s Span), ``{"color_color_mapper": {"palette": ..., "low": 0}}``
    a colour scale. Only properties whose value changes are sent.
    """

    columns: Mapping[str, Any] | None = None
    models: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Drawn:
    """A figure's next frame as Bokeh draws it: what to send, without HoloViews.

    ``sources`` has one entry per layer of the figure, in the order of its
    overlay: the columns that layer's data source holds, named as HoloViews
    names them (a dimension's name; ``y0``/``y1`` for spans; a style mapped
    from a column, ``color``, under the style's name), a :class:`Layer` (for
    an annotation or a colour scale), or None for a layer the page draws
    some other way (a browser choice's role, see ``refresh``), or that never
    changes.
    ``x_range``/``y_range`` are the axes' (start, end), None to leave an
    axis to someone else (a choice that moves it).

    ``refresh`` lists ``(choice, roles)`` or ``(choice, roles, key)``: browser
    choices whose roles this figure draws, redrawn with their candidates once
    per change (:meth:`app.choice.BrowserChoice.refresh`); with a ``key`` (the
    values the roles are drawn from), only when it differs from the key they
    were last redrawn for. ``hooks`` are the figure's
    HoloViews hooks that must run after a change (a legend's text, log
    ticks); they are called with the plot and None for the element.
    """

    sources: Sequence[Mapping[str, Any] | Layer | None]
    x_range: tuple[float, float] | None = None
    y_range: tuple[float, float] | None = None
    #: The x axis' label, when it follows the frame.
    x_label: str | None = None
    refresh: Sequence[tuple[Any, Sequence[str]] | tuple[Any, Sequence[str], Any]] = ()
    hooks: Sequence[Callable[[Any, Any], None]] = field(default=())


def padded(low: float, high: float, *, log: bool = False, padding: float = 0.1) -> tuple:
    """``(low, high)`` widened as HoloViews pads a data range (``padding`` of it each way;
    on a log axis, of its decades): a figure's axes, stated by the page."""
    start, end = range_pad(low, high, padding, log)
    return float(start), float(end)


def memoized(method: Callable[..., Any]) -> Callable[..., Any]:
    """Cache a ``param.depends`` method of a page by the values of its dependencies.

    For the data a figure is drawn from, asked for by the figure's element
    method (the first draw, HoloViews' update) and by its ``direct`` method
    (a change sent without HoloViews): computed once per state.
    """
    names = _dependencies(method)
    slot = f"_memo_{method.__name__}"

    @functools.wraps(method)
    def cached(self: Any) -> Any:
        key = tuple(getattr(self, name) for name in names)
        kept = self.__dict__.get(slot)
        if kept is not None and kept[0] == key:
            return kept[1]
        value = method(self)
        self.__dict__[slot] = (key, value)
        return value

    return cached


def _dependencies(method: Callable[..., Any]) -> list[str]:
    """The names of the parameters a ``param.depends`` method of a page depends on."""
    info = getattr(method, "_dinfo", None)
    if not info:
        raise ValueError(f"{method!r} has no param.depends dependencies")
    return [name for name in info["dependencies"] if isinstance(name, str)]


#: Figure options a frame may change and still be patched: the axes' limits
#: (the axes follow the frame's ranges) and labels (set as HoloViews does).
_AXIS_LIMITS = {"xlim", "ylim"}
_AXIS_LABELS = {"xlabel", "ylabel"}

_GLYPH_KINDS = ("", "selection_", "nonselection_", "hover_", "muted_")


def _glyph_updates(
    sub: Any, element: Any, ranges: Any, style: Any, mapping: Any
) -> list[tuple[Any, dict[str, Any]]] | None:
    """The glyph properties the frame sets to new values, per glyph; None if it cannot be patched.

    The properties are what HoloViews' ``_update_glyph`` would set, from the
    frame's style (a colour column with a single value becomes a constant,
    for instance) and the columns' mapping, on the glyph and each variant.
    A property that would draw from another column is left to HoloViews.
    """
    renderer, source = sub.handles.get("glyph_renderer"), sub.handles["source"]
    if renderer is None:
        return None
    properties = sub._glyph_properties(sub.handles["plot"], element, source, ranges, style)
    merged = dict(mpl_to_bokeh(properties), **mapping)
    merged.pop("legend_field", None)
    merged.pop("legend_label", None)
    allowed = renderer.glyph.properties()
    updates = []
    for kind in _GLYPH_KINDS:
        glyph = getattr(renderer, kind + "glyph", None)
        if glyph is None:
            continue
        if glyph == "auto":
            return None
        new_values = {}
        for name, value in sub._filter_properties(merged, kind, allowed).items():
            prop = glyph.lookup(name).property
            try:
                new = prop.prepare_value(glyph, name, value)
            except (ValueError, TypeError):
                return None
            old = getattr(glyph, name)
            if prop.matches(new, old):
                continue
            if isinstance(new, Field) or isinstance(old, Field) or name in source.data:
                return None
            new_values[name] = value
        if new_values:
            updates.append((glyph, new_values))
    return updates


def _same_value(old: Any, new: Any) -> bool:
    """True when a model property's value ``old`` is already ``new`` (lists element-wise)."""
    try:
        if isinstance(old, list | tuple) or isinstance(new, list | tuple):
            return list(old) == list(new)
        return bool(old == new)
    except (TypeError, ValueError):
        return False


def _changed_columns(drawn: Any, data: dict[str, Any]) -> dict[str, Any]:
    """The columns of ``data`` that are new or differ from ``drawn`` (a source's data)."""
    return {
        name: new
        for name, new in data.items()
        if name not in drawn or not same_column(drawn[name], new)
    }


def _source_changes(source: Any, data: dict[str, Any]) -> list[tuple[Any, Callable[[], None]]]:
    """The change that draws ``data`` into ``source``, as HoloViews' ``_update_datasource``.

    Columns the frame does not draw stay when they keep their length (else the
    whole data is replaced: Bokeh refuses columns of unequal lengths); only the
    columns that changed are sent. For :func:`per_document`.
    """
    if cds_column_replace(source, data):
        return [(source, lambda: setattr(source, "data", data))]
    columns = _changed_columns(source.data, data)
    if not columns:
        return []

    def update() -> None:
        with validate(False):
            source.data.update(columns)

    return [(source, update)]


def _figure_options(plot: Any, element: Any) -> dict[str, Any]:
    """The plot options of a figure's frame, as HoloViews' update applies them."""
    options = dict(plot.lookup_options(element, "plot").options)
    if isinstance(plot, OverlayPlot):
        inherited = plot._traverse_options(element, "plot", plot._propagate_options, defaults=False)
        options.update(**{k: v[0] for k, v in inherited.items() if k not in options})
    return options


class InPlace:
    """Builds a page's figures as ``DynamicMap``\\s that are redrawn in place (see module docs).

    ``figure = InPlace(page)(page._plot_a, page._plot_b)``: the overlay of the
    methods' elements, redrawn when any of their dependencies changes.
    """

    def __init__(self, owner: param.Parameterized) -> None:
        self._owner = weakref.ref(owner)
        #: Counters for tests and the benchmark: frames patched / left to HoloViews.
        self.patched = 0
        self.fallbacks = 0
        #: How many figures this object built, and how many of them with ``direct``.
        self.figures = 0
        self.direct_figures = 0
        #: Plots whose new frame was sent as the page's ``direct`` columns, and
        #: plots of a figure with ``direct`` whose frame did not fit (patched instead).
        self.direct = 0
        self.refused = 0
        #: False: leave every frame to HoloViews' own update (tests compare the two).
        self.patching = True
        #: False: build every frame's elements, never send a ``direct`` frame.
        self.sending = True
        #: The key each browser choice's roles were last redrawn for (Drawn.refresh).
        self._shipped: weakref.WeakKeyDictionary[Any, dict[tuple[str, ...], Any]] = (
            weakref.WeakKeyDictionary()
        )
        #: Each figure's ``direct`` method, by the figure's frame stream.
        self._direct: weakref.WeakKeyDictionary[Any, Callable[[], Drawn]] = (
            weakref.WeakKeyDictionary()
        )

    def __call__(self, *layers: Any, direct: Callable[[], Drawn] | None = None) -> hv.DynamicMap:
        """The overlay of ``layers`` as one ``DynamicMap``, redrawn in place.

        A layer is a ``param.depends`` method of the owner (drawn again when
        one of its dependencies changes) or an element drawn as it is (an
        outline the browser moves, a clock face).

        ``direct``, a ``param.depends`` method of the owner on the same
        dependencies, returns the figure's next frame as Bokeh draws it
        (:class:`Drawn`, or None when it cannot: the elements' way then): a
        change then sends those columns and ranges without
        building HoloViews elements (their options, ranges and updates were
        80 % of a change's server time). The layers' methods should draw from
        the same data (see :func:`memoized`); tests/app/test_inplace.py checks
        that both draw alike. A frame whose sources do not hold the same
        columns as the plot's (a layer came or went) goes the element way.
        """
        owner = self._owner()
        methods = {i: layer for i, layer in enumerate(layers) if callable(layer)}
        depends = {i: _dependencies(method) for i, method in methods.items()}
        names = sorted({name for names in depends.values() for name in names})
        if direct is not None and not set(_dependencies(direct)) <= set(names):
            raise ValueError(f"{direct!r} depends on more than the figure's layers")
        stream = _Frame()
        # Each method's latest element, by the values of its own dependencies:
        # a change that touches one layer of the figure recomputes that layer only
        # (as HoloViews memoizes each DynamicMap of an overlay).
        latest: dict[int, tuple[tuple, Any]] = {}

        def frame(frame: int) -> Any:
            elements = []
            for i, layer in enumerate(layers):
                if i in methods:
                    values = tuple(getattr(owner, name) for name in depends[i])
                    if len(layers) == 1 or i not in latest or latest[i][0] != values:
                        # Nothing here uses an element's pipeline (linked
                        # selections, ``.dataset``): not recording it makes
                        # building the elements ~15 % cheaper (Sinusoidal).
                        with disable_pipeline():
                            latest[i] = (values, layer())
                    layer = latest[i][1]
                elements.append(layer)
            if len(elements) == 1:
                return elements[0]
            return hv.Overlay(
                [e for el in elements for e in (el if isinstance(el, hv.Overlay) else [el])]
            )

        dmap = hv.DynamicMap(frame, streams=[stream])
        me, maps = weakref.ref(self), weakref.ref(dmap)
        # The values of ``names`` the figure shows (or will show when built).
        shows = [_plain(tuple(getattr(owner, name) for name in names))]

        def redraw(*_events: param.parameterized.Event) -> None:
            drawer, shown = me(), maps()
            if drawer is None or shown is None:
                return
            values = _plain(tuple(getattr(owner, name) for name in names))
            if values is not None and values == shows[0]:
                # Drawn already: a page's rule (``keep_consistent``) that moves
                # another control from inside this change draws the final
                # state first; then this change's own call arrives. Measured
                # on Compare, L moved past L′: 10 plot patches → 5, 223 → 112 ms.
                return
            shows[0] = values
            drawer.redraw(shown, stream, direct)

        owner.param.watch(redraw, names)
        self.figures += 1
        if direct is not None:
            self._direct[stream] = direct
            self.direct_figures += 1
        return dmap

    def direct_of(self, plot: Any) -> Callable[[], Drawn] | None:
        """The ``direct`` method of the figure ``plot`` (a HoloViews plot) draws, if any."""
        for stream in getattr(plot, "streams", []):
            if stream in self._direct:
                return self._direct[stream]
        return None

    # ------------------------------------------------------------- redraw
    def redraw(
        self, dmap: hv.DynamicMap, stream: Any, direct: Callable[[], Drawn] | None = None
    ) -> None:
        """A dependency changed: send the page's columns, patch every plot, or let HoloViews."""
        stream.update(frame=stream.frame + 1)
        # HoloViews builds a new plot (a page shown again) from the frame the
        # DynamicMap holds, without asking for a new one; it holds the first
        # frame it drew, whatever came after (measured: Context extension shown
        # again drew base 10,000 after a preset set 10⁶, before this module too).
        # Empty, it asks, and gets the current frame.
        dmap.data.clear()
        plots = []
        for subscriber in stream.subscribers:
            plot = getattr(subscriber, "__self__", None)
            if plot is not None and plot not in plots:
                plots.append(plot)
        # As in HoloViews' own update (``Plot.refresh``), no pipeline provenance
        # for what plotting asks of the elements: each ``range`` call otherwise
        # builds a pipeline operation (measured: a quarter of a change's time in
        # ``compute_ranges``). See ``frame`` for the elements themselves.
        sending = direct is not None and self.patching and self.sending and plots
        drawn = direct() if sending else None
        if drawn is not None:
            sent = [p for p in plots if self._send(p, drawn)]
            if sent:
                for choice, roles, *key in drawn.refresh:
                    # (A weak key on the choice: the drawer outlives no session.)
                    shipped = self._shipped.setdefault(choice, {})
                    if not key or shipped.get(tuple(roles), _NEVER) != key[0]:
                        choice.refresh(*roles)
                        if key:
                            shipped[tuple(roles)] = key[0]
            self.direct += len(sent)
            self.refused += len(plots) - len(sent)
            plots = [p for p in plots if p not in sent]
        with disable_pipeline():
            left = [p for p in plots if not (self.patching and self._patch(p))]
        self.patched += len(plots) - len(left)
        if left:
            self.fallbacks += len(left) if self.patching else 0
            for plot in left:
                per_document([(plot.state, lambda plot=plot: plot.refresh())])

    def _send(self, plot: Any, drawn: Drawn) -> bool:
        """Send ``drawn`` into ``plot``'s models; False (nothing changed) if they do not fit.

        They fit when the plot has one layer per entry of ``drawn.sources`` and
        each source holds the same columns as the entry. Only the columns that
        changed are sent; the axes are set as HoloViews' update sets them.
        """
        if not isinstance(plot, ElementPlot) or plot.handles.get("plot") is None:
            return False
        if plot.invert_axes:  # none of the app's figures: left to the elements
            return False
        subs = list(plot.subplots.values()) if isinstance(plot, OverlayPlot) else [plot]
        if len(subs) != len(drawn.sources):
            return False
        changes: list[tuple[Any, Callable[[], None]]] = []
        for sub, entry in zip(subs, drawn.sources, strict=True):
            layer = entry if isinstance(entry, Layer) else Layer(entry)
            for handle, values in layer.models.items():
                model = sub.handles.get(handle)
                if model is None:
                    return False
                if new := {
                    k: v for k, v in values.items() if not _same_value(getattr(model, k), v)
                }:
                    changes.append((model, lambda m=model, n=new: m.update(**n)))
            data = layer.columns
            if data is None:
                continue
            source = sub.handles.get("source")
            if source is None or set(source.data) != set(data):
                return False
            if len({len(column) for column in data.values()}) > 1:
                return False
            changes += _source_changes(source, dict(data))
        figure = plot.state
        axes = [
            (figure.x_range, drawn.x_range, plot.invert_xaxis, plot.logx),
            (figure.y_range, drawn.y_range, plot.invert_yaxis, plot.logy),
        ]

        def finish() -> None:
            if drawn.x_label is not None:
                for axis in figure.xaxis:
                    if axis.axis_label != drawn.x_label:
                        axis.axis_label = drawn.x_label
            for model, ends, invert, log in axes:
                if ends is not None:
                    low, high = ends
                    plot._update_range(model, low, high, None, invert, False, log)
            for hook in drawn.hooks:
                hook(plot, None)

        changes.append((figure, finish))
        per_document(changes)
        return True

    def _patch(self, plot: Any) -> bool:
        """Draw the figure's new frame into ``plot``'s models; False if it cannot."""
        if not isinstance(plot, ElementPlot) or plot.handles.get("plot") is None:
            return False
        if getattr(plot, "batched", False) or getattr(plot, "tabs", False):
            return False
        key = plot.current_key if plot.current_key is not None else ()
        element = plot.hmap[key]
        if isinstance(plot, OverlayPlot):
            if not isinstance(element, hv.Overlay):
                return False
            items = list(element.data.items())
            pairs = []
            for spec, sub in plot.subplots.items():
                index, _found, exact = plot._match_subplot(spec, sub, items, element)
                if index is None or not exact:
                    return False
                pairs.append((sub, items.pop(index)[1]))
            if items:
                return False
        else:
            pairs = [(plot, element)]
        if any(type(el) is not type(sub.current_frame) for sub, el in pairs):
            return False
        changes: list[tuple[Any, Callable[[], None]]] = []
        overlay = isinstance(plot, OverlayPlot)
        # Options set on the frame (``.opts`` per frame, a figure's options):
        # a change of the figure's own (axes, title, legend) is HoloViews' work.
        plot_opts = _figure_options(plot, element)
        if plot._prev_plot_opts is None:  # drawn, never updated: the first frame's
            plot._prev_plot_opts = _figure_options(plot, plot.current_frame)
        try:
            changed = {
                k
                for k in {*plot_opts, *plot._prev_plot_opts}
                if plot_opts.get(k) != plot._prev_plot_opts.get(k)
            }
        except (ValueError, TypeError):
            return False
        if changed - _AXIS_LIMITS - _AXIS_LABELS or (changed & _AXIS_LABELS and plot.multi_y):
            return False
        relabel = bool(changed & _AXIS_LABELS)
        if changed:
            plot._apply_plot_opts(plot_opts)  # the axes follow below
        plot.prev_frame, plot.current_frame = plot.current_frame, element
        ranges = plot.compute_ranges(element if overlay else plot.hmap, key, None)
        drawn = []
        #: Layers HoloViews updates itself (an annotation without a data source,
        #: a glyph that would draw from another column), as in its own update.
        layers: list[tuple[Any, Any]] = []
        for sub, el in pairs:
            if el._plot_id == sub.handles.get("previous_id"):
                # The same element as drawn (a layer whose dependencies did not
                # change): HoloViews keeps its source as it is, too.
                sub.current_frame = el
                continue
            el_ranges = hv_util.match_spec(el, ranges)
            patchable = sub.handles.get("source") is not None and sub.handles.get("glyph")
            if not patchable or getattr(sub, "batched", False):
                if sub is plot:
                    plot.current_frame = plot.prev_frame
                    return False
                layers.append((sub, el))
                continue
            if sub is not plot:
                # A layer's options may change per frame (a colour range): as in
                # HoloViews' update of an overlaid plot.
                sub._apply_plot_opts(sub.lookup_options(el, "plot").options)
            options = sub.lookup_options(el, "style")
            sub.style = (
                options.max_cycles(sub.style._max_cycles) if sub.style._max_cycles else options
            )
            style = sub.style[sub.cyclic_index]
            data, mapping, style = sub.get_data(el, el_ranges, style)
            style = sub._apply_transforms(el, data, el_ranges, style)
            glyphs = _glyph_updates(sub, el, el_ranges, style, mapping)
            if glyphs is None:
                if sub is plot:
                    plot.current_frame = plot.prev_frame
                    return False
                layers.append((sub, el))
                continue
            drawn.append((sub, el, el_ranges, data, glyphs))
        plot.current_ranges = hv_util.match_spec(element, ranges)
        for sub, el, el_ranges, data, glyphs in drawn:
            source = sub.handles["source"]
            for glyph, values in glyphs:
                # As HoloViews sets them (a hook may then set them again, as it
                # does after HoloViews' update: the selected method's colour).
                changes.append((source, lambda g=glyph, v=values: g.update(**v)))
            sub.prev_frame, sub.current_frame = sub.current_frame, el
            sub.current_ranges = el_ranges
            sub.handles["previous_id"] = el._plot_id
            changes += _source_changes(source, sub._postprocess_data(data))

        axes = ranges if overlay else plot.current_ranges

        def finish() -> None:
            plot._update_ranges(element, axes)
            if relabel:
                plot._update_labels(key, plot.state, element)
            for sub, el in layers:
                sub.update_frame(key, ranges, element=el)
            for sub, el, *_rest in drawn:
                if sub is not plot:
                    sub._execute_hooks(el)
            plot._execute_hooks(element)

        changes.append((plot.state, finish))
        per_document(changes)
        return True
