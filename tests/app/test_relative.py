"""Relative page: set parameters, assert on the plot data against the core."""

from __future__ import annotations

import numpy as np
import pytest
from bokeh.document import Document
from bokeh.document.events import ColumnDataChangedEvent
from bokeh.models import Image, MultiLine, MultiPolygons, Quad, Scatter, Segment
from bokeh.models import Line as LineGlyph

from app.relative import BIAS_SEED, ORDER_PAIR, T5_PRESETS, RelativePage, t5_preset_values
from app.urlstate import page_query
from positional_core.attention import order_similarity
from positional_core.presets import model_config
from positional_core.relative import (
    nope_row_weight,
    shaw_clipped_distance,
    shaw_relative_index,
    t5_bias_matrix,
    t5_bucket_regions,
    t5_random_bucket_biases,
    t5_relative_bucket,
)

SETTINGS = [
    {"num_buckets": 32, "max_distance": 128, "mode": "bidirectional"},
    {"num_buckets": 32, "max_distance": 128, "mode": "causal"},
    {"num_buckets": 8, "max_distance": 20, "mode": "bidirectional"},
    {"num_buckets": 64, "max_distance": 500, "mode": "causal"},
    {"num_buckets": 4, "max_distance": 2, "mode": "bidirectional"},
]


@pytest.fixture
def page():
    return RelativePage()


def _core_kwargs(page: RelativePage) -> dict:
    return {
        "bidirectional": page.mode == "bidirectional",
        "num_buckets": page.num_buckets,
        "max_distance": page.max_distance,
    }


def _step_source(plot, sources):
    (src,) = [s for s in sources(plot, LineGlyph) if "region" in s.data]
    return src


def _image_source(plot, sources):
    (src,) = sources(plot, Image)
    return src


# ------------------------------------------------------------ T1a step chart
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(map(str, s.values())))
def test_plotted_buckets_are_the_core_buckets(page, render, sources, settings):
    plot = render(page.figures["buckets"].plot)
    page.set_state(offset_range=300, **settings)
    src = _step_source(plot, sources)
    # The step line repeats each offset's values at both ends of its step.
    pairs = dict(zip(np.asarray(src.data["at"]), np.asarray(src.data["bucket"]), strict=True))
    offsets = np.arange(-300, 301)
    assert sorted(pairs) == list(offsets)
    expected = t5_relative_bucket(offsets, **_core_kwargs(page))
    np.testing.assert_array_equal([pairs[o] for o in offsets], expected)


def test_t5_base_step_chart_has_its_known_buckets(page, render, sources):
    plot = render(page.figures["buckets"].plot)
    element = page._steps()
    buckets = dict(
        zip(element.dimension_values("at"), element.dimension_values("bucket"), strict=True)
    )
    assert [buckets[o] for o in (-3, -1, 0, 1, 3, 20, 200)] == [3, 1, 0, 17, 19, 26, 31]
    assert buckets[90] == 30 and buckets[91] == 31 and buckets[-91] == 15
    assert element.dimension_values("region")[list(element.dimension_values("at")).index(0)] == (
        "exact"
    )
    assert plot.state.y_range.start == pytest.approx(-0.5)


def test_regions_and_the_shared_bucket_mark_follow_the_core(page, render, sources):
    plot = render(page.figures["buckets"].plot)
    (quads,) = sources(plot, Quad)
    regions = t5_bucket_regions(32, 128, True)
    assert regions.last_bucket_start == 91
    spans = {
        (r, round(a, 1), round(b, 1))
        for r, a, b in zip(*(quads.data[k] for k in ("color", "left", "right")), strict=True)
    }
    assert ("exact", -7.5, 7.5) in spans
    assert ("logarithmic", 7.5, 90.5) in spans and ("logarithmic", -90.5, -7.5) in spans
    assert ("shared", 90.5, 200.5) in spans and ("shared", -200.5, -90.5) in spans
    segments = sources(plot, Segment)
    xs = sorted(x for src in segments for x in src.data["x0"])
    assert xs == [-128, -90.5, 90.5, 128]
    readout = page._steps_readout()
    assert "every distance ≥ <b>91</b> is bucket <b>15</b> (31 after the query)" in readout
    assert "already before max_distance = 128" in readout
    assert "Bucket 16 (“distance 0 after the query”) is never used" in readout


