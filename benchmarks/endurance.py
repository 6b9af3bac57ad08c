"""Endurance: many browser sessions opened and closed against one server (issue 9).

Starts ``panel serve app`` with a short ``--unused-session-lifetime`` and
``--check-unused-sessions`` (the knobs of deploy/serve.sh's
PEX_SESSION_LIFETIME_MS / PEX_CHECK_SESSIONS_MS), then opens sessions one
after the other in headless Chromium, cycling through every page: load, wait
for a drawn canvas, close the tab. Measures the server's resident memory
(RSS) after a warm-up (the first sessions, once the server has discarded
them) and at the end (once the lifetime has passed again), and reads the
server's own counts of live sessions and of uncollected Documents/Sessions
(Bokeh's debug memory log), so a leak shows even when Python keeps freed
memory. Then checks the server still serves a new session and logged no
exception.

    python benchmarks/endurance.py [--sessions 200] [--warmup 20]

Budget: RSS growth from warm-up to end at most 10 %.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.main import PAGES  # noqa: E402
from benchmarks._browser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    free_port,
    stop_process,
    wait_until_up,
)
from tests.ui.helpers import new_server_errors, open_page  # noqa: E402

SLUGS = list(PAGES)
MAX_GROWTH = 0.10
#: Bokeh's own race when a tab closes with messages in flight: the server
#: handles a message after the connection let go of its session
#: (bokeh/server/connection.py ``assert self._session is not None``). The
#: client is gone; nothing of the app ran. Counted and shown, not failed.
CLOSED_TAB_RACE = "assert self._session is not None"
#: How long a closed session is kept, and how often the server looks (ms). The
#: lifetime must exceed the time from a page's HTTP request (which creates the
#: session) to its websocket connecting: a session nobody has connected to yet
#: counts as unused too, and on a loaded machine that gap reaches seconds.
LIFETIME_MS = 8000
CHECK_MS = 1000
#: How often the server logs its session counts (ms), and its memory and
#: uncollected objects (ms; that count walks the whole heap: not too often).
STATS_LOG_MS = 2000
MEM_LOG_MS = 15000
#: Panel collects garbage in full this long (s) after the last session it
#: discarded (``panel.io.document.GC_DEBOUNCE``).
try:
    from panel.io.document import GC_DEBOUNCE as PANEL_GC_DELAY
except ImportError:  # pragma: no cover - a Panel without it
    PANEL_GC_DELAY = 5


def split_server_errors(log: Path) -> tuple[str, int]:
    """Exceptions the server logged: (all but the closed-tab race, count of the race)."""
    text = new_server_errors(log, 0)
    # Records (a timestamped line and its traceback) joined by newlines.
    records = re.split(r"\n(?=\d{4}-\d\d-\d\d )", text) if text else []
    races = [r for r in records if CLOSED_TAB_RACE in r]
    others = [r for r in records if CLOSED_TAB_RACE not in r and r.strip()]
    return "\n".join(others), len(races)


try:
    import psutil  # Bokeh logs memory and uncollected objects only with psutil

    HAVE_PSUTIL = True
except ImportError:  # pragma: no cover - RSS then comes from /proc
    HAVE_PSUTIL = False


def rss_bytes(pid: int) -> int:
    """Resident set size of process ``pid`` (psutil if installed, else /proc)."""
    if HAVE_PSUTIL:
        return psutil.Process(pid).memory_info().rss
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) * 1024


@dataclass
class ServerCounts:
    """The server's own view, from its debug log (last record of each kind)."""

    sessions: int | None = None
    unused: int | None = None
    documents: int | None = None
    server_sessions: int | None = None
    models: int | None = None


def server_counts(log: Path, offset: int = 0) -> ServerCounts:
    text = log.read_text(errors="replace")[offset:]
    counts = ServerCounts()
    for m in re.finditer(r"/app has (\d+) sessions with (\d+) unused", text):
        counts.sessions, counts.unused = int(m.group(1)), int(m.group(2))
    for name, attr in (
        ("Documents", "documents"),
        ("Sessions", "server_sessions"),
        ("Models", "models"),
    ):
        for m in re.finditer(rf"uncollected {name}: (\d+)", text):
            setattr(counts, attr, int(m.group(1)))
    return counts


@dataclass
class Server:
    url: str
    base: str
    log: Path
    process: subprocess.Popen

    def alive(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base}/liveness", timeout=5) as response:
                return response.status == 200
        except OSError:
            return False


