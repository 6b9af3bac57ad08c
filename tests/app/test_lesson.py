"""The guided lesson, driven in Python: steps, questions graded by the core, links."""

from __future__ import annotations

import html
from urllib.parse import parse_qsl

import numpy as np
import panel as pn
import pytest

from app.lesson import STEPS, Lesson, check_view
from app.lesson.checks import GRADERS
from app.lesson.steps import Check
from app.main import PAGES, build_app
from positional_core import rope_score_terms

#: The idea each step teaches, in the lesson's order (its topic page and figure).
ORDER = [
    ("order", "similarity"),
    ("sinusoidal", "clock"),
    ("sinusoidal", "table"),
    ("sinusoidal", "similarity"),
    ("sinusoidal", "learned"),
    ("rope", "pair"),
    ("rope", "distance"),
    ("sinusoidal", "grid"),  # positions in 2-D
    ("rope", "mistakes"),  # a classic mistake
    ("extension", "schedule"),
    ("compare", "drope"),  # or drop the rotations
    ("alibi", "weights"),
    ("relative", "terms"),  # why relative: the four terms of a score
    ("relative", "buckets"),
    ("compare", "learned"),
]


def test_the_lesson_walks_the_topics_in_teaching_order():
    assert [(s.page, s.figure) for s in STEPS] == ORDER


@pytest.mark.parametrize("number", range(1, len(STEPS) + 1))
def test_each_step_opens_its_figure_with_its_controls_at_its_start(number):
    lesson = Lesson(PAGES)
    spec, page = STEPS[number - 1], lesson.step_page(number)
    assert spec.figure in page.figures
    assert set(spec.controls) <= set(page.control_names())
    assert {k: getattr(page, k) for k in spec.start} == spec.start
    assert 2 <= spec.text.count(". ") + 1 <= 5  # two to four sentences, give or take one
    assert spec.text in lesson.step_view(number).objects[0].object
    lesson.step = number
    assert html.escape(spec.title) in lesson.content().objects[1].object


@pytest.mark.parametrize("spec", STEPS, ids=[s.check.grade for s in STEPS])
def test_every_question_has_exactly_one_right_choice_by_the_core(spec):
    grade = GRADERS[spec.check.grade](spec.check.choices)
    assert 0 <= grade.correct < len(spec.check.choices)
    assert grade.why


def test_the_pair_question_is_graded_by_the_score_not_by_the_choices_order():
    """θ = 0.5, q = (1, 0) at m = 1, k = (0, 1) at n = 0: sin 0.5 = 0.479, wherever it is listed."""
    expected = rope_score_terms([1, 0], [0, 1], 1, 0, 0.5).score
    assert expected == pytest.approx(np.sin(0.5))
    for choices in (("0.479", "0.878", "0"), ("0.878", "−0.479", "0.479")):
        grade = GRADERS["rope_pair"](choices)
        assert choices[grade.correct] == "0.479"
        assert "0.479" in grade.why and "−0.479" in grade.why  # the swap flips the sine term


@pytest.mark.parametrize(
    ("grade", "right"),
    [
        ("order_blind", "Exactly 1"),
        ("one_circle", "44"),
        ("offset_only", "Only on the offset k"),
        ("band_count", "18"),
        ("patch_below", "14"),
        ("values_shift", "It changes"),
        ("drope_band", "None"),
        ("t5_far", "No: one bucket"),
        ("no_code", "Learned absolute"),
    ],
)
def test_the_lessons_classic_answers(grade, right):
    spec = next(s for s in STEPS if s.check.grade == grade)
    assert spec.check.choices[GRADERS[grade](spec.check.choices).correct] == right


def _click(button: pn.widgets.Button) -> None:
    button.clicks += 1


def test_a_choice_gets_the_cores_feedback_and_the_choice_is_shown_as_text():
    check = Check(question="q?", choices=("<b>No</b>", "Yes"), grade="t5_far")
    view = check_view(check)
    buttons = list(view.select(pn.widgets.Button))
    feedback = view.objects[-1]
    _click(buttons[1])
    assert (
        "Not Yes:" in feedback.object and "the answer is &lt;b&gt;No&lt;/b&gt;" in feedback.object
    )
    assert "bucket 31" in feedback.object  # the core's numbers
    _click(buttons[0])
    assert feedback.object.startswith('<p role="status"><span class="right">Right: &lt;b&gt;No')


def test_next_and_previous_move_one_step_and_stop_at_the_ends():
    lesson = Lesson(PAGES)
    previous, following = lesson.navigation().objects[:2]
    assert previous.disabled and not following.disabled
    _click(following)
    assert lesson.step == 2
    for _ in range(len(STEPS) + 3):
        _click(following)
    assert lesson.step == len(STEPS)
    _click(previous)
    assert lesson.step == len(STEPS) - 1


