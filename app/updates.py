"""What a chart's frame changes on a Bokeh plot: columns, ranges, scales, labels.

Each function returns (or makes) only the changes that differ from what the plot
shows, so a frame sent twice sends nothing the second time. Used by
:class:`app.drawing.Drawing`; nothing here knows a page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bokeh.core.property.validation import validate
from bokeh.core.property.vectorization import field
from bokeh.core.property.vectorization import value as fixed_value
from bokeh.models import ColorBar, CustomJS, FactorRange, FixedTicker, Legend, LinearColorMapper

from .chart import Frame
from .marks import Mark, Scale
from .sources import same_column

__all__ = [
    "column_changes",
    "figure_changes",
    "followers",
    "map_fields",
    "mark_changes",
    "same_key",
    "send_while_dragging",
    "set_changed",
    "set_sent",
    "subplots",
]

_GLYPHS = ("glyph", "selection_glyph", "nonselection_glyph", "hover_glyph", "muted_glyph")


def same_key(a: tuple, b: tuple) -> bool:
    try:
        return a == b
    except (TypeError, ValueError):
        return False


def subplots(plot: Any) -> list[Any]:
    """The overlay's layer plots in the order of its marks."""
    return sorted(plot.subplots.values(), key=lambda sub: sub.zorder)


def set_sent(model: Any, prop: str, value: Any) -> None:
    """Set ``prop`` and send it even when the server's copy already holds ``value``
    (a property the browser moved without telling the server)."""
    if getattr(model, prop) != value:
        setattr(model, prop, value)
    else:
        model.trigger(prop, value, value)


def set_changed(model: Any, prop: str, value: Any) -> None:
    if getattr(model, prop) != value:
        setattr(model, prop, value)


def column_changes(source: Any, data: dict[str, Any], whole: bool, stale: bool = False) -> list:
    """Send the columns of ``data`` that differ from ``source``'s (all when the set or
    the lengths change: Bokeh refuses columns of unequal lengths). ``stale``: the
    server's copy is not what the browser shows (it selected other rows): every
    column is sent."""
    drawn = source.data
    lengths = {len(column) for column in data.values()}
    if whole or set(drawn) != set(data) or lengths != {len(c) for c in drawn.values()}:
        return [(source, lambda: setattr(source, "data", data))]
    changed = (
        dict(data) if stale else {k: v for k, v in data.items() if not same_column(drawn[k], v)}
    )
    if not changed:
        return []

    def update() -> None:
        with validate(False):
            source.data.update(changed)

    return [(source, update)]


def _mapper(sub: Any) -> Any:
    return sub.handles.get("pe_color_mapper") or sub.handles.get("color_mapper")


def _label(item: Any, label: str) -> None:
    # A plain string would name a column. A hidden item reads " ", as a first draw
    # writes it (HoloViews keeps no legend item for an empty label).
    set_changed(item, "label", fixed_value(label or " "))
    set_changed(item, "visible", bool(label))


def mark_changes(plot: Any, sub: Any, name: str, frame: Frame) -> list:
    changes: list[tuple[Any, Callable[[], None]]] = []
    renderer = sub.handles["glyph_renderer"]
    scale = frame.scales.get(name)
    if scale and _mapper(sub) is not None:
        mapper = _mapper(sub)
        changes += [
            (mapper, lambda k=k, v=v: set_changed(mapper, k, list(v) if k == "palette" else v))
            for k, v in scale.items()
        ]
    for prop, value in frame.props.get(name, {}).items():
        changes.append((renderer, lambda p=prop, v=value: set_changed(renderer.glyph, p, v)))
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


def figure_changes(plot: Any, frame: Frame) -> None:
    figure = plot.state
    for axis, ends, label, ticks in (
        ("x", frame.x, frame.x_label, frame.x_ticks),
        ("y", frame.y, frame.y_label, frame.y_ticks),
    ):
        bounds = getattr(figure, f"{axis}_range")
        if isinstance(ends, list) and isinstance(bounds, FactorRange):
            set_changed(bounds, "factors", ends)
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
                set_changed(model, "axis_label", label)
            if ticks is not None:
                values, names = _ticks(ticks)
                if isinstance(model.ticker, FixedTicker):
                    set_changed(model.ticker, "ticks", values)
                else:
                    model.ticker = FixedTicker(ticks=values)
                if names is not None:
                    set_changed(model, "major_label_overrides", names)


def _ticks(ticks: list) -> tuple[list, dict[Any, str] | None]:
    """Tick values, and their labels when given as ``(value, label)`` pairs (None when
    not): whole numbers as ints, as HoloViews states labelled ticks."""
    if not any(isinstance(t, tuple) for t in ticks):
        return list(ticks), None
    values = [int(v) if float(v).is_integer() else float(v) for v, _ in ticks]
    return values, {v: str(name) for v, (_, name) in zip(values, ticks, strict=True)}


def followers(plot: Any, sub: Any, follow: Mapping[str, str]) -> list[tuple[Any, str, str]]:
    """``{"y_range.end": column}`` as (model, property, column) triples."""
    out = []
    for target, column in follow.items():
        handle, prop = target.split(".")
        model = _mapper(sub) if handle == "color_mapper" else getattr(plot.state, handle)
        out.append((model, prop, column))
    return out


def map_fields(plot: Any, sub: Any, mark: Mark) -> None:
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


def send_while_dragging(figure: Any, source: Any) -> None:
    figure.js_on_event("pan", CustomJS(args={"source": source}, code=_LIVE_DRAG_JS))
