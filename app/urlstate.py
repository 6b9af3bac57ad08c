"""URL state: read a page's controls from the query string, write them back.

Reading is pure (no server needed, unit-tested): every value is checked against
the parameter it targets *before* it is applied — out of range is clamped,
unparseable is ignored, unknown keys are ignored — and each change is reported
as a short plain sentence for the page's notice.

Writing replaces the current history entry (``history.replaceState``) so moving
a slider never adds Back-button steps. Panel's own ``pn.state.location`` is not
used for this: its ``sync`` applies URL values without checking them against
the bounds, and its browser side calls ``history.pushState`` on every change.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import panel as pn
import param

from .selection import release_with_session

__all__ = [
    "MAX_VALUE_CHARS",
    "RESERVED_KEYS",
    "QueryResult",
    "UrlWriter",
    "coerce_value",
    "encode_query",
    "normalise_query",
    "page_query",
    "read_query",
    "serialise_value",
    "shown_value",
]

#: Keys the shell owns (which page, the template's theme, embedding, the
#: presenter view); the pages never see them and they are never reported as unknown.
RESERVED_KEYS = ("page", "theme", "figure", "embed", "present")
#: A value longer than this is refused before it is parsed (a 10 KB URL value
#: is never useful here).
MAX_VALUE_CHARS = 1000
_SHOWN_CHARS = 24
#: How a link writes a switch (``embed=1``, ``causal=off``).
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


@dataclass
class QueryResult:
    """Values ready for ``param.update`` and the notes that explain changes."""

    values: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _shown(raw: str) -> str:
    raw = raw if len(raw) <= _SHOWN_CHARS else raw[:_SHOWN_CHARS] + "…"
    return repr(raw)


def shown_value(value: Any) -> str:
    """A value as a sentence shows it: ``on``/``off``, ``10,000``, ``0.125``."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.6g}"
    return str(value)


def normalise_query(query: Mapping[str, Any]) -> dict[str, str]:
    """One text value per key from a parsed query.

    Accepts what ``pn.state.session_args`` holds (lists of ``bytes``) as well as
    plain strings. A repeated key keeps its *last* value, as most web
    frameworks do; bytes that are not UTF-8 are decoded with replacement.
    """
    out: dict[str, str] = {}
    for key, raw in query.items():
        if isinstance(raw, list | tuple):
            if not raw:
                continue
            raw = raw[-1]
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", errors="replace")
        out[str(key)] = str(raw)
    return out


class _Ignore(Exception):
    """The value cannot be used; the message says why."""


# Plain ASCII decimal notation only (Python's float() would also take other
# scripts' digits, "infinity", "nan" and underscores).
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)


def _parse_number(raw: str) -> float:
    text = raw.strip().replace(",", "")  # "10,000" reads as ten thousand
    if not _NUMBER.fullmatch(text):
        raise _Ignore("is not a number")
    value = float(text)
    if not math.isfinite(value):  # written out, but beyond a float: clamp like any huge value
        value = math.copysign(sys.float_info.max, value)
    return value


def coerce_value(
    p: param.Parameter, raw: str, bounds: tuple[Any, Any] | None = None
) -> tuple[Any, str | None]:
    """Turn the text ``raw`` into a valid value for parameter ``p``.

    ``bounds`` replaces the parameter's own bounds (for a bound that depends
    on another value, such as ``t < n``).

    Returns ``(value, note)``: ``note`` is ``None`` when ``raw`` was used as
    given, else a sentence saying what was changed. Raises ``ValueError`` with
    a sentence when ``raw`` cannot be used at all (the caller ignores it).
    """
    name, key = p.label or p.name, p.name
    given = f"{key}={_shown(raw)}"
    if len(raw) > MAX_VALUE_CHARS:
        raise ValueError(f"{key}: the value is {len(raw):,} characters long; ignored.")
    try:
        if isinstance(p, param.Boolean):
            word = raw.strip().lower()
            if word in TRUE_WORDS | FALSE_WORDS:
                return word in TRUE_WORDS, None
            raise _Ignore("is not true or false")
        if isinstance(p, param.Number):  # param.Integer too
            number = _parse_number(raw)
            value = round(number) if isinstance(p, param.Integer) else number
            low, high = bounds or p.bounds or (None, None)
            clamped = value if low is None else max(value, low)
            clamped = clamped if high is None else min(clamped, high)
            if clamped != value:
                return clamped, (
                    f"{given} is outside {shown_value(low)}…{shown_value(high)}; "
                    f"{name} set to {shown_value(clamped)}."
                )
            if value != number:
                return value, f"{given} is not a whole number; {name} set to {shown_value(value)}."
            return value, None
        if isinstance(p, param.Selector):
            objects = list(p.objects)  # the values, also when declared as {label: value}
            numeric = [o for o in objects if isinstance(o, int | float) and not isinstance(o, bool)]
            if numeric and len(numeric) == len(objects):
                value = _parse_number(raw)
                if value in objects:
                    return objects[objects.index(value)], None
                # Choices here are spread over decades (a base, a scale):
                # "nearest" is measured on a log scale when all are positive.
                if value > 0 and min(numeric) > 0:
                    nearest = min(numeric, key=lambda o: abs(math.log(o) - math.log(value)))
                else:
                    nearest = min(numeric, key=lambda o: abs(o - value))
                return nearest, (
                    f"{given} is not one of the choices; {name} set to the nearest, "
                    f"{shown_value(nearest)}."
                )
            text = raw.strip()
            for o in sorted(objects, key=lambda o: str(o) != text):  # an exact match first
                if str(o).lower() == text.lower():
                    return o, None
            raise _Ignore("is not one of " + ", ".join(str(o) for o in objects))
        if isinstance(p, param.String):
            return raw, None
    except _Ignore as why:
        raise ValueError(f"{given} {why}; ignored.") from None
    raise ValueError(f"{key} cannot be set from a link; ignored.")


