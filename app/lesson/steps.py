"""The lesson's steps, read from ``steps.toml`` (prose lives there, not in code)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .checks import GRADERS

__all__ = ["STEPS", "Check", "Step", "load_steps"]

STEPS_FILE = Path(__file__).with_name("steps.toml")


@dataclass(frozen=True)
class Check:
    """A multiple-choice question; ``grade`` names its grader in :mod:`app.lesson.checks`."""

    question: str
    choices: tuple[str, ...]
    grade: str
    label: str = "Quick check"


@dataclass(frozen=True)
class Step:
    """One idea: a topic page's figure, the controls it needs, and a question."""

    title: str
    page: str
    figure: str
    controls: tuple[str, ...]
    start: dict[str, Any]
    text: str
    check: Check


def load_steps(path: Path = STEPS_FILE) -> tuple[Step, ...]:
    """The steps of ``path``, in order; a grader that does not exist is an error here."""
    steps = []
    for raw in tomllib.loads(path.read_text(encoding="utf-8"))["step"]:
        check = Check(**{**raw["check"], "choices": tuple(raw["check"]["choices"])})
        if check.grade not in GRADERS:
            raise ValueError(f"step {raw['title']!r}: no grader {check.grade!r}")
        steps.append(
            Step(
                **{
                    **raw,
                    "controls": tuple(raw["controls"]),
                    "start": dict(raw["start"]),
                    "check": check,
                }
            )
        )
    return tuple(steps)


STEPS = load_steps()
