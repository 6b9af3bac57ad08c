"""A RoPE model stretched past its trained length: what each scaling method does to every pair.

One setting of the Context extension page (and of Compare's RoPE card) is a
:class:`StretchSettings`: the head (``d``, ``base``), the trained length
``L``, the target length ``L′``, the stretch factor ``s`` and the knobs of the
Hugging Face ``rope_scaling`` methods. :func:`stretch_schedule` turns it into
a :class:`StretchSchedule`: per-pair speeds before and after the method, the
band helpers of :mod:`positional_core.extension` applied to them, and what
each method adds (YaRN's ramp, Llama 3's bands, LongRoPE's two lists, dynamic
NTK's speeds as the served length grows). :func:`angle_lines` gives the angle
of every pair against the position for each method, with a few points per
line: every method turns a pair at a constant speed for one served length.

The settings map onto Hugging Face keys as the page shows them: ``L`` is
``original_max_position_embeddings`` (``max_position_embeddings`` for the
methods without that key), ``L′`` is ``max_position_embeddings`` and ``s`` is
``factor``. The knobs ``mscale``, ``mscale_all_dim`` and ``attention_factor``
use 0 for "not set", as transformers tests their truthiness.

Examples
--------
>>> sch = stretch_schedule(StretchSettings(method="linear", d=128, trained_len=4096,
...                                        target_len=16384, factor=4.0))
>>> sch.counts
{'none': 18, 'method': 0, 'linear': 0, 'ntk': 17}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._validation import (
    MAX_DIM,
    MAX_POSITION,
    check_base,
    check_choice,
    check_count,
    check_even_dim,
    check_real,
)
from .extension import (
    band_excess,
    never_complete_turn,
    ntk_scaled_base,
    out_of_band,
    trained_max_angle,
    trained_turns,
)
from .rope import wavelengths
from .rope_scaling import (
    MAX_FACTOR,
    ROPE_SCALING_METHODS,
    compute_rope_parameters,
    dynamic_ntk_base,
    llama3_bands,
    yarn_correction_range,
    yarn_ramp,
)

__all__ = [
    "DYNAMIC_SAMPLES",
    "STATUS",
    "AngleLine",
    "StretchSchedule",
    "StretchSettings",
    "angle_lines",
    "out_of_band_counts",
    "reference_frequencies",
    "stretch_schedule",
]

#: Served lengths from ``L`` to ``L′`` at which dynamic NTK's speeds are sampled.
DYNAMIC_SAMPLES = 40
#: A pair's status at the target length (:attr:`StretchSchedule.status` holds indices):
#: it completes a turn within ``L``; it never does but stays in its band at
#: ``L′``; it meets angles never seen in training at ``L′``.
STATUS = ("turns", "in band", "unseen")
#: The methods whose speeds depend on the served length.
_SERVED = ("dynamic", "longrope")
_KNOB_HIGH = 1_000.0


def _factors(name: str, value: object) -> tuple[float, ...] | None:
    if value is None:
        return None
    numbers = tuple(float(v) for v in np.asarray(value, dtype=float).ravel())
    if not 1 <= len(numbers) <= MAX_DIM // 2:
        raise ValueError(f"{name} must hold 1 to {MAX_DIM // 2} factors, got {len(numbers)}")
    return numbers


@dataclass(frozen=True)
class StretchSettings:
    """One setting of a stretched RoPE head (see the module docstring).

    Parameters
    ----------
    method : str
        A key of :data:`~positional_core.rope_scaling.ROPE_SCALING_METHODS`.
    base : float
        ``rope_theta``, ``> 1``.
    d : int
        Rotary dimensions, even, ``4 ≤ d ≤ MAX_DIM``.
    trained_len, target_len : int
        ``L`` and ``L′``, ``1 ≤ L ≤ L′ ≤ MAX_POSITION``.
    factor : float
        The stretch ``s``, ``1 ≤ s ≤ MAX_FACTOR`` (usually ``L′/L``).
    served_len : int, optional
        Tokens served ``S`` (dynamic NTK and LongRoPE read it); default ``L′``.
    beta_fast, beta_slow, mscale, mscale_all_dim, truncate : YaRN's knobs.
    attention_factor : float
        YaRN's and LongRoPE's override (0: from the formula).
    low_freq_factor, high_freq_factor : float
        Llama 3's band limits.
    short_factor, long_factor : sequence of float, optional
        LongRoPE's per-pair factors, ``d/2`` each (required for ``"longrope"``).
    """

    method: str = "default"
    base: float = 10_000.0
    d: int = 128
    trained_len: int = 4096
    target_len: int = 16_384
    factor: float = 4.0
    served_len: int | None = None
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    mscale: float = 0.0
    mscale_all_dim: float = 0.0
    truncate: bool = True
    attention_factor: float = 0.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    short_factor: Sequence[float] | None = None
    long_factor: Sequence[float] | None = None

    def __post_init__(self) -> None:
        check_choice("method", self.method, tuple(ROPE_SCALING_METHODS))
        check_base("base", self.base)
        d = check_even_dim("d", self.d)
        if d < 4:
            raise ValueError(f"d must be at least 4 (the NTK exponent d/(d−2)), got {d}")
        trained = check_count("trained_len", self.trained_len)
        check_count("target_len", self.target_len, low=trained, high=MAX_POSITION)
        check_real("factor", self.factor, low=1.0, high=MAX_FACTOR)
        if self.served_len is None:
            object.__setattr__(self, "served_len", int(self.target_len))
        check_count("served_len", self.served_len)
        for name in ("beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor"):
            check_real(name, getattr(self, name), low=0.0, high=_KNOB_HIGH, low_open=True)
        for name in ("mscale", "mscale_all_dim", "attention_factor"):
            check_real(name, getattr(self, name), low=0.0, high=_KNOB_HIGH)
        if not isinstance(self.truncate, bool | np.bool_):
            raise ValueError(f"truncate must be true or false, got {self.truncate!r}")
        for name in ("short_factor", "long_factor"):
            object.__setattr__(self, name, _factors(name, getattr(self, name)))
        if self.method == "longrope" and (self.short_factor is None or self.long_factor is None):
            raise ValueError("longrope needs short_factor and long_factor (d/2 numbers each)")

    @property
    def n_pairs(self) -> int:
        return self.d // 2

    def hf_parameters(self, method: str | None = None) -> tuple[int, dict[str, Any]]:
        """``(max_position_embeddings, rope_scaling keys)`` of ``method`` (default: the
        settings' own) in Hugging Face terms.

        Examples
        --------
        >>> StretchSettings(method="llama3", trained_len=8192, target_len=131072,
        ...                 factor=8.0).hf_parameters()[1]["original_max_position_embeddings"]
        8192
        """
        method = self.method if method is None else method
        check_choice("method", method, tuple(ROPE_SCALING_METHODS))
        L, s = self.trained_len, self.factor
        if method in ("linear", "ntk", "dynamic"):
            return L, {"factor": s}
        if method == "yarn":
            keys: dict[str, Any] = {
                "factor": s,
                "original_max_position_embeddings": L,
                "beta_fast": self.beta_fast,
                "beta_slow": self.beta_slow,
                "truncate": bool(self.truncate),
            }
            for key in ("mscale", "mscale_all_dim", "attention_factor"):
                if getattr(self, key) > 0:
                    keys[key] = getattr(self, key)
            return self.target_len, keys
        if method == "llama3":
            return self.target_len, {
                "factor": s,
                "low_freq_factor": self.low_freq_factor,
                "high_freq_factor": self.high_freq_factor,
                "original_max_position_embeddings": L,
            }
        if method == "longrope":
            if self.short_factor is None or self.long_factor is None:
                raise ValueError("longrope needs short_factor and long_factor (d/2 numbers each)")
            keys = {
                "factor": s,
                "original_max_position_embeddings": L,
                "short_factor": list(self.short_factor),
                "long_factor": list(self.long_factor),
            }
            if self.attention_factor > 0:
                keys["attention_factor"] = self.attention_factor
            return self.target_len, keys
        return L, {}

    def rope_parameters(
        self, method: str | None = None, *, seq_len: int | None = None
    ) -> tuple[np.ndarray, float]:
        """``(inv_freq (d/2,), attention_factor)`` of ``method`` from the registry.

        ``seq_len`` (default: ``served_len``) matters for dynamic NTK and LongRoPE only.

        Examples
        --------
        >>> inv_freq, attention = StretchSettings(d=4).rope_parameters("linear")
        >>> inv_freq.tolist(), attention
        ([0.25, 0.0025], 1.0)
        """
        method = self.method if method is None else method
        max_pos, keys = self.hf_parameters(method)
        served = (self.served_len if seq_len is None else seq_len) if method in _SERVED else None
        return compute_rope_parameters(
            method, self.base, self.d, max_position_embeddings=max_pos, seq_len=served, **keys
        )


def reference_frequencies(base: float, d: int, factor: float) -> dict[str, np.ndarray]:
    """The speeds every stretch is compared with: no scaling, interpolation, NTK-aware.

    Parameters
    ----------
    base : float
        ``rope_theta``, ``> 1``.
    d : int
        Rotary dimensions, even, ``4 ≤ d ≤ MAX_DIM``.
    factor : float
        The stretch ``s``, ``1 ≤ s ≤ MAX_FACTOR``.

    Returns
    -------
    dict
        ``{"default": θ, "linear": θ/s, "ntk": θ with base b·s^(d/(d−2))}``, shape (d/2,) each.

    Examples
    --------
    >>> speeds = reference_frequencies(10_000.0, 128, 8.0)
    >>> float(speeds["default"][-1] / speeds["ntk"][-1]), float(speeds["ntk"][0])
    (8.0, 1.0)
    """
    speed = compute_rope_parameters
    return {
        "default": speed("default", base, d, max_position_embeddings=1)[0],
        "linear": speed("linear", base, d, max_position_embeddings=1, factor=factor)[0],
        "ntk": speed("ntk", base, d, max_position_embeddings=1, factor=factor)[0],
    }


def out_of_band_counts(
    inv_freq: object, trained_len: int, target_len: int, scaled: Mapping[str, object]
) -> dict[str, int]:
    """How many pairs meet angles never seen in training at ``L′``, per set of speeds.

    Parameters
    ----------
    inv_freq : array_like, shape (d/2,)
        The trained speeds ``θ``.
    trained_len, target_len : int
        ``L`` and ``L′``.
    scaled : mapping of str to array_like, shape (d/2,)
        Speeds after each method, by name.

    Returns
    -------
    dict of str to int
        ``{"none": count without scaling, name: count, ...}``.

    Examples
    --------
    >>> speeds = reference_frequencies(10_000.0, 128, 4.0)
    >>> out_of_band_counts(speeds["default"], 4096, 16384, speeds)
    {'none': 18, 'default': 18, 'linear': 0, 'ntk': 17}
    """
    counts = {"none": int(out_of_band(inv_freq, trained_len, target_len).sum())}
    for name, speeds in scaled.items():
        counts[name] = int(out_of_band(inv_freq, trained_len, target_len, speeds).sum())
    return counts


@dataclass(frozen=True)
class StretchSchedule:
    """What one :class:`StretchSettings` does to every pair (arrays of shape ``(d/2,)``).

    ``theta`` are the trained speeds, ``scaled`` the method's, ``interpolated``
    and ``ntk`` the two reference methods'. ``trained_edge`` is ``θL`` (the
    band), ``target_edge_raw`` ``θL′`` and ``target_edge`` ``θ′L′``;
    ``excess`` is ``θ′L′/(θL)``; ``status`` indexes :data:`STATUS`.
    The method-specific fields are None for the other methods.
    """

    settings: StretchSettings
    theta: np.ndarray
    scaled: np.ndarray
    attention_factor: float
    interpolated: np.ndarray
    ntk: np.ndarray
    wavelength: np.ndarray
    scaled_wavelength: np.ndarray
    trained_edge: np.ndarray
    trained_turns: np.ndarray
    target_edge_raw: np.ndarray
    target_edge: np.ndarray
    excess: np.ndarray
    never: np.ndarray
    out_of_band_raw: np.ndarray
    out_of_band: np.ndarray
    counts: dict[str, int]
    status: np.ndarray
    slowdown: np.ndarray
    slowdown_linear: np.ndarray
    slowdown_ntk: np.ndarray
    moved: np.ndarray
    ntk_base: float
    dynamic_base: float
    yarn_range: tuple[float, float] | None = None
    ramp: np.ndarray | None = None
    bands: np.ndarray | None = None
    longrope_short: np.ndarray | None = None
    longrope_long: np.ndarray | None = None
    dynamic_lengths: np.ndarray | None = None
    dynamic_theta: np.ndarray | None = field(default=None, repr=False)

    @property
    def method(self) -> str:
        return self.settings.method

    @property
    def n_pairs(self) -> int:
        return self.settings.n_pairs

    @property
    def length_ratio(self) -> float:
        """``L′/L``."""
        return self.settings.target_len / self.settings.trained_len

    @property
    def factor_is_ratio(self) -> bool:
        """Whether ``s = L′/L`` up to the rounding of ``L′`` to a whole number of tokens."""
        L = self.settings.trained_len
        return abs(self.length_ratio - self.settings.factor) <= 0.5 / L

    @property
    def slowest_slowdown(self) -> float:
        """How many times slower the slowest pair turns after the method: ``θ/θ′``."""
        return float(self.slowdown[-1])

    @property
    def band_counts(self) -> dict[str, int] | None:
        """Llama 3: pairs per band (``high`` unchanged, ``medium`` blended, ``low`` ÷ s)."""
        if self.bands is None:
            return None
        return {name: int((self.bands == name).sum()) for name in ("high", "medium", "low")}

    @property
    def band_limits(self) -> tuple[float, float]:
        """Llama 3's wavelength limits ``(L/high_freq_factor, L/low_freq_factor)``."""
        s = self.settings
        return s.trained_len / s.high_freq_factor, s.trained_len / s.low_freq_factor

    @property
    def longrope_list(self) -> str:
        """The LongRoPE list in use at the served length: ``"long"`` past ``L``."""
        return "long" if self.settings.served_len > self.settings.trained_len else "short"

    def pair_table(self) -> dict[str, np.ndarray]:
        """The per-pair numbers, by column name (E1's table and its CSV)."""
        return {
            "pair": np.arange(self.n_pairs),
            "theta": self.theta,
            "wavelength": self.wavelength,
            "trained_max_angle": self.trained_edge,
            "target_max_angle_unscaled": self.target_edge_raw,
            "scaled_theta": self.scaled,
            "scaled_wavelength": self.scaled_wavelength,
            "target_max_angle": self.target_edge,
            "never_completes_turn": self.never,
            "out_of_band_unscaled": self.out_of_band_raw,
            "out_of_band": self.out_of_band,
        }


