"""RoPE scaling: the ways to stretch a RoPE model past its trained length.

Each method changes the rotation speeds ``θ_i`` (Hugging Face calls them
``inv_freq``) and may ask the attention to scale its cos/sin by an
*attention factor*. All methods share ONE signature and sit in the registry
:data:`ROPE_SCALING_METHODS`, as ``ROPE_INIT_FUNCTIONS`` does in Hugging Face
transformers::

    fn(base, dim, *, max_position_embeddings, seq_len=None, **params)
        -> (inv_freq of shape (dim/2,), attention_factor)

``base`` is ``rope_theta``, ``dim`` the number of *rotary* dimensions (already
multiplied by ``partial_rotary_factor``), ``max_position_embeddings`` the
model's maximum length, ``seq_len`` the length being served (it matters for
``dynamic`` and ``longrope`` only) and ``params`` the keys of a Hugging Face
``rope_scaling`` / ``rope_parameters`` block (``factor``,
``original_max_position_embeddings``, ``beta_fast``, ...).

The formulas are those of transformers 5.x ``src/transformers/
modeling_rope_utils.py`` (checked against transformers 5.24.0 by
``tests/core/test_rope_scaling.py`` with golden values made by
``scripts/make_golden_rope.py``). Methods:

* ``default`` — ``θ_i = base^(−2i/d)``.
* ``linear`` — position interpolation (Chen et al. 2023): ``θ_i / factor``.
* ``ntk`` — the static NTK-aware base ``base · factor^(d/(d−2))`` (not a
  transformers ``rope_type``; shown for comparison).
* ``dynamic`` — NTK-aware base recomputed for the served length.
* ``yarn`` — a ramp between unchanged fast pairs and interpolated slow pairs,
  plus an attention factor (Peng et al. 2023).
* ``longrope`` — per-pair factors, one list for short and one for long inputs
  (Phi-3).
* ``llama3`` — fast pairs unchanged, slow pairs divided by ``factor``, a
  smooth blend in between (Llama 3.1).

Numerics. transformers builds the exponents ``2i/d`` from an ``int64``
``arange`` cast to ``float32`` and evaluates every ``inv_freq`` in ``float32``
(the scalar bookkeeping — dynamic's new base, YaRN's correction range and all
attention factors — is Python ``float64``). This module computes everything in
``float64``, so it differs from transformers by float32 rounding only: at most
about ``1e-6`` relative for bases up to ``1e6`` (the largest error comes from
``base ** x`` with ``x`` rounded to float32, ``ln(base) · 2^-24``; YaRN's ramp,
also float32 there, adds up to ``2^-24 · factor``). Over the 72 golden cases
the largest relative difference is 3.4e-7 and the attention factors agree
exactly; the golden test allows ``rtol = 2e-6``.

Limits: ``dim`` even, ``2 ≤ dim ≤ MAX_DIM`` (``≥ 4`` for ``ntk`` and
``dynamic``, whose exponent is ``d/(d−2)``); lengths ``1 … MAX_POSITION``
(2**24); ``factor`` from 1 to :data:`MAX_FACTOR`. Every array made here has
``dim/2`` entries.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from numbers import Real
from types import MappingProxyType
from typing import Any

import numpy as np

from ._validation import MAX_DIM, MAX_POSITION, check_base, check_count, check_real

__all__ = [
    "MAX_FACTOR",
    "ROPE_SCALING_KEYS",
    "ROPE_SCALING_METHODS",
    "RopeScalingError",
    "compute_rope_parameters",
    "default_rope_parameters",
    "dynamic_ntk_base",
    "dynamic_rope_parameters",
    "linear_rope_parameters",
    "llama3_bands",
    "llama3_rope_parameters",
    "longrope_rope_parameters",
    "ntk_rope_parameters",
    "yarn_correction_range",
    "yarn_get_mscale",
    "yarn_ramp",
    "yarn_rope_parameters",
]

#: Largest scaling ``factor`` accepted (a 10,000× stretch of the context).
MAX_FACTOR = 10_000.0
#: Bounds on the other real-valued knobs (betas, mscale, attention factor,
#: Llama 3's band factors, LongRoPE's per-pair factors): generous, but they
#: keep every intermediate finite and every speed within a sane range.
_MIN_KNOB = 0.001
_MAX_KNOB = 1_000.0


class RopeScalingError(ValueError):
    """A RoPE scaling method got an unknown type, or a missing or bad parameter.

    ``key`` names the offending argument or ``rope_scaling`` key (``None`` when
    the problem is the method name itself).
    """

    def __init__(self, message: str, *, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


# --------------------------------------------------------------------------
# Which keys each method reads (the Hugging Face names).
# --------------------------------------------------------------------------
_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "default": ((), ()),
    "linear": (("factor",), ()),
    "ntk": (("factor",), ()),
    "dynamic": (("factor",), ()),
    "yarn": (
        (),
        (
            "factor",
            "original_max_position_embeddings",
            "beta_fast",
            "beta_slow",
            "mscale",
            "mscale_all_dim",
            "attention_factor",
            "truncate",
        ),
    ),
    "longrope": (
        ("short_factor", "long_factor"),
        ("factor", "original_max_position_embeddings", "attention_factor"),
    ),
    "llama3": (
        ("factor", "low_freq_factor", "high_freq_factor"),
        ("original_max_position_embeddings",),
    ),
}

#: ``rope_type → {"required": (...), "optional": (...)}``: the ``params`` keys
#: each method reads. Any other key is refused (a typo must not pass silently).
ROPE_SCALING_KEYS: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        name: MappingProxyType({"required": required, "optional": optional})
        for name, (required, optional) in _KEYS.items()
    }
)

_EXPECTED = {
    "factor": f"a number from 1 to {MAX_FACTOR:g}",
    "original_max_position_embeddings": f"a whole number from 1 to {MAX_POSITION}",
    "beta_fast": f"a number from {_MIN_KNOB:g} to {_MAX_KNOB:g}",
    "beta_slow": f"a number from {_MIN_KNOB:g} to {_MAX_KNOB:g}",
    "mscale": f"a number from 0 to {_MAX_KNOB:g}",
    "mscale_all_dim": f"a number from 0 to {_MAX_KNOB:g}",
    "attention_factor": f"a number from {_MIN_KNOB:g} to {_MAX_KNOB:g}",
    "truncate": "true or false",
    "low_freq_factor": f"a number from {_MIN_KNOB:g} to {_MAX_KNOB:g}",
    "high_freq_factor": f"a number from {_MIN_KNOB:g} to {_MAX_KNOB:g}",
    "short_factor": f"a list of dim/2 numbers from {_MIN_KNOB:g} to {MAX_FACTOR:g}",
    "long_factor": f"a list of dim/2 numbers from {_MIN_KNOB:g} to {MAX_FACTOR:g}",
}


def _fail(key: str | None, message: str) -> RopeScalingError:
    return RopeScalingError(message, key=key)


def _describe(value: object) -> str:
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "null"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _real(key: str, value: object, *, low: float, high: float, low_open: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, Real | np.integer | np.floating):
        raise _fail(key, f"{key} must be {_EXPECTED[key]}, got {_describe(value)}")
    number = float(value)
    if not math.isfinite(number):
        raise _fail(key, f"{key} must be a finite number, got {number}")
    too_low = number <= low if low_open else number < low
    if too_low or number > high:
        raise _fail(key, f"{key} must be {_EXPECTED[key]}, got {number:g}")
    return number


def _factor_list(key: str, value: object, n_pairs: int) -> np.ndarray:
    if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__len__"):
        raise _fail(key, f"{key} must be a list of {n_pairs} numbers, got {_describe(value)}")
    if len(value) != n_pairs:  # type: ignore[arg-type]
        raise _fail(
            key,
            f"{key} must have one entry per rotary pair: {n_pairs} numbers (dim/2), "
            f"got {len(value)}",  # type: ignore[arg-type]
        )
    numbers = []
    for index, item in enumerate(value):  # type: ignore[union-attr]
        if isinstance(item, bool) or not isinstance(item, Real | np.integer | np.floating):
            raise _fail(key, f"{key}[{index}] must be a number, got {_describe(item)}")
        number = float(item)
        if not (math.isfinite(number) and _MIN_KNOB <= number <= MAX_FACTOR):
            raise _fail(
                key, f"{key}[{index}] must be from {_MIN_KNOB:g} to {MAX_FACTOR:g}, got {number:g}"
            )
        numbers.append(number)
    return np.asarray(numbers, dtype=np.float64)


def _parse(method: str, params: Mapping[str, Any], n_pairs: int) -> dict[str, Any]:
    """Check ``params`` against the keys ``method`` reads; return them converted.

    ``None`` means "not set" for optional keys, as ``dict.get`` does in
    transformers (except ``truncate``; see :func:`yarn_rope_parameters`).
    """
    required, optional = _KEYS[method]
    accepted = required + optional
    for key in params:
        if key not in accepted:
            names = ", ".join(accepted) if accepted else "none"
            raise _fail(
                str(key),
                f"rope_type {method!r} does not take the parameter {key!r}; it accepts: {names}",
            )
    out: dict[str, Any] = {}
    for key in accepted:
        value = params.get(key)
        if value is None:
            if key in required:
                raise _fail(key, f"rope_type {method!r} needs {key!r} ({_EXPECTED[key]})")
            if key == "truncate" and "truncate" in params:
                out[key] = False  # transformers: config.get("truncate", True) -> None -> falsy
            continue
        if key == "factor":
            out[key] = _real(key, value, low=1.0, high=MAX_FACTOR, low_open=False)
        elif key == "original_max_position_embeddings":
            try:
                out[key] = check_count(key, value, low=1, high=MAX_POSITION)
            except ValueError:
                raise _fail(
                    key, f"{key} must be {_EXPECTED[key]}, got {_describe(value)}"
                ) from None
        elif key in ("mscale", "mscale_all_dim"):
            out[key] = _real(key, value, low=0.0, high=_MAX_KNOB, low_open=False)
        elif key == "truncate":
            if not isinstance(value, bool | np.bool_):
                raise _fail(key, f"truncate must be true or false, got {_describe(value)}")
            out[key] = bool(value)
        elif key in ("short_factor", "long_factor"):
            out[key] = _factor_list(key, value, n_pairs)
        else:
            out[key] = _real(key, value, low=_MIN_KNOB, high=_MAX_KNOB, low_open=False)
    return out


def _common(
    method: str,
    base: object,
    dim: object,
    max_position_embeddings: object,
    seq_len: object,
    params: Mapping[str, Any],
) -> tuple[float, int, int, int | None, dict[str, Any]]:
    try:
        base_f = check_base("base", base)
    except ValueError as error:
        raise _fail("base", f"{error} (base is rope_theta)") from None
    low_dim = 4 if method in ("ntk", "dynamic") else 2
    try:
        dim_i = check_count("dim", dim, low=low_dim, high=MAX_DIM)
    except ValueError as error:
        why = " (the NTK exponent d/(d-2) needs d >= 4)" if low_dim == 4 else ""
        raise _fail("dim", f"{error}{why}") from None
    if dim_i % 2:
        raise _fail("dim", f"dim must be even (pairs of dimensions rotate together), got {dim_i}")
    try:
        max_pos = check_count("max_position_embeddings", max_position_embeddings)
    except ValueError as error:
        raise _fail("max_position_embeddings", str(error)) from None
    try:
        served = None if seq_len is None else check_count("seq_len", seq_len)
    except ValueError as error:
        raise _fail("seq_len", str(error)) from None
    return base_f, dim_i, max_pos, served, _parse(method, params, dim_i // 2)


def _exponents(dim: int) -> np.ndarray:
    # transformers: torch.arange(0, dim, 2, dtype=torch.int64).float() / dim, in float32.
    return np.arange(0, dim, 2, dtype=np.float64) / dim


def _default_inv_freq(base: float, dim: int) -> np.ndarray:
    # θ_i = base^(−2i/d), written as transformers does: 1 / base ** (2i/d).
    return 1.0 / base ** _exponents(dim)


# --------------------------------------------------------------------------
# The methods. Docstring examples run as doctests.
# --------------------------------------------------------------------------
def default_rope_parameters(
    base: float,
    dim: int,
    *,
    max_position_embeddings: int,
    seq_len: int | None = None,
    **params: Any,
) -> tuple[np.ndarray, float]:
    """Unscaled RoPE: ``θ_i = base^(−2i/dim)``; attention factor 1.

    Parameters
    ----------
    base : float
        ``rope_theta``, ``1 < base ≤ 1e12``.
    dim : int
        Rotary dimensions, even, ``2 ≤ dim ≤ MAX_DIM``.
    max_position_embeddings : int
        Trained length (unused here; every method takes it).
    seq_len : int, optional
        Served length (unused here).
    **params
        None accepted.

    Returns
    -------
    inv_freq : ndarray, shape (dim/2,)
    attention_factor : float

    Examples
    --------
    >>> inv_freq, attention = default_rope_parameters(10000.0, 4, max_position_embeddings=2048)
    >>> inv_freq.tolist(), attention
    ([1.0, 0.01], 1.0)
    """
    base, dim, _, _, _ = _common("default", base, dim, max_position_embeddings, seq_len, params)
    return _default_inv_freq(base, dim), 1.0


def linear_rope_parameters(
    base: float,
    dim: int,
    *,
    max_position_embeddings: int,
    seq_len: int | None = None,
    **params: Any,
) -> tuple[np.ndarray, float]:
    """Position interpolation: every ``θ_i`` divided by ``factor``.

    Dividing the speeds by ``s`` is the same as dividing the positions by
    ``s`` (``(m / s) · θ = m · (θ / s)``): position 32,000 of a model trained
    on 4,096 tokens and stretched 8× is rotated like position 4,000.

    Parameters
    ----------
    base, dim, max_position_embeddings, seq_len
        As :func:`default_rope_parameters`.
    factor : float
        Required; ``1 ≤ factor ≤ MAX_FACTOR``.

    Returns
    -------
    inv_freq : ndarray, shape (dim/2,)
    attention_factor : float
        Always 1.

    Examples
    --------
    >>> inv_freq, _ = linear_rope_parameters(10000.0, 4, max_position_embeddings=4096, factor=8)
    >>> inv_freq.tolist()
    [0.125, 0.00125]
    """
    base, dim, _, _, p = _common("linear", base, dim, max_position_embeddings, seq_len, params)
    return _default_inv_freq(base, dim) / p["factor"], 1.0


def _ntk_base(base: float, factor: float, dim: int) -> float:
    # NTK-aware base (bloc97): base' = base · s^(d/(d−2)), chosen so that the
    # slowest pair (exponent (d−2)/d) turns exactly s times slower while the
    # fastest pair (exponent 0) is unchanged.
    return base * factor ** (dim / (dim - 2))


def ntk_rope_parameters(
    base: float,
    dim: int,
    *,
    max_position_embeddings: int,
    seq_len: int | None = None,
    **params: Any,
) -> tuple[np.ndarray, float]:
    """Static NTK-aware scaling: default RoPE with base ``base · factor^(dim/(dim−2))``.

    The fastest pair is unchanged; the slowest turns exactly ``factor`` times
    slower; the pairs between are slowed by a geometric blend. Not a
    transformers ``rope_type`` (transformers ships its dynamic form,
    :func:`dynamic_rope_parameters`); equal to ``dynamic`` with ``factor=1``
    served at ``factor × max_position_embeddings``.

    Parameters
    ----------
    base, dim, max_position_embeddings, seq_len
        As :func:`default_rope_parameters`; ``dim ≥ 4``.
    factor : float
        Required; ``1 ≤ factor ≤ MAX_FACTOR``.

    Returns
    -------
    inv_freq : ndarray, shape (dim/2,)
    attention_factor : float
        Always 1.

    Examples
    --------
    >>> inv_freq, _ = ntk_rope_parameters(10000.0, 128, max_position_embeddings=4096, factor=8)
    >>> default, _ = default_rope_parameters(10000.0, 128, max_position_embeddings=4096)
    >>> round(float(default[-1] / inv_freq[-1]), 6), float(inv_freq[0])
    (8.0, 1.0)
    """
    base, dim, _, _, p = _common("ntk", base, dim, max_position_embeddings, seq_len, params)
    return _default_inv_freq(_ntk_base(base, p["factor"], dim), dim), 1.0


def dynamic_ntk_base(
    base: float,
    dim: int,
    *,
    factor: float,
    max_position_embeddings: int,
    seq_len: int | None = None,
) -> float:
    """The base dynamic NTK scaling uses when serving ``seq_len`` tokens.

    ``base · (factor · L′/L − (factor − 1))^(dim/(dim−2))`` with
    ``L′ = max(seq_len, L)`` and ``L = max_position_embeddings``: unchanged up
    to the trained length, then growing with the served length.

    Examples
    --------
    >>> dynamic_ntk_base(10000.0, 128, factor=2.0, max_position_embeddings=4096, seq_len=2048)
    10000.0
    >>> round(dynamic_ntk_base(10000.0, 128, factor=1.0, max_position_embeddings=4096,
    ...                        seq_len=8 * 4096))
    82685
    """
    base, dim, max_pos, served, p = _common(
        "dynamic", base, dim, max_position_embeddings, seq_len, {"factor": factor}
    )
    return _dynamic_base(base, dim, p["factor"], max_pos, served)


def _dynamic_base(base: float, dim: int, factor: float, max_pos: int, seq_len: int | None) -> float:
    # transformers: seq_len defaults to max_position_embeddings and is never
    # taken below it, so dynamic equals default at or below the trained length.
    # This scalar is Python float64 there too.
    served = max_pos if seq_len is None else max(seq_len, max_pos)
    return base * ((factor * served / max_pos) - (factor - 1)) ** (dim / (dim - 2))


def dynamic_rope_parameters(
    base: float,
    dim: int,
    *,
    max_position_embeddings: int,
    seq_len: int | None = None,
    **params: Any,
) -> tuple[np.ndarray, float]:
    """Dynamic NTK scaling: default RoPE with the base of :func:`dynamic_ntk_base`.

    The threshold is ``max_position_embeddings`` (transformers' dynamic
    method ignores ``original_max_position_embeddings``).

    Parameters
    ----------
    base, dim, max_position_embeddings
        As :func:`default_rope_parameters`; ``dim ≥ 4``.
    seq_len : int, optional
        The served length; ``None`` means ``max_position_embeddings``.
    factor : float
        Required; ``1 ≤ factor ≤ MAX_FACTOR``.

    Returns
    -------
    inv_freq : ndarray, shape (dim/2,)
    attention_factor : float
        Always 1.

    Examples
    --------
    >>> short, _ = dynamic_rope_parameters(10000.0, 8, max_position_embeddings=4096,
    ...                                    seq_len=1000, factor=4)
    >>> bool(np.array_equal(short, default_rope_parameters(10000.0, 8,
    ...                                                   max_position_embeddings=4096)[0]))
    True
    """
    base, dim, max_pos, served, p = _common(
        "dynamic", base, dim, max_position_embeddings, seq_len, params
    )
    return _default_inv_freq(_dynamic_base(base, dim, p["factor"], max_pos, served), dim), 1.0


def yarn_get_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's attention temperature ``0.1 · mscale · ln(scale) + 1`` (1 for ``scale ≤ 1``).

    Examples
    --------
    >>> round(yarn_get_mscale(40.0), 6)
    1.368888
    >>> yarn_get_mscale(1.0)
    1.0
    """
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def _correction_dim(num_rotations: float, dim: int, base: float, original_max: int) -> float:
    # The (fractional) dimension index whose pair completes `num_rotations`
    # turns in `original_max` positions.
    return (dim * math.log(original_max / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_correction_range(
    base: float,
    dim: int,
    *,
    original_max_position_embeddings: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> tuple[float, float]:
    """YaRN's ramp ends ``(low, high)``, in pair indices.

    Pairs below ``low`` turn more than ``beta_fast`` times within the trained
    length and keep their speed; pairs above ``high`` turn fewer than
    ``beta_slow`` times and are interpolated (divided by ``factor``).
    ``truncate`` floors ``low`` and ceils ``high`` (transformers' default). As
    in transformers, ``high`` is clipped at ``dim − 1`` (not ``dim/2 − 1``).

    Examples
    --------
    >>> yarn_correction_range(10000.0, 64, original_max_position_embeddings=4096)
    (10, 23)
    >>> low, high = yarn_correction_range(10000.0, 64, original_max_position_embeddings=4096,
    ...                                   truncate=False)
    >>> round(low, 4), round(high, 4)
    (10.4722, 22.5134)
    """
    base, dim, _, _, p = _common(
        "yarn",
        base,
        dim,
        1,
        None,
        {
            "original_max_position_embeddings": original_max_position_embeddings,
            "beta_fast": beta_fast,
            "beta_slow": beta_slow,
            "truncate": truncate,
        },
    )
    _check_betas(p["beta_fast"], p["beta_slow"])
    return _correction_range(
        p["beta_fast"],
        p["beta_slow"],
        dim,
        base,
        p["original_max_position_embeddings"],
        p["truncate"],
    )


def _correction_range(
    low_rot: float, high_rot: float, dim: int, base: float, original_max: int, truncate: bool
) -> tuple[float, float]:
    low = _correction_dim(low_rot, dim, base, original_max)
    high = _correction_dim(high_rot, dim, base, original_max)
    if truncate:
        low = math.floor(low)
        high = math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_ramp(low: float, high: float, n_pairs: int) -> np.ndarray:
    """Per-pair interpolation weight of YaRN, shape ``(n_pairs,)``, from 0 to 1.

    ``clip((i − low) / (high − low), 0, 1)``: 0 keeps pair ``i`` unchanged
    (extrapolation), 1 divides it by ``factor`` (interpolation). When
    ``low == high`` transformers adds 0.001 to ``high`` to avoid dividing by
    zero; so does this.

    Examples
    --------
    >>> yarn_ramp(1, 3, 5).tolist()
    [0.0, 0.0, 0.5, 1.0, 1.0]
    """
    n = check_count("n_pairs", n_pairs, low=1, high=MAX_DIM // 2)
    low = check_real("low", low)
    high = check_real("high", high)
    if low == high:
        high += 0.001  # transformers: "Prevent singularity"
    # transformers evaluates this ramp in float32; see the module docstring.
    return np.clip((np.arange(n, dtype=np.float64) - low) / (high - low), 0.0, 1.0)


def _check_betas(beta_fast: float, beta_slow: float) -> None:
    if beta_fast < beta_slow:
        raise _fail(
            "beta_fast",
            f"beta_fast ({beta_fast:g}) must be at least beta_slow ({beta_slow:g}): "
            "fast pairs turn more often than slow ones",
        )


def yarn_rope_parameters(
    base: float,
    dim: int,
    *,
    max_position_embeddings: int,
    seq_len: int | None = None,
    **params: Any,
) -> tuple[np.ndarray, float]:
    """YaRN (Peng et al. 2023): NTK-by-parts interpolation plus an attention factor.

    ``θ'_i = θ_i/factor · r_i + θ_i · (1 − r_i)`` with the ramp
    ``r = yarn_ramp(*yarn_correction_range(...))``.

    Parameters
    ----------
    base, dim, max_position_embeddings, seq_len
        As :func:`default_rope_parameters` (``seq_len`` is unused).
    factor : float, optional
        ``1 ≤ factor ≤ MAX_FACTOR``. When absent it is
        ``max_position_embeddings / original_max_position_embeddings``
        (DeepSeek-V3's convention, as transformers does).
    original_max_position_embeddings : int, optional
        Pretraining length; defaults to ``max_position_embeddings`` (as
        transformers' ``standardize_rope_params``).
    beta_fast, beta_slow : float, optional
        Ramp ends in turns within the pretraining length; default 32 and 1
        (as transformers' ``or 32`` / ``or 1``). ``beta_fast ≥ beta_slow``.
    mscale, mscale_all_dim : float, optional
        When both are non-zero and no ``attention_factor`` is given, the
        attention factor is ``get_mscale(factor, mscale) /
        get_mscale(factor, mscale_all_dim)`` (1.0 when they are equal —
        DeepSeek-V3 applies its own softmax scale instead).
    attention_factor : float, optional
        Overrides the above. Otherwise ``0.1 · ln(factor) + 1``.
    truncate : bool, optional
        Floor / ceil the ramp ends (default ``True``). An explicit ``None``
        means *no* truncation, because transformers reads
        ``rope_parameters.get("truncate", True)`` and tests its truthiness.

    Returns
    -------
    inv_freq : ndarray, shape (dim/2,)
    attention_factor : float

    Examples
    --------
    >>> inv_freq, attention = yarn_rope_parameters(10000.0, 64, max_position_embeddings=16384,
    ...                                            factor=4, original_max_position_embeddings=4096)
    >>> default, _ = default_rope_parameters(10000.0, 64, max_position_embeddings=4096)
    >>> float(inv_freq[0] / default[0]), float(inv_freq[-1] / default[-1]), round(attention, 6)
    (1.0, 0.25, 1.138629)
    """
    base, dim, max_pos, _, p = _common("yarn", base, dim, max_position_embeddings, seq_len, params)
    original = p.get("original_max_position_embeddings", max_pos)
    factor = p.get("factor")
    if factor is None:
        # DeepSeek-V3 style: the stretch is the ratio of the two lengths.
        factor = max_pos / original
    attention_factor = p.get("attention_factor")
    if attention_factor is None:
        mscale, mscale_all_dim = p.get("mscale"), p.get("mscale_all_dim")
        if mscale and mscale_all_dim:  # transformers tests truthiness: 0 means "not set"
            attention_factor = yarn_get_mscale(factor, mscale) / yarn_get_mscale(
                factor, mscale_all_dim
            )
        else:
            attention_factor = yarn_get_mscale(factor)
    beta_fast = p.get("beta_fast") or 32.0
    beta_slow = p.get("beta_slow") or 1.0
    _check_betas(beta_fast, beta_slow)
    truncate = p.get("truncate", True)

    pos_freqs = base ** _exponents(dim)
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (factor * pos_freqs)
    low, high = _correction_range(beta_fast, beta_slow, dim, base, original, truncate)
    ramp = yarn_ramp(low, high, dim // 2)
    # transformers writes this as interpolation·(1 − e) + extrapolation·e, e = 1 − ramp.
    inv_freq = inv_freq_interpolation * ramp + inv_freq_extrapolation * (1.0 - ramp)
    return inv_freq, float(attention_factor)


def longrope_rope_parameters(
    base: float,
    dim: int,
    *,
    max_position_embeddings: int,
    seq_len: int | None = None,
    **params: Any,
) -> tuple[np.ndarray, float]:
    """LongRoPE (Phi-3): ``θ_i / ext_i``, with ``ext`` the short or the long factor list.

    The long list applies when ``seq_len > original_max_position_embeddings``,
    the short one otherwise (also when ``seq_len`` is ``None``: a model starts
    with the short list and switches when the input grows past the original
    length).

    Parameters
    ----------
    base, dim, max_position_embeddings
        As :func:`default_rope_parameters`.
    seq_len : int, optional
        The served length.
    short_factor, long_factor : list of float
        Required; ``dim/2`` numbers each, from 0.001 to ``MAX_FACTOR``. transformers turns them
        into float32 tensors; Phi-3 configs store float32 values already.
    factor : float, optional
        When absent, ``max_position_embeddings / original_max_position_embeddings``.
    original_max_position_embeddings : int, optional
        Defaults to ``max_position_embeddings``.
    attention_factor : float, optional
        Otherwise ``sqrt(1 + ln(factor) / ln(original_max_position_embeddings))``
        (1 for ``factor ≤ 1``).

    Returns
    -------
    inv_freq : ndarray, shape (dim/2,)
    attention_factor : float

    Examples
    --------
    >>> kw = dict(max_position_embeddings=131072, original_max_position_embeddings=4096,
    ...           short_factor=[1.0, 1.0], long_factor=[2.0, 4.0])
    >>> longrope_rope_parameters(10000.0, 4, seq_len=4096, **kw)[0].tolist()
    [1.0, 0.01]
    >>> inv_freq, attention = longrope_rope_parameters(10000.0, 4, seq_len=4097, **kw)
    >>> inv_freq.tolist(), round(attention, 5)
    ([0.5, 0.0025], 1.19024)
    """
    base, dim, max_pos, served, p = _common(
        "longrope", base, dim, max_position_embeddings, seq_len, params
    )
    original = p.get("original_max_position_embeddings", max_pos)
    factor = p.get("factor")
    if factor is None:
        # Phi-3 style: max_position_embeddings is the stretched length.
        factor = max_pos / original
    attention_factor = p.get("attention_factor")
    if attention_factor is None:
        if factor <= 1.0:
            attention_factor = 1.0
        elif original < 2:
            raise _fail(
                "original_max_position_embeddings",
                "original_max_position_embeddings must be at least 2 to derive LongRoPE's "
                "attention factor sqrt(1 + ln(factor) / ln(original)); or give attention_factor",
            )
        else:
            attention_factor = math.sqrt(1 + math.log(factor) / math.log(original))
    ext = p["long_factor"] if served and served > original else p["short_factor"]
    return 1.0 / (ext * base ** _exponents(dim)), float(attention_factor)


def _llama3_check(p: Mapping[str, Any]) -> None:
    if p["high_freq_factor"] <= p["low_freq_factor"]:
        raise _fail(
            "high_freq_factor",
            f"high_freq_factor ({p['high_freq_factor']:g}) must be greater than "
            f"low_freq_factor ({p['low_freq_factor']:g})",
        )


def llama3_rope_parameters(
    base: float,
    dim: int,
    *,
    max_position_embeddings: int,
    seq_len: int | None = None,
    **params: Any,
) -> tuple[np.ndarray, float]:
    """Llama 3.1 scaling: fast pairs unchanged, slow pairs ÷ factor, a blend between.

    With ``L = original_max_position_embeddings`` and wavelength
    ``λ_i = 2π/θ_i``: pairs with ``λ_i < L / high_freq_factor`` keep their
    speed; pairs with ``λ_i > L / low_freq_factor`` are divided by ``factor``;
    the others get ``(1 − s)·θ_i/factor + s·θ_i`` with
    ``s = (L/λ_i − low_freq_factor) / (high_freq_factor − low_freq_factor)``.

    Parameters
    ----------
    base, dim, max_position_embeddings, seq_len
        As :func:`default_rope_parameters` (``seq_len`` is unused).
    factor, low_freq_factor, high_freq_factor : float
        Required (Llama 3.1: 8, 1, 4); ``high_freq_factor > low_freq_factor``.
    original_max_position_embeddings : int, optional
        Defaults to ``max_position_embeddings`` (Llama 3.1: 8192).

    Returns
    -------
    inv_freq : ndarray, shape (dim/2,)
    attention_factor : float
        Always 1.

    Examples
    --------
    >>> kw = dict(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
    ...           original_max_position_embeddings=8192, max_position_embeddings=131072)
    >>> scaled, _ = llama3_rope_parameters(500000.0, 128, **kw)
    >>> default, _ = default_rope_parameters(500000.0, 128, max_position_embeddings=8192)
    >>> float(scaled[0] / default[0]), float(scaled[-1] / default[-1])
    (1.0, 0.125)
    """
    base, dim, max_pos, _, p = _common(
        "llama3", base, dim, max_position_embeddings, seq_len, params
    )
    _llama3_check(p)
    factor = p["factor"]
    low_freq_factor, high_freq_factor = p["low_freq_factor"], p["high_freq_factor"]
    old_context_len = p.get("original_max_position_embeddings", max_pos)

    inv_freq = _default_inv_freq(base, dim)
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    # The band tests compare float32 wavelengths in transformers; a pair whose
    # wavelength sat within float32 rounding of a threshold could land in the
    # other band there (none does for real configs; the golden test checks).
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (
        high_freq_factor - low_freq_factor
    )
    smoothed = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    return np.where(is_medium, smoothed, inv_freq_llama), 1.0


def llama3_bands(
    base: float,
    dim: int,
    *,
    factor: float,
    low_freq_factor: float,
    high_freq_factor: float,
    original_max_position_embeddings: int,
) -> np.ndarray:
    """Which of Llama 3's three bands each pair falls in, shape ``(dim/2,)``.

    ``"high"`` (wavelength below ``L / high_freq_factor``: unchanged),
    ``"medium"`` (smoothed), ``"low"`` (wavelength above
    ``L / low_freq_factor``: divided by ``factor``).

    Examples
    --------
    >>> bands = llama3_bands(500000.0, 128, factor=8.0, low_freq_factor=1.0,
    ...                      high_freq_factor=4.0, original_max_position_embeddings=8192)
    >>> [int((bands == name).sum()) for name in ("high", "medium", "low")]
    [29, 6, 29]
    """
    params = {
        "factor": factor,
        "low_freq_factor": low_freq_factor,
        "high_freq_factor": high_freq_factor,
        "original_max_position_embeddings": original_max_position_embeddings,
    }
    base, dim, _, _, p = _common("llama3", base, dim, 1, None, params)
    _llama3_check(p)
    original = p["original_max_position_embeddings"]
    wavelen = 2 * math.pi / _default_inv_freq(base, dim)
    bands = np.full(dim // 2, "medium", dtype="<U6")
    bands[wavelen < original / p["high_freq_factor"]] = "high"
    bands[wavelen > original / p["low_freq_factor"]] = "low"
    return bands


RopeScalingFunction = Callable[..., tuple[np.ndarray, float]]

#: ``rope_type → function``, every function with the signature
#: ``fn(base, dim, *, max_position_embeddings, seq_len=None, **params)``.
#: Read-only, so one session cannot change it for another.
ROPE_SCALING_METHODS: Mapping[str, RopeScalingFunction] = MappingProxyType(
    {
        "default": default_rope_parameters,
        "linear": linear_rope_parameters,
        "ntk": ntk_rope_parameters,
        "dynamic": dynamic_rope_parameters,
        "yarn": yarn_rope_parameters,
        "longrope": longrope_rope_parameters,
        "llama3": llama3_rope_parameters,
    }
)


def compute_rope_parameters(
    rope_type: str,
    base: float,
    dim: int,
    *,
    max_position_embeddings: int,
    seq_len: int | None = None,
    **params: Any,
) -> tuple[np.ndarray, float]:
    """Dispatch to ``ROPE_SCALING_METHODS[rope_type]``.

    Raises
    ------
    RopeScalingError
        For an unknown ``rope_type`` (the message lists the supported ones)
        or a missing, unknown or badly typed parameter (the message names it).

    Examples
    --------
    >>> inv_freq, attention = compute_rope_parameters("linear", 10000.0, 4,
    ...                                               max_position_embeddings=4096, factor=2)
    >>> inv_freq.tolist(), attention
    ([0.5, 0.005], 1.0)
    >>> compute_rope_parameters("xpos", 10000.0, 4, max_position_embeddings=4096)
    Traceback (most recent call last):
    ...
    positional_core.rope_scaling.RopeScalingError: unknown rope_type 'xpos'; supported: default, linear, ntk, dynamic, yarn, longrope, llama3
    """  # noqa: E501
    method = ROPE_SCALING_METHODS.get(rope_type) if isinstance(rope_type, str) else None
    if method is None:
        raise RopeScalingError(
            f"unknown rope_type {rope_type!r}; supported: {', '.join(ROPE_SCALING_METHODS)}",
            key="rope_type",
        )
    return method(
        base, dim, max_position_embeddings=max_position_embeddings, seq_len=seq_len, **params
    )
