"""Many sessions' step builds, one at a time, the most needed first.

A step's view costs a session 0.1–0.3 s to build (its figures), and every
session builds its own. When a teacher presses Next, each student following
has to show the new step, and each then prepares the step after it. Handed to
the server's loop all at once, thirty students' builds held it for seconds at
a time, and the teacher's own next click, and students who only had to unhide
a prepared step, waited behind them.

:func:`in_turn` runs such work one job per turn of the loop, so that whatever
else came in (a click, a websocket message) is read between two jobs, and
picks the most needed job first: a step a student must show now (``NOW``),
then a teacher's or a lone student's next step (``SOON``), then a following
student's next step (``LATER``). Each job runs with its session's document
locked, as Bokeh runs a session's callbacks. Each server loop has a queue of
its own (a process may serve from more than one, as tests do).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import weakref
from collections.abc import Callable
from typing import Any

from tornado.ioloop import IOLoop

__all__ = ["LATER", "NOW", "SOON", "Turns", "in_turn"]

NOW, SOON, LATER = 0, 1, 2
#: After a job this long (s), the loop gets a moment of its own before the next.
HEAVY_S = 0.03
GAP_S = 0.01
#: A job not started by then belongs to a session that has ended: go on without it.
STALLED_S = 2.0

log = logging.getLogger(__name__)


class Turns:
    """A queue of session jobs run one per turn of the server's loop (the loop
    current when it is made)."""

    def __init__(self) -> None:
        self._loop = IOLoop.current()
        self._jobs: list[tuple[int, int, Any, Callable[[], None]]] = []
        self._order = itertools.count()
        self._current: object | None = None  # the job given a turn, until it ends

    def __len__(self) -> int:
        return len(self._jobs)

    def add(self, doc: Any, job: Callable[[], None], priority: int = LATER) -> None:
        """Run ``job`` on ``doc`` (with its lock) when its turn comes. Call on the
        server's loop (from a session's callback)."""
        heapq.heappush(self._jobs, (priority, next(self._order), doc, job))
        if self._current is None:
            self._current = object()
            self._loop.add_callback(self._next)

    def _next(self) -> None:
        while self._jobs:
            _, _, doc, job = heapq.heappop(self._jobs)
            if doc.session_context is None:  # its session has ended, and so has the job
                continue
            token = self._current = object()
            try:
                doc.add_next_tick_callback(lambda t=token, j=job: self._run(t, j))
            except (RuntimeError, AttributeError):  # ended meanwhile: Bokeh refuses
                continue
            self._loop.call_later(STALLED_S, self._stalled, token)
            return
        self._current = None

    def _run(self, token: object, job: Callable[[], None]) -> None:
        started = self._loop.time()
        try:
            job()
        finally:
            if token is self._current:
                took = self._loop.time() - started
                self._loop.call_later(GAP_S if took > HEAVY_S else 0, self._next)

    def _stalled(self, token: object) -> None:
        if token is self._current:
            log.info("a session's job did not start in %s s; going on", STALLED_S)
            self._next()


_QUEUES: weakref.WeakKeyDictionary[IOLoop, Turns] = weakref.WeakKeyDictionary()


def in_turn(doc: Any, job: Callable[[], None], priority: int = LATER) -> None:
    """Run ``job`` on ``doc`` in turn with the other sessions of this server's loop
    (call on that loop, from a session's callback)."""
    loop = IOLoop.current()
    if loop not in _QUEUES:
        _QUEUES[loop] = Turns()
    _QUEUES[loop].add(doc, job, priority)
