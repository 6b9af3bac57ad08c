"""Read a model's RoPE schedule from its Hugging Face ``config.json``.

:func:`rope_from_hf_config` gives ``(inv_freq, attention_factor)`` exactly as
transformers' rotary embedding computes them for the config;
:func:`read_rope_config` gives everything the context-extension page shows
(head and rotary dimensions, ``rope_theta``, ``rope_type`` and its keys, the
trained and maximum lengths) as a :class:`RopeModelInfo`;
:func:`load_json_config` turns pasted or uploaded text into a config dict.

How the keys are read (transformers 5.x ``RotaryEmbeddingConfigMixin`` and
``modeling_rope_utils``):

* the scaling block is ``rope_scaling`` (the older name) if it is a non-empty
  object, else ``rope_parameters``; ``null`` or absent means plain RoPE;
* its type is ``rope_type``, else ``type``, else ``"default"``; ``"su"`` is an
  old name of ``"longrope"`` (Phi-3), and a ``phi3`` config's ``"yarn"`` is
  read as ``"longrope"`` too, as ``Phi3Config`` does;
* ``rope_theta`` inside the block wins over the top-level key; default 10000
  (``rotary_emb_base`` for GPT-NeoX);
* the head size is ``qk_rope_head_dim`` (DeepSeek's multi-head latent
  attention) or ``head_dim`` or ``hidden_size // num_attention_heads``; the
  rotary dimensions are ``int(head_dim · partial_rotary_factor)`` (inside the
  block wins over top level; ``rotary_pct`` for GPT-NeoX; class defaults 0.5
  for ``phi``, 0.25 for ``gpt_neox`` and ``stablelm``), or a top-level
  ``rotary_dim`` (GPT-J style);
* ``original_max_position_embeddings`` at the top level wins over the one in
  the block (transformers re-standardises the block before every
  computation and gives the top-level key priority, for Phi-3); without
  either, ``yarn``/``longrope``/``llama3`` use ``max_position_embeddings``.

Every size read from a config is bounded (``head_dim ≤ MAX_DIM``, lengths
``≤ MAX_POSITION``), so no config can make the core allocate an unbounded
array; ``load_json_config`` refuses text over 256 KB or nested deeper than
:data:`MAX_JSON_DEPTH`. Every problem raises :class:`ConfigError` (a
``ValueError``) whose message names the key and what was expected; a model
that has no RoPE raises :class:`NoRopeError` saying which scheme it uses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np

from ._validation import MAX_DIM, MAX_HEADS, MAX_POSITION
from .rope_scaling import ROPE_SCALING_KEYS, RopeScalingError, compute_rope_parameters

__all__ = [
    "MAX_CONFIG_BYTES",
    "MAX_JSON_DEPTH",
    "NO_ROPE_SCHEMES",
    "SUPPORTED_ROPE_TYPES",
    "ConfigError",
    "NoRopeError",
    "RopeModelInfo",
    "load_json_config",
    "read_rope_config",
    "rope_from_hf_config",
]

#: Largest config text :func:`load_json_config` accepts by default (256 KB).
MAX_CONFIG_BYTES = 262_144
#: Deepest nesting of objects / arrays accepted (real configs use 3 to 5).
MAX_JSON_DEPTH = 20
#: The ``rope_type`` values transformers understands and this module computes.
SUPPORTED_ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "longrope", "llama3")
#: Values of :attr:`NoRopeError.scheme`, each the name of an explorer page.
NO_ROPE_SCHEMES = ("learned", "alibi", "relative")

_ROPE_TYPE_ALIASES = {"su": "longrope"}
# Keys of the block that are not scaling parameters (read separately).
_META_KEYS = frozenset(
    {"rope_type", "type", "rope_theta", "partial_rotary_factor", "original_max_position_embeddings"}
)
# Largest hidden size accepted when deriving head_dim.
_MAX_HIDDEN = MAX_DIM * MAX_HEADS

# Families without RoPE, by model_type (Hugging Face names).
_LEARNED = frozenset(
    {
        "gpt2",
        "bert",
        "roberta",
        "xlm-roberta",
        "distilbert",
        "albert",
        "electra",
        "gpt_neo",
        "opt",
        "bart",
        "mbart",
        "biogpt",
        "ctrl",
        "openai-gpt",
        "whisper",
        "vit",
    }
)
_ALIBI = frozenset({"bloom"})
_RELATIVE = frozenset(
    {"t5", "mt5", "umt5", "longt5", "switch_transformers", "deberta", "deberta-v2", "transfo-xl"}
)
_SCHEME_WORDS = {
    "learned": "learned absolute position embeddings (one trained row per position)",
    "alibi": "ALiBi (a per-head linear distance penalty on the attention scores)",
    "relative": "relative position biases (learned per distance bucket)",
}
# Top-level keys that mean the model rotates (used by the no-RoPE heuristics).
_ROPE_HINTS = (
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
    "rotary_dim",
    "rotary_pct",
    "rotary_emb_base",
    "partial_rotary_factor",
    "qk_rope_head_dim",
)


class ConfigError(ValueError):
    """A config that cannot be read; the message names the key and what was expected.

    ``key`` is the offending key (``"rope_scaling.factor"``, ``"hidden_size"``)
    or ``None`` when the problem is the whole text or object.
    """

    def __init__(self, message: str, *, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


class NoRopeError(ConfigError):
    """The config describes a model that does not use RoPE.

    ``scheme`` is one of :data:`NO_ROPE_SCHEMES` (``"learned"``, ``"alibi"``,
    ``"relative"``) so the app can link to that page; ``model_type`` is the
    config's ``model_type`` (or ``None``).
    """

    def __init__(self, message: str, *, scheme: str, model_type: str | None = None) -> None:
        super().__init__(message, key="model_type")
        self.scheme = scheme
        self.model_type = model_type


# --------------------------------------------------------------------------
# Typed reads of single keys
# --------------------------------------------------------------------------
def _describe(value: object) -> str:
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {text!r} (write numbers without quotes)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)} items"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _whole(key: str, value: object, *, low: int, high: int, what: str = "") -> int:
    """``value`` as an int in [low, high]; integral floats (``4096.0``) are accepted."""
    expected = f"a whole number from {low:,} to {high:,}{what}"
    if isinstance(value, bool) or not isinstance(value, Integral | Real | np.integer | np.floating):
        raise ConfigError(f"{key} must be {expected}, got {_describe(value)}", key=key)
    if isinstance(value, Integral | np.integer):
        number = int(value)
    else:
        real = float(value)
        if not math.isfinite(real):
            raise ConfigError(f"{key} must be {expected}, got {real}", key=key)
        if not real.is_integer():
            raise ConfigError(f"{key} must be {expected}, got {real:g}", key=key)
        number = int(real)
    if not low <= number <= high:
        raise ConfigError(f"{key} must be {expected}, got {number:,}", key=key)
    return number


def _real(key: str, value: object, *, low: float, high: float, low_open: bool = False) -> float:
    left = "(" if low_open else "["
    expected = f"a number in {left}{low:g}, {high:g}]"
    if isinstance(value, bool) or not isinstance(value, Real | np.integer | np.floating):
        raise ConfigError(f"{key} must be {expected}, got {_describe(value)}", key=key)
    number = float(value)
    if not math.isfinite(number):
        raise ConfigError(f"{key} must be a finite number, got {number}", key=key)
    if (number <= low if low_open else number < low) or number > high:
        raise ConfigError(f"{key} must be {expected}, got {number:g}", key=key)
    return number


def _first(config: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str | None, Any]:
    """The first of ``names`` present with a non-null value: ``(name, value)``."""
    for name in names:
        value = config.get(name)
        if value is not None:
            return name, value
    return None, None


# --------------------------------------------------------------------------
# No-RoPE detection
# --------------------------------------------------------------------------
def _no_rope_scheme(config: Mapping[str, Any], model_type: str | None) -> str | None:
    attn_config = config.get("attn_config")
    alibi_flag = config.get("alibi") is True or (
        isinstance(attn_config, Mapping) and attn_config.get("alibi") is True
    )
    if model_type in _ALIBI or alibi_flag:
        return "alibi"
    if model_type == "mpt":  # MPT without ALiBi uses a learned table (learned_pos_emb)
        return "learned"
    if model_type in _RELATIVE or "relative_attention_num_buckets" in config:
        return "relative"
    if config.get("position_embedding_type") in ("relative_key", "relative_key_query"):
        return "relative"
    if model_type in _LEARNED:
        return "learned"
    # No model_type: GPT-2 style tables announce themselves by n_positions or
    # position_embedding_type "absolute".
    learned_hint = "n_positions" in config or config.get("position_embedding_type") == "absolute"
    if model_type is None and learned_hint and not any(key in config for key in _ROPE_HINTS):
        return "learned"
    return None


# --------------------------------------------------------------------------
# The parsed result
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class RopeModelInfo:
    """A model's RoPE settings as read from its config.

    Attributes
    ----------
    head_dim : int
        Size of one attention head.
    rotary_dim : int
        Dimensions that rotate (``int(head_dim · partial_rotary_factor)``), even.
    base : float
        ``rope_theta``.
    rope_type : str
        One of :data:`SUPPORTED_ROPE_TYPES` (aliases resolved).
    params : dict
        The scaling keys passed to the method (``factor``, ...), validated;
        ``short_factor``/``long_factor`` as tuples. Treat as read-only.
    max_position_embeddings : int
        The model's maximum length (for stretched models, the stretched one).
    original_max_position_embeddings : int or None
        The pretraining length when the config states one.
    partial_rotary_factor : float
        Fraction of the head that rotates (1.0 unless the config says).
    model_type : str or None
    block_key : str or None
        ``"rope_scaling"`` or ``"rope_parameters"``: where the block was read.
    ignored_keys : tuple of str
        Block keys this ``rope_type`` does not read (transformers warns about
        them and ignores them too).
    trained_len : int
        ``original_max_position_embeddings`` if stated, else
        ``max_position_embeddings``.
    """

    head_dim: int
    rotary_dim: int
    base: float
    rope_type: str
    params: dict[str, Any]
    max_position_embeddings: int
    original_max_position_embeddings: int | None
    partial_rotary_factor: float = 1.0
    model_type: str | None = None
    block_key: str | None = None
    ignored_keys: tuple[str, ...] = ()
    trained_len: int = field(init=False)

    def __post_init__(self) -> None:
        trained = self.original_max_position_embeddings or self.max_position_embeddings
        object.__setattr__(self, "trained_len", trained)

    @property
    def n_pairs(self) -> int:
        """Number of rotating pairs, ``rotary_dim / 2``."""
        return self.rotary_dim // 2

    @property
    def factor(self) -> float:
        """The stretch: the ``factor`` key, else (YaRN, LongRoPE) the length ratio, else 1."""
        factor = self.params.get("factor")
        if factor is not None:
            return float(factor)
        if self.rope_type in ("yarn", "longrope"):
            original = self.original_max_position_embeddings or self.max_position_embeddings
            return self.max_position_embeddings / original
        return 1.0

    @property
    def target_len(self) -> int:
        """The longest length the config serves, ``L′``: ``max_position_embeddings``, or
        ``factor × trained_len`` when that is longer (Qwen2.5's 128K YaRN block keeps
        ``max_position_embeddings`` at 32,768)."""
        return max(self.max_position_embeddings, round(self.factor * self.trained_len))

    def rope_parameters(self, seq_len: int | None = None) -> tuple[np.ndarray, float]:
        """``(inv_freq (rotary_dim/2,), attention_factor)`` when serving ``seq_len`` tokens.

        ``seq_len`` matters for ``dynamic`` and ``longrope`` only; ``None``
        is the state a model starts in.
        """
        params = {
            key: (list(value) if isinstance(value, tuple) else value)
            for key, value in self.params.items()
        }
        return compute_rope_parameters(
            self.rope_type,
            self.base,
            self.rotary_dim,
            max_position_embeddings=self.max_position_embeddings,
            seq_len=seq_len,
            **params,
        )

    def inv_freq(self, seq_len: int | None = None) -> np.ndarray:
        """The scaled ``θ_i``, shape ``(rotary_dim/2,)``."""
        return self.rope_parameters(seq_len)[0]

    def attention_factor(self, seq_len: int | None = None) -> float:
        """The factor transformers multiplies cos and sin by (1.0 for most methods)."""
        return self.rope_parameters(seq_len)[1]

    def default_inv_freq(self) -> np.ndarray:
        """The unscaled ``θ_i = base^(−2i/rotary_dim)``, shape ``(rotary_dim/2,)``."""
        return compute_rope_parameters(
            "default", self.base, self.rotary_dim, max_position_embeddings=1
        )[0]


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------
def _head_dim(config: Mapping[str, Any]) -> int:
    for key in ("qk_rope_head_dim", "head_dim"):
        value = config.get(key)
        if value is not None:
            return _whole(key, value, low=1, high=MAX_DIM)
    hidden_key, hidden = _first(config, ("hidden_size", "n_embd", "d_model"))
    heads_key, heads = _first(config, ("num_attention_heads", "n_head", "num_heads", "n_heads"))
    why = " (needed to derive head_dim = hidden_size // num_attention_heads, as head_dim is absent)"
    if hidden_key is None:
        raise ConfigError(f"hidden_size is missing{why}", key="hidden_size")
    if heads_key is None:
        raise ConfigError(f"num_attention_heads is missing{why}", key="num_attention_heads")
    hidden_size = _whole(hidden_key, hidden, low=1, high=_MAX_HIDDEN)
    n_heads = _whole(heads_key, heads, low=1, high=MAX_HEADS)
    head_dim = hidden_size // n_heads
    if head_dim < 1:
        raise ConfigError(
            f"{hidden_key} ({hidden_size}) must be at least {heads_key} ({n_heads}): "
            "each head needs at least one dimension",
            key=hidden_key,
        )
    if head_dim > MAX_DIM:
        raise ConfigError(
            f"head_dim = {hidden_key} // {heads_key} = {head_dim:,} exceeds the limit {MAX_DIM:,}",
            key=hidden_key,
        )
    return head_dim


def _rope_block(config: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any]]:
    for key in ("rope_scaling", "rope_parameters"):
        value = config.get(key)
        if value is not None and not isinstance(value, Mapping):
            raise ConfigError(f"{key} must be an object (or null), got {_describe(value)}", key=key)
    # transformers: `rope_scaling or rope_parameters` (an empty block counts as absent)
    for key in ("rope_scaling", "rope_parameters"):
        block = config.get(key)
        if block:
            nested = [name for name, value in block.items() if isinstance(value, Mapping)]
            if nested:
                raise ConfigError(
                    f"{key} holds one block per layer type ({', '.join(map(str, nested))}); "
                    "this reader handles a single RoPE block: paste that block as "
                    f"{key}",
                    key=key,
                )
            return key, block
    return None, {}


def _rope_type(block_key: str | None, block: Mapping[str, Any], model_type: str | None) -> str:
    type_key, rope_type = _first(block, ("rope_type", "type"))
    if type_key is None:
        return "default"
    where = f"{block_key}.{type_key}"
    if not isinstance(rope_type, str):
        raise ConfigError(
            f"{where} must be a string, one of {', '.join(SUPPORTED_ROPE_TYPES)}; "
            f"got {_describe(rope_type)}",
            key=where,
        )
    rope_type = _ROPE_TYPE_ALIASES.get(rope_type, rope_type)
    if model_type == "phi3" and rope_type == "yarn":
        rope_type = "longrope"  # Phi3Config's backward-compatibility rule
    if rope_type not in SUPPORTED_ROPE_TYPES:
        hint = ""
        if rope_type in ("mrope", "3D", "default_mrope"):
            hint = " (multimodal RoPE splits the pairs among time, height and width)"
        raise ConfigError(
            f"{where} {rope_type[:40]!r} is not supported{hint}; supported: "
            f"{', '.join(SUPPORTED_ROPE_TYPES)} (and 'su', an old name of longrope)",
            key=where,
        )
    return rope_type


def _partial_rotary_factor(
    config: Mapping[str, Any],
    block_key: str | None,
    block: Mapping[str, Any],
    model_type: str | None,
) -> float:
    value = block.get("partial_rotary_factor")
    key = f"{block_key}.partial_rotary_factor"
    if value is None:
        key, value = _first(config, ("partial_rotary_factor", "rotary_pct"))
    if value is None:
        # Class defaults of the transformers configs that rotate part of the head.
        return {"phi": 0.5, "gpt_neox": 0.25, "stablelm": 0.25}.get(model_type or "", 1.0)
    return _real(str(key), value, low=0.0, high=1.0, low_open=True)


def _served_length(value: object) -> int | None:
    if value is None:
        return None
    return _whole("seq_len", value, low=1, high=MAX_POSITION)


def _unwrap(config: object) -> Mapping[str, Any]:
    if not isinstance(config, Mapping):
        kind = "a list" if isinstance(config, list | tuple) else _describe(config)
        raise ConfigError(
            f"config must be a JSON object ({{...}} with keys such as hidden_size), got {kind}"
        )
    # Multimodal wrappers keep the language model's settings under text_config.
    text_config = config.get("text_config")
    sizes = ("head_dim", "hidden_size", "n_embd", "d_model", "qk_rope_head_dim")
    if isinstance(text_config, Mapping) and not any(key in config for key in sizes):
        return text_config
    return config


def read_rope_config(config: Mapping[str, Any]) -> RopeModelInfo:
    """Read the RoPE settings of a Hugging Face ``config.json`` dict.

    Parameters
    ----------
    config : Mapping
        The parsed ``config.json`` (see :func:`load_json_config`).

    Returns
    -------
    RopeModelInfo

    Raises
    ------
    NoRopeError
        The model has no RoPE (``.scheme`` says which positions it uses).
    ConfigError
        A key is missing, has the wrong type or an impossible value; the
        message names it.

    Examples
    --------
    >>> info = read_rope_config({"hidden_size": 2560, "num_attention_heads": 32,
    ...                          "partial_rotary_factor": 0.4, "max_position_embeddings": 2048})
    >>> info.head_dim, info.rotary_dim, info.base, info.rope_type, info.trained_len
    (80, 32, 10000.0, 'default', 2048)
    >>> read_rope_config({"model_type": "gpt2", "n_positions": 1024})
    Traceback (most recent call last):
    ...
    positional_core.hf_config.NoRopeError: model_type 'gpt2' has no RoPE: it uses learned absolute position embeddings (one trained row per position)
    """  # noqa: E501
    config = _unwrap(config)
    model_type = config.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise ConfigError(
            f"model_type must be a string, got {_describe(model_type)}", key="model_type"
        )
    scheme = _no_rope_scheme(config, model_type)
    if scheme is not None:
        named = f"model_type {model_type!r}" if model_type else "this config"
        raise NoRopeError(
            f"{named} has no RoPE: it uses {_SCHEME_WORDS[scheme]}",
            scheme=scheme,
            model_type=model_type,
        )

    block_key, block = _rope_block(config)
    rope_type = _rope_type(block_key, block, model_type)
    base = _base(config, block_key, block)
    head_dim = _head_dim(config)
    rotary_dim, partial = _rotary_dim(config, block_key, block, model_type, head_dim)
    max_pos, original, original_key = _lengths(config, block_key, block)
    params, paths, ignored = _scaling_params(rope_type, block_key, block, original, original_key)
    _check_scaling(rope_type, base, rotary_dim, max_pos, block_key, params, paths)

    clean = {
        key: (tuple(float(v) for v in value) if key in ("short_factor", "long_factor") else value)
        for key, value in params.items()
        if value is not None or key == "truncate"
    }
    return RopeModelInfo(
        head_dim=head_dim,
        rotary_dim=rotary_dim,
        base=base,
        rope_type=rope_type,
        params=clean,
        max_position_embeddings=max_pos,
        original_max_position_embeddings=original,
        partial_rotary_factor=float(partial),
        model_type=model_type,
        block_key=block_key,
        ignored_keys=tuple(ignored),
    )


def _base(config: Mapping[str, Any], block_key: str, block: Mapping[str, Any]) -> float:
    """``rope_theta`` from the scaling block or the config (10,000 when absent)."""
    theta_key, theta = f"{block_key}.rope_theta", block.get("rope_theta")
    if theta is None:
        theta_key, theta = _first(config, ("rope_theta", "rotary_emb_base"))
    if theta is None:
        return 10000.0
    return _real(str(theta_key), theta, low=1.0, high=1e12, low_open=True)


def _rotary_dim(
    config: Mapping[str, Any],
    block_key: str,
    block: Mapping[str, Any],
    model_type: str | None,
    head_dim: int,
) -> tuple[int, float]:
    """The rotated dimensions and their share of the head (``rotary_dim`` or the factor)."""
    if config.get("rotary_dim") is not None and "partial_rotary_factor" not in block:
        rotary_dim = _whole(
            "rotary_dim", config["rotary_dim"], low=1, high=head_dim, what=" (at most head_dim)"
        )
        partial = rotary_dim / head_dim
        how, rotary_key = f"rotary_dim = {rotary_dim}", "rotary_dim"
    else:
        partial = _partial_rotary_factor(config, block_key, block, model_type)
        rotary_dim = int(head_dim * partial)
        how = (
            "the rotary dimensions int(head_dim × partial_rotary_factor) = "
            f"int({head_dim} × {partial:g}) = {rotary_dim}"
        )
        rotary_key = "head_dim"
    if rotary_dim < 2 or rotary_dim % 2:
        raise ConfigError(
            f"{how} must be even and at least 2 (dimensions rotate in pairs)", key=rotary_key
        )
    return rotary_dim, partial


def _lengths(
    config: Mapping[str, Any], block_key: str, block: Mapping[str, Any]
) -> tuple[int, int | None, str]:
    """The maximum length, the original (pre-extension) length if given, and its key."""
    max_key, max_pos = _first(
        config, ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length")
    )
    if max_key is None:
        raise ConfigError(
            "max_position_embeddings is missing (the model's maximum length, needed for "
            "the trained range)",
            key="max_position_embeddings",
        )
    max_pos = _whole(max_key, max_pos, low=1, high=MAX_POSITION)
    original_key = "original_max_position_embeddings"
    original = config.get(original_key)
    if original is None and block.get(original_key) is not None:
        original_key, original = f"{block_key}.{original_key}", block[original_key]
    if original is not None:
        original = _whole(original_key, original, low=1, high=MAX_POSITION)
    return max_pos, original, original_key


def _scaling_params(
    rope_type: str,
    block_key: str,
    block: Mapping[str, Any],
    original: int | None,
    original_key: str,
) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """The block's keys the method accepts, where each came from, and the keys ignored."""
    spec = ROPE_SCALING_KEYS[rope_type]
    accepted = set(spec["required"]) | set(spec["optional"])
    params: dict[str, Any] = {}
    ignored = []
    for key, value in block.items():
        if key in _META_KEYS:
            continue
        if key in accepted:
            params[key] = value
        else:
            ignored.append(str(key))
    paths = {key: f"{block_key}.{key}" for key in params}
    if original is not None and "original_max_position_embeddings" in accepted:
        params["original_max_position_embeddings"] = original
        paths["original_max_position_embeddings"] = original_key
    return params, paths, ignored


