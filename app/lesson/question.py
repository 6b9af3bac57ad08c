"""A lesson step's question: one button per choice, and the feedback the core computes."""

from __future__ import annotations

import html

import panel as pn

from .checks import GRADERS
from .steps import Check

__all__ = ["check_view", "choices_a_row"]

_CHECK_CSS = """
:host { border-left: 4px solid #0072B2; background: rgba(0, 114, 178, 0.07); border-radius: 4px; }
.right, .wrong { font-weight: 650; }
p { margin-block: 0.35em; }
"""


def choices_a_row(check: Check) -> int:
    """How many choices stand in a row of the projected side column: four
    numbers, two short phrases, else one."""
    longest = max(len(c) for c in check.choices)
    return 4 if longest <= 6 else 2 if longest <= 18 else 1


def check_view(check: Check, columns: int = 1) -> pn.Column:
    """The question, one button per choice (``columns`` a row), and the feedback
    the core computes on a click."""
    feedback = pn.pane.HTML(
        "", sizing_mode="stretch_width", margin=(0, 12, 8, 12), stylesheets=[_CHECK_CSS]
    )

    def choose(index: int) -> None:
        grade = GRADERS[check.grade](check.choices)
        chosen = html.escape(check.choices[index])
        if index == grade.correct:
            verdict = f'<span class="right">Right: {chosen}.</span>'
        else:
            right = html.escape(check.choices[grade.correct])
            verdict = f'<span class="wrong">Not {chosen}:</span> the answer is {right}.'
        feedback.object = f'<p role="status">{verdict} {grade.why}</p>'

    buttons = []
    for i, choice in enumerate(check.choices):
        button = pn.widgets.Button(
            label=choice, color="light", sizing_mode="stretch_width", margin=(2, 10)
        )
        button.on_click(lambda _e, i=i: choose(i))
        buttons.append(button)
    return pn.Column(
        pn.pane.HTML(
            f"<p><b>{html.escape(check.label)}.</b> {check.question}</p>",
            sizing_mode="stretch_width",
            margin=(4, 12, 0, 12),
        ),
        pn.GridBox(*buttons, ncols=columns, sizing_mode="stretch_width"),
        feedback,
        sizing_mode="stretch_width",
        margin=(6, 6, 4, 6),
        stylesheets=[_CHECK_CSS],
    )
