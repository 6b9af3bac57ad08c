"""What each scheme does at the target length: a verdict per scheme, from the core's numbers.

Each verdict is a function of the controls it reads, its parameters named after
them (:data:`VERDICT_CONTROLS`), cached per value: a scheme's card and the summary
table share one computation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from inspect import signature
from typing import Any, NamedTuple

from positional_core.alibi import alibi_distance_shift, alibi_slopes, alibi_weight_factors
from positional_core.attention import ORDER_PAIR, compare_order_similarity
from positional_core.extension import (
    band_excess,
    drope_frequencies,
    never_complete_turn,
    out_of_band,
    trained_max_angle,
)
from positional_core.learned import LearnedPositionTable, learned_parameter_count, missing_positions
from positional_core.relative import causal_weight, t5_new_buckets
from positional_core.rope import rope_frequencies
from positional_core.sinusoidal import sinusoidal_frequencies
from positional_core.stretch import StretchSchedule, StretchSettings, stretch_schedule

from ...numbers import difference, integer, num, readable, sci
from .columns import T5_HEADS, T5_LAST_BUCKET, T5_SETTINGS, SchemeColumn

__all__ = [
    "VERDICT_CONTROLS",
    "OrderCheck",
    "Verdict",
    "drope_counts",
    "no_positions",
    "order_check",
    "rope_schedule",
    "t5_verdict",
    "verdict",
]

#: Values kept per cached function: recent settings of the open sessions (pure
#: results of the settings, the same for every session).
_CACHE = 64


@dataclass(frozen=True)
class Verdict:
    """What a scheme does at the target length, from the core's numbers.

    ``kind`` is ``"breaks"`` (the model cannot run), ``"unseen"`` (it runs on
    inputs it never saw in training) or ``"fine"`` (nothing new). ``headline``
    and ``short`` are plain text; ``detail`` and ``parameters`` are trusted HTML
    built from numbers.
    """

    kind: str
    headline: str
    detail: str
    short: str
    parameters: str


def verdict(p: Any, key: str) -> Verdict:
    """The verdict of scheme ``key`` for the page ``p``'s settings."""
    return _VERDICTS[key](*(getattr(p, name) for name in VERDICT_CONTROLS[key]))


@lru_cache(maxsize=_CACHE)
def rope_schedule(trained_len: int, target_len: int, d: int, base: float) -> StretchSchedule:
    """The unscaled head stretched from L to L′ (``s = L′/L``), with position
    interpolation and the NTK-aware base beside it. (The core takes every setting
    the page offers: ``s`` ≤ 2²⁰/2⁷ = 8,192 and 4 ≤ d ≤ 512.)"""
    return stretch_schedule(
        StretchSettings(
            base=float(base),
            d=d,
            trained_len=trained_len,
            target_len=target_len,
            factor=target_len / trained_len,
        )
    )


@lru_cache(maxsize=_CACHE)
def rope_verdict(trained_len: int, target_len: int, d: int, base: float) -> Verdict:
    sch = rope_schedule(trained_len, target_len, d, base)
    pairs = d // 2
    none, linear, ntk = (sch.counts[method] for method in ("none", "linear", "ntk"))
    detail = (
        f"{int(sch.never.sum())} of {pairs} pairs never completed a turn in training. At L′ "
        f"with no change <b>{none} of {pairs}</b> pairs leave their band; "
        f"with position interpolation (every θ / {readable(sch.length_ratio)}): "
        f"<b>{linear}</b>; with the NTK-aware base "
        f"{integer(round(sch.ntk_base))}: <b>{ntk}</b>"
    )
    if ntk:
        detail += " (it slows the slowest pair by exactly the factor, the others by less)"
    return Verdict(
        "unseen" if none else "fine",
        f"{none} of {pairs} pairs leave their band" if none else "Every pair stays in its band",
        detail + ".",
        f"{none} of {pairs} pairs out of band; {linear} after interpolation, {ntk} with NTK",
        "0 (a fixed rotation)",
    )


