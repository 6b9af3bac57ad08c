"""Two runs of benchmarks/latency.py side by side: which controls got slower, and by how much.

    python benchmarks/latency_diff.py before.json after.json [--tolerance 0.10]
    python benchmarks/latency_diff.py --before b1.json b2.json ... --after a1.json a2.json ...

Reads the JSON each run writes (``--json``), matches controls by page, name and
size, and prints p50, p95 and bytes per change of both runs with their ratio
(after / before). Several runs a side (alternating rounds of the two versions,
so that the machine's slow minutes fall on both) are pooled: a control's
p50 and p95 are those of all its changes in that side's runs. Exits 1 when a
control's p50 is slower by more than the tolerance and by more than
``--floor-ms`` (a few ms of this shared machine's noise are not a regression).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._browser import percentile


def _rows(paths: list[Path]) -> dict[tuple[str, str, str], dict]:
    """Each control's row, its changes pooled over ``paths``."""
    pooled: dict[tuple[str, str, str], list[dict]] = {}
    for path in paths:
        for r in json.loads(path.read_text())["rows"]:
            if r["p50"] is not None:
                pooled.setdefault((r["page"], r["control"], r["size"]), []).append(r)
    if all(len(rows) == 1 for rows in pooled.values()):
        return {key: rows[0] for key, rows in pooled.items()}
    merged = {}
    for key, rows in pooled.items():
        raw = [ms for r in rows for ms in r.get("raw_ms") or []]
        sizes = [r["bytes_per_change"] for r in rows if r.get("bytes_per_change") is not None]
        merged[key] = {
            "p50": percentile(raw, 50) if raw else statistics.median(r["p50"] for r in rows),
            "p95": percentile(raw, 95) if raw else max(r["p95"] for r in rows),
            "bytes_per_change": statistics.median(sizes) if sizes else None,
            "samples": len(raw),
        }
    return merged


def _ratio(after: float | None, before: float | None) -> float | None:
    return after / before if after is not None and before else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, nargs="?")
    parser.add_argument("after", type=Path, nargs="?")
    parser.add_argument("--before", dest="befores", type=Path, nargs="+", default=[])
    parser.add_argument("--after", dest="afters", type=Path, nargs="+", default=[])
    parser.add_argument("--tolerance", type=float, default=0.10, help="allowed slow-down (0.10)")
    parser.add_argument("--floor-ms", type=float, default=3.0, help="ignore smaller slow-downs")
    args = parser.parse_args(argv)
    befores = [*([args.before] if args.before else []), *args.befores]
    afters = [*([args.after] if args.after else []), *args.afters]
    if not befores or not afters:
        parser.error("give the before and after runs (positional, or --before/--after)")
    before, after = _rows(befores), _rows(afters)
    shared = [key for key in before if key in after]
    print(
        "| page | control | size | p50 before → after (ratio) | p95 before → after "
        "| bytes before → after |"
    )
    print("|---|---|---|---|---|---|")
    slower = []
    for key in shared:
        b, a = before[key], after[key]
        ratio = _ratio(a["p50"], b["p50"])
        flag = ""
        if ratio is not None and ratio > 1 + args.tolerance and a["p50"] - b["p50"] > args.floor_ms:
            flag = " **slower**"
            slower.append(key)
        bytes_b, bytes_a = b.get("bytes_per_change") or 0, a.get("bytes_per_change") or 0
        print(
            f"| {key[0]} | {key[1]} | {key[2]} | {b['p50']:.0f} → {a['p50']:.0f} "
            f"({ratio:.2f}){flag} | {b['p95']:.0f} → {a['p95']:.0f} | "
            f"{bytes_b:,.0f} → {bytes_a:,.0f} |"
        )
    missing = sorted(set(before) ^ set(after))
    if missing:
        print(f"\nin one run only: {', '.join('/'.join(k) for k in missing)}")
    ratios = [after[k]["p50"] / before[k]["p50"] for k in shared if before[k]["p50"]]
    if ratios:
        geomean = math.exp(statistics.fmean(math.log(r) for r in ratios))
        print(
            f"\np50 after / before over {len(ratios)} controls: geometric mean {geomean:.2f}, "
            f"median {statistics.median(ratios):.2f}, range {min(ratios):.2f}–{max(ratios):.2f}"
        )
    print(
        f"\n{len(shared)} controls compared; {len(slower)} slower by more than "
        f"{args.tolerance:.0%} (and {args.floor_ms:g} ms) at p50."
    )
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
