"""Public model configurations shipped with the package (presets for the pages).

The files in ``positional_core/data/model_configs/`` are copies of the
position-related fields of public Hugging Face ``config.json`` files; each has
a ``_source`` line saying where its values come from.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

__all__ = ["MODEL_CONFIG_NAMES", "model_config"]

_DATA = resources.files("positional_core") / "data" / "model_configs"

#: Names of the shipped configurations (file names without ``.json``), sorted.
MODEL_CONFIG_NAMES: tuple[str, ...] = tuple(
    sorted(entry.name[:-5] for entry in _DATA.iterdir() if entry.name.endswith(".json"))
)


@cache
def _load(name: str) -> MappingProxyType:
    text = (_DATA / f"{name}.json").read_text(encoding="utf-8")
    return MappingProxyType(json.loads(text))


def model_config(name: str) -> dict[str, Any]:
    """A fresh copy of the shipped configuration ``name``.

    Parameters
    ----------
    name : str
        One of :data:`MODEL_CONFIG_NAMES`, e.g. ``"llama-3.1-8b"``.

    Returns
    -------
    dict
        The parsed ``config.json`` fields (a new dict each call, so a caller may
        change it without touching anyone else's copy).

    Examples
    --------
    >>> model_config("gpt2")["n_positions"]
    1024
    >>> model_config("llama-3.1-8b")["rope_scaling"]["rope_type"]
    'llama3'
    """
    if name not in MODEL_CONFIG_NAMES:
        raise ValueError(
            f"name must be one of {', '.join(MODEL_CONFIG_NAMES)}; got {str(name)[:40]!r}"
        )
    return json.loads(json.dumps(dict(_load(name))))
