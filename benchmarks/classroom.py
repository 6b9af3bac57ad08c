"""Load: how many students can one server take? (issue 7)

Starts the classroom server exactly as the Docker image does (``deploy/serve.sh``
with the Dockerfile's ``PEX_*`` settings) on a free loopback port, then for each
class size N opens N real pages in headless Chromium (one browser context per
student, spread round-robin over the seven pages) and lets every student change
a random control about every ``--interval`` seconds for ``--duration`` seconds.
Real pages, not bare websocket clients: a page makes the server do the full
work of a student (layout, every figure's update, URL state, busy indicator).

A "change" picks, in the page, a displayed slider, select or button group of
the page's controls (text and file inputs are skipped; the navigation is not a
control) and sets its Bokeh model to a random valid value (uniform over the
widget's current range, which follows the parameter's bounds, dynamic bounds
included), the same message a student's drag sends. It is done when the server
has written the new link into the page (the app's last reaction to a control)
and every figure has repainted: the latency is the time from the change to the
animation frame after the last repaint (see ``benchmarks/_browser.py`` for the
paint probe). A change with no answer within ``--change-timeout`` is an error.

Per N the table reports: p50/p95 latency to repaint (and to the server's
answer), errors (console errors, page errors, failed loads, change timeouts,
exceptions in the server log), the server's CPU use during the run, the CPU of
the browser (the students' side, here on the same machine) and of everything
else on the machine, server memory per session (RSS of the server's process
tree with N pages loaded minus before, / N) and what the server still holds
after the pages closed and their sessions expired. Sessions live as long as in
the image (``PEX_SESSION_LIFETIME_MS=60000``) but are looked for every second
(``PEX_CHECK_SESSIONS_MS=1000`` instead of 10000), so the wait for expiry per N
is about a minute. (A shorter lifetime would distort the load: Bokeh discards
a session whose page has not connected within the lifetime and builds it again
when the page does connect.)

    python benchmarks/classroom.py [--sizes 10,30,60] [--duration 60] [--interval 2]

Everything is bounded: page loads, changes and phases have timeouts, the
server listens on 127.0.0.1 only, and the browser and server are stopped at
the end. On a machine that also runs the browsers, the measured latency
includes the browsers' rendering competing with the server for the CPU; the
table shows both CPU shares so the two can be told apart.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib

from benchmarks._browser import (
    CHROMIUM_ARGS,
    PROBE_JS,
    VIEWPORT,
    chromium_path,
    free_port,
    percentile,
    resident_bytes,
    stop_process,
    wait_until_up,
)
from tests.ui.helpers import error_records  # closed-socket records are left out

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"
SERVE = ROOT / "deploy" / "serve.sh"

#: Session expiry for the benchmark (the image: 60000 / 10000 ms).
SESSION_LIFETIME_MS = 60000
CHECK_SESSIONS_MS = 1000
#: The recommendation's bar: a change repainted within this at the 95th percentile.
P95_GOAL_MS = 250.0
#: Server CPU share (of one core) taken as "full" for a single server process.
CPU_TARGET = 0.7
#: Start of the run (times in error messages are seconds from here).
T0 = time.monotonic()


# --------------------------------------------------------------------- server


def dockerfile_env() -> dict[str, str]:
    """The ``PEX_*`` values of the Dockerfile's ``ENV`` instruction."""
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    env: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip().startswith("ENV "):
            for key, value in re.findall(r"(PEX_\w+)=(\S+)", line):
                env[key] = value
    return env


@dataclass
class Server:
    process: subprocess.Popen
    base: str
    log: Path
    env: dict[str, str]

    def tree(self) -> list[psutil.Process]:
        root = psutil.Process(self.process.pid)
        return [root, *root.children(recursive=True)]

    def rss(self) -> int:
        return resident_bytes(self.tree())

    def log_offset(self) -> int:
        return self.log.stat().st_size


def start_server(log: Path, num_procs: str | None) -> Server:
    """``deploy/serve.sh`` with the Dockerfile's environment, on a free loopback port."""
    port = free_port()
    pex = dockerfile_env()
    pex.update(
        PEX_ADDRESS="127.0.0.1",
        PEX_PORT=str(port),
        PEX_ALLOWED_ORIGINS=f"127.0.0.1:{port}",
        PEX_SESSION_LIFETIME_MS=str(SESSION_LIFETIME_MS),
        PEX_CHECK_SESSIONS_MS=str(CHECK_SESSIONS_MS),
    )
    if num_procs is not None:
        pex["PEX_NUM_PROCS"] = num_procs
    env = {**os.environ, **pex}
    # serve.sh runs `panel`: the one of this interpreter's environment.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    handle = log.open("w")
    process = subprocess.Popen(
        ["sh", str(SERVE)], env=env, stdout=handle, stderr=subprocess.STDOUT, cwd=ROOT
    )
    handle.close()
    base = f"http://127.0.0.1:{port}"
    wait_until_up(base, process, log)
    return Server(process, base, log, pex)


