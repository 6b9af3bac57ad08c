"""Endurance, reduced for CI: sessions opened and closed in sequence, memory flat.

The full run (200 sessions) is ``python benchmarks/endurance.py``; this one
opens a few cycles through all pages against its own server (short session
lifetime, as deploy/serve.sh's PEX_SESSION_LIFETIME_MS allows), measures the
server's RSS once the warm-up sessions are discarded and again at the end,
and checks that every closed session was discarded, a new one is still
served, and the server logged no exception.
"""

from __future__ import annotations

import os

import pytest

from benchmarks.endurance import MAX_GROWTH, SLUGS, report, run

#: Sessions in all (whole cycles through the pages), of which the first cycle
#: is the warm-up (every page built once, Python's caches filled). Two cycles
#: keep the test near 90 s on an idle 2-core machine; set
#: PEX_ENDURANCE_SESSIONS for more.
SESSIONS = int(os.environ.get("PEX_ENDURANCE_SESSIONS", 2 * len(SLUGS)))
WARMUP = len(SLUGS)


# Slow on a busy machine (a page build can take tens of seconds): its own budget.
@pytest.mark.timeout(900)
def test_sessions_opened_and_closed_leave_memory_flat(browser, tmp_path):
    result = run(
        browser=browser,
        sessions=SESSIONS,
        warmup=WARMUP,
        lifetime_ms=5000,
        check_ms=1000,
        log=tmp_path / "panel.log",
        mem_log_ms=5000,
    )
    summary = report(result)
    print("\n" + summary)
    assert result.sessions == SESSIONS
    assert not result.server_errors, summary
    assert result.served_after and result.alive_after, summary
    assert result.warm_counts.get("sessions") == 0, f"warm-up sessions kept:\n{summary}"
    assert result.end_counts.get("sessions") == 0, f"closed sessions kept:\n{summary}"
    # The server's own count of Bokeh documents alive (gc): back near zero, not one per session.
    assert (result.end_counts.get("documents") or 0) <= WARMUP, summary
    assert result.growth <= MAX_GROWTH, summary
