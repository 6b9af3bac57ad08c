"""positional_core.attention: the order demo, softmax, masks, stable words, parsing."""

import dataclasses
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from positional_core.attention import (
    COMPARE_SCHEMES,
    ORDER_PAIR,
    SCHEMES,
    OrderLayer,
    causal_mask,
    compare_order_similarity,
    embed_sentence,
    encode_sentence,
    match_rows,
    order_similarity,
    parse_sentence,
    scaled_dot_product_attention,
    softmax,
    word_vector,
)
from positional_core.relative import t5_random_bucket_biases


class TestOrderDemo:
    def test_order_pair_reorders_the_same_words(self):
        a, b = ORDER_PAIR
        assert a != b
        assert sorted(parse_sentence(a)) == sorted(parse_sentence(b))
        assert order_similarity(*ORDER_PAIR) == pytest.approx(1, abs=1e-12)

    def test_no_positions_is_exactly_one(self):
        similarity = order_similarity("dog bites man", "man bites dog")
        assert abs(similarity - 1) < 1e-12
        assert f"{similarity:.3f}" == "1.000"

    @pytest.mark.parametrize(
        ("scheme", "causal"), [("sinusoidal", False), ("rope", False), ("none", True)]
    )
    def test_order_signals_pull_below_one(self, scheme, causal):
        similarity = order_similarity("dog bites man", "man bites dog", scheme, causal)
        assert -1 <= similarity < 0.999  # visibly below 1.000 when printed
        assert f"{similarity:.3f}" != "1.000"

    @pytest.mark.parametrize("scheme", SCHEMES)
    def test_same_sentence_is_one(self, scheme):
        assert order_similarity("dog bites man", "Dog bites man!", scheme, True) == pytest.approx(1)

    def test_permutation_picture(self):
        a = encode_sentence("dog bites man")
        b = encode_sentence("man bites dog")
        assert a.shape == b.shape == (3, 16)
        assert match_rows(a, b) == [2, 1, 0]
        np.testing.assert_allclose(a[::-1], b, atol=1e-12)
        rope_a = encode_sentence("dog bites man", "rope")
        rope_b = encode_sentence("man bites dog", "rope")
        assert None in match_rows(rope_a, rope_b)

    @given(
        words=st.lists(
            st.text(alphabet="abcdefghij", min_size=1, max_size=6), min_size=2, max_size=10
        ),
        seed=st.integers(0, 2**32 - 1),
    )
    def test_any_permutation_without_positions(self, words, seed):
        shuffled = list(np.random.default_rng(seed).permutation(words))
        similarity = order_similarity(" ".join(words), " ".join(shuffled))
        assert abs(similarity - 1) < 1e-12
        out_a = encode_sentence(" ".join(words))
        out_b = encode_sentence(" ".join(shuffled))
        matches = match_rows(out_a, out_b)
        assert None not in matches and sorted(matches) == list(range(len(words)))

    def test_input_rows_are_the_word_vectors(self):
        a = embed_sentence("Dog bites man")
        assert a.shape == (3, 16)
        np.testing.assert_array_equal(a[0], word_vector("dog"))
        b = embed_sentence("man bites dog")
        assert match_rows(a, b) == [2, 1, 0]
        np.testing.assert_array_equal(embed_sentence("man bites dog", "rope"), b)
        codes = embed_sentence("man bites dog", "sinusoidal")
        assert match_rows(a, codes) == [None, None, None]
        with pytest.raises(ValueError, match="at least 2 words"):
            embed_sentence("dog")
        with pytest.raises(ValueError, match="scheme"):
            embed_sentence("dog bites", "alibi")

    def test_schemes(self):
        assert SCHEMES == ("none", "sinusoidal", "rope")


