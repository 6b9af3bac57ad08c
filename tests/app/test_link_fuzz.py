"""Hostile links and resource caps, without a browser (issue 9).

Property tests drive the real entry points with random links — every page's
parameters plus random extra keys; huge, negative, NaN, inf, exponent, empty,
unicode and 10 KB values; repeated and unknown keys; unknown pages:

- ``page.apply_query(query)`` on one live page per slug (state carries over
  from one example to the next, as in a session where links are opened one
  after another), and
- ``AppShell(query)``, the object a served session builds from the URL.

Each state must load without an exception, leave every control inside its
bounds (dynamic ones included) and consistent, and say in the notice what was
changed or ignored. The written link must reopen the same state without notice.

The resource caps (every page's most expensive allowed state: one update
under 1 s and 200 MB) are measured by ``python benchmarks/robustness.py``.
Full size: ``HYPOTHESIS_PROFILE=thorough``; the CI sample stays under 30 s.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

import param
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.main import PAGES, AppShell
from app.urlstate import RESERVED_KEYS, coerce_value, normalise_query

SLUGS = sorted(PAGES)
THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
# --------------------------------------------------------------- strategies
_NUMBERS = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(allow_nan=True, allow_infinity=True).map(str),  # "nan", "inf"
    st.sampled_from(
        [
            "1e308",
            "1e309",
            "-1e309",
            "1e-400",
            "9" * 400,
            "-0",
            "+5",
            ".5",
            "5.",
            "1,000",
            "1_000",
            "0x10",
            "1e",
            "--1",
            "NaN",
            "Infinity",
            "-inf",
            " 12 ",
            "١٢",  # Arabic-Indic digits
            "１２",  # full-width digits
            "12\x00",
            "3.9999999999999999",
        ]
    ),
)
_TEXT = st.one_of(
    st.just(""),
    st.text(max_size=40),
    st.sampled_from(
        [
            "dog bites man",
            "man bites dog",
            "true",
            "off",
            "<script>alert(1)</script>",
            "\u202e\u200b\ufeff",
            "🐕 🦷 👨",
            "word " * 40,
        ]
    ),
)
_HUGE = st.sampled_from(["9" * 10_240, "x" * 10_240, "é" * 10_240, "dog " * 2_560])


def _choices(cls: type) -> st.SearchStrategy[str]:
    """Valid values of the page's selectors, as a link writes them."""
    texts = []
    for name in cls.control_names():
        p = cls.param[name]
        if isinstance(p, param.Selector):
            objects = p.objects.values() if isinstance(p.objects, dict) else p.objects
            texts += [str(o) for o in objects]
    return st.sampled_from(texts or ["x"])


def _value(cls: type) -> st.SearchStrategy[str]:
    return st.one_of(_NUMBERS, _TEXT, _choices(cls), _HUGE)


def _key(cls: type) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(cls.control_names()),
        st.sampled_from(cls.control_names()),  # controls twice as often as the rest
        st.sampled_from([*RESERVED_KEYS, "PAGE", "t\x00", "", "__class__", "x" * 2000]),
        st.text(max_size=12),
    )


def _query(cls: type) -> st.SearchStrategy[dict[str, Any]]:
    """A parsed query as the server gives it: lists (repeated keys), bytes or text."""
    values = st.lists(_value(cls), min_size=1, max_size=3)
    as_bytes = values.map(lambda vs: [v.encode("utf-8", "surrogatepass") for v in vs])
    bad_utf8 = st.just([b"\xff\xfe5", b"\xc3("])
    return st.dictionaries(_key(cls), st.one_of(values, values, as_bytes, bad_utf8), max_size=8)


_PAGE_AND_QUERY = st.sampled_from(SLUGS).flatmap(
    lambda slug: st.tuples(st.just(slug), _query(PAGES[slug]))
)

# ------------------------------------------------------------------ checks
_LIVE: dict[str, Any] = {}


def _live(slug: str):
    """One page per slug for the whole run (links applied on top of each other)."""
    if slug not in _LIVE:
        _LIVE[slug] = PAGES[slug]()
    return _LIVE[slug]


