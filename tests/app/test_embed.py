"""Embedding: ``embed=1`` views without the template, and the static export's building blocks."""

from __future__ import annotations

import html
import itertools
import json
import re

import panel as pn
import pytest
from bokeh.document import Document
from panel.io.resources import CDN_DIST

from app import export, standalone
from app.cards import is_shown, lede
from app.main import PAGES, AppShell, build_app, is_true


def _figure_cards(view) -> list[pn.Card]:
    """The figures' cards (not the "More" folds and answers inside them)."""
    cards = view.select(pn.Card)
    inner = {id(c) for card in cards for c in card.select(pn.Card) if c is not card}
    return [card for card in cards if id(card) not in inner]


class TestEmbeddedApp:
    def test_full_app_is_still_the_template(self):
        app = build_app({"page": "rope"})
        assert isinstance(app, pn.template.FastListTemplate)
        assert not app.shell.embed and "embed" not in app.shell.link_query()

    def test_page_alone_is_a_bare_layout(self, document):
        app = build_app({"page": "alibi", "embed": "1"})
        assert isinstance(app, pn.Column)
        assert not isinstance(app, pn.template.BaseTemplate)
        assert not app.select(pn.template.BaseTemplate)
        assert app.shell.figure is None
        # The page's controls and all its figures, but no page navigation.
        assert app.shell.nav not in app.select(pn.widgets.RadioButtonGroup)
        assert len(_figure_cards(app)) >= len(PAGES["alibi"]().figures)
        app.get_root(document)

    @pytest.mark.parametrize("slug", sorted(PAGES))
    def test_every_figure_alone(self, slug):
        for i, (name, fig) in enumerate(PAGES[slug]().figures.items()):
            app = build_app({"page": slug, "figure": name, "embed": "1"})
            assert app.shell.figure == name
            cards = [c for c in _figure_cards(app) if c.title == fig.title]
            assert len(cards) == 1, name
            # This figure's controls are shown, and no other figure.
            params = [p for p in app.select(pn.Param) if p.object is app.shell.current]
            assert [list(p.parameters) for p in params] == [list(fig.controls)], name
            titles = {c.title for c in _figure_cards(app)}
            others = {f.title for n, f in app.shell.current.figures.items() if n != name}
            assert not titles & others, name
            if i == 0:  # rendering every figure alone is tested in test_pages
                app.get_root(Document())

    def test_figure_view_has_caption_and_formula(self):
        """The caption's lede under the figure; its rest and the formula folded under "More"."""
        app = build_app({"page": "sinusoidal", "figure": "clock", "embed": "1"})
        shown, folded = lede(app.shell.current.figures["clock"].caption)
        assert shown and folded
        (card,) = _figure_cards(app)
        assert any(shown in str(p.object) for p in card.objects if isinstance(p, pn.pane.HTML))
        (more,) = [c for c in card.select(pn.Card) if c.title == "More"]
        assert more.collapsed
        assert any(folded in str(p.object) for p in more.select(pn.pane.HTML))
        assert more.select(pn.pane.LaTeX)

    def test_unknown_figure_gives_notice_and_whole_page(self):
        app = build_app({"page": "rope", "figure": "<b>nope</b>", "embed": "1"})
        assert app.shell.figure is None
        assert app.shell.shell_notes and "nope" in app.shell.shell_notes[0]
        assert "whole page" in app.shell.shell_notes[0]
        notice = app.objects[0]
        assert is_shown(notice) and "&lt;b&gt;" in notice.object  # escaped, shown
        assert len(_figure_cards(app)) >= len(app.shell.current.figures)
        assert "figure" not in app.shell.link_query()

    def test_unknown_page_and_figure(self):
        app = build_app({"page": "nope", "figure": "pair", "embed": "true"})
        assert app.shell.page == "order" and app.shell.figure is None
        assert len(app.shell.shell_notes) == 2

    def test_link_keeps_figure_and_embed(self):
        shell = AppShell({"page": "sinusoidal", "figure": "table", "embed": "1", "t": "20"})
        shell.url.activate()
        assert shell.current.t == 20
        query = shell.link_query()
        assert query["figure"] == "table" and query["embed"] == "1" and query["t"] == "20"
        shell.current.t = 21
        assert "t=21" in shell.url.search
        assert "figure=table" in shell.url.search and "embed=1" in shell.url.search

    def test_link_values_apply_in_figure_view_with_notice(self):
        app = build_app({"page": "sinusoidal", "figure": "table", "embed": "1", "t": "9999"})
        assert app.shell.current.t == app.shell.current.n - 1
        assert app.shell.current.notes

    def test_figure_key_without_embed_is_ignored(self):
        shell = AppShell({"page": "rope", "figure": "pair"})
        assert not shell.embed and shell.figure is None
        assert "figure" not in shell.link_query()

    @pytest.mark.parametrize(
        ("raw", "on"),
        [("1", True), ("true", True), ("Yes", True), ("0", False), ("", False), ("x", False)],
    )
    def test_embed_switch(self, raw, on):
        assert is_true(raw) is on


