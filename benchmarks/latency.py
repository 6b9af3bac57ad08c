"""Time every control of every page in a real browser: change → figures painted.

Serves the app (``panel serve app benchmarks/naive_app.py benchmarks/floor_app.py`` on a free
loopback port), opens each page in headless Chromium and, for every control,
sets the widget's Bokeh model value in the page (the message a drag sends)
and times it until the figures are painted (see ``benchmarks/_browser.py``
for what "painted" means). Each control is measured at the default sizes,
then again with the page's size controls at their upper bounds. Also times
each page's first load, and the naive pattern (a figure rebuilt by
``pn.bind`` on every change, ``benchmarks/naive_app.py``) and the floor
(the same figure moved by the browser alone, ``benchmarks/floor_app.py``)
against the Sinusoidal page's ``t``.

    python benchmarks/latency.py                 # all pages, 30 samples, both sizes
    python benchmarks/latency.py --quick --pages sinusoidal rope
    python benchmarks/latency.py --check         # exit 1 if a p95 is over 3× budget
    python benchmarks/latency.py --across        # each control over its whole range
    python benchmarks/latency.py --pages sinusoidal --controls base --js-profile prof/

Prints a table (page, control, size, p50, p95, bytes per change, server ms)
and writes JSON (``--json``, default ``benchmarks/latency.json``).

Budgets (2-core machine, loopback): p50 ≤ 35 ms and p95 ≤ 70 ms per control
at default sizes; controls that only select among computed data (``SELECT``)
p95 ≤ 20 ms; at the largest sizes p95 ≤ 120 ms; first load ≤ 2.5 s.

Widgets are found by their label (the parameter's ``label`` is the slider's
or select's title); widgets without a title (discrete sliders, button groups)
are found by moving them once and reading which key of the page's link
changed. Values are chosen in the widget's own range (so log sliders and
discrete sliders need no special case): a walk of a few steps around the
current value. With ``--across`` each slider is instead set to points spread
over its whole track (one in each of ``samples`` equal bins, in random order)
and each selector to every option in random order, as a student clicks: what
a change costs anywhere, not only near the defaults (budget p50 ≤ 60 ms, p95
≤ 120 ms; the naive rebuild's n and d are walked the same way).

Text inputs (Order page sentences) and file / paste inputs (Context
extension's config.json) are not measured.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import param

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.main import PAGES  # noqa: E402
from benchmarks._browser import (  # noqa: E402
    SET_MODELS_JS,
    WireCounter,
    find_widgets,
    first_load,
    launch,
    new_page,
    percentile,
    sample,
    served,
)

# ------------------------------------------------------------------ budgets
P50_BUDGET = 35.0
P95_BUDGET = 70.0
SELECT_P95_BUDGET = 20.0
LARGEST_P95_BUDGET = 120.0
ACROSS_P50_BUDGET = 60.0
ACROSS_P95_BUDGET = 120.0
#: Sent per change, any control, any value (the issue's "data follows the pixels").
BYTES_BUDGET = 300_000
#: Navigation → every figure drawn (the issue "Every setting answers at once").
LOAD_BUDGET = 1500.0
CHECK_FACTOR = 3.0
FILE_INPUTS = {"page": "extension", "control": "config.json paste / file", "why": "file input"}
NAIVE_GOAL = 4.0
#: What the benchmark serves: the app, the naive rebuild and the floor.
APPS = ("app", "benchmarks/naive_app.py", "benchmarks/floor_app.py")

#: Controls that only select among data already computed (highlighted position,
#: clock hands, selected head / row / pair): p95 ≤ 20 ms; the browser draws
#: them from candidates shipped with the figures (app/choice.py). Everything
#: else is "compute". RoPE's R1 controls (m, n, θ, the two contents) are
#: compute controls: each value turns the pair by a new angle and scores it in
#: the core, and the arc between the two arrows depends on m, n and θ together,
#: so there is no finite set of computed rows to select among (θ and the
#: contents are continuous) and the browser may not do the math itself.
SELECT: dict[str, set[str]] = {
    "sinusoidal": {"t"},
    "rope": {"pair"},
    "extension": {"pair"},
    "alibi": {"head", "row"},
    "relative": {"head"},
}

#: Size controls set to their upper bounds for the "largest" pass.
SIZES: dict[str, tuple[str, ...]] = {
    "sinusoidal": ("n", "d", "max_len"),
    "rope": ("d", "max_distance"),
    "extension": ("d", "target_len", "served_len"),
    "alibi": ("heads", "seq_len", "max_distance", "trained_len"),
    "relative": (
        "num_buckets",
        "max_distance",
        "offset_range",
        "heads",
        "bias_len",
        "shaw_len",
        "nope_len",
    ),
    "compare": ("target_len", "d", "heads"),
}


def select_controls(slug: str) -> set[str]:
    return SELECT.get(slug, set())


#: Controls that set several others at once, each to another point of its range
#: (a model preset moves d, base, L, L′ and the method's factors together): every
#: change is a jump across the ranges, never a step near the defaults, so it is
#: held to the budget of a change anywhere in the range.
SETS_OTHERS = {("extension", "preset")}


def budget(slug: str, name: str, size: str) -> tuple[float, float]:
    """(p50, p95) budget in ms."""
    if size == "largest":
        return (LARGEST_P95_BUDGET, LARGEST_P95_BUDGET)
    if name in select_controls(slug):
        return (min(P50_BUDGET, SELECT_P95_BUDGET), SELECT_P95_BUDGET)
    if size == "across" or (slug, name) in SETS_OTHERS:
        return (ACROSS_P50_BUDGET, ACROSS_P95_BUDGET)
    return (P50_BUDGET, P95_BUDGET)


# ----------------------------------------------------------------- controls
def _contexts(slug: str) -> dict[str, dict[str, str]]:
    """Controls shown only in some state (Context extension: a method's knobs) → that state."""
    if slug != "extension":
        return {}
    try:
        from app.pages.extension import METHOD_CONTROLS
    except ImportError:
        return {}
    out: dict[str, dict[str, str]] = {}
    for method, names in METHOD_CONTROLS.items():
        for name in names:
            out.setdefault(name, {"method": method})
    return out


def plan(slug: str) -> tuple[list[tuple[dict[str, str], list[str]]], list[tuple[str, str]]]:
    """Controls of a page grouped by the state they need; and the skipped ones with why."""
    cls = PAGES[slug]
    contexts = _contexts(slug)
    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    skipped = []
    for name in cls.control_names():
        p = cls.param[name]
        if isinstance(p, param.String):
            skipped.append((name, "text input"))
            continue
        key = tuple(sorted(contexts.get(name, {}).items()))
        groups.setdefault(key, []).append(name)
    ordered = sorted(groups.items(), key=lambda kv: len(kv[0]))
    return [(dict(k), names) for k, names in ordered], skipped


def largest_query(slug: str) -> dict[str, str]:
    """The page's size controls at their upper bounds, made consistent by the page's rules."""
    cls = PAGES[slug]
    values = {n: cls.param[n].default for n in cls.control_names()}
    for name in SIZES.get(slug, ()):
        p = cls.param[name]
        if isinstance(p, param.Selector):
            objects = list(p.objects.values() if isinstance(p.objects, dict) else p.objects)
            values[name] = max(objects)
        else:
            values[name] = p.bounds[1]
    fixed, _ = cls.constrain(values)
    return {n: str(fixed[n]) for n in SIZES.get(slug, ()) if n in fixed}


# -------------------------------------------------------------- value walks
def is_slider(w: dict[str, Any]) -> bool:
    return "start" in w and "end" in w and "value" in w and w.get("step") is not None


def _walk_numbers(value: float, low: float, high: float, step: float, count: int) -> list[float]:
    """``count`` values, each different from the one before: a small triangle walk."""
    steps = (high - low) / step if step else 0
    delta = step if steps <= 200 else step * max(1, round(steps / 100))
    up = value + 4 * delta <= high
    sign = 1 if up else -1
    if not up and value - 4 * delta < low:
        delta = (high - low) / 8  # a narrow range: walk across it
        sign = 1 if value - low < high - value else -1
    offsets = [1, 2, 3, 4, 3, 2, 1, 0]
    out = []
    for i in range(count):
        v = value + sign * offsets[i % len(offsets)] * delta
        v = min(max(v, low), high)
        v = low + round((v - low) / step) * step if step else v
        out.append(round(v, 10))
    # never the same value twice in a row
    for i in range(1, len(out)):
        if out[i] == out[i - 1]:
            out[i] = min(max(out[i] + step, low), high)
    return out


def _across_numbers(
    value: float, low: float, high: float, step: float, count: int, rng: random.Random
) -> list[float]:
    """``count`` values spread over ``[low, high]``: one at a random point of each of
    ``count`` equal bins, snapped to ``step``, in random order, never the same twice
    in a row (nor the first equal to ``value``)."""
    out = []
    for i in range(count):
        v = low + (i + rng.random()) / count * (high - low)
        v = low + round((v - low) / step) * step if step else v
        out.append(round(min(max(v, low), high), 10))
    rng.shuffle(out)
    previous = value
    for i, v in enumerate(out):
        if v == previous:
            out[i] = v = round(v + step if v + step <= high else v - step, 10)
        previous = v
    return out


def _across_options(here: Any, keys: list[Any], count: int, rng: random.Random) -> list[Any]:
    """Every option in random order, repeated to ``count``, never the same twice in a row."""
    if len(keys) < 2:
        return [keys[0]] * count if keys else []
    out: list[Any] = []
    while len(out) < count:
        order = list(keys)
        rng.shuffle(order)
        for k in order:
            if k != (out[-1] if out else here):
                out.append(k)
    return out[:count]


def values_for(
    widget: dict[str, Any],
    count: int,
    bounds: tuple[Any, Any] | None,
    rng: random.Random | None = None,
) -> list[Any]:
    """``count`` model values to set one after the other (each differs from the previous):
    a walk around the current value, or spread over the whole range with ``rng``."""
    if rng is not None:
        return _values_across(widget, count, bounds, rng)
    if "labels" in widget and "active" in widget and isinstance(widget["active"], int):
        n = len(widget["labels"])
        return [(widget["active"] + 1 + i) % n if n > 1 else 0 for i in range(count)]
    if "active" in widget and isinstance(widget["active"], bool):  # Checkbox
        return [not widget["active"] if i % 2 == 0 else widget["active"] for i in range(count)]
    if "options" in widget and "value" in widget:
        keys = [o[0] if isinstance(o, list) else o for o in widget["options"]]
        here = keys.index(widget["value"]) if widget["value"] in keys else 0
        order = [1, 2, 1, 0] if len(keys) > 2 else [1, 0]
        return [keys[(here + order[i % len(order)]) % len(keys)] for i in range(count)]
    if "value" in widget and isinstance(widget["value"], int | float):
        low = widget.get("start")
        high = widget.get("end")
        if (low is None or high is None) and bounds:
            low, high = bounds
        step = widget.get("step") or 1
        return _walk_numbers(widget["value"], low, high, step, count)
    raise ValueError(f"no values for widget {widget.get('type')}")


def _values_across(
    widget: dict[str, Any], count: int, bounds: tuple[Any, Any] | None, rng: random.Random
) -> list[Any]:
    if "labels" in widget and "active" in widget and isinstance(widget["active"], int):
        keys = list(range(len(widget["labels"])))
        return _across_options(widget["active"], keys, count, rng)
    if "active" in widget and isinstance(widget["active"], bool):
        return values_for(widget, count, bounds)
    if "options" in widget and "value" in widget:
        keys = [o[0] if isinstance(o, list) else o for o in widget["options"]]
        return _across_options(widget["value"], keys, count, rng)
    low, high = widget.get("start"), widget.get("end")
    if (low is None or high is None) and bounds:
        low, high = bounds
    step = widget.get("step") or 1
    return _across_numbers(widget["value"], low, high, step, count, rng)


def props_for(widget: dict[str, Any], value: Any, throttled: bool) -> dict[str, Any]:
    """The model properties a user's change sets."""
    if "labels" in widget and isinstance(widget.get("active"), int):
        return {"active": value}
    if isinstance(widget.get("active"), bool):
        return {"active": value}
    if is_slider(widget) and throttled:
        return {"value": value, "value_throttled": value}
    return {"value": value}


def current_value(widget: dict[str, Any]) -> Any:
    if "labels" in widget or isinstance(widget.get("active"), bool):
        return widget["active"]
    return widget["value"]


# ------------------------------------------------------------ finding widgets
def _url_query(widgets: list[dict[str, Any]]) -> dict[str, str] | None:
    for w in widgets:
        value = w.get("value")
        if "TextInput" in w["type"] and isinstance(value, str) and value.startswith("?page="):
            return dict(parse_qsl(value[1:], keep_blank_values=True))
    return None


def _candidate(w: dict[str, Any]) -> bool:
    if "nav" in (w.get("tags") or []) or not w["shown"] or w.get("disabled") or w.get("box"):
        return False
    t = w["type"]
    if "TextInput" in t or "TextArea" in t or "FileInput" in t or t.split(".")[-1] == "Button":
        return False
    return "value" in w or "active" in w


def match_widgets(
    page: Any, slug: str, names: list[str], wire: WireCounter, quiet_ms: float
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Param name → widget model (by title, then by moving the rest and reading the link)."""
    cls = PAGES[slug]
    widgets = [w for w in find_widgets(page) if _candidate(w)]
    found: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    for name in names:
        label = cls.param[name].label or name
        hits = [
            w
            for w in widgets
            if w["id"] not in used and (w.get("title") == label or w.get("label") == label)
        ]
        if hits:
            found[name] = hits[0]
            used.add(hits[0]["id"])
    missing = [n for n in names if n not in found]
    if missing:
        for w in widgets:
            if w["id"] in used or not missing:
                continue
            if w.get("title") and w["title"] not in ("", None):
                # titled but not one of ours (e.g. a paste box): leave alone
                continue
            before = _url_query(find_widgets(page)) or {}
            value = values_for(w, 1, None)[0]
            _set(page, w, value, wire, quiet_ms)
            after = before
            for _ in range(20):  # the link is written after the figures
                after = _url_query(find_widgets(page)) or {}
                if after != before:
                    break
                page.wait_for_timeout(100)
            changed = [k for k in missing if before.get(k) != after.get(k)]
            _set(page, w, current_value(w), wire, quiet_ms)
            if len(changed) == 1:
                found[changed[0]] = w
                used.add(w["id"])
                missing.remove(changed[0])
    return found, missing


def _set(page: Any, widget: dict[str, Any], value: Any, wire: WireCounter, quiet_ms: float) -> None:
    """An unmeasured change that reaches the server; wait until it is done."""
    sample(
        page,
        SET_MODELS_JS,
        [[widget["id"], props_for(widget, value, True)]],
        wire=wire,
        quiet_ms=quiet_ms,
        expect_patch=True,
        timeout_ms=10_000,
    )


# ------------------------------------------------------------------ results
@dataclass
class Row:
    page: str
    control: str
    size: str
    kind: str  # select / compute
    samples: int
    p50: float | None
    p95: float | None
    p50_budget: float
    p95_budget: float
    bytes_per_change: float | None
    server_ms: float | None  # median time to the first server patch (None: no message)
    server_last_ms: float | None  # median time to the last server patch
    first_paint_ms: float | None  # median time to the first paint frame
    apply_ms: float | None  # median browser time applying the server's patches
    no_message: int  # samples with no server patch
    ended_by: str  # paint / dom / none (most common)
    timeouts: int
    note: str = ""
    raw_ms: list[float] = field(default_factory=list)
    max_bytes: float | None = None  # the most one change received
    patches: float | None = None  # median PATCH-DOC messages per change
    values: list[Any] = field(default_factory=list)  # the values set, in order
    patch_events: list[str] = field(default_factory=list)  # what the server's patches set
    #: The page's main thread per change by kind of work, ms (``--js-profile``).
    browser: dict[str, float] | None = None

    @property
    def over(self) -> bool:
        return (self.p50 is not None and self.p50 > self.p50_budget) or (
            self.p95 is not None and self.p95 > self.p95_budget
        )

    @property
    def heavy(self) -> bool:
        """More than the budget's bytes, or more than one patch message, per change."""
        return (self.max_bytes or 0) > BYTES_BUDGET or (self.patches or 0) > 1

    @property
    def over_check(self) -> bool:
        return self.p95 is not None and self.p95 > CHECK_FACTOR * self.p95_budget


def measure_control(
    page: Any,
    slug: str,
    name: str,
    widget: dict[str, Any],
    size: str,
    samples: int,
    wire: WireCounter,
    quiet_ms: float,
    kind: str | None = None,
    restore: bool = True,
) -> Row:
    cls = PAGES.get(slug)
    throttled = bool(cls and cls.widget_specs.get(name, {}).get("throttled"))
    p = cls.param[name] if cls else None
    bounds = getattr(p, "bounds", None)
    rng = random.Random(f"{slug}.{name}") if size == "across" else None
    values = values_for(widget, samples + 1, bounds, rng)
    taken = []
    # One warm-up change (first use of a code path), not counted. A change the
    # browser handles alone (jslink / CustomJS) may send nothing back: the
    # sample then ends at its last paint (the settle step pings the server).
    for i, value in enumerate(values):
        s = sample(
            page,
            SET_MODELS_JS,
            [[widget["id"], props_for(widget, value, throttled)]],
            wire=wire,
            quiet_ms=quiet_ms,
        )
        if i:
            taken.append(s)
    if restore:  # put the control back
        sample(
            page,
            SET_MODELS_JS,
            [[widget["id"], props_for(widget, current_value(widget), throttled)]],
            wire=wire,
            quiet_ms=quiet_ms,
        )
    lat = [s.latency_ms for s in taken if s.latency_ms is not None]
    servers = [s.server_ms for s in taken if s.server_ms is not None]
    lasts = [s.server_last_ms for s in taken if s.server_last_ms is not None]
    firsts = [s.first_paint_ms for s in taken if s.first_paint_ms is not None]
    events: dict[str, int] = {}
    for s in taken:
        for patch in s.patch_events:
            for e in patch:
                events[e] = events.get(e, 0) + 1
    kinds = [s.kind for s in taken]
    p50_b, p95_b = budget(slug, name, size)
    kind = kind or ("select" if name in select_controls(slug) else "compute")
    note = "" if lat else "no paint, no patch"
    return Row(
        page=slug,
        control=name,
        size=size,
        kind=kind,
        samples=len(taken),
        p50=percentile(lat, 50),
        p95=percentile(lat, 95),
        p50_budget=p50_b,
        p95_budget=p95_b,
        bytes_per_change=statistics.median(s.bytes_in for s in taken) if taken else None,
        server_ms=statistics.median(servers) if servers else None,
        server_last_ms=statistics.median(lasts) if lasts else None,
        first_paint_ms=statistics.median(firsts) if firsts else None,
        apply_ms=statistics.median(s.patch_apply_ms for s in taken) if taken else None,
        no_message=sum(s.server_ms is None for s in taken),
        ended_by=max(set(kinds), key=kinds.count) if kinds else "none",
        timeouts=sum(s.timed_out for s in taken),
        note=note,
        raw_ms=[round(x, 1) for x in lat],
        max_bytes=max(s.bytes_in for s in taken) if taken else None,
        patches=statistics.median(s.patches for s in taken) if taken else None,
        values=values[1:],
        patch_events=[
            f"{e} ×{n / max(len(taken), 1):.3g}"
            for e, n in sorted(events.items(), key=lambda kv: -kv[1])
        ],
    )


def set_context(
    page: Any, slug: str, context: dict[str, str], wire: WireCounter, quiet_ms: float
) -> bool:
    """Put the page in ``context`` (e.g. method=yarn) through its own widgets."""
    if not context:
        return True
    found, missing = match_widgets(page, slug, list(context), wire, quiet_ms)
    if missing:
        return False
    for name, value in context.items():
        w = found[name]
        target: Any = value
        if "labels" in w:
            objects = PAGES[slug].param[name].objects
            keys = [str(o) for o in (objects.values() if isinstance(objects, dict) else objects)]
            target = keys.index(value)
        _set(page, w, target, wire, quiet_ms)
    return True


#: Where the page's main thread spends its time, by the innermost frame of a
#: sample's stack named here (Bokeh's bundle keeps its method names). A sample
#: under none of them goes by its script, or by the profiler's own nodes:
#: "(program)" is Chromium's native work outside JavaScript (style, layout,
#: paint, compositing), "(garbage collector)" the JavaScript heap's.
BROWSER_WORK: dict[str, frozenset[str]] = {
    "paint": frozenset(
        {"paint", "_paint", "repaint", "_actual_paint", "_paint_levels", "_paint_primary"}
    ),
    "layout": frozenset(
        {
            "compute_layout", "_compute_layout", "_invalidate_layout_if_needed",
            "invalidate_layout", "after_layout", "_after_layout", "update_layout",
            "measure_layout", "_measure_layout", "update_bbox", "_update_bbox",
            "_tick_label_extents", "get_size", "_content_size", "update_position",
            "getBoundingClientRect", "getComputedStyle",
        }
    ),
    "patch": frozenset(
        {"_on_message", "apply_json_patch", "_apply_json_patch", "_handle_patch", "setv",
         "_setv", "set_data"}
    ),
}  # fmt: skip
BROWSER_COLUMNS = ("patch", "layout", "paint", "panel", "our scripts", "native", "gc", "other")


def browser_work(profile: dict[str, Any]) -> dict[str, float]:
    """Milliseconds of a Chrome CPU profile by kind of work (:data:`BROWSER_WORK`);
    idle time left out."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", ())}
    self_ms: dict[int, float] = {}
    for node, delta in zip(profile["samples"], profile["timeDeltas"], strict=False):
        self_ms[node] = self_ms.get(node, 0.0) + delta / 1000
    out = dict.fromkeys(BROWSER_COLUMNS, 0.0)
    for leaf, ms in self_ms.items():
        frame = nodes[leaf]["callFrame"]
        name = frame["functionName"]
        if name in ("(idle)", "(root)"):
            continue
        kind = {"(program)": "native", "(garbage collector)": "gc"}.get(name)
        node: int | None = leaf
        while kind is None and node is not None:
            called = nodes[node]["callFrame"]["functionName"]
            kind = next((k for k, names in BROWSER_WORK.items() if called in names), None)
            node = parent.get(node)
        if kind is None:
            url = frame["url"]
            kind = (
                "our scripts" if "/app/static/" in url else "panel" if "panel" in url else "other"
            )
        out[kind] += ms
    return out


@contextmanager
def js_profile(page: Any, path: Path | None) -> Iterator[dict[str, float]]:
    """Save the page's JavaScript CPU profile while the block runs to ``path``.

    Chrome's sampling profiler (DevTools protocol), every 0.2 ms; the file opens
    in Chrome DevTools' Performance panel. It covers every change of the block
    from start to end, quiet periods and the probe's own frames included, so
    read it for where the page's time goes, not for a latency. ``None``: nothing.
    """
    work: dict[str, float] = {}
    if path is None:
        yield work
        return
    cdp = page.context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    cdp.send("Profiler.start")
    try:
        yield work
    finally:
        profile = cdp.send("Profiler.stop")["profile"]
        cdp.detach()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(profile))
        work.update(browser_work(profile))


def run_page(
    browser: Any,
    base: str,
    slug: str,
    size: str,
    samples: int,
    quiet_ms: float,
    log: Any = print,
    restore: bool = True,
    controls: Sequence[str] | None = None,
    js_profiles: Path | None = None,
) -> tuple[list[Row], dict[str, Any], list[tuple[str, str]]]:
    groups, skipped = plan(slug)
    if controls:
        groups = [(c, [n for n in names if n in controls]) for c, names in groups]
        groups = [(c, names) for c, names in groups if names]
    query = {"page": slug}
    if size == "largest":
        query.update(largest_query(slug))
    page = new_page(browser)
    wire = WireCounter(page)
    try:
        where = js_profiles / f"{slug}-load-{size}.cpuprofile" if js_profiles else None
        load = two_loads(page, f"{base}/app?{urlencode(query)}", where)
        load["size"] = size
        load["page"] = slug
        rows: list[Row] = []
        for context, names in groups:
            if not set_context(page, slug, context, wire, quiet_ms):
                skipped += [(n, f"could not set {context}") for n in names]
                continue
            found, missing = match_widgets(page, slug, names, wire, quiet_ms)
            skipped += [(n, "widget not found") for n in missing]
            for name in names:
                if name not in found:
                    continue
                where = js_profiles / f"{slug}-{name}-{size}.cpuprofile" if js_profiles else None
                with js_profile(page, where) as work:
                    row = measure_control(
                        page,
                        slug,
                        name,
                        found[name],
                        size,
                        samples,
                        wire,
                        quiet_ms,
                        restore=restore,
                    )
                if work:  # the profile also holds the warm-up change and the restore
                    changes = row.samples + 1 + restore
                    row.browser = {k: v / changes for k, v in work.items()}
                if context:
                    row.note = (row.note + "; " if row.note else "") + urlencode(context)
                rows.append(row)
                log(format_row(row))
        return rows, load, skipped
    finally:
        page.context.close()


def two_loads(page: Any, url: str, profile: Path | None = None) -> dict[str, Any]:
    """Open ``url`` twice: the first session of a page in a fresh process (its
    imports and caches cold), then the next student's, which is measured (and
    profiled to ``profile``); the first's times are kept as ``cold_*``."""
    cold = first_load(page, url)
    with js_profile(page, profile) as work:
        load = first_load(page, url)
    load["browser"] = dict(work) or None
    load["cold_drawn_ms"] = load_drawn_ms(cold)
    load["cold_server_ms"] = cold.get("server_ms")
    return load


def run_naive(
    browser: Any, base: str, samples: int, quiet_ms: float
) -> tuple[Row | None, Row | None, Row | None]:
    """The Sinusoidal page's t against the naive app's t and the floor's (same walk, same sizes).

    The floor (``benchmarks/floor_app.py``) is the same figure moved by the
    browser alone: what any change costs this browser, server or not.
    """
    out: list[Row | None] = []
    for url, label in (
        (f"{base}/app?page=sinusoidal", "sinusoidal"),
        (f"{base}/naive_app", "naive (pn.bind)"),
        (f"{base}/floor_app", "floor (browser only)"),
    ):
        page = new_page(browser)
        wire = WireCounter(page)
        try:
            first_load(page, url)
            widgets = [w for w in find_widgets(page) if _candidate(w)]
            hits = [w for w in widgets if w.get("title") == "Position t"]
            if not hits:
                out.append(None)
                continue
            row = measure_control(
                page, label, "t", hits[0], "default", samples, wire, quiet_ms, kind="select"
            )
            row.page = label
            out.append(row)
        finally:
            page.context.close()
    return out[0], out[1], out[2]


def run_naive_across(
    browser: Any, base: str, samples: int, quiet_ms: float
) -> tuple[list[Row], dict[str, Any]]:
    """The naive app's n and d set to the values the Sinusoidal page's n and d get
    in the ``--across`` run (same seeds, same ranges); and its first load."""
    page = new_page(browser)
    wire = WireCounter(page)
    rows = []
    try:
        load = two_loads(page, f"{base}/naive_app")
        load.update(page="naive", size="across")
        widgets = [w for w in find_widgets(page) if _candidate(w)]
        for name in ("n", "d"):
            label = PAGES["sinusoidal"].param[name].label
            hits = [w for w in widgets if w.get("title") == label]
            if not hits:
                continue
            row = measure_control(
                page, "sinusoidal", name, hits[0], "across", samples, wire, quiet_ms
            )
            row.page = "naive"
            rows.append(row)
    finally:
        page.context.close()
    return rows, load


# ------------------------------------------------------------------- output
def _fmt(x: float | None, digits: int = 0) -> str:
    return "—" if x is None else f"{x:,.{digits}f}"


HEADER = (
    f"{'page':<11} {'control':<17} {'kind':<8} {'size':<8} {'p50':>6} {'p95':>6} "
    f"{'budget':>8} {'first':>6} {'bytes/chg':>10} {'max kB':>7} {'msgs':>4} "
    f"{'srv1st':>7} {'srvlast':>7} {'apply':>6} "
    f"{'end':>5}  note"
)


def format_row(r: Row) -> str:
    flag = " OVER" if r.over else ""
    flag += " (>3×)" if r.over_check else ""
    flag += " HEAVY" if r.heavy else ""
    server = _fmt(r.server_ms) if r.no_message < r.samples else "none"
    last = _fmt(r.server_last_ms) if r.no_message < r.samples else "none"
    return (
        f"{r.page:<11} {r.control:<17} {r.kind:<8} {r.size:<8} {_fmt(r.p50):>6} "
        f"{_fmt(r.p95):>6} {f'{r.p50_budget:.0f}/{r.p95_budget:.0f}':>8} "
        f"{_fmt(r.first_paint_ms):>6} {_fmt(r.bytes_per_change):>10} "
        f"{_fmt(r.max_bytes / 1000 if r.max_bytes is not None else None):>7} "
        f"{_fmt(r.patches, 1):>4} {server:>7} {last:>7} "
        f"{_fmt(r.apply_ms):>6} {r.ended_by:>5}  {r.note}{flag}"
    )


def run(
    pages: list[str],
    samples: int,
    sizes: tuple[str, ...] = ("default", "largest"),
    quiet_ms: float = 300,
    naive: bool = True,
    log: Any = None,
    restore: bool = True,
    naive_samples: int | None = None,
    partial: Path | None = None,
    controls: Sequence[str] | None = None,
    profile: Path | None = None,
    js_profiles: Path | None = None,
) -> dict[str, Any]:
    """Measure; return everything the JSON holds."""
    from playwright.sync_api import sync_playwright

    log = log or (lambda line: print(line, flush=True))
    started = time.monotonic()
    failed: list[dict[str, str]] = []
    rows: list[Row] = []
    loads: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    comparison: dict[str, Any] | None = None
    log_path = Path(tempfile.mkdtemp(prefix="latency-")) / "panel.log"
    with (
        sync_playwright() as pw,
        served(
            list(APPS),
            log=log_path,
            profile=profile,
        ) as base,
    ):
        browser = launch(pw)
        try:
            log(HEADER)
            ours = theirs = floor = None
            if naive:
                try:
                    ours, theirs, floor = run_naive(
                        browser, base, naive_samples or samples, quiet_ms
                    )
                except Exception as err:
                    log(f"naive comparison failed: {type(err).__name__}: {err}")
                    failed.append({"page": "naive", "size": "default", "error": str(err)[:500]})
                for row in (ours, theirs, floor):
                    if row:
                        log(format_row(row))
                if ours and theirs:
                    ratio = theirs.p50 / ours.p50 if ours.p50 and theirs.p50 else None
                    comparison = {
                        "ours": asdict(ours),
                        "naive": asdict(theirs),
                        "speedup_p50": ratio,
                        "speedup_p95": theirs.p95 / ours.p95 if ours.p95 and theirs.p95 else None,
                        "goal": NAIVE_GOAL,
                        "floor": asdict(floor) if floor else None,
                    }
            if naive and "across" in sizes:
                try:
                    naive_rows, naive_load = run_naive_across(browser, base, samples, quiet_ms)
                    loads.append(naive_load)
                except Exception as err:
                    log(f"naive across failed: {type(err).__name__}: {err}")
                    failed.append({"page": "naive", "size": "across", "error": str(err)[:500]})
                    naive_rows = []
                for row in naive_rows:
                    log(format_row(row))
                rows += naive_rows
            for slug in pages:  # page by page: a stopped run still has both sizes of some
                for size in sizes:
                    if size == "largest" and not SIZES.get(slug):
                        continue
                    try:
                        page_rows, load, skip = run_page(
                            browser,
                            base,
                            slug,
                            size,
                            samples,
                            quiet_ms,
                            log,
                            restore,
                            controls,
                            js_profiles,
                        )
                    except Exception as err:  # a page that fails must not lose the others
                        log(f"{slug} ({size}) failed: {type(err).__name__}: {err}")
                        failed.append({"page": slug, "size": size, "error": str(err)[:500]})
                        continue
                    rows += page_rows
                    loads.append(load)
                    if partial:  # what is done so far, in case the run is stopped
                        partial.write_text(
                            json.dumps({"rows": [asdict(r) for r in rows], "loads": loads})
                        )
                    if size == "default":
                        skipped += [{"page": slug, "control": n, "why": w} for n, w in skip]
        finally:
            browser.close()
    return {
        "meta": {
            "samples": samples,
            "sizes": list(sizes),
            "quiet_ms": quiet_ms,
            "restore": restore,
            "pages": pages,
            "wall_s": round(time.monotonic() - started, 1),
            "loadavg": os.getloadavg(),
            "server_log": str(log_path),
            "server_errors": _server_errors(log_path),
            "cpus": os.cpu_count(),
            "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "budgets": {
                "p50": P50_BUDGET,
                "p95": P95_BUDGET,
                "select_p95": SELECT_P95_BUDGET,
                "largest_p95": LARGEST_P95_BUDGET,
                "load_ms": LOAD_BUDGET,
                "check_factor": CHECK_FACTOR,
            },
            "select": {k: sorted(v) for k, v in SELECT.items()},
        },
        "rows": [asdict(r) for r in rows],
        "loads": loads,
        "skipped": [*skipped, FILE_INPUTS],
        "naive": comparison,
        "failed": failed,
    }


