"""app.numbers: numbers written for people, never a bare ``1.1e-12``."""

from __future__ import annotations

import re

import pytest

from app.numbers import ROUNDING, difference, readable, sci, similarity

#: A number in bare e-notation: 1.1e-12, 9.71e−05, −1.568e+04.
BARE_E = re.compile(r"\d[eE][+−-]?\d")


class TestDifference:
    def test_exactly_zero_says_so(self):
        assert difference(0.0) == "0 (not one bit differs)"

    @pytest.mark.parametrize(
        ("value", "text"),
        [
            (1.1e-12, "≈ 0 (1.1 × 10<sup>−12</sup>)"),
            (1.6e-15, "≈ 0 (1.6 × 10<sup>−15</sup>)"),
            (2.8e-17, "≈ 0 (2.8 × 10<sup>−17</sup>)"),
            (ROUNDING, "≈ 0 (1 × 10<sup>−9</sup>)"),
            (-3e-13, "≈ 0 (−3 × 10<sup>−13</sup>)"),
        ],
    )
    def test_zero_up_to_rounding_reads_approximately_zero(self, value, text):
        assert difference(value) == text

    @pytest.mark.parametrize(
        ("value", "text"), [(2e-9, "2 × 10<sup>−9</sup>"), (0.25, "0.25"), (3.5, "3.5")]
    )
    def test_a_real_difference_is_shown_as_it_is(self, value, text):
        assert difference(value) == text

    @pytest.mark.parametrize("value", [0.0, 1e-300, 1.1e-12, 1e-9, 1e-5, 0.5, 12.0, 3e7])
    def test_never_bare_e_notation(self, value):
        assert not BARE_E.search(difference(value))


class TestSimilarity:
    @pytest.mark.parametrize(
        ("value", "text"),
        [
            (0.35296, "0.353"),
            (0.9946, "0.995"),
            (1.0, "1.000"),
            (1 - 1e-15, "1.000"),  # a reordering with no positions: 1 up to rounding
            (1 + 2e-16, "1.000"),
            (-0.25, "−0.250"),
        ],
    )
    def test_three_decimals(self, value, text):
        assert similarity(value) == text

    @pytest.mark.parametrize(
        ("value", "text"),
        [
            (0.999843, "≈ 1 (0.99984)"),  # Compare's learned table, order-aware
            (0.9999252, "≈ 1 (0.99993)"),
            (0.99999912, "≈ 1 (0.9999991)"),
        ],
    )
    def test_not_1_but_three_decimals_would_say_so(self, value, text):
        assert similarity(value) == text
        assert similarity(value) != "1.000"


class TestReadable:
    @pytest.mark.parametrize(
        ("value", "text"),
        [
            (1.1557e-4, "1.156 × 10⁻⁴"),
            (4.520767403848584e-241, "4.521 × 10⁻²⁴¹"),
            (-2e-5, "−2 × 10⁻⁵"),
            (1.5e7 + 0.5, "1.5 × 10⁷"),
            (3.14159, "3.142"),
            (500000.0, "500,000"),
        ],
    )
    def test_powers_of_ten_in_plain_text(self, value, text):
        assert readable(value) == text
        assert not BARE_E.search(readable(value))


def test_sci_is_html_with_a_true_minus():
    assert sci(1.9e-22) == "1.9 × 10<sup>−22</sup>"
    assert sci(-4.4e-223) == "−4.4 × 10<sup>−223</sup>"
