"""Small helpers shared by the browser tests."""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

#: Bokeh draws each plot on a canvas inside the figure's shadow root.
CANVAS = ".bk-Canvas canvas"


@dataclass
class PageWatch:
    """Console errors, uncaught exceptions and dialogs seen by a page."""

    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)

    def attach(self, page: Page, *, block_external: bool = True) -> PageWatch:
        page.on(
            "console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None
        )
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))

        def on_dialog(dialog):
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)
        if block_external:

            def route(route):
                host = urlparse(route.request.url).hostname
                if host in {"127.0.0.1", "localhost"} or route.request.url.startswith(
                    ("data:", "file:")
                ):
                    route.continue_()
                else:
                    self.external.append(route.request.url)
                    route.abort()

            page.route("**/*", route)
        return self


#: JavaScript: ``deepElements()`` lists every element of the page, inside
#: shadow roots too (Panel renders each component in its own shadow root, so
#: ``document.querySelectorAll`` alone finds almost nothing).
DEEP_ELEMENTS_JS = """const deepElements = (root = document, out = []) => {
  for (const el of root.querySelectorAll('*')) {
    out.push(el);
    if (el.shadowRoot) deepElements(el.shadowRoot, out);
  }
  return out;
};"""


def deep_js(expression: str) -> str:
    """A page function ``arg => expression`` that may call ``deepElements()``.

    For ``page.evaluate(deep_js(...), arg)`` and ``page.wait_for_function``.
    """
    return f"arg => {{ {DEEP_ELEMENTS_JS} return ({expression}); }}"


