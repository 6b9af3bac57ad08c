"""Element options shared between frames draw what ``.opts`` draws (app/styles.py, issue 8)."""

from __future__ import annotations

import gc
import inspect

import holoviews as hv
import numpy as np
import pytest

from app.main import PAGES
from app.styles import Styles

from .test_inplace import assert_twins_draw_alike


def _style_of(element, *names: str) -> dict:
    """The element's style options ``names``, as HoloViews looks them up to draw it."""
    found = hv.Store.lookup_options("bokeh", element, "style").kwargs
    return {name: found.get(name) for name in names}


def _plot_of(element) -> dict:
    return hv.Store.lookup_options("bokeh", element, "plot").kwargs


def test_equal_options_share_one_tree():
    style = Styles()
    first = style(hv.Curve([1, 2, 3]), "line", color="red", line_width=3)
    second = style(hv.Curve([4, 5, 6]), "line", color="red", line_width=3)
    assert first.id is not None and second.id == first.id
    assert _style_of(second, "color", "line_width") == {"color": "red", "line_width": 3}
    assert (style.set, style.shared) == (1, 1)


def test_other_options_type_or_slot_set_their_own():
    style = Styles()
    red = style(hv.Curve([1, 2]), "line", color="red")
    blue = style(hv.Curve([1, 2]), "line", color="blue")
    assert blue.id != red.id and _style_of(blue, "color") == {"color": "blue"}
    dots = style(hv.Scatter([1, 2]), "line", color="blue")
    assert dots.id != blue.id and _style_of(dots, "color") == {"color": "blue"}
    other = style(hv.Curve([1, 2]), "other line", color="blue")
    assert other.id != blue.id
    assert style.shared == 0


def test_figure_options_of_an_overlay_are_shared():
    style = Styles()
    a = style(hv.Curve([1, 2]) * hv.Curve([2, 3]), "fig", xlim=(0, 5), show_legend=False)
    b = style(hv.Curve([1, 3]) * hv.Curve([2, 4]), "fig", xlim=(0, 5), show_legend=False)
    assert b.id == a.id
    assert _plot_of(b) == {"xlim": (0, 5), "show_legend": False}
    c = style(hv.Curve([1, 3]) * hv.Curve([2, 4]), "fig", xlim=(0, 9), show_legend=False)
    assert c.id != a.id and _plot_of(c)["xlim"] == (0, 9)


def test_options_that_cannot_be_compared_are_set_each_time():
    style = Styles()
    ticks = np.array([0, 1, 2])
    a = style(hv.Curve([1, 2]), "line", xticks=ticks)
    b = style(hv.Curve([1, 2]), "line", xticks=ticks.copy())
    assert b.id != a.id and style.shared == 0


def test_an_element_with_options_of_its_own_keeps_them():
    style = Styles()
    style(hv.Curve([1, 2]), "line", color="red")
    own = hv.Curve([1, 2]).opts(line_dash="dotted")
    both = style(own, "line", color="red")
    assert _style_of(both, "line_dash", "color") == {"line_dash": "dotted", "color": "red"}
    assert style.shared == 0


def test_a_slot_keeps_one_tree_however_many_frames():
    """Options that change every frame (an axis limit) do not pile up option trees."""
    style = Styles()
    gc.collect()
    before = len(hv.Store.custom_options())
    for i in range(200):
        frame = style(hv.Curve([1, 2]), "line", color="red", xlim=(0, i + 1))
    del frame
    gc.collect()
    assert len(hv.Store.custom_options()) - before <= 1


def test_not_sharing_is_plain_opts():
    style = Styles()
    style.sharing = False
    a = style(hv.Curve([1, 2]), "line", color="red")
    b = style(hv.Curve([1, 2]), "line", color="red")
    assert a.id != b.id and _style_of(b, "color") == {"color": "red"}
    assert (style.set, style.shared) == (2, 0)


#: The pages whose figure methods style their elements with ``self.style``.
STYLED = [slug for slug, cls in PAGES.items() if "self.style(" in inspect.getsource(cls)]


def test_the_pages_that_draw_on_every_change_share_styles():
    """Context extension sets its options once, on its figures' DynamicMaps."""
    assert set(STYLED) == set(PAGES) - {"extension"}


@pytest.mark.parametrize("slug", STYLED)
@pytest.mark.parametrize("seed", [5, 6])
def test_pages_draw_what_plain_opts_draw(slug, seed):
    """The same random changes on a page that shares options and on one that
    sets them every frame: every figure draws the same after each change."""
    shared, plain = PAGES[slug](), PAGES[slug]()
    plain.style.sharing = False
    # (Styles are for the elements: a figure sent as the page's columns builds none.)
    shared.in_place.sending = plain.in_place.sending = False
    assert_twins_draw_alike(shared, plain, np.random.default_rng(seed), 5, slug)
    assert plain.style.shared == 0
    assert shared.style.shared > 0, f"{slug}: styled, but never shared"