def assert_valid(page) -> None:
    """Every control within its static and dynamic bounds; the rules hold."""
    values = page._values()
    cls = type(page)
    dynamic = cls.dynamic_bounds(values)
    for name in cls.control_names():
        value, p = values[name], cls.param[name]
        if isinstance(p, param.Boolean):
            assert isinstance(value, bool), (name, value)
        elif isinstance(p, param.Integer):
            assert isinstance(value, int) and not isinstance(value, bool), (name, value)
        if isinstance(p, param.Number) and not isinstance(p, param.Boolean):
            assert math.isfinite(value), (name, value)
            if name not in dynamic:  # a dynamic bound's class value is only its start
                low, high = p.bounds
                assert low <= value <= high, (name, value, p.bounds)
            # The instance's own (moved) bounds, which the widget shows.
            low, high = page.param[name].bounds
            assert low <= value <= high, (name, value, page.param[name].bounds)
        if isinstance(p, param.Selector):
            objects = p.objects.values() if isinstance(p.objects, dict) else p.objects
            assert value in list(objects), (name, value)
        if isinstance(p, param.String):
            assert isinstance(value, str) and len(value) <= 1000, name
    for name, (low, high) in dynamic.items():
        assert low <= values[name] <= high, (name, values[name], (low, high))
    fixed, notes = cls.constrain(values)
    assert fixed == values and not notes, (fixed, notes)


def _mentions(notes: list[str], cls: type, key: str) -> bool:
    label = cls.param[key].label or key
    word = re.compile(rf"(^|[^\w]){re.escape(key)}([^\w]|$)")
    return any(word.search(n) or label in n for n in notes)


def assert_notice(page, query: dict[str, Any], notes: list[str], before: dict[str, Any]) -> None:
    """Each value of the link that was changed or ignored is named in the notice."""
    cls = type(page)
    names = cls.control_names()
    flat = normalise_query(query)
    assert page.notes == notes
    unknown = [k for k in flat if k not in names and k not in RESERVED_KEYS]
    if unknown:
        assert any(n.startswith("Not a setting of this page") for n in notes), notes
    for key, raw in flat.items():
        if key not in names:
            continue
        try:
            value, note = coerce_value(cls.param[key], raw)
        except ValueError:
            used = False
        else:
            used = note is None and getattr(page, key) == value
        if not used:
            assert _mentions(notes, cls, key), (key, raw[:40], notes)
    if cls.slug == "extension":
        return  # a preset in the link fills the other controls, by design
    for key in names:
        if key not in flat and getattr(page, key) != before[key]:
            assert _mentions(notes, cls, key), (key, before[key], getattr(page, key), notes)


# ------------------------------------------------------------------- tests
_N_PAGE = 1000 if THOROUGH else 140
_N_SHELL = 200 if THOROUGH else 14


@settings(
    max_examples=_N_PAGE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(_PAGE_AND_QUERY)
def test_any_link_on_a_live_page(page_and_query):
    slug, query = page_and_query
    page = _live(slug)
    before = page._values()
    notes = page.apply_query(query)
    assert_valid(page)
    assert_notice(page, query, notes, before)


def _query_of(slug: str) -> st.SearchStrategy[dict[str, Any]]:
    return _query(PAGES[slug])


_SHELL_QUERY = st.tuples(
    st.one_of(st.sampled_from(SLUGS), st.text(max_size=20), st.just("x" * 10_240)),
    st.sampled_from(SLUGS).flatmap(_query_of),
    st.one_of(st.none(), st.sampled_from(["1", "0", "yes", "x"])),
    st.one_of(st.none(), st.text(max_size=10), st.just("similarity")),
)


@settings(
    max_examples=_N_SHELL,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(_SHELL_QUERY)
def test_any_link_opens_a_session(shell_query):
    slug, query, embed, figure = shell_query
    query = {k: v for k, v in query.items() if k not in RESERVED_KEYS}
    query["page"] = [slug]
    if embed is not None:
        query["embed"] = embed
    if figure is not None:
        query["figure"] = figure
    shell = AppShell(query)
    assert shell.page in PAGES
    if slug not in PAGES:
        assert shell.page == "order"
        assert any(n.startswith("There is no page") for n in shell.shell_notes)
        assert all(len(n) < 200 for n in shell.shell_notes)  # a 10 KB name is cut
    page = shell.current
    assert_valid(page)
    # The link the session writes reopens exactly this state, with nothing to report.
    link = shell.link_query()
    again = AppShell(link)
    assert again.page == shell.page
    assert again.current._values() == page._values()
    assert again.current.notes == [] and again.shell_notes == []
    assert again.link_query() == link
