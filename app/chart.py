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

Everything else is derived from that declaration by :class:`app.drawing.Drawing`, the
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
  ``dragged`` (optional) turns the points of a ``drag`` mark into control values;
  ``tapped`` (optional) turns a click on the figure into control values.

tests/app/test_charts.py checks, for every chart of every page and random
states, that a plot changed in place draws exactly what a plot built fresh
at the same state draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from holoviews.core.util import range_pad

from .marks import KEY, Mark, Scale
from .selection import Choices

__all__ = [
    "KEY",
    "Chart",
    "Choices",
    "Frame",
    "Mark",
    "Scale",
    "choice_name",
    "padded",
    "padded_data",
]


def padded(low: float, high: float, *, log: bool = False, padding: float = 0.1) -> tuple:
    """``(low, high)`` widened by ``padding`` of the span each way (of its decades on a
    log axis), as HoloViews pads a data range."""
    start, end = range_pad(float(low), float(high), padding, log)
    return float(start), float(end)


def padded_data(*values: Any, log: bool = False, padding: float = 0.1) -> tuple:
    """:func:`padded` from the smallest to the largest of ``values`` (arrays or numbers),
    as HoloViews pads the range of the data it draws."""
    every = np.concatenate([np.ravel(v) for v in values])
    return padded(every.min(), every.max(), log=log, padding=padding)


class Frame:
    """A chart's frame: each mark's columns (or :class:`Choices`), and the figure's state.

    ``x``/``y``: an axis' ``(start, end)``, or its factors (a list) on a
    categorical axis; None leaves the axis as it is. ``scales``: a mark's
    colour scale, ``{"mark": {"low": 0, "high": 1, "palette": [...]}}``.
    ``props``: glyph properties per mark (``{"label": {"text_align": "left"}}``).
    ``labels``: legend labels per mark. ``x_ticks``/``y_ticks``: tick values, or
    ``(value, label)`` pairs for ticks named by the state (a sentence's words).
    """

    def __init__(
        self,
        *,
        x: tuple[float, float] | list[str] | None = None,
        y: tuple[float, float] | list[str] | None = None,
        x_label: str | None = None,
        y_label: str | None = None,
        x_ticks: list[float] | list[tuple[float, str]] | None = None,
        y_ticks: list[float] | list[tuple[float, str]] | None = None,
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
    #: Pixels from the y axis line to the axis title, for a figure whose tick labels
    #: change width with the controls (None: Bokeh fits the axis to its labels).
    #: An axis that changes width makes Bokeh lay out the whole page again (30 ms
    #: and more on Compare); with a fixed room the axis keeps its width. It must hold
    #: the widest tick label the controls' ranges give (tests/ui/test_axes.py).
    y_tick_room: ClassVar[int | None] = None
    #: The controls the readout under the figure depends on (None: no readout).
    readout_depends: ClassVar[tuple[str, ...] | None] = None
    #: CSS for the readout's own classes: a stylesheet of its pane, set once, so a
    #: change sends and styles only the new text.
    readout_css: ClassVar[str] = ""
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

    def tapped(self, p: Any, x: float, y: float) -> dict[str, Any]:
        """Control values for a click at data coordinates ``(x, y)`` ({}: ignore it).

        Set only where a click has an obvious meaning (a patch of a grid); the
        values go through the page's parameters, so their bounds still hold.
        """
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
