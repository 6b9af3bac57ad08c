"""Browser-side latency measurement shared by the benchmarks (latency, classroom).

What "painted" means here (worked out in the issue-8 prototype):

* :data:`PROBE_JS` is installed with ``context.add_init_script`` (so it runs
  before BokehJS; :func:`new_page` does it) and keeps ``window.__pe``:

  - it wraps Bokeh's ``PlotView._actual_paint`` (the canvas paint of every
    figure; reached as ``Bokeh.Models.get("Plot").prototype.default_view``)
    to record each paint and schedule a ``requestAnimationFrame`` in it: the
    frame time is when the browser has the new pixels;
  - it wraps the document's ``apply_json_patch`` (every server-originated
    document change: its time, how long the browser spent applying it, and
    which model properties it set) and schedules a frame after it too (for
    HTML readouts, which change the DOM without a canvas paint);
  - it wraps ``window.WebSocket`` to time every message in and out and read
    the Bokeh protocol headers (``PATCH-DOC``, ``OK`` with ``reqid``).

* :func:`sample` runs an *action* in the page (e.g. ``model.value = v`` on a
  widget's Bokeh model, :data:`SET_MODELS_JS`: the same message a drag
  sends), then waits until every message the page sent has its ``OK``,
  nothing happened (paint, frame, message, patch) for ``quiet_ms``, and a
  ping sent after that quiet period (``SERVER-INFO-REQ``, which the server
  answers when its event loop is free) came back with nothing before it.
  The ping matters: Panel answers ``OK`` at once and runs the callback
  afterwards, so a callback slower than ``quiet_ms`` would otherwise end the
  sample early. ``latency_ms`` = last paint frame − action (or the last patch
  frame if no figure repainted: a readout-only change); a change the browser
  handles alone (``jslink``/``CustomJS``, no server message) ends at its last
  paint. ``server_ms`` / ``server_last_ms``: first / last ``PATCH-DOC`` from
  the server; ``first_paint_ms``: first paint frame; ``patch_apply_ms``:
  browser time inside ``apply_json_patch``.

* :func:`first_load` times navigation start → the last paint frame once
  every displayed figure has painted and the page has settled.

Bytes per change come from Playwright's ``page.on("websocket")`` →
``ws.on("framereceived")`` (:class:`WireCounter`), minus the pings' replies.

Typical use (see ``benchmarks/latency.py``)::

    from playwright.sync_api import sync_playwright
    from benchmarks._browser import (
        SET_MODELS_JS, WireCounter, find_widgets, first_load, launch, new_page, sample, served)

    with sync_playwright() as pw, served(["app"]) as base:   # panel serve app, free port
        browser = launch(pw)                                  # Debian Chromium + flags
        page = new_page(browser)                              # probe installed
        wire = WireCounter(page)
        load = first_load(page, f"{base}/app?page=sinusoidal")     # {"load_ms", ...}
        t = next(w for w in find_widgets(page) if w.get("title") == "Position t")
        s = sample(page, SET_MODELS_JS, [[t["id"], {"value": 12}]], wire=wire)
        print(s.latency_ms, s.server_ms, s.bytes_in)

Several pages (sessions) can be driven from one browser, one ``new_page``
each; keep the measured page in front (``first_load`` calls
``bring_to_front``) since a hidden page gets no animation frames.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]
VIEWPORT = {"width": 1280, "height": 800}

# --------------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def served(
    apps: Sequence[str] = ("app",),
    *,
    extra_args: Sequence[str] = (),
    log: Path | None = None,
    timeout: float = 120,
    profile: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Iterator[str]:
    """``panel serve <apps>`` on a free loopback port (cwd = repo root); yield the base URL.

    ``env``: variables set for the server on top of this process's (``PEX_REDIS_URL``).

    Each app is served at ``/<file or directory name without .py>``. With
    ``profile``, the server runs under pyinstrument and is stopped with
    SIGINT, so that pyinstrument writes its report there (text for a ``.txt``
    path, else HTML).
    """
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    renderer = "text" if profile and profile.suffix == ".txt" else "html"
    profiler = (
        ["-m", "pyinstrument", "--show-all", "-r", renderer, "-o", str(profile)] if profile else []
    )
    command = [
        sys.executable,
        *profiler,
        "-m",
        "panel",
        "serve",
        *apps,
        "--address",
        "127.0.0.1",
        "--port",
        str(port),
        "--allow-websocket-origin",
        f"127.0.0.1:{port}",
        "--liveness",
        *extra_args,
    ]
    handle = log.open("w") if log else subprocess.DEVNULL
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=handle,
        stderr=subprocess.STDOUT,
        env={**os.environ, **env} if env else None,
    )
    try:
        wait_until_up(base, process, log, timeout=timeout)
        yield base
    finally:
        if profile:
            process.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(60)
        stop_process(process)
        if log:
            handle.close()  # type: ignore[union-attr]


@contextlib.contextmanager
def redis_server(folder: Path | None = None, timeout: float = 5.0) -> Iterator[str]:
    """A private ``redis-server`` (Debian's) on a free loopback port, nothing saved to
    disk; yields its URL. FileNotFoundError when it is not installed."""
    import redis

    binary = shutil.which("redis-server")
    if binary is None:
        raise FileNotFoundError("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    command = [
        binary,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
    ]
    if folder is not None:
        command += ["--dir", str(folder)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"redis-server did not answer on port {port}") from None
                time.sleep(0.05)
        yield url
    finally:
        client.close()
        stop_process(process)


def wait_until_up(
    base: str, process: subprocess.Popen, log: Path | None = None, *, timeout: float = 120
) -> None:
    """Poll ``<base>/liveness`` (``--liveness``) until the server answers 200.

    Fails at once if ``process`` exits, or after ``timeout`` s; the error
    carries the end of the server's ``log``.
    """
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited early:\n{_tail(log)}")
        try:
            with urllib.request.urlopen(f"{base}/liveness", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop_process(process)
            raise RuntimeError(f"the server did not answer within {timeout} s:\n{_tail(log)}")
        time.sleep(0.25)


def stop_process(process: subprocess.Popen, timeout: float = 10) -> None:
    """Terminate a server (or any child), killing it if it does not stop in time."""
    process.terminate()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


def resident_bytes(processes: Sequence[Any]) -> int:
    """The resident memory of ``processes`` (``psutil.Process``), those that ended left out."""
    import psutil  # only the memory reports need it

    total = 0
    for process in processes:
        with contextlib.suppress(psutil.Error):
            total += process.memory_info().rss
    return total


def _tail(log: Path | None, chars: int = 3000) -> str:
    if log is None or not log.exists():
        return "(no log)"
    return log.read_text(errors="replace")[-chars:]


# -------------------------------------------------------------------- browser


def chromium_path() -> str:
    """The Chromium to launch; raises if it is missing (callers decide skip vs fail)."""
    if Path(CHROMIUM).exists() or shutil.which(CHROMIUM):
        return CHROMIUM
    raise FileNotFoundError(f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)")


def launch(playwright: Any) -> Any:
    """Headless Debian Chromium with the flags that keep timers and frames running."""
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)


def new_page(browser: Any) -> Any:
    """A fresh context + page with the probe installed (before any page script runs)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(PROBE_JS)
    page = context.new_page()
    return page


#: Installed before any page script. See the module docstring.
PROBE_JS = r"""
(() => {
  if (window.__pe) return;
  const now = () => performance.now();
  const pe = window.__pe = {
    paints: [], frames: [], patchFrames: [], patches: [], inbound: [], outbound: [], plotPaints: [],
    painted: new Set(), pendingAcks: new Set(), hooked: false, docHooked: false,
    sockets: [], pongs: new Set(), pingBytes: 0, pings: 0,
  };
  pe.clear = () => {
    pe.paints = []; pe.frames = []; pe.patchFrames = []; pe.patches = [];
    pe.inbound = []; pe.outbound = []; pe.plotPaints = [];
  };
  // ---- websocket: time and size of every message; Bokeh protocol headers
  const WS = window.WebSocket;
  const header = data => {
    if (typeof data !== 'string' || !data.startsWith('{')) return null;
    if (!data.includes('"msgtype"')) return null;
    try { const h = JSON.parse(data); return h.msgtype ? h : null; } catch (e) { return null; }
  };
  const size = data => typeof data === 'string' ? data.length : (data.byteLength ?? data.size ?? 0);
  let skip = 0;  // frames of a ping's reply still to come (not counted as activity)
  class ProbeWebSocket extends WS {
    constructor(...args) {
      super(...args);
      pe.sockets.push(this);
      this.addEventListener('message', ev => {
        const h = header(ev.data);
        if (h && h.msgtype === 'SERVER-INFO-REPLY' && String(h.reqid).startsWith('pe-ping-')) {
          pe.pongs.add(h.reqid); pe.pingBytes += size(ev.data); skip = 2; return;
        }
        if (skip > 0 && !h) { skip -= 1; pe.pingBytes += size(ev.data); return; }
        skip = 0;
        pe.inbound.push({t: now(), type: h ? h.msgtype : null, size: size(ev.data)});
        if (h && h.reqid != null) pe.pendingAcks.delete(h.reqid);
      });
    }
    send(data) {
      const h = header(data);
      pe.outbound.push({t: now(), type: h ? h.msgtype : null, size: size(data)});
      if (h && h.msgtype === 'PATCH-DOC') pe.pendingAcks.add(h.msgid);
      return super.send(data);
    }
  }
  window.WebSocket = ProbeWebSocket;
  // A ping the server answers when its event loop is free: SERVER-INFO-REQ
  // (BokehJS ignores the reply). Sent with the original send (not recorded).
  pe.ping = () => {
    const sock = pe.sockets.filter(s => s.readyState === WS.OPEN).at(-1);
    if (!sock) return null;
    const id = `pe-ping-${++pe.pings}`;
    for (const frame of [JSON.stringify({msgid: id, msgtype: 'SERVER-INFO-REQ'}), '{}', '{}']) {
      WS.prototype.send.call(sock, frame);
    }
    return id;
  };
  // ---- paints and server patches
  const frame = list => requestAnimationFrame(() => list.push(now()));
  const hookPaint = () => {
    const B = window.Bokeh;
    if (!B || !B.Models) return false;
    let Plot;
    try { Plot = B.Models.get ? B.Models.get('Plot') : B.Models.Plot; } catch (e) { return false; }
    if (!Plot || !Plot.prototype.default_view) return false;
    let proto = Plot.prototype.default_view.prototype;
    while (proto && !Object.prototype.hasOwnProperty.call(proto, '_actual_paint')) {
      proto = Object.getPrototypeOf(proto);
    }
    if (!proto) return false;
    const original = proto._actual_paint;
    proto._actual_paint = function (...args) {
      const result = original.apply(this, args);
      const t = now();
      pe.paints.push(t);
      pe.painted.add(this.model.id);
      const {width, height} = this.bbox;
      pe.plotPaints.push({id: this.model.id, t, width, height});
      frame(pe.frames);
      return result;
    };
    return true;
  };
  const hookDoc = () => {
    const B = window.Bokeh;
    if (!B || !B.documents || B.documents.length === 0) return false;
    const proto = Object.getPrototypeOf(B.documents[0]);
    const original = proto.apply_json_patch;
    const describe = (doc, patch) => {
      try {
        return (patch.events ?? []).slice(0, 12).map(e => {
          const ref = e.model ?? e.column_source;
          const m = ref && ref.id ? doc.get_model_by_id(ref.id) : null;
          const type = m ? m.type.split('.').at(-1) : '?';
          return `${e.kind}:${type}${e.attr ? '.' + e.attr : ''}`;
        });
      } catch (err) { return []; }
    };
    proto.apply_json_patch = function (...args) {
      const start = now();
      const what = describe(this, args[0]);
      const result = original.apply(this, args);
      pe.patches.push({start, end: now(), what});
      frame(pe.patchFrames);
      return result;
    };
    return true;
  };
  const timer = setInterval(() => {
    if (!pe.hooked) pe.hooked = hookPaint();
    if (pe.hooked && !pe.docHooked) pe.docHooked = hookDoc();
    if (pe.hooked && pe.docHooked) clearInterval(timer);
  }, 1);
  // ---- helpers used from Python
  pe.doc = () => window.Bokeh.documents[0];
  pe.model = id => pe.doc().get_model_by_id(id);
  pe.viewOf = model => {
    try { return window.Bokeh.index.find_one(model); } catch (e) { return null; }
  };
  // The frame after which every figure of ``plots`` shows its final picture:
  // each figure's first paint of the run of same-size paints it ends with.
  // Later paints of the same size redraw the same pixels (Bokeh's legend asks
  // for two more after the first; measured identical). A server change to
  // anything but text after it could change a picture: then null, as when a
  // figure never painted.
  const TEXT = /^ModelChanged:(TextInput|TextAreaInput|HTML|Markdown|Div|Paragraph|ReactiveHTML)\./;
  pe.drawnAt = plots => {
    let drawn = 0;
    for (const id of plots) {
      const mine = pe.plotPaints.filter(p => p.id === id && p.width > 0 && p.height > 0);
      if (mine.length === 0) return null;
      const same = (p, q) => p.width === q.width && p.height === q.height;
      let k = mine.length - 1;
      while (k > 0 && same(mine[k - 1], mine[k])) k--;
      drawn = Math.max(drawn, mine[k].t);
    }
    if (pe.patches.some(p => p.start > drawn && p.what.some(w => !TEXT.test(w)))) return null;
    return pe.frames.find(f => f >= drawn) ?? drawn;
  };
  pe.displayedPlots = () => {
    const Plot = window.Bokeh.Models.get('Plot');
    const out = [];
    for (const m of pe.doc().all_models) {
      if (!(m instanceof Plot)) continue;
      const v = pe.viewOf(m);
      if (v && v.is_displayed) out.push(m.id);
    }
    return out;
  };
  pe.lastActivity = () => Math.max(
    pe.paints.at(-1) ?? -Infinity, pe.frames.at(-1) ?? -Infinity,
    pe.patchFrames.at(-1) ?? -Infinity, pe.inbound.at(-1)?.t ?? -Infinity,
    pe.patches.at(-1)?.end ?? -Infinity, pe.outbound.at(-1)?.t ?? -Infinity);
  // Panel's busy indicator (templates): spinning while a server callback runs.
  // Found once: get_model_by_name walks every model, and this is polled
  // every 10 ms while a sample runs (it was ~12 ms of main-thread time per
  // sample, competing with the paint being measured). A page without one
  // is looked at again at most once a second (a CPU profile showed the
  // lookup, repeated every 10 ms, at ~5 ms of main-thread time per change).
  let busyModel = null, busyLookedAt = -Infinity;
  pe.busy = () => {
    try {
      if (busyModel == null && now() - busyLookedAt >= 1000) {
        busyLookedAt = now();
        busyModel = pe.doc().get_model_by_name('busy_indicator');
      }
      return busyModel != null && (busyModel.css_classes ?? []).includes('pn-loading');
    } catch (e) { return false; }
  };
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  // Wait until: no message without its OK, the server not busy, (if expectPatch)
  // a PATCH-DOC seen, nothing happened for quietMs, and then a ping sent after
  // the quiet period came back with nothing before it (the server's event loop
  // was free: no callback still computing). Returns true on timeout.
  pe.settle = async (t0, quietMs, timeoutMs, expectPatch) => {
    let ping = null, pingAt = -Infinity;
    while (true) {
      await sleep(10);
      const t = now();
      if (t - t0 > timeoutMs) return true;
      const last = Math.max(t0, pe.lastActivity());
      const patched = !expectPatch || pe.inbound.some(m => m.type === 'PATCH-DOC');
      if (pe.pendingAcks.size || !patched || pe.busy() || t - last < quietMs) continue;
      if (ping == null || pingAt < last) {
        ping = pe.ping(); pingAt = now();
        if (ping == null) return false;  // no socket: nothing to wait for
        continue;
      }
      if (pe.pongs.has(ping)) {
        if (pe.lastActivity() <= pingAt) return false;
        ping = null;
      }
    }
  };
  // One measured change: run `action(arg)` and wait for quiet.
  pe.sample = async (action, arg, quietMs, timeoutMs, expectPatch) => {
    await new Promise(r => requestAnimationFrame(() => r()));
    pe.clear();
    const pingBytes = pe.pingBytes;
    const t0 = now();
    action(arg);
    const timedOut = await pe.settle(t0, quietMs, timeoutMs, expectPatch);
    const firstPatch = pe.inbound.find(m => m.type === 'PATCH-DOC');
    const lastPaintFrame = pe.frames.at(-1);
    const lastPatchFrame = pe.patchFrames.at(-1);
    const firstPaint = pe.frames[0];
    let end = null, kind = 'none';
    if (lastPaintFrame != null) { end = lastPaintFrame; kind = 'paint'; }
    else if (lastPatchFrame != null) { end = lastPatchFrame; kind = 'dom'; }
    const patchIn = pe.inbound.filter(m => m.type === 'PATCH-DOC');
    return {
      t0, timedOut, kind,
      latency: end == null ? null : end - t0,
      first: firstPaint == null ? null : firstPaint - t0,
      patchApplyMs: pe.patches.reduce((a, p) => a + p.end - p.start, 0),
      patchWhat: pe.patches.map(p => p.what),
      server: firstPatch ? firstPatch.t - t0 : null,
      serverLast: patchIn.length ? patchIn.at(-1).t - t0 : null,
      paints: pe.paints.length, patches: pe.patches.length,
      lastPatch: pe.patches.length ? pe.patches.at(-1).end - t0 : null,
      inBytes: pe.inbound.reduce((a, m) => a + m.size, 0),
      outBytes: pe.outbound.reduce((a, m) => a + m.size, 0),
      inMessages: pe.inbound.filter(m => m.type).map(m => m.type),
      pingBytes: pe.pingBytes - pingBytes,
    };
  };
})();
"""

#: An action for :func:`sample`: ``arg`` is ``[[model_id, {prop: value, ...}], ...]``,
#: set in order with ``setv`` (one document change per property, as a drag sends).
SET_MODELS_JS = """
(arg) => {
  for (const [id, props] of arg) {
    const model = window.__pe.model(id);
    for (const [name, value] of Object.entries(props)) model[name] = value;
  }
}
"""


@dataclass
class Sample:
    """One measured change (times in ms from the action)."""

    latency_ms: float | None  # last paint frame (or DOM frame after a patch) − action
    first_paint_ms: float | None  # first paint frame − action
    patch_apply_ms: float  # time the browser spent applying the server's patches
    server_ms: float | None  # first PATCH-DOC from the server − action (None: no message)
    server_last_ms: float | None  # last PATCH-DOC from the server − action
    kind: str  # "paint", "dom" (patch but no canvas paint) or "none"
    bytes_in: int  # websocket bytes received (Playwright framereceived)
    bytes_out: int
    paints: int
    patches: int
    timed_out: bool
    messages: list[str] = field(default_factory=list)
    patch_events: list[list[str]] = field(default_factory=list)  # what each server patch set


class WireCounter:
    """Websocket bytes seen by Playwright for one page (``framereceived``/``framesent``)."""

    def __init__(self, page: Any) -> None:
        self.received = 0
        self.sent = 0
        page.on("websocket", self._attach)

    def _attach(self, ws: Any) -> None:
        ws.on("framereceived", lambda payload: self._add("received", payload))
        ws.on("framesent", lambda payload: self._add("sent", payload))

    def _add(self, which: str, payload: str | bytes) -> None:
        n = len(payload.encode()) if isinstance(payload, str) else len(payload)
        setattr(self, which, getattr(self, which) + n)


def wait_for_probe(page: Any, timeout: float = 30_000) -> None:
    """Until BokehJS, the document and both hooks are in place."""
    page.wait_for_function(
        "() => window.__pe && window.__pe.hooked && window.__pe.docHooked", timeout=timeout
    )


def sample(
    page: Any,
    action_js: str,
    arg: Any,
    *,
    wire: WireCounter | None = None,
    quiet_ms: float = 300,
    timeout_ms: float = 15_000,
    expect_patch: bool = False,
) -> Sample:
    """Run ``action_js`` (a JS function of one argument) in the page and time what follows.

    The sample ends when every message the page sent has its ``OK``, Panel's
    busy indicator (if the page has one) is off, nothing happened for
    ``quiet_ms`` and, with ``expect_patch``, at least one ``PATCH-DOC`` came
    from the server: use it when the change is known to reach the server
    (Panel answers ``OK`` at once and may run the callback later, e.g. after
    its 50 ms debounce; a slow callback would otherwise end the sample early).
    """
    before = (wire.received, wire.sent) if wire else (0, 0)
    raw = page.evaluate(
        f"([arg, q, t, e]) => window.__pe.sample({action_js}, arg, q, t, e)",
        [arg, quiet_ms, timeout_ms, expect_patch],
    )
    if wire:
        # Playwright delivers frame events asynchronously; they arrived long before
        # the quiet period ended, so one round trip is enough to have them all.
        page.evaluate("0")
        # minus the pings' replies (the settle step's, not the app's)
        bytes_in = wire.received - before[0] - raw["pingBytes"]
        bytes_out = wire.sent - before[1]
    else:
        bytes_in, bytes_out = raw["inBytes"], raw["outBytes"]
    return Sample(
        latency_ms=raw["latency"],
        first_paint_ms=raw["first"],
        patch_apply_ms=raw["patchApplyMs"],
        server_ms=raw["server"],
        server_last_ms=raw["serverLast"],
        kind=raw["kind"],
        bytes_in=bytes_in,
        bytes_out=bytes_out,
        paints=raw["paints"],
        patches=raw["patches"],
        timed_out=raw["timedOut"],
        messages=raw["inMessages"],
        patch_events=raw["patchWhat"],
    )


def first_load(
    page: Any, url: str, *, quiet_ms: float = 500, timeout_ms: float = 60_000
) -> dict[str, Any]:
    """Navigate to ``url``; time navigation start → every figure drawn, and → the last paint.

    Returns ``{"load_ms", "drawn_ms", "server_ms", "figures", "painted", "complete"}``:
    ``server_ms`` is the page's first byte (the server builds the session before
    it answers);
    ``drawn_ms`` is the frame after which every figure shows its final
    picture (each figure's first paint at the size it ends with; None if the
    server changed more than text after that), ``load_ms`` the frame after
    the last paint of all, once the page has been quiet for ``quiet_ms``.
    ``complete`` is False if some displayed figure never painted within
    ``timeout_ms``.
    """
    for attempt in range(3):  # a busy server can take long to build a session
        try:
            page.goto(url, wait_until="commit", timeout=120_000)
            break
        except Exception:
            if attempt == 2:
                raise
    page.bring_to_front()
    wait_for_probe(page, timeout=timeout_ms)
    return page.evaluate(
        """async ([quiet, timeout]) => {
          const pe = window.__pe;
          const sleep = ms => new Promise(r => setTimeout(r, ms));
          const start = performance.now();
          while (true) {
            await sleep(20);
            const t = performance.now();
            const plots = pe.displayedPlots();
            const all = plots.length > 0 && plots.every(id => pe.painted.has(id));
            const last = pe.lastActivity();
            if (all && pe.pendingAcks.size === 0 && !pe.busy() && t - last >= quiet) {
              if (await pe.settle(t, quiet, timeout, false)) continue;
              // The server builds the session before it answers the page's request.
              const nav = performance.getEntriesByType("navigation")[0];
              return {load_ms: pe.frames.at(-1) ?? last, drawn_ms: pe.drawnAt(plots),
                      server_ms: nav ? nav.responseStart : null,
                      figures: plots.length,
                      painted: plots.filter(id => pe.painted.has(id)).length, complete: true};
            }
            if (t - start > timeout) {
              return {load_ms: pe.frames.at(-1) ?? null, drawn_ms: null, figures: plots.length,
                      painted: plots.filter(id => pe.painted.has(id)).length, complete: false};
            }
          }
        }""",
        [quiet_ms, timeout_ms],
    )


#: Every widget model in the document (not tools): id, type, title/label, value
#: (or ``active``/``labels``/``options``), range, tags, and whether it is displayed.
WIDGETS_JS = """
() => {
  const pe = window.__pe;
  const out = [];
  const get = (m, k) => { try { return m[k]; } catch (e) { return undefined; } };
  const Widget = window.Bokeh.Models.get('Widget');
  // A slider with a number box (Panel's editable slider): a column of a row
  // holding its label and box, then the slider, whose own title is empty.
  const labelOf = new Map();
  const boxes = new Set();  // the number boxes: the slider beside each is the one driven
  for (const m of pe.doc().all_models) {
    const kids = get(m, 'children');
    if (!Array.isArray(kids) || kids.length !== 2) continue;
    if (!Array.isArray(get(kids[0], 'children'))) continue;
    const label = kids[0].children.find(c => typeof get(c, 'text') === 'string');
    if (!label) continue;
    labelOf.set(kids[1], label.text.replace(/[: ]+$/, ''));
    for (const c of kids[0].children) if (c instanceof Widget) boxes.add(c);
  }
  for (const m of pe.doc().all_models) {
    if (!(m instanceof Widget)) continue;
    const v = pe.viewOf(m);
    let shown = false;
    if (v && v.el) {
      const r = v.el.getBoundingClientRect();
      shown = r.width > 0 && r.height > 0 && v.el.isConnected;
    }
    const props = {};
    for (const k of ['title', 'label', 'labels', 'value', 'value_throttled', 'active', 'options',
                     'start', 'end', 'step', 'disabled', 'name', 'tags']) {
      if (k in m.properties) { const x = get(m, k); if (x !== undefined) props[k] = x; }
    }
    if (!props.title && labelOf.has(m)) props.title = labelOf.get(m);
    if (boxes.has(m)) props.box = true;
    out.push({id: m.id, type: m.type, shown, ...props});
  }
  return out;
}
"""


def find_widgets(page: Any) -> list[dict[str, Any]]:
    """The page's widget models (see :data:`WIDGETS_JS`), in document order."""
    return page.evaluate(WIDGETS_JS)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0–100), linear between closest ranks; None if empty."""
    data = sorted(v for v in values if v is not None)
    if not data:
        return None
    pos = (len(data) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (pos - low)
