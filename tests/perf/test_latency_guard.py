"""Quick latency guard (issue 8): every control of every page, a few changes each.

Runs ``benchmarks/latency.py``'s measurement in quick mode (a real
``panel serve`` and headless Chromium, default sizes, 3 changes per control,
no naive comparison) and fails if any control's p95 is over 3× its budget:
210 ms for a control that computes (budget 70 ms), 60 ms for one that only
selects among computed data (budget 20 ms). The full benchmark (``python
benchmarks/latency.py``) gives the real numbers; every control over its budget
is printed. Under ``CI`` a missing Chromium fails the test instead of
skipping it.

A control over its ceiling is measured once more, alone, with
``CONFIRM_SAMPLES`` changes, and fails if that p95 is over again. With 3
samples the p95 is about the slowest change, and one stall of this shared
machine put a control over its ceiling (CI, 2026-12-01: Relative nope_len
88 ms at p50, one change of ~330 ms). With 20 the p95 lies between the two
slowest changes: one stall moves it by at most a quarter of the gap, while a
control three times slower than its budget is slow in every change and fails
both passes.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks import latency

pytestmark = pytest.mark.ui

SAMPLES = 3
CONFIRM_SAMPLES = 20
QUIET_MS = 120  # the settle step also pings the server, so slow callbacks are still caught


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


def _ceiling(row: latency.Row) -> float:
    return latency.CHECK_FACTOR * row.p95_budget


def _describe(row: latency.Row) -> str:
    return (
        f"{row.page}.{row.control}: p95 {row.p95:.0f} ms > {_ceiling(row):.0f} ms "
        f"({latency.CHECK_FACTOR:g} × budget {row.p95_budget:.0f})"
    )


def _over_ceiling(rows: list[latency.Row]) -> tuple[list[latency.Row], list[str]]:
    """The rows over their ceiling, and a line for each row over budget but not its ceiling."""
    over, shortfalls = [], []
    for row in rows:
        if row.p95 is None:
            continue
        if row.p95 > _ceiling(row):
            over.append(row)
        elif row.p95 > row.p95_budget:
            shortfalls.append(
                f"{row.page}.{row.control}: p95 {row.p95:.0f} ms, budget {row.p95_budget:.0f}, "
                f"ceiling {_ceiling(row):.0f}"
            )
    return over, shortfalls


def _row(page: str, control: str, p95: float) -> latency.Row:
    p50_budget, p95_budget = latency.budget(page, control, "default")
    kind = "select" if control in latency.select_controls(page) else "compute"
    return latency.Row(
        page, control, "default", kind, 3, p95, p95, p50_budget, p95_budget,
        None, None, None, None, None, 0, "paint", 0,
    )  # fmt: skip


def test_the_ceilings_are_three_times_the_budgets():
    """210 ms for a control that computes, 60 ms for one the browser selects."""
    over, shortfalls = _over_ceiling(
        [
            _row("rope", "d", 209.0),
            _row("rope", "d", 211.0),
            _row("rope", "pair", 59.0),
            _row("rope", "pair", 61.0),
        ]
    )
    assert [(r.control, r.p95) for r in over] == [("d", 211.0), ("pair", 61.0)]
    assert len(shortfalls) == 2  # over budget, under the ceiling: printed, not failed


# About 62 controls × 3 samples plus 7 page loads: 5 min on 2 cores; its own budget.
@pytest.mark.timeout(1500)
def test_no_control_is_over_three_times_its_budget(capsys, chromium):
    result = _measure(list(latency.PAGES), SAMPLES)
    rows = [latency.Row(**r) for r in result["rows"]]
    failures = [f"{f['page']} failed: {f['error'][:200]}" for f in result.get("failed", [])]
    over, shortfalls = _over_ceiling(rows)
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
        still, _ = _over_ceiling(retaken)
        with capsys.disabled():
            print("\nOver the ceiling, measured again:")
            print("\n".join(latency.format_row(row) for row in measured))
        failures += [_describe(row) for row in still]
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
    assert not failures, "controls over three times their budget:\n  " + "\n  ".join(failures)
