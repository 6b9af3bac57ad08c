"""Every page and every figure displays in Jupyter: docs/notebook.ipynb run by a real kernel.

nbclient starts an IPython kernel (ipykernel, in this environment), runs the
documented notebook cell by cell, then one more cell that displays every page
and every figure of every page, as a reader would one by one. The outputs must
hold no error and, for each display, Panel's notebook bundle with the shown
figures' titles in it.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from app.main import PAGES

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "notebook.ipynb"
PANEL_EXEC = "application/vnd.holoviews_exec.v0+json"

#: Shown after the documented cells: every page, then each of its figures.
EVERY_FIGURE = """
from IPython.display import display
from app.main import PAGES

for slug, cls in PAGES.items():
    page = cls()
    display(page)
    for name in page.figures:
        display(page.figure_view(name))
"""


def _shows(output: dict, title: str) -> bool:
    """True when a displayed view's bundle holds ``title`` (as text or JSON-escaped)."""
    text = html.unescape(output.get("data", {}).get("text/html", ""))
    return title in text or json.dumps(title)[1:-1] in text


@pytest.fixture(scope="module")
def ran() -> nbformat.NotebookNode:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(EVERY_FIGURE))
    NotebookClient(notebook, timeout=600, kernel_name="python3").execute()
    return notebook


def _code_cells(notebook: nbformat.NotebookNode) -> list:
    return [c for c in notebook.cells if c.cell_type == "code"]


def test_the_notebook_runs_without_an_error(ran):
    errors = [
        f"{o.get('ename')}: {o.get('evalue')}"
        for cell in _code_cells(ran)
        for o in cell.outputs
        if o.output_type == "error"
    ]
    assert not errors


def test_the_documented_cells_show_a_page_and_a_figure(ran):
    cells = {c.source.split("\n")[0]: c for c in _code_cells(ran)}
    page = next(o for o in cells["rope = RopePage()"].outputs if PANEL_EXEC in o.get("data", {}))
    rope = PAGES["rope"]()
    assert all(_shows(page, rope.figures[name].title) for name in rope.figures)
    (figure,) = [
        o for o in cells['rope.figure_view("pair")'].outputs if PANEL_EXEC in o.get("data", {})
    ]
    assert _shows(figure, rope.figures["pair"].title)
    assert cells["rope.param.update(m=105, n=102)"].outputs[-1]["data"]["text/plain"] == "3"


def test_every_page_and_every_figure_displays(ran):
    # A displayed view has a text form too (its repr); a library's load script has none.
    outputs = _code_cells(ran)[-1].outputs
    shown = [o for o in outputs if PANEL_EXEC in o.get("data", {}) and o["data"].get("text/plain")]
    expected = []
    for cls in PAGES.values():
        page = cls()
        expected.append([page.figures[name].title for name in page.figures])
        expected.extend([page.figures[name].title] for name in page.figures)
    assert len(shown) == len(expected)
    missing = [
        titles
        for out, titles in zip(shown, expected, strict=True)
        if not all(_shows(out, t) for t in titles)
    ]
    assert not missing
