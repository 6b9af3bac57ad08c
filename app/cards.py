"""The frame of every figure: its card (title, plot, readout, caption, formula),
notices, and the quick check.

Every message a notice shows is escaped (it may quote what a user typed); the
captions, formulas and questions are the app's own text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import panel as pn
import param

from .look import escape_text

__all__ = [
    "Figure",
    "Figures",
    "QuickCheck",
    "card_grid",
    "figure_card",
    "formula_pane",
    "is_shown",
    "lede",
    "notice_html",
    "notice_pane",
    "quick_check_card",
    "readout_pane",
    "shown_when",
]


#: Two cards a row, one on a screen where two would squeeze a figure: below
#: 1,240 px the sidebar (320) leaves each of two cards under ~430 px, less than
#: S2's clock face with its colour bar (a tablet, a projector zoomed to 150 %).
#: Bokeh places each child in a row and column of its own; auto placement lets
#: the cards flow into however many columns the screen has.
GRID_CSS = """
:host {
  grid-template-columns: repeat(2, minmax(0, 1fr)) !important;
  grid-template-rows: none !important; grid-auto-flow: row !important;
}
:host > * { grid-row: auto !important; grid-column: auto !important; }
@media (max-width: 1239px) {
  :host { grid-template-columns: minmax(0, 1fr) !important; }
}
"""


def card_grid(*cards: Any, stylesheets: tuple[str, ...] = ()) -> pn.GridBox:
    """Figure cards two a row on a wide screen, one a row on a narrow one
    (``stylesheets`` may widen it further on very wide screens)."""
    return pn.GridBox(
        *cards, ncols=2, sizing_mode="stretch_width", stylesheets=[GRID_CSS, *stylesheets]
    )


_NOTICE_CSS = """
:host { width: 100%; }
.notice { border-left: 4px solid var(--notice-edge); padding: 0.45em 0.8em;
  border-radius: 4px; background: var(--notice-bg); color: inherit; line-height: 1.4; }