def _method_extras(s: StretchSettings) -> dict[str, Any]:
    """YaRN's ramp, Llama 3's bands, LongRoPE's two lists, dynamic NTK's sampled speeds."""
    L, T = s.trained_len, s.target_len
    if s.method == "yarn":
        low, high = yarn_correction_range(
            s.base,
            s.d,
            original_max_position_embeddings=L,
            beta_fast=s.beta_fast,
            beta_slow=s.beta_slow,
            truncate=bool(s.truncate),
        )
        return {"yarn_range": (low, high), "ramp": yarn_ramp(low, high, s.n_pairs)}
    if s.method == "llama3":
        bands = llama3_bands(
            s.base,
            s.d,
            factor=s.factor,
            low_freq_factor=s.low_freq_factor,
            high_freq_factor=s.high_freq_factor,
            original_max_position_embeddings=L,
        )
        return {"bands": bands}
    if s.method == "longrope":
        # The short list serves up to L tokens, the long one past it.
        return {
            "longrope_short": s.rope_parameters(seq_len=L)[0],
            "longrope_long": s.rope_parameters(seq_len=L + 1)[0],
        }
    if s.method == "dynamic":
        lengths = np.unique(np.round(np.geomspace(L, T, DYNAMIC_SAMPLES)).astype(np.int64))
        theta = np.stack([s.rope_parameters(seq_len=int(n))[0] for n in lengths])
        return {"dynamic_lengths": lengths, "dynamic_theta": theta}
    return {}


