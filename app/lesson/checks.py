"""The lesson's quick checks: the core decides which choice is right, and says why.

Each grader takes the step's choices (the text of ``steps.toml``) and returns
a :class:`Grade`: the index of the right choice and an explanation with the
core's own numbers. A grader never trusts the choices' text to be right: a
number is matched to the nearest choice, a category is computed; the tests
check that every question has exactly one right choice, as the core sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from positional_core import (
    LearnedPositionTable,
    PositionOutOfRangeError,
    absolute_score_terms,
    alibi_bias,
    alibi_bias_row,
    apply_rope,
    drope_frequencies,
    grid_positions,
    order_similarity,
    out_of_band,
    patch_scores,
    rope_frequencies,
    rope_score_terms,
    seeded_head,
    shift_changes,
    sinusoidal_code,
    sinusoidal_encoding,
    softmax,
    t5_relative_bucket,
)
from positional_core.rope import random_query_key

from ..look import escape_text
from ..numbers import fixed

__all__ = ["GRADERS", "Grade"]


class Grade(NamedTuple):
    """Which choice is right (its index) and why (the app's HTML, with the core's numbers)."""

    correct: int
    why: str


def _number(choice: str) -> float:
    return float(choice.replace("−", "-").replace(",", ""))


def _nearest(choices: Sequence[str], value: float) -> int:
    return int(np.argmin([abs(_number(c) - value) for c in choices]))


def _nearest_count(choices: Sequence[str], count: int) -> int:
    """The choice nearest ``count`` among "None", "18", "All 64" and the like."""
    numbers = [0.0 if c == "None" else _number(c.split()[-1]) for c in choices]
    return int(np.argmin([abs(v - count) for v in numbers]))


def _spread(values: Sequence[float]) -> float:
    return float(np.max(values) - np.min(values))


def order_blind(choices: Sequence[str]) -> Grade:
    a, b = "dog bites man", "man bites dog"
    none = order_similarity(a, b, "none")
    rope = order_similarity(a, b, "rope")
    correct = _nearest([c.split()[-1] for c in choices], none)
    return Grade(
        correct,
        f"The core computes <b>{fixed(none, 6)}</b>: the rows are the same vectors in another "
        "order, and an average ignores order. With RoPE the two differ "
        f"({fixed(rope, 4)}): positions break the tie.",
    )


def one_circle(choices: Sequence[str]) -> Grade:
    start = sinusoidal_code(0, 2)
    dots = [float(sinusoidal_code(_number(c), 2) @ start) for c in choices]
    best = int(np.argmax(dots))
    listed = ", ".join(f"{c}: {fixed(v, 3)}" for c, v in zip(choices, dots, strict=True))
    return Grade(
        best,
        f"PE(t) · PE(0) = cos t here: {listed}. Position {choices[best]} has turned about "
        f"{_number(choices[best]) / (2 * np.pi):.1f} full turns and is almost back at the start: "
        "one circle repeats, so a code needs more hands.",
    )


def fast_pairs(choices: Sequence[str]) -> Grade:
    d = 64
    change = np.abs(np.diff(sinusoidal_encoding(64, d), axis=0)).mean(axis=0)
    thirds = [
        change[: d // 3].mean(),
        change[d // 3 : 2 * d // 3].mean(),
        change[2 * d // 3 :].mean(),
    ]
    correct = int(np.argmax(thirds))
    return Grade(
        correct,
        f"Average change per step at d = {d}: columns 0–1 {fixed(change[:2].mean(), 3)}, "
        f"columns {d - 2}–{d - 1} {fixed(change[-2:].mean(), 6)}. The first pairs turn one "
        "radian per position; the last barely move.",
    )


def offset_only(choices: Sequence[str]) -> Grade:
    d, k = 64, 5
    same_k = [float(sinusoidal_code(t, d) @ sinusoidal_code(t + k, d)) for t in (0, 10, 100, 1000)]
    same_t = [float(sinusoidal_code(10, d) @ sinusoidal_code(10 + j, d)) for j in (1, 5, 20)]
    on_t, on_k = _spread(same_k) > 1e-9, _spread(same_t) > 1e-9
    correct = {(True, False): 0, (False, True): 1, (True, True): 2}.get((on_k, on_t), 2)
    return Grade(
        correct,
        f"At k = {k} and d = {d}, t = 0, 10, 100, 1,000 all give {fixed(same_k[0], 6)} (the "
        f"largest difference is {_spread(same_k):.1e}); at t = 10, k = 1, 5, 20 give "
        + ", ".join(fixed(v, 3) for v in same_t)
        + ". Each term is cos(ω·k): the sum knows only the offset.",
    )


def learned_end(choices: Sequence[str]) -> Grade:
    table = LearnedPositionTable(512, 64)
    try:
        table.lookup(600)
    except PositionOutOfRangeError as error:
        return Grade(
            0,
            f"The core says: <em>{escape_text(str(error))}</em>. No model code can "
            "compute a row it never learned.",
        )
    return Grade(1, "The core returned a row for position 600.")


def rope_pair(choices: Sequence[str]) -> Grade:
    q, k = [1.0, 0.0], [0.0, 1.0]
    score = rope_score_terms(q, k, 1, 0, 0.5).score
    shifted = rope_score_terms(q, k, 11, 10, 0.5).score
    swapped = rope_score_terms(q, k, 0, 1, 0.5).score
    return Grade(
        _nearest(choices, score),
        f"The query turns to angle 0.5, the key stays at 90°: the score is "
        f"cos(90° − 0.5) = sin 0.5 = <b>{fixed(score, 3)}</b>. At m = 11, n = 10 it is "
        f"{fixed(shifted, 3)} (only n − m counts); swap them (m = 0, n = 1) and the sine term "
        f"flips: {fixed(swapped, 3)}.",
    )


def rope_distance(choices: Sequence[str]) -> Grade:
    q, k = random_query_key(64, 0)
    scores = [float(apply_rope(q, m) @ apply_rope(k, m + 10)) for m in (0, 100, 1000)]
    spread = _spread(scores)
    trend = scores[-1] - scores[0]
    correct = 0 if spread < 1e-9 else (1 if trend < 0 else 2)
    return Grade(
        correct,
        "With the page's seeded q and k (d = 64): "
        + ", ".join(fixed(s, 6) for s in scores)
        + f"; they differ by {spread:.1e}, the rounding of floating point.",
    )


def band_count(choices: Sequence[str]) -> Grade:
    count = int(out_of_band(rope_frequencies(128), 4096, 16384).sum())
    return Grade(
        _nearest_count(choices, count),
        f"<b>{count}</b> of 64: the slowest pairs, whose wavelength is longer than 4,096 "
        "positions, never made a full turn in training; at 16,384 they reach angles they never "
        "saw. The fast "
        "pairs turned many times and are in their band at any length.",
    )


def patch_below(choices: Sequence[str]) -> Grade:
    order = {tuple(rc): i for i, rc in enumerate(grid_positions(14, 14).tolist())}
    apart = order[(6, 5)] - order[(5, 5)]
    scores = patch_scores("rope_2d", (5, 5))
    moved = patch_scores("rope_2d", (9, 2))
    same = abs(float(scores[6, 5]) - float(moved[10, 2]))
    return Grade(
        _nearest(choices, apart),
        f"<b>{apart}</b>: in reading order patch (r, c) is number 14·r + c, so the patch "
        f"below is {apart} further on, while the last patch of a row is the next one's "
        "neighbour. A 2-D code measures rows and columns apart: with 2-D RoPE the score "
        f"with the patch below is {fixed(scores[6, 5])} wherever the pair sits (from "
        f"(9, 2) it differs by {same:.1e}).",
    )


def values_shift(choices: Sequence[str]) -> Grade:
    right, wrong = shift_changes([3])
    changed = float(wrong[0]) > 1e-6
    # Two choices: one says the output stays as it was ("unchanged"), one that it changes.
    same = [i for i, c in enumerate(choices) if "unchanged" in c.lower()]
    correct = same[0] if not changed else next(i for i in range(len(choices)) if i not in same)
    return Grade(
        correct,
        f"The output moves by up to <b>{float(wrong[0]):.2f}</b> when the values are turned "
        f"too, against {float(right[0]):.0e} with RoPE on the queries and keys alone: a "
        "value's rotation depends on its absolute position, which no later layer can undo.",
    )


def drope_band(choices: Sequence[str]) -> Grade:
    theta = rope_frequencies(128)
    before = int(out_of_band(theta, 4096, 16384).sum())
    after = int(out_of_band(theta, 4096, 16384, drope_frequencies(theta)).sum())
    return Grade(
        _nearest_count(choices, after),
        f"<b>{after}</b>: with the rotations removed no pair turns, so none can leave its "
        f"band (with them, {before} of 64 do). Position then comes only from the causal "
        "mask, and its authors recalibrate the model briefly at the trained length.",
    )


def alibi_forms(choices: Sequence[str]) -> Grade:
    distance = softmax(alibi_bias(8, 16, form="distance"))
    column = softmax(alibi_bias(8, 16, form="column"))
    gap = float(np.abs(distance - column).max())
    return Grade(
        0 if gap < 1e-12 else 1,
        f"Largest difference between the two forms' weights, 8 heads × 16 positions: {gap:.1e}. "
        "On row i, slope × j is −slope × (i − j) plus slope × i, one constant for the whole row, "
        "and softmax ignores a constant added to a row.",
    )


def t5_far(choices: Sequence[str]) -> Grade:
    near, far = (int(b) for b in t5_relative_bucket([200, 1000]))
    return Grade(
        0 if near == far else 1,
        f"Offset 200 falls in bucket {near}, offset 1,000 in bucket {far}: past max distance every "
        "offset shares the last bucket, so the model cannot tell them apart.",
    )


def four_terms(choices: Sequence[str]) -> Grade:
    changing = absolute_score_terms(seeded_head(32), 16).changing()
    return Grade(
        _nearest(choices, len(changing)),
        f"{len(changing)}: {', '.join(changing)} change along a diagonal (with the same word "
        "everywhere, content·content is one number). Transformer-XL's four terms do not.",
    )


def no_code(choices: Sequence[str]) -> Grade:
    works = {
        "Learned absolute": _has_code(lambda: LearnedPositionTable(2048, 64).lookup(5000)),
        "Sinusoidal": _has_code(lambda: sinusoidal_code(5000, 64)),
        "RoPE": _has_code(lambda: apply_rope(np.ones(64), 5000)),
        "ALiBi": _has_code(lambda: alibi_bias_row(1 / 256, 5000, 5001)),
    }
    missing = [i for i, c in enumerate(choices) if not works[c]]
    return Grade(
        missing[0] if len(missing) == 1 else -1,
        "Only the learned table has no row 5,000. The others compute something at any "
        "position, but not what was trained: sinusoidal codes and RoPE turn their slow pairs to "
        "new angles, ALiBi's penalties grow past any trained distance.",
    )


def _has_code(make: Callable[[], object]) -> bool:
    try:
        make()
    except PositionOutOfRangeError:
        return False
    return True


#: The graders by the name ``steps.toml`` gives them.
GRADERS: dict[str, Callable[[Sequence[str]], Grade]] = {
    f.__name__: f
    for f in (
        order_blind,
        one_circle,
        fast_pairs,
        offset_only,
        learned_end,
        rope_pair,
        rope_distance,
        patch_below,
        values_shift,
        band_count,
        drope_band,
        alibi_forms,
        four_terms,
        t5_far,
        no_code,
    )
}
