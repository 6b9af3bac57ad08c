"""Relative page: set parameters, assert on what each figure draws against the core."""

from __future__ import annotations

import re

import numpy as np
import panel as pn
import pytest
from bokeh.document.events import ColumnDataChangedEvent
from bokeh.models import Image
from panel.io.state import set_curdoc

from app.look import OKABE_ITO
from app.pages.relative import (
    BIAS_SEED,
    ORDER_PAIR,
    T5_PRESETS,
    RelativePage,
    t5_preset_values,
)
from app.pages.relative.matrix import MASKED
from app.pages.relative.terms import TERMS_D, TERMS_SEED, TERMS_TOKEN, Terms, changing_terms
from app.respond import one_update
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
from positional_core.terms import absolute_score_terms, seeded_head

from .drawn import record_events, rendered

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


def drawn(page, chart: str, mark: str) -> dict:
    return page.drawings[chart].drawn(mark)


def readout(page, chart: str) -> str:
    return page.drawings[chart].chart.readout(page)


def values(page) -> dict:
    return {name: getattr(page, name) for name in page.control_names()}


def _core_kwargs(page: RelativePage) -> dict:
    return {
        "bidirectional": page.mode == "bidirectional",
        "num_buckets": page.num_buckets,
        "max_distance": page.max_distance,
    }


def _steps(page) -> dict:
    """Each offset's (bucket, region): the step line repeats them at both ends of a step."""
    steps = drawn(page, "buckets", "steps")
    return {
        int(at): (int(bucket), region)
        for at, bucket, region in zip(steps["at"], steps["bucket"], steps["region"], strict=True)
    }


def _image(page) -> np.ndarray:
    return np.asarray(drawn(page, "bias", "image")["image"][0], dtype=float)


def _expected_bias(page, head: int, n: int) -> np.ndarray:
    """T5's bias matrix of ``head``, NaN where a decoder's causal mask hides the key."""
    table = t5_random_bucket_biases(page.num_buckets, page.heads, seed=BIAS_SEED)
    expected = t5_bias_matrix(table[:, head - 1], n, n, **_core_kwargs(page))
    if page.mode == "causal":
        expected[np.triu_indices(n, k=1)] = np.nan
    return expected


# ------------------------------------------------------------ T1a step chart
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(map(str, s.values())))
def test_plotted_buckets_are_the_core_buckets(page, settings):
    page.set_state(offset_range=300, **settings)
    steps = _steps(page)
    offsets = np.arange(-300, 301)
    assert sorted(steps) == list(offsets)
    expected = t5_relative_bucket(offsets, **_core_kwargs(page))
    np.testing.assert_array_equal([steps[o][0] for o in offsets], expected)


def test_t5_base_step_chart_has_its_known_buckets(page):
    steps = _steps(page)
    assert [steps[o][0] for o in (-3, -1, 0, 1, 3, 20, 200)] == [3, 1, 0, 17, 19, 26, 31]
    assert steps[90][0] == 30 and steps[91][0] == 31 and steps[-91][0] == 15
    assert steps[0][1] == "exact" and steps[91][1] == "shared (last bucket)"
    assert page.drawings["buckets"].frame().y[0] == pytest.approx(-0.5)


def test_regions_and_the_shared_bucket_mark_follow_the_core(page):
    regions = t5_bucket_regions(32, 128, True)
    assert regions.last_bucket_start == 91
    bands = drawn(page, "buckets", "regions")
    colors = {OKABE_ITO[c]: c for c in ("sky", "orange", "grey")}
    names = {"sky": "exact", "orange": "logarithmic", "grey": "shared"}
    spans = {
        (names[colors[t]], round(a, 1), round(b, 1))
        for t, a, b in zip(bands["tint"], bands["x0"], bands["x1"], strict=True)
    }
    assert ("exact", -7.5, 7.5) in spans
    assert ("logarithmic", 7.5, 90.5) in spans and ("logarithmic", -90.5, -7.5) in spans
    assert ("shared", 90.5, 200.5) in spans and ("shared", -200.5, -90.5) in spans
    lines = [drawn(page, "buckets", mark)["x0"] for mark in ("starts", "limits")]
    assert sorted(x for xs in lines for x in xs) == [-128, -90.5, 90.5, 128]
    text = readout(page, "buckets")
    assert "every distance ≥ <b>91</b> is bucket <b>15</b> (31 after the query)" in text
    assert "already before max_distance = 128" in text
    assert "Bucket 16 (“distance 0 after the query”) is never used" in text