def stop_server(process: subprocess.Popen) -> None:
    stop_process(process, timeout=15)


def server_errors(log: Path, start: int, end: int) -> list[str]:
    """Log records in ``[start, end)`` that report an exception (not a closed socket)."""
    with log.open("rb") as handle:
        handle.seek(start)
        text = handle.read(max(0, end - start)).decode(errors="replace")
    return [record[:2000] for record in error_records(text)]


# ------------------------------------------------------------------------ cpu


class CpuMeter:
    """CPU seconds of the server tree, the browser, this harness and the machine."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.me = psutil.Process()

    @staticmethod
    def _times(procs: list[psutil.Process]) -> dict[int, float]:
        out = {}
        for proc in procs:
            try:
                t = proc.cpu_times()
                out[proc.pid] = t.user + t.system
            except psutil.Error:
                pass
        return out

    def snapshot(self) -> dict[str, Any]:
        server = {p.pid for p in self.server.tree()}
        children = [p for p in self.me.children(recursive=True) if p.pid not in server]
        browser, driver = [], [self.me]
        for proc in children:
            with contextlib.suppress(psutil.Error):
                (browser if "chrom" in proc.name().lower() else driver).append(proc)
        machine = psutil.cpu_times()
        busy = sum(machine) - machine.idle - getattr(machine, "iowait", 0.0)
        return {
            "t": time.monotonic(),
            "server": self._times(self.server.tree()),
            "browser": self._times(browser),
            "harness": self._times(driver),
            "machine": busy,
        }

    @staticmethod
    def delta(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
        """CPU seconds between snapshots ``a`` and ``b`` (new processes: all their time)."""
        out = {"wall": b["t"] - a["t"], "machine": b["machine"] - a["machine"]}
        for key in ("server", "browser", "harness"):
            out[key] = sum(t - a[key].get(pid, 0.0) for pid, t in b[key].items())
        out["other"] = max(0.0, out["machine"] - out["server"] - out["browser"] - out["harness"])
        return out


def browser_pss(meter: CpuMeter) -> int:
    """Proportional set size of the browser's processes (RSS counts shared pages N times)."""
    server = {p.pid for p in meter.server.tree()}
    total = 0
    for proc in meter.me.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if proc.pid not in server and "chrom" in proc.name().lower():
                total += proc.memory_full_info().pss
    return total


# ---------------------------------------------------------------- in the page

