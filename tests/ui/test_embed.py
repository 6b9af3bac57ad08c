"""Embed URLs in a real browser: no template chrome, the figure drawn, the link kept."""

from __future__ import annotations

import time

import pytest

from app.main import PAGES

from .helpers import PageWatch, new_server_errors, open_page, resize_script, visible_text

#: Elements of the FastListTemplate that an embedded view must not have.
CHROME = ("#header", "#sidebar", "#sidebar-button", "#theme-switch", ".pn-busy-container")


@pytest.fixture(autouse=True)
def server_stays_clean(server):
    offset = len(server["log"].read_text(errors="replace"))
    yield
    errors = new_server_errors(server["log"], offset)
    assert not errors, f"server logged errors:\n{errors}"


def _no_chrome(page) -> None:
    for selector in CHROME:
        assert page.locator(selector).count() == 0, f"template element {selector} shown"


def _wait_for_link(page, *parts: str) -> None:
    page.wait_for_function(
        "parts => parts.every(p => window.location.search.includes(p))", arg=list(parts)
    )


def test_figure_alone_has_no_chrome_and_draws(page, server):
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=rope&figure=pair&embed=1")
    _no_chrome(page)
    text = visible_text(page)
    rope = PAGES["rope"]()
    assert rope.figures["pair"].title in text
    for name, fig in rope.figures.items():
        if name != "pair":
            assert fig.title not in text
    assert PAGES["alibi"].title not in text  # no page navigation
    # The figure's own controls, and none of the page's other controls.
    sliders = " | ".join(page.locator(".bk-slider-title").all_inner_texts())
    # m is a position: its label stands beside its number box, above its slider.
    assert f"{rope.param.m.label}:" in text and rope.param.theta.label in sliders
    assert rope.param.d.label not in sliders and rope.param.pair.label not in sliders
    # The link written back keeps the embedding keys.
    _wait_for_link(page, "page=rope", "figure=pair", "embed=1")
    assert watch.errors == [] and watch.external == []


def test_moving_a_control_in_a_figure_updates_link_and_plot(page, server):
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=sinusoidal&figure=table&embed=1&t=10")
    _no_chrome(page)
    _wait_for_link(page, "t=10", "figure=table", "embed=1")
    figure = page.locator(".bk-Figure").first
    before = figure.screenshot()
    page.locator(".noUi-handle").first.focus()  # the first control is t
    page.keyboard.press("ArrowRight")
    _wait_for_link(page, "t=11", "figure=table", "embed=1")
    page.wait_for_timeout(500)
    assert figure.screenshot() != before
    assert watch.errors == [] and watch.external == []


def test_page_alone_has_no_chrome(page, server):
    watch = PageWatch().attach(page)
    alibi = PAGES["alibi"]()
    open_page(page, f"{server['url']}?page=alibi&embed=1", min_canvases=len(alibi.figures))
    _no_chrome(page)
    text = visible_text(page)
    for fig in alibi.figures.values():
        assert fig.title in text
    assert PAGES["rope"].title not in text
    _wait_for_link(page, "page=alibi", "embed=1")
    assert watch.errors == [] and watch.external == []


def test_unknown_figure_shows_notice_and_page(page, server):
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=order&figure=%3Cb%3Enope%3C%2Fb%3E&embed=1")
    _no_chrome(page)
    text = visible_text(page)
    assert "There is no figure '<b>nope</b>'" in text  # shown as text, not markup
    for fig in PAGES["order"]().figures.values():
        assert fig.title in text
    assert watch.errors == [] and watch.external == []


def framed(page, src: str, height: int = 300) -> None:
    """A documentation page: the docs' resize lines and one frame of ``height`` px."""
    frame = f'<iframe id="f" src="{src}" width="800" height="{height}" style="border: 0"></iframe>'
    page.set_content(f'<body style="margin: 0">{resize_script()}{frame}</body>')


def frame_fits(page) -> dict:
    """The frame's height, and the bottom of its content (CSS px)."""
    content = page.frame_locator("#f").locator("[data-root-id] > *").first
    return {
        "frame": page.locator("#f").evaluate("f => f.getBoundingClientRect().height"),
        "content": content.evaluate("e => Math.ceil(e.getBoundingClientRect().bottom)"),
    }


def test_an_embedded_figure_gives_its_frame_its_height_and_no_inner_scroll(page, server):
    """With the docs' lines, a live figure's frame (300 px to start) takes the height of
    its content, grows when "More" opens and shrinks back when it closes."""
    framed(page, f"{server['url']}?page=rope&figure=pair&embed=1")
    frame = page.frame_locator("#f")
    frame.locator("canvas").first.wait_for(timeout=30_000)

    def settled(previous: float | None = None) -> dict:
        deadline = time.monotonic() + 10
        while True:
            fit = frame_fits(page)
            if abs(fit["frame"] - fit["content"]) <= 16 and fit["frame"] != previous:
                return fit
            assert time.monotonic() < deadline, f"the frame did not take its height: {fit}"
            time.sleep(0.2)

    first = settled()
    assert first["frame"] > 600  # R1 with its buttons, readout and caption
    frame.get_by_role("button", name="More").click()
    opened = settled(first["frame"])
    assert opened["frame"] > first["frame"] + 20
    frame.get_by_role("button", name="More").click()
    closed = settled(opened["frame"])
    assert abs(closed["frame"] - first["frame"]) <= 4
    assert frame.locator("html").evaluate("h => h.scrollHeight <= h.clientHeight + 1")
