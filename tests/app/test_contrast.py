"""Colour: text contrast inside plots (WCAG AA) and colour-blind-safe encodings.

axe-core checks the text of the page (tests/ui/test_a11y.py) but cannot read
a canvas: the text Bokeh draws (axis labels, tick labels, labels placed in a
figure) is checked here, from the colours the app and its design declare.
"""

from __future__ import annotations

import ast
import colorsys
import re
from pathlib import Path

import panel as pn
import pytest
from holoviews.plotting.util import process_cmap
from panel.theme.fast import FastDarkTheme, FastDefaultTheme

from app.look import (
    CODE_CMAP,
    OKABE_ITO,
    contrast_ratio,
    hands_palette,
    text_color,
    warning_text_color,
)
from app.theme import OfflineFast

APP = Path(__file__).resolve().parents[2] / "app"
AA_TEXT = 4.5
#: Lines, marks and focus rings (WCAG 1.4.11, non-text contrast).
AA_GRAPHICS = 3.0

#: The design's theme classes, by the app's theme names (``?theme=dark``).
THEMES = {"default": FastDefaultTheme, "dark": FastDarkTheme}


@pytest.fixture(params=list(THEMES), ids=str)
def theme(request):
    """Build under one theme (as a session opened with ``?theme=...`` does)."""
    with pn.config.set(theme=request.param):
        yield request.param


def _style(theme: str):
    assert OfflineFast._themes[theme] is THEMES[theme]
    return THEMES[theme].param["style"].default


def _plot_background(theme: str) -> str:
    """The figure background the design's Bokeh theme sets."""
    attrs = _style(theme).create_bokeh_theme()["attrs"]
    return attrs["figure"]["background_fill_color"]


def test_contrast_ratio_matches_wcag_reference_values():
    assert contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio("#FFFFFF", "#777777") == contrast_ratio("#777777", "#FFFFFF")


def test_text_in_plots_meets_aa(theme):
    background = _plot_background(theme)
    for name, color in [("text_color", text_color()), ("warning_text", warning_text_color())]:
        ratio = contrast_ratio(color, background)
        assert ratio >= AA_TEXT, f"{theme}: {name} {color} on {background} is {ratio:.2f}:1"


def test_axis_labels_and_ticks_meet_aa(theme):
    """Axis, tick, legend, colour-bar and title text: the design's Bokeh theme."""
    attrs = _style(theme).create_bokeh_theme()["attrs"]
    background = attrs["figure"]["background_fill_color"]
    texts = {
        "axis label": attrs["Axis"]["axis_label_text_color"],
        "tick label": attrs["Axis"]["major_label_text_color"],
        "legend": attrs["Legend"]["label_text_color"],
        "colour bar": attrs["ColorBar"]["major_label_text_color"],
        "title": attrs["Title"]["text_color"],
    }
    for what, color in texts.items():
        ratio = contrast_ratio(color, background)
        assert ratio >= AA_TEXT, f"{theme}: {what} {color} on {background} is {ratio:.2f}:1"


def test_highlight_and_warning_marks_are_visible(theme):
    """Marks that carry meaning on their own reach 3:1 on the plot background."""
    background = _plot_background(theme)
    marks = ["blue", "vermillion"] if theme == "default" else ["sky", "vermillion", "orange"]
    for name in marks:
        ratio = contrast_ratio(OKABE_ITO[name], background)
        assert ratio >= AA_GRAPHICS, f"{theme}: {name} is {ratio:.2f}:1"


def _blend(color: str, alpha: float, background: str) -> str:
    top, under = color.lstrip("#"), background.lstrip("#")
    return "#" + "".join(
        f"{round(alpha * int(top[i : i + 2], 16) + (1 - alpha) * int(under[i : i + 2], 16)):02X}"
        for i in (0, 2, 4)
    )