class TestExportSpecs:
    def test_specs_name_real_figures_and_controls(self):
        for spec in export.SPECS:
            page = PAGES[spec.page]()
            assert spec.figure in page.figures, spec.name
            for grid in spec.grids:
                assert grid.control in page.figures[spec.figure].controls, spec.name
                assert getattr(page, grid.control) in grid.values, spec.name
                assert len(set(grid.values)) == len(grid.values) >= 2, spec.name
            # The page takes every combination as it is (no rule moves one to fit another).
            for values in itertools.product(*(g.values for g in spec.grids)):
                page.set_state(**dict(zip([g.control for g in spec.grids], values, strict=True)))
                assert [getattr(page, g.control) for g in spec.grids] == list(values), spec.name

    def test_pages_of_the_order_are_covered(self):
        covered = {(s.page, s.figure) for s in export.SPECS}
        for slug in ("order", "sinusoidal", "rope", "alibi"):
            for name in PAGES[slug]().figures:
                assert (slug, name) in covered

    def test_control_offers_exactly_the_precomputed_values(self):
        spec = next(s for s in export.SPECS if s.name == "sinusoidal:table")
        view, (control,), page = export.build_view(spec)
        assert isinstance(control, pn.widgets.DiscreteSlider)
        assert control.values == list(range(64)) and control.value == page.t
        assert control.label == page.param.t.label
        control.value = 40
        assert page.t == 40
        # Only the one control: the figure's other controls are fixed.
        parts = control.select(pn.widgets.Widget)
        assert [w for w in view.select(pn.widgets.Widget) if w not in parts] == []

    def test_selector_labels_come_from_the_parameter(self):
        spec = next(s for s in export.SPECS if s.name == "order:permutation")
        _, (control, _), page = export.build_view(spec)
        assert isinstance(control, pn.widgets.RadioButtonGroup)
        assert "RoPE" in control.options and control.options["RoPE"] == "rope"
        control.value = "rope"
        assert page.scheme == "rope"

    def test_a_figure_keeps_several_controls_and_says_which_are_sampled_and_fixed(self):
        spec = next(s for s in export.SPECS if s.name == "rope:pair")
        view, (m, n), page = export.build_view(spec)
        assert [w.label for w in (m, n)] == [page.param.m.label, page.param.n.label]
        assert spec.states == len(m.values) * len(n.values) >= 49
        m.value, n.value = 5, 3
        assert (page.m, page.n) == (5, 3)
        note = next(p.object for p in view.select(pn.pane.HTML) if "export-note" in str(p.object))
        assert f"holds {spec.states} precomputed states" in note
        assert f"({len(m.values)} of 4,097 values, 0 to {m.values[-1]})" in note
        assert "Fixed here:" in note and "θ" in note  # theta stays at the page's default
        assert "Its buttons move the controls above" in note
        labels = [b.label for b in view.select(pn.widgets.Button)]
        assert labels == ["Shift both by +1", "Swap m and n"]  # done in the browser

    def test_widgets_that_need_python_are_left_out(self):
        spec = next(s for s in export.SPECS if s.name == "rope:pair")
        view, _, page = export.build_view(spec)
        kept = view.select(pn.widgets.Button)
        assert kept and all(b.label in dict(spec.actions) for b in kept)  # only the browser's
        assert all(not b.param.clicks.watchers for b in kept)  # no Python behind them
        # R1 keeps its identity with today's numbers, not the log of its buttons.
        assert page.figures["pair"].extras[-1] in view.select(pn.pane.LaTeX)
        assert not any("log" in str(p.object).lower() for p in view.select(pn.pane.HTML))

    def test_select_specs(self):
        assert [s.name for s in export.select_specs(["rope:pair"])] == ["rope:pair"]
        assert {s.page for s in export.select_specs(["alibi"])} == {"alibi"}
        with pytest.raises(SystemExit):
            export.select_specs(["rope:nope"])

    def test_stylesheet_links_are_made_inline(self):
        url = f"{CDN_DIST}css/listpanel.css?v=1"
        doc = {
            "roots": [
                {
                    "type": "object",
                    "name": "ImportedStyleSheet",
                    "id": "p1",
                    "attributes": {"url": url},
                }
            ]
        }
        # The recorded states keep document patches as JSON strings.
        doc["state"] = json.dumps(
            {
                "x": {
                    "type": "object",
                    "name": "ImportedStyleSheet",
                    "id": "p2",
                    "attributes": {"url": url},
                }
            }
        )
        saved, _states = standalone.make_self_contained(_saved_page(doc))
        script = re.search(r'id="d">(.*?)</script>', saved, re.S).group(1)
        out = json.loads(html.unescape(script))
        assert out["roots"][0]["name"] == "InlineStyleSheet"
        assert "{" in out["roots"][0]["attributes"]["css"]  # the file's text, not its URL
        assert "ImportedStyleSheet" not in json.dumps(out)

    def test_foreign_stylesheet_is_refused(self):
        node = {"name": "ImportedStyleSheet", "attributes": {"url": "https://example.com/x.css"}}
        with pytest.raises(ValueError, match="cannot inline"):
            standalone.make_self_contained(_saved_page({"roots": [node]}))

    def test_external_script_is_refused(self):
        page = (
            '<script type="application/json" id="x">{}</script>'
            '<script src="https://cdn.example.com/a.js"></script>'
        )
        with pytest.raises(ValueError, match="external"):
            standalone.make_self_contained(page)

    def test_libraries_are_written_once_beside_the_pages_and_loaded_in_order(self, tmp_path):
        bokeh = "/* BEGIN bokeh.min.js */" + "b" * standalone.SHARED_MIN_CHARS
        katex = "!function(e,t){exports.katex=t()}" + "k" * standalone.SHARED_MIN_CHARS
        page = (
            f'<head><script type="text/javascript">{bokeh}</script>'
            f"<script>{katex}</script><style>{'s' * 10_000}</style></head>"
            '<body><script type="application/json" id="d">{}</script>'
            "<script>Bokeh.embed.embed_items(docs)</script></body>"
        )
        folder = tmp_path / "lib"
        first = standalone.share_libraries(page, folder)
        second = standalone.share_libraries(page, folder)
        assert first == second
        names = sorted(p.name for p in folder.iterdir())
        assert [n.split("-")[0] for n in names] == ["bokeh", "katex"]
        assert (folder / names[0]).read_text() == bokeh
        assert first.index(names[0]) < first.index(names[1]) < first.index("embed_items")
        assert "<script>Bokeh.embed.embed_items(docs)</script>" in first  # the page's own
        assert "s" * 10_000 in first and "{}</script>" in first  # sheets and the document stay


def _saved_page(doc: dict) -> str:
    """A saved page holding one serialised document, as Panel writes it."""
    text = html.escape(json.dumps(doc), quote=False)
    return f'<html><body><script type="application/json" id="d">{text}</script></body></html>'