def test_causal_mode_sends_the_future_to_bucket_zero(page):
    page.mode = "causal"
    assert OKABE_ITO["purple"] in list(drawn(page, "buckets", "regions")["tint"])
    steps = _steps(page)
    assert all(bucket == 0 for at, (bucket, _) in steps.items() if at >= 0)
    assert steps[5][1] == "future: bucket 0 (masked)"
    text = readout(page, "buckets")
    regions = t5_bucket_regions(32, 128, False)
    assert f"every distance ≥ <b>{regions.last_bucket_start}</b> is bucket <b>31</b>" in text
    assert "Every future offset (&gt; 0) is bucket 0" in text


def test_boundary_labels_leave_the_axis_with_their_lines(page):
    assert list(drawn(page, "buckets", "start_label")["text"]) == [" ≥ 91: \n one bucket "]
    assert list(drawn(page, "buckets", "limit_label")["text"]) == [" max_distance "]
    page.offset_range = 50  # both lines past ±50
    for mark in ("starts", "limits", "start_label", "limit_label"):
        assert len(next(iter(drawn(page, "buckets", mark).values()))) == 0, mark


# ------------------------------------------------------------ T1b bias matrix
def test_bias_image_is_the_core_matrix_of_the_seeded_table(page):
    page.set_state(head=5, bias_len=40)
    table = t5_random_bucket_biases(32, 12, seed=BIAS_SEED)
    expected = t5_bias_matrix(table[:, 4], 40, 40)
    np.testing.assert_allclose(_image(page), expected, rtol=1e-6)
    offsets = np.arange(40)[None, :] - np.arange(40)[:, None]
    bucket = drawn(page, "bias", "image")["bucket"][0]
    np.testing.assert_array_equal(bucket, t5_relative_bucket(offsets))
    assert "illustrative: real values are learned" in readout(page, "bias")
    assert "illustrative" in page.figures["bias"].title


def test_the_browser_gets_one_bias_table_per_head_not_an_image(page):
    """T1b ships each head's bias per bucket; the browser looks them up at each cell."""
    _root, _doc = rendered(page)
    (plot,) = page.drawings["bias"].plots()
    (renderer,) = [r for r in plot.state.renderers if isinstance(r.glyph, Image)]
    candidates = renderer.data_source.tags[0].data
    assert "image" not in candidates and "bucket" not in candidates
    assert len(candidates["__table"]) == page.heads == 12
    table = t5_random_bucket_biases(32, 12, seed=BIAS_SEED)
    np.testing.assert_allclose(candidates["__table"][6][:32], table[:, 6], rtol=1e-6)


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(map(str, s.values())))
def test_a_head_chosen_after_drawing_is_the_core_matrix(page, settings):
    """The server draws a head set in Python (a link, the address) by the same lookup
    as the browser, table[bucket]: it is T5's bias matrix of that head."""
    page.set_state(bias_len=48, **settings)
    _root, doc = rendered(page)
    (plot,) = page.drawings["bias"].plots()
    (renderer,) = [r for r in plot.state.renderers if isinstance(r.glyph, Image)]
    table = t5_random_bucket_biases(page.num_buckets, page.heads, seed=BIAS_SEED)
    for head in (7, 12, 1):
        with set_curdoc(doc), one_update():
            page.head = head
        image = renderer.data_source.data["image"][0]
        np.testing.assert_allclose(image, _expected_bias(page, head, 48), rtol=1e-6)
        limit = np.abs(table[:, head - 1]).max()
        mapper = renderer.glyph.color_mapper
        assert (mapper.low, mapper.high) == pytest.approx((-limit, limit)), head


