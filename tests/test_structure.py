"""The code stays easy to live in: small modules and functions, pages that stand alone.

The limits are the project's own (a page module holds controls, rules and
layout; each figure is one chart in a module of its own): no module of
``app/`` over 400 lines, no function of ``app/`` or ``positional_core/`` over
80 lines of code (blank lines, comments and docstrings not counted), no page
importing another page, and the core importing nothing of the app.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULE_LINES = 400
FUNCTION_LINES = 80


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _code_lines(source: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of code in a function: without blank lines, comments and its docstring."""
    skip: set[int] = set()
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant):
        skip = set(range(first.lineno, first.end_lineno + 1))
    return sum(
        1
        for number in range(node.lineno, node.end_lineno + 1)
        if number not in skip
        and source[number - 1].strip()
        and not source[number - 1].strip().startswith("#")
    )


@pytest.mark.parametrize("path", _modules("app"), ids=lambda p: str(p.relative_to(ROOT)))
def test_app_modules_are_small(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MODULE_LINES, f"{path.relative_to(ROOT)}: {lines} lines"


@pytest.mark.parametrize(
    "path", _modules("app") + _modules("positional_core"), ids=lambda p: str(p.relative_to(ROOT))
)
def test_functions_are_short(path):
    text = path.read_text(encoding="utf-8")
    source = text.splitlines()
    long = [
        f"{node.name} ({_code_lines(source, node)} lines, line {node.lineno})"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and _code_lines(source, node) > FUNCTION_LINES
    ]
    assert not long, f"{path.relative_to(ROOT)}: {', '.join(long)}"


def _imports(path: Path) -> set[str]:
    """Absolute names of the modules ``path`` imports (relative imports resolved)."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            name = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(name)
            found |= {f"{name}.{alias.name}" for alias in node.names}
    return found


def test_no_page_imports_another_page():
    for path in _modules("app/pages"):
        parts = path.relative_to(ROOT / "app" / "pages").parts
        if len(parts) < 2:
            continue
        own = f"app.pages.{parts[0]}"
        others = {
            name
            for name in _imports(path)
            if name.startswith("app.pages.") and not name.startswith(own)
        }
        assert not others, f"{path.relative_to(ROOT)} imports {sorted(others)}"


def test_the_core_imports_nothing_of_the_app():
    for path in _modules("positional_core"):
        assert not {n for n in _imports(path) if n == "app" or n.startswith("app.")}, path
