"""Marks: one layer of a chart, and HoloViews' naming rules in one place.

A :class:`Mark` says which HoloViews element draws a layer (``hv.Points``,
``hv.Image``, ...), its dimensions and its constant style. A frame gives each
mark its *columns*: one array per dimension, named after it, plus the
columns that :attr:`Mark.fields` draws glyph properties from. From those
columns this module builds

- the element (:meth:`Mark.element`), for the first draw, exports and notebooks;
- the columns of the Bokeh data source HoloViews draws it from
  (:meth:`Mark.source_columns`), for every later change.

HoloViews names a source's columns after the element's dimensions, except for
the kinds listed here: images (``image``, ``x``, ``y``, ``dw``, ``dh``), paths
(``xs``, ``ys``) and rectangles (also ``left``, ``bottom``, ``right``,
``top``). Data-driven styles never go through HoloViews' own mapping (which
renames columns, converts angles and draws a column of one value as a
constant): :attr:`Mark.fields` points a glyph property at a column instead,
through a colour :class:`Scale` for numbers.

The layers many figures repeat (a line at a length, a shaded band, texts, a ring
round the selected point, a row's outline) are declared once at the end, with
the columns of the frames that fill them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import holoviews as hv
import numpy as np
from bokeh.models import CustomJSHover

from .look import HIGHLIGHT, text_color

__all__ = [
    "KEY",
    "KEY_DIM",
    "QUERY_DIM",
    "Mark",
    "Scale",
    "circle",
    "image_columns",
    "image_stack",
    "js_hover",
    "labels",
    "layer",
    "object_column",
    "outline_rows",
    "ring",
    "row_outline",
    "rule",
    "span",
    "square_image",
]

#: Column of browser-choice candidates that holds the key a row belongs to.
KEY = "__key"

Columns = Mapping[str, Any]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_IMAGE = ("image", "x", "y", "dw", "dh")
_PATH = ("xs", "ys")
_RECT = ("left", "bottom", "right", "top")
#: A ``fields`` entry for "color" or "alpha" draws both the line and the fill.
_BOTH = {"color": ("line_color", "fill_color"), "alpha": ("line_alpha", "fill_alpha")}


@dataclass(frozen=True)
class Scale:
    """A colour scale for numbers: ``fields={"color": Scale("pair", palette, high=31)}``.

    ``colorbar`` is the title of a colour bar beside the frame (None: no bar).
    A frame may move ``low``, ``high`` and ``palette`` (``Frame.scales``).
    """

    column: str
    palette: tuple[str, ...]
    low: float = 0.0
    high: float = 1.0
    colorbar: str | None = None


def _dimension(dim: str | hv.Dimension) -> hv.Dimension:
    return dim if isinstance(dim, hv.Dimension) else hv.Dimension(dim)


@dataclass(frozen=True)
class Mark:
    """One layer of a chart (see the module docstring).

    ``choice`` names the control(s) whose value selects this mark's rows in
    the browser (the frame gives it :class:`app.selection.Choices`); several
    controls make one key, Σ value·stride. ``on_top`` draws it on Bokeh's
    overlay level (outlines and pointers: a change of them repaints only that
    level). ``drag`` lets the reader drag its points (``Chart.dragged``); a string
    is also the drag tool's tooltip. ``thin`` draws a long curve at about two
    points per pixel (:func:`envelope`): what a change sends follows the
    figure's width, not the number of positions.
    ``hover`` builds per-plot hover formatters (a Bokeh model belongs to one
    document): ``{"@bias": make_formatter}``.
    """

    kind: type[hv.Element]
    kdims: Sequence[str | hv.Dimension] = ()
    vdims: Sequence[str | hv.Dimension] = ()
    style: Mapping[str, Any] = field(default_factory=dict)
    fields: Mapping[str, str | Scale] = field(default_factory=dict)
    hover: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    choice: str | tuple[str, ...] = ()
    strides: tuple[int, ...] = (1,)
    on_top: bool = False
    drag: bool | str = False
    thin: bool = False

    def __post_init__(self) -> None:
        for dim in self.dimensions:
            if not _NAME.match(dim.name):
                raise ValueError(f"dimension name {dim.name!r} is not an identifier")
        for name, value in self.style.items():
            if isinstance(value, str) and value in self.names:
                raise ValueError(f"style {name}={value!r} maps a column: use fields=")
        controls = (self.choice,) if isinstance(self.choice, str) else tuple(self.choice)
        object.__setattr__(self, "choice", controls)
        if controls and len(self.strides) != len(controls):
            raise ValueError("one stride per choice control")

    @cached_property  # a Dimension takes ~1 ms to build; a change reads these per mark
    def dimensions(self) -> list[hv.Dimension]:
        return [_dimension(d) for d in (*self.kdims, *self.vdims)]

    @cached_property
    def names(self) -> list[str]:
        return [d.name for d in self.dimensions]

    @property
    def is_image(self) -> bool:
        return issubclass(self.kind, hv.Image)

    @property
    def is_path(self) -> bool:
        return issubclass(self.kind, hv.Path)

    def field_columns(self) -> list[str]:
        return [v.column if isinstance(v, Scale) else v for v in self.fields.values()]

    def glyph_fields(self) -> dict[str, str | Scale]:
        """``fields`` with "color" and "alpha" spelled out as line and fill properties."""
        out: dict[str, str | Scale] = {}
        for prop, value in self.fields.items():
            for name in _BOTH.get(prop, (prop,)):
                out[name] = value
        return out

    # ----------------------------------------------------------- first draw
    def element(self, columns: Columns, label: str = "") -> hv.Element:
        """The HoloViews element drawing ``columns`` (one key's rows of a choice)."""
        dims: dict[str, Any] = {}
        if self.kdims:
            dims["kdims"] = list(self.kdims)
        if self.vdims:
            dims["vdims"] = list(self.vdims)
        if label:
            dims["label"] = label
        if self.is_image:
            x, y, dw, dh = (float(np.asarray(columns[k])[0]) for k in ("x", "y", "dw", "dh"))
            planes = [np.asarray(columns[n][0], dtype=float) for n in ["image", *self._planes()]]
            image = planes[0] if len(planes) == 1 else np.dstack(planes)
            # HoloViews' row 0 is the top of the image; Bokeh's the bottom.
            return self.kind(np.flipud(image), bounds=(x, y, x + dw, y + dh), **dims)
        if self.is_path:
            kx, ky = (_dimension(k).name for k in (list(self.kdims) or ["x", "y"])[:2])
            paths = [
                {kx: xs, ky: ys, **{v: columns[v][i] for v in self._vnames()}}
                for i, (xs, ys) in enumerate(zip(columns["xs"], columns["ys"], strict=True))
            ]
            return self.kind(paths, **dims)
        data = {name: np.asarray(columns[name]) for name in self.names}
        return self.kind(data, **dims)

    def _vnames(self) -> list[str]:
        return self.names[len(self.kdims) :]

    def _planes(self) -> list[str]:
        """An image's value dimensions past the first: one more image column each
        (HoloViews draws them for the hover, e.g. each cell's bucket)."""
        return self._vnames()[1:]

    # ------------------------------------------------------- later changes
    def source_columns(self, columns: Columns) -> dict[str, Any]:
        """The columns of the mark's Bokeh source, as HoloViews names them."""
        if self.is_image:
            names: list[str] = [*_IMAGE, *self._planes(), *self.field_columns()]
        elif self.is_path:
            names = [*_PATH, *self._vnames(), *self.field_columns()]
        else:
            names = [*self.names, *self.field_columns()]
        out = {name: _column(columns[name]) for name in dict.fromkeys(names)}
        if issubclass(self.kind, hv.Rectangles):
            for side, dim in zip(_RECT, self.names[:4], strict=True):
                out[side] = out[dim]
        return out


def _column(values: Any) -> Any:
    """A column as a Bokeh source holds it: arrays stay arrays, images and paths a list."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        return values
    if isinstance(values, list | tuple | np.ndarray) and any(
        isinstance(v, np.ndarray) for v in values[:1]
    ):
        return list(values)
    array = np.asarray(values)
    return list(values) if array.dtype.kind in "OU" else array


#: Bins across a thinned curve's x range: a figure is about 500 pixels wide,
#: and each bin keeps at most four points (two points per pixel).
THIN_BINS = 250


def envelope(x: Any, y: Any, bins: int = THIN_BINS) -> np.ndarray:
    """The rows that draw the curve ``(x, y)`` (x ascending) at ``bins`` columns: in
    each bin of x its first, lowest, highest and last point, in order (the
    envelope a fast oscillation fills, kept however the curve aliases). Every
    row when there are no more than four per bin. The rows kept are the
    curve's own points, so hovering shows exact values."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) <= 4 * bins or not np.isfinite(x[[0, -1]]).all() or x[-1] <= x[0]:
        return np.arange(len(x))
    where = np.minimum(((x - x[0]) / (x[-1] - x[0]) * bins).astype(int), bins - 1)
    starts = np.flatnonzero(np.r_[True, where[1:] != where[:-1]])
    keep = []
    for start, stop in zip(starts, [*starts[1:], len(x)], strict=True):
        part = y[start:stop]
        extremes = (np.nanargmin(part), np.nanargmax(part)) if np.isfinite(part).any() else ()
        keep += [start, *(start + e for e in extremes), stop - 1]
    return np.unique(keep)


def thinned(mark: Mark, columns: Mapping[str, Any]) -> Mapping[str, Any]:
    """``columns`` of a ``thin`` mark cut to its :func:`envelope` (others as they are)."""
    if not mark.thin:
        return columns
    x, y = mark.names[:2]
    rows = envelope(columns[x], columns[y])
    if len(rows) == len(columns[x]):
        return columns
    return {name: np.asarray(column)[rows] for name, column in columns.items()}


def image_columns(image: np.ndarray, x: float, y: float, dw: float, dh: float) -> dict[str, Any]:
    """An image mark's columns: ``image[i, j]`` drawn ``i`` rows up from ``y``, ``j`` along x."""
    return {"image": [np.asarray(image)], "x": [x], "y": [y], "dw": [dw], "dh": [dh]}


def circle(radius: float = 1.0, points: int = 181) -> dict[str, list[np.ndarray]]:
    """A path mark's columns for a circle round the origin (a clock face, the unit circle)."""
    angle = np.linspace(0.0, 2 * np.pi, points)
    return {"xs": [radius * np.cos(angle)], "ys": [radius * np.sin(angle)]}


def object_column(items: Sequence[Any]) -> np.ndarray:
    """A column of one array per row (NumPy would stack equal arrays into one 2-D array)."""
    column = np.empty(len(items), dtype=object)
    column[:] = list(items)
    return column


def image_stack(
    images: Sequence[np.ndarray], x: float, y: float, dw: float, dh: float, name: str = "image"
) -> dict[str, Any]:
    """An image mark's columns for several keys: one image per key (in column ``name``),
    each ``dw`` × ``dh`` from (``x``, ``y``)."""
    count = len(images)
    return {
        name: object_column(images),
        **{k: np.full(count, float(v)) for k, v in (("x", x), ("y", y), ("dw", dw), ("dh", dh))},
    }


def js_hover(code: str) -> Callable[[], CustomJSHover]:
    """A :attr:`Mark.hover` formatter running ``code`` in the browser (a factory: a
    Bokeh model belongs to one document, so each plot gets its own)."""
    return lambda: CustomJSHover(code=code)


# ------------------------------------------------------- common marks
#: Keyword arguments of :func:`layer` that are the mark's own, not its style.
_OWN = ("fields", "hover", "choice", "strides", "on_top", "drag")


def layer(
    kind: type[hv.Element], kdims: Sequence = (), vdims: Sequence = (), **options: Any
) -> Mark:
    """A mark whose keyword arguments are its style, except :class:`Mark`'s own
    (``choice``, ``on_top``, ``fields``, ...): ``layer(hv.Points, ("x", "y"), size=9,
    choice="t")``."""
    own = {name: options.pop(name) for name in _OWN if name in options}
    return Mark(kind, kdims, vdims, style=options, **own)


def rule(
    dash: str | None = None,
    width: float | None = None,
    kind: type[hv.Element] = hv.VLines,
    *,
    color: Any = text_color,
    dim: str | hv.Dimension | None = None,
    **options: Any,
) -> Mark:
    """A line across the figure at each ``x`` (``y`` for ``hv.HLines``, or ``dim``): a
    length L, where a bucket starts, the selected position."""
    style = {"line_dash": dash, "line_width": width}
    style = {k: v for k, v in style.items() if v is not None}
    if dim is None:
        dim = "y" if kind is hv.HLines else "x"
    return layer(kind, (dim,), color=color, **style, **options)


def span(kdims: Sequence, color: str, alpha: float, **options: Any) -> Mark:
    """A shaded band along x, from one column to the other (no hover)."""
    return layer(hv.VSpans, kdims, color=color, alpha=alpha, line_alpha=0, tools=[], **options)


def labels(
    kdims: Sequence = ("x", "y"), color: Any = text_color, size: str = "9pt", **options: Any
) -> Mark:
    """Texts at points (a ``text`` column)."""
    return layer(hv.Labels, kdims, ("text",), text_color=color, text_font_size=size, **options)


def ring(
    kind: type[hv.Element],
    kdims: Sequence,
    vdims: Sequence = (),
    *,
    color: Any = text_color,
    width: float = 2.5,
    **options: Any,
) -> Mark:
    """An open circle round the selected point, drawn on top (``choice`` names its control)."""
    outline = {"size": 16, "fill_alpha": 0, "line_color": color, "line_width": width}
    return layer(kind, kdims, vdims, on_top=True, **outline, **options)


def row_outline(
    name: str, choice: str, color: str = HIGHLIGHT, width: float = 3.0, halo: float = 8.0
) -> dict[str, Mark]:
    """The row chosen by ``choice`` (:func:`outline_rows`): ``{name}_line`` over a white
    ``{name}_halo``, both opaque, so it reads on a heatmap's dark and pale cells alike."""
    return {
        f"{name}_{part}": Mark(
            hv.HSpans,
            ("y0", "y1"),
            choice=choice,
            on_top=True,
            style={"fill_alpha": 0, "line_alpha": 1.0, "line_color": ink, "line_width": px},
        )
        for part, ink, px in (("halo", "#FFFFFF", halo), ("line", color, width))
    }


#: The axes of a square matrix of scores: key j along x, query i down the page.
KEY_DIM = hv.Dimension("key", label="key position j")
QUERY_DIM = hv.Dimension("query", label="query position i")
#: Tooltip formatter: the images' x is the key j, y the query i; offset = j − i.
_offset_hover = js_hover(
    "return (Math.round(special_vars.x) - Math.round(special_vars.y)).toString()"
)


def square_image(
    vdims: Sequence,
    tooltips: list,
    hover: Mapping[str, Callable[[], Any]] | None = None,
    *,
    offset: bool = True,
    **options: Any,
) -> Mark:
    """An n × n image, key j along x and query i down the page, with four x ticks (on a
    phone it is ~110 px wide); its hover names the cell (and ``offset`` j − i), ``tooltips``."""
    cell = [("query i", "$y{0}"), ("key j", "$x{0}")]
    if offset:
        cell.append(("offset j − i", "$sx{offset}"))
        hover = {"$sx": _offset_hover, **(hover or {})}
    tooltips = [*cell, *tooltips]
    style = {"colorbar": True, "tools": ["hover"], "hover_tooltips": tooltips, "xticks": 4}
    return layer(hv.Image, (KEY_DIM, QUERY_DIM), vdims, hover=hover or {}, **style, **options)


def outline_rows(rows: np.ndarray) -> dict[str, np.ndarray]:
    """The rows of a :func:`row_outline` for each row in ``rows``, one unit tall."""
    rows = np.asarray(rows, dtype=int)
    return {"y0": rows - 0.5, "y1": rows + 0.5, KEY: rows}
