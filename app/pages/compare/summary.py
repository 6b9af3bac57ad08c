"""The Compare page's words: the verdict under each card, and the summary under the cards
(what each scheme adds, where position enters, what happens at L′, the order check)."""

from __future__ import annotations

from typing import Any

import numpy as np
import panel as pn

from positional_core.attention import ORDER_PAIR

from ...look import OKABE_ITO, WARNING, escape_text
from ...numbers import ROUNDING, similarity
from .columns import SCHEME_COLUMNS, SchemeColumn
from .verdicts import VERDICT_CONTROLS, no_positions, order_check, verdict

__all__ = ["VERDICT_CSS", "summary_card", "summary_table", "verdict_html"]

#: Verdict kinds → (edge colour, background): colour-blind safe, the text keeps
#: the theme's colour (readable on light and dark), and every badge says its
#: verdict in words.
BADGES = {
    "breaks": (WARNING, "rgba(213, 94, 0, 0.16)"),
    "unseen": (OKABE_ITO["orange"], "rgba(230, 159, 0, 0.18)"),
    "fine": (OKABE_ITO["blue"], "rgba(0, 114, 178, 0.16)"),
}

VERDICT_CSS = """
.badge { display: inline-block; font-weight: 700; padding: 0.15em 0.55em; border-radius: 4px;
  border-left: 5px solid; margin-bottom: 0.35em; }
.verdict { line-height: 1.45; font-size: 0.95em; }
.verdict p { margin: 0.25em 0; }
"""

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
/* A phone has no room for six columns: each scheme becomes a block of its own,
   each value after its column's name, instead of a table to scroll sideways. */
@media (max-width: 700px) {
  thead { display: none; }
  table, tbody, tr, td { display: block; }
  tr { padding: 6px 0; border-bottom: 1px solid rgba(128, 128, 128, 0.35); }
  td { border-bottom: none; padding: 2px 8px; }
  td:first-child { font-size: 1.08em; padding-top: 4px; }
  td[data-label]::before { content: attr(data-label) ": "; font-weight: 700; }
}
"""


def _similarity(value: float, sep: str) -> str:
    """A similarity of the order check and its word, by the one rule of every similarity
    (:func:`app.numbers.similarity`): three decimals, and the learned table's 0.99984,
    order-aware, reads "≈ 1 (0.99984)", never the "1.000" of an order-blind scheme."""
    words = "order-blind" if abs(1.0 - value) <= ROUNDING else "order-aware"
    return f"{similarity(value)}{sep} {words}"


def verdict_html(p: Any, scheme: SchemeColumn) -> str:
    """The verdict of one column as HTML (numbers only; no user text)."""
    v = verdict(p, scheme.key)
    color, background = BADGES[v.kind]
    check = order_check(scheme)
    order = f"Order: “{ORDER_PAIR[0]}” vs “{ORDER_PAIR[1]}” → {_similarity(check.own, ',')}"
    if scheme.order_causal and scheme.order_scheme != "none":  # else it is the mask alone
        order += f" (causal mask alone: {similarity(check.without)})"
    return (
        f'<div class="verdict"><span class="badge" style="border-color:{color};'
        f'background:{background}">{escape_text(v.headline)}</span>'
        f"<p>{v.detail}</p><p><i>Parameters added:</i> {v.parameters}.</p>"
        f"<p>{order}.</p></div>"
    )


def _order_cell(scheme: SchemeColumn) -> str:
    check = order_check(scheme)
    text = _similarity(check.own, ":")
    if scheme.order_causal and scheme.order_scheme != "none":
        text += f" with its causal mask (the mask alone: {similarity(check.without)})"
    elif scheme.order_causal:
        text += " with the causal mask alone"
    if not np.isnan(check.symmetric):
        text += (
            f"; symmetric −m·|i − j|: {_similarity(check.symmetric, ',')} for this pair — "
            "reversing a sentence keeps every distance"
        )
    return text


def summary_table(p: Any) -> str:
    """The summary as HTML (numbers and the app's own texts only)."""
    columns = (
        "parameters added",
        "where position enters",
        "the score depends on",
        f"at L′ = {p.target_len:,} (trained L = {p.trained_len:,})",
        f"order check: “{ORDER_PAIR[0]}” vs “{ORDER_PAIR[1]}”",
    )
    head = "<tr><th>scheme</th>" + "".join(f"<th>{name}</th>" for name in columns) + "</tr>"
    rows = []
    for scheme in SCHEME_COLUMNS:
        v = verdict(p, scheme.key)
        cells = (
            ("num", v.parameters),
            ("", scheme.enters),
            ("", scheme.depends),
            (
                "",
                f'<span class="mark" style="background:{BADGES[v.kind][0]}"></span>'
                f"{escape_text(v.short)}",
            ),
            ("num", _order_cell(scheme)),
        )
        rows.append(
            f"<tr><td><b>{scheme.title}</b></td>"
            + "".join(
                f'<td class="{kind}" data-label="{label}">{text}</td>'
                for (kind, text), label in zip(cells, columns, strict=True)
            )
            + "</tr>"
        )
    note = (
        "<p>With no position information at all the two sentences give "
        f"{_similarity(no_positions(), ':')}. Every value above is computed "
        "by the same attention layer as the Order page, whose weights are random with a "
        "fixed seed: other weights give other values, not other verdicts.</p>"
    )
    # Focusable and named: where the table is wider than the screen it scrolls
    # sideways, by keyboard too.
    table = f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
    return f'<div class="wrap" tabindex="0" role="region" aria-label="Summary">{table}</div>{note}'


def summary_card(p: Any) -> pn.Card:
    """The summary in its card, following every control a verdict reads."""
    controls = dict.fromkeys(name for names in VERDICT_CONTROLS.values() for name in names)
    table = pn.bind(lambda *_: summary_table(p), *(p.param[name] for name in controls))
    return pn.Card(
        pn.pane.HTML(table, stylesheets=[_TABLE_CSS], sizing_mode="stretch_width"),
        title="Summary: what each scheme adds, and what happens at L′",
        collapsible=False,
        sizing_mode="stretch_width",
        margin=(6, 6),
    )
