"""The static export in a real browser: opened from disk, with every network request refused.

The export runs here as in CI (``python -m app.export``), for a few figures that
cover the three kinds of control (slider, buttons, select): with the libraries
shared beside the figures (the default), and once as a single file.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.export import LIBRARIES, MAX_BYTES, MAX_SINGLE_FILE_BYTES, select_specs

from .conftest import ROOT
from .helpers import (
    open_page,
    resize_script,
    serious_axe_violations,
    slider_handle_names,
    wait_for_a11y_scan,
)

#: One figure per kind of control (slider, buttons, select), one with a slider
#: and buttons, and R1 (two sliders and buttons done in the browser).
ONLY = (
    "alibi:matrix",
    "order:permutation",
    "order:similarity",
    "sinusoidal:similarity",
    "rope:pair",
)
SPECS = select_specs(ONLY)


def _export(outdir: Path, only: tuple[str, ...], *options: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "app.export", str(outdir), "--only", ",".join(only), *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    outdir = tmp_path_factory.mktemp("export")
    report = _export(outdir, ONLY)
    for spec in SPECS:
        assert spec.name in report  # the report table
    assert f"Shared by every figure: {LIBRARIES}/" in report
    return outdir


def test_export_writes_one_small_file_per_figure_beside_one_copy_of_the_libraries(exported):
    names = sorted(p.name for p in exported.glob("*.html"))
    assert names == sorted([s.filename for s in SPECS] + ["index.html"])
    shared = {p.name for p in (exported / LIBRARIES).iterdir()}
    assert any(n.startswith("bokeh-") for n in shared) and any(
        n.startswith("panel-") for n in shared
    )
    for spec in SPECS:
        text = (exported / spec.filename).read_text()
        assert 0 < len(text.encode()) < MAX_BYTES, spec.name
        # Every figure loads every library from the one folder.
        assert {n for n in shared if f'"{LIBRARIES}/{n}"' in text} == shared, spec.name
    index = (exported / "index.html").read_text()
    assert all(spec.filename in index for spec in SPECS)


def test_a_single_file_export_needs_nothing_beside_it(page, tmp_path):
    """``--single-file``: no library folder; the file alone opens offline and its control works."""
    spec = select_specs(["alibi:matrix"])[0]
    _export(tmp_path, (spec.name,), "--single-file")
    assert not (tmp_path / LIBRARIES).exists()
    path = tmp_path / spec.filename
    assert MAX_BYTES < path.stat().st_size < MAX_SINGLE_FILE_BYTES  # the libraries are inside
    _works_offline(page, path, spec)


def _offline(page) -> dict[str, list[str]]:
    """Refuse every request that is not for a file on disk; record them and console errors."""
    seen: dict[str, list[str]] = {"network": [], "errors": []}

    def route(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            seen["network"].append(route.request.url)
            route.abort()

    page.context.route("**/*", route)
    page.on(
        "request",
        lambda r: (
            None if r.url.startswith(("file:", "data:", "blob:")) else seen["network"].append(r.url)
        ),
    )
    page.on("console", lambda m: seen["errors"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: seen["errors"].append(f"pageerror: {exc}"))
    return seen


def _move(page, widget: str, index: int) -> None:
    """Move the file's ``index``-th control of kind ``widget`` to another precomputed value."""
    if widget == "slider":
        handle = page.locator(".noUi-handle").nth(index)
        at_end = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
        handle.focus()
        page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
    elif widget == "select":
        select = page.locator("select").nth(index)
        current = select.input_value()
        values = select.locator("option").evaluate_all("os => os.map(o => o.value)")
        select.select_option(next(v for v in values if v != current))
    else:
        page.locator(".bk-btn-group").nth(index).locator(
            "button.bk-btn:not(.bk-active)"
        ).first.click()


def _changed(locator, before: bytes, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if locator.screenshot() != before:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_exported_figure_works_offline(page, exported, spec):
    _works_offline(page, exported / spec.filename, spec)


def _works_offline(page, path: Path, spec) -> None:
    seen = _offline(page)
    open_page(page, path.as_uri())
    card = page.locator(".bk-panel-models-layout-Card").first
    kinds = [g.widget for g in spec.grids]
    counts = {k: page.locator(_KIND[k]).count() for k in set(kinds)}
    assert counts == {k: kinds.count(k) for k in set(kinds)}, f"{spec.name}: controls {counts}"
    for i, grid in enumerate(spec.grids):  # every control, each of its kind in order
        before = card.screenshot()
        _move(page, grid.widget, kinds[:i].count(grid.widget))
        assert _changed(card, before), f"{spec.name}: moving {grid.control} did not change it"
        if grid.widget == "slider":  # the last precomputed state exists too
            page.keyboard.press("End")
            after = card.screenshot()
            page.keyboard.press("Home")
            assert _changed(card, after), f"{spec.name}: {grid.control}'s ends"
    assert seen["network"] == [], f"requests left the file: {seen['network']}"
    assert seen["errors"] == []


#: Where each kind of control is found in a file.
_KIND = {"slider": ".noUi-handle", "select": "select", "buttons": ".bk-btn-group"}


def test_exported_figure_is_accessible(page, exported):
    """The accessibility script and sheet travel inside the file; axe finds nothing serious."""
    seen = _offline(page)
    open_page(page, (exported / select_specs(["alibi:matrix"])[0].filename).as_uri())
    wait_for_a11y_scan(page)
    handles = slider_handle_names(page)
    assert handles and all(handles), f"slider handles without a name: {handles}"
    serious = serious_axe_violations(page)
    assert not serious, serious
    assert seen["network"] == [] and seen["errors"] == []


def test_a_static_figure_gives_its_frame_its_height(page, exported):
    """A documentation page beside the export, with the docs' resize lines: the frame
    of a static figure (200 px to start) takes its content's height."""
    spec = SPECS[0]
    docs_page = exported / "docs-page.html"
    docs_page.write_text(
        f'<body style="margin: 0">{resize_script()}<iframe id="f" src="{spec.filename}" '
        'width="800" height="200" style="border: 0"></iframe></body>'
    )
    seen = _offline(page)
    page.goto(docs_page.as_uri())
    content = page.frame_locator("#f").locator("[data-root-id] > *").first
    content.wait_for(timeout=30_000)
    page.wait_for_function(
        "() => document.getElementById('f').getBoundingClientRect().height > 400", timeout=15_000
    )
    frame = page.locator("#f").evaluate("f => f.getBoundingClientRect().height")
    bottom = content.evaluate("e => Math.ceil(e.getBoundingClientRect().bottom)")
    assert abs(frame - bottom) <= 16, (frame, bottom)
    assert seen["network"] == [] and seen["errors"] == []


def test_r1s_buttons_work_in_the_static_copy(page, exported):
    """Shift both by +1 keeps the offset, Swap flips it; the sliders follow."""
    seen = _offline(page)
    open_page(page, (exported / select_specs(["rope:pair"])[0].filename).as_uri())
    readout = page.get_by_text("query at m =").first
    assert readout.inner_text().startswith("query at m = 2, key at n = 1: offset n − m = −1")
    page.get_by_role("button", name="Shift both by +1").click()
    expect(readout).to_contain_text("query at m = 3, key at n = 2: offset n − m = −1")
    page.get_by_role("button", name="Swap m and n").click()
    expect(readout).to_contain_text("query at m = 2, key at n = 3: offset n − m = 1")
    handles = page.locator(".noUi-handle")
    assert [handles.nth(i).get_attribute("aria-valuenow") for i in range(2)] == ["2.0", "3.0"]
    assert seen["network"] == [] and seen["errors"] == []
