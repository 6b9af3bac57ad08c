"""R1's buttons ("Shift both by +1", "Swap m and n", "Clear log"), the score log they fill,
and the score identity with the current numbers.

The log is the page's ``log`` parameter, newest first: ``(action, m, n, θ, score)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import panel as pn

from positional_core.rope import RopeScoreTerms, pair_from_polar, rope_score_terms

from ...cards import formula_pane, notice_pane
from ...numbers import fixed, integer, tex

__all__ = ["LOG_ROWS", "contents", "identity", "score_log_extras", "terms"]

#: Longest score log kept (newest first).
LOG_ROWS = 50


def contents(p: Any) -> tuple[np.ndarray, np.ndarray]:
    """R1's q and k before rotation, from their direction and length controls."""
    return pair_from_polar(p.q_angle, p.q_len), pair_from_polar(p.k_angle, p.k_len)


def terms(p: Any) -> RopeScoreTerms:
    """R1's score and its parts, from the page's contents, positions and θ."""
    return rope_score_terms(*contents(p), p.m, p.n, p.theta)


def identity(p: Any) -> str:
    """The score identity with the current numbers (KaTeX)."""
    t = terms(p)
    mn = rf"({p.m}-{p.n})\cdot {tex(p.theta, 2)}"
    return (
        r"$$\begin{aligned}\text{score} &= (q\cdot k)\cos\big((m-n)\theta\big)"
        r" + (q_1k_2-q_2k_1)\sin\big((m-n)\theta\big)\\"
        rf"&= ({tex(t.dot)})\cos\big({mn}\big) + ({tex(t.cross)})\sin\big({mn}\big)\\"
        rf"&= {tex(t.dot)}\times {tex(t.cos)} + {tex(t.cross)}\times {tex(t.sin)}"
        rf" = \mathbf{{{tex(t.score)}}}\end{{aligned}}$$"
    )


def _row(p: Any, action: str) -> tuple[str, int, int, float, float]:
    return (action, p.m, p.n, p.theta, terms(p).score)


def _act(p: Any, action: str, values: dict[str, int]) -> None:
    """Log the state before (unless it is the newest row), act, log the state after."""
    before = _row(p, "before")
    if not p.log or p.log[0][1:] != before[1:]:
        p.log = [before, *p.log][:LOG_ROWS]
    p.param.update(r1_notes=[], **values)
    p.log = [_row(p, action), *p.log][:LOG_ROWS]


def _shift_both(p: Any) -> None:
    """Move query and key one position on: the score must not change."""
    top = p.param.m.bounds[1]
    if max(p.m, p.n) + 1 > top:
        p.r1_notes = [f"Positions stop at {top:,}: move m and n down first."]
        return
    _act(p, "shift both +1", {"m": p.m + 1, "n": p.n + 1})


def _swap(p: Any) -> None:
    """Exchange the positions: the offset changes sign (and so the sine term)."""
    _act(p, "swap m and n", {"m": p.n, "n": p.m})


def _clear(p: Any) -> None:
    p.param.update(log=[], r1_notes=[])


def _log_html(log: list[tuple[str, int, int, float, float]]) -> str:
    if not log:
        return (
            '<p class="rope-log-empty">The log is empty: press <b>Shift both by +1</b> or '
            "<b>Swap m and n</b> and each state appears here with its score.</p>"
        )
    body = "".join(
        f"<tr><td>{action}</td><td>{m:,}</td><td>{n:,}</td><td>{integer(n - m)}</td>"
        f"<td>{fixed(theta, 2)}</td><td><b>{fixed(score)}</b></td></tr>"
        for action, m, n, theta, score in log
    )
    return (
        '<table class="rope-log"><caption>Score log, newest first</caption>'
        "<thead><tr><th>action</th><th>m</th><th>n</th><th>n − m</th><th>θ</th>"
        f"<th>score</th></tr></thead><tbody>{body}</tbody></table>"
    )


_LOG_CSS = """
.rope-log { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums;
  font-size: 0.92em; }
.rope-log caption { text-align: left; font-weight: 600; padding: 2px 0 4px 0; }
.rope-log th, .rope-log td { padding: 2px 8px; text-align: right;
  border-bottom: 1px solid rgba(128, 128, 128, 0.35); }
.rope-log th:first-child, .rope-log td:first-child { text-align: left; }
.rope-log tbody tr:first-child { background: rgba(0, 114, 178, 0.12); }
.rope-log-empty { margin: 4px 0; opacity: 0.85; }
:host { max-height: 260px; overflow-y: auto; }
"""


def score_log_extras(p: Any, controls: tuple[str, ...]) -> list[Any]:
    """The buttons, the note of a button that did nothing, the log, and the identity
    following ``controls`` (last: the page's layout puts it under the plot, at full width)."""
    buttons = []
    for label, color, action in (
        ("Shift both by +1", "primary", _shift_both),
        ("Swap m and n", "primary", _swap),
        ("Clear log", "light", _clear),
    ):
        button = pn.widgets.Button(label=label, color=color)
        button.on_click(lambda _event, act=action: act(p))
        buttons.append(button)
    return [
        # Wrapped, not clipped, when the column beside R1 is narrow.
        pn.FlexBox(*buttons, flex_wrap="wrap", margin=(4, 6)),
        notice_pane(p.param.r1_notes, kind="info"),
        pn.pane.HTML(
            pn.bind(_log_html, p.param["log"]),
            stylesheets=[_LOG_CSS],
            sizing_mode="stretch_width",
            margin=(0, 10),
        ),
        formula_pane(
            pn.bind(lambda *_: identity(p), *(p.param[c] for c in controls)), margin=(0, 10)
        ),
    ]
