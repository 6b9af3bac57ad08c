"""The template's design with every asset served by the app itself.

Panel's Fast design lists the Open Sans web font from Google Fonts as a
resource; the page would fetch it on every load (and wait for it offline).
:class:`OfflineFast` is the same design without that font: the app uses the
system font stack of :data:`app.look.FONT_STACK` instead. Everything else the
design loads is bundled with Panel and served from ``/static``.
"""

from __future__ import annotations

from typing import Any

from panel.io.resources import CDN_DIST, isurl
from panel.theme.fast import Fast

__all__ = ["OfflineFast"]


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
    """Panel's Fast design minus its Google web font."""

    _resources = _without_web_font(Fast._resources)