def test_choosing_a_head_resends_only_the_bias_image(page):
    _root, doc = rendered(page)
    events = []
    record_events(doc, events)
    with set_curdoc(doc):
        page.head = 7
    changed = {e.model for e in events if isinstance(e, ColumnDataChangedEvent)}
    (plot,) = page.drawings["bias"].plots()
    (image,) = [r.data_source for r in plot.state.renderers if isinstance(r.glyph, Image)]
    assert changed == {image}


def test_causal_bias_matrix_masks_exactly_the_future(page):
    assert not np.isnan(_image(page)).any()
    page.mode = "causal"
    image = _image(page)
    future = np.triu(np.ones((128, 128), dtype=bool), k=1)
    assert np.array_equal(np.isnan(image), future)
    np.testing.assert_allclose(image, _expected_bias(page, 1, 128), rtol=1e-6)
    # The masked cells' bucket is past every bucket the page allows.
    assert RelativePage.param.num_buckets.bounds[1] <= MASKED
    assert set(np.unique(drawn(page, "bias", "image")["bucket"][0][future])) == {MASKED}
    assert "causal mask hides them" in readout(page, "bias")


# ---------------------------------------------------------------- T2 Shaw
@pytest.mark.parametrize(("k", "n"), [(4, 24), (0, 10), (1, 2), (30, 24), (64, 128)])
def test_shaw_image_is_the_core_index_matrix(page, k, n):
    page.set_state(clip_k=k, shaw_len=n)
    image = drawn(page, "shaw", "image")
    np.testing.assert_array_equal(image["image"][0], shaw_clipped_distance(n, n, k))
    np.testing.assert_array_equal(image["index"][0], shaw_relative_index(n, n, k))
    expected = 2 if 1 <= k <= n - 1 else 0
    assert [len(drawn(page, "shaw", m)["xs"]) for m in ("halo", "core")] == [expected] * 2
    scale = page.drawings["shaw"].frame().scales["image"]
    assert len(scale["palette"]) == 2 * max(k, 1) + 1
    assert (scale["low"], scale["high"]) == (-max(k, 1) - 0.5, max(k, 1) + 0.5)


def test_shaw_readout_counts_pairs_sharing_an_end_vector(page):
    page.set_state(clip_k=4, shaw_len=24)
    clipped = shaw_clipped_distance(24, 24, 4)
    text = readout(page, "shaw")
    assert "9 learned vectors w[0] … w[8]" in text
    assert f"<b>{int(np.sum(np.abs(clipped) == 4)):,}</b> are k or more apart" in text
    page.clip_k = 0
    assert "no position information" in readout(page, "shaw")
    page.clip_k = 40
    assert "nothing is clipped" in readout(page, "shaw")


# ---------------------------------------------------------------- T3 NoPE
def test_nope_curve_is_one_over_i_plus_one(page):
    page.nope_len = 40
    points = drawn(page, "nope", "points")
    np.testing.assert_array_equal(points["weight"], nope_row_weight(40))
    np.testing.assert_array_equal(points["keys"], np.arange(1, 41))
    assert list(drawn(page, "nope", "flat")["weight"]) == [0.025, 0.025]
    assert "query 39 gives each of its 40 keys <b>0.025</b>" in readout(page, "nope")
    assert page.drawings["nope"].frame().labels == {
        "flat": "no mask: 1/T everywhere",
        "curve": "causal mask: 1/(i + 1)",
    }


def test_nope_sits_beside_the_order_pages_causal_similarity(page):
    (column,) = page.figures["nope"].extras
    bars = column.objects[1].object
    values = dict(zip(*(bars.get(0).dimension_values(i) for i in (0, 1)), strict=True))
    causal = order_similarity(*ORDER_PAIR, "none", causal=True)
    assert values["causal mask only"] == causal < 1
    assert values["no positions"] == pytest.approx(1.0, abs=1e-12)
    assert "a weak, implicit position signal, not an encoding" in page.figures["nope"].caption
    labels = bars.get(1).dimension_values("text")
    assert [t.strip() for t in labels] == ["1.000", "0.353"]
    assert "weights are random with a fixed seed: other weights give other values, not " in (
        column.objects[0].object
    )


