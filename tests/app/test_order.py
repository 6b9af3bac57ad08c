"""Order page: sentences in, similarity bars and the permutation picture out."""

from __future__ import annotations

import holoviews as hv
import pytest

from app.order import VARIANTS, OrderPage
from positional_core.attention import order_similarity


@pytest.fixture
def page():
    return OrderPage()


def _bars(page) -> dict[str, float]:
    overlay = page._bars()
    (bars,) = overlay.traverse(lambda e: e, [hv.Bars])
    return dict(zip(bars.dimension_values(0), bars.dimension_values(1), strict=True))


def test_bars_are_the_core_values_and_none_is_exactly_one(page):
    values = _bars(page)
    assert values["no positions"] == 1.0
    for label in ("sinusoidal codes", "RoPE", "causal mask only"):
        assert values[label] < 1.0
    for key, (scheme, causal) in VARIANTS.items():
        expected = order_similarity("dog bites man", "man bites dog", scheme, causal)
        assert expected in values.values(), key
    (labels,) = page._bars().traverse(lambda e: e, [hv.Labels])
    assert "1.000" in " ".join(labels.dimension_values("text"))


def test_permutation_picture_links_equal_rows_only_without_positions(page):
    def links():
        (segments,) = page._permutation().traverse(lambda e: e, [hv.Segments])
        return len(segments)

    assert links() == 3
    for scheme in ("sinusoidal", "rope", "causal"):
        page.scheme = scheme
        assert links() == 0


def test_refused_sentence_keeps_previous_state_and_explains(page):
    page.a = "dog"
    assert page.error_a and "at least 2 words" in page.error_a[0]
    assert page.sentence_a == "dog bites man"
    assert _bars(page)["no positions"] == 1.0
    page.a = "man dog bites"
    assert page.error_a == []
    assert page.sentence_a == "man dog bites"


@pytest.mark.parametrize("text", ["", "   ", "🙂 🙂", "x" * 1000, " ".join(["w"] * 40), "a\x00b c"])
def test_bad_sentences_get_a_message(page, text):
    page.b = text
    assert page.error_b
    assert page.sentence_b == "man bites dog"


def test_typed_html_is_escaped(page):
    page.a = '<img src=x onerror="alert(1)"> bites <script>alert(2)</script>'
    html = page._bars_readout()
    assert "<img" not in html and "<script" not in html
    assert "&lt;img" in html and "&lt;script&gt;" in html
    page.b = "<b>bold</b>"
    from app.look import notice_html

    rendered = notice_html(page.error_b, "error")
    assert "<b>bold" not in rendered
    assert "&lt;b&gt;bold" in rendered


def test_link_with_bad_sentence_is_ignored_with_notice(page):
    notes = page.apply_query({"a": "x", "b": "bites dog man", "scheme": "rope"})
    assert page.a == "dog bites man" and page.b == "bites dog man" and page.scheme == "rope"
    assert len(notes) == 1 and notes[0].startswith("a: ")


def test_quick_check_answer(page):
    assert "<b>1.000</b>" in page._quick_answer()
