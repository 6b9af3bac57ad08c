"""Quick latency guard (issue 8): every control of every page, a few changes each.

Runs ``benchmarks/latency.py``'s measurement in quick mode (a real
``panel serve`` and headless Chromium, default sizes, 3 changes per control,
no naive comparison) and fails if a control got clearly slow.

"Clearly slow" is 3× its budget (70 ms p95; 20 ms for controls that only
select among computed data) where the control meets its budget today. Most
do not yet (issue 8 stays open; README "Speed" has the numbers and why): for
those the ceiling is 3× the p95 of the reference run committed in
``benchmarks/latency-reference.json``, so the guard still fails when one of
them gets three times slower than it is now. Every control over its budget is
printed, with its reference. The full benchmark (``python
benchmarks/latency.py``) gives the real numbers. Under ``CI`` a missing
Chromium fails the test instead of skipping it.

A control over its ceiling is measured once more, alone, with
``CONFIRM_SAMPLES`` changes, and fails only if it is over again. With 3
samples the p95 is about the slowest change, and one stall of this shared
machine put a control over its ceiling (CI, 2026-12-01: Relative nope_len
88 ms at p50, one change of ~330 ms, ceiling 271; this session changed
nothing on that page). A control three times slower is slow in every change,
so it fails both passes.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from benchmarks import latency

pytestmark = pytest.mark.ui

SAMPLES = 3
CONFIRM_SAMPLES = 6
QUIET_MS = 120  # the settle step also pings the server, so slow callbacks are still caught
REFERENCE = Path(latency.__file__).with_name("latency-reference.json")


def _reference() -> dict[tuple[str, str, str], float]:
    data = json.loads(REFERENCE.read_text())
    return {
        (r["page"], r["control"], r["size"]): r["p95"]
        for r in data["rows"]
        if r.get("p95") is not None
    }


def _measure(pages: list[str], samples: int, controls: list[str] | None = None) -> dict:
    # In a thread of its own: the browser tests' Playwright (sync API) keeps an
    # event loop in this thread, and a second sync Playwright refuses to start
    # inside it.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(
            latency.run,
            pages,
            samples,
            ("default",),
            QUIET_MS,
            naive=False,
            log=print,
            restore=False,
            controls=controls,
        ).result()


def _ceiling(row: latency.Row, reference: dict[tuple[str, str, str], float]) -> float:
    known = reference.get((row.page, row.control, row.size))
    return latency.CHECK_FACTOR * max(row.p95_budget, known or 0.0)


def _describe(row: latency.Row, reference: dict[tuple[str, str, str], float]) -> str:
    known = reference.get((row.page, row.control, row.size)) or 0.0
    return (
        f"{row.page}.{row.control}: p95 {row.p95:.0f} ms > {_ceiling(row, reference):.0f} ms "
        f"({latency.CHECK_FACTOR:g} × max(budget {row.p95_budget:.0f}, reference {known:.0f}))"
    )


def _over_ceiling(
    rows: list[latency.Row], reference: dict[tuple[str, str, str], float]
) -> tuple[list[latency.Row], list[str]]:
    """The rows over their ceiling, and a line for each row over budget but not its ceiling."""
    over, shortfalls = [], []
    for row in rows:
        if row.p95 is None:
            continue
        known = reference.get((row.page, row.control, row.size))
        if row.p95 > _ceiling(row, reference):
            over.append(row)
        elif row.p95 > row.p95_budget:
            shortfalls.append(
                f"{row.page}.{row.control}: p95 {row.p95:.0f} ms, budget "
                f"{row.p95_budget:.0f}, reference {known or float('nan'):.0f}"
            )
    return over, shortfalls


# About 62 controls × 3 samples plus 7 page loads: 5 min on 2 cores; its own budget.
@pytest.mark.timeout(1200)
def test_no_control_got_three_times_slower(capsys, chromium):
    reference = _reference()
    result = _measure(list(latency.PAGES), SAMPLES)
    rows = [latency.Row(**r) for r in result["rows"]]
    failures = [f"{f['page']} failed: {f['error'][:200]}" for f in result.get("failed", [])]
    over, shortfalls = _over_ceiling(rows, reference)
    if over:
        # Measured again, alone: over again, it is slow; once, it was a stall.
        suspects = {(row.page, row.control) for row in over}
        again = _measure(
            sorted({page for page, _ in suspects}),
            CONFIRM_SAMPLES,
            controls=sorted({control for _, control in suspects}),
        )
        failures += [f"{f['page']} failed: {f['error'][:200]}" for f in again.get("failed", [])]
        measured = [latency.Row(**r) for r in again["rows"]]
        retaken = [r for r in measured if (r.page, r.control) in suspects]
        still, _ = _over_ceiling(retaken, reference)
        with capsys.disabled():
            print("\nOver the ceiling, measured again:")
            print("\n".join(latency.format_row(row) for row in measured))
        failures += [_describe(row, reference) for row in still]
        failures += [
            f"{row.page}.{row.control}: no sample when measured again"
            for row in retaken
            if row.p95 is None
        ]
        failures += [
            f"{page}.{control}: not measured again"
            for page, control in sorted(suspects - {(r.page, r.control) for r in retaken})
        ]
    failures += [f"{row.page}.{row.control}: no sample" for row in rows if row.p95 is None]
    with capsys.disabled():
        print("\n" + "\n".join(latency.format_row(row) for row in rows))
        print(f"\n{len(shortfalls)} of {len(rows)} controls over budget (issue 8):")
        print("\n".join(f"  {s}" for s in shortfalls))
        print(f"Wall time {result['meta']['wall_s']:.0f} s.")
    assert rows, "no control was measured"
    assert not failures, "controls clearly slower than before:\n  " + "\n  ".join(failures)
