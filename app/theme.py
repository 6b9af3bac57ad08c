"""The template's design with every asset served by the app itself.

Panel's Fast design lists the Open Sans web font from Google Fonts as a
resource; the page would fetch it on every load (and wait for it offline).
:class:`OfflineFast` is the same design without that font: the app uses the
system font stack of :data:`app.look.FONT_STACK` instead. Everything else the
design loads is bundled with Panel and served from ``/static``.

It also adds ``static/a11y.css`` to every component (each draws in its own
shadow root, which the page's stylesheet does not reach): a visible focus ring
for keyboard users, and readable text on the accent colour.
"""

from __future__ import annotations

from typing import Any, ClassVar

from panel.io.resources import CDN_DIST, isurl
from panel.theme.base import Inherit
from panel.theme.fast import Fast
from panel.viewable import Viewable

__all__ = ["A11Y_CSS", "OfflineFast"]

#: The accessibility stylesheet, relative to this module (served by Panel).
A11Y_CSS = "static/a11y.css"


def _without_web_font(resources: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind, entries in resources.items():
        if kind == "font":
            continue
        if isinstance(entries, dict) and kind in {"js", "js_modules", "css"}:
            # Panel resolves a relative path against the design's class name;
            # pin Fast's own files so the subclass finds them.
            entries = {
                name: url if isurl(url) else f"{CDN_DIST}bundled/fast/{url}"
                for name, url in entries.items()
            }
        out[kind] = entries
    return out


class OfflineFast(Fast):
    """Panel's Fast design minus its Google web font, plus the accessibility sheet."""

    _resources = _without_web_font(Fast._resources)
    modifiers: ClassVar[dict[type[Viewable], dict[str, Any]]] = {
        **Fast.modifiers,
        Viewable: {"stylesheets": [Inherit, A11Y_CSS]},
    }
