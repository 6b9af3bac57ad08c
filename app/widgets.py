"""Widgets shared by the pages: controls that ``pn.Param`` does not build by itself."""

from __future__ import annotations

import math
from typing import Any

import panel as pn
import param
from bokeh.models import CustomJSTickFormatter
from panel.widgets.slider import ContinuousSlider

__all__ = ["POSITION", "LogSlider", "boxes_follow_bounds", "value_widget"]

#: The widget of a position control (t, m, n, a query row): a slider with a
#: number box beside its label, so a student can type 105 instead of pressing
#: an arrow key a hundred times (``widget_specs`` entry).
POSITION = {"type": pn.widgets.EditableIntSlider}


def value_widget(widget: pn.widgets.Widget) -> pn.widgets.Widget:
    """The part of ``widget`` whose browser model holds its ``value``.

    A composite (an editable slider) is a layout in the browser: code that
    reads a value there must read its slider's.
    """
    if isinstance(widget, pn.widgets.CompositeWidget):
        return next(
            w
            for w in widget.select(ContinuousSlider)
            if not isinstance(w, pn.widgets.CompositeWidget)
        )
    return widget


def boxes_follow_bounds(pane: pn.Param) -> None:
    """Keep each editable slider's number box within its parameter's bounds.

    Panel gives an editable slider its parameter's bounds once, as the hard
    limits of the box (``fixed_start``/``fixed_end``); a parameter whose
    bounds move with another control (t stays below n) then had a box that
    refused valid values and accepted invalid ones.
    """
    owner = pane.object
    for name, widget in pane._widgets.items():
        if not isinstance(widget, pn.widgets.EditableIntSlider):
            continue

        def follow(event: param.parameterized.Event, widget: Any = widget) -> None:
            low, high = event.new
            widget.param.update(fixed_start=low, fixed_end=high)

        owner.param.watch(follow, name, what="bounds")


# The slider's label: the value at the handle, rounded as :meth:`LogSlider.value_at` does.
_LOG_FORMAT_JS = """
const v = Math.pow({base}, tick);
const shown = {integer} ? Math.floor(v + 0.5) : Number(v.toPrecision({digits}));
return shown.toLocaleString('en-US', {{maximumFractionDigits: 6}});
"""


def _round_significant(value: float, digits: int) -> float:
    return 0.0 if value == 0 else float(f"{value:.{digits}g}")


class LogSlider:
    """A slider over ``log(value)`` for a positive parameter of ``owner`` (``.widget``).

    One slider then covers 128 … 1,048,576 tokens. The label and range come
    from the parameter (its bounds, also when they move); the parameter keeps
    the plain value (and a link shows it). A slider position maps to the value
    the slider's label shows: the nearest integer, or ``digits`` significant
    digits, rounded the same way in the browser and here, so the server never
    has to correct the slider while it is dragged or stepped with the keys
    (such echoes lose key presses). Values set elsewhere (a preset, a link)
    are kept exactly; the label then shows them rounded to ``digits`` digits.
    """

    def __init__(
        self,
        owner: param.Parameterized,
        name: str,
        *,
        log_base: float = 2.0,
        step: float = 0.125,
        digits: int = 4,
    ) -> None:
        p = owner.param[name]
        self._owner, self._name = owner, name
        self._base = float(log_base)
        self._integer = isinstance(p, param.Integer)
        self._digits = digits
        self._syncing = False
        self._sending = False
        low, high = p.bounds
        code = _LOG_FORMAT_JS.format(
            base=self._base, integer="true" if self._integer else "false", digits=digits
        )
        self.widget = pn.widgets.FloatSlider(
            label=p.label,
            start=self._log(low),
            end=self._log(high),
            step=step,
            value=self._log(getattr(owner, name)),
            format=CustomJSTickFormatter(code=code),
            sizing_mode="stretch_width",
        )
        self.widget.param.watch(self._from_slider, "value")
        owner.param.watch(self._from_param, name)
        owner.param.watch(self._from_bounds, name, what="bounds")

    def _log(self, value: float) -> float:
        return math.log(value) / math.log(self._base)

    def value_at(self, x: float) -> float | int:
        """The parameter value for slider position ``x`` (as its label shows it).

        ``x`` outside the slider (a browser may send any number) counts as its
        nearest end; NaN as its start.
        """
        start, end = self.widget.start, self.widget.end
        x = start if math.isnan(x) else min(max(x, start), end)
        raw = self._base**x
        low, high = self._owner.param[self._name].bounds
        # floor(v + 0.5) is JavaScript's Math.round (Python's round() ties to even).
        value: float | int = (
            math.floor(raw + 0.5) if self._integer else _round_significant(raw, self._digits)
        )
        return min(max(value, low), high)

    def _quietly(self, **values: float) -> None:
        self._syncing = True
        try:
            self.widget.param.update(values)
        finally:
            self._syncing = False

    def _from_slider(self, event: param.parameterized.Event) -> None:
        if self._syncing:
            return
        value = self.value_at(event.new)
        if value != getattr(self._owner, self._name):
            self._sending = True
            try:
                self._owner.param.update({self._name: value})
            finally:
                self._sending = False
        if not (math.isfinite(event.new) and self.widget.start <= event.new <= self.widget.end):
            # Past the slider's ends: put the handle back on the value used.
            self._quietly(value=self._log(getattr(self._owner, self._name)))

    def _from_param(self, event: param.parameterized.Event) -> None:
        if self._sending:
            return  # this slider set it: no correction sent back
        x = self._log(event.new)
        if abs(self.widget.value - x) > 1e-12:
            self._quietly(value=x)

    def _from_bounds(self, event: param.parameterized.Event) -> None:
        low, high = event.new
        self._quietly(start=self._log(low), end=self._log(high))
