"""Order page: sentences in, input rows, similarity bars and the permutation picture out."""

from __future__ import annotations

import numpy as np
import panel as pn
import pytest
from panel.io.state import set_curdoc

from app.cards import notice_html
from app.look import text_color
from app.pages.order import VARIANTS, OrderPage
from app.pages.order.shared import similarity_text
from positional_core.attention import (
    embed_sentence,
    encode_sentence,
    match_rows,
    order_similarity,
)

from .drawn import rendered


@pytest.fixture
def page():
    return OrderPage()


def drawn(page, chart: str, mark: str) -> dict:
    return page.drawings[chart].drawn(mark)


def readout(page) -> str:
    return page.drawings["similarity"].chart.readout(page)


def _bars(page) -> dict[str, float]:
    bars = drawn(page, "similarity", "bars")
    return dict(zip(bars["variant"], bars["cos"], strict=True))


def _values(page) -> list[str]:
    """The printed similarities, top bar first."""
    return [text.strip() for text in drawn(page, "similarity", "values")["text"]]


def _links(page, chart: str = "permutation") -> list[tuple[float, float]]:
    links = drawn(page, chart, "links")
    return list(zip(links["y0"], links["y1"], strict=True))


def _box(page, label: str) -> pn.widgets.TextInput:
    (box,) = [w for w in page.sidebar().select(pn.widgets.TextInput) if w.name == label]
    return box


def test_cards_read_in_order(page):
    titles = [fig.title for fig in page.figures.values()]
    assert [t.split(" ·")[0] for t in titles] == ["O1", "O2", "O3"]
    controls = {name: fig.controls for name, fig in page.figures.items()}
    assert controls == {
        "inputs": ("a", "b"),
        "similarity": ("a", "b"),
        "permutation": ("a", "b", "scheme"),
    }


# ------------------------------------------------------------------ O1 inputs
def test_input_rows_are_the_word_vectors_and_join_equal_rows(page):
    a, b = drawn(page, "inputs", "a"), drawn(page, "inputs", "b")
    np.testing.assert_allclose(a["image"][0], embed_sentence("dog bites man"), rtol=1e-6)
    np.testing.assert_allclose(b["image"][0], embed_sentence("man bites dog"), rtol=1e-6)
    assert _links(page, "inputs") == [(0, 2), (1, 1), (2, 0)]
    # Inputs carry no position: the scheme of O3 leaves them as they are.
    page.scheme = "sinusoidal"
    assert len(_links(page, "inputs")) == 3
    page.b = "cat bites dog"
    assert _links(page, "inputs") == [(0, 2), (1, 1)]
    assert drawn(page, "inputs", "headline")["word"][2] == "2 of 3 rows of A reappear in B"


# --------------------------------------------------------------- O2 similarity
def test_bars_are_the_core_values_and_none_is_exactly_one(page):
    values = _bars(page)
    assert values["no positions"] == 1.0
    for label in ("sinusoidal codes", "RoPE", "causal mask only"):
        assert values[label] < 1.0
    for key, (scheme, causal) in VARIANTS.items():
        expected = order_similarity("dog bites man", "man bites dog", scheme, causal)
        assert expected in values.values(), key
    assert _values(page) == ["1.000", "0.995", "0.996", "0.353"]
    bars = drawn(page, "similarity", "bars")
    assert list(bars["x1"]) == list(bars["cos"]) and set(bars["x0"]) == {0.0}


def test_variants_name_the_ticks_top_to_bottom(page):
    frame = page.drawings["similarity"].frame()
    assert frame.y_ticks == [
        (0.0, "no positions"),
        (1.0, "sinusoidal codes"),
        (2.0, "RoPE"),
        (3.0, "causal mask only"),
    ]
    assert frame.x == (0.0, 1.02)


