"""The summary under the cards: what each scheme adds, where position enters, what happens
at L′, and the order check."""

from __future__ import annotations

from typing import Any

import numpy as np
import panel as pn

from ...look import escape_text
from .columns import ORDER_PAIR, SCHEME_COLUMNS
from .shared import BADGES, order_words, similarity
from .verdicts import VERDICT_CONTROLS, no_positions, order_check, verdict

__all__ = ["SUMMARY_CONTROLS", "summary_card", "summary_table"]

#: Every control a verdict reads.
SUMMARY_CONTROLS = tuple(dict.fromkeys(n for names in VERDICT_CONTROLS.values() for n in names))

_TABLE_CSS = """
:host { width: 100%; }
.wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.93em; line-height: 1.4; }
th, td { text-align: left; vertical-align: top; padding: 5px 8px;
  border-bottom: 1px solid rgba(128, 128, 128, 0.35); }
th { font-weight: 700; }
td.num { font-variant-numeric: tabular-nums; }
.mark { display: inline-block; width: 0.65em; height: 0.65em; border-radius: 2px;
  margin-right: 0.4em; }
"""


def _order_cell(scheme: Any) -> str:
    check = order_check(scheme)
    text = f"{similarity(check.own)}: {order_words(check.own)}"
    if scheme.order_causal:
        text += f" with its causal mask (the mask alone: {similarity(check.without)})"
    if not np.isnan(check.symmetric):
        text += (
            f"; symmetric −m·|i − j|: {similarity(check.symmetric)}, "
            f"{order_words(check.symmetric)} for this pair — reversing a sentence keeps "
            "every distance"
        )
    return text


def summary_table(p: Any) -> str:
    """The summary as HTML (numbers and the app's own texts only)."""
    head = (
        "<tr><th>scheme</th><th>parameters added</th><th>where position enters</th>"
        "<th>the score depends on</th>"
        f"<th>at L′ = {p.target_len:,} (trained L = {p.trained_len:,})</th>"
        f"<th>order check: “{ORDER_PAIR[0]}” vs “{ORDER_PAIR[1]}”</th></tr>"
    )
    rows = []
    for scheme in SCHEME_COLUMNS:
        v = verdict(p, scheme.key)
        color, _ = BADGES[v.kind]
        rows.append(
            f"<tr><td><b>{scheme.title}</b></td><td class='num'>{v.parameters}</td>"
            f"<td>{scheme.enters}</td><td>{scheme.depends}</td>"
            f'<td><span class="mark" style="background:{color}"></span>'
            f"{escape_text(v.short)}</td>"
            f"<td class='num'>{_order_cell(scheme)}</td></tr>"
        )
    none = no_positions()
    note = (
        f"<p>With no position information at all the two sentences give "
        f"{similarity(none)}: {order_words(none)}. Every value above is computed "
        "by the same fixed attention layer as the Order page.</p>"
    )
    return f'<div class="wrap"><table>{head}{"".join(rows)}</table></div>{note}'


def summary_card(p: Any) -> pn.Card:
    """The summary in its card, following every control a verdict reads."""
    table = pn.bind(lambda *_: summary_table(p), *(p.param[n] for n in SUMMARY_CONTROLS))
    return pn.Card(
        pn.pane.HTML(table, stylesheets=[_TABLE_CSS], sizing_mode="stretch_width"),
        title="Summary: what each scheme adds, and what happens at L′",
        collapsible=False,
        sizing_mode="stretch_width",
        margin=(6, 6),
    )