def start_server(log: Path, lifetime_ms: int, check_ms: int, mem_log_ms: int) -> Server:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "panel",
        "serve",
        "app",
        "--address",
        "127.0.0.1",
        "--port",
        str(port),
        "--allow-websocket-origin",
        f"127.0.0.1:{port}",
        "--unused-session-lifetime",
        str(lifetime_ms),
        "--check-unused-sessions",
        str(check_ms),
        "--liveness",
        # Debug level makes Bokeh log its session counts and, with the memory
        # log, the number of uncollected Documents, Sessions and Models.
        "--log-level",
        "debug",
        "--stats-log-frequency",
        str(STATS_LOG_MS),
        "--mem-log-frequency",
        str(mem_log_ms),
    ]
    handle = log.open("w")
    process = subprocess.Popen(command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    wait_until_up(base, process, log)
    return Server(f"{base}/app", base, log, process)


def stop_server(server: Server) -> None:
    stop_process(server.process)


def wait_discarded(server: Server, lifetime_ms: int, check_ms: int, timeout: float) -> ServerCounts:
    """Wait until the server reports no session (or ``timeout`` s); its last counts.

    Closed sessions go after ``lifetime_ms`` at the next check; the server
    reports its session counts every :data:`STATS_LOG_MS` and its uncollected
    objects less often; both are waited for. The documents are counted once
    Panel's own full collection, :data:`PANEL_GC_DELAY` s after the last
    discarded session, has had its turn: the server's collector thresholds
    (``app.main.GC_THRESHOLDS``) leave a discarded session's objects to it;
    and only from a record in which no Bokeh session object is left.
    """
    time.sleep((lifetime_ms + check_ms) / 1000)
    offset = len(server.log.read_text(errors="replace"))
    deadline = time.monotonic() + timeout
    collected = False  # Panel's collection has had its turn
    while True:
        time.sleep(1)
        counts = server_counts(server.log, offset)
        if counts.sessions == 0 and not collected:
            # From here on, only what the server logs after that collection.
            time.sleep(PANEL_GC_DELAY + 1)
            collected = True
            offset = len(server.log.read_text(errors="replace"))
            continue
        if (
            collected
            and counts.sessions is not None
            and (counts.documents is not None or not HAVE_PSUTIL)
            # A record with a Bokeh session object still alive may predate its
            # collection (once in CI: 1 session, 9 documents, 2,790 models;
            # clean in the runs before and after): a later record is waited
            # for. A leak stays until the deadline and still fails.
            and not counts.server_sessions
        ):
            return counts
        if time.monotonic() > deadline:
            return counts


def open_and_close(context, url: str) -> None:
    """One session: a new tab on ``url``, drawn, then closed (the websocket with it).

    Tabs share one browser context, so Bokeh's bundles come from the browser's
    cache after the first (as for a returning student); each tab is still a
    new server session.
    """
    page = context.new_page()
    page.set_default_navigation_timeout(120_000)
    try:
        open_page(page, url, timeout=120_000)
    finally:
        page.close()


@dataclass
class Result:
    sessions: int
    warmup: int
    lifetime_ms: int
    check_ms: int
    rss_start_mb: float = 0.0
    rss_warm_mb: float = 0.0
    rss_end_mb: float = 0.0
    rss_peak_mb: float = 0.0
    growth: float = 0.0
    seconds: float = 0.0
    seconds_per_session: float = 0.0
    warm_counts: dict = field(default_factory=dict)
    end_counts: dict = field(default_factory=dict)
    served_after: bool = False
    alive_after: bool = False
    server_errors: str = ""
    closed_tab_races: int = 0

    def ok(self) -> bool:
        return (
            self.growth <= MAX_GROWTH
            and self.served_after
            and self.alive_after
            and not self.server_errors
            and self.end_counts.get("sessions") == 0
        )


def _sessions(
    browser,
    server: Server,
    result: Result,
    settle: float,
    progress: bool,
    max_seconds: float | None,
) -> None:
    """The run proper: warm-up, sessions, end measurement, one more session."""
    pid = server.process.pid
    mb = 2**20
    peak = 0
    result.rss_start_mb = rss_bytes(pid) / mb
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    start = time.monotonic()
    for i in range(result.sessions):
        if max_seconds is not None and time.monotonic() - start > max_seconds:
            result.sessions = i
            break
        slug = SLUGS[i % len(SLUGS)]
        open_and_close(context, f"{server.url}?page={slug}")
        peak = max(peak, rss_bytes(pid))
        if i + 1 == result.warmup:
            result.warm_counts = asdict(
                wait_discarded(server, result.lifetime_ms, result.check_ms, settle)
            )
            result.rss_warm_mb = rss_bytes(pid) / mb
        if progress and (i + 1) % 10 == 0:
            print(
                f"  {i + 1:4d} sessions  {time.monotonic() - start:6.0f} s  "
                f"RSS {rss_bytes(pid) / mb:7.1f} MB",
                flush=True,
            )
    result.seconds = time.monotonic() - start
    result.end_counts = asdict(wait_discarded(server, result.lifetime_ms, result.check_ms, settle))
    result.rss_end_mb = rss_bytes(pid) / mb
    context.close()
    # A new session is still served, fully drawn (to a new visitor).
    fresh = browser.new_context()
    try:
        page = fresh.new_page()
        page.set_default_navigation_timeout(120_000)
        open_page(page, f"{server.url}?page={SLUGS[0]}", timeout=120_000)
        result.served_after = True
    finally:
        fresh.close()
    result.rss_peak_mb = max(peak, rss_bytes(pid)) / mb


def run(
    sessions: int = 200,
    warmup: int = 20,
    lifetime_ms: int = LIFETIME_MS,
    check_ms: int = CHECK_MS,
    log: Path | None = None,
    progress: bool = False,
    max_seconds: float | None = None,
    mem_log_ms: int = MEM_LOG_MS,
    browser=None,
) -> Result:
    """Open ``sessions`` sessions (fewer if ``max_seconds`` runs out first; the
    result says how many) and measure; see the module's docstring.

    ``browser``: a Playwright browser to use (a test's); else one is launched.
    """
    from playwright.sync_api import sync_playwright

    if log is None:
        log = Path(tempfile.mkdtemp(prefix="endurance-")) / "panel.log"
    result = Result(sessions=sessions, warmup=warmup, lifetime_ms=lifetime_ms, check_ms=check_ms)
    settle = 2 * (lifetime_ms + check_ms + mem_log_ms) / 1000 + 10
    server = start_server(log, lifetime_ms, check_ms, mem_log_ms)
    try:
        if browser is not None:
            _sessions(browser, server, result, settle, progress, max_seconds)
        else:
            with sync_playwright() as pw:
                own = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    _sessions(own, server, result, settle, progress, max_seconds)
                finally:
                    own.close()
        result.alive_after = server.alive()
    finally:
        stop_server(server)
    result.seconds_per_session = result.seconds / max(result.sessions, 1)
    if result.rss_warm_mb:
        result.growth = (result.rss_end_mb - result.rss_warm_mb) / result.rss_warm_mb
    result.server_errors, result.closed_tab_races = split_server_errors(log)
    return result


def report(result: Result) -> str:
    lines = [
        f"sessions               {result.sessions} (warm-up {result.warmup}), "
        f"pages cycled: {', '.join(SLUGS)}",
        f"session lifetime       {result.lifetime_ms} ms, checked every {result.check_ms} ms",
        f"time                   {result.seconds:.0f} s ({result.seconds_per_session:.2f} s "
        "per session)",
        f"RSS at start           {result.rss_start_mb:.1f} MB",
        f"RSS after warm-up      {result.rss_warm_mb:.1f} MB",
        f"RSS at end             {result.rss_end_mb:.1f} MB",
        f"RSS peak               {result.rss_peak_mb:.1f} MB",
        f"growth warm-up → end   {100 * result.growth:+.1f} % (budget ≤ {100 * MAX_GROWTH:.0f} %)",
        f"server after warm-up   {json.dumps(result.warm_counts)}",
        f"server at end          {json.dumps(result.end_counts)}",
        f"new session served     {result.served_after}; liveness {result.alive_after}",
        f"server log errors      {'none' if not result.server_errors else result.server_errors}",
        f"closed-tab races       {result.closed_tab_races} (Bokeh: message from a tab already "
        "closed; not counted as errors)",
        f"verdict                {'OK' if result.ok() else 'FAIL'}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--lifetime-ms", type=int, default=LIFETIME_MS)
    parser.add_argument("--check-ms", type=int, default=CHECK_MS)
    parser.add_argument("--log", type=Path, default=None, help="keep the server log here")
    parser.add_argument(
        "--max-minutes", type=float, default=None, help="open no new session after this long"
    )
    args = parser.parse_args(argv)
    # Stopped with SIGTERM: still stop the server (``finally`` in run()).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    result = run(
        args.sessions,
        args.warmup,
        args.lifetime_ms,
        args.check_ms,
        args.log,
        progress=True,
        max_seconds=None if args.max_minutes is None else 60 * args.max_minutes,
    )
    print(report(result))
    return 0 if result.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