def read_query(
    parameters: param.Parameters,
    query: Mapping[str, Any],
    names: Iterable[str],
    *,
    reserved: Iterable[str] = RESERVED_KEYS,
    bounds: Mapping[str, tuple[Any, Any]] | None = None,
) -> QueryResult:
    """Check every query value against the parameter it names.

    Parameters
    ----------
    parameters
        ``SomePage.param`` (class or instance): bounds and types come from here.
    query
        The parsed query string (values as text, bytes or lists of either).
    names
        The parameters a link may set (a page's controls).
    reserved
        Keys that belong to the shell; skipped silently.
    bounds
        Bounds that replace a parameter's own, by name (dependent bounds).

    Returns
    -------
    QueryResult
        ``values`` holds only usable, in-range values; ``notes`` one sentence
        per value that was clamped, rounded or ignored, and per unknown key.
    """
    names = list(names)
    reserved = set(reserved)
    result = QueryResult()
    unknown: list[str] = []
    for key, raw in normalise_query(query).items():
        if key in reserved:
            continue
        if key not in names:
            unknown.append(key)
            continue
        try:
            value, note = coerce_value(parameters[key], raw, (bounds or {}).get(key))
        except ValueError as err:
            result.notes.append(str(err))
            continue
        result.values[key] = value
        if note:
            result.notes.append(note)
    if unknown:
        shown = ", ".join(_shown(k) for k in unknown[:5]) + (" …" if len(unknown) > 5 else "")
        result.notes.append(f"Not a setting of this page, ignored: {shown}.")
    # Apply in declaration order so a later page rule (t < n) sees final values.
    result.values = {n: result.values[n] for n in names if n in result.values}
    return result


def serialise_value(value: Any) -> str:
    """A parameter value as it appears in a link."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    return str(value)


def page_query(page_name: str, obj: param.Parameterized, names: Iterable[str]) -> dict[str, str]:
    """The query that reopens ``obj`` exactly: ``{"page": ..., name: value, ...}``."""
    return {"page": page_name, **{n: serialise_value(getattr(obj, n)) for n in names}}


def encode_query(query: Mapping[str, str]) -> str:
    """``?a=1&b=x%20y`` (``''`` for an empty query)."""
    return "?" + urlencode(dict(query)) if query else ""


# Runs in the browser whenever the server changes the hidden box's value:
# replace (never push) the current history entry's query, keep path and hash.
_REPLACE_JS = """
const search = source.value;
if (typeof search === 'string' && (search === '' || search.startsWith('?'))) {
  const url = window.location.pathname + search + window.location.hash;
  if (url !== window.location.pathname + window.location.search + window.location.hash) {
    window.history.replaceState(window.history.state, '', url);
  }
}
"""


class UrlWriter:
    """Keeps the browser's address bar equal to the session's state.

    Place ``view`` anywhere in the page (it is invisible). Each
    :meth:`write` sends one short string; the browser replaces the current
    history entry with it.
    """

    def __init__(self) -> None:
        self.view = pn.widgets.TextInput(value="", visible=False)
        self.view.jscallback(value=_REPLACE_JS)
        release_with_session(self.view)
        self._pending: str | None = None
        self._ready = False

    @property
    def search(self) -> str:
        """The last query written (``?...``)."""
        return self.view.value

    def write(self, query: Mapping[str, str]) -> None:
        """Replace the address bar's query (held back until the page has loaded)."""
        search = encode_query(query)
        if self._ready:
            self.view.value = search
        else:
            self._pending = search

    def activate(self) -> None:
        """Start writing; call once the browser has the page (``pn.state.onload``).

        Writes made before are held back: a value already in the page when it
        loads would not fire the browser-side callback.
        """
        self._ready = True
        if self._pending is not None:
            self.view.value, self._pending = self._pending, None
