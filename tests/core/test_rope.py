"""positional_core.rope: known values, identities, a naive loop reference, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from positional_core._validation import MAX_DIM, MAX_POSITION
from positional_core.rope import (
    LAYOUTS,
    apply_rope,
    curve_spread,
    pair_from_polar,
    pair_indices,
    pair_to_polar,
    random_query_key,
    rope_decay_bound,
    rope_frequencies,
    rope_score,
    rope_score_terms,
    rope_scores_by_offset,
    rope_scores_by_start,
    rotation_angles,
    rotation_matrix,
    wavelengths,
)


def assert_rounds_to(actual, expected, decimals):
    """``actual`` equals ``expected`` to the rounding shown in REFERENCE_NUMBERS.md."""
    np.testing.assert_allclose(actual, expected, rtol=0, atol=0.5 * 10.0**-decimals + 1e-12)


def naive_rope(x, positions, base=10000.0, layout="interleaved", inv_freq=None):
    """Deliberately naive RoPE: a Python loop over rows and pairs, math.cos / math.sin.

    ``x`` is (seq, d); ``positions`` a list of seq numbers.
    """
    x = np.asarray(x, dtype=float)
    seq, d = x.shape
    if inv_freq is None:
        inv_freq = [1.0 / base ** (2 * i / d) for i in range(d // 2)]
    r = len(inv_freq)
    out = x.copy()
    for row in range(seq):
        for i in range(r):
            if layout == "interleaved":
                a, b = 2 * i, 2 * i + 1
            else:
                a, b = i, i + r
            angle = positions[row] * inv_freq[i]
            c, s = math.cos(angle), math.sin(angle)
            out[row, a] = x[row, a] * c - x[row, b] * s
            out[row, b] = x[row, a] * s + x[row, b] * c
    return out


finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
dims = st.sampled_from([2, 4, 8, 16, 64])


@st.composite
def qk_pairs(draw):
    d = draw(dims)
    q = draw(hnp.arrays(np.float64, d, elements=finite))
    k = draw(hnp.arrays(np.float64, d, elements=finite))
    return q, k


class TestReferenceNumbers:
    def test_one_pair_theta_1(self):
        one = [1.0]
        assert_rounds_to(apply_rope([1.0, 0.0], 3, inv_freq=one), [-0.990, 0.141], 3)
        assert_rounds_to(rope_score([1, 0], [1, 0], 3, 7, inv_freq=one), math.cos(4), 12)
        assert_rounds_to(rope_score([1, 0], [1, 0], 3, 7, inv_freq=one), -0.654, 3)
        assert_rounds_to(rope_score([1, 0], [1, 0], 103, 107, inv_freq=one), -0.654, 3)

    def test_one_pair_theta_half(self):
        half = [0.5]
        assert_rounds_to(rope_score([1, 0], [0, 1], 2, 1, inv_freq=half), 0.479, 3)
        assert_rounds_to(rope_score([1, 0], [0, 1], 12, 11, inv_freq=half), 0.479, 3)
        terms = rope_score_terms([1, 0], [0, 1], 2, 1, 0.5)
        assert terms.dot == 0.0 and terms.cross == 1.0
        assert_rounds_to(terms.score, 0.479, 3)
        assert terms.score == pytest.approx(rope_score([1, 0], [0, 1], 2, 1, inv_freq=half))

    def test_d4_scores_by_offset(self):
        q = k = [1.0, 0.0, 1.0, 0.0]
        np.testing.assert_allclose(rope_frequencies(4), [1.0, 0.01], rtol=1e-15)
        scores = rope_scores_by_offset(q, k, [0, 1, 3, 100])
        assert_rounds_to(scores, [2.000, 1.540, 0.010, 1.403], 3)
        assert_rounds_to(rope_score(q, k, 5, 2), 0.010, 3)
        assert_rounds_to(rope_score(q, k, 105, 102), 0.010, 3)

    def test_two_dimensional_identity(self):
        rng = np.random.default_rng(1)
        for _ in range(20):
            q, k = rng.normal(size=2), rng.normal(size=2)
            m, n, theta = rng.uniform(-50, 50), rng.uniform(-50, 50), rng.uniform(0, 2)
            expected = (q @ k) * math.cos((m - n) * theta) + (q[0] * k[1] - q[1] * k[0]) * math.sin(
                (m - n) * theta
            )
            terms = rope_score_terms(q, k, m, n, theta)
            assert terms.score == pytest.approx(expected, abs=1e-12)
            assert rope_score(q, k, m, n, inv_freq=[theta]) == pytest.approx(expected, abs=1e-12)
            assert terms.cos == pytest.approx(math.cos((m - n) * theta))
            assert terms.sin == pytest.approx(math.sin((m - n) * theta))

    def test_rotation_keeps_norm_and_r0_is_identity(self):
        x = np.arange(1.0, 9.0)
        assert np.linalg.norm(apply_rope(x, 123.4)) == pytest.approx(np.linalg.norm(x))
        np.testing.assert_array_equal(rotation_matrix(0, 8), np.eye(8))
        np.testing.assert_array_equal(apply_rope(x, 0), x)

    def test_score_is_relative_rotation(self):
        rng = np.random.default_rng(2)
        q, k = rng.normal(size=8), rng.normal(size=8)
        for layout in LAYOUTS:
            lhs = rope_score(q, k, 9, 4, layout=layout)
            rhs = q @ rotation_matrix(4 - 9, 8, layout=layout) @ k
            assert lhs == pytest.approx(rhs, abs=1e-12)

    def test_slowest_pair_of_a_128_head(self):
        assert_rounds_to(rope_frequencies(128)[-1] * 1e4, 1.15, 2)


class TestAgainstNaiveLoop:
    @pytest.mark.parametrize("layout", LAYOUTS)
    @pytest.mark.parametrize("d", [2, 4, 6, 8, 64, 128])
    @pytest.mark.parametrize("base", [10.0, 10_000.0, 500_000.0])
    @pytest.mark.parametrize(
        "positions", [None, "ints", "floats", "large", "scalar"], ids=lambda p: str(p)
    )
    def test_matches(self, layout, d, base, positions):
        rng = np.random.default_rng(d)
        seq = 11
        x = rng.normal(size=(seq, d))
        if positions is None:
            pos_list, pos_arg = list(range(seq)), None
        elif positions == "ints":
            pos_list = pos_arg = [int(p) for p in rng.integers(-50, 5000, seq)]
        elif positions == "floats":
            pos_list = pos_arg = [float(p) for p in rng.uniform(0, 100, seq)]
        elif positions == "large":
            pos_list = pos_arg = [float(p) for p in rng.uniform(1e5, 1e6, seq)]
        else:
            pos_arg = 37.5
            pos_list = [pos_arg] * seq
        expected = naive_rope(x, pos_list, base, layout)
        actual = apply_rope(x, pos_arg, base, layout=layout)
        np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-9)

    @pytest.mark.parametrize("layout", LAYOUTS)
    @pytest.mark.parametrize(("d", "r"), [(8, 2), (64, 16), (128, 1), (6, 3)])
    def test_partial_rotary(self, layout, d, r):
        rng = np.random.default_rng(r)
        x = rng.normal(size=(5, d))
        inv_freq = list(rng.uniform(0.001, 1.0, r))
        expected = naive_rope(x, list(range(5)), layout=layout, inv_freq=inv_freq)
        actual = apply_rope(x, layout=layout, inv_freq=inv_freq)
        np.testing.assert_allclose(actual, expected, atol=1e-12)
        np.testing.assert_array_equal(actual[:, 2 * r :], x[:, 2 * r :])

    @pytest.mark.parametrize("layout", LAYOUTS)
    @pytest.mark.parametrize(
        "shape",
        [(3, 5, 8), (2, 3, 4, 16), (50, 3, 8), (1, 40, 1024), (2, 700, 64), (1, 1, 2)],
    )
    def test_batched_shapes_and_block_edges(self, layout, shape):
        # covers several heads per block, several blocks per head and ragged last blocks
        rng = np.random.default_rng(len(shape))
        x = rng.normal(size=shape)
        seq, d = shape[-2:]
        actual = apply_rope(x, layout=layout)
        flat = x.reshape(-1, seq, d)
        for index, rows in enumerate(flat):
            expected = naive_rope(rows, list(range(seq)), layout=layout)
            np.testing.assert_allclose(actual.reshape(-1, seq, d)[index], expected, atol=1e-9)

    @pytest.mark.parametrize("layout", LAYOUTS)
    @pytest.mark.parametrize("low", [0, -1000, MAX_POSITION - 5000])
    def test_many_whole_positions(self, layout, low):
        # >= 256 whole positions take the two-table path for cos/sin: same numbers
        rng = np.random.default_rng(abs(low))
        positions = [int(p) for p in rng.integers(low, low + 5000, 300)]
        x = rng.normal(size=(300, 8))
        expected = naive_rope(x, positions, layout=layout)
        np.testing.assert_allclose(apply_rope(x, positions, layout=layout), expected, atol=1e-8)
        np.testing.assert_allclose(
            apply_rope(x, layout=layout), naive_rope(x, range(300), layout=layout), atol=1e-12
        )

    def test_one_vector(self):
        x = np.array([0.3, -1.2, 2.0, 0.5])
        for layout in LAYOUTS:
            expected = naive_rope(x[None], [7.25], layout=layout)[0]
            np.testing.assert_allclose(apply_rope(x, 7.25, layout=layout), expected, atol=1e-12)
        np.testing.assert_array_equal(apply_rope(x), x)  # default position 0


class TestDtypesAndMemory:
    @pytest.mark.parametrize("layout", LAYOUTS)
    @pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
    def test_keeps_floating_dtype(self, layout, dtype):
        x = np.random.default_rng(0).normal(size=(4, 6, 16)).astype(dtype)
        out = apply_rope(x, layout=layout)
        assert out.dtype == dtype and out.shape == x.shape
        reference = apply_rope(x.astype(np.float64), layout=layout)
        tolerance = {np.float16: 5e-3, np.float32: 1e-5, np.float64: 1e-12}[dtype]
        np.testing.assert_allclose(out, reference, atol=tolerance * 10)

    def test_integer_and_list_input_become_float64(self):
        out = apply_rope(np.ones((2, 4), dtype=np.int32))
        assert out.dtype == np.float64
        np.testing.assert_allclose(out, apply_rope(np.ones((2, 4))))
        assert apply_rope([[1, 0], [1, 0]]).dtype == np.float64

    def test_input_not_modified_and_output_fresh(self):
        x = np.random.default_rng(0).normal(size=(3, 8))
        before = x.copy()
        out = apply_rope(x)
        np.testing.assert_array_equal(x, before)
        assert not np.shares_memory(out, x)

    @pytest.mark.parametrize("layout", LAYOUTS)
    def test_non_contiguous_input(self, layout):
        base = np.random.default_rng(0).normal(size=(4, 10, 16))
        views = [base[:, ::2], np.asfortranarray(base), base[::-1]]
        for view in views:
            np.testing.assert_allclose(
                apply_rope(view, layout=layout),
                apply_rope(np.ascontiguousarray(view), layout=layout),
                atol=1e-15,
            )

    def test_empty_arrays(self):
        assert apply_rope(np.zeros((0, 3, 4))).shape == (0, 3, 4)
        assert apply_rope(np.zeros((2, 0, 4), dtype=np.float32)).dtype == np.float32
        assert apply_rope(np.zeros((0, 4), dtype=int)).dtype == np.float64


class TestProperties:
    @given(
        pair=qk_pairs(),
        m=st.floats(-1e4, 1e4),
        n=st.floats(-1e4, 1e4),
        s=st.floats(-1e4, 1e4),
        layout=st.sampled_from(LAYOUTS),
    )
    def test_relative_property(self, pair, m, n, s, layout):
        q, k = pair
        scale = 1 + np.linalg.norm(q) * np.linalg.norm(k)
        here = rope_score(q, k, m, n, layout=layout)
        shifted = rope_score(q, k, m + s, n + s, layout=layout)
        assert here == pytest.approx(shifted, abs=1e-8 * scale)
        assert here == pytest.approx(
            q @ rotation_matrix(n - m, q.size, layout=layout) @ k, abs=1e-8 * scale
        )

    @given(
        x=dims.flatmap(lambda d: hnp.arrays(np.float64, d, elements=finite)),
        position=st.floats(-MAX_POSITION, MAX_POSITION),
        base=st.floats(1.01, 1e7),
        layout=st.sampled_from(LAYOUTS),
    )
    def test_norm_is_kept(self, x, position, base, layout):
        out = apply_rope(x, position, base, layout=layout)
        assert np.linalg.norm(out) == pytest.approx(np.linalg.norm(x), rel=1e-12, abs=1e-12)

    @given(d=dims, base=st.floats(1.01, 1e7), layout=st.sampled_from(LAYOUTS))
    def test_r0_is_identity(self, d, base, layout):
        np.testing.assert_array_equal(rotation_matrix(0, d, base, layout=layout), np.eye(d))

    @given(
        d=dims, position=st.floats(-1e5, 1e5), layout=st.sampled_from(LAYOUTS), seed=st.integers(0)
    )
    def test_matrix_matches_apply_and_is_orthogonal(self, d, position, layout, seed):
        x = np.random.default_rng(seed).normal(size=d)
        matrix = rotation_matrix(position, d, layout=layout)
        np.testing.assert_allclose(matrix @ x, apply_rope(x, position, layout=layout), atol=1e-10)
        np.testing.assert_allclose(matrix.T @ matrix, np.eye(d), atol=1e-12)

    @given(
        x=dims.flatmap(lambda d: hnp.arrays(np.float64, (3, d), elements=finite)),
        positions=st.lists(st.floats(-1e4, 1e4), min_size=3, max_size=3),
    )
    def test_layouts_are_permutations_of_each_other(self, x, positions):
        d = x.shape[-1]
        # put half-split pair i at places (2i, 2i+1): then it is the interleaved layout
        perm = pair_indices(d, "half-split").ravel()
        half = apply_rope(x, positions, layout="half-split")
        inter = apply_rope(x[:, perm], positions, layout="interleaved")
        np.testing.assert_allclose(half[:, perm], inter, atol=1e-9)
        p = np.eye(d)[perm]
        np.testing.assert_allclose(
            rotation_matrix(positions[0], d, layout="half-split"),
            p.T @ rotation_matrix(positions[0], d, layout="interleaved") @ p,
            atol=1e-12,
        )
        assert sorted(perm.tolist()) == list(range(d))


class TestScoresByOffset:
    def test_curves_lie_on_top_of_each_other(self):
        rng = np.random.default_rng(5)
        q, k = rng.normal(size=64), rng.normal(size=64)
        offsets = np.arange(-50, 200)
        for layout in LAYOUTS:
            curves = [
                rope_scores_by_offset(q, k, offsets, s, layout=layout) for s in (0, 100, 1000)
            ]
            np.testing.assert_allclose(curves[1], curves[0], atol=1e-9)
            np.testing.assert_allclose(curves[2], curves[0], atol=1e-9)

    def test_matches_rope_score(self):
        rng = np.random.default_rng(6)
        q, k = rng.normal(size=16), rng.normal(size=16)
        scores = rope_scores_by_offset(q, k, [-3, 0, 2.5, 40], start=7, layout="half-split")
        for score, offset in zip(scores, [-3, 0, 2.5, 40], strict=True):
            assert score == pytest.approx(rope_score(q, k, 7, 7 + offset, layout="half-split"))

    def test_layout_mismatch_breaks_the_relative_property(self):
        rng = np.random.default_rng(7)
        q, k = rng.normal(size=64), rng.normal(size=64)
        offsets = np.arange(0, 64)
        same = rope_scores_by_offset(q, k, offsets, 0, read_layout="interleaved")
        np.testing.assert_array_equal(same, rope_scores_by_offset(q, k, offsets, 0))
        mixed = [
            rope_scores_by_offset(
                q, k, offsets, start, layout="interleaved", read_layout="half-split"
            )
            for start in (0, 100, 1000)
        ]
        assert np.max(np.abs(mixed[1] - mixed[0])) > 0.1
        assert np.max(np.abs(mixed[2] - mixed[0])) > 0.1
        # the definition: keys with `layout`, the query with `read_layout`
        expected = apply_rope(q, 100, layout="half-split") @ apply_rope(k, 105)
        assert mixed[1][5] == pytest.approx(expected)


class TestDecayBound:
    def naive_bound(self, d, base, distance):
        theta = [base ** (-2 * i / d) for i in range(d // 2)]
        total = 0.0
        for j in range(1, d // 2 + 1):
            s = sum(complex(math.cos(distance * t), math.sin(distance * t)) for t in theta[:j])
            total += abs(s)
        return total / (d // 2)

    @pytest.mark.parametrize("d", [2, 8, 128])
    @pytest.mark.parametrize("base", [100.0, 10_000.0])
    def test_against_naive_sum(self, d, base):
        distances = [0, 1, 7.5, 100, 250, -30]
        expected = [self.naive_bound(d, base, x) for x in distances]
        np.testing.assert_allclose(rope_decay_bound(d, base, distances), expected, rtol=1e-12)

    def test_shape_and_decay(self):
        bound = rope_decay_bound(128, 10_000.0, np.arange(0, 256))
        assert bound.shape == (256,)
        assert bound[0] == pytest.approx((64 + 1) / 2)
        assert bound[250] < bound[50] < bound[10] < bound[0]
        np.testing.assert_allclose(
            rope_decay_bound(64, 1e4, [5, 50]), rope_decay_bound(64, 1e4, [-5, -50])
        )
        assert rope_decay_bound(8, 1e4, 0).shape == ()


class TestAnglesAndWavelengths:
    def test_rotation_angles(self):
        theta = rope_frequencies(8)
        angles = rotation_angles(np.arange(5), theta)
        assert angles.shape == (5, 4)
        np.testing.assert_allclose(angles[3], 3 * theta)
        assert rotation_angles(2.5, [1.0]).shape == (1, 1)

    def test_wavelengths(self):
        np.testing.assert_allclose(wavelengths(rope_frequencies(4)), [2 * np.pi, 200 * np.pi])
        waves = wavelengths(rope_frequencies(128))
        assert np.all(np.diff(waves) > 0)

    def test_pair_indices(self):
        assert pair_indices(6).tolist() == [[0, 1], [2, 3], [4, 5]]
        assert pair_indices(6, "half-split").tolist() == [[0, 3], [1, 4], [2, 5]]
        assert pair_indices(8).dtype.kind == "i"


class TestBadInput:
    @pytest.mark.parametrize("d", [0, 1, 3, 2.5, MAX_DIM + 2, "8"])
    def test_bad_d(self, d):
        with pytest.raises(ValueError, match=r"^d must"):
            rope_frequencies(d)
        with pytest.raises(ValueError, match=r"^d must"):
            pair_indices(d)
        with pytest.raises(ValueError, match=r"^d must"):
            rotation_matrix(1, d)
        with pytest.raises(ValueError, match=r"^d must"):
            rope_decay_bound(d, 1e4, [1])

    @pytest.mark.parametrize("base", [1.0, 0.0, -5.0, float("nan"), float("inf")])
    def test_bad_base(self, base):
        with pytest.raises(ValueError, match="base"):
            rope_frequencies(8, base)
        with pytest.raises(ValueError, match="base"):
            apply_rope(np.ones(8), 1, base)

    def test_base_is_ignored_with_inv_freq(self):
        out = apply_rope(np.ones(2), 1, base=float("nan"), inv_freq=[1.0])
        np.testing.assert_allclose(out, apply_rope(np.ones(2), 1, inv_freq=[1.0]))

    @pytest.mark.parametrize(
        ("x", "match"),
        [
            (np.ones(3), "even"),
            (np.ones((2, 5)), "even"),
            (np.ones((2, 0)), "d"),
            (np.array([1.0, np.nan]), "finite"),
            (np.array([[np.inf, 0.0], [0.0, 0.0]]), "finite"),
            (np.ones(4, dtype=complex), "real"),
            (np.array(["a", "b"]), "real"),
            (3.0, "scalar"),
            ([[1.0, 2.0], [3.0]], "x"),
            (np.full(2, np.finfo(np.float32).max, dtype=np.float32), "overflow"),
        ],
    )
    def test_bad_x(self, x, match):
        with pytest.raises(ValueError, match=match):
            apply_rope(x, 1)

    @pytest.mark.parametrize(
        ("x", "positions"),
        [
            (np.ones((3, 4)), [0, 1]),
            (np.ones((3, 4)), np.zeros((3, 1))),
            (np.ones(4), [1, 2]),
            (np.ones((3, 4)), [0, 1, np.nan]),
            (np.ones((3, 4)), [0, 1, np.inf]),
            (np.ones(4), MAX_POSITION * 2.0),
            (np.ones(4), "three"),
        ],
    )
    def test_bad_positions(self, x, positions):
        with pytest.raises(ValueError, match="positions"):
            apply_rope(x, positions)

    @pytest.mark.parametrize("inv_freq", [[1.0, 0.1, 0.01], [[1.0]], [], [np.nan], "abc"])
    def test_bad_inv_freq(self, inv_freq):
        with pytest.raises(ValueError, match="inv_freq"):
            apply_rope(np.ones(4), 1, inv_freq=inv_freq)
        with pytest.raises(ValueError, match="inv_freq"):
            rotation_matrix(1, 4, inv_freq=inv_freq)

    @pytest.mark.parametrize("layout", ["neox", "", None, "Interleaved"])
    def test_bad_layout(self, layout):
        with pytest.raises(ValueError, match="layout"):
            apply_rope(np.ones(4), layout=layout)
        with pytest.raises(ValueError, match="layout"):
            pair_indices(4, layout)
        with pytest.raises(ValueError, match="read_layout"):
            rope_scores_by_offset(np.ones(4), np.ones(4), [1], read_layout=layout or "x")

    def test_rotation_matrix_size_cap(self):
        with pytest.raises(ValueError, match="limit"):
            rotation_matrix(1, MAX_DIM)

    def test_bad_score_arguments(self):
        with pytest.raises(ValueError, match="same shape"):
            rope_score(np.ones(4), np.ones(2), 0, 1)
        with pytest.raises(ValueError, match=r"^q must"):
            rope_score(np.ones((2, 2)), np.ones(4), 0, 1)
        with pytest.raises(ValueError, match="even"):
            rope_score(np.ones(3), np.ones(3), 0, 1)
        with pytest.raises(ValueError, match=r"^m must"):
            rope_score(np.ones(2), np.ones(2), np.nan, 1)
        with pytest.raises(ValueError, match="q2"):
            rope_score_terms([1, 0, 0], [1, 0], 0, 1, 0.5)
        with pytest.raises(ValueError, match="theta"):
            rope_score_terms([1, 0], [1, 0], 0, 1, np.inf)

    def test_bad_offsets(self):
        q = np.ones(4)
        with pytest.raises(ValueError, match="offsets"):
            rope_scores_by_offset(q, q, [[1, 2]])
        with pytest.raises(ValueError, match="offsets"):
            rope_scores_by_offset(q, q, [np.nan])
        with pytest.raises(ValueError, match="start"):
            rope_scores_by_offset(q, q, [1], start=np.inf)
        with pytest.raises(ValueError, match="start \\+ offsets"):
            rope_scores_by_offset(q, q, [MAX_POSITION], start=MAX_POSITION)

    def test_bad_angles_and_wavelengths(self):
        with pytest.raises(ValueError, match="inv_freq"):
            wavelengths([1.0, 0.0])
        with pytest.raises(ValueError, match="inv_freq"):
            wavelengths([])
        with pytest.raises(ValueError, match="positions"):
            rotation_angles([[1, 2]], [1.0])
        with pytest.raises(ValueError, match="distances"):
            rope_decay_bound(8, 1e4, [[1.0]])
        with pytest.raises(ValueError, match="limit"):
            rotation_angles(np.arange(2**20), np.ones(2**7))


class TestPolarPairs:
    @pytest.mark.parametrize(
        ("angle", "length", "expected"),
        [(0, 1, (1, 0)), (90, 1, (0, 1)), (180, 2, (-2, 0)), (-90, 0.5, (0, -0.5))],
    )
    def test_known_values(self, angle, length, expected):
        np.testing.assert_allclose(pair_from_polar(angle, length), expected, atol=1e-15)

    @given(
        st.floats(-179.99, 180.0),
        st.floats(1e-3, 1e3),
    )
    def test_round_trip(self, angle, length):
        back_angle, back_length = pair_to_polar(pair_from_polar(angle, length))
        assert back_length == pytest.approx(length, rel=1e-12)
        assert back_angle == pytest.approx(angle, abs=1e-9)

    def test_range_and_zero(self):
        assert pair_to_polar([-1.0, -0.0]) == (180.0, 1.0)
        assert pair_to_polar([0.0, 0.0]) == (0.0, 0.0)
        assert pair_to_polar([1.0, -1.0])[0] == pytest.approx(-45.0)

    def test_feeds_the_one_pair_identity(self):
        # REFERENCE_NUMBERS: θ = 0.5, q = (1, 0), k = (0, 1): score(2, 1) = 0.479.
        q, k = pair_from_polar(0, 1), pair_from_polar(90, 1)
        assert_rounds_to(rope_score_terms(q, k, 2, 1, 0.5).score, 0.479, 3)

    def test_bad_input(self):
        with pytest.raises(ValueError, match="length"):
            pair_from_polar(0, -1)
        with pytest.raises(ValueError, match="angle_degrees"):
            pair_from_polar(np.nan, 1)
        with pytest.raises(ValueError, match="pair"):
            pair_to_polar([1, 2, 3])
        with pytest.raises(ValueError, match="pair"):
            pair_to_polar([np.inf, 0])


class TestRandomQueryKey:
    def test_seeded_and_reproducible(self):
        q1, k1 = random_query_key(64, 7)
        q2, k2 = random_query_key(64, 7)
        np.testing.assert_array_equal(q1, q2)
        np.testing.assert_array_equal(k1, k2)
        assert q1.shape == k1.shape == (64,)
        assert not np.array_equal(q1, k1)
        assert not np.array_equal(q1, random_query_key(64, 8)[0])

    def test_is_default_rng_standard_normal(self):
        rng = np.random.default_rng(3)
        q, k = random_query_key(8, 3)
        np.testing.assert_array_equal(q, rng.standard_normal(8))
        np.testing.assert_array_equal(k, rng.standard_normal(8))

    @pytest.mark.parametrize(
        ("d", "seed", "word"), [(3, 0, "d"), (4, -1, "seed"), (4, 2**32, "seed"), (4, 1.5, "seed")]
    )
    def test_bad_input(self, d, seed, word):
        with pytest.raises(ValueError, match=word):
            random_query_key(d, seed)


class TestScoresByStart:
    def test_rows_are_scores_by_offset(self):
        q, k = random_query_key(16, 1)
        offsets = np.arange(0, 40)
        curves = rope_scores_by_start(q, k, offsets, [0, 100, 1000], layout="half-split")
        assert curves.shape == (3, 40)
        for row, start in zip(curves, (0, 100, 1000), strict=True):
            np.testing.assert_array_equal(
                row, rope_scores_by_offset(q, k, offsets, start, layout="half-split")
            )

    def test_reference_numbers(self):
        # REFERENCE_NUMBERS: (m, n) = (5, 2) and (105, 102) both → 0.010.
        curves = rope_scores_by_start([1, 0, 1, 0], [1, 0, 1, 0], [-3], [5, 105])
        assert_rounds_to(curves[:, 0], [0.010, 0.010], 3)

    @pytest.mark.parametrize("layout", LAYOUTS)
    def test_spread_is_rounding_with_one_layout(self, layout):
        q, k = random_query_key(128, 2)
        curves = rope_scores_by_start(q, k, np.arange(0, 512), [0, 100, 1000, 4321], layout=layout)
        assert curve_spread(curves) < 1e-9

    def test_spread_is_large_when_layouts_are_mixed(self):
        q, k = random_query_key(64, 2)
        curves = rope_scores_by_start(
            q, k, np.arange(0, 256), [0, 100, 1000], read_layout="half-split"
        )
        assert curve_spread(curves) > 0.5

    def test_bad_input(self):
        q = np.ones(4)
        with pytest.raises(ValueError, match="starts"):
            rope_scores_by_start(q, q, [1], [])
        with pytest.raises(ValueError, match="starts"):
            rope_scores_by_start(q, q, [1], np.zeros(65))
        with pytest.raises(ValueError, match="starts"):
            rope_scores_by_start(q, q, [1], [np.nan])
        with pytest.raises(ValueError, match="limit"):
            rope_scores_by_start(np.ones(4096), np.ones(4096), np.arange(2**14), np.zeros(64))


class TestCurveSpread:
    def test_known_value_and_zero(self):
        assert curve_spread([[1.0, 2.0], [1.0, 2.5], [0.5, 2.0]]) == 0.5
        assert curve_spread([[1.0, 2.0]]) == 0.0

    def test_naive_loop_reference(self):
        curves = np.random.default_rng(0).normal(size=(4, 30))
        naive = max(max(col) - min(col) for col in curves.T)
        assert curve_spread(curves) == pytest.approx(naive, abs=0)

    @pytest.mark.parametrize("bad", [[1.0, 2.0], [[np.nan, 1.0]], np.zeros((2, 0))])
    def test_bad_input(self, bad):
        with pytest.raises(ValueError, match="curves"):
            curve_spread(bad)