def test_a_value_is_printed_inside_a_long_bar_and_beside_a_short_one(page):
    """The axis ends at 1, so a phone's narrow frame does not cut a value off: a bar
    of 0.5 or more holds its value, in black or white, whichever reads on it."""
    values, bars = drawn(page, "similarity", "values"), drawn(page, "similarity", "bars")
    assert list(values["x"]) == list(bars["x1"])
    assert list(values["align"]) == ["right", "right", "right", "left"]
    # Grey, vermillion: black reads better; blue: white; beside a bar, the theme's text.
    assert list(values["ink"]) == ["#000000", "#FFFFFF", "#000000", text_color()]


def test_a_negative_similarity_widens_the_axis():
    """ "the cat" and "red tree" point apart (every variant below 0): the axis starts
    at the lowest bar, and each value starts right of the zero line, clear of its bar."""
    page = OrderPage()
    page.set_state(a="the cat", b="red tree")
    lows = [order_similarity("the cat", "red tree", s, c) for s, c in VARIANTS.values()]
    assert max(lows) < 0
    assert page.drawings["similarity"].frame().x == (min(lows), 1.02)
    values = drawn(page, "similarity", "values")
    assert list(values["x"]) == [0.0] * 4 and set(values["align"]) == {"left"}


def test_readout_says_whether_b_reorders_a(page):
    assert "the similarity is exactly 1" in readout(page)
    page.b = "cat bites dog"
    assert "does not use the same words" in readout(page)


def test_a_long_reordering_still_reads_exactly_one(page):
    """Summed in another order, the pooled vectors differ by rounding only: "1.000"."""
    a = "a very long sentence with antidisestablishmentarianism and more words than usual here"
    page.set_state(a=a, b=" ".join(reversed(a.split())))
    assert 0 <= 1 - _bars(page)["no positions"] < 1e-12  # exactly 1 with some BLAS builds
    assert _values(page)[0] == "1.000"
    assert "the similarity is exactly 1" in readout(page)
    assert similarity_text(0.9996) == "≈ 1 (0.99960)" and similarity_text(0.35296) == "0.353"


def test_a_similarity_just_below_1_reads_approximately_1_beside_three_decimals(page):
    """RoPE on "alpha beta" / "beta alpha" gives 0.99993: three decimals would print the
    order-blind 1.000, and six (0.999925) sat beside three; it reads ≈ 1 (0.99993)."""
    page.set_state(a="alpha beta", b="beta alpha")
    assert 0.9999 < _bars(page)["RoPE"] < 0.99995
    assert _values(page) == ["1.000", "0.996", "≈ 1 (0.99993)", "0.922"]
    assert "RoPE ≈ 1 (0.99993)" in page.quick_check.answer()


def test_o2_says_the_weights_are_seeded_random_numbers(page):
    """The causal bar's 0.353 is this seed's: the readout under the bars says why other
    explainers' values differ and what does not, for any sentences."""
    for b in ("man bites dog", "cat bites dog"):
        page.b = b
        text = readout(page)
        assert "random numbers drawn with a fixed seed (0)" in text
        assert "exact values depend on that seed" in text
        assert "not another conclusion (exactly 1 without positions, below 1 with them)" in text


# ------------------------------------------------------------- O3 permutation
def test_permutation_picture_links_equal_rows_only_without_positions(page):
    assert _links(page) == [(0, 2), (1, 1), (2, 0)]
    out = drawn(page, "permutation", "a")["image"][0]
    np.testing.assert_allclose(out, encode_sentence("dog bites man"), rtol=1e-6, atol=1e-7)
    for scheme in ("sinusoidal", "rope", "causal"):
        page.scheme = scheme
        assert _links(page) == []
        assert drawn(page, "permutation", "headline")["word"][2] == "no row of A reappears in B"
    scheme, causal = VARIANTS["causal"]
    out = drawn(page, "permutation", "b")["image"][0]
    np.testing.assert_allclose(out, encode_sentence("man bites dog", scheme, causal), rtol=1e-6)


def test_repeated_words_map_one_to_one(page):
    page.a = "the dog bites the man"
    page.b = "the man bites the dog"
    expected = match_rows(encode_sentence(page.a), encode_sentence(page.b))
    assert _links(page) == [(i, j) for i, j in enumerate(expected)]
    assert sorted(j for _, j in _links(page)) == list(range(5))


