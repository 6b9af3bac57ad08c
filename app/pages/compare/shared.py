"""What the Compare page's cards share: the verdict under each figure, the order check's
words, and the small figures' options."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

from bokeh.models import NumeralTickFormatter

from ...chart import Chart
from ...look import OKABE_ITO, WARNING, escape_text, plot_opts
from ...numbers import fixed
from .columns import ORDER_PAIR, SchemeColumn, column
from .verdicts import order_check, verdict

__all__ = [
    "BADGES",
    "SMALL",
    "SchemeChart",
    "order_words",
    "short_ticks",
    "similarity",
    "verdict_html",
]

#: Options every card's figure shares: small, no toolbar (five figures side by side).
SMALL = plot_opts(height=270, min_width=200, toolbar=None, fontscale=0.95)
#: Lengths on an axis read 4k, 16k, 1M (a Bokeh model: one per figure drawn).
short_ticks = partial(NumeralTickFormatter, format="0a")

#: Decimals of a similarity: with three, the learned table's 0.99984 (order-aware)
#: would read 1.000, the value of an order-blind scheme.
_DECIMALS = 4

#: Verdict kinds → (edge colour, background): colour-blind safe, the text keeps
#: the theme's colour (readable on light and dark), and every badge says its
#: verdict in words.
BADGES = {
    "breaks": (WARNING, "rgba(213, 94, 0, 0.16)"),
    "unseen": (OKABE_ITO["orange"], "rgba(230, 159, 0, 0.18)"),
    "fine": (OKABE_ITO["blue"], "rgba(0, 114, 178, 0.16)"),
}

# With the verdict's text: it reads the same in any pane (a card, an export).
_VERDICT_CSS = """<style>
.badge { display: inline-block; font-weight: 700; padding: 0.15em 0.55em; border-radius: 4px;
  border-left: 5px solid; margin-bottom: 0.35em; }
.verdict { line-height: 1.45; font-size: 0.95em; }
.verdict p { margin: 0.25em 0; }
</style>"""


def similarity(value: float) -> str:
    """A cosine similarity of the order check, every one with the same decimals."""
    return fixed(value, _DECIMALS)


def order_words(value: float) -> str:
    return "order-blind" if abs(1.0 - value) <= 1e-12 else "order-aware"


def verdict_html(p: Any, scheme: SchemeColumn) -> str:
    """The verdict of one column as HTML (numbers only; no user text)."""
    v = verdict(p, scheme.key)
    color, background = BADGES[v.kind]
    check = order_check(scheme)
    a, b = ORDER_PAIR
    order = f"Order: “{a}” vs “{b}” → {similarity(check.own)}, {order_words(check.own)}"
    if scheme.order_causal:
        order += f" (causal mask alone: {similarity(check.without)})"
    return (
        f'{_VERDICT_CSS}<div class="verdict"><span class="badge" style="border-color:{color};'
        f'background:{background}">{escape_text(v.headline)}</span>'
        f"<p>{v.detail}</p><p><i>Parameters added:</i> {v.parameters}.</p>"
        f"<p>{order}.</p></div>"
    )


class SchemeChart(Chart):
    """A card of one scheme (``key``): the verdict of its column is its readout."""

    key: ClassVar[str] = ""

    def readout(self, p: Any) -> str:
        return verdict_html(p, column(self.key))