#: The student: ``window.__classroom`` with ``start(cfg)``; runs on top of
#: ``window.__pe`` (benchmarks/_browser.py's probe, installed before BokehJS).
STUDENT_JS = r"""
(cfg) => {
  if (window.__classroom) return true;
  const pe = window.__pe;
  const doc = Bokeh.documents[0];
  const now = () => performance.now();
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const frame = () => new Promise(r => requestAnimationFrame(() => r(now())));
  let seed = cfg.seed >>> 0;
  const rand = () => {  // mulberry32: the choices repeat for a seed
    seed = (seed + 0x6D2B79F5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const S = window.__classroom = {
    samples: [], done: false, started: false, urlAt: -1, urlFrame: -1,
    inMessages: 0, inBytes: 0, errors: [],
  };
  let waiter = null;
  // The server writes the page's link (a TextInput whose value is '?page=...')
  // after every other reaction to a control: the end of the server's answer.
  doc.on_change((ev) => {
    if (ev.sync !== false || ev.attr !== 'value' || !ev.model) return;
    if (!String(ev.model.type).endsWith('TextInput')) return;
    if (typeof ev.value !== 'string' || !ev.value.startsWith('?')) return;
    const t = now();
    S.urlAt = t;
    requestAnimationFrame(() => { S.urlFrame = now(); });
    if (waiter) { const w = waiter; waiter = null; w(t); }
  }, false);
  const nav = new Set(cfg.nav);
  const shown = (m) => {
    let v = null;
    try { v = Bokeh.index.find_one(m); } catch (e) { v = null; }
    if (!v || !v.el || !v.el.isConnected) return false;
    const r = v.el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const snap = (x) => Number(x.toFixed(10));
  // Controls a student can move now, each with a function that moves it.
  const controls = () => {
    const out = [];
    for (const m of doc.all_models) {
      const type = String(m.type);
      if (m.disabled) continue;
      if (type === 'Slider' || type.endsWith('.Slider')) {
        const {start, end, step} = m;
        if (!(end > start) || !(step > 0)) continue;
        out.push({m, kind: 'slider', pick: () => {
          const k = Math.floor(rand() * (Math.floor((end - start) / step + 1e-9) + 1));
          const v = snap(Math.min(end, start + k * step));
          return v === m.value ? null : {value: v, value_throttled: v};
        }});
      } else if (type.endsWith('Select') && Array.isArray(m.options)) {
        const values = m.options.map(o => Array.isArray(o) ? o[0] : o)
                                .filter(v => typeof v === 'string');
        if (values.length < 2) continue;
        out.push({m, kind: 'select', pick: () => {
          const v = values[Math.floor(rand() * values.length)];
          return v === m.value ? null : {value: v};
        }});
      } else if (type.endsWith('RadioButtonGroup') && Array.isArray(m.labels)) {
        if (m.labels.length < 2 || m.labels.every(l => nav.has(l))) continue;
        out.push({m, kind: 'buttons', pick: () => {
          const i = Math.floor(rand() * m.labels.length);
          return i === m.active ? null : {active: i};
        }});
      } else if (type.endsWith('NumericInput') && m.low != null && m.high != null) {
        const {low, high} = m;
        if (!(high > low)) continue;
        out.push({m, kind: 'number', pick: () => {
          let v = low > 0 && high / low > 100
            ? Math.exp(Math.log(low) + rand() * (Math.log(high) - Math.log(low)))
            : low + rand() * (high - low);
          v = m.mode === 'int' ? Math.round(v) : snap(v);
          return v === m.value ? null : {value: v};
        }});
      }
    }
    return out.filter(c => shown(c.m));
  };
  S.count = () => controls().map(c => [c.kind, c.m.title || (c.m.labels || []).join('|')]);
  const change = async () => {
    const list = controls();
    if (list.length === 0) return {error: 'no control to move'};
    let c = null, props = null;
    for (let i = 0; i < 20 && props === null; i++) {
      c = list[Math.floor(rand() * list.length)];
      props = c.pick();
    }
    if (props === null) return {error: 'no new value found'};
    const label = c.m.title || (c.m.labels || []).slice(0, 2).join('|');
    await frame();
    for (const m of pe.inbound) { S.inMessages++; S.inBytes += m.size; }
    pe.clear();
    const t0 = now();
    const answered = new Promise(r => { waiter = r; });
    for (const [k, v] of Object.entries(props)) c.m[k] = v;  // one message per property
    const urlAt = await Promise.race([answered, sleep(cfg.timeout).then(() => null)]);
    if (urlAt === null) {
      // Too slow. Like a student, wait for the screen to catch up before the next
      // move (up to twice as long again), so a late answer is not taken for the
      // next change's.
      const late = await Promise.race([answered, sleep(2 * cfg.timeout).then(() => null)]);
      waiter = null;
      return {control: label, kind: c.kind, t0, timeout: true,
              late_ms: late === null ? null : late - t0};
    }
    // Let the figures that received data repaint: quiet for settle ms (max 2 s).
    await frame();
    await frame();
    while (now() - Math.max(urlAt, pe.paints.at(-1) ?? -Infinity) < cfg.settle
           && now() - urlAt < 2000) {
      await sleep(20);
    }
    const lastPaint = pe.paints.filter(t => t >= t0).at(-1);
    let end = S.urlFrame >= urlAt ? S.urlFrame : urlAt;
    if (lastPaint != null) {
      const f = pe.frames.find(t => t >= lastPaint);
      end = Math.max(end, f ?? lastPaint);
    }
    return {
      control: label, kind: c.kind, t0, timeout: false,
      server_ms: urlAt - t0, latency_ms: end - t0,
      paints: pe.paints.filter(t => t >= t0).length,
    };
  };
  S.start = (deadlineIn, settings) => {
    if (S.started) return false;
    S.started = true;
    cfg = {...cfg, ...settings};
    seed = cfg.seed >>> 0;
    const deadline = now() + deadlineIn;
    (async () => {
      await sleep(rand() * cfg.interval);
      while (now() < deadline) {
        const begin = now();
        try {
          const r = await change();
          if (r.error) S.errors.push(r.error); else S.samples.push(r);
        } catch (e) {
          S.errors.push('harness: ' + e);
        }
        const next = begin + cfg.interval * (0.5 + rand());
        await sleep(Math.max(0, Math.min(next, deadline) - now()));
      }
      for (const m of pe.inbound) { S.inMessages++; S.inBytes += m.size; }
      pe.clear();
      S.done = true;
    })();
    return true;
  };
  return true;
}
"""

