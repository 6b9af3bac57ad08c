"""A drag across each slider, in a real browser: how far behind the drag the figures end (issue 8).

``latency.py`` times one change at a time. A drag sends many, one every
frame or two, and most changes take the server longer than that to draw; if
each value is drawn in turn the figures fall further behind with every value
and keep moving after the pointer has stopped. This benchmark serves the app,
opens each page in headless Chromium and, for every slider at the default
sizes, sets ``--values`` values on the slider's Bokeh model one every
``--gap-ms`` (the messages a drag sends), then waits for the page to settle.
Per slider it prints:

- ``catch-up``: from the last value sent to the last figure painted (or the
  last patch applied, for a control that only changes text), p50 and max
  over the drags (what the user sees as lag when the pointer stops);
- ``drag``: how long sending the values took (the browser's main thread is
  also busy painting, so a drag takes longer than values × gap);
- ``patches``: document patches the server sent (one per value drawn; 0
  for a select control the browser draws alone).

    python benchmarks/drag.py                       # every page
    python benchmarks/drag.py --pages extension --values 15 --gap-ms 30

Controls shown only in some state (Context extension's method knobs) are
dragged in that state, which the page is put in through its own widgets,
as ``latency.py`` does.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import latency
from benchmarks._browser import WireCounter, first_load, launch, new_page, served

# Sends the values, one every `gap` ms (all in one go for 0; and the release,
# for a throttled slider), then waits for quiet (see _browser.PROBE_JS).
_DRAG_JS = """
async ([id, values, gap, quiet, throttled]) => {
  const pe = window.__pe;
  const model = pe.model(id);
  await new Promise(r => requestAnimationFrame(() => r()));
  pe.clear();
  const t0 = performance.now();
  let last = t0;
  for (let i = 0; i < values.length; i++) {
    if (i > 0 && gap > 0) await new Promise(r => setTimeout(r, gap));
    model.value = values[i];
    last = performance.now();
  }
  // A throttled slider tells the server at the release (value_throttled).
  if (throttled) { model.value_throttled = values.at(-1); last = performance.now(); }
  const timedOut = await pe.settle(last, quiet, 60000, true);
  // The later of the last figure paint and the last patch applied: a control
  // that only changes text (Compare's heads) ends at its patch.
  const ends = [pe.frames.at(-1), pe.patchFrames.at(-1)].filter(t => t != null);
  const end = ends.length ? Math.max(...ends) : last;
  return {
    catchUp: Math.max(0, end - last), drag: last - t0, timedOut,
    patches: pe.inbound.filter(m => m.type === 'PATCH-DOC').length,
    sent: pe.outbound.filter(m => m.type === 'PATCH-DOC').length,
  };
}
"""


def drag(
    page: Any, model_id: str, values: list[float], gap_ms: float, throttled: bool = False
) -> dict[str, Any]:
    """One drag of a slider's Bokeh model in a page with the probe: ``catchUp`` (last
    value → last paint, or last patch applied for a text-only control, ms),
    ``drag`` (ms spent sending), ``patches`` (from the server), ``sent`` (to
    it), ``timedOut``."""
    return page.evaluate(_DRAG_JS, [model_id, values, gap_ms, 300, throttled])


def sweep(widget: dict[str, Any], count: int) -> list[float]:
    """``count`` slider values moving one way from the current one, a step or more apart."""
    low, high, step = widget["start"], widget["end"], widget["step"]
    value = widget["value"]
    delta = max(step, round((high - low) / (3 * count) / step) * step)
    # Towards the end with more room (ALiBi's head, 1 … 8 from 1, went down
    # before: every value was the current one, so nothing was drawn).
    if value + count * delta <= high:
        sign = 1
    elif value - count * delta >= low:
        sign = -1
    else:
        sign = 1 if high - value >= value - low else -1
    out = []
    for i in range(1, count + 1):
        v = min(max(value + sign * i * delta, low), high)
        out.append(round(low + round((v - low) / step) * step, 10))
    return out


def measure(
    page: Any, widget: dict[str, Any], values: int, gap_ms: float, drags: int, throttled: bool
) -> dict:
    """``drags`` drags of one slider, alternately away from its value and back."""
    runs = []
    forward = sweep(widget, values)
    back = [*forward[-2::-1], widget["value"]]
    for i in range(drags):
        way = forward if i % 2 == 0 else back
        runs.append(drag(page, widget["id"], way, gap_ms, throttled))
    if drags % 2:  # leave the slider where it was
        drag(page, widget["id"], back, gap_ms, throttled)
    catch = [r["catchUp"] for r in runs]
    return {
        "catch_up_p50": statistics.median(catch),
        "catch_up_max": max(catch),
        "drag_ms": statistics.median(r["drag"] for r in runs),
        "patches": statistics.median(r["patches"] for r in runs),
        "timeouts": sum(r["timedOut"] for r in runs),
    }


def _format(row: dict[str, Any]) -> str:
    notes = [row["kind"]] + ["throttled"] * row["throttled"]
    notes += [f"{k}={v}" for k, v in row["context"].items()]
    if row["timeouts"]:
        notes.append(f"{row['timeouts']} timed out")
    return (
        f"{row['page']:<11} {row['control']:<16} {row['catch_up_p50']:>8.0f} "
        f"{row['catch_up_max']:>6.0f} {row['drag_ms']:>6.0f} {row['patches']:>8.0f}  "
        + ", ".join(notes)
    )


def run(pages: list[str], values: int, gap_ms: float, drags: int) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as pw, served(["app"]) as base:
        browser = launch(pw)
        try:
            for slug in pages:
                page = new_page(browser)
                wire = WireCounter(page)
                first_load(page, f"{base}/app?page={slug}")
                groups, _ = latency.plan(slug)
                selects = latency.select_controls(slug)
                for context, names in groups:
                    if not latency.set_context(page, slug, context, wire, 300):
                        continue
                    found, _ = latency.match_widgets(page, slug, names, wire, 300)
                    for name in names:
                        widget = found.get(name)
                        if widget is None or not latency.is_slider(widget):
                            continue
                        spec = latency.PAGES[slug].widget_specs.get(name, {})
                        throttled = bool(spec.get("throttled"))
                        numbers = measure(page, widget, values, gap_ms, drags, throttled)
                        row = {
                            "page": slug,
                            "control": name,
                            "kind": "select" if name in selects else "compute",
                            "throttled": throttled,
                            "context": context,
                            **numbers,
                        }
                        print(_format(row), flush=True)
                        rows.append(row)
                page.context.close()
        finally:
            browser.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pages", nargs="+", default=list(latency.PAGES), choices=list(latency.PAGES)
    )
    parser.add_argument("--values", type=int, default=15, help="values per drag (15)")
    parser.add_argument("--gap-ms", type=float, default=30, help="time between values (30 ms)")
    parser.add_argument("--drags", type=int, default=4, help="drags per slider (4)")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    started = time.monotonic()
    print(
        f"{'page':<11} {'control':<16} {'catch-up':>8} {'max':>6} {'drag':>6} {'patches':>8}  (ms)"
    )
    rows = run(args.pages, args.values, args.gap_ms, args.drags)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(
        f"{len(rows)} sliders, {args.values} values every {args.gap_ms:.0f} ms, "
        f"{args.drags} drags each; {when}, {time.monotonic() - started:.0f} s."
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {"when": when, "values": args.values, "gap_ms": args.gap_ms, "rows": rows}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
