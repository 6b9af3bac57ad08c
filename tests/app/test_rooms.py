"""Follow the teacher, without a browser: rooms, tokens, and lessons that follow."""

from __future__ import annotations

import base64
import time

import pytest

from app.lesson import Lesson
from app.lesson.rooms import (
    CODE_ALPHABET,
    CODE_LENGTH,
    Rooms,
    RoomsFull,
    rooms_available,
)
from app.main import PAGES


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "redis"])
def make_rooms(request):
    """Rooms of one process (memory) or shared through a real Redis; ``make(ttl, cap)``.

    Redis delivers a change from its listener thread: ``settle()`` waits for it.
    """
    if request.param == "memory":
        yield lambda **kw: Rooms(**kw)
        return
    import redis

    from app.lesson.redis_rooms import RedisRooms

    url = request.getfixturevalue("redis_url")
    redis.Redis.from_url(url).flushdb()
    made: list[RedisRooms] = []

    def make(**kw):
        made.append(RedisRooms(url, **kw))
        return made[-1]

    yield make
    for rooms in made:
        rooms.close()


def _heard(heard: list, count: int, timeout: float = 3.0) -> list:
    """``heard`` once it holds ``count`` changes (Redis delivers from a thread)."""
    end = time.monotonic() + timeout
    while len(heard) < count and time.monotonic() < end:
        time.sleep(0.01)
    time.sleep(0.05)  # and nothing more arrives
    return heard


def test_a_room_code_is_short_and_unambiguous_and_its_token_has_128_random_bits(make_rooms):
    rooms = make_rooms()
    opened = [rooms.open() for _ in range(50)]
    assert len({r.code for r in opened}) == 50
    for room in opened:
        assert len(room.code) == CODE_LENGTH and set(room.code) <= set(CODE_ALPHABET)
        assert not set(room.code) & set("01OIL")
        assert len(base64.urlsafe_b64decode(room.token + "==")) >= 16
    assert len({r.token for r in opened}) == 50


def test_only_the_rooms_own_token_leads_it(make_rooms):
    rooms = make_rooms()
    a, b = rooms.open(), rooms.open()
    heard: list[dict] = []
    rooms.follow(a.code, heard.append)
    assert rooms.leads(a.code, a.token) and rooms.leads(a.code.lower(), a.token)
    for forged in (b.token, "", a.token[:-1], a.token + "x", "x" * len(a.token)):
        assert not rooms.leads(a.code, forged)
        assert rooms.publish(a.code, forged, {"step": "9"}) is False
    assert _heard(heard, 1, timeout=0.3) == [] and rooms.get(a.code).state == {}
    assert rooms.publish(a.code, a.token, {"step": "3"}) is True
    assert _heard(heard, 1) == [{"step": "3"}]
    assert rooms.get(a.code).state == {"step": "3"}
    assert not rooms.leads("NOPE1", a.token)


def test_a_room_opened_in_one_process_is_followed_from_another(redis_url):
    """Two stores on one Redis stand for two server processes (or replicas)."""
    import redis

    from app.lesson.redis_rooms import RedisRooms

    redis.Redis.from_url(redis_url).flushdb()
    here, there = RedisRooms(redis_url), RedisRooms(redis_url)
    try:
        room = here.open({"step": "2"})
        heard_here: list[dict] = []
        heard_there: list[dict] = []
        here.follow(room.code, heard_here.append)
        handle = there.follow(room.code, heard_there.append)
        assert there.get(room.code).state == {"step": "2"} and there.leads(room.code, room.token)
        assert not there.publish(room.code, "forged", {"step": "9"})
        assert there.publish(room.code, room.token, {"step": "4"})
        assert _heard(heard_here, 1) == [{"step": "4"}]
        assert _heard(heard_there, 1) == [{"step": "4"}]
        there.unfollow(room.code, handle)
        here.publish(room.code, room.token, {"step": "5"})
        assert _heard(heard_here, 2)[-1] == {"step": "5"} and heard_there == [{"step": "4"}]
    finally:
        here.close()
        there.close()


def test_a_change_published_while_a_listener_reconnects_still_reaches_its_followers(redis_url):
    """Redis's pub/sub delivers at most once: a change published while a process's
    subscription is down never arrives as a message. The listener finds it in
    the room itself within its catch-up period, and hands on each change once."""
    import redis

    from app.lesson.redis_rooms import CATCH_UP_S, RedisRooms

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    here, there = RedisRooms(redis_url), RedisRooms(redis_url)
    try:
        room = here.open({"step": "2"})
        heard: list[dict] = []
        there.follow(room.code, heard.append)
        assert here.publish(room.code, room.token, {"step": "3"})
        time.sleep(CATCH_UP_S + 1.0)  # a message and at least one catch-up
        assert heard == [{"step": "3"}]
        # Close every subscriber's connection, and publish before it is made again.
        client.client_kill_filter(_type="pubsub")
        assert here.publish(room.code, room.token, {"step": "4"})
        assert _heard(heard, 2, timeout=CATCH_UP_S + 2.0) == [{"step": "3"}, {"step": "4"}]
        assert here.publish(room.code, room.token, {"step": "5"})  # and the messages go on
        assert _heard(heard, 3)[-1] == {"step": "5"}
        time.sleep(CATCH_UP_S + 1.0)
        assert len(heard) == 3
    finally:
        here.close()
        there.close()


