"""Quick latency guard: every control of every page, a few changes each, against
the naive rebuild measured in the same run.

Runs ``benchmarks/latency.py``'s measurement in quick mode (a real ``panel
serve`` and headless Chromium, default sizes, 3 changes per control) together
with its naive comparison: Sinusoidal's code table rebuilt by ``pn.bind`` on
every change (``benchmarks/naive_app.py``). The budgets (70 ms p95 for a
control that computes, 20 ms for one that only selects) were set on a machine
where that rebuild took ``NAIVE_REFERENCE_MS`` at p50. This shared machine is
at times twice as slow, and a wall-clock ceiling would fail on the machine, not
on the code; so each ceiling is 3 × its budget scaled by how much slower the
rebuild is in this run (never below 1). The test fails if a control's p95 is
over its ceiling: a control that costs more, relative to rebuilding a figure
from scratch on this machine, than three times what the budget allows. A
selection's budget (20 ms) is below what this browser takes to repaint a
figure with no server at all (the floor, ``benchmarks/floor_app.py``, about
30 ms); a selection's ceiling is therefore 3 × the larger of its budget and
the floor's p95 measured in the same run (scaled as above).

A control over its ceiling is measured once more, alone, with
``CONFIRM_SAMPLES`` changes, and fails if that p95 is over again. With 3
samples the p95 is about the slowest change, and one stall of this shared
machine can put a control over its ceiling; with 20 the p95 lies between the
two slowest changes, while a control three times slower than its budget is
slow in every change and fails both passes.

A second test clicks the slowest controls at points spread over their whole
range (``latency.py --across``), where a change costs most, against 3 × the
across budget (120 ms p95) scaled the same way.

The full benchmark (``python benchmarks/latency.py``) gives the real numbers.
Under ``CI`` a missing Chromium fails the test instead of skipping it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks import latency

pytestmark = pytest.mark.ui

SAMPLES = 3
NAIVE_SAMPLES = 8  # the scale of every ceiling: a median of 8 is not moved by one stall
CONFIRM_SAMPLES = 20
QUIET_MS = 120  # the settle step also pings the server, so slow callbacks are still caught
#: The naive rebuild's p50 (Sinusoidal's t) in the run the budgets were set
#: against: docs/performance.md, "pn.bind rebuild" (162 against our 29 ms).
NAIVE_REFERENCE_MS = 162.0


def _measure(
    pages: list[str], samples: int, controls: list[str] | None = None, size: str = "default"
) -> dict:
    # In a thread of its own: the browser tests' Playwright (sync API) keeps an
    # event loop in this thread, and a second sync Playwright refuses to start
    # inside it.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(
            latency.run,
            pages,
            samples,
            (size,),
            QUIET_MS,
            naive=True,
            naive_samples=NAIVE_SAMPLES,
            log=print,
            restore=False,
            controls=controls,
        ).result()


def slowdown(result: dict) -> float:
    """How much slower than the budgets' machine this run's machine is (at least 1)."""
    naive = (result.get("naive") or {}).get("naive") or {}
    if not naive.get("p50"):
        raise AssertionError(f"the naive rebuild was not measured: {result.get('failed')}")
    return max(1.0, naive["p50"] / NAIVE_REFERENCE_MS)


def floor_p95(result: dict) -> float:
    """The p95 of a repaint the browser does alone in this run (0 if not measured)."""
    floor = (result.get("naive") or {}).get("floor") or {}
    return floor.get("p95") or 0.0


def _budget(row: latency.Row, floor: float) -> float:
    return max(row.p95_budget, floor) if row.kind == "select" else row.p95_budget


def _ceiling(row: latency.Row, scale: float, floor: float) -> float:
    return latency.CHECK_FACTOR * _budget(row, floor) * scale


def _describe(row: latency.Row, scale: float, floor: float) -> str:
    return (
        f"{row.page}.{row.control}: p95 {row.p95:.0f} ms > {_ceiling(row, scale, floor):.0f} ms "
        f"({latency.CHECK_FACTOR:g} × budget {_budget(row, floor):.0f} × slowdown {scale:.2f})"
    )


def over_ceiling(
    rows: list[latency.Row], scale: float, floor: float = 0.0
) -> tuple[list[latency.Row], list[str]]:
    """The rows over their ceiling, and a line for each row over budget but not its ceiling."""
    over, shortfalls = [], []
    for row in rows:
        if row.p95 is None:
            continue
        if row.p95 > _ceiling(row, scale, floor):
            over.append(row)
        elif row.p95 > (budget := _budget(row, floor)) * scale:
            shortfalls.append(
                f"{row.page}.{row.control}: p95 {row.p95:.0f} ms, budget {budget:.0f} "
                f"× {scale:.2f}, ceiling {_ceiling(row, scale, floor):.0f}"
            )
    return over, shortfalls


def _row(page: str, control: str, p95: float) -> latency.Row:
    p50_budget, p95_budget = latency.budget(page, control, "default")
    kind = "select" if control in latency.select_controls(page) else "compute"
    return latency.Row(
        page, control, "default", kind, 3, p95, p95, p50_budget, p95_budget,
        None, None, None, None, None, 0, "paint", 0,
    )  # fmt: skip


def test_the_ceilings_follow_the_naive_rebuild_of_the_same_run():
    """On the budgets' machine: 210 ms for a control that computes, 60 ms for one
    the browser selects; on a machine where the rebuild takes twice as long, twice
    that; never below the budgets' own."""
    rows = [_row("rope", "d", 209.0), _row("rope", "d", 211.0)]
    rows += [_row("rope", "pair", 59.0), _row("rope", "pair", 61.0)]
    over, shortfalls = over_ceiling(rows, slowdown({"naive": {"naive": {"p50": 100.0}}}))
    assert [(r.control, r.p95) for r in over] == [("d", 211.0), ("pair", 61.0)]
    assert len(shortfalls) == 2  # over budget, under the ceiling: printed, not failed
    twice = slowdown({"naive": {"naive": {"p50": 2 * NAIVE_REFERENCE_MS}}})
    assert twice == 2.0
    over, _ = over_ceiling([_row("rope", "d", 415.0), _row("rope", "d", 425.0)], twice)
    assert [r.p95 for r in over] == [425.0]
    with pytest.raises(AssertionError, match="naive rebuild was not measured"):
        slowdown({"naive": None, "failed": []})


