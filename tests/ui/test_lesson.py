"""The guided lesson in a real browser: questions, Next / Previous, the keys, the address."""

from __future__ import annotations

import contextlib
import html
import re

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.lesson import STEPS
from app.lesson.checks import GRADERS

from .helpers import PageWatch, deep_js, open_page


def test_a_student_answers_moves_on_with_the_keys_and_the_address_follows(server, page: Page):
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=lesson&step=6")
    expect(page.get_by_text(f"Step 6 of {len(STEPS)}")).to_be_visible()
    page.get_by_role("button", name="0.878", exact=True).click()
    expect(page.get_by_text("the answer is 0.479")).to_be_visible(timeout=5_000)
    page.get_by_role("button", name="0.479", exact=True).click()
    expect(page.get_by_text("Right: 0.479.")).to_be_visible(timeout=5_000)

    page.mouse.click(640, 30)  # the header: the focus is on no control
    page.keyboard.press("ArrowRight")
    expect(page.get_by_text(f"Step 7 of {len(STEPS)}")).to_be_visible(timeout=10_000)
    expect(page).to_have_url(re.compile(r"page=lesson&step=7&start=1000&d=64$"), timeout=5_000)
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_text(f"Step 6 of {len(STEPS)}")).to_be_visible(timeout=10_000)
    page.get_by_role("button", name="Next →").click()
    expect(page.get_by_text(f"Step 7 of {len(STEPS)}")).to_be_visible(timeout=10_000)
    assert not watch.errors and not watch.external


def test_arrow_keys_on_a_slider_move_the_slider_not_the_lesson(server, page: Page):
    open_page(page, f"{server['url']}?page=lesson&step=3")
    handle = page.get_by_role("slider", name=re.compile("Position t")).first
    handle.focus()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"step=3&t=11&"), timeout=5_000)
    expect(page.get_by_text(f"Step 3 of {len(STEPS)}")).to_be_visible()


def test_a_slider_moved_right_after_next_reaches_the_figure_and_the_address(server, page: Page):
    """Back, then on to a step already built (it is only unhidden), and at once a key on
    its slider: the server gets the value (the address follows), and
    the hidden step's slider of the same name is left alone."""
    open_page(page, f"{server['url']}?page=lesson&step=4")
    page.get_by_role("button", name="← Previous").click()
    expect(page.get_by_text(f"Step 3 of {len(STEPS)}")).to_be_visible(timeout=10_000)
    page.get_by_role("button", name="Next →").click()
    expect(page.get_by_text(f"Step 4 of {len(STEPS)}")).to_be_visible(timeout=10_000)
    page.get_by_role("slider", name=re.compile("Position t")).last.focus()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"step=4&t=41&d=64$"), timeout=5_000)
    page.get_by_role("button", name="← Previous").click()
    expect(page).to_have_url(re.compile(r"step=3&t=10&"), timeout=5_000)


def test_the_full_page_link_opens_the_topic_page_at_the_steps_settings(server, page: Page):
    open_page(page, f"{server['url']}?page=lesson&step=6&m=105&n=102")
    page.get_by_role("link", name="Open in the full page →").click()
    expect(page).to_have_url(re.compile(r"page=rope&m=105&n=102&theta=0\.5&"), timeout=10_000)
    expect(page.get_by_text("query at m = 105, key at n = 102").first).to_be_visible(timeout=15_000)


#: Per step, projected: the page's overflow, the smallest body text, tick and
#: legend sizes of every figure, figures that still have a toolbar, the sidebar.
_PROJECTED = deep_js(
    """(() => {
  const main = document.getElementById('main');
  const px = v => parseFloat(typeof v === 'object' && v !== null ? v.value : v);
  // The step on screen: the next one is built hidden beside it (its styles may
  // still be loading), and nobody reads that.
  const text = deepElements().filter(el => el.classList && el.classList.contains('step-text')
    && el.getClientRects().length > 0);
  const ticks = [], legends = [], toolbars = [];
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    if (m.properties.major_label_text_font_size && m.visible !== false) {
      ticks.push(px(m.major_label_text_font_size));
    }
    if (m.type === 'Legend') legends.push(px(m.label_text_font_size));
    if (m.properties.toolbar_location && m.toolbar_location != null) toolbars.push(m.type);
  }
  return {
    over: main.scrollHeight - main.clientHeight,
    text: text.length
      ? Math.min(...text.map(el => parseFloat(getComputedStyle(el).fontSize))) : null,
    ticks: Math.min(...ticks), legends: legends.length ? Math.min(...legends) : null, toolbars,
    sidebarOpen: document.getElementById('sidebar').getBoundingClientRect().width > 0,
  };
})()"""
)


