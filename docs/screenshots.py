"""Screenshots of every page at a phone's, a zoomed projector's and a laptop's width.

Run from the repository with the app served (``panel serve app --port 5006``):

    python docs/screenshots.py [--url http://localhost:5006/app]

Writes ``docs/screens/<page>-<width>.png`` (the top of each page, as a student
first sees it; and two of the guided lesson's steps) with Debian's Chromium
(``CHROMIUM`` overrides its path).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import sync_playwright

from app.main import PAGES
from benchmarks._browser import launch

#: Phone, a 1280 × 720 projector at 150 % zoom, laptop (tests/ui/test_screens.py).
SCREENS = {"phone": (390, 844), "projector": (853, 480), "laptop": (1280, 800)}
OUT = Path(__file__).parent / "screens"
#: The guided lesson: a step at each width, and projected (present=1) at 1280 × 720.
LESSON = {
    "lesson-step6": ("?page=lesson&step=6", SCREENS.values()),
    "lesson-step8-present": ("?page=lesson&step=8&present=1", [(1280, 720)]),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://localhost:5006/app")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = launch(p)
        shots = {slug: (f"?page={slug}", SCREENS.values()) for slug in PAGES} | LESSON
        for name, (query, sizes) in shots.items():
            for width, height in sizes:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(f"{args.url}{query}")
                page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0")
                page.wait_for_timeout(4000)  # every figure drawn, square ones fitted
                path = OUT / f"{name}-{width}.png"
                page.screenshot(path=path)
                print(path)
                page.close()
        browser.close()


if __name__ == "__main__":
    main()