def test_a_preset_is_held_to_the_budget_of_a_change_across_the_range():
    """A preset moves a dozen controls to other points of their ranges: 360 ms, not 210."""
    rows = [_row("extension", "preset", 359.0), _row("extension", "preset", 361.0)]
    rows += [_row("extension", "trained_len", 211.0)]
    over, _ = over_ceiling(rows, 1.0)
    assert [(r.control, r.p95) for r in over] == [("preset", 361.0), ("trained_len", 211.0)]


def test_a_selection_is_allowed_three_browser_repaints():
    """With the browser's own repaint at 31 ms (p95), a selection's ceiling is 93 ms
    (scaled by the slowdown); a control that computes keeps its own budget."""
    floor = floor_p95({"naive": {"floor": {"p50": 29.0, "p95": 31.0}}})
    rows = [_row("alibi", "head", 92.0), _row("alibi", "head", 94.0), _row("rope", "d", 211.0)]
    over, _ = over_ceiling(rows, 1.0, floor)
    assert [(r.control, r.p95) for r in over] == [("head", 94.0), ("d", 211.0)]
    over, _ = over_ceiling(rows, 1.0, floor_p95({"naive": {"floor": None}}))
    assert [r.p95 for r in over] == [92.0, 94.0, 211.0]


# About 62 controls × 3 samples plus 7 page loads and the naive comparison:
# 5–8 min on 2 cores; its own budget.
@pytest.mark.timeout(1800)
def test_no_control_is_over_three_times_its_budget(capsys, chromium):
    _guard(capsys, list(latency.PAGES), SAMPLES)


#: The slowest controls of the ``--across`` run (docs/performance.md), each set
#: to points spread over its whole range: at any value, within 3× the budget
#: (120 ms p95, scaled as above).
ACROSS = {
    "sinusoidal": ["n", "d"],
    "rope": ["d", "max_distance"],
    "extension": ["trained_len", "method"],
    "alibi": ["heads"],
    "compare": ["trained_len"],
}


@pytest.mark.timeout(1200)
def test_spread_points_of_the_slowest_controls_are_within_three_times_budget(capsys, chromium):
    controls = sorted({c for names in ACROSS.values() for c in names})
    _guard(capsys, list(ACROSS), SAMPLES + 1, controls, "across", keep=ACROSS)


def _guard(
    capsys,
    pages: list[str],
    samples: int,
    controls: list[str] | None = None,
    size: str = "default",
    keep: dict[str, list[str]] | None = None,
) -> None:
    """Measure; a control over its ceiling is measured again alone; fail if it is over
    again. ``keep``: only these controls of each page count (a name may be on several)."""

    def kept(rows: list[latency.Row]) -> list[latency.Row]:
        rows = [r for r in rows if r.page in latency.PAGES]  # not the naive app's
        return [r for r in rows if keep is None or r.control in keep.get(r.page, ())]

    result = _measure(pages, samples, controls, size)
    scale, floor = slowdown(result), floor_p95(result)
    rows = kept([latency.Row(**r) for r in result["rows"]])
    failures = [f"{f['page']} failed: {f['error'][:200]}" for f in result.get("failed", [])]
    over, shortfalls = over_ceiling(rows, scale, floor)
    if over:
        # Measured again, alone: over again, it is slow; once, it was a stall.
        suspects = {(row.page, row.control) for row in over}
        again = _measure(
            sorted({page for page, _ in suspects}),
            CONFIRM_SAMPLES,
            sorted({control for _, control in suspects}),
            size,
        )
        failures += [f"{f['page']} failed: {f['error'][:200]}" for f in again.get("failed", [])]
        measured = kept([latency.Row(**r) for r in again["rows"]])
        retaken = [r for r in measured if (r.page, r.control) in suspects]
        again_scale, again_floor = slowdown(again), floor_p95(again)
        still, _ = over_ceiling(retaken, again_scale, again_floor)
        with capsys.disabled():
            print(f"\nOver the ceiling, measured again (slowdown {again_scale:.2f}):")
            print("\n".join(latency.format_row(row) for row in measured))
        failures += [_describe(row, again_scale, again_floor) for row in still]
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
        naive = result["naive"]["naive"]
        print(
            f"\nNaive rebuild p50 {naive['p50']:.0f} ms (reference {NAIVE_REFERENCE_MS:.0f}):"
            f" ceilings × {scale:.2f}; browser-only repaint p95 {floor:.0f} ms"
        )
        print("\n".join(latency.format_row(row) for row in rows))
        print(f"\n{len(shortfalls)} of {len(rows)} controls over their scaled budget:")
        print("\n".join(f"  {s}" for s in shortfalls))
        print(f"Wall time {result['meta']['wall_s']:.0f} s.")
    assert rows, "no control was measured"
    assert not failures, "controls over three times their budget:\n  " + "\n  ".join(failures)