@lru_cache(maxsize=_CACHE)
def learned_verdict(trained_len: int, target_len: int, d: int) -> Verdict:
    missing, last = missing_positions(trained_len, target_len), target_len - 1
    parameters = f"L × d = {trained_len:,} × {d} = {learned_parameter_count(trained_len, d):,}"
    if missing == 0:
        detail = f"L′ = L: rows 0 … {trained_len - 1:,} cover every position."
        short = "every position has a row"
        return Verdict("fine", "Every position has a row", detail, short, parameters)
    has_row = LearnedPositionTable(trained_len, d).has_row(last)  # never builds the table
    detail = (
        f"Rows 0 … {trained_len - 1:,} exist; positions {trained_len:,} … {last:,} have "
        f"<b>no row</b> ({missing:,} positions). Position {last:,} has a row: "
        f"<b>{'yes' if has_row else 'no'}</b>. The model cannot be run "
        "at L′ unless the table is extended and trained."
    )
    short = f"breaks: no row for {missing:,} positions"
    return Verdict("breaks", f"No row for {missing:,} positions", detail, short, parameters)


@lru_cache(maxsize=_CACHE)
def sinusoidal_verdict(trained_len: int, target_len: int, d: int, base: float) -> Verdict:
    pairs, omega = d // 2, sinusoidal_frequencies(d, base)
    never = int(never_complete_turn(omega, trained_len).sum())
    unseen = int(out_of_band(omega, trained_len, target_len).sum())
    seen = float(trained_max_angle(omega, trained_len)[-1])
    reached = float(trained_max_angle(omega, target_len)[-1])
    excess = float(band_excess(omega, trained_len, target_len)[-1])
    detail = (
        "Codes exist for every position: nothing is missing. "
        f"{never} of {pairs} pairs never completed a turn in training. "
        f"The slowest turns to <b>{readable(reached, 3)} rad</b> at L′ against "
        f"{readable(seen, 3)} rad in training ({readable(excess, 3)}× its range)"
    )
    if unseen:
        kind, headline = "unseen", f"Defined, but {unseen} of {pairs} pairs unseen"
        short = f"runs, but {unseen} of {pairs} pairs reach unseen angles"
        detail += (
            f": <b>{unseen} of {pairs}</b> pairs show angles, so codes, the model never trained on."
        )
    else:
        kind, headline, short = "fine", "Every angle already seen", "nothing unseen"
        detail += ": every pair stays within angles seen in training."
    return Verdict(kind, headline, detail, short, "0 (a fixed formula)")


@lru_cache(maxsize=_CACHE)
def alibi_verdict(trained_len: int, target_len: int, heads: int) -> Verdict:
    slopes = alibi_slopes(heads)
    steep, shallow = float(slopes.max()), float(slopes.min())
    worst = float(alibi_distance_shift([steep, shallow], trained_len, target_len).max())
    edge = float(alibi_weight_factors([shallow], [trained_len])[0, 0])
    detail = (
        "At every distance seen in training the bias at L′ is the same as at L "
        f"(steepest and shallowest of the {heads} heads: max |Δ| = <b>{difference(worst)}</b>)."
    )
    if target_len > trained_len:
        detail += (
            f" Distances {trained_len:,} … {target_len - 1:,} are new, but only continue the "
            f"line −m·Δ: even the shallowest head (m = {num(shallow)}) scales them by at most "
            f"e<sup>−m·L</sup> = {sci(edge)}."
        )
    return Verdict(
        "fine",
        "Nothing new at any trained distance",
        detail,
        "same bias at every trained distance; only longer distances are new",
        "0 (fixed slopes)",
    )