def _server_errors(log: Path) -> list[str]:
    """Lines of the server log that report an error (a disconnecting browser is not one)."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return []
    benign = ("WebSocketClosedError", "StreamClosedError")
    return [
        line
        for line in text.splitlines()
        if ("Traceback" in line or "ERROR" in line or "Error" in line)
        and not any(b in line for b in benign)
    ][:50]


def load_drawn_ms(load: dict[str, Any]) -> float | None:
    """When every figure of a first load was drawn (its last paint if that is unknown).

    Loads saved before ``drawn_ms`` was measured have only the last paint.
    """
    drawn = load.get("drawn_ms")
    return drawn if drawn is not None else load.get("load_ms")


def _work_line(
    page: str,
    what: str,
    ms: float | None,
    share: str,
    server: float | None,
    work: dict[str, float] | None,
) -> str:
    """One row of :func:`browser_table`."""
    work = work or {}
    return (
        f"  {page:<11} {what:<17} {_fmt(ms):>5} {share:>6} {_fmt(server):>6}  "
        + " ".join(f"{work.get(c, 0):>11.1f}" for c in BROWSER_COLUMNS)
        + f" {sum(work.values()):>6.0f}"
    )


def browser_table(rows: list[Row], loads: list[dict[str, Any]]) -> list[str]:
    """Where each control over budget (and each first load) spends its time: the
    server's answer, the page's main thread by kind of work (``--js-profile``), and
    its p50 as a share of the naive rebuild's n in the same run."""
    naive = next((r.p50 for r in rows if r.page == "naive" and r.control == "n"), None)
    profiled = [r for r in rows if r.browser and (r.over or r.heavy)]
    loaded = [load for load in loads if load.get("browser")]
    if not profiled and not loaded:
        return []
    lines = [
        "",
        "Where the time goes (ms per change; the page's main thread from its JavaScript "
        "profile, warm-up and restore included):",
        f"  {'page':<11} {'control':<17} {'p50':>5} {'÷naive':>6} {'server':>6}  "
        + " ".join(f"{c:>11}" for c in BROWSER_COLUMNS)
        + f" {'busy':>6}",
    ]
    for r in profiled:
        share = f"{r.p50 / naive:.2f}" if naive and r.p50 else "—"
        lines.append(_work_line(r.page, r.control, r.p50, share, r.server_last_ms, r.browser))
    naive_load = next((load_drawn_ms(x) for x in loads if x["page"] == "naive"), None)
    for load in loaded:
        drawn = load_drawn_ms(load)
        share = f"{drawn / naive_load:.1f}" if naive_load and drawn else "—"
        lines.append(
            _work_line(
                load["page"], "(first load)", drawn, share, load.get("server_ms"), load["browser"]
            )
        )
    return lines