def test_causal_mode_sends_the_future_to_bucket_zero(page, render, sources):
    plot = render(page.figures["buckets"].plot)
    page.mode = "causal"
    (quads,) = sources(plot, Quad)
    assert "future" in list(quads.data["color"])
    src = _step_source(plot, sources)
    at, bucket = np.asarray(src.data["at"]), np.asarray(src.data["bucket"])
    assert np.all(bucket[at >= 0] == 0)
    readout = page._steps_readout()
    regions = t5_bucket_regions(32, 128, False)
    assert f"every distance ≥ <b>{regions.last_bucket_start}</b> is bucket <b>31</b>" in readout
    assert "Every future offset (&gt; 0) is bucket 0" in readout


# ------------------------------------------------------------ T1b bias matrix
def test_bias_image_is_the_core_matrix_of_the_seeded_table(page, render, sources):
    page.set_state(head=5, bias_len=40)
    plot = render(page.figures["bias"].plot)
    src = _image_source(plot, sources)
    table = t5_random_bucket_biases(32, 12, seed=BIAS_SEED)
    expected = t5_bias_matrix(table[:, 4], 40, 40)
    np.testing.assert_allclose(src.data["image"][0], expected, rtol=1e-6)
    offsets = np.arange(40)[None, :] - np.arange(40)[:, None]
    np.testing.assert_array_equal(src.data["bucket"][0], t5_relative_bucket(offsets))
    assert "illustrative: real values are learned" in page._bias_readout()
    assert "illustrative" in page.figures["bias"].title


@pytest.mark.parametrize("settings", SETTINGS)
def test_a_head_chosen_after_drawing_is_the_core_matrix(page, render, sources, settings):
    """The server draws a head set in Python (a link, the address) by the same lookup
    as the browser, table[bucket]: it is T5's bias matrix of that head."""
    page.set_state(bias_len=48, **settings)
    plot = render(page.figures["bias"].plot)
    table = t5_random_bucket_biases(page.num_buckets, page.heads, seed=BIAS_SEED)
    for head in (7, 12, 1):
        page.head = head
        src = _image_source(plot, sources)
        expected = t5_bias_matrix(table[:, head - 1], 48, 48, **_core_kwargs(page))
        np.testing.assert_allclose(src.data["image"][0], expected, rtol=1e-6)
        (glyph,) = [r.glyph for r in plot.state.renderers if isinstance(r.glyph, Image)]
        limit = np.abs(table[:, head - 1]).max()
        mapper = glyph.color_mapper
        assert (mapper.low, mapper.high) == pytest.approx((-limit, limit)), head


def test_choosing_a_head_resends_only_the_bias_image(page, render, document):
    plots = {name: render(fig.plot, doc=document) for name, fig in page.figures.items()}
    for plot in plots.values():
        document.add_root(plot.state)
    events = []
    document.on_change(events.append)
    page.head = 7
    changed = {e.model for e in events if isinstance(e, ColumnDataChangedEvent)}
    (image,) = [r.data_source for r in plots["bias"].state.renderers if isinstance(r.glyph, Image)]
    assert changed == {image}


def test_causal_bias_matrix_greys_the_future(page, render, sources):
    plot = render(page.figures["bias"].plot)
    (poly,) = sources(plot, MultiPolygons)
    assert len(poly.data["xs"]) == 0
    page.mode = "causal"
    (poly,) = sources(plot, MultiPolygons)
    assert len(poly.data["xs"]) == 1
    assert "causal mask hides them" in page._bias_readout()


# ---------------------------------------------------------------- T2 Shaw
@pytest.mark.parametrize(("k", "n"), [(4, 24), (0, 10), (1, 2), (30, 24), (64, 128)])
def test_shaw_image_is_the_core_index_matrix(page, render, sources, k, n):
    plot = render(page.figures["shaw"].plot)
    page.set_state(clip_k=k, shaw_len=n)
    src = _image_source(plot, sources)
    np.testing.assert_array_equal(src.data["image"][0], shaw_clipped_distance(n, n, k))
    np.testing.assert_array_equal(src.data["index"][0], shaw_relative_index(n, n, k))
    outlines = sources(plot, MultiLine)
    expected = 2 if 1 <= k <= n - 1 else 0
    assert [len(s.data["xs"]) for s in outlines] == [expected, expected]


