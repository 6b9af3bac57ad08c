"""positional_core.views: derived numbers the app shows."""

import numpy as np
import pytest

from positional_core.sinusoidal import shift_matrix, sinusoidal_code
from positional_core.views import shift_check


class TestShiftCheck:
    def test_reference_example_d4(self):
        # REFERENCE_NUMBERS: M_1 · PE(1) = PE(2) for d = 4.
        assert shift_check(1, 1, 4) < 1e-12

    @pytest.mark.parametrize("t", [0, 3, 100, 4095])
    @pytest.mark.parametrize("k", [-7, 1, 64])
    @pytest.mark.parametrize("d", [2, 64, 512])
    @pytest.mark.parametrize("base", [10.0, 10_000.0, 1e6])
    def test_rounding_level_everywhere(self, t, k, d, base):
        assert 0.0 <= shift_check(t, k, d, base) < 1e-9

    def test_naive_loop_reference(self):
        t, k, d = 5.0, 3.0, 8
        a = sinusoidal_code(t + k, d)
        b = shift_matrix(k, d) @ sinusoidal_code(t, d)
        naive = max(abs(x - y) for x, y in zip(a, b, strict=True))
        assert shift_check(t, k, d) == pytest.approx(naive, abs=1e-18)

    def test_returns_python_float(self):
        assert isinstance(shift_check(2, 2, 4), float)

    @pytest.mark.parametrize(
        ("args", "word"),
        [((0, 1, 3), "d"), ((0, 1, 4, 1.0), "base"), ((np.nan, 1, 4), "position")],
    )
    def test_bad_input_names_the_argument(self, args, word):
        with pytest.raises(ValueError, match=word):
            shift_check(*args)