#: Ready: BokehJS, the document, the probe's hooks and at least one painted figure.
READY_JS = """
() => window.__pe && window.__pe.hooked && window.__pe.docHooked
      && window.Bokeh && Bokeh.documents.length > 0 && window.__pe.paints.length > 0
      && document.readyState === 'complete'
"""

#: Whether the page is visible and how often it gets animation frames (throttling check).
FPS_JS = """
() => new Promise(resolve => {
  let frames = 0;
  const t0 = performance.now();
  const step = () => {
    frames++;
    if (performance.now() - t0 < 500) requestAnimationFrame(step);
    else resolve([document.visibilityState, frames * 1000 / (performance.now() - t0)]);
  };
  requestAnimationFrame(step);
})
"""


# -------------------------------------------------------------------- a class


@dataclass
class Student:
    index: int
    slug: str
    context: Any = None
    page: Any = None
    load_s: float | None = None
    errors: list[str] = field(default_factory=list)
    failed: str | None = None
    closing: bool = False
    external: list[str] = field(default_factory=list)


def _local(url: str | None) -> bool:
    host = urlparse(url or "").hostname
    return host in {None, "127.0.0.1", "localhost"} or (url or "").startswith("data:")


def _attach(student: Student) -> None:
    """Record the page's errors; requests to other hosts go to ``student.external``.

    The classroom has no internet: a request that leaves the server is an error
    of its own kind (its console message "Failed to load resource" is counted
    there, not twice).
    """
    page = student.page

    def note(kind: str, text: str) -> None:
        student.errors.append(f"{time.monotonic() - T0:7.1f} s {kind}: {text[:300]}")

    def on_console(msg: Any) -> None:
        if msg.type != "error":
            return
        url = (msg.location or {}).get("url")
        if not _local(url) and msg.text.startswith("Failed to load resource"):
            return
        note("console", msg.text)

    def on_request(request: Any) -> None:
        if not _local(request.url):
            student.external.append(f"{time.monotonic() - T0:7.1f} s {request.url[:160]}")

    def on_failed(request: Any) -> None:
        if not student.closing and _local(request.url):
            note("request failed", f"{request.url[:160]} {request.failure}")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: note("pageerror", str(exc)))
    page.on("request", on_request)
    page.on("requestfailed", on_failed)


async def open_student(
    browser: Any, student: Student, url: str, nav: list[str], timeout_s: float
) -> None:
    student.context = await browser.new_context(viewport=VIEWPORT)
    await student.context.add_init_script(PROBE_JS)
    student.page = await student.context.new_page()
    _attach(student)
    start = time.monotonic()
    try:
        await student.page.goto(url, wait_until="domcontentloaded", timeout=timeout_s * 1000)
        await student.page.wait_for_function(READY_JS, timeout=timeout_s * 1000)
        cfg = {"nav": nav, "seed": 1000 + student.index, "interval": 0, "timeout": 0, "settle": 0}
        await student.page.evaluate(STUDENT_JS, cfg)
        student.load_s = time.monotonic() - start
    except Exception as exc:  # a failed load is a result, not a crash
        student.failed = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"


