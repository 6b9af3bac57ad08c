"""Follow the teacher, without a browser: rooms, tokens, and lessons that follow."""

from __future__ import annotations

import base64

import pytest

from app.lesson import Lesson
from app.lesson.rooms import CODE_ALPHABET, CODE_LENGTH, Rooms, RoomsFull, rooms_available
from app.main import PAGES


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_room_code_is_short_and_unambiguous_and_its_token_has_128_random_bits():
    rooms = Rooms()
    opened = [rooms.open() for _ in range(50)]
    assert len({r.code for r in opened}) == 50
    for room in opened:
        assert len(room.code) == CODE_LENGTH and set(room.code) <= set(CODE_ALPHABET)
        assert not set(room.code) & set("01OIL")
        assert len(base64.urlsafe_b64decode(room.token + "==")) >= 16
    assert len({r.token for r in opened}) == 50


def test_only_the_rooms_own_token_leads_it():
    rooms = Rooms()
    a, b = rooms.open(), rooms.open()
    heard: list[dict] = []
    rooms.follow(a.code, heard.append)
    assert rooms.leads(a.code, a.token) and rooms.leads(a.code.lower(), a.token)
    for forged in (b.token, "", a.token[:-1], a.token + "x", "x" * len(a.token)):
        assert not rooms.leads(a.code, forged)
        assert rooms.publish(a.code, forged, {"step": "9"}) is False
    assert heard == [] and a.state == {}
    assert rooms.publish(a.code, a.token, {"step": "3"}) is True
    assert heard == [{"step": "3"}]
    assert not rooms.leads("NOPE1", a.token)


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


@pytest.mark.parametrize(("procs", "available"), [("1", True), ("2", False), ("0", False)])
def test_classes_need_one_process(procs, available):
    why = rooms_available({"PEX_NUM_PROCS": procs})
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