def test_words_name_the_rows_and_follow_the_sentences(page):
    _root, doc = rendered(page)
    (plot,) = page.drawings["permutation"].plots()
    (axis,) = plot.state.yaxis
    assert axis.major_label_overrides == {0: "dog", 1: "bites", 2: "man"}
    long = "antidisestablishmentarianism"
    with set_curdoc(doc):
        page.a = f"a {long} dog bites"
    assert list(axis.ticker.ticks) == [0, 1, 2, 3]
    assert axis.major_label_overrides == {0: "a", 1: "antidisestabl…", 2: "dog", 3: "bites"}
    assert drawn(page, "permutation", "words")["word"] == ["man", "bites", "dog"]
    # Room for the longer sentence: rows −1.7 … n + 0.7, row 0 on top.
    assert sorted((plot.state.y_range.start, plot.state.y_range.end)) == [-1.7, 4.7]
    assert plot.state.y_range.start > plot.state.y_range.end


def test_one_colour_scale_for_both_matrices(page):
    frame = page.drawings["permutation"].frame()
    limit = max(np.abs(encode_sentence(s)).max() for s in ("dog bites man", "man bites dog"))
    assert frame.scales["a"] == frame.scales["b"]
    assert frame.scales["a"]["high"] == pytest.approx(limit) == -frame.scales["a"]["low"]


# ------------------------------------------------------------------ the input
def test_refused_sentence_keeps_previous_state_and_explains(page):
    box = _box(page, "Sentence A")
    box.value = "dog"
    assert page.error_a and "at least 2 words" in page.error_a[0]
    assert page.sentence_a == "dog bites man"
    assert _bars(page)["no positions"] == 1.0
    assert len(drawn(page, "inputs", "b")["image"][0]) == 3
    box.value = "man dog bites"
    assert page.error_a == []
    assert page.sentence_a == "man dog bites"
    assert _bars(page)["no positions"] == pytest.approx(1.0)
    assert page.drawings["permutation"].frame().y_ticks == [(0, "man"), (1, "dog"), (2, "bites")]


@pytest.mark.parametrize("text", ["", "   ", "🙂 🙂", "x" * 1000, " ".join(["w"] * 40), "a\x00b c"])
def test_bad_sentences_get_a_message(page, text):
    page.b = text
    assert page.error_b
    assert page.sentence_b == "man bites dog"
    assert drawn(page, "permutation", "words")["word"] == ["man", "bites", "dog"]


def test_typed_html_is_escaped(page):
    page.a = '<img src=x onerror="alert(1)"> bites <script>alert(2)</script>'
    html = readout(page)
    assert "<img" not in html and "<script" not in html
    assert "&lt;img" in html and "&lt;script&gt;" in html
    # In the pictures the words are plain text (tick labels and text glyphs).
    words = [w for _, w in page.drawings["permutation"].frame().y_ticks]
    assert words == ["img", "src=x", 'onerror="aler…', "bites", "script>alert(…"]
    page.b = "<b>bold</b>"
    rendered_notice = notice_html(page.error_b, "error")
    assert "<b>bold" not in rendered_notice
    assert "&lt;b&gt;bold" in rendered_notice


def test_link_with_bad_sentence_is_ignored_with_notice(page):
    notes = page.apply_query({"a": "x", "b": "bites dog man", "scheme": "rope"})
    assert page.a == "dog bites man" and page.b == "bites dog man" and page.scheme == "rope"
    assert len(notes) == 1 and notes[0].startswith("a: ")
    assert page.sentence_b == "bites dog man"


def test_quick_check_answer(page):
    answer = page.quick_check.answer()
    assert "<b>1.000</b>" in answer
    assert "sinusoidal codes give 0.995, RoPE 0.996 and a causal mask alone 0.353" in answer
    page.b = "cat bites dog"
    assert "<b>1.000</b>" not in page.quick_check.answer()