@pytest.mark.parametrize("d", [4, 16, 64])
@pytest.mark.parametrize("layout", ["interleaved", "half-split"])
def test_numbers_on_the_pairing_squares_meet_aa(theme, d, layout):
    """RoPE R4 prints each dimension's number on its pair's square (7 pt, bold):
    on the bright and the faded squares alike the number reaches 4.5:1."""
    from app.pages.rope import RopePage
    from app.pages.rope.layouts import DIAGRAM_DIM

    page = RopePage()
    page.set_state(d=d, layout=layout)
    cells = page.drawings["layouts"].drawn("cells")
    numbers = page.drawings["layouts"].drawn("numbers")
    half = min(d, DIAGRAM_DIM) // 2
    palette = hands_palette(max(half, 2))
    background = _plot_background(theme)
    worst = []
    for pair, alpha, ink in zip(cells["pair"], cells["alpha"], numbers["ink"], strict=True):
        ratio = contrast_ratio(ink, _blend(palette[int(pair)], float(alpha), background))
        worst.append((ratio, ink, palette[int(pair)], alpha))
    assert min(worst)[0] >= AA_TEXT, f"{theme}: {min(worst)}"


# ---------------------------------------------------------------- colour-blind safety

HEX = re.compile(r"#[0-9A-Fa-f]{6}\b")


def _is_neutral(color: str) -> bool:
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return max(r, g, b) - min(r, g, b) <= 8


def _app_sources() -> dict[str, str]:
    return {str(p.relative_to(APP)): p.read_text() for p in sorted(APP.rglob("*.py"))}


def _colour_literals(source: str) -> list[str]:
    """String constants of ``source``, minus palette keys (``OKABE_ITO["green"]``)."""
    tree = ast.parse(source)
    keys: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "OKABE_ITO"
        ):
            keys.add(id(node.slice))
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "OKABE_ITO" for t in node.targets
        ):
            keys.update(id(k) for k in getattr(node.value, "keys", []))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in keys
    ]


def test_every_colour_in_the_app_is_okabe_ito_or_a_safe_shade():
    """Colours come from OKABE_ITO; any other is a neutral or a shade/tint that is
    neither red nor green (e.g. dark yellow for text, a vermillion tint behind a
    row), and no red or green is named directly."""
    allowed = {c.upper() for c in OKABE_ITO.values()}
    named = {"red", "green", "lime", "darkgreen", "crimson", "darkred"}
    strays = []
    for name, source in _app_sources().items():
        for literal in _colour_literals(source):
            for color in HEX.findall(literal):
                if color.upper() in allowed or _is_neutral(color):
                    continue
                if _hue_family(color) in {"red", "green"}:
                    strays.append(f"{name}: {color} ({_hue_family(color)})")
            if literal.strip().lower() in named:
                strays.append(f"{name}: {literal!r}")
    assert not strays, f"colours outside the Okabe-Ito palette: {strays}"


def _hue_family(color: str) -> str:
    r, g, b = (int(color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    h, s, v = colorsys.rgb_to_hsv(r, g, b)
    if s < 0.25 or v < 0.15:
        return "neutral"
    degrees = 360 * h
    if degrees < 20 or degrees >= 330:
        return "red"
    if 75 <= degrees < 165:
        return "green"
    return "other"


def _cmap_names() -> set[str]:
    names = {CODE_CMAP}
    for source in _app_sources().values():
        # ``cmap="…"`` and module constants such as ``_SHAW_CMAP = "…"``.
        names |= set(re.findall(r'(?:cmap|_CMAP)\s*=\s*["\']([A-Za-z0-9_]+)["\']', source))
    return names


def test_colour_maps_do_not_oppose_red_and_green():
    """A diverging map's two ends must not be red against green (deuteranopia)."""
    names = _cmap_names()
    assert CODE_CMAP in names and len(names) >= 2
    for name in sorted(names):
        colors = process_cmap(name, 256)
        ends = {_hue_family(colors[0]), _hue_family(colors[-1])}
        assert ends != {"red", "green"}, f"{name} runs from red to green"
    hands = hands_palette(8)
    assert {_hue_family(hands[0]), _hue_family(hands[-1])} != {"red", "green"}


def test_okabe_ito_is_the_published_palette():
    """The eight colours of Okabe & Ito (2008), with their usual grey."""
    assert {k: v.upper() for k, v in OKABE_ITO.items()} == {
        "orange": "#E69F00",
        "sky": "#56B4E9",
        "green": "#009E73",
        "yellow": "#F0E442",
        "blue": "#0072B2",
        "vermillion": "#D55E00",
        "purple": "#CC79A7",
        "grey": "#8C8C8C",
    }