def _check_scaling(
    rope_type: str,
    base: float,
    rotary_dim: int,
    max_pos: int,
    block_key: str,
    params: Mapping[str, Any],
    paths: Mapping[str, str],
) -> None:
    """Let the scaling method check its parameters; its message names the config's key."""
    try:
        compute_rope_parameters(
            rope_type, base, rotary_dim, max_position_embeddings=max_pos, **params
        )
    except RopeScalingError as error:
        message, key = str(error), error.key or ""
        path = paths.get(key)
        if path and message.startswith(key):
            message = path + message[len(key) :]
        else:
            message = f"{block_key}: {message}"
            path = f"{block_key}.{key}" if key else block_key
        raise ConfigError(message, key=path) from None


def rope_from_hf_config(
    config: Mapping[str, Any], seq_len: int | None = None
) -> tuple[np.ndarray, float]:
    """``(inv_freq, attention_factor)`` for a Hugging Face config, as transformers computes them.

    Parameters
    ----------
    config : Mapping
        A parsed ``config.json``.
    seq_len : int, optional
        The served length (matters for ``dynamic`` and ``longrope``).

    Returns
    -------
    inv_freq : ndarray, shape (rotary_dim/2,)
    attention_factor : float

    Examples
    --------
    >>> inv_freq, attention = rope_from_hf_config({
    ...     "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096})
    >>> inv_freq.shape, float(inv_freq[0]), attention
    ((64,), 1.0, 1.0)
    """
    served = _served_length(seq_len)
    return read_rope_config(config).rope_parameters(served)


