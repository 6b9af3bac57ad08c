"""A y axis whose tick labels change width with the controls keeps its own width.

Bokeh fits an axis to its widest tick label, and an axis that changes width makes
it lay out the whole page again: on Compare that was a relayout on most changes of
L or L′, 30 ms each. Charts with ``y_tick_room`` place the axis title a fixed
distance from the axis line instead (``Chart.y_tick_room``). These tests open
those pages at states far apart (the corners of the controls' ranges) and check,
for every such axis, that its width never changes and that its widest tick label
still ends before the title.
"""

from __future__ import annotations

import pytest

from .helpers import open_page

#: Per page: how many axes hold a fixed room, and states (URL queries) whose tick
#: labels differ in width: defaults, shortest and longest lengths, extreme bases.
STATES = {
    "compare": (
        2,
        (
            "",
            "trained_len=128&target_len=1048576&d=4&base=1000000&heads=1",
            "trained_len=262144&target_len=262144&d=512&base=1000&heads=128",
            "trained_len=128&target_len=256&d=512&base=1000&heads=3",
            "trained_len=1024&target_len=1048576&d=64&base=500000&heads=128",
        ),
    ),
    "sinusoidal": (
        1,
        ("", "n=2&d=2&base=10", "n=4096&d=512&base=1000000", "n=4096&d=512&base=10", "base=10"),
    ),
    "alibi": (2, ("", "seq_len=4&heads=1", "seq_len=128&heads=128", "seq_len=10")),
    "relative": (
        1,
        (
            "",
            "num_buckets=4&max_distance=2&mode=causal&offset_range=8",
            "num_buckets=128&max_distance=1024&offset_range=1024",
            "num_buckets=10&mode=causal",
        ),
    ),
    "extension": (
        3,
        (
            "",
            "preset=custom&method=linear&factor=8192&trained_len=128&target_len=1048576"
            "&base=1000000000&d=512",
            "preset=custom&method=ntk&factor=1&base=10&d=4&trained_len=524288&target_len=524288",
            "preset=custom&method=dynamic&factor=8192&base=10&d=512&trained_len=128"
            "&target_len=1048576",
            "preset=custom&method=llama3&factor=8192&low_freq_factor=0.25"
            "&high_freq_factor=64&base=500000&trained_len=8192&target_len=1048576",
            "preset=custom&method=yarn&factor=3.5&base=1000000000&d=512&trained_len=4096"
            "&target_len=14336",
        ),
    ),
}

#: Each y axis with a fixed room: its title, its width, and how far its tick labels
#: reach from the axis line (tick, standoff, widest label, padding) against the room.
_ROOMY_AXES_JS = """() => {
  const Plot = Bokeh.Models.get('Plot');
  const out = [];
  for (const doc of Bokeh.documents) for (const plot of doc.all_models) {
    if (!(plot instanceof Plot)) continue;
    const view = Bokeh.index.find_one(plot);
    if (!view || !view.is_displayed) continue;
    for (const axis of plot.left) {
      if (axis.axis_label_standoff_mode !== 'axis') continue;
      const axis_view = view.renderer_views.get(axis);
      const {tick, tick_label} = axis_view.extents;
      out.push({title: axis.axis_label, width: axis_view.layout.bbox.width,
                reach: tick + tick_label, room: axis.axis_label_standoff});
    }
  }
  return out;
}"""


@pytest.mark.parametrize("slug", list(STATES))
def test_roomy_axes_keep_their_width_and_hold_their_labels(page, server, slug):
    count, states = STATES[slug]
    seen: dict[str, list[dict]] = {}
    for query in states:
        open_page(page, f"{server['url']}?page={slug}&{query}", min_canvases=2)
        page.wait_for_function(f"() => ({_ROOMY_AXES_JS})().length >= {count}", timeout=30_000)
        axes = page.evaluate(_ROOMY_AXES_JS)
        assert len(axes) == count, axes
        for axis in axes:
            assert axis["reach"] <= axis["room"], f"{query}: labels reach the title: {axis}"
            seen.setdefault(axis["title"], []).append(axis)
    for title, states_seen in seen.items():
        widths = {a["width"] for a in states_seen}
        assert len(widths) == 1, f"{title!r} changed width: {states_seen}"
        # The states did change the labels' width: the room is what held the axis.
        assert len({round(a["reach"]) for a in states_seen}) > 1, (title, states_seen)


_TITLES_JS = """() => {
  const titles = {};
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    if (typeof m.axis_label === "string" && m.axis_label.startsWith("shift k of the whole")) {
      titles.below = m.axis_label;
    }
  }
  return titles.below ?? null;
}"""


def test_an_axis_title_longer_than_its_figure_breaks_into_two_lines(page, server):
    """R8's "shift k of the whole sentence (positions)" runs past its figure on a phone
    (app/static/narrow.js): there it breaks at a space into two lines; on a laptop,
    and again once the window is wide, it is one line."""
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, f"{server['url']}?page=rope")
    page.wait_for_function(f"({_TITLES_JS})()?.includes('\\n')", timeout=10_000)
    assert page.evaluate(_TITLES_JS).replace("\n", " ") == (
        "shift k of the whole sentence (positions)"
    )
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function(f"({_TITLES_JS})() === 'shift k of the whole sentence (positions)'")
