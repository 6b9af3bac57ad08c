"""The guided lesson (``?page=lesson&step=N``): one idea a step, in teaching order.

Each step shows one figure of a topic page, with only the controls that step
needs beside it, two to four sentences, a multiple-choice question whose
feedback the core computes (:mod:`app.lesson.checks`), and a link that opens
the full page at the same settings. The steps themselves are data
(``steps.toml``). Each step owns an instance of its topic page, built on
first visit, so a step keeps its settings when the class moves on and back.

Next / Previous (and the ← / → keys, ``app/static/lesson.js``) move between
steps; the address holds the step and its controls' values, so a teacher can
prepare a link to any step at any setting. With ``present=1`` a step fits a
1280 × 720 projector (``app/static/present.js``); "Start a class" lets the
students' sessions follow the teacher's (:mod:`app.lesson.classroom`).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import panel as pn
import param
from panel.io.state import set_curdoc

from ..cards import figure_card, notice_pane
from ..page import Page
from ..respond import one_update
from ..urlstate import RESERVED_KEYS, encode_query, page_query, read_query, serialise_value
from .classroom import Classroom
from .question import check_view, choices_a_row
from .steps import STEPS, Step
from .turns import LATER, SOON, in_turn

__all__ = ["STEPS", "Lesson", "check_view"]

#: The step's title at the size of a page's title; the line above it smaller.
_HEADING_CSS = """
h2 { font-size: 1.875em; line-height: 1.2; font-weight: 650; margin-block: 0.2em 0.1em; }
.progress { font-size: 0.95em; font-weight: 600; opacity: 0.8; margin: 0; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.step-text { font-size: 1.06em; line-height: 1.55; max-width: 46em; margin-block: 0.3em; }
"""
#: The step's controls and question in a column beside its figure where the
#: figure keeps at least ~440 px (no sidebar below 900 px), under it elsewhere.
_STEP_CSS = """
:host {
  grid-template-columns: minmax(0, 1fr) %dpx !important;
  grid-template-rows: none !important; grid-auto-flow: row !important; align-items: start;
}
:host > * { grid-row: auto !important; grid-column: auto !important; }
@media (max-width: 759px), (min-width: 900px) and (max-width: 1099px) {
  :host { grid-template-columns: minmax(0, 1fr) !important; }
}
"""
#: The side column's width, and in the presenter view (20 px type).
SIDE, PRESENT_SIDE = 320, 420
#: Projected, the step's text runs the screen's width (three lines, not five).
_PRESENT_TEXT_CSS = ".step-text { max-width: none; margin-block: 0; }"
#: The navigation's buttons and "Step N of M" wrap on a narrow phone.
_WRAP_CSS = ":host { flex-wrap: wrap; align-items: flex-start; }"
#: How long after a step is shown the next one is built, hidden (the browser
#: draws the shown one first).
PREPARE_AFTER_MS = 400
#: Class names lesson.js finds the buttons by (the ← / → keys press them).
NEXT_CLASS, PREVIOUS_CLASS = "lesson-next", "lesson-previous"


class Lesson(pn.viewable.Viewer):
    """The lesson's state (the step shown) and its views, for one session."""

    slug: ClassVar[str] = "lesson"
    title: ClassVar[str] = "Guided lesson"

    step = param.Integer(default=1, bounds=(1, len(STEPS)), label="Step", doc="The step shown.")
    notes = param.List(default=[], item_type=str, precedence=-1, doc="What a link changed.")

    def __init__(
        self, pages: Mapping[str, type[Page]], present: bool = False, **params: Any
    ) -> None:
        super().__init__(**params)
        self._page_classes = pages
        #: The presenter view: each step's figure without its caption, the
        #: choices two a row, so a step fits a 1280 × 720 projector.
        self.present = present
        self._pages: dict[int, Page] = {}
        self._views: dict[int, pn.viewable.Viewable] = {}
        self._listeners: list[Callable[[], None]] = []
        self.figures: dict[str, Any] = {}  # the shell shows no single figure of the lesson
        self._body = pn.Column(sizing_mode="stretch_width")
        self._sidebar: pn.viewable.Viewable | None = None
        self._content: pn.viewable.Viewable | None = None
        self.param.watch(self._step_changed, "step")
        #: This session's part in a class (teacher, student or neither).
        self.classroom = Classroom(self.lesson_values, self.follow)
        self.classroom.param.watch(lambda *_: self._tell(), "room")  # the link holds it

    # ----------------------------------------------------------------- state
    @property
    def spec(self) -> Step:
        """The step shown."""
        return STEPS[self.step - 1]

    def step_page(self, number: int | None = None) -> Page:
        """The topic page behind step ``number`` (the one shown by default), built once."""
        number = self.step if number is None else number
        if number not in self._pages:
            spec = STEPS[number - 1]
            page = self._page_classes[spec.page]()
            page.set_state(**spec.start)
            page.param.watch(self._control_moved, list(spec.controls))
            self._pages[number] = page
        return self._pages[number]

    def lesson_values(self) -> dict[str, str]:
        """The step and its controls' values, as a link writes them (what a class follows)."""
        page = self.step_page()
        return {
            "step": str(self.step),
            **{name: serialise_value(getattr(page, name)) for name in self.spec.controls},
        }

    def link_values(self) -> dict[str, str]:
        return {**self.lesson_values(), **self.classroom.link_values()}

    def on_link_change(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` whenever what :meth:`link_values` returns may have changed."""
        self._listeners.append(callback)

    def _tell(self) -> None:
        self.classroom.changed()
        for callback in self._listeners:
            callback()

    def _control_moved(self, *_events: param.parameterized.Event) -> None:
        self.notes = []
        self._tell()

    def _step_changed(self, *_events: param.parameterized.Event) -> None:
        self.notes = []
        with one_update():
            self._show()
        self._tell()

    def _show(self) -> None:
        """Show the step's view. Views already built stay in the page, hidden: going
        back, or on to the step prepared in advance, sends no figure again."""
        shown = self.step_view(self.step)
        if not any(v is shown for v in self._body.objects):
            self._body.append(shown)
        for view in self._body.objects:
            view.visible = view is shown
        self._prepare(self.step + 1)

    def _prepare(self, number: int) -> None:
        """Build step ``number``'s view, hidden, once the shown step is on screen (a
        served session): Next, or a class following its teacher, then only unhides it."""
        doc = pn.state.curdoc
        if number > len(STEPS) or number in self._views or doc is None or not doc.session_context:
            return

        def build() -> None:
            if number in self._views or number != self.step + 1:  # built, or moved on
                return
            with set_curdoc(doc), one_update():
                view = self.step_view(number)
                view.visible = False
                self._body.append(view)

        # A following student's next step waits for the teacher's and for steps
        # students must show now (app/lesson/turns.py).
        later = self.classroom.following and self.classroom.role == "student"
        doc.add_timeout_callback(
            lambda: in_turn(doc, build, LATER if later else SOON), PREPARE_AFTER_MS
        )

    def apply_query(self, query: Mapping[str, Any]) -> list[str]:
        """Open the step and settings of a link, or join its class; say what was
        changed or ignored."""
        notes = self._set(query, also=("room", "lead"))
        self.notes = notes
        if query.get("room"):
            self.classroom.join(str(query["room"]), str(query.get("lead") or ""))
        return notes

    def follow(self, state: Mapping[str, Any]) -> None:
        """Show the step and settings a teacher shows (values as a link holds them)."""
        self._set(state)

    def _set(self, query: Mapping[str, Any], also: tuple[str, ...] = ()) -> list[str]:
        first = read_query(
            type(self).param, {k: v for k, v in query.items() if k == "step"}, ["step"]
        )
        if "step" in first.values:
            self.step = first.values["step"]
        controls = self.spec.controls
        ignored = [k for k in query if k not in (*RESERVED_KEYS, *also, "step", *controls)]
        page = self.step_page()
        page.apply_query({k: v for k, v in query.items() if k in controls})
        notes = first.notes + list(page.notes)
        if ignored:
            shown = ", ".join(repr(k[:24]) for k in ignored[:5])
            notes.append(f"Not a setting of step {self.step}, ignored: {shown}.")
        return notes

    # ----------------------------------------------------------------- views
    def full_page_link(self, number: int) -> str:
        """HTML: a link to step ``number``'s topic page with the step's settings."""
        spec, page = STEPS[number - 1], self.step_page(number)
        query = encode_query(page_query(spec.page, page, page.control_names()))
        return f'<a href="{html.escape(query)}">Open in the full page →</a>'

    def step_view(self, number: int) -> pn.viewable.Viewable:
        """Step ``number``: its text, figure, controls, question and link (built once;
        the title is :meth:`content`'s)."""
        if number not in self._views:
            spec, page = STEPS[number - 1], self.step_page(number)
            link = pn.pane.HTML(
                pn.bind(
                    lambda *_: self.full_page_link(number), *page.param.objects("existing").values()
                ),
                margin=(8, 10),
            )
            side = pn.Column(
                page.param_group(spec.controls, margin=(5, 0)),
                check_view(spec.check, columns=choices_a_row(spec.check) if self.present else 1),
                link,
                sizing_mode="stretch_width",
                margin=(6, 6),
            )
            card = figure_card(page.figures[spec.figure], compact=self.present)
            text_css = [_HEADING_CSS, _PRESENT_TEXT_CSS] if self.present else [_HEADING_CSS]
            grid_css = _STEP_CSS % (PRESENT_SIDE if self.present else SIDE)
            view = pn.Column(
                pn.pane.HTML(
                    f'<p class="step-text">{spec.text}</p>',
                    stylesheets=text_css,
                    sizing_mode="stretch_width",
                    margin=(0, 10),
                ),
                pn.GridBox(
                    card, side, ncols=2, sizing_mode="stretch_width", stylesheets=[grid_css]
                ),
                sizing_mode="stretch_width",
            )
            self._views[number] = page.wire(view)
        return self._views[number]

    def navigation(self) -> pn.Row:
        """Previous, Next, and "Step N of M" (under them on a narrow phone)."""
        previous = pn.widgets.Button(
            label="← Previous",
            css_classes=[PREVIOUS_CLASS],
            color="light",
            disabled=self.param.step.rx() <= 1,
            width=112,
        )
        following = pn.widgets.Button(
            label="Next →",
            css_classes=[NEXT_CLASS],
            color="primary",
            disabled=self.param.step.rx() >= len(STEPS),
            width=112,
        )
        previous.on_click(lambda _e: self.param.update(step=max(1, self.step - 1)))
        following.on_click(lambda _e: self.param.update(step=min(len(STEPS), self.step + 1)))
        where = pn.pane.HTML(
            self.param.step.rx().rx.pipe(
                # A screen reader hears the new step when Next (or the teacher) moves.
                lambda n: (
                    f'<p class="progress" role="status">Step {n} of {len(STEPS)}'
                    f'<span class="sr-only">: {html.escape(STEPS[n - 1].title)}</span></p>'
                )
            ),
            stylesheets=[_HEADING_CSS],
            margin=(14, 4, 0, 4),
        )
        return pn.Row(previous, following, where, margin=(4, 4), stylesheets=[_WRAP_CSS])

    def sidebar(self) -> pn.viewable.Viewable:
        """The steps, to jump to any of them; "Start a class" (and, projected, the class bar)."""
        if self._sidebar is None:
            options = {f"{i}. {s.title}": i for i, s in enumerate(STEPS, start=1)}
            self._sidebar = pn.Column(
                pn.widgets.Select.from_param(self.param.step, options=options, name="Go to step"),
                self.classroom.start_view(),
                *([self.classroom.view()] if self.present else []),
                sizing_mode="stretch_width",
            )
        return self._sidebar

    def content(self) -> pn.viewable.Viewable:
        """Navigation, the step's title, a notice of what a link changed, the step."""
        if self._content is None:
            self._show()
            title = pn.pane.HTML(
                self.param.step.rx().rx.pipe(
                    lambda n: f"<h2>{html.escape(STEPS[n - 1].title)}</h2>"
                ),
                stylesheets=[_HEADING_CSS],
                sizing_mode="stretch_width",
                margin=(0, 10),
            )
            # Projected, the title and the buttons share a line: a step is one screen.
            top = (
                [
                    pn.Row(
                        title,
                        self.navigation(),
                        sizing_mode="stretch_width",
                        stylesheets=[_WRAP_CSS],
                    )
                ]
                if self.present
                else [self.navigation(), title]
            )
            # Projected, the class bar waits in the sidebar (a step is one screen).
            bar = [] if self.present else [self.classroom.view()]
            self._content = pn.Column(
                *top,
                *bar,
                notice_pane(self.param.notes, kind="warning", title="Some settings were changed:"),
                self._body,
                sizing_mode="stretch_width",
            )
        return self._content

    def __panel__(self) -> pn.viewable.Viewable:
        return pn.Row(
            pn.Column(self.sidebar(), width=300), self.content(), sizing_mode="stretch_width"
        )
