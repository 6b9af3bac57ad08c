"""Element options set once per figure layer and shared by the frames after it (issue 8).

A page's figure methods build new elements on every change and style them
with ``.opts(...)``. HoloViews then creates a new option tree for each element
and walks the overlay to give it its id: measured at 13–19 % of a change's
server time on Compare, RoPE and ALiBi (25–34 ``.opts`` calls per change).
Most of those options are the same from one frame to the next (a colour, a
line width, the tooltips).

:class:`Styles` keeps, per *slot* (one call site: "C2's seen arc"), the last
options and the element they were set on. When a new element of the same
type comes with equal options it takes that element's option id, which is
HoloViews' own handle on an option tree (``element.id``; the tree lives as
long as an element with that id does). Any other case (new options, another
type, options that cannot be compared, an element that already has options
of its own) is ``.opts`` as before.

Per page instance (one session), at most one kept element per slot.
tests/app/test_styles.py checks that shared options draw what ``.opts``
draws, page by page, and that a slot keeps one option tree.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["Styles"]

E = TypeVar("E")


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """True when two option dicts are equal; False when they differ or cannot be compared."""
    if a.keys() != b.keys():
        return False
    try:
        return all(a[k] is b[k] or bool(a[k] == b[k]) for k in a)
    except (TypeError, ValueError):  # e.g. arrays: not kept
        return False


class Styles:
    """``self.style(element, "slot", color=..., line_width=...)``: ``element.opts(...)``,
    sharing the option tree of the slot's last element when the options are equal."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[dict[str, Any], Any]] = {}
        #: False: every call is ``element.opts(**options)`` (tests compare the two).
        self.sharing = True
        #: Counters for tests: calls that shared a tree / that set options.
        self.shared = 0
        self.set = 0

    def __call__(self, element: E, slot: str, **options: Any) -> E:
        kept = self._kept.get(slot)
        if (
            self.sharing
            and kept is not None
            and element.id is None  # options of its own would be lost
            and type(element) is type(kept[1])
            and _same(options, kept[0])
        ):
            element.id = kept[1].id
            self.shared += 1
            return element
        styled = element.opts(**options)
        self.set += 1
        if self.sharing:
            self._kept[slot] = (options, styled)
        return styled
