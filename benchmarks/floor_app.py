"""The floor for ``benchmarks/latency.py``: a change the browser draws alone.

The same figure as ``benchmarks/naive_app.py`` (Sinusoidal's code table, 64 ×
64, with an outline on row t), but the slider moves the outline with a
``CustomJS`` in the page and the server draws nothing. Measured with the same
probe as the app's controls, it is the least any control can take in this
browser: the change, Bokeh's repaint on its next animation frame, and the
frame after that (the probe's "painted"). A select control of the app that
measures near it has nothing left to cut on the server.

    panel serve app benchmarks/floor_app.py    # served at /floor_app
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import panel as pn

# The naive app's figure, loaded from beside this file (``panel serve`` does
# not put the project on the import path).
_spec = importlib.util.spec_from_file_location(
    "naive_app", Path(__file__).with_name("naive_app.py")
)
naive_app = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(naive_app)
N, code_table = naive_app.N, naive_app.code_table

# Only the outline's source changes; its rows are the figure's own layout of
# one rectangle (x0, y0, x1, y1), so the browser sets y0 / y1 from the value.
_MOVE_OUTLINE = """
const data = Object.assign({}, source.data);
data.y0 = [cb_obj.value - 0.5];
data.y1 = [cb_obj.value + 0.5];
source.data = data;
"""


def _outline_source(figure):
    """The data source of the outline (HoloViews draws ``hv.Rectangles`` as a Quad)."""
    for renderer in figure.renderers:
        if type(renderer.glyph).__name__ == "Quad":
            return renderer.data_source
    raise LookupError("no outline in the figure")


if __name__.startswith("bokeh"):  # served
    import holoviews as hv

    t = pn.widgets.IntSlider(name="Position t", start=0, end=N - 1, value=10)
    figure = hv.render(code_table(t.value), backend="bokeh")
    t.jscallback(value=_MOVE_OUTLINE, args={"source": _outline_source(figure)})
    pn.Column(t, pn.pane.Bokeh(figure), sizing_mode="stretch_width").servable(
        title="Floor: the browser draws alone"
    )
