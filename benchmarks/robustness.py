"""Resource caps of every page: its most expensive allowed state (issue 9).

Sets every numeric control to its upper bound (dynamic bounds: the largest
they reach), builds and renders the page from scratch under tracemalloc (an
upper bound of what one update allocates), then times one update from the
defaults to that state in CPU seconds. Prints a table; budget: 1 s and
200 MB per update. Set HYPOTHESIS_PROFILE=thorough to also try every choice
of the text selectors and switches.

    python benchmarks/robustness.py
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import param
from bokeh.document import Document
from panel.io.state import set_curdoc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.main import PAGES

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
MAX_SECONDS = 1.0
MAX_BYTES = 200 * 2**20


def _worst(cls: type) -> dict[str, str]:
    """Every numeric control at its upper bound (dynamic bounds: the largest they reach)."""
    query: dict[str, str] = {}
    values: dict[str, Any] = {}
    for name in cls.control_names():
        p = cls.param[name]
        value: Any = p.default
        if isinstance(p, param.Boolean):
            value = True
        elif isinstance(p, param.Number):
            value = p.bounds[1]
        elif isinstance(p, param.Selector):
            objects = list(p.objects.values() if isinstance(p.objects, dict) else p.objects)
            if all(isinstance(o, int | float) for o in objects):
                value = max(objects)
        elif isinstance(p, param.String):
            # The longest sentence the Order page accepts: 32 words, < 400 characters.
            words = [f"w{i:02d}abcdefgh" for i in range(32)]
            value = " ".join(words if name == "a" else reversed(words))
        values[name] = value
    full = {**values}
    if hasattr(cls, "longrope_pairs"):
        full["longrope_pairs"] = cls.param.longrope_pairs.default
    for name, (_, high) in cls.dynamic_bounds(full).items():
        values[name] = high
    for name, value in values.items():
        query[name] = repr(value) if isinstance(value, float) else str(value)
    return query


def _variants(cls: type) -> list[dict[str, str]]:
    """The worst numbers, alone (CI) or with each choice of every other control (thorough)."""
    worst = _worst(cls)
    out = [worst]
    if not THOROUGH:
        return out
    for name in cls.control_names():
        p = cls.param[name]
        if isinstance(p, param.Boolean):
            out.append({**worst, name: "false"})
        elif isinstance(p, param.Selector):
            objects = list(p.objects.values() if isinstance(p.objects, dict) else p.objects)
            if not all(isinstance(o, int | float) for o in objects):
                out += [{**worst, name: str(o)} for o in objects if str(o) != worst[name]]
    return out


def _in_loop(fn, *args):
    """Run ``fn`` with an event loop running, as in a served session (Bokeh callbacks)."""

    async def run():
        return fn(*args)

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(run())
    finally:
        loop.close()


def _render(slug: str, query: dict[str, str]):
    page = PAGES[slug]()
    page.apply_query(query)
    doc = Document()
    doc.add_root(page.__panel__().get_root(doc))
    return page, doc


def _update_seconds(page, doc: Document, query: dict[str, str]) -> float:
    """CPU seconds of one update from the defaults to ``query`` on a rendered page.

    The page's document is the current one, as in a served session (where a
    change is handled inside one hold of that document).
    """
    with set_curdoc(doc):
        page.set_state(**{n: type(page).param[n].default for n in page.control_names()})
        start = time.process_time()
        page.apply_query(query)
        return time.process_time() - start


def measure(slug: str) -> tuple[float, int, dict[str, str], int]:
    """(slowest update in CPU s, largest peak bytes, slowest state, states tried)."""
    report = []
    for query in _variants(PAGES[slug]):
        gc.collect()
        tracemalloc.start()
        try:
            base, _ = tracemalloc.get_traced_memory()
            page, doc = _in_loop(_render, slug, query)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        seconds = min(_in_loop(_update_seconds, page, doc, query) for _ in range(2))
        report.append((seconds, peak - base, query))
    seconds, _, worst = max(report, key=lambda r: r[0])
    return seconds, max(r[1] for r in report), worst, len(report)


def main() -> int:
    print(f"{'page':<12}{'states':>7}{'update CPU s':>14}{'peak MB':>10}  within budget")
    over = 0
    for slug in sorted(PAGES):
        seconds, extra, _, count = measure(slug)
        ok = seconds < MAX_SECONDS and extra < MAX_BYTES
        over += not ok
        print(
            f"{slug:<12}{count:>7}{seconds:>14.2f}{extra / 2**20:>10.1f}  {'yes' if ok else 'NO'}"
        )
    print(
        f"budget: {MAX_SECONDS:.0f} s CPU and {MAX_BYTES / 2**20:.0f} MB per update; over: {over}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
