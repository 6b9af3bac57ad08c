"""What a documentation page with two static figures costs, shared libraries or not.

    python benchmarks/embed_export.py [--runs 7]

Exports the two figures of the example site (``docs/site``) twice, into
``single/`` (``--single-file``: each file with its own BokehJS, Panel and
KaTeX) and into ``shared/`` (the default: one ``lib/`` folder), writes the
same docs page with two iframes beside each, serves both over local HTTP (as a
docs host would) and opens each page in headless Chromium with an empty cache,
alternating, ``--runs`` times: the bytes the page transfers and the time from
navigation until both figures have drawn a canvas. Prints medians;
docs/performance.md keeps the numbers.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.export import export
from benchmarks._browser import launch

FIGURES = ("sinusoidal:table", "alibi:decay")
FILES = ("sinusoidal-table.html", "alibi-decay.html")
_DRAWN = """() => { const walk = r => [...r.querySelectorAll('*')].some(e =>
  e.tagName === 'CANVAS' && e.width > 0 || (e.shadowRoot && walk(e.shadowRoot)));
  return walk(document); }"""


def docs_page(folder: Path) -> Path:
    frames = "".join(
        f'<iframe src="{name}" width="900" height="640" style="border: 0"></iframe>'
        for name in FILES
    )
    page = folder / "docs-page.html"
    page.write_text(f"<!DOCTYPE html><html><body>{frames}</body></html>")
    return page


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def open_once(browser, url: str) -> tuple[float, int]:
    context = browser.new_context(viewport={"width": 1000, "height": 1400})
    page = context.new_page()
    loaded: list[int] = []
    page.on("requestfinished", lambda r: loaded.append(r.sizes()["responseBodySize"]))
    start = time.perf_counter()
    page.goto(url)
    while len(page.frames) < 1 + len(FILES):
        page.wait_for_timeout(10)
    for frame in page.frames[1:]:
        frame.wait_for_function(_DRAWN, timeout=60_000, polling=20)
    drawn = time.perf_counter() - start
    context.close()
    return drawn, sum(loaded)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        pages = {}
        for mode in ("single", "shared"):
            folder = Path(tmp) / mode
            results = export(folder, FIGURES, single_file=mode == "single")
            assert all(r.ok for r in results), [r.status for r in results]
            pages[mode] = docs_page(folder)
        times: dict[str, list[float]] = {m: [] for m in pages}
        sizes: dict[str, int] = {}
        handler = functools.partial(_Quiet, directory=tmp)
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{httpd.server_address[1]}"
        with sync_playwright() as pw:
            browser = launch(pw)
            for _ in range(args.runs):
                for mode, path in pages.items():
                    drawn, size = open_once(browser, f"{base}/{path.relative_to(tmp).as_posix()}")
                    times[mode].append(drawn)
                    sizes[mode] = size
            browser.close()
        httpd.shutdown()
        for mode in pages:
            folder = Path(tmp) / mode
            files = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
            loads = sizes[mode] / 2**20
            print(
                f"{mode:7} on disk {files / 2**20:5.2f} MB, the page transfers {loads:5.2f} MB;"
                f" both figures drawn: median {statistics.median(times[mode]):.2f} s,"
                f" range {min(times[mode]):.2f}–{max(times[mode]):.2f} s ({args.runs} runs)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
