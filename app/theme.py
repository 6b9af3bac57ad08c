"""The designs, with every asset served by the app itself.

:class:`OfflineFast` is Panel's Fast design without its Google web font (the
page would fetch Open Sans on every load, and wait for it offline; the app
uses the system fonts of :data:`app.look.FONT_STACK`). :class:`OfflineNative`
is Panel's plain design, for the embedded views and the static exports. Both
add ``static/a11y.css`` to every component (each draws in its own shadow root,
which the page's stylesheet does not reach): a visible focus ring for keyboard
users, and readable text on the accent colour.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import panel.io.resources as panel_resources
from panel.io.resources import CDN_DIST, LOCAL_DIST, isurl, patch_model_css
from panel.io.state import state
from panel.theme.base import Inherit
from panel.theme.fast import Fast
from panel.theme.native import Native
from panel.viewable import Viewable

__all__ = [
    "A11Y_CSS",
    "A11Y_CSS_TEXT",
    "OfflineFast",
    "OfflineNative",
    "css_served_here",
    "without_mathjax",
]

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


#: The sheet's text, for the plain design (also used by static exports,
#: which have no server to fetch a file from).
A11Y_CSS_TEXT = (Path(__file__).parent / A11Y_CSS).read_text(encoding="utf-8")


class OfflineFast(Fast):
    """Panel's Fast design minus its Google web font, plus the accessibility sheet."""

    _resources = _without_web_font(Fast._resources)
    modifiers: ClassVar[dict[type[Viewable], dict[str, Any]]] = {
        **Fast.modifiers,
        Viewable: {"stylesheets": [Inherit, A11Y_CSS]},
    }


class OfflineNative(Native):
    """Panel's plain design plus the accessibility sheet (embedded views, static exports)."""

    modifiers: ClassVar[dict[type[Viewable], dict[str, Any]]] = {
        **Native.modifiers,
        Viewable: {"stylesheets": [Inherit, A11Y_CSS_TEXT]},
    }


@contextmanager
def css_served_here(doc: Any) -> Iterator[None]:
    """Build a session's components inside this block: their style sheets come from this server.

    Panel gives every component's style sheet a ``cdn.holoviz.org`` URL and
    rewrites it to ``/static/extensions/panel/`` when it renders the session's
    HTML page. Bokeh, though, discards a session whose browser has not opened
    its websocket within the unused-session lifetime, and builds a new one when
    the websocket does arrive. That one never has a page rendered, so its style
    sheets kept the CDN URLs and an offline classroom's browsers asked the
    internet for ten of them (found by ``benchmarks/classroom.py``: pages that
    took longer than the lifetime to load while several students loaded at
    once). Setting the document's ``dist_url`` first makes Panel write local
    URLs from the start, whichever way the session began; the roots are then
    patched once more for the components that skip Panel's rewriting
    (``pn.layout.Divider``).
    """
    if doc is None or doc.session_context is None:
        yield  # not served (static export, tests): nothing to rewrite
        return
    if "dist_url" not in doc._template_variables:
        rel = state.rel_path
        doc._template_variables["dist_url"] = f"{rel}/{LOCAL_DIST}" if rel else LOCAL_DIST
    yield
    for root in doc.roots:
        patch_model_css(root, dist_url=doc._template_variables["dist_url"])


def without_mathjax() -> None:
    """Do not load Bokeh's MathJax bundle into every page with an HTML pane.

    Panel adds ``bokeh-mathjax.min.js`` (1.8 MB, the largest script of the
    page) to any document that holds an HTML or Markdown pane, in case the
    text contains TeX (``panel.io.resources._panel_use_mathjax``). Here none
    does: the formulas are ``pn.pane.LaTeX`` with KaTeX, HTML panes leave math
    off (``disable_math``, True by default) and the Markdown panes are short
    labels of ours, without ``$``. Bokeh's own test for MathJax (a TeX axis
    label or glyph) still applies; without the bundle an HTML pane finds no
    provider and shows its text as it is.
    """
    if hasattr(panel_resources, "_panel_use_mathjax"):
        panel_resources._panel_use_mathjax = lambda roots: False