def test_a_lost_redis_is_a_sentence_on_the_page_not_an_error(monkeypatch):
    from app.lesson import rooms as rooms_module

    monkeypatch.setenv("PEX_REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens there
    monkeypatch.setattr(rooms_module, "_SHARED", {})
    lesson = Lesson(PAGES)
    lesson.classroom.start()
    assert lesson.classroom.role == "" and "cannot be reached" in lesson.classroom.message
    lesson.apply_query({"room": "ABCDE"})
    assert lesson.classroom.role == "" and "cannot be reached" in lesson.classroom.message
    lesson.step = 3  # the lesson itself goes on
    assert lesson.step == 3


def test_redis_rooms_end_after_a_quiet_period_and_are_capped(redis_url):
    """As the memory store below, on Redis's own clock (expiry of its keys)."""
    import redis

    from app.lesson.redis_rooms import RedisRooms

    redis.Redis.from_url(redis_url).flushdb()
    rooms = RedisRooms(redis_url, ttl=1, cap=2)
    first, second = rooms.open(), rooms.open()
    with pytest.raises(RoomsFull):
        rooms.open()
    time.sleep(0.6)
    rooms.publish(first.code, first.token, {"step": "2"})  # this teacher is still there
    time.sleep(0.7)
    assert rooms.get(first.code) is not None and rooms.get(second.code) is None
    assert len(rooms) == 1
    rooms.open()  # room again under the cap


def test_rooms_end_after_a_quiet_period_and_are_capped():
    clock = Clock()
    rooms = Rooms(clock=clock, ttl=100, cap=3)
    first, second, _ = rooms.open(), rooms.open(), rooms.open()
    with pytest.raises(RoomsFull):
        rooms.open()
    clock.now = 90
    rooms.publish(first.code, first.token, {"step": "2"})  # this teacher is still there
    clock.now = 150
    assert rooms.get(first.code) is not None and rooms.get(second.code) is None
    assert len(rooms) == 1
    rooms.open()  # room again under the cap


@pytest.mark.parametrize(
    ("procs", "redis_url", "available"),
    [("1", "", True), ("2", "", False), ("0", "", False), ("2", "redis://r:6379/0", True)],
)
def test_classes_need_one_process_or_redis(procs, redis_url, available):
    why = rooms_available({"PEX_NUM_PROCS": procs, "PEX_REDIS_URL": redis_url})
    assert (why is None) is available
    if why:
        assert f"PEX_NUM_PROCS={procs}" in why


def test_students_follow_the_teachers_steps_and_settings_until_they_explore():
    teacher, student, other = Lesson(PAGES), Lesson(PAGES), Lesson(PAGES)
    teacher.classroom.start()
    code = teacher.classroom.room
    assert teacher.classroom.role == "teacher"
    assert teacher.link_values()["room"] == code and "lead" not in teacher.link_values()
    student.apply_query({"room": code})
    other.apply_query({"room": code.lower(), "step": "9"})
    assert student.classroom.role == "student"
    teacher.step = 6
    teacher.step_page().m = 42
    for s in (student, other):
        assert (s.step, s.step_page().m) == (6, 42)
    other.classroom.explore()
    teacher.step = 7
    assert (student.step, other.step) == (7, 6)
    other.classroom.rejoin()
    assert other.step == 7


def test_a_forged_teacher_link_moves_nobody():
    teacher, student, impostor = Lesson(PAGES), Lesson(PAGES), Lesson(PAGES)
    teacher.classroom.start()
    code = teacher.classroom.room
    student.apply_query({"room": code})
    impostor.apply_query({"room": code, "lead": "A" * 22})
    assert impostor.classroom.role == "student"
    assert "not valid" in impostor.classroom.message
    impostor.classroom.explore()
    impostor.step = 3
    assert teacher.step == 1 and student.step == 1


def test_an_unknown_room_says_so_and_a_second_process_refuses_to_start(monkeypatch):
    lesson = Lesson(PAGES)
    lesson.apply_query({"room": "ZZZZZ"})
    assert lesson.classroom.role == "" and "no class 'ZZZZZ'" in lesson.classroom.message
    monkeypatch.setenv("PEX_NUM_PROCS", "2")
    lesson.classroom.start()
    assert lesson.classroom.role == "" and "single server process" in lesson.classroom.message