class TestOrderLayer:
    def test_seeded_and_frozen(self):
        a, b, c = OrderLayer(seed=1), OrderLayer(seed=1), OrderLayer(seed=2)
        np.testing.assert_array_equal(a.Wq, b.Wq)
        assert not np.array_equal(a.Wq, c.Wq)
        assert a == b and a != c
        with pytest.raises(dataclasses.FrozenInstanceError):
            a.seed = 3
        with pytest.raises(ValueError):
            a.Wk[0, 0] = 1.0

    def test_encode_shapes(self):
        layer = OrderLayer(d=8)
        for scheme in SCHEMES:
            out = layer.encode(["a", "b", "c", "d"], scheme, causal=True)
            assert out.shape == (4, 8) and np.isfinite(out).all()

    def test_causal_first_row_is_its_own_value(self):
        layer = OrderLayer()
        out = layer.encode(["dog", "bites", "man"], causal=True)
        np.testing.assert_allclose(out[0], word_vector("dog") @ layer.Wv, atol=1e-12)

    def test_sinusoidal_adds_codes(self):
        layer = OrderLayer(d=4)
        x = layer.embed(["dog", "man"], "sinusoidal")
        np.testing.assert_allclose(
            x[1] - word_vector("man", 4), [0.841, 0.540, 0.010, 1.0], atol=1e-3
        )

    @pytest.mark.parametrize(
        ("d", "seed", "match"),
        [
            (3, 0, "^d must"),
            (0, 0, "^d must"),
            (512, 0, "^d must"),
            (16, -1, "^seed"),
            (16, 1.5, "^seed"),
        ],
    )
    def test_bad_parameters(self, d, seed, match):
        with pytest.raises(ValueError, match=match):
            OrderLayer(d=d, seed=seed)

    def test_bad_encode_arguments(self):
        layer = OrderLayer()
        with pytest.raises(ValueError, match="scheme"):
            layer.encode(["a", "b"], "alibi")
        with pytest.raises(ValueError, match="words"):
            layer.encode([], "none")
        with pytest.raises(ValueError, match="causal"):
            layer.encode(["a", "b"], "none", causal="yes")
        with pytest.raises(ValueError, match="word"):
            layer.encode(["a", ""], "none")
        with pytest.raises(ValueError, match="scheme"):
            order_similarity("a b", "b a", "learned")


class TestSoftmax:
    def test_values(self):
        np.testing.assert_allclose(softmax([0.0, np.log(3.0)]), [0.25, 0.75])
        np.testing.assert_allclose(softmax([[1.0, 1.0]], axis=0), [[1.0, 1.0]])

    def test_masked_rows(self):
        weights = softmax([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf]])
        assert weights[0, 1] == 0.0
        np.testing.assert_allclose(weights[0].sum(), 1.0)
        np.testing.assert_array_equal(weights[1], [0.0, 0.0, 0.0])

    def test_no_overflow(self):
        np.testing.assert_allclose(softmax([1000.0, 1000.0]), [0.5, 0.5])
        np.testing.assert_allclose(softmax([-1e308, 0.0]), [0.0, 1.0])

    @given(
        rows=st.integers(1, 5),
        cols=st.integers(1, 8),
        shift=st.floats(-1e3, 1e3),
        seed=st.integers(0, 2**32 - 1),
    )
    def test_ignores_a_constant_per_row(self, rows, cols, shift, seed):
        scores = np.random.default_rng(seed).normal(size=(rows, cols)) * 5
        offsets = shift * np.arange(rows)[:, None]
        np.testing.assert_allclose(softmax(scores + offsets), softmax(scores), atol=1e-12)

    @pytest.mark.parametrize("scores", [[np.nan, 0.0], [np.inf, 0.0], "abc", 3.0])
    def test_bad_scores(self, scores):
        with pytest.raises(ValueError, match="scores"):
            softmax(scores)

    def test_bad_axis(self):
        with pytest.raises(ValueError, match="axis"):
            softmax([1.0, 2.0], axis=1)


