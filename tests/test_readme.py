"""The README's two commands stay what a newcomer can run, and what CI runs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    return re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)[:2]


def test_ci_runs_the_readmes_test_command_verbatim():
    _, test_command = _commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci


def test_the_commands_work_with_any_python_the_project_accepts():
    """``python3``, not one minor version: pyproject accepts 3.11 and later."""
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires.startswith(">=3.11")
    for command in _commands():
        assert command.startswith("python3 -m venv .venv && "), command


def test_the_readme_counts_the_lessons_steps():
    """The lesson grew from twelve steps to fifteen while the README kept saying twelve."""
    words = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    words += "fifteen sixteen seventeen eighteen nineteen twenty"
    said = re.search(r"(\w+) steps, one idea each", (ROOT / "README.md").read_text())
    assert said, "the README no longer says how many steps the lesson has"
    steps = tomllib.loads((ROOT / "app" / "lesson" / "steps.toml").read_text())["step"]
    assert words.split().index(said.group(1).lower()) + 1 == len(steps)
