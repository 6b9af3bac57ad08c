"""Log axes spanning less than a decade or two are ticked without crowding (``app.look.log_ticks``).

Bokeh's log ticker labels such a range like a linear one: 1, 1.5, 2, … 4.5,
and on a log axis 3.5, 4 and 4.5 crowd together (Compare's RoPE card, Context
extension's E3, seen in Chromium).
"""

from __future__ import annotations

import itertools
import math

import holoviews as hv
import pytest
from bokeh.document import Document
from bokeh.models import FixedTicker
from panel.io.state import set_curdoc

from app.look import log_ticks
from app.pages.compare import ComparePage
from app.pages.extension import ExtensionPage


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (0.95, 4.2, [1, 1.5, 2, 3, 4]),  # less than a decade
        (0.9, 300, [1, 2, 5, 10, 20, 50, 100, 200]),  # 1 to 3 decades
        (0.9, 2e4, [1, 10, 100, 1000, 10_000]),  # more
        (3.2, 3.9, [3.2, 3.4, 3.6, 3.8]),  # too narrow for two of those
        (4.2, 0.95, [1, 1.5, 2, 3, 4]),  # a reversed axis
    ],
)
def test_log_ticks(start, end, expected):
    assert log_ticks(start, end) == pytest.approx(expected)


@pytest.mark.parametrize("start", [0.01, 0.37, 0.9, 1.0, 2.5, 7.9, 40.0])
@pytest.mark.parametrize("ratio", [1.05, 1.5, 4.0, 9.0, 9.9, 11.0, 20.0, 300.0, 990.0, 1e4])
def test_log_ticks_never_crowd_and_stay_in_range(start, ratio):
    end = start * ratio
    ticks = log_ticks(start, end)
    assert len(ticks) >= 2
    assert all(start <= t <= end for t in ticks)
    # On the shortest of these axes (about 180 px), no two labels closer than
    # 16 px (a 9 pt label is about 12 px high).
    span = math.log10(end / start)
    gaps = [math.log10(b / a) / span * 180 for a, b in itertools.pairwise(ticks)]
    assert min(gaps) >= 16, (ticks, gaps)
    assert log_ticks(start, start) == []


def _y_ticks(plot):
    (axis,) = plot.state.yaxis
    assert isinstance(axis.ticker, FixedTicker)
    return list(axis.ticker.ticks)


def test_figures_follow_their_range():
    page = ExtensionPage(method="yarn")
    document = Document()  # a chart updates the plots shown in a document
    plot = hv.renderer("bokeh").get_plot(page.figures["methods"].plot, doc=document)
    document.add_root(plot.state)
    y = plot.state.y_range
    assert _y_ticks(plot) == log_ticks(y.start, y.end)
    with set_curdoc(document):
        page.target_len = 32 * page.trained_len  # slow-down up to 32: 1, 2, 5, 10, 20
    assert y.end > 30
    assert _y_ticks(plot) == log_ticks(y.start, y.end)
    assert 10 in _y_ticks(plot) and 1.5 not in _y_ticks(plot)

    compare = ComparePage()
    plot = hv.renderer("bokeh").get_plot(compare.figures["rope"].plot)
    y = plot.state.y_range
    assert _y_ticks(plot) == log_ticks(y.start, y.end)
    assert {1, 2, 3, 4} <= set(_y_ticks(plot))