class TestAttention:
    def test_causal_mask(self):
        mask = causal_mask(4)
        assert mask.dtype == bool and mask.shape == (4, 4)
        np.testing.assert_array_equal(mask, np.tril(np.ones((4, 4), dtype=bool)))
        with pytest.raises(ValueError, match=r"^n must"):
            causal_mask(0)
        with pytest.raises(ValueError, match="limit"):
            causal_mask(2**14)

    def test_uniform_attention_under_a_causal_mask(self):
        # NoPE: equal scores under a causal mask weigh each of the i+1 keys by 1/(i+1)
        q = k = np.zeros((5, 4))
        v = np.eye(5)
        out, weights = scaled_dot_product_attention(q, k, v, causal_mask(5))
        for i in range(5):
            np.testing.assert_allclose(weights[i, : i + 1], 1 / (i + 1))
            np.testing.assert_array_equal(weights[i, i + 1 :], 0.0)
        np.testing.assert_allclose(out, weights)

    def test_batched_and_scaled(self):
        rng = np.random.default_rng(0)
        q, k, v = (
            rng.normal(size=(2, 3, 4, 8)),
            rng.normal(size=(2, 3, 6, 8)),
            rng.normal(size=(2, 3, 6, 5)),
        )
        out, weights = scaled_dot_product_attention(q, k, v)
        assert out.shape == (2, 3, 4, 5) and weights.shape == (2, 3, 4, 6)
        expected = softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(8))
        np.testing.assert_allclose(weights, expected)
        np.testing.assert_allclose(weights.sum(-1), 1.0)

    def test_fully_masked_row_gives_zeros(self):
        mask = np.array([[False, False], [True, True]])
        out, weights = scaled_dot_product_attention(
            np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 3)), mask
        )
        np.testing.assert_array_equal(out[0], 0.0)
        np.testing.assert_array_equal(weights[0], 0.0)

    def test_bad_arguments(self):
        good = np.ones((3, 4))
        with pytest.raises(ValueError, match="last dimension"):
            scaled_dot_product_attention(good, np.ones((3, 5)), good)
        with pytest.raises(ValueError, match="same number of rows"):
            scaled_dot_product_attention(good, good, np.ones((2, 4)))
        with pytest.raises(ValueError, match="2 dimensions"):
            scaled_dot_product_attention(np.ones(4), good, good)
        with pytest.raises(ValueError, match="boolean"):
            scaled_dot_product_attention(good, good, good, np.ones((3, 3)))
        with pytest.raises(ValueError, match="broadcast"):
            scaled_dot_product_attention(good, good, good, np.ones((2, 2), dtype=bool))
        with pytest.raises(ValueError, match=r"^q must"):
            scaled_dot_product_attention(np.full((3, 4), np.nan), good, good)


class TestWordVector:
    def test_case_insensitive_and_deterministic(self):
        np.testing.assert_array_equal(word_vector("Dog"), word_vector("dog"))
        np.testing.assert_array_equal(word_vector("dog", 8), word_vector("dog", 16)[:8])
        assert not np.array_equal(word_vector("dog"), word_vector("man"))
        assert word_vector("café").shape == (16,)

    def test_same_in_another_process_with_another_hash_seed(self):
        code = (
            "from positional_core.attention import word_vector; "
            "print(repr(word_vector('bites').tolist()))"
        )
        outputs = set()
        for hash_seed in ("1", "12345"):
            env = {**os.environ, "PYTHONHASHSEED": hash_seed}
            result = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
            )
            outputs.add(result.stdout.strip())
        assert outputs == {repr(word_vector("bites").tolist())}

    @pytest.mark.parametrize(
        ("word", "d", "match"),
        [
            ("", 16, "^word"),
            (None, 16, "^word"),
            (3, 16, "^word"),
            ("dog", 0, "^d must"),
            ("dog", 1.5, "^d must"),
        ],
    )
    def test_bad_input(self, word, d, match):
        with pytest.raises(ValueError, match=match):
            word_vector(word, d)


