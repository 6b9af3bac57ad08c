"""Two runs of benchmarks/latency.py side by side: which controls got slower, and by how much.

    python benchmarks/latency_diff.py before.json after.json [--tolerance 0.10]

Reads the JSON each run writes (``--json``), matches controls by page, name and
size, and prints p50, p95 and bytes per change of both runs with their ratio
(after / before). Exits 1 when a control's p50 is slower by more than the
tolerance and by more than ``--floor-ms`` (a few ms of this shared machine's
noise are not a regression).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _rows(path: Path) -> dict[tuple[str, str, str], dict]:
    data = json.loads(path.read_text())
    return {(r["page"], r["control"], r["size"]): r for r in data["rows"] if r["p50"] is not None}


def _ratio(after: float | None, before: float | None) -> float | None:
    return after / before if after is not None and before else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--tolerance", type=float, default=0.10, help="allowed slow-down (0.10)")
    parser.add_argument("--floor-ms", type=float, default=3.0, help="ignore smaller slow-downs")
    args = parser.parse_args(argv)
    before, after = _rows(args.before), _rows(args.after)
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
    print(
        f"\n{len(shared)} controls compared; {len(slower)} slower by more than "
        f"{args.tolerance:.0%} (and {args.floor_ms:g} ms) at p50."
    )
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