def summary(result: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Lines to print after the table; and the --check failures."""
    lines, failures = [], []
    for f in result.get("failed", []):
        failures.append(f"{f['page']} ({f['size']}) failed: {f['error'][:200]}")
    rows = [Row(**r) for r in result["rows"]]
    over = [r for r in rows if r.over]
    lines.append("")
    lines.append(
        f"Load (navigation → every figure drawn; → the last paint) of each page's second "
        f"session, budget {LOAD_BUDGET:,.0f} ms for the first; the server's part is the "
        "page's first byte:"
    )
    for load in result["loads"]:
        drawn = load_drawn_ms(load)
        ok = load["complete"] and drawn is not None and drawn <= LOAD_BUDGET
        server = load.get("server_ms")
        lines.append(
            f"  {load['page']:<11} {load['size']:<8} {_fmt(drawn):>7} ms; "
            f"{_fmt(load['load_ms']):>7} ms  "
            f"{load['painted']}/{load['figures']} figures"
            + (f"; server {server:,.0f} ms" if server is not None else "")
            + (
                f"; the page's first session {load['cold_drawn_ms']:,.0f} ms "
                f"(server {load['cold_server_ms']:,.0f})"
                if load.get("cold_drawn_ms") and load.get("cold_server_ms")
                else ""
            )
            + ("" if ok else "  OVER")
        )
    lines += browser_table(rows, result["loads"])
    if result["skipped"]:
        lines.append("")
        lines.append(
            "Not measured: "
            + "; ".join(f"{s['page']}.{s['control']} ({s['why']})" for s in result["skipped"])
        )
    naive = result.get("naive")
    if naive and naive["speedup_p50"]:
        lines.append("")
        lines.append(
            f"Naive pn.bind rebuild vs ours (Sinusoidal t): p50 {naive['naive']['p50']:.0f} vs "
            f"{naive['ours']['p50']:.0f} ms → ours {naive['speedup_p50']:.1f}× faster "
            f"(p95: {naive['speedup_p95'] or math.nan:.1f}×; goal ≥ {NAIVE_GOAL:.0f}×)"
        )
        floor = naive.get("floor")
        if floor and floor["p50"]:
            lines.append(
                f"Floor, the same figure moved by the browser alone: p50 {floor['p50']:.0f}, "
                f"p95 {floor['p95']:.0f} ms (no control can be faster in this browser)"
            )
    errors = result["meta"].get("server_errors") or []
    if errors:
        lines.append("")
        lines.append(f"Server log {result['meta']['server_log']} has {len(errors)} error lines:")
        lines += [f"  {e[:160]}" for e in errors[:5]]
    lines.append("")
    lines.append(f"{len(over)} of {len(rows)} rows over budget.")
    for r in rows:
        if r.over_check:
            failures.append(
                f"{r.page}.{r.control} ({r.size}): p95 {r.p95:.0f} ms > "
                f"{CHECK_FACTOR:.0f} × {r.p95_budget:.0f} ms"
            )
        if r.timeouts:
            failures.append(f"{r.page}.{r.control} ({r.size}): {r.timeouts} samples timed out")
    return lines, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=30, help="changes per control (30)")
    parser.add_argument("--pages", nargs="+", default=list(PAGES), choices=list(PAGES))
    parser.add_argument("--quick", action="store_true", help="4 samples, default sizes only")
    parser.add_argument(
        "--sizes", nargs="+", choices=["default", "largest", "across"], default=None
    )
    parser.add_argument(
        "--across",
        action="store_true",
        help="each slider at points spread over its whole range (same as --sizes across)",
    )
    parser.add_argument("--quiet-ms", type=float, default=300, help="quiet period ending a sample")
    parser.add_argument("--no-naive", action="store_true", help="skip the pn.bind comparison")
    parser.add_argument(
        "--no-restore", action="store_true", help="leave each control where its walk ended"
    )
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "latency.json")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if a control's p95 > 3× its budget"
    )
    parser.add_argument(
        "--controls", nargs="+", default=None, help="only these controls (parameter names)"
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="run the server under pyinstrument and write its HTML report here",
    )
    parser.add_argument(
        "--js-profile",
        type=Path,
        default=None,
        help="save the page's JavaScript CPU profile per control in this directory",
    )
    parser.add_argument(
        "--report", type=Path, default=None, help="print the table of a saved JSON and exit"
    )
    args = parser.parse_args(argv)
    if args.report:
        saved = json.loads(args.report.read_text())
        print(HEADER)
        for r in saved["rows"]:
            print(format_row(Row(**r)))
        saved.setdefault("skipped", [])
        saved.setdefault("meta", {})
        print("\n".join(summary(saved)[0]))
        return 0
    samples = 4 if args.quick and args.samples == 30 else args.samples
    sizes = tuple(args.sizes or (("default",) if args.quick else ("default", "largest")))
    if args.across:
        sizes = ("across",)
    partial = args.json.with_suffix(".partial.json")
    result = run(
        args.pages,
        samples,
        sizes,
        args.quiet_ms,
        naive=not args.no_naive,
        partial=partial,
        restore=not args.no_restore,
        controls=args.controls,
        profile=args.profile,
        js_profiles=args.js_profile,
    )
    partial.unlink(missing_ok=True)
    lines, failures = summary(result)
    print("\n".join(lines))
    print(f"Wall time {result['meta']['wall_s']:.0f} s.")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1, default=str))
    print(f"JSON: {args.json}")
    if args.check and failures:
        print("\n--check failed:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
