"""The naive pattern for ``benchmarks/latency.py``: rebuild the figure on every change.

The Sinusoidal page's code table (S1) with its highlighted row, written the
way most first versions are: ``pn.bind`` calls a function that builds a new
HoloViews plot from scratch each time a slider moves, so every change
recomputes the table and sends a whole new Bokeh figure. Same sizes as the
page's defaults (n = 64 positions, d = 64 dimensions, base 10,000), and n and d
on sliders over the page's ranges for ``latency.py --across``.

    panel serve app benchmarks/naive_app.py    # served at /naive_app
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import panel as pn

from positional_core.sinusoidal import sinusoidal_encoding

N, D, BASE = 64, 64, 10_000

pn.extension()
hv.extension("bokeh")


def code_table(t: int, n: int = N, d: int = D) -> hv.Overlay:
    """A new plot every call: the table, recomputed, and an outline on row ``t``."""
    t = min(t, n - 1)
    table = sinusoidal_encoding(n, d, BASE)
    image = hv.Image(
        (np.arange(d), np.arange(n), table), kdims=["dimension", "position"], vdims=["PE"]
    ).opts(
        cmap="RdBu_r",
        clim=(-1, 1),
        colorbar=True,
        invert_yaxis=True,
        tools=["hover"],
        height=340,
        responsive=True,
    )
    row = hv.Rectangles([(-0.5, t - 0.5, d - 0.5, t + 0.5)]).opts(
        fill_alpha=0, line_color="black", line_width=2
    )
    return image * row


t = pn.widgets.IntSlider(name="Position t", start=0, end=N - 1, value=10)
# The Sinusoidal page's ranges and labels (latency.py finds sliders by label).
n = pn.widgets.IntSlider(name="Number of positions n", start=2, end=4096, value=N)
d = pn.widgets.IntSlider(name="Dimension d (even)", start=2, end=512, step=2, value=D)

if __name__.startswith("bokeh"):  # served (not imported by floor_app.py)
    figure = pn.panel(pn.bind(code_table, t, n, d))
    pn.Column(t, n, d, figure, sizing_mode="stretch_width").servable(title="Naive pn.bind rebuild")
