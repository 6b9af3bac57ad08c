"""URL parsing and clamping: pure functions, no server."""

from __future__ import annotations

import functools

import param
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.main import AppShell, build_app
from app.pages.sinusoidal import SinusoidalPage
from app.urlstate import (
    MAX_VALUE_CHARS,
    UrlWriter,
    coerce_value,
    encode_query,
    normalise_query,
    page_query,
    read_query,
)


class Knobs(param.Parameterized):
    count = param.Integer(5, bounds=(0, 63), label="Count")
    ratio = param.Number(0.5, bounds=(0.0, 1.0))
    base = param.Selector(default=100, objects={"10": 10, "100": 100, "1,000": 1000})
    mode = param.Selector(default="fast", objects=["fast", "slow"])
    flag = param.Boolean(False)
    text = param.String("hi")


NAMES = ["count", "ratio", "base", "mode", "flag", "text"]


class TestNormalise:
    def test_lists_of_bytes_as_from_the_server(self):
        assert normalise_query({"a": [b"1", b"2"], "b": [b"x"]}) == {"a": "2", "b": "x"}

    def test_bad_utf8_is_replaced_not_raised(self):
        assert normalise_query({"a": [b"\xff"]}) == {"a": "\ufffd"}

    def test_empty_list_is_dropped(self):
        assert normalise_query({"a": []}) == {}


class TestCoerce:
    def test_in_range_integer(self):
        assert coerce_value(Knobs.param.count, "10") == (10, None)

    @pytest.mark.parametrize(
        ("raw", "value"),
        [("99999", 63), ("-4", 0), ("1e9", 63), ("1e999", 63), ("-" + "9" * 400, 0)],
    )
    def test_out_of_range_is_clamped_with_note(self, raw, value):
        got, note = coerce_value(Knobs.param.count, raw)
        assert got == value
        assert "outside 0…63" in note and f"set to {value}" in note

    def test_fraction_is_rounded_with_note(self):
        got, note = coerce_value(Knobs.param.count, "10.6")
        assert got == 11 and "whole number" in note

    @pytest.mark.parametrize(
        "raw", ["abc", "", "nan", "inf", "-inf", "NaN", "0x10", "١٢", "1_0", "1e", "--1"]
    )
    def test_garbage_is_refused(self, raw):
        with pytest.raises(ValueError, match="ignored"):
            coerce_value(Knobs.param.count, raw)

    def test_huge_value_is_refused_before_parsing(self):
        with pytest.raises(ValueError, match="characters long"):
            coerce_value(Knobs.param.count, "1" * (MAX_VALUE_CHARS + 1))

    def test_number_clamped(self):
        assert coerce_value(Knobs.param.ratio, "2.5")[0] == 1.0

    def test_numeric_selector_snaps_to_nearest_on_log_scale(self):
        assert coerce_value(Knobs.param.base, "100") == (100, None)
        value, note = coerce_value(Knobs.param.base, "400")
        assert value == 1000 and "nearest" in note

    def test_text_selector(self):
        assert coerce_value(Knobs.param.mode, "SLOW") == ("slow", None)
        with pytest.raises(ValueError):
            coerce_value(Knobs.param.mode, "medium")

    @pytest.mark.parametrize(("raw", "value"), [("true", True), ("0", False), ("on", True)])
    def test_boolean(self, raw, value):
        assert coerce_value(Knobs.param.flag, raw) == (value, None)

    def test_override_bounds(self):
        assert coerce_value(Knobs.param.count, "50", bounds=(0, 9))[0] == 9

    def test_long_raw_values_are_cut_in_notes(self):
        _, note = coerce_value(Knobs.param.count, "9" * 500)
        assert len(note) < 120


