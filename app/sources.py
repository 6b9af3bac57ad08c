"""Bokeh data sources changed from the server: shared by the in-place figures,
the browser choices and RoPE's linked sources, so the places that write to
sources agree on when a column needs sending and how a change is made.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import numpy as np
import panel as pn
from panel.io.state import set_curdoc

__all__ = ["per_document", "same_column", "same_columns"]


def same_column(old: Any, new: Any) -> bool:
    """True when column ``new`` holds what ``old`` (as drawn) holds.

    Plain columns are compared as arrays; image columns (a list of 2-D arrays)
    image by image. NaN equals NaN: lines broken by NaN and cells left blank
    would otherwise be sent again on every change. Anything that cannot be
    compared counts as different.
    """
    try:
        if len(old) != len(new):
            return False
        if (
            type(old) is np.ndarray
            and type(new) is np.ndarray
            and "O" not in old.dtype.kind + new.dtype.kind
        ):
            return _same_array(old, new)
        if any(isinstance(x, np.ndarray) for x in (*old[:1], *new[:1])):
            return all(_same_array(a, b) for a, b in zip(old, new, strict=True))
        return _same_array(old, new)
    except (TypeError, ValueError):
        return False


#: Up to this size two arrays of one dtype and shape are first compared byte for
#: byte: a tenth of a microsecond against ``np.array_equal``'s several, which a
#: page's hundred-odd columns paid on every change.
_BYTES_FIRST = 1 << 16


def _same_array(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if (
        a.dtype == b.dtype
        and a.shape == b.shape
        and a.dtype.kind != "O"
        and a.nbytes <= _BYTES_FIRST
        and a.tobytes() == b.tobytes()
    ):
        return True  # the same bits are the same values (NaN included)
    nan_able = a.dtype.kind in "fc" and b.dtype.kind in "fc"
    return bool(np.array_equal(a, b, equal_nan=nan_able))


def same_columns(drawn: Any, data: Any) -> bool:
    """True when ``data`` is what ``drawn`` (a source's data) already holds."""
    return set(drawn) == set(data) and all(
        same_column(drawn[name], column) for name, column in data.items()
    )


def per_document(changes: list[tuple[Any, Callable[[], None]]]) -> None:
    """Run each ``(model, change)`` with the model's document current and
    unlocked, one document at a time (its changes go out together; safe from a
    stream callback, which runs outside Bokeh's document lock)."""
    by_document: dict[Any, list[Callable[[], None]]] = {}  # documents hash by identity
    for model, change in changes:
        by_document.setdefault(model.document, []).append(change)
    for doc, calls in by_document.items():
        with set_curdoc(doc), pn.io.unlocked() if doc is not None else nullcontext():
            for call in calls:
                call()