def open_page(page: Page, url: str, *, min_canvases: int = 1, timeout: float = 30_000) -> None:
    """Load ``url`` and wait until at least ``min_canvases`` Bokeh canvases are drawn."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(
        deep_js("deepElements().filter(el => el.tagName === 'CANVAS').length >= arg"),
        arg=min_canvases,
        timeout=timeout,
    )
    page.wait_for_load_state("networkidle")


def visible_text(page: Page) -> str:
    """All text in the page, shadow roots included."""
    return page.evaluate(
        deep_js(
            "deepElements().filter(el => el.children.length === 0 && el.textContent)"
            ".map(el => el.textContent).join('\\n')"
        )
    )


def slider_handle_names(page: Page) -> list[str]:
    """The accessible name of every slider handle (app/static/a11y.js names them)."""
    return page.evaluate(
        deep_js(
            "deepElements().filter(el => el.classList.contains('noUi-handle'))"
            ".map(el => el.getAttribute('aria-label') || '')"
        )
    )


_A11Y_SCANNED = """(() => {
  const els = deepElements();
  const layers = els.filter(el => el.matches('.bk-layer.bk-events[tabindex]'));
  const handles = els.filter(el => el.classList.contains('noUi-handle'));
  // A card's header button gets its title from a child view drawn a moment
  // later: until then axe reads a button with no name.
  const text = el => [el, ...deepElements(el)]
    .filter(e => e.children.length === 0 && !['STYLE', 'SCRIPT'].includes(e.tagName))
    .map(e => e.textContent).join('').trim();
  const headers = els.filter(el => el.matches('button.card-header') && el.getClientRects().length);
  return layers.length > 0 && [...layers, ...handles].every(el => el.getAttribute('aria-label'))
    && headers.every(text);
})()"""


def wait_for_a11y_scan(page: Page, timeout: float = 10_000) -> None:
    """Wait until app/static/a11y.js has named every figure and slider handle drawn,
    and every card's header shows its title.

    The script scans when the browser is idle (``requestIdleCallback``, at most
    ~1.2 s after the page or a change; later on a busy machine). On timeout
    this returns anyway, for the caller's assertions to say what is missing.
    """
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(deep_js(_A11Y_SCANNED), timeout=timeout)


def deep_count(page: Page, selector: str) -> int:
    """How many elements match ``selector``, shadow roots included."""
    return page.evaluate(deep_js("deepElements().filter(el => el.matches(arg)).length"), selector)


#: Disconnects the server logs when a test's browser closes a tab mid-message:
#: the client went away, the server is fine.
BENIGN_SERVER_ERRORS = (
    "WebSocketClosedError",
    "StreamClosedError",
    # Bokeh's connection handling when a tab closes with messages in flight
    # (bokeh/server/connection.py); none of the app's code runs.
    "assert self._session is not None",
)


def error_records(text: str) -> list[str]:
    """The records of a server log ``text`` that report an exception.

    A record starts with a timestamp line and runs until the next one (a
    traceback belongs to the record above it). Records that only report a
    browser that closed its websocket are left out.
    """
    records: list[list[str]] = []
    for line in text.splitlines():
        if re.match(r"\d{4}-\d\d-\d\d ", line) or not records:
            records.append([line])
        else:
            records[-1].append(line)
    markers = ("Traceback", "ERROR", "Exception")
    return [
        "\n".join(record)
        for record in records
        if any(m in line for line in record for m in markers)
        and not any(b in line for line in record for b in BENIGN_SERVER_ERRORS)
    ]


def new_server_errors(log_path, offset: int) -> str:
    """The exception records (:func:`error_records`) logged after ``offset``."""
    return "\n".join(error_records(log_path.read_text(errors="replace")[offset:]))


#: JavaScript: ``titled(title)``, the slider model whose title starts with
#: ``title``; for a slider with a number box (Panel's editable slider: a column
#: of a row holding the label and the box, then the slider) the slider under
#: the label that does.
TITLED_JS = """const titled = title => {
  const models = [...Bokeh.documents[0].all_models];
  const direct = models.find(m => typeof m.title === 'string' && m.title.startsWith(title));
  if (direct) return direct;
  for (const m of models) {
    const kids = m.children;
    if (!Array.isArray(kids) || kids.length !== 2 || !Array.isArray(kids[0].children)) continue;
    if (kids[0].children.some(c => typeof c.text === 'string' && c.text.startsWith(title)))
      return kids[1];
  }
};"""

#: JavaScript: set the value of the slider whose title starts with ``title``, as a
#: drag of it does (``page.evaluate(SET_SLIDER_JS, [title, value])``).
SET_SLIDER_JS = f"""
([title, value]) => {{
  {TITLED_JS}
  titled(title).value = value;
}}
"""

#: The same for a throttled slider, released: the server hears of it then.
SET_RELEASED_JS = f"""
([title, value]) => {{
  {TITLED_JS}
  titled(title).setv({{value, value_throttled: value}});
}}
"""


def record_frames(page: Page) -> list[str]:
    """The text frames the page receives on its websockets, as they arrive."""
    frames: list[str] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived", lambda f: frames.append(f) if isinstance(f, str) else None
        ),
    )
    return frames


def server_events(frames: list[str]) -> list[dict]:
    """The server → browser document events in ``frames``."""
    return [
        event
        for frame in frames
        if frame.startswith("{") and '"events"' in frame
        for event in json.loads(frame).get("events", [])
    ]


def figure_data_events(frames: list[str]) -> list[str]:
    """Server → browser events that replace or patch a data source."""
    return [
        f"{e.get('kind')} {e.get('attr')}"
        for e in server_events(frames)
        if e.get("kind") in {"ColumnDataChanged", "ColumnsStreamed", "ColumnsPatched"}
        or e.get("attr") == "data"
    ]


_LAYOUT_DOMS = """ids => ids.filter(id => Bokeh.documents.some(doc => {
  const model = doc.get_model_by_id(id);
  return model != null && model instanceof Bokeh.Models.get("LayoutDOM");
}))"""


def visibility_events(frames: list[str], page: Page | None = None) -> list[str]:
    """Server → browser events that show or hide a component (each re-lays out the page).

    With ``page``, only those of layout components (a legend entry's ``visible``
    changes no layout)."""
    events = [e for e in server_events(frames) if e.get("attr") in {"visible", "css_classes"}]
    if page is not None:
        ids = [e["model"]["id"] for e in events]
        kept = set(page.evaluate(_LAYOUT_DOMS, ids))
        events = [e for e in events if e["model"]["id"] in kept]
    return [f"{e.get('attr')} = {e.get('new')}" for e in events]


def open_recording(page: Page, url: str, canvases: int) -> tuple[PageWatch, list[str]]:
    """Open ``url``, then record only what the server sends from here on."""
    watch = PageWatch().attach(page)
    frames = record_frames(page)
    open_page(page, url, min_canvases=canvases)
    page.wait_for_timeout(500)
    frames.clear()
    return watch, frames


def serious_axe_violations(page: Page) -> list[str]:
    """axe-core's critical and serious violations on ``page``, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page, options={"resultTypes": ["violations"]}).response["violations"]
    return [
        f"{v['id']} ({v['impact']}) ×{len(v['nodes'])}: {v['help']}: {v['nodes'][0]['html'][:100]}"
        for v in violations
        if v["impact"] in {"critical", "serious"}
    ]


def resize_script() -> str:
    """The lines docs/embedding.md tells a documentation page to add, as written there."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "embedding.md").read_text()
    blocks = re.findall(r"```html\n(<script>.*?</script>)\n```", text, re.S)
    (script,) = [b for b in blocks if "positional-encoding-explorer:height" in b]
    return script
