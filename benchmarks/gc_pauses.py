"""Python's garbage collector in a classroom's server: pauses with its thresholds and the app's.

Run ``python benchmarks/gc_pauses.py`` (``--sessions 40 --changes 300`` by
default). For each setting, in turn, a fresh child process does what a
server with that many open sessions does, in-process and without a browser:
it builds the sessions as the server builds them (the app's pages in turn),
then replays the same seeded changes (a compute control of each open page,
round-robin, as a widget's change is applied) and, every 30 changes, builds
a new session and drops the oldest. The child records every collection's
pause by generation (``gc.callbacks``) and every change's time; the parent
prints one table. Python's setting is its default thresholds (700, 10, 10),
the app's is what ``app.main`` sets on import (:data:`app.main.GC_THRESHOLDS`).

Reading the numbers: a full collection ("gen 2") walks every live object of
every session, and the server does nothing else meanwhile; the "worst change"
column includes any pause that landed in a change.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._browser import percentile  # noqa: E402

#: The control each page's sessions change, and the values they take.
CHANGES: dict[str, tuple[str, list[Any]]] = {
    "order": ("scheme", ["sinusoidal", "rope", "causal", "none"]),
    "sinusoidal": ("d", [32, 48, 64, 96]),
    "rope": ("d", [32, 48, 64, 128]),
    "extension": ("factor", [2.0, 3.0, 4.0, 5.0]),
    "alibi": ("heads", [6, 8, 12, 16]),
    "relative": ("num_buckets", [8, 16, 24, 32]),
    "compare": ("trained_len", [2048, 4096, 8192]),
}
SETTINGS = ("python", "app")
PYTHON_THRESHOLDS = (700, 10, 10)


def child(setting: str, sessions: int, changes: int, seed: int) -> dict[str, Any]:
    """Build ``sessions`` sessions, replay ``changes`` changes; return pauses and change times."""
    import gc

    from bokeh.document import Document
    from panel.io.state import set_curdoc

    import app.main as main  # sets the app's thresholds
    from app.respond import one_update, walk_the_graph_once

    if setting == "python":
        gc.set_threshold(*PYTHON_THRESHOLDS)
    elif setting != "app":  # thresholds to try: "a,b,c"
        gc.set_threshold(*map(int, setting.split(",")))
    slugs = list(CHANGES)

    def build(slug: str) -> tuple[Any, Any]:
        doc = Document()
        with set_curdoc(doc), walk_the_graph_once(doc):
            template = main.build_app({"page": slug})
            template.server_doc(doc, title=main.TITLE)
        return doc, template.shell.current

    pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
    started: list[float] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            pauses[info["generation"]].append((time.perf_counter() - started.pop()) * 1e3)

    gc.collect()
    gc.callbacks.append(note)
    t0 = time.perf_counter()
    live = [build(slugs[i % len(slugs)]) for i in range(sessions)]
    build_open_s = time.perf_counter() - t0
    rng = random.Random(seed)
    change_ms: list[float] = []
    build_ms: list[float] = []
    for i in range(changes):
        doc, page = live[i % len(live)]
        name, values = CHANGES[page.slug]
        value = rng.choice([v for v in values if v != getattr(page, name)])
        t = time.perf_counter()
        with set_curdoc(doc), one_update():
            page.param.update(**{name: value})
        change_ms.append((time.perf_counter() - t) * 1e3)
        if i % 30 == 29:
            t = time.perf_counter()
            live.append(build(slugs[(sessions + i // 30) % len(slugs)]))
            build_ms.append((time.perf_counter() - t) * 1e3)
            live.pop(0)
    gc.callbacks.remove(note)
    return {
        "setting": setting,
        "thresholds": gc.get_threshold(),
        "objects": len(gc.get_objects()),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "build_open_s": build_open_s,
        "pauses": pauses,
        "change_ms": change_ms,
        "build_ms": build_ms,
    }


def table(results: list[dict[str, Any]]) -> str:
    head = (
        "| setting | thresholds | live objects | gen 2: count | gen 2: total / max ms "
        "| all collections: total ms | longest pause ms | change p50 / p95 / worst ms "
        "| new session p50 ms | peak RSS MB |"
    )
    lines = [head, "|" + "---|" * 10]
    for r in results:
        p = {int(g): v for g, v in r["pauses"].items()}
        every = [x for v in p.values() for x in v]
        c = r["change_ms"]
        builds = f"{statistics.median(r['build_ms']):,.0f}" if r["build_ms"] else "—"
        lines.append(
            f"| {r['setting']} | {tuple(r['thresholds'])} | {r['objects']:,} | {len(p[2])} "
            f"| {sum(p[2]):,.0f} / {max(p[2], default=0):,.0f} | {sum(every):,.0f} "
            f"| {max(every, default=0):,.0f} "
            f"| {statistics.median(c):.0f} / {percentile(c, 95):.0f} / {max(c):,.0f} "
            f"| {builds} | {r['peak_mb']:,.0f} |"
        )
    return "\n".join(lines)


def run_child(setting: str, sessions: int, changes: int, seed: int = 1) -> dict[str, Any]:
    """:func:`child` in a fresh process (the thresholds are the process's, and so is its heap)."""
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            *("--child", setting, "--seed", str(seed)),
            *("--sessions", str(sessions), "--changes", str(changes)),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=40, help="open sessions (default 40)")
    parser.add_argument("--changes", type=int, default=300, help="changes replayed (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument(
        "--also", default="", help="more thresholds to try, e.g. 2000,10,100;700,10,100"
    )
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.sessions, args.changes, args.seed)))
        return 0
    results = []
    for setting in [*SETTINGS, *filter(None, args.also.split(";"))]:
        print(f"{setting}: {args.sessions} sessions, {args.changes} changes ...", flush=True)
        results.append(run_child(setting, args.sessions, args.changes, args.seed))
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
