"""The frames of this process's charts, shared by every session at the same state."""

from __future__ import annotations

import threading
from collections import OrderedDict

from .chart import Frame
from .selection import Choices

__all__ = ["FRAMES", "SharedFrames"]


class SharedFrames:
    """The frames of this process's charts, by chart class, state of its ``depends``
    and theme.

    A frame is a pure function of that state, so every session at the same
    state can draw the same one: thirty students following a teacher's change
    compute it once. Frames are read-only once made (each plot's sources get
    copies of what changed). The least recently used go first past
    :attr:`budget` bytes of arrays; a frame larger than a quarter of it is
    not kept (its page still keeps its own). A frame's choice rows are drawn
    when asked for, perhaps for another session: they may hold what the page
    computed with, never read the page then (the budget bounds what they hold).
    """

    def __init__(self, budget: int = 64 * 2**20) -> None:
        self.budget = budget
        self._frames: OrderedDict[tuple, tuple[Frame, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, chart: type, key: tuple) -> Frame | None:
        try:
            with self._lock:
                kept = self._frames.get((chart, key))
                if kept is not None:
                    self._frames.move_to_end((chart, key))
        except TypeError:  # a state that cannot be a key (a list): not shared
            return None
        return kept[0] if kept else None

    def put(self, chart: type, key: tuple, frame: Frame) -> None:
        size = _frame_bytes(frame)
        if size > self.budget // 4:
            return
        try:
            with self._lock:
                old = self._frames.pop((chart, key), None)
                self._bytes -= old[1] if old else 0
                self._frames[(chart, key)] = (frame, size)
                self._bytes += size
                while self._bytes > self.budget and len(self._frames) > 1:
                    _, (_, dropped) = self._frames.popitem(last=False)
                    self._bytes -= dropped
        except TypeError:
            return

    def __len__(self) -> int:
        return len(self._frames)

    def clear(self) -> None:
        with self._lock:
            self._frames.clear()
            self._bytes = 0


def _frame_bytes(frame: Frame) -> int:
    """The bytes of the arrays a frame holds (its marks' columns, a choice's keys)."""
    total = 0
    for data in frame.marks.values():
        columns = {"keys": data.keys} if isinstance(data, Choices) else data
        for column in columns.values():
            size = getattr(column, "nbytes", None)
            if size is None:
                size = 8 * len(column) if hasattr(column, "__len__") else 8
            total += size
    return total


#: This process's shared frames.
FRAMES = SharedFrames()
