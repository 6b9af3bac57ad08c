"""positional_core.learned: parameter counts, lookups past the table, bad input."""

import dataclasses

import numpy as np
import pytest

from positional_core._validation import MAX_DIM, MAX_POSITION
from positional_core.learned import (
    INIT_STD,
    LearnedPositionTable,
    PositionOutOfRangeError,
    learned_parameter_count,
    missing_positions,
)


class TestReferenceNumbers:
    def test_gpt2_parameter_count(self):
        assert learned_parameter_count(1024, 768) == 786_432
        assert LearnedPositionTable(1024, 768).n_parameters == 786_432

    def test_gpt2_position_1024_has_no_row(self):
        gpt2 = LearnedPositionTable(1024, 768)
        assert gpt2.lookup(1023).shape == (768,)
        with pytest.raises(PositionOutOfRangeError) as info:
            gpt2.lookup(1024)
        assert str(info.value) == "position 1024 has no row: the table has rows 0…1023"
        assert isinstance(info.value, ValueError)
        assert not gpt2.has_row(1024)
        assert gpt2.has_row(0)

    def test_bert_512_rows(self):
        bert = LearnedPositionTable(512, 768)
        assert bert.table.shape == (512, 768)
        assert bert.lookup(511).shape == (768,)
        with pytest.raises(PositionOutOfRangeError, match="rows 0…511"):
            bert.lookup(512)


class TestTable:
    def test_seeded_and_reproducible(self):
        a = LearnedPositionTable(64, 16, seed=3)
        b = LearnedPositionTable(64, 16, seed=3)
        c = LearnedPositionTable(64, 16, seed=4)
        np.testing.assert_array_equal(a.table, b.table)
        assert not np.array_equal(a.table, c.table)
        assert a == b and a != c

    def test_gpt2_initialisation_scale(self):
        table = LearnedPositionTable(1024, 768).table
        assert table.std() == pytest.approx(INIT_STD, rel=0.01)
        assert abs(table.mean()) < 1e-3

    def test_read_only_and_frozen(self):
        table = LearnedPositionTable(8, 4)
        with pytest.raises(ValueError):
            table.table[0, 0] = 1.0
        with pytest.raises(ValueError):
            table.lookup(0)[0] = 1.0
        with pytest.raises(dataclasses.FrozenInstanceError):
            table.max_len = 9

    def test_lookup_rows(self):
        table = LearnedPositionTable(10, 3)
        np.testing.assert_array_equal(table.lookup(4), table.table[4])
        np.testing.assert_array_equal(table.lookup(np.int64(4)), table.table[4])
        np.testing.assert_array_equal(table.lookup(4.0), table.table[4])
        np.testing.assert_array_equal(table.lookup([0, 9, 9]), table.table[[0, 9, 9]])
        assert table.lookup(np.arange(10)).shape == (10, 3)

    def test_n_parameters_without_building(self):
        huge = LearnedPositionTable(MAX_POSITION, MAX_DIM)
        assert huge.n_parameters == MAX_POSITION * MAX_DIM
        with pytest.raises(ValueError, match="limit"):
            _ = huge.table

    def test_fields_are_normalised(self):
        table = LearnedPositionTable(np.int64(8), 4.0)
        assert isinstance(table.max_len, int) and isinstance(table.d, int)


class TestBadInput:
    @pytest.mark.parametrize("position", [-1, 10, 10_000, [3, 10], [-1]])
    def test_out_of_range(self, position):
        with pytest.raises(PositionOutOfRangeError, match="has no row: the table has rows 0…9"):
            LearnedPositionTable(10, 3).lookup(position)

    def test_fractional_position(self):
        with pytest.raises(PositionOutOfRangeError, match=r"position 2\.5 has no row"):
            LearnedPositionTable(10, 3).lookup(2.5)
        assert not LearnedPositionTable(10, 3).has_row(2.5)

    @pytest.mark.parametrize("position", [float("nan"), float("inf"), "two", [[1, 2]]])
    def test_not_a_position(self, position):
        with pytest.raises(ValueError, match="position"):
            LearnedPositionTable(10, 3).lookup(position)

    @pytest.mark.parametrize(
        ("max_len", "d", "match"),
        [
            (0, 4, "^max_len"),
            (-1, 4, "^max_len"),
            (2.5, 4, "^max_len"),
            (MAX_POSITION + 1, 4, "^max_len"),
            (4, 0, "^d must"),
            (4, MAX_DIM + 1, "^d must"),
            (4, "8", "^d must"),
        ],
    )
    def test_bad_shape(self, max_len, d, match):
        with pytest.raises(ValueError, match=match):
            LearnedPositionTable(max_len, d)
        with pytest.raises(ValueError, match=match):
            learned_parameter_count(max_len, d)

    @pytest.mark.parametrize("seed", [-1, 1.5, "0"])
    def test_bad_seed(self, seed):
        with pytest.raises(ValueError, match="seed"):
            LearnedPositionTable(4, 4, seed=seed)


class TestMissingPositions:
    def test_reference_numbers(self):
        assert missing_positions(1024, 1024) == 0
        assert missing_positions(1024, 1025) == 1  # position 1,024 has no row
        assert missing_positions(512, 100) == 0

    def test_agrees_with_has_row(self):
        table = LearnedPositionTable(7, 2)
        for seq_len in range(1, 12):
            assert missing_positions(7, seq_len) == sum(
                not table.has_row(t) for t in range(seq_len)
            )

    @pytest.mark.parametrize(
        ("max_len", "seq_len", "match"),
        [
            (0, 5, "^max_len"),
            (5, 0, "^seq_len"),
            (5, MAX_POSITION + 1, "^seq_len"),
            (1.5, 2, "^max_len"),
        ],
    )
    def test_bad_input(self, max_len, seq_len, match):
        with pytest.raises(ValueError, match=match):
            missing_positions(max_len, seq_len)
