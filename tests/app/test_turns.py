"""Session jobs of a lesson class run in turn on a real Bokeh server's loop."""

from __future__ import annotations

import asyncio
import threading

from bokeh.server.server import Server
from panel.io.state import set_curdoc
from tornado.httpclient import AsyncHTTPClient
from tornado.ioloop import IOLoop

from app.lesson.classroom import Classroom
from app.lesson.rooms import Rooms
from app.lesson.turns import LATER, NOW, SOON, STALLED_S, Turns


def _served(sessions: int, work) -> None:
    """Serve a bare app on a loop of its own, open ``sessions`` sessions, and run
    ``work(server, loop)`` (a coroutine function) there."""
    errors: list[BaseException] = []

    def run() -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        loop = IOLoop.current()
        server = Server({"/t": lambda doc: None}, port=0, io_loop=loop)
        server.start()

        async def body() -> None:
            try:
                client = AsyncHTTPClient()
                for _ in range(sessions):
                    await client.fetch(f"http://localhost:{server.port}/t")
                await work(server, loop)
            except BaseException as error:  # reported below, on the test's thread
                errors.append(error)
            finally:
                server.stop()

        loop.run_sync(body, timeout=30)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(40)
    if errors:
        raise errors[0]


def test_the_most_needed_job_runs_first_one_per_turn_and_an_ended_session_holds_none():
    async def work(server, loop) -> None:
        a, b, c = (s.document for s in server.get_sessions("/t"))
        turns, ran, turns_of_loop = Turns(), [], []

        def tick() -> None:  # counts the loop's turns while jobs are waiting
            turns_of_loop.append(len(ran))
            if len(ran) < 5:
                loop.add_callback(tick)

        def job(name: str, doc) -> callable:
            def run() -> None:
                # Bokeh runs it as the session's callback: with that document locked.
                assert doc.session_context is not None
                ran.append(name)

            return run

        # A session that ends with its job waiting: the queue goes on without it.
        ended = next(s for s in server.get_sessions("/t") if s.document is c)
        turns.add(a, job("a later", a), LATER)
        turns.add(c, job("c ended", c), NOW)
        turns.add(b, job("b soon", b), SOON)
        turns.add(a, job("a now", a), NOW)
        turns.add(b, job("b later", b), LATER)
        turns.add(b, job("b now", b), NOW)
        ended.destroy()
        tick()
        started = loop.time()
        while len(ran) < 5 and loop.time() - started < 10:
            await asyncio.sleep(0.01)
        assert ran == ["a now", "b now", "b soon", "a later", "b later"]
        assert loop.time() - started < STALLED_S  # the ended session held nothing back
        # Between two jobs the loop turned (what else came in was read in between).
        assert all(turns_of_loop.count(n) >= 1 for n in range(1, 5)), turns_of_loop
        assert len(turns) == 0

    _served(3, work)


def test_a_student_behind_the_teacher_shows_only_the_teachers_newest_state():
    async def work(server, loop) -> None:
        teacher_doc, student_doc = (s.document for s in server.get_sessions("/t"))
        rooms, shown, sent = Rooms(), [], []

        def teachers_state() -> dict[str, str]:
            sent.append({"step": str(len(sent) + 1)})
            return sent[-1]

        with set_curdoc(teacher_doc):
            teacher = Classroom(teachers_state, lambda _s: None, rooms)
            teacher.start()
        with set_curdoc(student_doc):
            student = Classroom(lambda: {}, shown.append, rooms)
            student.join(teacher.room)
        assert shown == [sent[-1]]  # the room's state when the student came in
        for _ in range(3):  # three steps before the student's session had a turn
            teacher.changed()
        newest = sent[-1]
        started = loop.time()
        while shown[-1] != newest and loop.time() - started < 5:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        assert shown == [sent[-4], newest]
        teacher.changed()  # caught up, the next change is shown as it comes
        while shown[-1] != sent[-1] and loop.time() - started < 5:
            await asyncio.sleep(0.01)
        assert shown == [sent[-5], newest, sent[-1]] and student.role == "student"

    _served(2, work)