def stretch_schedule(settings: StretchSettings) -> StretchSchedule:
    """Everything :class:`StretchSchedule` holds for ``settings``.

    Raises
    ------
    ValueError
        :class:`~positional_core.rope_scaling.RopeScalingError` when the method
        refuses a knob (``beta_slow > beta_fast``, Llama 3's factors reversed),
        naming it.

    Examples
    --------
    >>> sch = stretch_schedule(StretchSettings(method="ntk", target_len=8 * 4096, factor=8.0))
    >>> round(sch.ntk_base), sch.slowest_slowdown, sch.counts["method"]
    (82685, 8.0, 17)
    """
    s = settings
    L, T = s.trained_len, s.target_len
    reference = reference_frequencies(s.base, s.d, s.factor)
    theta, interpolated, ntk = reference["default"], reference["linear"], reference["ntk"]
    scaled, attention = s.rope_parameters()
    extras = _method_extras(s)
    never = never_complete_turn(theta, L)
    unseen = out_of_band(theta, L, T, scaled)
    counts = out_of_band_counts(theta, L, T, {"method": scaled, "linear": interpolated, "ntk": ntk})
    return StretchSchedule(
        settings=s,
        theta=theta,
        scaled=scaled,
        attention_factor=float(attention),
        interpolated=interpolated,
        ntk=ntk,
        wavelength=wavelengths(theta),
        scaled_wavelength=wavelengths(scaled),
        trained_edge=trained_max_angle(theta, L),
        trained_turns=trained_turns(theta, L),
        target_edge_raw=trained_max_angle(theta, T),
        target_edge=trained_max_angle(scaled, T),
        excess=band_excess(theta, L, T, scaled),
        never=never,
        out_of_band_raw=out_of_band(theta, L, T),
        out_of_band=unseen,
        counts=counts,
        status=np.where(unseen, 2, np.where(never, 1, 0)),
        slowdown=theta / scaled,
        slowdown_linear=theta / interpolated,
        slowdown_ntk=theta / ntk,
        moved=~np.isclose(scaled, theta, rtol=1e-12, atol=0),
        ntk_base=ntk_scaled_base(s.base, s.factor, s.d),
        dynamic_base=dynamic_ntk_base(
            s.base, s.d, factor=s.factor, max_position_embeddings=L, seq_len=s.served_len
        ),
        **extras,
    )


