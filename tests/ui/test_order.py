"""Order page in a real browser: a typed sentence names the rows, a refused one is explained."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from positional_core.attention import order_similarity

from .helpers import PageWatch, open_page

# The tick labels of every axis whose ticks are named (the sentences' words), and
# the text glyphs' strings, read from the page's Bokeh documents: what the browser
# draws, not what the server meant to send.
_NAMED = """
() => {
  const axes = [], texts = [];
  for (const doc of Bokeh.documents) {
    for (const m of doc.all_models) {
      const names = m.major_label_overrides;
      if (names && names.size) axes.push(Array.from(names.entries()));
      if (m.glyph && m.glyph.constructor.__name__ === "Text") {
        texts.push(Array.from(m.data_source.data.text || m.data_source.data.word || []));
      }
    }
  }
  return {axes, texts};
}
"""


def _named(page: Page) -> dict:
    return page.evaluate(_NAMED)


def _rows_named(page: Page, words: list[str]) -> bool:
    """Both row pictures (O1, O3) name their rows by ``words``."""
    want = [[i, w] for i, w in enumerate(words)]
    return sum(axis == want for axis in _named(page)["axes"]) == 2


def test_a_typed_sentence_names_the_rows_and_moves_the_bars(server, page: Page):
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=order", min_canvases=3)
    assert _rows_named(page, ["dog", "bites", "man"])
    box = page.get_by_role("textbox", name="Sentence A")
    box.fill("The cat bites the dog")
    box.press("Enter")
    page.wait_for_function("() => window.location.search.includes('cat')", timeout=15_000)
    page.wait_for_function(
        f"() => ({_NAMED})().axes.filter(a => a.length === 5 && a[1][1] === 'cat').length === 2",
        timeout=15_000,
    )
    assert _rows_named(page, ["the", "cat", "bites", "the", "dog"])
    expected = f"{order_similarity('The cat bites the dog', 'man bites dog', 'rope'):.3f}"
    assert any(expected in " ".join(t) for t in _named(page)["texts"])
    assert watch.errors == [] and watch.dialogs == []


def test_a_refused_sentence_is_explained_and_the_figures_stay(server, page: Page):
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=order", min_canvases=3)
    box = page.get_by_role("textbox", name="Sentence B")
    box.fill(" ".join(["w"] * 40))
    box.press("Enter")
    expect(page.get_by_text("Too many words: 40; at most 32.")).to_be_visible(timeout=15_000)
    box.fill("dog")
    box.press("Enter")
    expect(page.get_by_text('Type at least 2 words; "dog" has 1.')).to_be_visible(timeout=15_000)
    page.wait_for_timeout(500)
    texts = [" ".join(t) for t in _named(page)["texts"]]
    assert sum(t == "man bites dog" for t in texts) == 2  # B's words in O1 and O3, as before
    assert _rows_named(page, ["dog", "bites", "man"])
    box.fill("man dog bites")
    box.press("Enter")
    expect(page.get_by_text("at least 2 words")).to_have_count(0, timeout=15_000)
    assert watch.errors == [] and watch.dialogs == []
