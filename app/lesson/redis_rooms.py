"""Rooms shared by several server processes or replicas, through Redis.

The same interface as :class:`app.lesson.rooms.Rooms`. A room is one Redis key
(``pex:room:CODE``: its lead token and the teacher's last state, expiring
:data:`~app.lesson.rooms.ROOM_TTL_S` after the teacher's last change), and a
sorted set of the open rooms by expiry time keeps the cap. A teacher's change
is published on the room's channel; each process listens to every room's
channel in one thread and hands a change to the followers it holds (each
follower passes it to its server loop, the thread-safe way in).

Redis's pub/sub delivers at most once: a message published while a process's
subscription is down (Redis restarted, the connection dropped and is being
made again) is lost, and a student would keep an old step until the teacher's
next change. So every change carries the room's change number, and the
listener also reads the rooms it follows every :data:`CATCH_UP_S` seconds and
hands on any newer state it missed (and never an older one).

Redis being down does not break a page: starting, joining or leading a class
raises :class:`~app.lesson.rooms.RoomsUnavailable`, which the lesson shows as a
sentence; the rest of the lesson works on.
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from itertools import count
from typing import Any

import redis

from .rooms import (
    CODE_ALPHABET,
    CODE_LENGTH,
    MAX_ROOMS,
    ROOM_TTL_S,
    TOKEN_BYTES,
    Follower,
    Room,
    RoomsFull,
    RoomsUnavailable,
)

__all__ = ["RedisRooms"]

_LOG = logging.getLogger(__name__)
_PREFIX = "pex:room:"
_OPEN = "pex:rooms"
#: A room's change number (its own key: two tabs of one teacher may publish at once).
_NUMBER = "pex:room-change:"
#: How often a listener looks for changes whose message it missed (s).
CATCH_UP_S = 2.0
#: A room's stored state is the few values of a lesson link: refuse anything larger.
_MAX_STATE_BYTES = 16_384


class RedisRooms:
    """Rooms in the Redis at ``url``, shared by every process that uses it."""

    def __init__(self, url: str, ttl: float = ROOM_TTL_S, cap: int = MAX_ROOMS) -> None:
        self._redis = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=2, socket_connect_timeout=2
        )
        self._ttl, self._cap = int(max(1, ttl)), cap
        self._followers: dict[str, dict[int, Follower]] = {}
        #: The newest change number handed to each followed room's followers.
        self._handed: dict[str, int] = {}
        self._lock = threading.Lock()
        self._ids = count()
        self._listener: threading.Thread | None = None
        self._stop = threading.Event()

    def __len__(self) -> int:
        with _reaching():
            self._redis.zremrangebyscore(_OPEN, "-inf", time.time())
            return int(self._redis.zcard(_OPEN))

    # ------------------------------------------------------------------ rooms
    def open(self, state: Mapping[str, str] | None = None) -> Room:
        """A new room, led by whoever holds its token; :class:`RoomsFull` past the cap."""
        with _reaching():
            self._redis.zremrangebyscore(_OPEN, "-inf", time.time())
            if self._redis.zcard(_OPEN) >= self._cap:
                raise RoomsFull(f"{self._cap} classes are already open on this server")
            token = secrets.token_urlsafe(TOKEN_BYTES)
            room_state = dict(state or {})
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                stored = json.dumps({"token": token, "state": room_state})
                if self._redis.set(_PREFIX + code, stored, nx=True, ex=self._ttl):
                    break
            self._redis.zadd(_OPEN, {code: time.time() + self._ttl})
        return Room(code, token, room_state, time.time())

    def get(self, code: str) -> Room | None:
        """The open room ``code`` (any case), or None."""
        found = self._read(code)
        return found[0] if found is not None else None

    def _read(self, code: str) -> tuple[Room, int] | None:
        """The open room ``code`` (any case) and its last change's number, or None."""
        code = code.strip().upper()[:CODE_LENGTH]
        with _reaching():
            stored = self._redis.get(_PREFIX + code) if code else None
        return _room(code, stored) if stored is not None else None

    def leads(self, code: str, token: str) -> bool:
        """Whether ``token`` is room ``code``'s lead token (compared in constant time)."""
        room = self.get(code)
        return room is not None and hmac.compare_digest(room.token.encode(), token.encode())

    def publish(self, code: str, token: str, state: Mapping[str, str]) -> bool:
        """Set the room's state and tell every process's followers, if ``token`` leads it."""
        room = self.get(code)
        if room is None or not hmac.compare_digest(room.token.encode(), token.encode()):
            return False
        if len(json.dumps(dict(state))) > _MAX_STATE_BYTES:
            return False
        with _reaching():
            number = int(self._redis.incr(_NUMBER + room.code))
            change = {"state": dict(state), "number": number}
            pipe = self._redis.pipeline()
            pipe.set(_PREFIX + room.code, json.dumps({"token": room.token, **change}), ex=self._ttl)
            pipe.expire(_NUMBER + room.code, self._ttl)
            pipe.zadd(_OPEN, {room.code: time.time() + self._ttl})
            pipe.publish(_PREFIX + room.code, json.dumps(change))
            pipe.execute()
        return True

    # -------------------------------------------------------------- followers
    def follow(self, code: str, follower: Follower) -> int | None:
        """Call ``follower(state)`` on each of room ``code``'s changes; a handle, or None."""
        found = self._read(code)
        if found is None:
            return None
        room, number = found  # the follower starts from the state it reads now
        self._listen()
        handle = next(self._ids)
        with self._lock:
            self._followers.setdefault(room.code, {})[handle] = follower
            self._handed[room.code] = max(self._handed.get(room.code, 0), number)
        return handle

    def unfollow(self, code: str, handle: int) -> None:
        code = code.strip().upper()[:CODE_LENGTH]
        with self._lock:
            followers = self._followers.get(code, {})
            followers.pop(handle, None)
            if not followers:
                self._followers.pop(code, None)
                self._handed.pop(code, None)

    def _listen(self) -> None:
        """Start this process's one listener to every room's channel (once)."""
        with self._lock:
            if self._listener is not None and self._listener.is_alive():
                return
            with _reaching():
                pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
                pubsub.psubscribe(**{_PREFIX + "*": self._deliver})
            self._stop.clear()
            self._listener = threading.Thread(
                target=self._listen_until_closed, args=(pubsub,), name="pex-rooms", daemon=True
            )
            self._listener.start()

    def _listen_until_closed(self, pubsub: Any) -> None:
        due = time.monotonic() + CATCH_UP_S
        while not self._stop.is_set():
            try:
                pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
                if time.monotonic() >= due:
                    self._catch_up()
                    due = time.monotonic() + CATCH_UP_S
            except Exception as error:  # Redis went away: pub/sub reconnects by itself
                _LOG.warning("room listener: %s; retrying", error)
                self._stop.wait(1.0)
        pubsub.close()

    def _catch_up(self) -> None:
        """Hand on the state of each followed room whose last change was missed."""
        with self._lock:
            codes = list(self._followers)
        if not codes:
            return
        stored = self._redis.mget([_PREFIX + code for code in codes])
        for code, value in zip(codes, stored, strict=True):
            if value is not None:
                room, number = _room(code, value)
                self._hand_on(code, number, room.state)

    def _deliver(self, message: Mapping[str, Any]) -> None:
        code = str(message["channel"])[len(_PREFIX) :]
        try:
            change = json.loads(message["data"])
            number, state = int(change["number"]), dict(change["state"])
        except (TypeError, ValueError, KeyError):
            return
        self._hand_on(code, number, state)

    def _hand_on(self, code: str, number: int, state: Mapping[str, str]) -> None:
        """Give change ``number`` to the room's followers, unless they had it or a newer one."""
        with self._lock:
            followers = list(self._followers.get(code, {}).values())
            if not followers or number <= self._handed.get(code, 0):
                return
            self._handed[code] = number
        for follower in followers:
            try:
                follower(dict(state))
            except Exception:  # one student's session must not stop the others'
                _LOG.exception("a follower of room %s failed", code)

    def close(self) -> None:
        """Stop listening (tests; a server process just ends)."""
        with self._lock:
            listener, self._listener = self._listener, None
        self._stop.set()
        if listener is not None:
            listener.join(timeout=2)
        self._redis.close()


def _room(code: str, stored: str) -> tuple[Room, int]:
    """A room as Redis holds it, and its last change's number (0 before any)."""
    room = json.loads(stored)
    return Room(code, room["token"], room["state"]), int(room.get("number", 0))


@contextmanager
def _reaching() -> Iterator[None]:
    """Redis's errors as :class:`RoomsUnavailable`, with a sentence for the page."""
    try:
        yield
    except redis.RedisError as error:
        raise RoomsUnavailable(
            "the class service (Redis) cannot be reached right now; try again in a minute"
        ) from error
