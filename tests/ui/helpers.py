"""Small helpers shared by the browser tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlparse

from playwright.sync_api import Page

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
                if host in {"127.0.0.1", "localhost"} or route.request.url.startswith("data:"):
                    route.continue_()
                else:
                    self.external.append(route.request.url)
                    route.abort()

            page.route("**/*", route)
        return self


def open_page(page: Page, url: str, *, min_canvases: int = 1, timeout: float = 30_000) -> None:
    """Load ``url`` and wait until at least ``min_canvases`` Bokeh canvases are drawn."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(
        """n => { let count = 0;
             const walk = root => { for (const el of root.querySelectorAll('*')) {
               if (el.tagName === 'CANVAS') count++;
               if (el.shadowRoot) walk(el.shadowRoot); } };
             walk(document); return count >= n; }""",
        arg=min_canvases,
        timeout=timeout,
    )
    page.wait_for_load_state("networkidle")


def visible_text(page: Page) -> str:
    """All text in the page, shadow roots included."""
    return page.evaluate(
        """() => { const parts = []; const walk = root => {
             for (const el of root.querySelectorAll('*')) {
               if (el.shadowRoot) walk(el.shadowRoot);
               if (el.children.length === 0 && el.textContent) parts.push(el.textContent);
             } };
           walk(document); return parts.join('\\n'); }"""
    )


def new_server_errors(log_path, offset: int) -> str:
    """Server log text written after ``offset`` that reports an exception."""
    text = log_path.read_text(errors="replace")[offset:]
    markers = ("Traceback", "ERROR", "Exception")
    return text if any(marker in text for marker in markers) else ""
