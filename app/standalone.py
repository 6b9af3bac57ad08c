"""A saved Panel page made self-contained: it loads nothing from another host.

Panel's ``save(embed=True)`` with inline resources still links a few style
sheets on the HoloViz CDN (Panel's ``loading.css``, ``listpanel.css``,
``katex.css`` and the design's sheet); :func:`make_self_contained` turns each
into an inline sheet holding the text of Panel's installed copy (in the
document and in every recorded state), drops external module scripts, and
refuses a page that would still load anything from another host.
:func:`with_page_scripts` inlines the app's own scripts; :func:`share_libraries`
moves the large scripts (BokehJS, Panel, KaTeX, the app's own) out
into a folder that every figure of an export shares.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any

from panel.io.resources import CDN_DIST, DIST_DIR

__all__ = ["make_self_contained", "share_libraries", "with_page_scripts"]

#: The app's scripts, inlined here (served pages load them by URL, see app/main.py).
_PAGE_SCRIPTS = [
    Path(__file__).parent / "static" / name for name in ("a11y.js", "overlay.js", "embed.js")
]


def _local_css(url: str) -> str:
    """The text of a stylesheet Panel references on its CDN, read from its ``dist``."""
    if not url.startswith(CDN_DIST):
        raise ValueError(f"stylesheet outside Panel's dist, cannot inline: {url}")
    relative = url[len(CDN_DIST) :].split("?", 1)[0].split("#", 1)[0]
    path = (Path(DIST_DIR) / relative).resolve()
    if Path(DIST_DIR).resolve() not in path.parents or not path.is_file():
        raise ValueError(f"no local copy of stylesheet {url}")
    return path.read_text(encoding="utf-8")


def _inline_stylesheets(node: Any) -> Any:
    """``node`` (serialised Bokeh JSON) with every ImportedStyleSheet made inline.

    Also walks JSON held in strings: the embedded states keep each recorded
    document patch as a JSON string.
    """
    if isinstance(node, dict):
        if node.get("name") == "ImportedStyleSheet" and "attributes" in node:
            css = _local_css(node["attributes"].get("url", ""))
            return {**node, "name": "InlineStyleSheet", "attributes": {"css": css}}
        return {k: _inline_stylesheets(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline_stylesheets(v) for v in node]
    if isinstance(node, str) and "ImportedStyleSheet" in node:
        try:
            inner = json.loads(node)
        except ValueError:
            return node
        return json.dumps(_inline_stylesheets(inner), separators=(",", ":"))
    return node


_DOCS_JSON = re.compile(r'(<script type="application/json" id="[^"]+">)(.*?)(</script>)', re.S)
_EXTERNAL_MODULE = re.compile(r'<script type="module" src="https?://[^"]*"></script>\s*')
_EXTERNAL_REF = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", re.I)


def _leaves(state: dict) -> int:
    """States in Panel's recorded map: one per combination of the widgets' values
    (a map of maps, one level a widget; Bokeh serialises a map as its entries)."""
    entries = state.get("entries") if state.get("type") == "map" else list(state.items())
    if any(key == "content" for key, _ in entries or ()):  # a recorded patch message
        return 1
    return sum(_leaves(value) for _, value in entries or () if isinstance(value, dict))


def _recorded_states(node: Any) -> int:
    """How many states the embedded ``State`` model of the serialised document holds."""
    if isinstance(node, dict):
        if str(node.get("name", "")).endswith("models.state.State"):
            state = node.get("attributes", {}).get("state", {})
            return _leaves(state) if isinstance(state, dict) else 0
        node = list(node.values())
    return max(map(_recorded_states, node), default=0) if isinstance(node, list) else 0


def make_self_contained(page_html: str) -> tuple[str, int]:
    """Inline the stylesheets Panel links to and drop external module scripts.

    Returns the page and the number of precomputed states it holds; raises
    ``ValueError`` if anything would still load from another host.
    """
    states: list[int] = []

    def fix(match: re.Match[str]) -> str:
        docs = _inline_stylesheets(json.loads(html.unescape(match.group(2))))
        text = json.dumps(docs, separators=(",", ":"))
        if "ImportedStyleSheet" in text:
            raise ValueError("a stylesheet link is left in the document")
        states.append(_recorded_states(docs))
        return match.group(1) + html.escape(text, quote=False) + match.group(3)

    out, count = _DOCS_JSON.subn(fix, page_html)
    if count != 1:
        raise ValueError(f"expected one Bokeh document in the page, found {count}")
    out = _EXTERNAL_MODULE.sub("", out)
    # A tag whose src/href would load something from another host.
    tags = re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*>", out, re.I)
    external = [t for t in tags if _EXTERNAL_REF.search(t)]
    if external:
        raise ValueError(f"external reference left in the page: {external[0][:120]}")
    return out, states[0]


def with_page_scripts(page_html: str) -> str:
    """``page_html`` with the app's scripts (app/static/) inlined at the end of its body."""
    scripts = [f.read_text(encoding="utf-8") for f in _PAGE_SCRIPTS]
    if any("</script" in s.lower() for s in scripts) or "</body>" not in page_html:
        raise ValueError("cannot inline the page scripts")
    head, tail = page_html.rsplit("</body>", 1)
    names = [f.name for f in _PAGE_SCRIPTS]
    inlined = "".join(
        f"<script>\n/* BEGIN {name} */\n{s}</script>\n"
        for name, s in zip(names, scripts, strict=True)
    )
    return f"{head}{inlined}</body>{tail}"


#: An inline script at least this long is a library (BokehJS, Panel, KaTeX,
#: the app's accessibility script), shared; shorter ones (the document's
#: start-up code) are the figure's own. Style sheets stay inline (23 kB): read
#: from ``file://``, a linked sheet is off limits to scripts that inspect the
#: page's CSS (axe-core, for one).
SHARED_MIN_CHARS = 8_000
_INLINE_SCRIPT = re.compile(r'<script(?: type="text/javascript")?>(.*?)</script>', re.S)
#: What a shared script is called: BokehJS's and Panel's bundles name
#: themselves, jsDelivr's copies name their package, KaTeX exports itself.
_LIBRARY_NAMES = (
    re.compile(r"/\* BEGIN ([\w.-]+?)(?:\.min)?\.js \*/"),
    re.compile(r"Original file: /npm/([\w.-]+)@"),
    re.compile(r"exports\.(katex)="),
)


def _library_name(body: str) -> str:
    head = body[:400]
    found = (m.group(1) for pattern in _LIBRARY_NAMES if (m := pattern.search(head)))
    return next(found, "script")


def _shared_file(folder: Path, stem: str, text: str) -> str:
    """Write ``text`` once into ``folder`` under a name its content fixes; the name."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    name = f"{stem}-{digest}.js"
    path = folder / name
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return name


def share_libraries(page_html: str, folder: Path) -> str:
    """``page_html`` with its large inline scripts moved into ``folder``.

    Each goes to a file named by its content (a figure exported later with the
    same libraries reuses it) and the page loads it by a relative URL as a
    classic script: in the same order as before, and from ``file://`` as well
    as from a web server. ``folder`` is a sibling of the page.
    """
    prefix = folder.name

    def script(match: re.Match[str]) -> str:
        body = match.group(1)
        if len(body) < SHARED_MIN_CHARS:
            return match.group(0)
        name = _shared_file(folder, _library_name(body), body)
        return f'<script src="{prefix}/{name}"></script>'

    return _INLINE_SCRIPT.sub(script, page_html)
