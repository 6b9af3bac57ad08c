"""What the Compare page's figures share: a card per scheme, small options, short ticks."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

from bokeh.models import NumeralTickFormatter

from ...chart import Chart
from ...look import plot_opts
from .columns import SCHEME_COLUMNS, column
from .summary import VERDICT_CSS, verdict_html
from .verdicts import VERDICT_CONTROLS

__all__ = ["SMALL", "SchemeChart", "short_ticks"]

#: Options every card's figure shares: small, no toolbar (five figures side by side).
SMALL = plot_opts(height=270, min_width=200, toolbar=None, fontscale=0.95)
#: Lengths on an axis read 4k, 16k, 1M (a Bokeh model: one per figure drawn).
short_ticks = partial(NumeralTickFormatter, format="0a")


class SchemeChart(Chart):
    """The card of one scheme, ``class Learned(SchemeChart, key="learned")``: its title,
    caption and formula are its column's, its readout the column's verdict."""

    key: ClassVar[str] = ""
    readout_css: ClassVar[str] = VERDICT_CSS

    def __init_subclass__(cls, key: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        scheme = column(key)
        cls.key, cls.caption, cls.formula = key, scheme.caption, scheme.formula
        cls.title = f"C{SCHEME_COLUMNS.index(scheme) + 1} · {scheme.title}"
        cls.readout_depends = VERDICT_CONTROLS[key]

    def readout(self, p: Any) -> str:
        return verdict_html(p, column(self.key))
