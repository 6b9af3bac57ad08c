"""A class following its teacher: how soon does the last student see the teacher's change?

Serves the app, opens one teacher in headless Chromium (who presses "Start a
class") and ``--students`` light students: Bokeh websocket clients
(``bokeh.client.pull_session``), each a full server session of the lesson that
follows the room, with no browser drawing anything. The teacher then stays on
each step ``--dwell`` seconds once every student has it (a teacher talks about
each step) and presses Next, ``--steps`` times. For each change it reports when the teacher's page
showed the new step and when the first, median and last student's session had
received it (the server's patch that sets "Step N of M"), all from the click.
Then, on the step it reached, the teacher moves the step's first slider by one
key ``--values`` times; for each value it reports when each student's session
had the last message of that change (its figure as well as its control), from
the key press. It also reports the servers' memory with the teacher alone, once
the class has joined, and at the end (per student beyond the teacher's).

    python benchmarks/follow.py [--students 30] [--steps 5] [--values 3] [--dwell 3] [--servers 1]

The server and the clients share this machine's two cores; the students'
sessions are built on the server like any other (each has its own figures).
With ``--servers 2`` two server processes share the rooms through a private
``redis-server`` (Debian's, started here): the teacher is on the first, the
students are spread over both, as behind deploy/nginx.conf.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import pkgutil
import re
import statistics
import sys
import threading
import time
from pathlib import Path

import panel.models
import psutil
from bokeh.client import ClientSession
from bokeh.client.util import websocket_url_for_server_url
from bokeh.core.serialization import UnknownReferenceError
from bokeh.document.events import MessageSentEvent, ModelChangedEvent
from bokeh.events import DocumentReady
from playwright.sync_api import sync_playwright
from tornado.ioloop import IOLoop

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.lesson import STEPS
from benchmarks._browser import launch, redis_server, resident_bytes, served

# The clients decode every model a lesson's document holds: Panel's own, which
# Panel imports only as a page needs them.
for _module in pkgutil.iter_modules(panel.models.__path__):
    with contextlib.suppress(ImportError):  # an optional one (a library not installed)
        importlib.import_module(f"panel.models.{_module.name}")


class _TolerantSession(ClientSession):
    """A client that survives a patch it cannot apply (counted in ``skipped``).

    Bokeh's Python client refuses a patch that refers to a model defined in an
    earlier or later message (BokehJS resolves it), and its read loop then
    stops; the step's text, which is what is timed here, comes in patches of
    its own.
    """

    skipped = 0
    #: When this session last received a patch (applied or skipped).
    patched_at = 0.0

    def _handle_patch(self, message: object) -> None:
        self.patched_at = time.monotonic()
        try:
            super()._handle_patch(message)
        except UnknownReferenceError:
            type(self).skipped += 1


class Students:
    """``count`` lesson sessions following room ``code``, on their own thread's loop."""

    def __init__(self, url: str, code: str, count: int) -> None:
        self.url, self.code, self.count = url, code, count
        self.heard: dict[str, list[float]] = {}  # "Step N of M" -> when each student had it
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._loop: IOLoop | None = None
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        self._loop = IOLoop.current()
        try:
            self.sessions = [
                _TolerantSession(
                    websocket_url=websocket_url_for_server_url(self.url),
                    io_loop=self._loop,  # one loop for every client, run below
                    arguments={"page": "lesson", "room": self.code},
                )
                for _ in range(self.count)
            ]
            for session in self.sessions:
                session.pull()
            for session in self.sessions:
                session.document.on_change(self._on_change)
                # What a browser sends once it has drawn the page: Panel holds a
                # session's later changes back until its page says it is ready.
                ready = MessageSentEvent(session.document, "bokeh_event", DocumentReady())
                session._connection._send_patch_document(session.id, ready)
        except BaseException as error:  # reported by the main thread
            self.error = error
            self.ready.set()
            return
        # A client reads its socket only while it waits for something
        # (ClientConnection._loop_until): have every one read until it closes.
        for session in self.sessions:
            connection = session._connection
            connection._until_predicate = lambda c=connection: (
                c._state.__class__.__name__ == ("DISCONNECTED")
            )
            self._loop.add_callback(connection._next)
        self.ready.set()
        try:
            self._loop.start()
        except BaseException as error:
            self.error = error

    def _on_change(self, event: object) -> None:
        if isinstance(event, ModelChangedEvent) and event.attr == "text":
            found = re.search(r"Step \d+ of \d+", str(event.new))
            if found:
                with self._lock:
                    self.heard.setdefault(found.group(0), []).append(time.monotonic())

    def stop(self) -> None:
        if self._loop is not None:
            for session in getattr(self, "sessions", []):
                self._loop.add_callback(session.close)
            self._loop.add_callback(self._loop.stop)
        self._thread.join(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--values", type=int, default=3, help="control changes after the steps")
    parser.add_argument("--dwell", type=float, default=3.0)
    parser.add_argument("--servers", type=int, default=1, help="processes (2+: through Redis)")
    args = parser.parse_args()
    if (
        not 1 <= args.students <= 200
        or not 1 <= args.steps < len(STEPS)
        or not 0 <= args.values <= 10
        or not 1 <= args.servers <= 4
    ):
        parser.error(f"--students 1–200, --steps 1–{len(STEPS) - 1}, --values 0–10, --servers 1–4")

    with contextlib.ExitStack() as stack:
        env = {}
        if args.servers > 1:
            env = {"PEX_REDIS_URL": stack.enter_context(redis_server()), "PEX_NUM_PROCS": "1"}
        bases = [stack.enter_context(served(env=env)) for _ in range(args.servers)]
        rows = _lesson(bases, args)
    _report(rows, args)


def _lesson(bases: list[str], args: argparse.Namespace) -> list:
    with sync_playwright() as playwright:
        base = bases[0]
        browser = launch(playwright)
        teacher = browser.new_page(viewport={"width": 1280, "height": 800})
        teacher.goto(f"{base}/app?page=lesson&step=1")
        teacher.get_by_role("button", name="Start a class").click()
        alone = _server_mb()
        link = teacher.get_by_role("link", name=re.compile(r"^\?page=lesson&room="))
        code = link.first.get_attribute("href", timeout=30_000).rsplit("=", 1)[1]
        started = time.monotonic()
        shares = [
            args.students // len(bases) + (i < args.students % len(bases))
            for i in range(len(bases))
        ]
        groups = [Students(f"{b}/app", code, n) for b, n in zip(bases, shares, strict=True) if n]
        for group in groups:
            group.ready.wait(600)
            if group.error:
                raise group.error
        print(
            f"{args.students} students joined room {code} on {len(bases)} server(s) "
            f"in {time.monotonic() - started:.1f} s"
        )
        memory = [("the teacher alone", alone), ("the class joined", _server_mb())]

        rows = []
        try:
            for step in range(2, 2 + args.steps):
                time.sleep(args.dwell)
                text = f"Step {step} of"
                clicked = time.monotonic()
                teacher.get_by_role("button", name="Next →").click()
                teacher.get_by_text(re.compile(text)).first.wait_for(timeout=30_000)
                shown = time.monotonic() - clicked
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    got = [
                        t
                        for g in groups
                        for k, v in list(g.heard.items())
                        if k.startswith(text)
                        for t in v
                    ]
                    if len(got) >= args.students:
                        break
                    time.sleep(0.02)
                times = sorted(t - clicked for t in got)
                rows.append((step, shown, times))
            slider = teacher.get_by_role("slider")
            for value in range(1, 1 + args.values):
                time.sleep(args.dwell)
                pressed = time.monotonic()
                slider.first.press("ArrowRight")
                rows.append((f"v{value}", None, _settled(groups, pressed, args.students)))
            memory.append((f"after {args.steps} steps", _server_mb()))
            _report_memory(memory, args.students)
        finally:
            for group in groups:
                group.stop()
            browser.close()
    return rows


def _server_mb() -> float:
    """The servers' resident memory (MB): this process's children that serve the app."""
    servers = []
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if {"panel", "serve"} <= set(child.cmdline()):
                servers.append(child)
    return resident_bytes(servers) / 2**20


def _report_memory(memory: list[tuple[str, float]], students: int) -> None:
    """Server memory at each moment, and per student beyond the teacher's."""
    base = memory[0][1]
    print(
        "\nserver memory: "
        + "; ".join(
            f"{label} {mb:.0f} MB" + (f" (+{(mb - base) / students:.1f} MB a student)" if i else "")
            for i, (label, mb) in enumerate(memory)
        )
    )


def _settled(groups: list[Students], since: float, count: int, quiet: float = 1.0) -> list[float]:
    """Seconds from ``since`` to each student's last message, once none came for ``quiet`` s
    (the students who had any)."""
    deadline = since + 30
    while time.monotonic() < deadline:
        heard = [s.patched_at for g in groups for s in g.sessions if s.patched_at > since]
        if len(heard) >= count and time.monotonic() - max(heard) > quiet:
            break
        time.sleep(0.05)
    return sorted(t - since for t in heard)


def _report(rows: list, args: argparse.Namespace) -> None:
    if _TolerantSession.skipped:
        print(f"(the clients skipped {_TolerantSession.skipped} patches they could not apply)")
    print(f"\n{'step':>4} | teacher shows | students with it | first | median | last (s)")
    for step, shown, times in rows:
        teacher = "–" if shown is None else f"{shown:.3f}"
        if times:
            print(
                f"{step:>4} | {teacher:>13} | {len(times):>7} of {args.students:<4} | "
                f"{times[0]:.3f} | {statistics.median(times):.3f} | {times[-1]:.3f}"
            )
        else:
            print(f"{step:>4} | {teacher:>13} | {0:>7} of {args.students:<4} | – | – | –")
    last = [times[-1] for _, _, times in rows if len(times) == args.students]
    if len(last) == len(rows):
        print(f"\nlast student, worst change: {max(last):.3f} s (budget 1 s)")
    else:
        print("\nsome students never had a change within 30 s")


if __name__ == "__main__":
    main()