def test_shaw_readout_counts_pairs_sharing_an_end_vector(page):
    page.set_state(clip_k=4, shaw_len=24)
    clipped = shaw_clipped_distance(24, 24, 4)
    text = page._shaw_readout()
    assert "9 learned vectors w[0] … w[8]" in text
    assert f"<b>{int(np.sum(np.abs(clipped) == 4)):,}</b> are k or more apart" in text
    page.clip_k = 0
    assert "no position information" in page._shaw_readout()
    page.clip_k = 40
    assert "nothing is clipped" in page._shaw_readout()


# ---------------------------------------------------------------- T3 NoPE
def test_nope_curve_is_one_over_i_plus_one(page, render, sources):
    plot = render(page.figures["nope"].plot)
    page.nope_len = 40
    (points,) = sources(plot, Scatter)
    np.testing.assert_array_equal(points.data["weight"], nope_row_weight(40))
    np.testing.assert_array_equal(points.data["keys"], np.arange(1, 41))
    readout = page._nope_readout()
    assert "query 39 gives each of its 40 keys <b>0.025</b>" in readout


def test_nope_sits_beside_the_order_pages_causal_similarity(page, render, sources):
    (column,) = page.figures["nope"].extras
    pane = column.objects[1]
    bars = pane.object
    values = dict(zip(*(bars.get(0).dimension_values(i) for i in (0, 1)), strict=True))
    causal = order_similarity(*ORDER_PAIR, "none", causal=True)
    assert values["causal mask only"] == causal < 1
    assert values["no positions"] == pytest.approx(1.0, abs=1e-12)
    assert "a weak, implicit position signal, not an encoding" in page.figures["nope"].caption


# ------------------------------------------------------------ preset, check
@pytest.mark.parametrize("label", sorted(T5_PRESETS))
def test_preset_fills_the_controls_from_the_shipped_config(page, label):
    page.set_state(num_buckets=8, max_distance=20, heads=4, head=3, mode="causal")
    (buttons,) = [o for o in page._extra_controls() if hasattr(o, "objects")]
    button = next(b for b in buttons.objects if b.label.startswith(label))
    button.clicks += 1
    config = model_config("t5-base")
    assert page.num_buckets == config["relative_attention_num_buckets"] == 32
    assert page.max_distance == config["relative_attention_max_distance"] == 128
    assert page.heads == config["num_heads"] == 12
    assert page.mode == T5_PRESETS[label][1]
    assert page.head == 3
    assert t5_preset_values(label)["heads"] == 12


def test_quick_check_answer_is_the_core_bucket(page):
    answer = page._quick_answer()
    bucket = int(t5_relative_bucket(200, bidirectional=True, num_buckets=32, max_distance=128))
    assert bucket == 31
    assert answer.startswith(f"Bucket <b>{bucket}</b>.")
    assert "past 91" in answer
    page.set_state(mode="causal")
    assert "offset +200 is bucket 0." in page._quick_answer()
    assert page._quick_answer().startswith("Bucket <b>31</b>.")


# ------------------------------------------------------------ rules and links
def test_rules_keep_the_settings_valid(page):
    page.set_state(mode="causal", num_buckets=128)
    assert page.param.max_distance.bounds == (65, 1024)
    assert page.max_distance == 128
    page.set_state(max_distance=65)
    page.mode = "bidirectional"
    assert page.param.max_distance.bounds == (33, 1024)
    notes = page.set_state(num_buckets=31)
    assert page.num_buckets == 30 and any("odd" in n for n in notes)
    page.heads = 3
    assert page.param.head.bounds == (1, 3)