class TestParseSentence:
    @pytest.mark.parametrize(
        ("text", "words"),
        [
            ("dog bites man", ["dog", "bites", "man"]),
            ("  Dog,  bites\tMAN!\n", ["dog", "bites", "man"]),
            ("\u201cdon't\u201d stop", ["don't", "stop"]),
            ("(r2d2) beeps...", ["r2d2", "beeps"]),
            ("Café crème", ["café", "crème"]),
            ("dog🙂 bites", ["dog", "bites"]),
            ("a b", ["a", "b"]),
        ],
    )
    def test_good(self, text, words):
        assert parse_sentence(text) == words

    @pytest.mark.parametrize(
        ("text", "match"),
        [
            ("", "empty"),
            ("   \n\t ", "empty"),
            ("dog", "at least 2 words"),
            ("dog ...", "not a word"),
            ("dog 🙂 man", "not a word"),
            ("!!! ???", "not a word"),
            (" ".join(["w"] * 33), "Too many words: 33; at most 32"),
            ("x" * 401, "too long: 401 characters; at most 400"),
            ("dog\x00 man", "control character"),
            ("dog\u200b man", "control character"),
            (None, "text"),
            (b"dog man", "text"),
        ],
    )
    def test_refused_with_a_plain_message(self, text, match):
        with pytest.raises(ValueError, match=match):
            parse_sentence(text)

    def test_limits_are_arguments(self):
        assert parse_sentence("dog", min_words=1) == ["dog"]
        with pytest.raises(ValueError, match="at most 3"):
            parse_sentence("a b c d", max_words=3)
        with pytest.raises(ValueError, match="at most 5"):
            parse_sentence("a b c d", max_chars=5)
        with pytest.raises(ValueError, match="min_words"):
            parse_sentence("a b", min_words=5, max_words=3)
        with pytest.raises(ValueError, match="max_chars"):
            parse_sentence("a b", max_chars=0)

    def test_encode_sentence_uses_the_parser(self):
        with pytest.raises(ValueError, match="at least 2 words"):
            encode_sentence("dog")
        with pytest.raises(ValueError, match="Too many words"):
            order_similarity("dog bites man", " ".join(["w"] * 40))


class TestMatchRows:
    def test_repeated_rows_map_one_to_one(self):
        a = np.array([[1.0, 0.0], [1.0, 0.0], [2.0, 2.0]])
        b = np.array([[2.0, 2.0], [1.0, 0.0], [1.0, 0.0]])
        assert match_rows(a, b) == [1, 2, 0]
        assert match_rows(a, b[:2]) == [1, None, 0]

    def test_tolerance(self):
        assert match_rows([[0.0]], [[1e-10]]) == [0]
        assert match_rows([[0.0]], [[1e-6]]) == [None]
        assert match_rows([[0.0]], [[1e-6]], atol=1e-5) == [0]

    def test_bad_input(self):
        with pytest.raises(ValueError, match="same width"):
            match_rows(np.ones((2, 3)), np.ones((2, 4)))
        with pytest.raises(ValueError, match="same width"):
            match_rows(np.ones(3), np.ones(3))
        with pytest.raises(ValueError, match="atol"):
            match_rows(np.ones((2, 3)), np.ones((2, 3)), atol=-1)
        with pytest.raises(ValueError, match="out_a"):
            match_rows([[np.nan]], [[1.0]])


