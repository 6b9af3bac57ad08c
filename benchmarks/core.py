"""Time the core's heavy calls and print one table.

Run ``python benchmarks/core.py`` (``--repeat N`` for more timing runs,
``--quick`` for a smaller RoPE array while developing). Each row gives the best
of N wall-clock times (``time.perf_counter``), the ratio to a plain copy for
the RoPE rows (goal: within 4×; each RoPE row is timed alternately with its
copy so that a busy machine slows both alike), and the peak memory traced by ``tracemalloc``
during one extra call (NumPy reports its buffers to tracemalloc; the peak
includes the returned array, not the input).
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from positional_core.alibi import alibi_bias_row, alibi_slopes
from positional_core.rope import apply_rope
from positional_core.sinusoidal import sinusoidal_encoding

#: The apply_rope goal from issue 2: at most this many times a plain copy.
ROPE_GOAL = 4.0


@dataclass
class Case:
    name: str
    call: Callable[[], object]
    baseline: str | None = None  # name of the case this one is compared with


def best_of(call: Callable[[], object], repeat: int) -> float:
    """Best wall-clock time of ``repeat`` calls, in seconds (after one warm-up call)."""
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def paired_best_of(
    first: Callable[[], object], second: Callable[[], object], repeat: int
) -> tuple[float, float]:
    """Best times of two calls timed alternately, so a busy machine slows both alike."""
    first()
    second()
    best = [math.inf, math.inf]
    for _ in range(repeat):
        for index, call in enumerate((first, second)):
            start = time.perf_counter()
            call()
            best[index] = min(best[index], time.perf_counter() - start)
    return best[0], best[1]


def peak_memory(call: Callable[[], object]) -> int:
    """Peak bytes allocated (as seen by tracemalloc) during one call."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def rope_cases(shape: tuple[int, ...]) -> list[Case]:
    rng = np.random.default_rng(0)
    cases = []
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal(shape).astype(dtype)
        label = f"{shape} {np.dtype(dtype).name}"
        copy_name = f"copy {label}"
        cases.append(Case(copy_name, x.copy))
        for layout in ("interleaved", "half-split"):
            cases.append(
                Case(
                    f"apply_rope {layout} {label}",
                    lambda x=x, layout=layout: apply_rope(x, layout=layout),
                    baseline=copy_name,
                )
            )
    return cases


def other_core_cases() -> list[Case]:
    slope = float(alibi_slopes(8)[-1])
    return [
        Case("sinusoidal_encoding(8192, 1024)", lambda: sinusoidal_encoding(8192, 1024)),
        Case(
            "alibi_bias_row(seq_len=131072)",
            lambda: alibi_bias_row(slope, 131_071, 131_072),
        ),
    ]


# ---------------------------------------------------------------------------
# RoPE scaling methods (positional_core/rope_scaling.py, another engineer's
# module). Imported when the benchmark runs, not at import time, so this
# script still works while that module is missing. Every method in
# ROPE_SCALING_METHODS is timed on a 128-d head with base 10,000 and the
# example parameters below (a Llama-like 4k → 32k stretch); a method without
# an example is called with no extra parameters.
# ---------------------------------------------------------------------------
SCALING_DIM = 128
SCALING_BASE = 10_000.0
SCALING_MAX_POSITIONS = 32_768
SCALING_EXAMPLES: dict[str, dict[str, object]] = {
    "default": {},
    "linear": {"factor": 8.0},
    "ntk": {"factor": 8.0},
    "dynamic": {"factor": 8.0, "seq_len": 65_536},
    "yarn": {"factor": 8.0, "original_max_position_embeddings": 4096},
    "longrope": {
        "short_factor": [1.0] * (SCALING_DIM // 2),
        "long_factor": list(np.linspace(1.0, 8.0, SCALING_DIM // 2)),
        "original_max_position_embeddings": 4096,
        "seq_len": 16_384,
    },
    "llama3": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 4096,
    },
}


def rope_scaling_cases() -> list[Case]:
    """One case per method of ``ROPE_SCALING_METHODS``; empty if the module is missing."""
    try:
        from positional_core.rope_scaling import ROPE_SCALING_METHODS
    except ImportError as error:
        print(f"(RoPE scaling methods not timed: {error})")
        return []
    cases = []
    for name, method in ROPE_SCALING_METHODS.items():
        params = dict(SCALING_EXAMPLES.get(name, {}))

        def call(method=method, params=params):
            return method(
                SCALING_BASE, SCALING_DIM, max_position_embeddings=SCALING_MAX_POSITIONS, **params
            )

        try:
            call()
        except ValueError as error:
            print(f"(rope scaling {name!r} not timed: {error})")
            continue
        cases.append(Case(f"rope scaling {name} (d={SCALING_DIM})", call))
    return cases


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timing runs per case (best kept)")
    parser.add_argument("--quick", action="store_true", help="a (4, 8192, 128) RoPE array")
    args = parser.parse_args(argv)
    shape = (4, 8192, 128) if args.quick else (32, 8192, 128)

    cases = [*rope_cases(shape), *other_core_cases(), *rope_scaling_cases()]
    times: dict[str, float] = {}
    width = max(len(case.name) for case in cases)
    header = f"{'case':<{width}}  {'best ms':>10}  {'vs copy':>8}  {'peak MB':>9}"
    print(f"numpy {np.__version__}; best of {args.repeat} runs")
    print(header)
    print("-" * len(header))
    worst_ratio = 0.0
    by_name = {case.name: case for case in cases}
    for case in cases:
        ratio = ""
        if case.baseline is None:
            seconds = best_of(case.call, args.repeat)
        else:
            # time against the baseline alternately; the ratio uses this pair's timings
            base_seconds, seconds = paired_best_of(
                by_name[case.baseline].call, case.call, args.repeat
            )
            value = seconds / base_seconds
            worst_ratio = max(worst_ratio, value)
            ratio = f"{value:.2f}×"
        times[case.name] = seconds
        peak = peak_memory(case.call) / 2**20
        print(f"{case.name:<{width}}  {seconds * 1e3:>10.3f}  {ratio:>8}  {peak:>9.1f}")
    verdict = "met" if worst_ratio <= ROPE_GOAL else "NOT met"
    print(f"\napply_rope goal (≤ {ROPE_GOAL:g}× a plain copy): {verdict}, worst {worst_ratio:.2f}×")


if __name__ == "__main__":
    main()
