"""Every page builds, renders, and exposes its figures; shared page behaviour."""

from __future__ import annotations

import contextlib
import re

import holoviews as hv
import panel as pn
import param
import pytest

from app.cards import Figure, QuickCheck
from app.main import PAGES
from app.page import Page

from .test_numbers import BARE_E


def test_registry_lists_built_pages():
    assert list(PAGES)[:2] == ["order", "sinusoidal"]
    for slug, cls in PAGES.items():
        assert issubclass(cls, Page)
        assert cls.slug == slug
        assert cls.title and cls.intro


def test_page_renders_without_error(page, document):
    root = page.__panel__().get_root(document)
    assert root is not None
    for fig in page.figures.values():
        hv.renderer("bokeh").get_plot(fig.plot)


def test_figures_are_complete(page):
    assert page.figures
    for name, fig in page.figures.items():
        assert isinstance(fig, Figure), name
        assert fig.title and fig.caption and fig.formula.startswith("$$"), name
        assert set(fig.controls) <= set(page.control_names()), name


def test_every_figure_can_be_shown_alone(page, document):
    for name in page.figures:
        view = page.figure_view(name)
        view.get_root(document)


def test_controls_are_the_parameters(page):
    names = page.control_names()
    assert names and "notes" not in names and "name" not in names
    for name in names:
        p = page.param[name]
        assert p.doc, f"{name} has no doc"
        assert p.label, f"{name} has no label"
        if isinstance(p, (pn.param.param.Number,)) and not isinstance(p, pn.param.param.Boolean):
            assert p.bounds is not None and None not in p.bounds, f"{name} is unbounded"


def test_no_readout_shows_bare_e_notation(page):
    """A student reads "≈ 0 (3.9 × 10⁻¹⁶)", never "3.9e-16" (S3's shift check, R2's
    and R7's curve gaps printed e-notation)."""
    for name, drawing in page.drawings.items():
        chart = drawing.chart
        if chart.readout_depends is not None:
            text = re.sub(r"<[^>]*>", "", chart.readout(page))  # not a colour like #D55E00
            assert not BARE_E.search(text), (name, text)


def test_quick_check_answer_is_computed(page):
    check = page.quick_check
    assert isinstance(check, QuickCheck)
    assert check.question.endswith("?")
    assert "<b>" in check.answer()


def _another_value(page, name):
    """A valid value of control ``name`` that differs from the current one."""
    p, value = page.param[name], getattr(page, name)
    if isinstance(p, param.Selector):
        objects = list(p.objects.values()) if isinstance(p.objects, dict) else list(p.objects)
        return next(o for o in objects if o != value)
    if isinstance(p, param.String):
        return "cat sat mat" if value != "cat sat mat" else "mat sat cat"
    if isinstance(p, param.Boolean):
        return not value
    low, high = page.dynamic_bounds(page._values()).get(name, p.bounds)
    step = 1 if isinstance(p, param.Integer) else (high - low) / 10
    if isinstance(p, param.Integer) and name == "d":
        step = 2
    return value + step if value + step <= high else value - step


def test_pages_do_not_share_state():
    for cls in PAGES.values():
        one, two = cls(), cls()
        for name in one.control_names():
            one.set_state(**{name: _another_value(one, name)})
            assert two._values() == cls()._values(), name


def test_page_notice_lists_link_changes(page):
    notes = page.apply_query({"no_such_key": "1"})
    assert notes == page.notes
    assert any("no_such_key" in n for n in notes)


def test_notice_goes_away_when_a_control_moves(page):
    page.apply_query({"no_such_key": "1"})
    assert page.notes
    name = page.control_names()[-1]
    setattr(page, name, _another_value(page, name))
    assert page.notes == []


@pytest.mark.parametrize("slug", list(PAGES))
def test_two_sessions_can_render_the_same_page(slug):
    """A Bokeh model belongs to one document: nothing a page draws may be shared
    at module level, or the second browser session to open the page breaks."""
    from bokeh.document import Document

    for _ in range(2):
        doc = Document()
        root = PAGES[slug]().__panel__().get_root(doc)
        doc.add_root(root)
        assert root.document is doc


def test_constrain_names_the_bound_a_value_was_moved_to():
    from app.page import Page

    class Window(Page):
        low = param.Integer(default=2, bounds=(0, 10))
        high = param.Integer(default=8, bounds=(0, 10))

        @classmethod
        def dynamic_bounds(cls, values):
            return {"low": (0, 5), "high": (5, 10)}

    fixed, notes = Window.constrain({"low": 7, "high": 3})
    assert fixed == {"low": 5, "high": 5}
    assert notes == ["Low 7 is past 5; set to 5.", "High 3 is below 5; set to 5."]


def _reaches(start, target) -> bool:
    """Whether ``target`` can be reached from ``start`` by strong references
    (not through a Bokeh document: a closed session's is emptied)."""
    import gc
    import types

    from bokeh.document import Document

    seen: set[int] = set()
    stack = [start]
    while stack:
        obj = stack.pop()
        if obj is target:
            return True
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, Document)):
            continue
        seen.add(id(obj))
        if isinstance(obj, types.FunctionType):  # its closure, not its module's globals
            for cell in obj.__closure__ or ():
                with contextlib.suppress(ValueError):  # an empty cell
                    stack.append(cell.cell_contents)
            continue
        stack.extend(gc.get_referents(obj))
    return False


@pytest.mark.parametrize("slug", list(PAGES))
def test_holoviews_global_options_do_not_hold_the_page(slug, document):
    """HoloViews keeps each plot's options (hooks and tools) in a global store
    until the element they belong to is collected. A hook holding the page made
    that a cycle through a global: every closed Context extension session
    stayed in the server's memory (found with benchmarks/endurance.py)."""
    from holoviews.core.options import Store

    page = PAGES[slug]()
    document.add_root(page.__panel__().get_root(document))
    for fig in page.figures.values():
        hv.renderer("bokeh").get_plot(fig.plot, doc=document)
    assert not _reaches(Store._custom_options, page)


def _pixels(spec) -> float | None:
    """A Bokeh font size in px (pt × 4/3); None for a size relative to the page's text."""
    text = spec.get("value") if isinstance(spec, dict) else getattr(spec, "value", spec)
    if not isinstance(text, str):
        return None
    if text.endswith("pt"):
        return float(text[:-2]) * 4 / 3
    if text.endswith("px"):
        return float(text[:-2])
    return None


def test_every_text_a_figure_draws_at_a_fixed_size_is_at_least_12px(page, document):
    """Labels, legends and axes in pt or px: none under 12 px (a projector's back
    row; sizes in em follow the page's 16 px text)."""
    root = page.__panel__().get_root(document)
    small = []
    for model in root.references():
        for prop in model.properties():
            # A categorical axis draws subgroups for three-level factors only: none here.
            if prop.endswith("font_size") and prop != "subgroup_text_font_size":
                size = _pixels(getattr(model, prop))
                if size is not None and size < 12:
                    small.append(f"{type(model).__name__}.{prop} = {size:.1f} px")
    assert not small, small