async def run_class(
    browser: Any,
    server: Server,
    meter: CpuMeter,
    n: int,
    args: argparse.Namespace,
    slugs: list[str],
    nav: list[str],
    students: list[Student],
) -> dict[str, Any]:
    log_start = server.log_offset()
    rss_before = server.rss()
    browser_before = browser_pss(meter)
    students += [Student(i, slugs[i % len(slugs)]) for i in range(n)]
    gate = asyncio.Semaphore(args.load_concurrency)

    async def load(student: Student) -> None:
        async with gate:
            await open_student(
                browser, student, f"{server.base}/app?page={student.slug}", nav, args.load_timeout
            )

    t_load = time.monotonic()
    phases = {"load": t_load - T0}
    cpu_load0 = meter.snapshot()
    await asyncio.gather(*(load(s) for s in students))
    load_wall = time.monotonic() - t_load
    cpu_load = CpuMeter.delta(cpu_load0, meter.snapshot())
    alive = [s for s in students if s.failed is None]
    await asyncio.sleep(3)
    rss_loaded = server.rss()
    browser_loaded = browser_pss(meter)

    # Throttling check: every page visible and getting frames?
    fps = await asyncio.gather(
        *(asyncio.wait_for(s.page.evaluate(FPS_JS), 10) for s in alive), return_exceptions=True
    )
    fps_ok = [f for f in fps if isinstance(f, list)]
    cfg = {
        "nav": nav,
        "interval": args.interval * 1000,
        "timeout": args.change_timeout * 1000,
        "settle": args.settle_ms,
    }
    controls = await asyncio.gather(
        *(s.page.evaluate("() => window.__classroom.count()") for s in alive),
        return_exceptions=True,
    )

    # Run: every student changes a control about every `interval` seconds.
    cpu0 = meter.snapshot()
    phases["run"] = cpu0["t"] - T0
    rss_peak = rss_loaded
    await asyncio.gather(
        *(
            s.page.evaluate(
                "([d, cfg]) => window.__classroom.start(d, cfg)",
                [args.duration * 1000, {**cfg, "seed": 1000 + s.index}],
            )
            for s in alive
        ),
        return_exceptions=True,
    )
    end_by = time.monotonic() + args.duration + 3 * args.change_timeout + 15
    server_share = []
    last = meter.snapshot()
    while time.monotonic() < end_by:
        await asyncio.sleep(5)
        rss_peak = max(rss_peak, server.rss())
        snap = meter.snapshot()
        d = CpuMeter.delta(last, snap)
        server_share.append(d["server"] / d["wall"])
        last = snap
        if time.monotonic() > cpu0["t"] + args.duration:
            done = await asyncio.gather(
                *(s.page.evaluate("() => window.__classroom.done") for s in alive),
                return_exceptions=True,
            )
            if all(x is True for x in done):
                break
    cpu_run = CpuMeter.delta(cpu0, meter.snapshot())
    rss_after_run = server.rss()
    results = await asyncio.gather(
        *(
            s.page.evaluate(
                """() => ({samples: window.__classroom.samples, errors: window.__classroom.errors,
                           done: window.__classroom.done,
                           inMessages: window.__classroom.inMessages,
                           inBytes: window.__classroom.inBytes})"""
            )
            for s in alive
        ),
        return_exceptions=True,
    )

    # Close every tab; wait until the server has discarded the sessions.
    phases["close"] = time.monotonic() - T0
    for s in students:
        s.closing = True
    await asyncio.gather(
        *(s.context.close() for s in students if s.context is not None), return_exceptions=True
    )
    await asyncio.sleep((SESSION_LIFETIME_MS + 2 * CHECK_SESSIONS_MS) / 1000 + 5)
    rss_expired = server.rss()
    log_end = server.log_offset()

    # ---- summary
    samples: list[dict[str, Any]] = []
    page_errors: list[str] = []
    harness_errors: list[str] = []
    unfinished = 0
    in_msgs = in_bytes = 0
    by_slug: dict[str, list[float]] = {}
    for s, r in zip(alive, results, strict=True):
        page_errors += s.errors
        if isinstance(r, BaseException):
            harness_errors.append(f"collect {s.slug}: {r}")
            continue
        unfinished += not r["done"]
        harness_errors += r["errors"]
        in_msgs += r["inMessages"]
        in_bytes += r["inBytes"]
        for x in r["samples"]:
            x["slug"] = s.slug
            samples.append(x)
            if not x["timeout"]:
                by_slug.setdefault(s.slug, []).append(x["latency_ms"])
    for s in students:
        if s.failed is not None:
            page_errors += s.errors
    timeouts = sum(x["timeout"] for x in samples)
    ok = [x for x in samples if not x["timeout"]]
    lat = [x["latency_ms"] for x in ok]
    srv = [x["server_ms"] for x in ok]
    log_errors = server_errors(server.log, log_start, log_end)
    failed_loads = [f"{s.slug}: {s.failed}" for s in students if s.failed]
    external = [f"{s.slug} {e}" for s in students for e in s.external]
    errors = len(failed_loads) + len(page_errors) + timeouts + len(log_errors)
    wall = cpu_run["wall"]
    loads = [s.load_s for s in alive if s.load_s is not None]
    return {
        "n": n,
        "loaded": len(alive),
        "load_wall_s": load_wall,
        "load_s_p50": percentile(loads, 50),
        "load_s_max": max(loads) if loads else None,
        "load_server_cpu_s_per_page": cpu_load["server"] / max(1, len(alive)),
        "changes": len(samples),
        "changes_per_s": len(samples) / wall if wall else 0.0,
        "latency_ms_p50": percentile(lat, 50),
        "latency_ms_p95": percentile(lat, 95),
        "latency_ms_max": max(lat) if lat else None,
        "server_answer_ms_p50": percentile(srv, 50),
        "server_answer_ms_p95": percentile(srv, 95),
        "latency_ms_p95_by_page": {k: percentile(v, 95) for k, v in sorted(by_slug.items())},
        "errors": errors,
        "failed_loads": failed_loads,
        "page_errors": page_errors[:50],
        "page_error_count": len(page_errors),
        "external_requests": external[:50],
        "external_request_count": len(external),
        "phases_s": phases,
        "change_timeouts": timeouts,
        "server_log_errors": log_errors[:20],
        "server_log_error_count": len(log_errors),
        "harness_notes": harness_errors[:20]
        + ([f"{unfinished} pages unfinished"] * bool(unfinished)),
        "run_wall_s": wall,
        "cpu_s": cpu_run,
        "server_cpu_share": cpu_run["server"] / wall if wall else None,
        "server_cpu_share_peak_5s": max(server_share) if server_share else None,
        "browser_cpu_share": cpu_run["browser"] / wall if wall else None,
        "harness_cpu_share": cpu_run["harness"] / wall if wall else None,
        "other_cpu_share": cpu_run["other"] / wall if wall else None,
        "server_cpu_ms_per_change": 1000 * cpu_run["server"] / len(samples) if samples else None,
        "ws_messages_in_per_page_s": in_msgs / len(alive) / wall if alive and wall else None,
        "ws_kb_in_per_page_s": in_bytes / 1024 / len(alive) / wall if alive and wall else None,
        "pages_visible": sum(f[0] == "visible" for f in fps_ok),
        "fps_min": min((f[1] for f in fps_ok), default=None),
        "controls_per_page": {
            s.slug: len(c) for s, c in zip(alive, controls, strict=True) if isinstance(c, list)
        },
        "rss_mb_before": rss_before / 2**20,
        "rss_mb_loaded": rss_loaded / 2**20,
        "rss_mb_peak": rss_peak / 2**20,
        "rss_mb_after_run": rss_after_run / 2**20,
        "rss_mb_after_expiry": rss_expired / 2**20,
        "server_mb_per_session": (rss_loaded - rss_before) / 2**20 / max(1, len(alive)),
        "server_mb_retained_per_session": (rss_expired - rss_before) / 2**20 / n,
        "browser_mb_per_page": (browser_loaded - browser_before) / 2**20 / max(1, len(alive)),
    }


