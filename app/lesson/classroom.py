"""Follow the teacher: one lesson session's part in a class (:mod:`app.lesson.rooms`).

A session is on its own, the teacher of a room (it holds the room's lead
token: each of its changes is published), or a student of one (it applies the
teacher's changes, unless the student chose to explore on their own; "Rejoin"
catches up). The address bar shows ``room=R`` but never the lead token: a
projected screen would show it to the class.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

import panel as pn
import param
from panel.io.state import set_curdoc
from tornado.ioloop import IOLoop

from ..cards import notice_html
from .rooms import CODE_LENGTH, Rooms, RoomsError, rooms_available, rooms_for
from .turns import NOW, in_turn

__all__ = ["Classroom"]

_BAR_CSS = """
:host { border-left: 4px solid #E69F00; background: rgba(230, 159, 0, 0.10); border-radius: 4px; }
"""
#: The room's code large enough to read from the back of the room.
_TEXT_CSS = """
:host { flex: 1 1 240px; min-width: 0; }
.code { font-size: 1.4em; font-weight: 700; letter-spacing: 0.08em; }
p { margin-block: 0.3em; }
"""


class Classroom(param.Parameterized):
    """The class state of one lesson session; ``apply`` sets the lesson from a state."""

    role = param.Selector(default="", objects=["", "teacher", "student"], doc="In a class as.")
    room = param.String(default="", doc="The room's code ('' outside a class).")
    following = param.Boolean(default=True, doc="A student applies the teacher's changes.")
    message = param.String(default="", doc="Why a class could not be started or joined.")

    def __init__(
        self,
        state: Callable[[], dict[str, str]],
        apply: Callable[[Mapping[str, str]], None],
        rooms: Rooms | None = None,
        **params: Any,
    ) -> None:
        super().__init__(**params)
        self._state, self._apply = state, apply
        self._rooms = rooms if rooms is not None else rooms_for()
        self._token = ""
        self._handle: int | None = None
        self._newest: dict[str, str] | None = None  # the teacher's state, not yet shown
        self._doc = pn.state.curdoc if pn.state.curdoc and pn.state.curdoc.session_context else None
        self._loop = IOLoop.current() if self._doc is not None else None

    # ------------------------------------------------------------------ roles
    def start(self) -> None:
        """Open a room led by this session ("Start a class")."""
        why = rooms_available()
        if why:
            self.message = why
            return
        try:
            room = self._rooms.open(self._state())
        except RoomsError as error:
            self.message = f"No class can start right now: {error}."
            return
        self._token = room.token
        self.param.update(role="teacher", room=room.code, message="")

    def join(self, code: str, lead: str = "") -> None:
        """Join room ``code``: as its teacher with a valid ``lead`` token, else as a student."""
        try:
            self._join(code.strip().upper()[:CODE_LENGTH], lead)
        except RoomsError as error:
            self.message = f"This class cannot be joined right now: {error}."

    def _join(self, code: str, lead: str) -> None:
        if self._rooms.get(code) is None:
            self.message = f"There is no class {code!r} on this server (it may have ended)."
            return
        if lead and self._rooms.leads(code, lead):
            self._token = lead
            self.param.update(role="teacher", room=code, message="")
            self.changed()
            return
        note = "This teacher link is not valid; you follow the class as a student." if lead else ""
        self._handle = self._rooms.follow(code, self._receive)
        self.param.update(role="student", room=code, following=True, message=note)
        self._release_with_session(code)
        room = self._rooms.get(code)
        if room is not None and room.state:
            self._apply(room.state)

    def changed(self) -> None:
        """The lesson changed: a teacher tells the room."""
        if self.role != "teacher":
            return
        try:
            self._rooms.publish(self.room, self._token, self._state())
        except RoomsError as error:
            self.message = f"Your class did not get this change: {error}."
        else:
            self.message = ""

    def explore(self) -> None:
        self.following = False

    def rejoin(self) -> None:
        self.following = True
        try:
            room = self._rooms.get(self.room)
        except RoomsError as error:
            self.message = f"Could not catch up with the class: {error}."
            return
        if room is not None and room.state:
            self._apply(room.state)

    def link_values(self) -> dict[str, str]:
        return {"room": self.room} if self.room else {}

    # -------------------------------------------------------------- students
    def _receive(self, state: dict[str, str]) -> None:
        """The teacher changed something: apply it on this session's own document."""
        if self._doc is None:
            self._follow(state)
            return
        # Into the server's loop first, then in turn with the other sessions'
        # builds (app/lesson/turns.py). Redis delivers on a thread of its own,
        # and only the loop's add_callback is safe from there: a document's
        # add_next_tick_callback records an event, which a hold being released
        # on the loop at that moment can drop (Bokeh and Panel swap the list of
        # held events without a lock), and the student would miss the change.
        self._loop.add_callback(self._queue, state)

    def _queue(self, state: dict[str, str]) -> None:
        # Each state is the teacher's whole step and settings: a student still
        # waiting for a turn when the teacher moves on shows only the newest,
        # instead of building every step the teacher passed through.
        waiting = self._newest is not None
        self._newest = state
        if not waiting:
            in_turn(self._doc, self._run, NOW)

    def _run(self) -> None:
        state, self._newest = self._newest, None
        if state is not None:
            with set_curdoc(self._doc):
                self._follow(state)

    def _follow(self, state: dict[str, str]) -> None:
        if self.following and self.role == "student":
            self._apply(state)

    def _release_with_session(self, code: str) -> None:
        if self._doc is not None and self._handle is not None:
            handle = self._handle
            self._doc.on_session_destroyed(lambda _ctx: self._rooms.unfollow(code, handle))

    # ------------------------------------------------------------------ view
    def view(self) -> pn.Column:
        """The class bar, shown in a class: the room, who leads it, and a student's
        "Explore on my own" / "Rejoin"; and why a class could not start or be joined."""
        role, following = self.param.role, self.param.following
        explore = pn.widgets.Button(
            label="Explore on my own",
            color="light",
            width=180,
            visible=pn.bind(lambda r, f: r == "student" and f, role, following),
        )
        rejoin = pn.widgets.Button(
            label="Rejoin",
            color="primary",
            width=120,
            visible=pn.bind(lambda r, f: r == "student" and not f, role, following),
        )
        explore.on_click(lambda _e: self.explore())
        rejoin.on_click(lambda _e: self.rejoin())
        text = pn.pane.HTML(
            pn.bind(self._describe, role, self.param.room, following),
            margin=(0, 10),
            stylesheets=[_TEXT_CSS],
        )
        bar = pn.FlexBox(
            text,
            explore,
            rejoin,
            flex_wrap="wrap",
            align_items="center",
            sizing_mode="stretch_width",
            margin=(4, 6),
            stylesheets=[_BAR_CSS],
            visible=pn.bind(lambda r: r != "", role),
        )
        message = pn.pane.HTML(
            self.param.message.rx().rx.pipe(lambda m: notice_html(m, "warning") if m else ""),
            sizing_mode="stretch_width",
            margin=(4, 8),
        )
        return pn.Column(bar, message, sizing_mode="stretch_width", margin=0)

    def start_view(self) -> pn.Column:
        """The sidebar's "Start a class" (a student alone never needs it on the page)."""
        start = pn.widgets.Button(label="Start a class", color="light", margin=(4, 10))
        start.on_click(lambda _e: self.start())
        return pn.Column(
            pn.pane.Markdown(
                "**Teaching?** Start a class: your students follow your steps and settings.",
                margin=(8, 10, 0, 10),
            ),
            start,
            sizing_mode="stretch_width",
            visible=pn.bind(lambda r: r == "", self.param.role),
        )

    def _describe(self, role: str, room: str, following: bool) -> str:
        code = f'<span class="code">{html.escape(room)}</span>'
        students = f"?page=lesson&amp;room={html.escape(room)}"
        if role == "teacher":
            teacher = f"{students}&amp;lead={html.escape(self._token)}"
            return (
                f"<p>You lead class {code}. Students open "
                f'<a href="{students}">{students}</a> and follow your steps and settings.</p>'
                f"<details><summary>Your teacher link (keep it off the projector)</summary>"
                f'<p><a href="{teacher}">{teacher}</a></p></details>'
            )
        if role == "student":
            doing = "You follow the teacher" if following else "You explore on your own"
            return f"<p>Class {code}: {doing}.</p>"
        return ""