class TestCompareOrderSimilarity:
    A, B = "dog bites man", "man bites dog"

    def test_schemes(self):
        assert COMPARE_SCHEMES == ("none", "sinusoidal", "rope", "learned", "alibi", "t5")

    @pytest.mark.parametrize("scheme", SCHEMES)
    @pytest.mark.parametrize("causal", [False, True])
    def test_equals_order_similarity_for_the_demo_schemes(self, scheme, causal):
        assert compare_order_similarity(self.A, self.B, scheme, causal) == order_similarity(
            self.A, self.B, scheme, causal
        )

    def test_learned_table_breaks_order_blindness(self):
        assert compare_order_similarity(self.A, self.B, "learned") < 1 - 1e-6

    def test_symmetric_alibi_is_blind_to_reversal_only(self):
        # −m·|i − j| is unchanged when the sentence is reversed ...
        assert abs(compare_order_similarity(self.A, self.B, "alibi") - 1) < 1e-12
        # ... but not by other permutations, nor with the causal form.
        other = compare_order_similarity("the dog bites the man", "the man bites the dog", "alibi")
        assert other < 1 - 1e-6
        assert compare_order_similarity(self.A, self.B, "alibi", causal=True) < 1 - 1e-6

    def test_zero_slope_is_no_positions(self):
        for causal in (False, True):
            value = compare_order_similarity(self.A, self.B, "alibi", causal, alibi_slope=0.0)
            assert value == pytest.approx(
                order_similarity(self.A, self.B, "none", causal), abs=1e-12
            )

    @pytest.mark.parametrize("causal", [False, True])
    def test_t5_buckets_break_order_blindness(self, causal):
        # Offsets −1 and +1 fall in different buckets, so even reversal changes the scores.
        value = compare_order_similarity(self.A, self.B, "t5", causal)
        assert value < 1 - 1e-6
        assert value != compare_order_similarity(self.A, self.B, "none", causal)
        other = compare_order_similarity("the dog bites the man", "the man bites the dog", "t5")
        assert other < 1 - 1e-6

    def test_t5_is_deterministic(self):
        first = compare_order_similarity(self.A, self.B, "t5")
        assert compare_order_similarity(self.A, self.B, "t5") == first
        default = t5_random_bucket_biases(32, 1, seed=0)[:, 0]
        assert compare_order_similarity(self.A, self.B, "t5", t5_bucket_biases=default) == first

    @pytest.mark.parametrize("causal", [False, True])
    @pytest.mark.parametrize("value", [0.0, -2.5, 3.0])
    def test_t5_with_equal_bucket_biases_is_no_positions(self, causal, value):
        equal = np.full(32, value)
        got = compare_order_similarity(self.A, self.B, "t5", causal, t5_bucket_biases=equal)
        assert got == pytest.approx(order_similarity(self.A, self.B, "none", causal), abs=1e-12)

    def test_t5_uses_the_bucket_of_key_minus_query(self):
        # With zero biases the layer is order-blind (similarity 1). A bias on bucket
        # 17 (offset +1) alone breaks the tie; one on bucket 16 (never reached when
        # bidirectional) changes nothing.
        base = compare_order_similarity(self.A, self.B, "t5", t5_bucket_biases=np.zeros(32))
        reached, unreached = np.zeros(32), np.zeros(32)
        reached[17], unreached[16] = 2.0, 2.0
        assert compare_order_similarity(
            self.A, self.B, "t5", t5_bucket_biases=unreached
        ) == pytest.approx(base, abs=1e-12)
        assert base == pytest.approx(1.0, abs=1e-12)
        assert compare_order_similarity(self.A, self.B, "t5", t5_bucket_biases=reached) < 1 - 1e-6

    @pytest.mark.parametrize("scheme", COMPARE_SCHEMES)
    def test_same_sentence_is_one(self, scheme):
        assert compare_order_similarity(self.A, self.A, scheme, True) == pytest.approx(1)

    def test_bad_input(self):
        with pytest.raises(ValueError, match="scheme"):
            compare_order_similarity(self.A, self.B, "t6")
        with pytest.raises(ValueError, match="t5_bucket_biases"):
            compare_order_similarity(self.A, self.B, "t5", t5_bucket_biases=np.ones(31))
        with pytest.raises(ValueError, match="t5_bucket_biases"):
            compare_order_similarity(self.A, self.B, "t5", t5_bucket_biases=[np.nan] * 32)
        with pytest.raises(ValueError, match="causal"):
            compare_order_similarity(self.A, self.B, "alibi", "yes")
        with pytest.raises(ValueError, match="alibi_slope"):
            compare_order_similarity(self.A, self.B, "alibi", alibi_slope=-1.0)
        with pytest.raises(ValueError, match="word"):
            compare_order_similarity("dog", self.B, "learned")