@lru_cache(maxsize=_CACHE)
def t5_verdict(trained_len: int, target_len: int) -> Verdict:
    """The T5 column's verdict: T5-base's encoder trained at L, run at L′.

    A function of the two lengths only (the page offers L ≥ 128, where nothing
    is ever new; shorter L show the other case).
    """
    new = t5_new_buckets(trained_len, target_len, **T5_SETTINGS)
    start, listed = T5_LAST_BUCKET, ", ".join(str(int(b)) for b in new)
    buckets, max_distance = T5_SETTINGS["num_buckets"], T5_SETTINGS["max_distance"]
    parameters = (
        f"num_buckets × H = {buckets} × {T5_HEADS} = {buckets * T5_HEADS:,} "
        "(T5-base, per stack: shared by its layers)"
    )
    model = f"T5-base ({buckets} buckets, max distance {max_distance}, bidirectional)"
    if new.size:
        detail = (
            f"{model}: trained on L = {trained_len:,} tokens, distances reach only "
            f"{trained_len - 1:,}; at L′ = {target_len:,} offsets fall in buckets "
            f"<b>{listed}</b>, whose biases were never trained. From "
            f"distance {start} on every distance shares one bucket, so a model trained "
            f"on more than {start} tokens meets no new bucket."
        )
        short = f"runs, but {new.size} buckets ({listed}) never trained"
        return Verdict("unseen", f"{new.size} new buckets past L", detail, short, parameters)
    detail = (
        f"{model}: every offset up to L′ = {target_len:,} falls in a bucket already "
        f"reached at L = {trained_len:,}: <b>no new bucket</b>."
    )
    if target_len > trained_len > start:
        detail += (
            f" Distances ≥ {start} share one bias (the last bucket of each direction): the "
            f"new distances {trained_len:,} … {target_len - 1:,} reuse the bias trained on "
            f"distances {start} … {trained_len - 1:,}."
        )
    short = f"no new bucket; distances ≥ {start} share one bias"
    return Verdict("fine", "No new bucket past L", detail, short, parameters)


@lru_cache(maxsize=_CACHE)
def drope_counts(trained_len: int, target_len: int, d: int, base: float) -> tuple[int, int]:
    """Pairs out of band at L′ with the head's rotations, and after DroPE (always 0)."""
    theta = rope_frequencies(d, float(base))
    dropped = drope_frequencies(theta)
    return (
        int(out_of_band(theta, trained_len, target_len).sum()),
        int(out_of_band(theta, trained_len, target_len, dropped).sum()),
    )


@lru_cache(maxsize=_CACHE)
def drope_verdict(trained_len: int, target_len: int, d: int, base: float) -> Verdict:
    """DroPE (arXiv 2512.12167): the RoPE head of C3 with its rotations removed."""
    before, after = drope_counts(trained_len, target_len, d, base)
    pairs = d // 2
    at_l, at_target = (float(w) for w in causal_weight([trained_len - 1, target_len - 1]))
    # Short: in the lesson it sits under the figure on one projected screen (the
    # paper is cited in the card's caption and the lesson's text).
    detail = (
        f"With its rotations <b>{before} of {pairs}</b> pairs leave their band at L′; after "
        f"DroPE <b>{after}</b>: no pair turns. Position comes only from the causal mask, "
        f"1/(i + 1) on each key: {sci(at_l)} at L − 1"
    )
    if target_len > trained_len:
        detail += f", {sci(at_target)} at L′ − 1, thinner than any row in training."
    else:
        detail += " (L′ = L: no longer row)."
    return Verdict(
        "fine",
        "No rotation, so no pair leaves its band",
        detail,
        f"0 of {pairs} pairs out of band (no rotations); only 1/(i + 1) from the causal "
        "mask goes on",
        "0 (RoPE removed; a short recalibration at L)",
    )


_VERDICTS = {
    "learned": learned_verdict,
    "sinusoidal": sinusoidal_verdict,
    "rope": rope_verdict,
    "alibi": alibi_verdict,
    "t5": t5_verdict,
    "drope": drope_verdict,
}
#: The controls each scheme's verdict reads: its function's parameters, in order.
VERDICT_CONTROLS: dict[str, tuple[str, ...]] = {
    key: tuple(signature(make).parameters) for key, make in _VERDICTS.items()
}


class OrderCheck(NamedTuple):
    """Cosine similarity of the outputs for :data:`ORDER_PAIR`: with the scheme (and
    its own mask), with the same mask and no positions, and ALiBi's symmetric form
    (NaN for the other schemes)."""

    own: float
    without: float
    symmetric: float


@lru_cache(maxsize=16)
def order_check(column: SchemeColumn) -> OrderCheck:
    """The order check of ``column``'s scheme (fixed sentences: computed once)."""
    a, b = ORDER_PAIR
    causal = column.order_causal
    symmetric = float("nan")
    if column.order_scheme == "alibi":
        symmetric = compare_order_similarity(a, b, "alibi", False)
    return OrderCheck(
        compare_order_similarity(a, b, column.order_scheme, causal),
        compare_order_similarity(a, b, "none", causal),
        symmetric,
    )


@lru_cache(maxsize=1)
def no_positions() -> float:
    """The similarity with no position information and no mask."""
    return compare_order_similarity(*ORDER_PAIR, "none", False)