# --------------------------------------------------------------------- report


def _f(x: float | None, fmt: str = "{:.0f}") -> str:
    return "-" if x is None else fmt.format(x)


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| N | loaded | changes | p50 ms | p95 ms | server p50/p95 ms | errors | offline fetches "
        "| server CPU | browser CPU | other CPU | server MB/session | MB/session after expiry |"
    )
    lines = [head, "|" + "---|" * 13]
    for r in rows:
        lines.append(
            f"| {r['n']} | {r['loaded']}/{r['n']} | {r['changes']} "
            f"| {_f(r['latency_ms_p50'])} | {_f(r['latency_ms_p95'])} "
            f"| {_f(r['server_answer_ms_p50'])}/{_f(r['server_answer_ms_p95'])} "
            f"| {r['errors']} | {r['external_request_count']} "
            f"| {_f(100 * r['server_cpu_share'], '{:.0f} %')} "
            f"| {_f(100 * r['browser_cpu_share'], '{:.0f} %')} "
            f"| {_f(100 * r['other_cpu_share'], '{:.0f} %')} "
            f"| {_f(r['server_mb_per_session'], '{:.1f}')} "
            f"| {_f(r['server_mb_retained_per_session'], '{:.1f}')} |"
        )
    return "\n".join(lines)


def conclusion(rows: list[dict[str, Any]], interval: float) -> dict[str, Any]:
    good = [
        r["n"]
        for r in rows
        if r["latency_ms_p95"] is not None
        and r["latency_ms_p95"] <= P95_GOAL_MS
        and r["errors"] == 0
        and r["loaded"] == r["n"]
    ]
    costs = [r for r in rows if r["server_cpu_ms_per_change"]]
    worst = max(costs, key=lambda r: r["n"]) if costs else None
    out: dict[str, Any] = {
        "p95_goal_ms": P95_GOAL_MS,
        "largest_n_within_goal": max(good) if good else None,
    }
    if worst is not None:
        per_change_s = worst["server_cpu_ms_per_change"] / 1000
        rate = 1 / interval
        out["server_cpu_ms_per_change_at_largest_n"] = worst["server_cpu_ms_per_change"]
        out["students_at_server_saturation"] = 1 / (per_change_s * rate)
        out["students_at_cpu_target"] = CPU_TARGET / (per_change_s * rate)
        out["cpu_target"] = CPU_TARGET
    return out


