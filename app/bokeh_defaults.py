"""Bokeh's plain property defaults, worked out once per class instead of per read.

Reading a Bokeh property that was never set returns its default, and Bokeh
works that default out again on every read: it copies the declared value,
looks for the class's overrides and validates the result
(``PropertyDescriptor._get_default``). A default that is a container or a
model ("unstable") is kept per object after its first read; a plain one (a
number, a string, ``None``) is not. HoloViews reads dozens of them per glyph
when it builds a plot (copying a glyph's properties to its selection and
hover glyphs), so a page's first build read ~13,000 plain defaults, each
worked out afresh, a sizeable part of a session's build (docs/performance.md).

:func:`keep_plain_defaults` keeps the answer per (class, property) for
defaults that are immutable values and not set by a theme. The value kept is
the one Bokeh computes, and it depends only on the class and the property
name: the per-object inputs (a theme's value, an unstable default) are left
to Bokeh. Applied once per server process from the app's module; if a later
Bokeh renames what is wrapped, the app works as before, only slower.
"""

from __future__ import annotations

from typing import Any

__all__ = ["keep_plain_defaults"]

# Values that cannot be changed in place: sharing one between objects is safe.
_PLAIN = (type(None), bool, int, float, str)
_MISSING = object()


def keep_plain_defaults() -> None:
    """Wrap Bokeh's default lookup so that plain defaults are worked out once."""
    from bokeh.core.property.descriptors import PropertyDescriptor

    original = getattr(PropertyDescriptor, "_get_default", None)
    if original is None or getattr(original, "_pe_kept", False):
        return
    kept: dict[tuple[type, str], Any] = {}

    def get_default(self: Any, obj: Any) -> Any:
        themed = obj.themed_values()
        if themed is not None and self.name in themed:
            return original(self, obj)
        key = (type(obj), self.name)
        value = kept.get(key, _MISSING)
        if value is _MISSING:
            value = original(self, obj)
            if type(value) in _PLAIN and not self.has_unstable_default(obj):
                kept[key] = value
        return value

    get_default._pe_kept = True  # type: ignore[attr-defined]
    get_default.__wrapped__ = original  # type: ignore[attr-defined]
    PropertyDescriptor._get_default = get_default
