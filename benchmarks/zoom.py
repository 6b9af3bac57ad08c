"""Zooming into Sinusoidal's tall code table, in a real browser: how soon the detail is drawn.

At 4,096 positions × 512 dimensions S1 draws one row in 32
(``app/pages/sinusoidal/shared.py``); a zoom or pan asks the server for the
rows in view (``CodeTable.zoomed``). This benchmark serves
the app, opens the page in headless Chromium at that size and zooms S1 the
way a zoom tool does (sets the range, announces it with Bokeh's
``RangesUpdate``), cycling through a narrow view (every row), a wider one
(a few rows in one) and the whole table (reset). Per view it prints the rows
drawn, p50 / p95 from the zoom to the frame after the new rows are painted,
and the bytes the browser received per zoom.

    python benchmarks/zoom.py                 # 8 zooms per view
    python benchmarks/zoom.py --samples 20
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._browser import WireCounter, first_load, launch, new_page, percentile, served

N, D = 4096, 512
URL = f"?page=sinusoidal&n={N}&d={D}&max_len={N}&t=1000"
#: (low, high) of the y views zoomed to, in positions.
VIEWS = ((990.0, 1040.0), (1000.0, 1500.0), (-0.5, N - 0.5))

#: JavaScript: ``s1()`` is S1's plot, its view and its image renderer (the
#: image figure whose colours are pinned to −1 … 1).
S1 = """const s1 = () => {
  const Plot = Bokeh.Models.get('Plot'), Image = Bokeh.Models.get('Image');
  for (const doc of Bokeh.documents) for (const plot of doc.all_models) {
    if (!(plot instanceof Plot)) continue;
    const images = plot.renderers.filter(r => r.glyph instanceof Image);
    if (images.length !== 1 || images[0].glyph.color_mapper.low !== -1) continue;
    const view = Bokeh.index.find_one(plot);
    if (view && view.is_displayed) return [plot, view, images[0]];
  }
  return [null, null, null];
};"""

#: S1's rows drawn, the position of the first, and the page coordinates of (x, y).
S1_JS = f"""([x, y]) => {{ {S1}
  const [plot, view, image] = s1();
  if (!plot) return null;
  const box = view.el.getBoundingClientRect(), data = image.data_source.data;
  return {{
    rows: data.image[0].shape[0], first: data.y[0] + 0.5, page_y: box.top + window.scrollY,
    at: [box.left + view.frame.x_scale.compute(x), box.top + view.frame.y_scale.compute(y)],
  }};
}}"""

#: Zoom S1 to y from lo to hi as a zoom tool does: set its range, announce it.
ZOOM_JS = f"""([lo, hi]) => {{ {S1}
  const [plot, view] = s1();
  view.update_range({{xrs: new Map(), yrs: new Map([[plot.y_range, {{start: hi, end: lo}}]])}});
  view.trigger_ranges_update_event();
}}"""

#: The time of the frame after the next paint.
_NEXT_FRAME_JS = (
    "() => new Promise(r => requestAnimationFrame(() => "
    "requestAnimationFrame(() => r(performance.now()))))"
)


def expected_rows(low: float, high: float) -> int:
    """The rows S1 draws for a view (as the server decides)."""
    from app.pages.sinusoidal.shared import row_view

    start, stop, step = row_view(N, D, low, high)
    return math.ceil((stop - start) / step)


def run(samples: int) -> list[dict[str, object]]:
    from playwright.sync_api import sync_playwright

    times: dict[tuple[float, float], list[float]] = {view: [] for view in VIEWS}
    wire: dict[tuple[float, float], list[int]] = {view: [] for view in VIEWS}
    with served(["app"]) as base, sync_playwright() as pw:
        browser = launch(pw)
        page = new_page(browser)
        counter = WireCounter(page)
        first_load(page, f"{base}/app{URL}")
        whole = expected_rows(-0.5, N - 0.5)
        page.wait_for_function(f"() => ({S1_JS})([0, 0])?.rows === {whole}")
        for _ in range(samples):
            for low, high in VIEWS:
                rows = expected_rows(low, high)
                received = counter.received
                start = page.evaluate("() => performance.now()")
                page.evaluate(ZOOM_JS, [low, high])
                page.wait_for_function(
                    f"() => ({S1_JS})([0, 0]).rows === {rows}", polling="raf", timeout=20_000
                )
                times[(low, high)].append(page.evaluate(_NEXT_FRAME_JS) - start)
                page.wait_for_timeout(300)  # the last frames of the answer arrive
                wire[(low, high)].append(counter.received - received)
        browser.close()
    return [
        {
            "view": f"{low:g} … {high:g}",
            "rows": expected_rows(low, high),
            "p50": percentile(times[(low, high)], 50),
            "p95": percentile(times[(low, high)], 95),
            "bytes": sorted(wire[(low, high)])[len(wire[(low, high)]) // 2],
        }
        for low, high in VIEWS
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=8, help="zooms per view (8)")
    args = parser.parse_args(argv)
    results = run(max(1, args.samples))
    print(f"S1 at {N:,} × {D}: zoom → new rows painted ({args.samples} zooms per view)")
    print(f"{'view (positions)':<20} {'rows':>5} {'p50 ms':>7} {'p95 ms':>7} {'bytes':>9}")
    for r in results:
        print(f"{r['view']:<20} {r['rows']:>5} {r['p50']:>7.0f} {r['p95']:>7.0f} {r['bytes']:>9,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