def say(rows: list[dict[str, Any]], c: dict[str, Any], interval: float) -> str:
    """The "how many students" answer, in words."""
    if not rows:
        return "No class size was measured."
    lines = []
    cores = psutil.cpu_count()
    n_ok = c["largest_n_within_goal"]
    other = max(r["other_cpu_share"] or 0 for r in rows)
    where = f"On this machine ({cores} cores shared by the server and every student's browser"
    where += f"; other programs used up to {other:.1f} cores)" if other > 0.2 else ")"
    if n_ok is None:
        smallest = min(r["n"] for r in rows)
        lines.append(
            f"{where}, no class size met p95 <= {P95_GOAL_MS:.0f} ms with 0 errors: "
            f"fewer than {smallest} students, or give the server its own machine."
        )
    else:
        lines.append(
            f"{where}, up to {n_ok} students kept p95 <= {P95_GOAL_MS:.0f} ms with 0 errors."
        )
    if "students_at_server_saturation" in c:
        lines.append(
            f"With each student on their own device, the server process spends "
            f"{c['server_cpu_ms_per_change_at_largest_n']:.0f} ms of CPU per change (at the "
            f"largest N), so one process (one core) saturates near "
            f"{c['students_at_server_saturation']:.0f} students changing a control every "
            f"{interval:g} s; plan for at most {c['students_at_cpu_target']:.0f} per server "
            f"process ({CPU_TARGET:.0%} of a core), and one process per core."
        )
    load = max(rows, key=lambda r: r["n"])["load_server_cpu_s_per_page"]
    lines.append(
        f"Opening a page costs the server about {load:.1f} s of CPU: a class of N "
        f"students opening it at the same moment waits up to N x {load:.1f} s on one process."
    )
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    from app.main import PAGES

    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    slugs = list(PAGES)
    nav = [cls.title for cls in PAGES.values()]
    log = Path(tempfile.mkdtemp(prefix="classroom-")) / "server.log"
    load_before = os.getloadavg()
    t_start = time.monotonic()
    server = start_server(log, args.num_procs)
    print(
        f"server: deploy/serve.sh at {server.base} (PEX_NUM_PROCS={server.env['PEX_NUM_PROCS']}, "
        f"sessions expire after {SESSION_LIFETIME_MS} ms, checked every {CHECK_SESSIONS_MS} ms; "
        f"log {log})",
        flush=True,
    )
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}", flush=True)
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    deadline = t_start + 60 * args.budget_minutes

    def make_report() -> dict[str, Any]:
        return {
            "settings": {
                "sizes": sizes,
                "duration_s": args.duration,
                "interval_s": args.interval,
                "change_timeout_s": args.change_timeout,
                "load_concurrency": args.load_concurrency,
                "server_env": server.env,
                "session_lifetime_ms": SESSION_LIFETIME_MS,
                "check_sessions_ms": CHECK_SESSIONS_MS,
                "cores": psutil.cpu_count(),
                "memory_gb": psutil.virtual_memory().total / 2**30,
            },
            "load_average_before": load_before,
            "wall_s": time.monotonic() - t_start,
            "rows": rows,
            "skipped": skipped,
            "conclusion": conclusion(rows, args.interval),
        }

    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            meter = CpuMeter(server)
            try:
                # Warm-up: one session (the app's imports), then let it expire. One only:
                # memory freed by more warm-up sessions would be reused by the class
                # and hide part of its cost.
                warm = [Student(-1, "sinusoidal")]
                await asyncio.gather(
                    *(
                        open_student(
                            browser, s, f"{server.base}/app?page={s.slug}", nav, args.load_timeout
                        )
                        for s in warm
                    )
                )
                for s in warm:
                    if s.failed:
                        print(f"warm-up {s.slug}: {s.failed}", flush=True)
                await asyncio.gather(*(s.context.close() for s in warm), return_exceptions=True)
                await asyncio.sleep((SESSION_LIFETIME_MS + 2 * CHECK_SESSIONS_MS) / 1000 + 3)
                print(f"warm-up done, server RSS {server.rss() / 2**20:.0f} MB", flush=True)
                per_page = (warm[0].load_s or args.load_timeout) / 2
                for n in sizes:
                    t = time.monotonic()
                    need = (
                        n * per_page
                        + args.duration
                        + 3 * args.change_timeout
                        + 45
                        + SESSION_LIFETIME_MS / 1000
                    )
                    if t + need > deadline:
                        why = (
                            f"skipped: needs about {need / 60:.0f} min (loads at "
                            f"{per_page:.0f} s per page), {max(0, deadline - t) / 60:.0f} min "
                            "of --budget-minutes left"
                        )
                        skipped.append({"n": n, "reason": why})
                        print(f"N={n}: {why}", flush=True)
                        continue
                    students: list[Student] = []
                    cap = deadline - t
                    try:
                        row = await asyncio.wait_for(
                            run_class(browser, server, meter, n, args, slugs, nav, students), cap
                        )
                    except TimeoutError:
                        skipped.append({"n": n, "reason": f"stopped after {cap:.0f} s"})
                        print(f"N={n}: stopped after {cap:.0f} s", flush=True)
                        await asyncio.gather(
                            *(x.context.close() for x in students if x.context),
                            return_exceptions=True,
                        )
                        continue
                    per_page = row["load_wall_s"] / n
                    row["wall_s"] = time.monotonic() - t
                    row["load_average_after"] = os.getloadavg()
                    rows.append(row)
                    write_json(args.json, make_report())  # what is measured so far
                    print(
                        f"N={n}: {row['changes']} changes, p50 {_f(row['latency_ms_p50'])} ms, "
                        f"p95 {_f(row['latency_ms_p95'])} ms, errors {row['errors']}, server CPU "
                        f"{100 * row['server_cpu_share']:.0f} %, browser CPU "
                        f"{100 * row['browser_cpu_share']:.0f} % ({row['wall_s']:.0f} s)",
                        flush=True,
                    )
            finally:
                await browser.close()
    finally:
        stop_server(server.process)
    return make_report()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10,30,60", help="class sizes N, comma-separated")
    parser.add_argument("--duration", type=float, default=60, help="seconds of changes per N")
    parser.add_argument("--interval", type=float, default=2, help="mean seconds between changes")
    parser.add_argument("--change-timeout", type=float, default=15, help="seconds per change")
    parser.add_argument("--load-timeout", type=float, default=120, help="seconds per page load")
    parser.add_argument("--load-concurrency", type=int, default=4, help="pages loading at once")
    parser.add_argument(
        "--settle-ms", type=float, default=150, help="quiet after the answer before the last paint"
    )
    parser.add_argument(
        "--num-procs", default=None, help="PEX_NUM_PROCS (default: the Dockerfile's)"
    )
    parser.add_argument(
        "--budget-minutes", type=float, default=60, help="skip the sizes that would not fit"
    )
    parser.add_argument("--json", default=str(ROOT / "benchmarks" / "classroom.json"))
    args = parser.parse_args()
    report = asyncio.run(main_async(args))
    rows = report["rows"]
    print()
    print(table(rows))
    for x in report["skipped"]:
        print(f"N={x['n']}: {x['reason']}")
    print()
    for r in rows:
        print(
            f"N={r['n']}: loads p50 {_f(r['load_s_p50'], '{:.1f}')} s / max "
            f"{_f(r['load_s_max'], '{:.1f}')} s ({r['load_wall_s']:.0f} s for all); "
            f"{r['changes_per_s']:.1f} changes/s; server {_f(r['server_cpu_ms_per_change'])} ms "
            f"CPU per change, peak {_f(100 * (r['server_cpu_share_peak_5s'] or 0))} % over 5 s; "
            f"harness {100 * r['harness_cpu_share']:.0f} %; {r['pages_visible']}/{r['loaded']} "
            f"pages visible, min {_f(r['fps_min'])} frames/s; "
            f"{_f(r['ws_messages_in_per_page_s'], '{:.1f}')} ws messages/s per page; "
            f"browser {_f(r['browser_mb_per_page'])} MB per page; server RSS "
            f"{r['rss_mb_before']:.0f} -> {r['rss_mb_loaded']:.0f} (peak "
            f"{r['rss_mb_peak']:.0f}) -> {r['rss_mb_after_expiry']:.0f} MB after expiry"
        )
        problems = (
            r["failed_loads"] + r["page_errors"][:5] + [e[:300] for e in r["server_log_errors"][:3]]
        )
        for p in problems:
            print(f"    {p}")
        if r["change_timeouts"]:
            print(f"    {r['change_timeouts']} changes without an answer in the timeout")
        for note in r["harness_notes"][:5]:
            print(f"    harness: {note}")
    print()
    print(
        "Latency = change -> animation frame after the last repaint, measured in the "
        "browsers, which share this machine's CPU with the server."
    )
    print(say(rows, report["conclusion"], args.interval))
    print(f"wall time {report['wall_s']:.0f} s")
    write_json(args.json, report)
    print(f"wrote {args.json}")


def write_json(path: str, report: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(report, indent=2, default=_json_default) + "\n")


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "__dataclass_fields__"):
        return asdict(obj)
    return str(obj)


if __name__ == "__main__":
    main()
