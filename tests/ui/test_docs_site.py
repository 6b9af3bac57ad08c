"""The example documentation site (docs/site, MkDocs) built and read in Chromium, offline.

Built as a docs author would (``python docs/site/build.py``): the static page's
two exported figures open from disk with every request beyond the files
refused, take their content's height and answer their controls; the live
page's frame draws from the test's explorer server and answers its sliders.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import ROOT
from .helpers import PageWatch

SITE = ROOT / "docs" / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory, server) -> Path:
    out = tmp_path_factory.mktemp("site")
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(SITE / "build.py"), str(out), "--explorer-url", server["url"]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"\ndocs site built in {time.perf_counter() - start:.1f} s, {size / 2**20:.1f} MB")
    return out


def test_the_sites_frame_script_is_the_one_the_embedding_guide_gives():
    guide = (ROOT / "docs" / "embedding.md").read_text()
    script = (SITE / "docs" / "js" / "explorer-frames.js").read_text()
    assert f"<script>\n{_indent(script)}</script>" in guide


def _indent(text: str) -> str:
    return "".join(f"  {line}" if line.strip() else line for line in text.splitlines(True))


def _frames_fit(page, count: int, timeout: float = 30_000) -> None:
    """Wait until ``count`` frames have the height their figures posted (the page's
    script sets it; the pages give the frames only a height attribute)."""
    page.wait_for_function(
        "n => [...document.querySelectorAll('iframe')].filter(f => f.style.height).length >= n",
        arg=count,
        timeout=timeout,
    )


def _canvas_drawn(frame, timeout: float = 30_000) -> None:
    frame.wait_for_function(
        """() => { const walk = r => [...r.querySelectorAll('*')].some(e =>
             e.tagName === 'CANVAS' && e.width > 0 || (e.shadowRoot && walk(e.shadowRoot)));
           return walk(document); }""",
        timeout=timeout,
    )


def test_static_figures_draw_offline_fit_their_frames_and_move(site, page):
    watch = PageWatch().attach(page)
    start = time.perf_counter()
    page.goto((site / "static.html").as_uri())
    frames = [page.frame_locator("iframe").nth(i) for i in range(2)]
    for i, frame in enumerate(frames):
        page.locator("iframe").nth(i).scroll_into_view_if_needed()  # the frames load lazily
        frame.locator(".noUi-handle").first.wait_for(timeout=30_000)
    for i in range(2):
        _canvas_drawn(page.frames[i + 1])
    print(f"\nstatic page: both figures drawn {time.perf_counter() - start:.2f} s after navigation")
    _frames_fit(page, 2)
    heights = page.locator("iframe").evaluate_all("fs => fs.map(f => f.style.height)")
    assert all(h.endswith("px") and 300 < float(h[:-2]) < 2000 for h in heights), heights
    for i, frame in enumerate(frames):
        card = frame.locator(".bk-panel-models-layout-Card").first
        before = card.screenshot()
        handle = frame.locator(".noUi-handle").first
        handle.focus()
        page.keyboard.press("ArrowRight")
        deadline = time.monotonic() + 5
        while card.screenshot() == before:
            assert time.monotonic() < deadline, f"figure {i + 1} did not move"
            time.sleep(0.2)
    assert watch.external == [] and watch.errors == []


def test_a_live_figure_draws_from_the_explorer_and_answers_its_controls(site, page, server):
    watch = PageWatch().attach(page)
    start = time.perf_counter()
    page.goto((site / "live.html").as_uri())
    frame = page.frame_locator("iframe").first
    slider = frame.get_by_role("slider", name=re.compile("Query position m"))
    slider.first.wait_for(timeout=30_000)
    explorer = next(f for f in page.frames if f.url.startswith(server["url"]))
    _canvas_drawn(explorer)
    print(f"\nlive page: R1 drawn {time.perf_counter() - start:.2f} s after navigation")
    _frames_fit(page, 1)
    height = page.locator("iframe").evaluate("f => f.getBoundingClientRect().height")
    assert height > 800  # R1 with its buttons, readout and caption: no inner scroll
    slider.first.focus()
    page.keyboard.press("ArrowRight")
    deadline = time.monotonic() + 5
    while not re.search(r"[?&]m=3(&|$)", search := explorer.evaluate("location.search")):
        assert time.monotonic() < deadline, f"the frame's address did not follow: {search}"
        time.sleep(0.1)
    assert watch.external == [] and watch.errors == []
