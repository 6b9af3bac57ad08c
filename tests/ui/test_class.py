"""Follow the teacher in real browsers: a teacher and two students, each in its own context.

Once on one server process (rooms in its memory), once on two processes that
share rooms through a real Redis: the teacher and the first student on one,
the second student and the impostor on the other.
"""

from __future__ import annotations

import contextlib
import re
import time

import pytest
from playwright.sync_api import Browser, Page, expect

from app.lesson import STEPS
from benchmarks._browser import served

from .helpers import PageWatch, open_page

#: How soon a student must show the teacher's change.
FOLLOW_S = 1.0
#: How long the teacher stays on a step before the next one (a teacher talks
#: about each step; the lesson builds the next step, hidden, meanwhile).
DWELL_S = 2.0


def _progress(page: Page) -> str:
    text = page.get_by_text(re.compile(r"^Step \d+ of \d+")).first.inner_text()
    return re.match(r"Step \d+ of \d+", text).group(0)


def _follows(students: list[Page], text: str) -> float:
    """Seconds until every student shows ``text`` (the teacher's step or value)."""
    start = time.monotonic()
    for student in students:
        expect(student.get_by_text(text).first).to_be_visible(timeout=5_000)
    return time.monotonic() - start


@pytest.fixture(params=["one process", "two processes and Redis"])
def apps(request, tmp_path):
    """The lesson's address on the teacher's process and on the other one."""
    if request.param == "one process":
        server = request.getfixturevalue("server")
        yield server["url"], server["url"]
        _print_tail(server["log"])
        return
    env = {"PEX_REDIS_URL": request.getfixturevalue("redis_url"), "PEX_NUM_PROCS": "1"}
    logs = [tmp_path / f"panel-{n}.log" for n in (1, 2)]
    with contextlib.ExitStack() as stack:
        bases = [stack.enter_context(served(env=env, log=log)) for log in logs]
        yield tuple(f"{base}/app" for base in bases)
    for log in logs:
        _print_tail(log)


def _print_tail(log, lines: int = 40) -> None:
    """The server's last log lines: pytest shows them only if the test failed."""
    print(f"--- last lines of {log.name}:", *log.read_text().splitlines()[-lines:], sep="\n")


def test_two_students_follow_the_teacher_and_a_forged_link_moves_nobody(apps, browser: Browser):
    here, there = apps
    teacher = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    watch = PageWatch().attach(teacher)
    open_page(teacher, f"{here}?page=lesson&step=1")
    teacher.get_by_role("button", name="Start a class").click()
    link = teacher.get_by_role("link", name=re.compile(r"^\?page=lesson&room=")).first
    expect(link).to_be_visible(timeout=5_000)
    students_link = link.get_attribute("href")
    code = students_link.rsplit("=", 1)[1]
    expect(teacher).to_have_url(re.compile(f"room={code}"), timeout=5_000)
    assert "lead=" not in teacher.url  # the token stays off a projected address bar

    students = []
    for url in (here, there):
        student = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        open_page(student, f"{url}{students_link}")
        expect(student.get_by_text(f"Class {code}: You follow the teacher.")).to_be_visible()
        students.append(student)

    waits = []
    for step in (2, 3, 4):
        time.sleep(DWELL_S)
        teacher.get_by_role("button", name="Next →").click()
        expect(teacher.get_by_text(f"Step {step} of {len(STEPS)}")).to_be_visible(timeout=5_000)
        waits.append(_follows(students, f"Step {step} of {len(STEPS)}"))
    # Two values of the step's own control (S3's position t, from 40), by its keys.
    handle = teacher.get_by_role("slider", name=re.compile("Position t")).first
    for t in (41, 42):
        handle.focus()
        handle.press("ArrowRight")
        expect(teacher).to_have_url(re.compile(f"step=4&t={t}&"), timeout=5_000)
        start = time.monotonic()
        for student in students:
            expect(student).to_have_url(re.compile(f"step=4&t={t}&"), timeout=5_000)
        waits.append(time.monotonic() - start)
    print("students followed after (s):", [round(w, 3) for w in waits])
    assert max(waits) < FOLLOW_S, waits

    # A student with a forged teacher link follows, and moves nobody.
    impostor = browser.new_context().new_page()
    open_page(impostor, f"{there}{students_link}&lead={'A' * 22}")
    expect(impostor.get_by_text("This teacher link is not valid")).to_be_visible()
    impostor.get_by_role("button", name="Explore on my own").click()
    impostor.get_by_role("button", name="Next →").click()
    expect(impostor.get_by_text(f"Step 5 of {len(STEPS)}")).to_be_visible(timeout=5_000)
    time.sleep(FOLLOW_S)
    assert _progress(teacher) == f"Step 4 of {len(STEPS)}"
    assert all(_progress(s) == f"Step 4 of {len(STEPS)}" for s in students)

    # A student who explores stays put, and catches up on "Rejoin".
    explorer = students[0]
    explorer.get_by_role("button", name="Explore on my own").click()
    time.sleep(DWELL_S)
    teacher.get_by_role("button", name="Next →").click()
    _follows(students[1:], f"Step 5 of {len(STEPS)}")
    assert _progress(explorer) == f"Step 4 of {len(STEPS)}"
    explorer.get_by_role("button", name="Rejoin").click()
    expect(explorer.get_by_text(f"Step 5 of {len(STEPS)}")).to_be_visible(timeout=5_000)
    assert not watch.errors
