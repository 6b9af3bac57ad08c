"""Bokeh's plain defaults kept per class (app/bokeh_defaults.py) read as Bokeh's own."""

from __future__ import annotations

import pytest
from bokeh.core.property.descriptors import PropertyDescriptor
from bokeh.document import Document
from bokeh.model import Model
from bokeh.models import ColumnDataSource, GlyphRenderer, Scatter
from bokeh.plotting import figure
from bokeh.themes import Theme

import app.main  # noqa: F401  (applies the wrapper, as serving the app does)
from app.bokeh_defaults import keep_plain_defaults


def _concrete_models() -> list[type[Model]]:
    classes = []
    for cls in Model.model_class_reverse_map.values():
        if cls.__view_module__.startswith("bokeh") and not getattr(cls, "__abstract__", False):
            classes.append(cls)
    return classes


def test_the_app_wraps_bokehs_lookup_once():
    wrapper = PropertyDescriptor._get_default
    assert getattr(wrapper, "_pe_kept", False)
    keep_plain_defaults()
    assert PropertyDescriptor._get_default is wrapper


def test_every_default_of_every_bokeh_model_reads_as_bokehs_own():
    bokehs_own = PropertyDescriptor._get_default.__wrapped__
    checked = 0
    for cls in _concrete_models():
        try:
            first, second, fresh = cls(), cls(), cls()
        except (TypeError, ValueError):
            continue  # needs arguments
        for name in sorted(first.properties()):
            descriptor = cls.lookup(name)
            if not isinstance(descriptor, PropertyDescriptor) or name in first._property_values:
                continue  # an alias, or set by the constructor
            # The second read of a plain default comes from the kept values, and
            # must still be what Bokeh works out for an object of its own.
            value = descriptor._get_default(first)
            again = descriptor._get_default(second)
            own = bokehs_own(descriptor, fresh)
            if isinstance(own, (type(None), bool, int, float, str)):
                for read in (value, again):
                    assert type(read) is type(own), (cls, name)
                    assert read == own or (read != read and own != own), (cls, name)
                checked += 1
    # Hundreds of classes, thousands of plain defaults.
    assert checked > 3_000


def test_mutable_defaults_stay_one_per_object():
    a, b = Scatter(), Scatter()
    assert a.line_dash == [] and b.line_dash == []
    a.line_dash.append(4)
    assert Scatter().line_dash == [] and b.line_dash == []
    assert GlyphRenderer().view is not GlyphRenderer().view
    assert ColumnDataSource().selected is not ColumnDataSource().selected


@pytest.mark.parametrize("read_plain_first", [True, False])
def test_a_themes_value_wins_over_a_kept_default(read_plain_first):
    plain = Scatter()
    if read_plain_first:
        assert plain.size == 4  # now kept for Scatter
    themed = Scatter()
    doc = Document()
    doc.theme = Theme(json={"attrs": {"Scatter": {"size": 21, "marker": "square"}}})
    doc.add_root(figure())
    doc.roots[0].renderers.append(GlyphRenderer(glyph=themed, data_source=ColumnDataSource()))
    assert themed.size == 21
    assert themed.marker == "square"
    assert Scatter().size == 4
    assert Scatter().marker == "circle"