@dataclass(frozen=True)
class AngleLine:
    """One method's angle against the position, for every pair.

    ``positions`` (k,) are shared by every pair; ``angles`` (d/2, k) holds each
    pair's angle there; ``excess`` (d/2,) is the last angle over the trained
    edge ``θL`` (1: the line ends on the band's edge).
    """

    positions: np.ndarray
    angles: np.ndarray
    excess: np.ndarray


def angle_lines(schedule: StretchSchedule) -> dict[str, AngleLine]:
    """Each method's angle ``φ_i(p)`` from position 0 to ``L′``: ``default``, ``linear``,
    ``ntk`` and the schedule's own method.

    Every method turns a pair at a fixed speed for one served length, so its
    angle is linear in the position: two points. Dynamic NTK's speed grows with
    the served length ``S`` (the last of ``S`` tokens is at ``θ′_i(S)·S``): one
    point per sampled length. LongRoPE serves with its short list up to ``L``
    and its long list past it: the line jumps at ``L``.

    Examples
    --------
    >>> lines = angle_lines(stretch_schedule(StretchSettings()))
    >>> lines["default"].positions.tolist(), round(float(lines["default"].angles[-1, -1]), 2)
    ([0.0, 16384.0], 1.89)
    >>> float(lines["linear"].excess[-1])
    1.0
    """
    s = schedule.settings
    L, T = float(s.trained_len), float(s.target_len)
    ends = np.array([0.0, T])

    def line(positions: np.ndarray, angles: np.ndarray) -> AngleLine:
        return AngleLine(positions, angles, angles[:, -1] / schedule.trained_edge)

    lines = {
        "default": line(ends, np.outer(schedule.theta, ends)),
        "linear": line(ends, np.outer(schedule.interpolated, ends)),
        "ntk": line(ends, np.outer(schedule.ntk, ends)),
    }
    method = s.method
    if method == "dynamic" and schedule.dynamic_theta is not None:
        lengths = schedule.dynamic_lengths.astype(np.float64)
        angles = schedule.dynamic_theta.T * lengths
        zero = np.zeros((schedule.n_pairs, 1))
        lines[method] = line(np.concatenate([[0.0], lengths]), np.hstack([zero, angles]))
    elif method == "longrope" and schedule.longrope_short is not None:
        short, long = schedule.longrope_short[:, None], schedule.longrope_long[:, None]
        if T > L:
            positions = np.array([0.0, L, L, T])
            angles = np.hstack([0 * short, short * L, long * L, long * T])
        else:
            positions, angles = ends, short * ends
        lines[method] = line(positions, angles)
    elif method not in lines:
        lines[method] = line(ends, np.outer(schedule.scaled, ends))
    return lines