# --------------------------------------------------------------------------
# Text → dict
# --------------------------------------------------------------------------
class _BadConstant(Exception):
    pass


def _refuse_constant(name: str) -> None:
    raise _BadConstant(name)


def _depth(value: object) -> int:
    """Nesting depth of objects and arrays (a scalar has depth 0), iteratively."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            level += 1
            deepest = max(deepest, level)
            if deepest > MAX_JSON_DEPTH:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level) for child in children)
    return deepest


def load_json_config(text: str | bytes, max_bytes: int = MAX_CONFIG_BYTES) -> dict[str, Any]:
    """Parse the text of a ``config.json`` into a dict, with messages a person can act on.

    Refused: text over ``max_bytes`` bytes, invalid JSON (the message gives
    the parser's line and column), ``NaN`` / ``Infinity`` literals (not JSON),
    nesting deeper than :data:`MAX_JSON_DEPTH`, and anything but an object
    at the top.

    Parameters
    ----------
    text : str or bytes
        The file's contents (bytes must be UTF-8).
    max_bytes : int, default 262144
        Size limit in bytes.

    Returns
    -------
    dict

    Examples
    --------
    >>> load_json_config('{"hidden_size": 4096}')
    {'hidden_size': 4096}
    >>> try:
    ...     load_json_config('{"hidden_size": 4096')
    ... except ConfigError as error:
    ...     print(error)
    invalid JSON at line 1, column 21: Expecting ',' delimiter
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, Integral) or max_bytes < 1:
        raise ValueError(f"max_bytes must be a positive whole number, got {max_bytes!r}")
    if isinstance(text, bytes | bytearray):
        size, unit = len(text), "bytes"
    elif isinstance(text, str):
        # Encoding a huge paste just to measure it is wasted work: past 4 bytes per
        # allowed byte, the character count alone proves it is too large.
        if len(text) > 4 * max_bytes:
            size, unit = len(text), "characters"
        else:
            size, unit = len(text.encode("utf-8", "surrogatepass")), "bytes"
    else:
        raise ConfigError(f"config text must be a string, got {type(text).__name__}")
    if size > max_bytes:
        raise ConfigError(
            f"config is {size:,} {unit}; the limit is {max_bytes:,} bytes "
            "(a config.json is a few kilobytes)"
        )
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ConfigError(f"config is not UTF-8 text (byte {error.start})") from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise ConfigError("config is empty: paste the contents of a config.json")
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except _BadConstant as error:
        raise ConfigError(
            f"config contains {error.args[0]}, which is not valid JSON; write a finite number"
        ) from None
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise ConfigError(f"config is nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as error:  # e.g. an integer literal with thousands of digits
        raise ConfigError(f"config has a value Python cannot read: {error}") from None
    if not isinstance(value, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a number")
        if value is None:
            kind = "null"
        raise ConfigError(f"config must be a JSON object ({{...}}), got {kind}")
    if _depth(value) > MAX_JSON_DEPTH:
        raise ConfigError(f"config is nested deeper than {MAX_JSON_DEPTH} levels")
    return value
