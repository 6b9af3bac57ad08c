"""Fixtures for the app's component tests: pages built and driven in Python, no browser."""

from __future__ import annotations

import holoviews as hv
import pytest
from bokeh.document import Document
from bokeh.models import GlyphRenderer

from app.main import PAGES


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
