"""MkDocs hook: ``{{ explorer_url }}`` in a page becomes the configured address of
the explorer's server (``extra.explorer_url``, or ``EXPLORER_URL`` when set)."""

from __future__ import annotations

from typing import Any


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return markdown.replace("{{ explorer_url }}", config["extra"]["explorer_url"])
