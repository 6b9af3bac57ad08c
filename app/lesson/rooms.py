"""Classes that follow a teacher: rooms, their codes and lead tokens.

A teacher's "Start a class" opens a room: a short code students can be told
aloud, and a lead token only the teacher's link holds. Every change of the
teacher's lesson (its step and the step's controls, the same values a link
holds) is published to the room; each student session following it applies
them on its own document. A publish without the room's token changes nothing.

By default the rooms of one server process live here, in memory: they are
shared by that process's sessions on purpose (a class is several sessions).
With more than one process or replica they go through Redis instead
(``PEX_REDIS_URL``, :mod:`app.lesson.redis_rooms`, the same interface); with
more than one process and no Redis a room would exist in one of them only, so
:func:`rooms_available` says no and the lesson explains why instead of
half-working.
"""

from __future__ import annotations

import hmac
import os
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import count
from typing import Any

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "MAX_ROOMS",
    "ROOMS",
    "ROOM_TTL_S",
    "Room",
    "Rooms",
    "RoomsError",
    "RoomsFull",
    "RoomsUnavailable",
    "rooms_available",
    "rooms_for",
]

#: Letters and digits that cannot be misheard or misread (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: Five of them: 28 million codes, said in two seconds.
CODE_LENGTH = 5
#: The lead token's randomness (128 bits).
TOKEN_BYTES = 16
#: A room ends after this long without a sign of its teacher (3 h).
ROOM_TTL_S = 3 * 3600.0
#: At most this many rooms at once in a process (each holds a few hundred bytes
#: and the students' callbacks; the cap keeps a script from opening millions).
MAX_ROOMS = 200

State = dict[str, str]
Follower = Callable[[State], None]


class RoomsError(RuntimeError):
    """A class cannot be started or followed; the message is for the page."""


class RoomsFull(RoomsError):
    """No room can be opened: :data:`MAX_ROOMS` are open."""


class RoomsUnavailable(RoomsError):
    """The rooms' store (Redis) cannot be reached."""


@dataclass
class Room:
    """One class: its code, the teacher's token, and the teacher's last state."""

    code: str
    token: str = field(repr=False)
    state: State = field(default_factory=dict)
    seen: float = 0.0
    followers: dict[int, Follower] = field(default_factory=dict, repr=False)


class Rooms:
    """The open rooms of this process (``clock`` in seconds, for tests)."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        ttl: float = ROOM_TTL_S,
        cap: int = MAX_ROOMS,
    ) -> None:
        self._rooms: dict[str, Room] = {}
        self._clock, self._ttl, self._cap = clock, ttl, cap
        self._ids = count()

    def __len__(self) -> int:
        self._expire()
        return len(self._rooms)

    def _expire(self) -> None:
        now = self._clock()
        for code in [c for c, r in self._rooms.items() if now - r.seen > self._ttl]:
            del self._rooms[code]

    def open(self, state: Mapping[str, str] | None = None) -> Room:
        """A new room, led by whoever holds its token; :class:`RoomsFull` past the cap."""
        self._expire()
        if len(self._rooms) >= self._cap:
            raise RoomsFull(f"{self._cap} classes are already open on this server")
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        while code in self._rooms:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        room = Room(code, secrets.token_urlsafe(TOKEN_BYTES), dict(state or {}), self._clock())
        self._rooms[code] = room
        return room

    def get(self, code: str) -> Room | None:
        """The open room ``code`` (any case), or None."""
        self._expire()
        return self._rooms.get(code.strip().upper()[:CODE_LENGTH])

    def leads(self, code: str, token: str) -> bool:
        """Whether ``token`` is room ``code``'s lead token (compared in constant time)."""
        room = self.get(code)
        return room is not None and hmac.compare_digest(room.token.encode(), token.encode())

    def publish(self, code: str, token: str, state: Mapping[str, str]) -> bool:
        """Set the room's state and tell its followers, if ``token`` leads it."""
        room = self.get(code)
        if room is None or not self.leads(code, token):
            return False
        room.state, room.seen = dict(state), self._clock()
        for follower in list(room.followers.values()):
            follower(dict(room.state))
        return True

    def follow(self, code: str, follower: Follower) -> int | None:
        """Call ``follower(state)`` on each of room ``code``'s changes; a handle, or None."""
        room = self.get(code)
        if room is None:
            return None
        handle = next(self._ids)
        room.followers[handle] = follower
        return handle

    def unfollow(self, code: str, handle: int) -> None:
        room = self.get(code)
        if room is not None:
            room.followers.pop(handle, None)


#: This process's rooms, when they live in memory.
ROOMS = Rooms()
_SHARED: dict[str, Any] = {}


def rooms_for(environ: Mapping[str, str] = os.environ) -> Any:
    """The rooms this server's sessions share: Redis's at ``PEX_REDIS_URL`` (one
    client per process), else this process's memory (:data:`ROOMS`)."""
    url = environ.get("PEX_REDIS_URL", "").strip()
    if not url:
        return ROOMS
    if url not in _SHARED:
        from .redis_rooms import RedisRooms  # only a server with Redis needs the client

        _SHARED[url] = RedisRooms(url)
    return _SHARED[url]


def rooms_available(environ: Mapping[str, str] = os.environ) -> str | None:
    """None if classes can be held here; else why not, in a sentence for the page.

    In-memory rooms live in one process: with several worker processes
    (``PEX_NUM_PROCS`` other than 1; 0 means one per core) a student's session
    may be served by a process that has never heard of the room. Redis
    (``PEX_REDIS_URL``) shares them between processes and replicas.
    """
    if environ.get("PEX_REDIS_URL", "").strip():
        return None
    procs = environ.get("PEX_NUM_PROCS", "1").strip() or "1"
    if procs != "1":
        return (
            "Classes need a single server process or a shared room service: this server "
            f"runs PEX_NUM_PROCS={procs[:8]} workers without PEX_REDIS_URL, and a room "
            "would live in one of them only."
        )
    return None
