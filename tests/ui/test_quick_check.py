"""The quick check's answer in a real browser: it follows the controls while hidden."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .helpers import (
    SET_SLIDER_JS,
    open_recording,
    visibility_events,
)


def test_a_hidden_quick_check_answer_updates_without_re_laying_out_the_page(server, page: Page):
    """The answer in a collapsed card follows the controls, and showing it shows the
    current answer; but the server never sends 'visible' back to the hidden pane
    (that made the browser lay out the whole page twice per move, ~400 ms)."""
    watch, frames = open_recording(page, f"{server['url']}?page=sinusoidal", 4)
    for t in (12, 13):
        page.evaluate(SET_SLIDER_JS, ["Position t", t])
        page.wait_for_function(f"() => location.search.includes('t={t}&')", timeout=5_000)
    page.wait_for_timeout(500)
    assert visibility_events(frames) == []
    page.get_by_role("button", name="Show the answer").first.click()  # S3's (S5 has one too)
    expect(page.get_by_text("PE(13)·PE(13) =").first).to_be_visible(timeout=5_000)
    assert not watch.errors
