"""Write tests/core/data/t5_buckets_golden.json: T5 relative buckets from transformers.

Run with a Python that has transformers and torch (NOT the project venv; the
test suite never needs torch)::

    python3.11 -m venv /work/goldenvenv
    /work/goldenvenv/bin/pip install torch==2.13.0 transformers==5.24.0
    /work/goldenvenv/bin/python scripts/make_golden_t5.py [MODEL_CONFIG_DIR] [--check]

MODEL_CONFIG_DIR holds the public config.json extracts (default:
``../shared/model_configs`` next to the repository); T5-base's bucket settings
are read from its ``t5-base.json`` and the file is copied into the JSON.

Every bucket comes from transformers' own
``T5Attention._relative_position_bucket`` on an int64 tensor of offsets
(key − query), for bidirectional (encoder) and causal (decoder) attention:

- ``cases``: offsets −300 … 300 for T5-base's (32, 128), (16, 64) and (8, 20);
  with ``last_bucket_start``, the first distance whose bucket is the
  direction's last, found by scanning transformers' buckets.
- ``far_cases``: offsets near powers of two up to ±2**24 for (32, 128) and
  (32, 2**20); the latter include −131072, where a plain float32 ``numpy.log``
  differs from torch's by one ulp and would give a different bucket.

``--check`` also compares ``positional_core.relative.t5_relative_bucket`` with
transformers for every offset in ±2**20 over a grid of settings and in ±2**24
over random settings, and prints the count of disagreements (expected: 0).
"""

from __future__ import annotations

import json
import platform
import re
import sys
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers.models.t5.modeling_t5 import T5Attention

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "core" / "data" / "t5_buckets_golden.json"
OFFSETS = list(range(-300, 301))


def reference_buckets(offsets, *, bidirectional: bool, num_buckets: int, max_distance: int):
    """Buckets from transformers' function, as a numpy int64 array."""
    tensor = torch.as_tensor(np.asarray(offsets, dtype=np.int64))
    buckets = T5Attention._relative_position_bucket(
        tensor, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    return buckets.numpy().astype(np.int64)


def reference_last_bucket_start(*, bidirectional: bool, num_buckets: int, max_distance: int):
    """First distance (into the past) whose bucket is the direction's last one."""
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    distances = np.arange(0, max_distance + 1)
    buckets = reference_buckets(
        -distances, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    first = int(distances[np.argmax(buckets == per_direction - 1)])
    assert buckets[first] == per_direction - 1
    return first


def far_offsets() -> list[int]:
    values = {0}
    for power in range(25):
        for delta in (-1, 0, 1):
            magnitude = 2**power + delta
            if 0 < magnitude <= 2**24:
                values.update((magnitude, -magnitude))
    return sorted(values)


def check_against_core() -> int:
    """Compare the NumPy port with transformers on wide ranges; return disagreements."""
    sys.path.insert(0, str(ROOT))
    from positional_core.relative import t5_relative_bucket

    disagreements = 0
    settings = [
        (num_buckets, max_distance, bidirectional)
        for num_buckets in (2, 4, 6, 8, 16, 32, 64, 128, 256)
        for max_distance in (5, 20, 64, 128, 1000, 4096, 2**20)
        for bidirectional in (True, False)
    ]
    rng = np.random.default_rng(0)
    for _ in range(20):
        bidirectional = bool(rng.integers(2))
        num_buckets = int(rng.integers(2, 300)) * 2
        max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
        settings.append(
            (num_buckets, int(rng.integers(max_exact + 1, 2000 * max_exact)), bidirectional)
        )
    wide = np.arange(-(2**20), 2**20 + 1)
    widest = np.arange(-(2**24), 2**24 + 1)
    checked = 0
    for index, (num_buckets, max_distance, bidirectional) in enumerate(settings):
        per_direction = num_buckets // 2 if bidirectional else num_buckets
        if (bidirectional and num_buckets < 4) or max_distance <= per_direction // 2:
            continue
        offsets = widest if index >= len(settings) - 20 else wide
        kwargs = dict(
            bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
        )
        bad = int(
            np.sum(reference_buckets(offsets, **kwargs) != t5_relative_bucket(offsets, **kwargs))
        )
        checked += 1
        if bad:
            print(f"  {kwargs}: {bad} offsets disagree")
        disagreements += bad
    print(f"checked {checked} settings: {disagreements} disagreements")
    return disagreements


def main() -> None:
    arguments = [argument for argument in sys.argv[1:] if not argument.startswith("--")]
    config_dir = Path(arguments[0]) if arguments else ROOT.parent / "shared" / "model_configs"
    t5_base = json.loads((config_dir / "t5-base.json").read_text())
    base_setting = (
        t5_base["relative_attention_num_buckets"],
        t5_base["relative_attention_max_distance"],
    )
    settings = [base_setting, (16, 64), (8, 20)]

    cases = []
    for num_buckets, max_distance in settings:
        for bidirectional in (True, False):
            kwargs = dict(
                bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
            )
            cases.append(
                {
                    **kwargs,
                    "buckets": reference_buckets(OFFSETS, **kwargs).tolist(),
                    "last_bucket_start": reference_last_bucket_start(**kwargs),
                }
            )
    far = far_offsets()
    far_cases = []
    for num_buckets, max_distance in (base_setting, (32, 2**20)):
        for bidirectional in (True, False):
            kwargs = dict(
                bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
            )
            far_cases.append({**kwargs, "buckets": reference_buckets(far, **kwargs).tolist()})

    golden = {
        "_about": (
            "T5 relative position buckets computed by transformers' "
            "T5Attention._relative_position_bucket (key − query offsets, int64 tensors). "
            "Written by scripts/make_golden_t5.py; do not edit by hand."
        ),
        "transformers_version": transformers.__version__,
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "t5_base_config": t5_base,
        "offsets": OFFSETS,
        "cases": cases,
        "far_offsets": far,
        "far_cases": far_cases,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    # Lists of numbers on one line keep the file small and its diffs readable.
    text = json.dumps(golden, indent=1)
    text = re.sub(
        r"\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]",
        lambda match: "[" + ", ".join(match.group(1).replace(",", " ").split()) + "]",
        text,
    )
    OUT.write_text(text + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(cases)} cases, {len(far_cases)} far cases")

    if "--check" in sys.argv[1:] and check_against_core():
        raise SystemExit(1)


if __name__ == "__main__":
    main()