def test_nope_readout_writes_tiny_gaps_as_powers_of_ten(page):
    """From query 100 to 101 the weight changes by 9.7 × 10⁻⁵ (it read a bare 9.71e−05)."""
    page.nope_len = 512
    text = readout(page, "nope")
    assert "changes by only <b>9.7 × 10<sup>−5</sup></b>" in text
    assert "each of its 512 keys <b>0.001953</b>" in text
    assert not re.search(r"\d[eE][+−-]?\d", text), text


# ------------------------------------------------------------ preset, check
@pytest.mark.parametrize("label", sorted(T5_PRESETS))
def test_preset_fills_the_controls_from_the_shipped_config(page, label):
    page.set_state(num_buckets=8, max_distance=20, heads=4, head=3, mode="causal")
    button = next(b for b in page.sidebar().select(pn.widgets.Button) if b.label.startswith(label))
    button.clicks += 1
    config = model_config("t5-base")
    assert page.num_buckets == config["relative_attention_num_buckets"] == 32
    assert page.max_distance == config["relative_attention_max_distance"] == 128
    assert page.heads == config["num_heads"] == 12
    assert page.mode == T5_PRESETS[label][1]
    assert page.head == 3
    assert t5_preset_values(label)["heads"] == 12


def test_quick_check_answer_is_the_core_bucket(page):
    answer = page.quick_check.answer()
    bucket = int(t5_relative_bucket(200, bidirectional=True, num_buckets=32, max_distance=128))
    assert bucket == 31
    assert answer.startswith(f"Bucket <b>{bucket}</b>.")
    assert "past 91" in answer
    page.set_state(mode="causal")
    assert "offset +200 is bucket 0." in page.quick_check.answer()
    assert page.quick_check.answer().startswith("Bucket <b>31</b>.")


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
    assert values(other) == values(page)


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
    rendered(page)


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
    rendered(page)
    for name, drawing in page.drawings.items():
        assert drawing.chart.readout(page), name
        for mark in drawing.chart.marks:
            assert drawing.drawn(mark), (name, mark)
    assert page.quick_check.answer()
    # Every head's table is shipped (32 × 129 numbers), never an image per head.
    bias = page.drawings["bias"]
    candidates = bias.frame().marks["image"].candidates(bias.chart.marks["image"])
    assert candidates is not None and "image" not in candidates
    assert len(candidates["__table"]) == 32


def test_two_sessions_render_side_by_side():
    """No Bokeh model is shared between sessions (each belongs to one document)."""
    for _ in range(2):
        page = RelativePage()
        _root, doc = rendered(page)
        with set_curdoc(doc), one_update():
            page.set_state(head=2, clip_k=5, mode="causal")


def test_square_figures_shrink_with_the_sequence_and_keep_their_own_axes(page):
    """T1b and T2 follow a shorter n, each with its own axes."""
    _root, doc = rendered(page)
    bias, shaw = (page.drawings[name].plots()[0].state for name in ("bias", "shaw"))
    assert bias.x_range is not shaw.x_range and bias.y_range is not shaw.y_range
    for bias_len, shaw_len in [(8, 6), (40, 30), (4, 2)]:
        with set_curdoc(doc), one_update():
            page.set_state(bias_len=bias_len, shaw_len=shaw_len)
        for fig, n in ((bias, bias_len), (shaw, shaw_len)):
            assert (fig.x_range.start, fig.x_range.end) == (-0.5, n - 0.5)
            # Queries run down the page (invert_yaxis).
            assert (fig.y_range.start, fig.y_range.end) == (n - 0.5, -0.5)


def test_t4s_question_is_answered_by_the_core_and_its_readout_shows_both_forms():
    page = RelativePage()
    page.set_state(terms_len=24)
    answer = Terms().answer(page)
    assert changing_terms("absolute", 24) == [
        "content·position",
        "position·content",
        "position·position",
    ]
    assert answer.startswith("<b>3</b>: content·position") and "0 of the four" in answer
    readout = Terms().readout(page)
    assert "each 24 × 24 matrix" in readout and "(d) global offset bias v" in readout
    deviations = absolute_score_terms(seeded_head(TERMS_D, seed=TERMS_SEED), 24, TERMS_TOKEN)
    assert f"{deviations.deviations()[3]:.3f}" in readout