class TestReadQuery:
    def test_unknown_keys_are_ignored_with_one_note(self):
        result = read_query(Knobs.param, {"zzz": "1", "yyy": "2", "count": "3"}, NAMES)
        assert result.values == {"count": 3}
        assert len(result.notes) == 1 and "'zzz'" in result.notes[0]

    def test_reserved_keys_are_silent(self):
        result = read_query(Knobs.param, {"page": "x", "theme": "dark", "embed": "1"}, NAMES)
        assert result.values == {} and result.notes == []

    def test_values_come_in_declaration_order(self):
        result = read_query(Knobs.param, {"text": "a", "count": "1"}, NAMES)
        assert list(result.values) == ["count", "text"]

    def test_round_trip_of_a_written_link(self):
        knobs = Knobs(count=7, ratio=0.25, base=1000, mode="slow", flag=True, text="a b")
        query = page_query("knobs", knobs, NAMES)
        assert encode_query(query).startswith("?page=knobs&count=7")
        result = read_query(Knobs.param, query, NAMES)
        assert result.notes == []
        assert result.values == {n: getattr(knobs, n) for n in NAMES}


@functools.cache
def _fuzzed_page() -> SinusoidalPage:
    # One page for every example: links are applied on top of whatever state
    # the previous example left, as in a live session.
    return SinusoidalPage()


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["t", "n", "d", "base", "k", "max_len", "page", "x", "t\x00"]),
        st.one_of(
            st.text(max_size=30),
            st.integers(-(10**12), 10**12).map(str),
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
        ),
        max_size=6,
    )
)
def test_any_link_gives_a_valid_consistent_state(query):
    page = _fuzzed_page()
    page.apply_query(query)
    for name in page.control_names():
        p = page.param[name]
        value = getattr(page, name)
        if getattr(p, "bounds", None):
            assert p.bounds[0] <= value <= p.bounds[1]
    assert page.d % 2 == 0
    assert 0 <= page.t < page.n
    assert page.base in page.param.base.objects.values()


class TestShell:
    def test_link_opens_that_state(self):
        shell = AppShell({"page": [b"sinusoidal"], "t": [b"10"], "d": [b"32"]})
        assert shell.page == "sinusoidal"
        assert (shell.current.t, shell.current.d) == (10, 32)
        assert shell.current.notes == []
        query = shell.link_query()
        assert query["page"] == "sinusoidal" and query["t"] == "10" and query["d"] == "32"

    def test_out_of_range_link_is_clamped_with_notice(self):
        shell = AppShell({"page": "sinusoidal", "t": "99999", "n": "64"})
        assert shell.current.t == 63
        assert any("set to 63" in n for n in shell.current.notes)

    def test_garbage_link_is_ignored_with_notice(self):
        shell = AppShell({"page": "sinusoidal", "t": "<script>", "d": "NaN"})
        assert shell.current.t == SinusoidalPage.param.t.default
        assert len(shell.current.notes) == 2

    def test_unknown_page_falls_back_with_notice(self):
        shell = AppShell({"page": "nope"})
        assert shell.page == "order"
        assert shell.shell_notes and "nope" in shell.shell_notes[0]

    def test_theme_is_kept_in_links(self):
        shell = AppShell({"page": "order", "theme": "dark"})
        assert shell.link_query()["theme"] == "dark"
        assert "theme" not in AppShell({"theme": "<x>"}).link_query()

    def test_moving_a_control_rewrites_the_link(self):
        shell = AppShell({"page": "sinusoidal"})
        shell.url.activate()
        shell.current.t = 12
        assert "t=12" in shell.url.search
        shell.page = "order"
        assert shell.url.search.startswith("?page=order")

    def test_sessions_are_isolated(self):
        one, two = build_app({"page": "sinusoidal"}), build_app({"page": "sinusoidal"})
        one.shell.current.t = 30
        assert two.shell.current.t == SinusoidalPage.param.t.default


class TestUrlWriter:
    def test_holds_writes_until_the_page_has_loaded(self):
        writer = UrlWriter()
        writer.write({"page": "order", "a": "x y"})
        assert writer.search == ""
        writer.activate()
        assert writer.search == "?page=order&a=x+y"

    def test_replaces_history_never_pushes(self, document):
        writer = UrlWriter()
        model = writer.view.get_root(document)
        (callback,) = model.js_property_callbacks["change:value"]
        assert "history.replaceState" in callback.code
        assert "pushState" not in callback.code