@pytest.mark.parametrize("step", range(1, len(STEPS) + 1))
def test_each_projected_step_fits_a_1280_by_720_projector_in_large_type(server, page: Page, step):
    """``present=1``: body text ≥ 20 px, ticks and legends ≥ 16 px, no toolbars,
    the sidebar closed, and the whole step on one 1280 × 720 screen."""
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page, f"{server['url']}?page=lesson&step={step}&present=1")
    # The sizes are set and the figure's height fitted within a second or two.
    with contextlib.suppress(PlaywrightTimeout):  # the assertions below say what is off
        page.wait_for_function(
            f"arg => {{ const g = ({_PROJECTED})(arg); return g.over <= 1 && g.text >= 20 "
            "&& g.ticks >= 16 "
            "&& (g.legends === null || g.legends >= 16) && g.toolbars.length === 0; }",
            timeout=8_000,
        )
    got = page.evaluate(_PROJECTED)
    assert got["over"] <= 1, f"step {step} scrolls by {got['over']} px"
    assert got["text"] >= 20, got
    assert got["ticks"] >= 16, got
    assert got["legends"] is None or got["legends"] >= 16, got
    assert got["toolbars"] == [], got
    assert got["sidebarOpen"] is False


def test_the_presenter_view_stays_on_when_the_class_moves_on(server, page: Page):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page, f"{server['url']}?page=lesson&step=2&present=1")
    page.get_by_role("button", name="Next →").click()
    expect(page).to_have_url(re.compile(r"page=lesson&step=3&.*present=1"), timeout=10_000)


def _opening(text: str) -> str:
    """The first words of a step's text as the page shows it (tags dropped)."""
    plain = html.unescape(re.sub(r"<[^>]+>", "", text))
    return plain[:40].rsplit(" ", 1)[0]


def test_projected_feedback_to_an_answer_is_brought_into_view(server, page: Page):
    """Projected, step 6 fits the screen until its question is answered; the
    explanation then runs past a 1280 × 720 screen's bottom, and the page
    scrolls it into view."""
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page, f"{server['url']}?page=lesson&step=6&present=1")
    check = STEPS[5].check
    right = GRADERS[check.grade](check.choices).correct
    wrong = next(i for i in range(len(check.choices)) if i != right)
    page.get_by_role("button", name=check.choices[wrong], exact=True).click()
    feedback = page.get_by_role("status").filter(has_text="the answer is")
    expect(feedback).to_contain_text(f"the answer is {check.choices[right]}.", timeout=5_000)
    expect(feedback).to_be_in_viewport(ratio=1, timeout=3_000)


def test_a_student_walks_every_step_and_answers_each_question_wrong_then_right(server, page: Page):
    """Next and the → key alternate; each question's feedback is the core's verdict."""
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=lesson&step=1")
    for number, spec in enumerate(STEPS, start=1):
        expect(page.get_by_text(f"Step {number} of {len(STEPS)}")).to_be_visible(timeout=15_000)
        # As a student does, read the step before answering: a step built on the
        # spot reaches the page a moment after its title, and until then the
        # previous step's choices are the ones on screen.
        expect(page.get_by_text(_opening(spec.text)).first).to_be_visible(timeout=15_000)
        right = GRADERS[spec.check.grade](spec.check.choices).correct
        wrong = next(i for i in range(len(spec.check.choices)) if i != right)
        page.get_by_role("button", name=spec.check.choices[wrong], exact=True).click()
        expect(page.get_by_text(f"the answer is {spec.check.choices[right]}.").first).to_be_visible(
            timeout=5_000
        )
        page.get_by_role("button", name=spec.check.choices[right], exact=True).click()
        expect(page.get_by_text(f"Right: {spec.check.choices[right]}.").first).to_be_visible(
            timeout=5_000
        )
        if number == len(STEPS):
            break
        if number % 2:
            page.get_by_role("button", name="Next →").click()
        else:
            page.mouse.click(640, 30)  # the header: the focus leaves the choice buttons
            page.keyboard.press("ArrowRight")
    expect(page.get_by_role("button", name="Next →")).to_be_disabled()
    assert not watch.errors and not watch.external