.notice ul { margin: 0.2em 0 0 1.1em; padding: 0; }
.notice.info { --notice-edge: #0072B2; --notice-bg: rgba(0, 114, 178, 0.12); }
.notice.warning { --notice-edge: #E69F00; --notice-bg: rgba(230, 159, 0, 0.16); }
.notice.error { --notice-edge: #D55E00; --notice-bg: rgba(213, 94, 0, 0.14); }
"""


def notice_html(messages: Sequence[str] | str, kind: str = "warning", title: str = "") -> str:
    """HTML for a notice box; every message is escaped (it may quote user input)."""
    if isinstance(messages, str):
        messages = [messages]
    if not messages:
        return ""
    if kind not in {"info", "warning", "error"}:
        raise ValueError(f"kind must be info, warning or error, got {kind!r}")
    head = f"<strong>{escape_text(title)}</strong>" if title else ""
    if len(messages) == 1:
        body = f"{head} {escape_text(messages[0])}" if head else escape_text(messages[0])
    else:
        items = "".join(f"<li>{escape_text(m)}</li>" for m in messages)
        body = f"{head}<ul>{items}</ul>"
    return f'<div class="notice {kind}" role="status">{body}</div>'


#: A pane's ``styles`` while :func:`shown_when` hides it, and shows it (Bokeh
#: removes a style whose value is not a string; an absent key it leaves as it was).
HIDDEN = {"display": "none"}
SHOWN = {"display": None}


def shown_when(condition: Any) -> Any:
    """``styles`` that show a pane only while ``condition`` (a bool, or a reference
    to one) holds: pass as ``styles=``.

    Bokeh lays out the page's whole root again when a pane's ``visible`` changes,
    every figure's axes and canvas included: 65–78 ms when Context extension's
    YaRN ramp came and went with the method. A style is only the browser's CSS
    layout, and a figure whose size it changes lays itself out alone.
    """
    if isinstance(condition, bool):
        return SHOWN if condition else HIDDEN
    if isinstance(condition, param.rx):
        return condition.rx.pipe(lambda shown: SHOWN if shown else HIDDEN)
    return pn.bind(lambda shown: SHOWN if shown else HIDDEN, condition)


def is_shown(pane: Any) -> bool:
    """Whether ``pane`` is shown (``visible``, and not hidden by :func:`shown_when`)."""
    return bool(pane.visible) and (pane.styles or {}).get("display") != "none"


def notice_pane(
    messages: Sequence[str] | Callable[..., Any] | param.Parameter = (),
    kind: str = "warning",
    title: str = "",
) -> pn.pane.HTML:
    """A notice box that hides itself when there is nothing to say.

    ``messages`` is a list of strings or a reference (a ``param.depends``
    method or a parameter) returning one; the pane updates in place.
    """
    if callable(messages) or isinstance(messages, param.Parameter):
        ref = pn.bind(lambda m: notice_html(m, kind, title), messages)
        shown = pn.bind(lambda m: bool(m), messages)
    else:
        ref = notice_html(list(messages), kind, title)
        shown = bool(messages)
    return pn.pane.HTML(
        ref,
        styles=shown_when(shown),
        stylesheets=[_NOTICE_CSS],
        sizing_mode="stretch_width",
        margin=(4, 8),
    )


@dataclass(frozen=True)
class Figure:
    """One figure of a page, complete enough to be shown on its own (embedding).

    ``plot`` is built once per page instance and updates in place; ``controls``
    names the page parameters that drive it; ``readout`` is an optional pane
    of exact numbers shown under the plot.

    ``linked_axes=False`` keeps the figure's axes its own. Panel otherwise
    gives figures of the same dimensions one pair of axes (zoom one, the
    other follows), right for two views of one table, wrong for the same
    kind of plot at two lengths (Relative's T1b and T2). HoloViews'
    ``shared_axes=False`` unlinks them too, but HoloViews then never
    recomputes an overlay's ranges on an update: the axes kept the first
    frame's length when the sequence got shorter.
    """

    title: str
    plot: Any
    caption: str
    formula: str
    controls: tuple[str, ...]
    readout: Any = None
    extras: tuple[Any, ...] = field(default=())
    linked_axes: bool = True


class Figures(Mapping):
    """A page's figures by name, in order, each built by ``build(name)`` on first use
    (a lesson step shows one figure of its page; the others cost nothing)."""

    def __init__(self, names: Sequence[str], build: Callable[[str], Figure]) -> None:
        self._names, self._build = list(names), build
        self._built: dict[str, Figure] = {}

    def __getitem__(self, name: str) -> Figure:
        if name not in self._built:
            if name not in self._names:
                raise KeyError(name)
            self._built[name] = self._build(name)
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


_CAPTION_CSS = """
.caption { line-height: 1.5; margin: 0; }
"""

#: A figure's card: its title above the figure, on the card's own background
#: (the design's grey header bar made every card read as a dashboard panel).
_CARD_CSS = """
:host { box-shadow: none !important; outline: 1px solid rgba(128, 128, 128, 0.3) !important;
  border-radius: 6px; }
.card-header { background: transparent !important; border-bottom: 1px solid
  var(--neutral-stroke-divider-rest, rgba(128, 128, 128, 0.25)); padding-block: 0.35em; }
.card-title, .card-header-row { font-size: 1.125rem; font-weight: 600; }
"""

#: The "More" fold under a caption: a quiet disclosure, not a second card.
_MORE_CSS = """
:host { outline: none !important; box-shadow: none !important; background: transparent !important; }
.card-header { background: transparent !important; padding: 0.1em 0.3em !important;
  box-shadow: none !important; }
.card-title, .card-header-row { font-size: 0.95rem; font-weight: 600; }
"""

#: Where a caption's lede ends: a sentence end followed by a new sentence (not
#: "et al." or "e.g."), once at least :data:`LEDE_CHARACTERS` are said.
_SENTENCE_END = re.compile(
    r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bcf)[.!?]\s+(?=[A-Z(<\u201c\"])"
)
LEDE_CHARACTERS = 100


def lede(caption: str) -> tuple[str, str]:
    """``caption`` split into what a card shows at once and what it folds under "More".

    The shown part is the first sentences that say at least
    :data:`LEDE_CHARACTERS` characters of text (one short sentence alone
    rarely says what the figure draws); the rest may be empty.
    """
    for end in _SENTENCE_END.finditer(caption):
        if len(re.sub(r"<[^>]+>", "", caption[: end.start()])) >= LEDE_CHARACTERS:
            return caption[: end.start() + 1], caption[end.end() :]
    return caption, ""


# KaTeX turns the formula into MathML, which the browser typesets with its own
# maths fonts. (KaTeX's HTML output would need KaTeX's web fonts, which Panel
# does not bundle: offline they would be missing.)
_FORMULA_CSS = """
:host { font-size: 1.12em; }
/* A block, so a formula wider than a phone scrolls inside its card. */
.katex-display { display: block; margin: 0.2em 0 0.4em 0; overflow-x: auto; overflow-y: hidden; }
math { padding-bottom: 0.15em; }
"""


def formula_pane(formula: str, **params: Any) -> pn.pane.LaTeX:
    """A display formula rendered by KaTeX (``formula`` is trusted app text)."""
    return pn.pane.LaTeX(
        formula, renderer="katex", stylesheets=[_FORMULA_CSS], sizing_mode="stretch_width", **params
    )


def _caption(text: str, margin: tuple[int, ...]) -> pn.pane.HTML:
    return pn.pane.HTML(
        f'<p class="caption">{text}</p>',
        stylesheets=[_CAPTION_CSS],
        sizing_mode="stretch_width",
        margin=margin,
    )


def readout_pane(content: Any, css: str = "") -> pn.pane.HTML:
    """The exact numbers under a figure (``content``: HTML, or a reference to it).

    It keeps the tallest height it has had while the window keeps its width
    (``pe-readout``, app/static/narrow.js): a line of text more or less would
    move the page below it, and make Bokeh lay out every figure again.
    """
    return pn.pane.HTML(
        content,
        sizing_mode="stretch_width",
        margin=(0, 10),
        css_classes=["pe-readout"],
        stylesheets=[css] if css else [],
    )


def figure_card(fig: Figure, below: Sequence[Any] = (), compact: bool = False) -> pn.Card:
    """The standard frame of a figure: title, plot, readout, the caption's lede,
    then the rest of the caption and the formula folded under "More", and
    ``below`` (the page's quick check, when it asks about this figure).

    ``compact``: plot and readout only (a projected lesson step, whose own
    title and text say what the card's would).
    """
    plot = fig.plot if fig.linked_axes else pn.pane.HoloViews(fig.plot, linked_axes=False)
    items: list[Any] = [plot]
    if fig.readout is not None:
        items.append(fig.readout)
    if compact:
        return pn.Card(
            *items,
            hide_header=True,
            sizing_mode="stretch_width",
            margin=(6, 6),
            stylesheets=[_CARD_CSS],
        )
    items.extend(fig.extras)
    shown, folded = lede(fig.caption)
    items.append(_caption(shown, (6, 10, 0, 10)))
    more: list[Any] = [_caption(folded, (0, 4, 0, 4))] if folded else []
    # A few px under the caption: flush, its last line touched the formula.
    more.append(formula_pane(fig.formula, margin=(4, 4, 2, 4)))
    items.append(
        pn.Card(
            *more,
            title="More",
            collapsed=True,
            sizing_mode="stretch_width",
            margin=(2, 6, 4, 6),
            stylesheets=[_MORE_CSS],
        )
    )
    items.extend(below)
    return pn.Card(
        *items,
        title=fig.title,
        collapsible=False,
        sizing_mode="stretch_width",
        margin=(6, 6),
        stylesheets=[_CARD_CSS],
    )


@dataclass(frozen=True)
class QuickCheck:
    """A question whose answer the page computes from the core (a reference)."""

    question: str
    answer: Any  # a reference (param.depends method) returning the answer as HTML; it
    # must escape anything a user typed (``escape_text``)
    #: The figure it asks about: the check stands under that figure's card.
    figure: str | None = None


class _AnswerHTML(pn.pane.HTML):
    """An HTML pane whose updates send only its text.

    A collapsed Card hides its children in the browser (``visible = false``,
    which Bokeh syncs back to the server model), and Panel's HTML update sends
    every property of the pane again. So each new answer made the hidden pane
    visible and the Card hid it again: two re-layouts of the whole page, about
    400 ms of the browser's time per slider move, for a text nobody could see.
    """

    def _update(self, ref: str, model: Any) -> None:
        text = self._get_properties(model.document)["text"]
        if model.text != text:
            model.text = text


#: The quick check set apart from the caption: an accent bar at its side.
_CHECK_CSS = """
:host { border-left: 4px solid #0072B2; background: rgba(0, 114, 178, 0.07); border-radius: 4px; }
"""


def quick_check_card(check: QuickCheck) -> pn.Column:
    """The question, and the answer in a collapsed card revealed on click."""
    answer = pn.Card(
        _AnswerHTML(check.answer, sizing_mode="stretch_width"),
        title="Show the answer",
        collapsed=True,
        sizing_mode="stretch_width",
        margin=(0, 6, 6, 6),
        stylesheets=[_MORE_CSS],
    )
    return pn.Column(
        pn.pane.Markdown(f"**Quick check.** {check.question}", margin=(6, 12, 0, 12)),
        answer,
        sizing_mode="stretch_width",
        margin=(8, 6, 6, 6),
        stylesheets=[_CHECK_CSS],
    )