def test_url_state_round_trip(page):
    page.set_state(
        num_buckets=48,
        max_distance=300,
        mode="causal",
        offset_range=400,
        heads=16,
        head=9,
        bias_len=200,
        clip_k=7,
        shaw_len=50,
        nope_len=300,
    )
    query = page_query("relative", page, page.control_names())
    other = RelativePage()
    assert other.apply_query(query) == []
    assert other._values() == page._values()


@pytest.mark.parametrize(
    ("query", "expected", "note"),
    [
        ({"num_buckets": "999"}, {"num_buckets": 128}, "outside 4…128"),
        ({"num_buckets": "33"}, {"num_buckets": 32}, "is odd"),
        ({"num_buckets": "1e300"}, {"num_buckets": 128}, "outside"),
        (
            {"mode": "causal", "max_distance": "3"},
            {"mode": "causal", "max_distance": 17},
            "outside 17…1,024",
        ),
        ({"max_distance": "-inf"}, {"max_distance": 128}, "not a number"),
        ({"heads": "4", "head": "99"}, {"heads": 4, "head": 4}, "outside 1…4"),
        ({"mode": "<script>alert(1)</script>"}, {"mode": "bidirectional"}, "ignored"),
        ({"bias_len": "100000"}, {"bias_len": 256}, "outside 4…256"),
        ({"clip_k": "-2"}, {"clip_k": 0}, "outside 0…64"),
        ({"nope_len": "nan"}, {"nope_len": 16}, "not a number"),
        ({"offset_range": "12.6"}, {"offset_range": 13}, "not a whole number"),
    ],
)
def test_url_values_are_clamped_or_ignored_with_a_note(page, query, expected, note):
    notes = page.apply_query(query)
    for key, value in expected.items():
        assert getattr(page, key) == value
    assert any(note in n for n in notes), notes
    for method in (page._steps, page._bias_image, page._shaw_image, page._nope_plot):
        method()


def test_largest_settings_are_drawn(page):
    # Their time is measured by benchmarks/robustness.py (budget 1 s), not here.
    page.set_state(
        num_buckets=128,
        max_distance=1024,
        offset_range=1024,
        heads=32,
        head=32,
        bias_len=256,
        clip_k=64,
        shaw_len=128,
        nope_len=512,
    )
    for method in (
        page._steps,
        page._region_spans,
        page._step_marks,
        page._steps_readout,
        page._bias_image,
        page._bias_readout,
        page._shaw_image,
        page._shaw_readout,
        page._nope_plot,
        page._quick_answer,
    ):
        assert method() is not None


def test_two_sessions_render_side_by_side(render):
    """No Bokeh model is shared between sessions (each belongs to one document)."""
    for _ in range(2):
        page, document = RelativePage(), Document()
        for fig in page.figures.values():
            document.add_root(render(fig.plot, doc=document).state)
        page.set_state(head=2, clip_k=5, mode="causal")


def test_square_figures_shrink_with_the_sequence_and_keep_their_own_axes():
    """T1b and T2 follow a shorter n, each with its own axes (they used to keep
    the first frame's 128 × 128 and 24 × 24: ``shared_axes=False`` stopped
    HoloViews from recomputing an overlay's ranges on an update)."""
    import panel as pn
    from panel.io.state import set_curdoc

    page, document = RelativePage(), Document()
    content = page.content()
    with set_curdoc(document):
        document.add_root(content.get_root(document))
    panes = {pane.object: pane for pane in content.select(pn.pane.HoloViews)}
    bias, shaw = (
        panes[page.figures[name].plot]._plots[document.roots[0].ref["id"]][0].state
        for name in ("bias", "shaw")
    )
    assert bias.x_range is not shaw.x_range and bias.y_range is not shaw.y_range
    for bias_len, shaw_len in [(8, 6), (40, 30), (4, 2)]:
        with set_curdoc(document):
            page.set_state(bias_len=bias_len, shaw_len=shaw_len)
        for fig, n in ((bias, bias_len), (shaw, shaw_len)):
            assert (fig.x_range.start, fig.x_range.end) == (-0.5, n - 0.5)
            # Queries run down the page (invert_yaxis).
            assert (fig.y_range.start, fig.y_range.end) == (n - 0.5, -0.5)