def test_a_link_opens_a_step_at_its_settings_and_the_address_follows():
    app = build_app({"page": "lesson", "step": "6", "m": "105", "n": "102"})
    shell = app.shell
    lesson = shell.current
    assert (lesson.step, lesson.step_page().m, lesson.step_page().n) == (6, 105, 102)
    assert shell.link_query() == {
        "page": "lesson",
        "step": "6",
        "m": "105",
        "n": "102",
        "theta": "0.5",
    }
    assert shell.current.notes == []
    lesson.step_page().m = 7
    assert "m=7" in shell.url.search
    lesson.step = 7
    assert shell.link_query()["step"] == "7" and "m" not in shell.link_query()


@pytest.mark.parametrize(
    ("query", "step", "note"),
    [
        ({"step": "99"}, len(STEPS), "99"),
        ({"step": "two"}, 1, "two"),
        (
            {"step": "3", "base": "10", "zz": "1"},
            3,
            "Not a setting of step 3, ignored: 'base', 'zz'.",
        ),
        ({"step": "6", "m": "99999"}, 6, "set to 4,096"),
    ],
)
def test_a_bad_link_opens_a_usable_step_and_says_what_it_changed(query, step, note):
    lesson = build_app({"page": "lesson", **query}).shell.current
    assert lesson.step == step
    assert any(note in n for n in lesson.notes), lesson.notes


def test_open_in_the_full_page_carries_the_steps_settings():
    lesson = Lesson(PAGES)
    lesson.step = 6
    lesson.step_page().param.update(m=105, n=102)
    href = lesson.full_page_link(6).split('href="')[1].split('"')[0].replace("&amp;", "&")
    query = dict(parse_qsl(href.lstrip("?")))
    assert query["page"] == "rope"
    full = build_app(query).shell.current
    assert (full.m, full.n, full.theta, full.k_angle) == (105, 102, 0.5, 90.0)


def test_the_lesson_is_first_in_the_navigation_and_its_sidebar_jumps_to_a_step():
    shell = build_app({"page": "lesson"}).shell
    assert next(iter(shell.nav.options.values())) == "lesson"
    select = shell.current.sidebar().objects[0]
    select.value = 9
    assert shell.current.step == 9 and shell.link_query()["step"] == "9"


def test_the_presenter_view_is_kept_in_links_and_shows_figures_without_their_captions():
    shell = build_app({"page": "lesson", "step": "6", "present": "1"}).shell
    assert shell.link_query()["present"] == "1" and shell.current.notes == []
    projected, plain = shell.current.step_view(6), Lesson(PAGES).step_view(6)
    cards = [v.select(pn.Card)[0] for v in (projected, plain)]
    assert [c.hide_header for c in cards] == [True, False]
    assert not cards[0].select(pn.pane.LaTeX) and cards[1].select(pn.pane.LaTeX)  # formulas
    grids = [v.select(pn.GridBox)[-1] for v in (projected, plain)]
    assert [g.ncols for g in grids] == [4, 1]  # 0.479, 0.878, −0.479, 0 on one row


def test_each_step_built_into_the_page_has_its_browser_links():
    """The link pass looks only in the part of the page that was built
    (app.respond.links_where_the_page_changed): every step put into the page later
    still gets the browser code of its selecting controls, with the step's own
    widgets as their arguments."""
    from bokeh.document import Document
    from bokeh.models import CustomJS
    from panel.io.state import set_curdoc

    from app.respond import one_update

    doc = Document()
    with set_curdoc(doc):
        shell = build_app({"page": "lesson"}).shell
        lesson = shell.current
        root = lesson.__panel__().get_root(doc)
        doc.add_root(root)
        ref = root.ref["id"]
        linked = 0
        for number in range(2, len(STEPS) + 1):
            with one_update():
                lesson.step = number
            shown = lesson.step_view(number).select(pn.widgets.Widget)
            step_models = {w._models[ref][0] for w in shown if ref in w._models}
            for widget in shown:
                if not getattr(widget, "_pe_choices", None):
                    continue
                model = widget._models[ref][0]
                callbacks = model.js_property_callbacks["change:value"]
                # One per choice group the widget selects in, each once.
                assert len(callbacks) == len(widget._pe_choices)
                for callback in callbacks:
                    assert isinstance(callback, CustomJS) and "NAME" in callback.code
                    assert set(callback.args.values()) - {model} <= step_models
                linked += 1
    assert linked >= 5  # steps whose controls select in the browser (t, pair, head, row…)
