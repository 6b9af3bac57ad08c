"""Fixtures for the app's component tests: pages built and driven in Python, no browser."""

from __future__ import annotations

import logging

import holoviews as hv
import pytest
from bokeh.document import Document
from bokeh.models import GlyphRenderer

from app.main import PAGES


class _HookFailures(logging.Handler):
    """Collects HoloViews' reports of a plotting hook that raised."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "hook" in message and "could not be applied" in message:
            self.messages.append(message)


@pytest.fixture(autouse=True)
def no_failed_plot_hooks():
    """Fail a test in which a HoloViews plotting hook raised.

    HoloViews catches a hook's exception and only logs a warning, and the app's
    hooks attach what the browser selects from (app/choice.py): a hook that
    fails leaves the browser selecting from stale data, silently (it happened:
    S4's marks with max_len ≥ n).
    """
    handler = _HookFailures()
    logger = logging.getLogger("param")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
    assert not handler.messages, handler.messages[0][:500]


@pytest.fixture(params=sorted(PAGES), ids=str)
def page(request):
    """A fresh instance of every page, one test run per page."""
    return PAGES[request.param]()


@pytest.fixture
def document():
    return Document()


@pytest.fixture
def render():
    """Build the HoloViews plot of a figure's plot with the Bokeh backend."""
    return hv.renderer("bokeh").get_plot


@pytest.fixture
def sources():
    """``sources(plot, GlyphType)``: data sources of the renderers drawing that glyph."""

    def find(plot, glyph_type):
        return [
            r.data_source
            for r in plot.state.select(GlyphRenderer)
            if isinstance(r.glyph, glyph_type)
        ]

    return find
