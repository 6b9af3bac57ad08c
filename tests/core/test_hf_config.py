"""Reading Hugging Face config.json files: golden values, the shared model configs,
models without RoPE, bad configs with their messages, and fuzzing."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from positional_core.hf_config import (
    MAX_JSON_DEPTH,
    NO_ROPE_SCHEMES,
    SUPPORTED_ROPE_TYPES,
    ConfigError,
    NoRopeError,
    RopeModelInfo,
    load_json_config,
    read_rope_config,
    rope_from_hf_config,
)
from positional_core.rope_scaling import RopeScalingError, default_rope_parameters

GOLDEN = json.loads((Path(__file__).parent / "data" / "rope_golden.json").read_text())
# Copies of shared/model_configs/*.json (with their _source notes), kept in the golden file
# so the suite needs nothing outside the repository.
CONFIGS = {name: entry["config"] for name, entry in GOLDEN["configs"].items()}
ROPE_MODELS = [name for name, entry in GOLDEN["configs"].items() if entry["config_class"]]


def config_of(case):
    return case["config"] if isinstance(case["config"], dict) else CONFIGS[case["config"]]


def model(name: str) -> dict:
    return copy.deepcopy(CONFIGS[name])


# ---------------------------------------------------------------------------
# Golden values: every case, read from its config the way transformers reads it
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", GOLDEN["cases"], ids=[case["id"] for case in GOLDEN["cases"]])
def test_golden_from_config(case):
    inv_freq, attention = rope_from_hf_config(config_of(case), seq_len=case["seq_len"])
    np.testing.assert_allclose(inv_freq, case["inv_freq"], rtol=2e-6, atol=0)
    assert attention == pytest.approx(case["attention_factor"], rel=1e-12)
    assert read_rope_config(config_of(case)).rope_type == case["rope_type"]


def test_every_rope_model_has_golden_cases():
    covered = {case["config"] for case in GOLDEN["cases"] if isinstance(case["config"], str)}
    assert covered == set(ROPE_MODELS)
    assert len(ROPE_MODELS) == 10


# ---------------------------------------------------------------------------
# The shared model configs
# ---------------------------------------------------------------------------
class TestModelConfigs:
    def test_llama2(self):
        info = read_rope_config(model("llama-2-7b"))
        assert (info.base, info.head_dim, info.rotary_dim) == (10000.0, 128, 128)
        assert info.rope_type == "default" and info.trained_len == 4096
        assert info.block_key is None
        np.testing.assert_array_equal(
            info.inv_freq(), default_rope_parameters(1e4, 128, max_position_embeddings=1)[0]
        )
        # The real file has no rope_theta at all: transformers' default 10000 applies.
        config = model("llama-2-7b")
        del config["rope_theta"]
        assert read_rope_config(config).base == 10000.0

    def test_llama31(self):
        info = read_rope_config(model("llama-3.1-8b"))
        assert info.rope_type == "llama3" and info.base == 500000.0 and info.head_dim == 128
        assert info.params == {
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        }
        assert info.block_key == "rope_scaling"
        assert (info.trained_len, info.max_position_embeddings, info.factor) == (8192, 131072, 8.0)
        assert info.attention_factor() == 1.0

    def test_codellama_mistral_qwen(self):
        assert read_rope_config(model("codellama-7b")).base == 1e6
        mistral = read_rope_config(model("mistral-7b-v0.1"))
        assert (mistral.base, mistral.head_dim, mistral.trained_len) == (1e4, 128, 32768)
        qwen = read_rope_config(model("qwen2.5-7b-instruct"))
        assert (qwen.base, qwen.head_dim, qwen.rope_type) == (1e6, 128, "default")
        yarn = read_rope_config(model("qwen2.5-7b-instruct-yarn-128k"))
        assert yarn.rope_type == "yarn" and yarn.factor == 4.0
        assert yarn.attention_factor() == pytest.approx(0.1 * math.log(4) + 1)

    def test_phi2_partial_rotary(self):
        info = read_rope_config(model("phi-2"))
        assert (info.head_dim, info.rotary_dim, info.n_pairs) == (80, 32, 16)
        assert info.partial_rotary_factor == 0.4
        assert rope_from_hf_config(model("phi-2"))[0].shape == (16,)

    def test_gpt_oss_rope_parameters_with_theta_inside(self):
        info = read_rope_config(model("gpt-oss"))
        assert info.head_dim == 64  # not 2880 // 64 = 45
        assert info.block_key == "rope_parameters"
        assert info.base == 150000.0
        assert info.rope_type == "yarn" and info.params["truncate"] is False
        assert info.trained_len == 4096 and info.factor == 32.0
        assert info.attention_factor() == pytest.approx(0.1 * math.log(32) + 1)

    def test_deepseek_yarn_attention_factor_one(self):
        info = read_rope_config(model("deepseek-v3-rope"))
        assert info.rope_type == "yarn" and info.head_dim == 64 and info.factor == 40.0
        assert info.attention_factor() == 1.0
        # A real DeepSeek-V3 config has no head_dim; qk_rope_head_dim gives the rotary size.
        config = model("deepseek-v3-rope")
        del config["head_dim"]
        config["qk_rope_head_dim"] = 64
        np.testing.assert_array_equal(rope_from_hf_config(config)[0], info.inv_freq())

    def test_phi35_longrope_switch(self):
        config = model("phi-3.5-mini-instruct")
        info = read_rope_config(config)
        assert info.rope_type == "longrope" and info.head_dim == 96 and info.n_pairs == 48
        assert info.trained_len == 4096 and info.factor == 32.0
        plain = info.default_inv_freq()
        short = np.array(config["rope_scaling"]["short_factor"])
        long = np.array(config["rope_scaling"]["long_factor"])
        for seq_len in (None, 1, 4096):
            np.testing.assert_allclose(info.inv_freq(seq_len), plain / short, rtol=1e-15)
        for seq_len in (4097, 131072):
            np.testing.assert_allclose(info.inv_freq(seq_len), plain / long, rtol=1e-15)
        assert info.attention_factor() == pytest.approx(
            math.sqrt(1 + math.log(32) / math.log(4096))
        )
        assert round(info.attention_factor(), 5) == 1.19024

    def test_su_is_longrope(self):
        config = model("phi-3.5-mini-instruct")
        config["rope_scaling"]["type"] = "su"
        assert read_rope_config(config).rope_type == "longrope"


@pytest.mark.parametrize(
    ("name", "scheme"),
    [
        ("gpt2", "learned"),
        ("bert-base-uncased", "learned"),
        ("bloom", "alibi"),
        ("bloom-560m", "alibi"),
        ("mpt-7b", "alibi"),
        ("t5-base", "relative"),
    ],
)
def test_no_rope_models(name, scheme):
    with pytest.raises(NoRopeError) as info:
        read_rope_config(model(name))
    assert info.value.scheme == scheme
    assert info.value.scheme in NO_ROPE_SCHEMES
    assert info.value.model_type == CONFIGS[name]["model_type"]
    assert "has no RoPE" in str(info.value)
    assert isinstance(info.value, ConfigError) and isinstance(info.value, ValueError)
    with pytest.raises(NoRopeError):
        rope_from_hf_config(model(name))


@pytest.mark.parametrize(
    ("config", "scheme"),
    [
        ({"model_type": "mpt", "attn_config": {"alibi": False}, "max_seq_len": 2048}, "learned"),
        ({"model_type": "falcon", "alibi": True, "hidden_size": 64}, "alibi"),
        ({"model_type": "bert", "position_embedding_type": "relative_key"}, "relative"),
        ({"n_positions": 1024, "n_embd": 768, "n_head": 12}, "learned"),
        ({"relative_attention_num_buckets": 32, "d_model": 512}, "relative"),
        ({"model_type": "roberta"}, "learned"),
    ],
)
def test_no_rope_variants(config, scheme):
    with pytest.raises(NoRopeError) as info:
        read_rope_config(config)
    assert info.value.scheme == scheme


# ---------------------------------------------------------------------------
# How keys are read (transformers' precedence rules)
# ---------------------------------------------------------------------------
BASIC = {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096}


class TestKeyRules:
    def test_rope_scaling_wins_over_rope_parameters(self):
        config = {
            **BASIC,
            "rope_scaling": {"rope_type": "linear", "factor": 2.0},
            "rope_parameters": {"rope_type": "linear", "factor": 4.0},
        }
        info = read_rope_config(config)
        assert info.block_key == "rope_scaling" and info.factor == 2.0
        # an empty rope_scaling counts as absent (transformers: `rope_scaling or ...`)
        config["rope_scaling"] = {}
        assert read_rope_config(config).factor == 4.0

    def test_null_block_is_default(self):
        for key in ("rope_scaling", "rope_parameters"):
            info = read_rope_config({**BASIC, key: None})
            assert info.rope_type == "default" and info.params == {}

    def test_rope_type_wins_over_type(self):
        block = {"rope_type": "linear", "type": "dynamic", "factor": 2.0}
        assert read_rope_config({**BASIC, "rope_scaling": block}).rope_type == "linear"
        block = {"rope_type": None, "type": "dynamic", "factor": 2.0}
        assert read_rope_config({**BASIC, "rope_scaling": block}).rope_type == "dynamic"

    def test_theta_in_block_wins(self):
        config = {**BASIC, "rope_theta": 1e4, "rope_parameters": {"rope_theta": 5e5}}
        assert read_rope_config(config).base == 5e5
        config = {**BASIC, "rope_theta": 1e6, "rope_parameters": {"rope_type": "default"}}
        assert read_rope_config(config).base == 1e6

    def test_partial_rotary_factor_in_block_wins(self):
        config = {
            **BASIC,
            "partial_rotary_factor": 0.5,
            "rope_parameters": {"partial_rotary_factor": 0.25},
        }
        assert read_rope_config(config).rotary_dim == 32
        assert read_rope_config({**BASIC, "partial_rotary_factor": 0.5}).rotary_dim == 64

    def test_top_level_original_wins(self):
        block = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
        config = {**BASIC, "original_max_position_embeddings": 2048, "rope_scaling": block}
        info = read_rope_config(config)
        assert info.original_max_position_embeddings == 2048 == info.trained_len
        assert info.params["original_max_position_embeddings"] == 2048

    def test_original_defaults_to_max(self):
        block = {"rope_type": "yarn", "factor": 4.0}
        info = read_rope_config({**BASIC, "rope_scaling": block})
        assert info.original_max_position_embeddings is None and info.trained_len == 4096
        assert info.factor == 4.0

    def test_model_type_defaults_and_aliases(self):
        phi = {
            "model_type": "phi",
            "hidden_size": 2560,
            "num_attention_heads": 32,
            "max_position_embeddings": 2048,
        }
        assert read_rope_config(phi).rotary_dim == 40  # PhiConfig's default 0.5
        neox = {
            "model_type": "gpt_neox",
            "hidden_size": 2048,
            "num_attention_heads": 16,
            "rotary_pct": 0.25,
            "rotary_emb_base": 10000,
            "max_position_embeddings": 2048,
        }
        assert read_rope_config(neox).rotary_dim == 32
        gptj = {
            "model_type": "gptj",
            "n_embd": 4096,
            "n_head": 16,
            "rotary_dim": 64,
            "n_positions": 2048,
        }
        info = read_rope_config(gptj)
        assert (info.head_dim, info.rotary_dim, info.max_position_embeddings) == (256, 64, 2048)
        phi3 = {
            **BASIC,
            "model_type": "phi3",
            "rope_scaling": {"type": "yarn", "short_factor": [1.0] * 64, "long_factor": [2.0] * 64},
        }
        assert read_rope_config(phi3).rope_type == "longrope"

    def test_text_config_is_read(self):
        config = {"model_type": "llava", "text_config": {**BASIC, "rope_theta": 5e5}}
        assert read_rope_config(config).base == 5e5

    def test_ignored_keys_are_reported(self):
        block = {"type": "yarn", "factor": 4.0, "finetuned": True, "low_freq_factor": 1}
        info = read_rope_config({**BASIC, "rope_scaling": block})
        assert info.ignored_keys == ("finetuned", "low_freq_factor")
        assert "finetuned" not in info.params

    def test_info_is_frozen_and_consistent(self):
        info = read_rope_config(model("phi-3.5-mini-instruct"))
        assert isinstance(info, RopeModelInfo)
        with pytest.raises(dataclasses.FrozenInstanceError):
            info.base = 1.0  # type: ignore[misc]
        for seq_len in (None, 4097):
            inv_freq, attention = rope_from_hf_config(model("phi-3.5-mini-instruct"), seq_len)
            np.testing.assert_array_equal(info.inv_freq(seq_len), inv_freq)
            assert info.attention_factor(seq_len) == attention
            assert info.rope_parameters(seq_len)[1] == attention

    def test_integral_floats_accepted(self):
        info = read_rope_config(
            {"hidden_size": 4096.0, "num_attention_heads": 32, "max_position_embeddings": 4096.0}
        )
        assert info.head_dim == 128 and info.max_position_embeddings == 4096


# ---------------------------------------------------------------------------
# Bad configs: each with the message the page will show
# ---------------------------------------------------------------------------
def with_block(**block):
    return {**BASIC, "rope_scaling": block}


BAD_CONFIGS = [
    ("not an object", [1, 2], None, "config must be a JSON object"),
    (
        "missing hidden_size",
        {"num_attention_heads": 32, "max_position_embeddings": 4096},
        "hidden_size",
        "hidden_size is missing.*head_dim is absent",
    ),
    (
        "missing heads",
        {"hidden_size": 4096, "max_position_embeddings": 4096},
        "num_attention_heads",
        "num_attention_heads is missing",
    ),
    (
        "number as string",
        {**BASIC, "hidden_size": "4096"},
        "hidden_size",
        "hidden_size must be a whole number from 1 to 16,777,216, got the string '4096'",
    ),
    (
        "bool as number",
        {**BASIC, "num_attention_heads": True},
        "num_attention_heads",
        "got the boolean true",
    ),
    (
        "nan theta",
        {**BASIC, "rope_theta": float("nan")},
        "rope_theta",
        "rope_theta must be a finite number",
    ),
    (
        "inf length",
        {**BASIC, "max_position_embeddings": float("inf")},
        "max_position_embeddings",
        "max_position_embeddings must be a whole number",
    ),
    (
        "negative heads",
        {**BASIC, "num_attention_heads": -4},
        "num_attention_heads",
        "num_attention_heads must be a whole number from 1 to 1,024, got -4",
    ),
    (
        "zero head_dim",
        {**BASIC, "head_dim": 0},
        "head_dim",
        "head_dim must be a whole number from 1",
    ),
    ("huge head_dim", {**BASIC, "head_dim": 10**9}, "head_dim", "from 1 to 16,384"),
    (
        "huge length",
        {**BASIC, "max_position_embeddings": 2**40},
        "max_position_embeddings",
        "from 1 to 16,777,216",
    ),
    (
        "theta at most 1",
        {**BASIC, "rope_theta": 1},
        "rope_theta",
        r"rope_theta must be a number in \(1",
    ),
    (
        "odd rotary dim",
        {**BASIC, "head_dim": 66, "partial_rotary_factor": 0.5},
        "head_dim",
        r"int\(66 × 0.5\) = 33 must be even",
    ),
    (
        "partial factor > 1",
        {**BASIC, "partial_rotary_factor": 1.5},
        "partial_rotary_factor",
        r"partial_rotary_factor must be a number in \(0, 1\]",
    ),
    (
        "hidden < heads",
        {**BASIC, "hidden_size": 16},
        "hidden_size",
        "hidden_size \\(16\\) must be at least num_attention_heads \\(32\\)",
    ),
    (
        "missing max length",
        {"hidden_size": 4096, "num_attention_heads": 32},
        "max_position_embeddings",
        "max_position_embeddings is missing",
    ),
    (
        "unknown rope_type",
        with_block(rope_type="xpos", factor=2.0),
        "rope_scaling.rope_type",
        "rope_scaling.rope_type 'xpos' is not supported; supported: default, linear, dynamic, "
        "yarn, longrope, llama3",
    ),
    (
        "mrope",
        with_block(type="mrope", mrope_section=[16, 24, 24]),
        "rope_scaling.type",
        "'mrope' is not supported \\(multimodal RoPE",
    ),
    (
        "rope_type not a string",
        with_block(rope_type=3),
        "rope_scaling.rope_type",
        "rope_scaling.rope_type must be a string",
    ),
    (
        "block not an object",
        {**BASIC, "rope_scaling": "linear"},
        "rope_scaling",
        "rope_scaling must be an object \\(or null\\), got the string 'linear'",
    ),
    (
        "factor too small",
        with_block(type="linear", factor=0.5),
        "rope_scaling.factor",
        "rope_scaling.factor must be a number from 1 to 10000, got 0.5",
    ),
    (
        "factor absurd",
        with_block(type="dynamic", factor=1e6),
        "rope_scaling.factor",
        "rope_scaling.factor must be a number from 1 to 10000, got 1e\\+06",
    ),
    (
        "factor as string",
        with_block(type="linear", factor="4"),
        "rope_scaling.factor",
        "got the string '4'",
    ),
    (
        "factor missing",
        with_block(type="linear"),
        "rope_scaling.factor",
        "rope_scaling: rope_type 'linear' needs 'factor'",
    ),
    (
        "llama3 missing key",
        with_block(rope_type="llama3", factor=8.0, low_freq_factor=1.0),
        "rope_scaling.high_freq_factor",
        "needs 'high_freq_factor'",
    ),
    (
        "short list wrong length",
        with_block(type="longrope", short_factor=[1.0] * 3, long_factor=[1.0] * 64),
        "rope_scaling.short_factor",
        "rope_scaling.short_factor must have one entry per rotary "
        "pair: 64 numbers \\(dim/2\\), got 3",
    ),
    (
        "long list with string",
        with_block(type="su", short_factor=[1.0] * 64, long_factor=["1"] * 64),
        "rope_scaling.long_factor",
        "rope_scaling.long_factor\\[0\\] must be a number",
    ),
    (
        "truncate not bool",
        with_block(type="yarn", factor=4.0, truncate="no"),
        "rope_scaling.truncate",
        "rope_scaling.truncate must be true or false",
    ),
    (
        "original not whole",
        {
            **BASIC,
            "original_max_position_embeddings": 4096.5,
            "rope_scaling": {"type": "yarn", "factor": 4.0},
        },
        "original_max_position_embeddings",
        "original_max_position_embeddings must be a whole",
    ),
    (
        "per-layer blocks",
        {
            **BASIC,
            "rope_parameters": {
                "full_attention": {"rope_type": "default"},
                "sliding_attention": {"rope_type": "default"},
            },
        },
        "rope_parameters",
        "one block per layer type \\(full_attention, sliding_attention\\)",
    ),
    (
        "odd rotary_dim",
        {"n_embd": 4096, "n_head": 16, "rotary_dim": 63, "n_positions": 2048},
        "rotary_dim",
        "rotary_dim = 63 must be even",
    ),
    (
        "model_type not a string",
        {**BASIC, "model_type": 7},
        "model_type",
        "model_type must be a string",
    ),
]


@pytest.mark.parametrize(
    ("config", "key", "match"),
    [case[1:] for case in BAD_CONFIGS],
    ids=[case[0] for case in BAD_CONFIGS],
)
def test_bad_config(config, key, match):
    with pytest.raises(ConfigError, match=match) as info:
        read_rope_config(config)
    assert info.value.key == key
    assert not isinstance(info.value, NoRopeError)
    with pytest.raises(ConfigError, match=match):
        rope_from_hf_config(config)


def test_at_least_twelve_kinds_of_bad_config():
    assert len(BAD_CONFIGS) >= 12
    assert SUPPORTED_ROPE_TYPES == ("default", "linear", "dynamic", "yarn", "longrope", "llama3")


def test_seq_len_is_validated():
    for bad in (0, -1, 2**25, 1.5, "100", True):
        with pytest.raises(ValueError, match="seq_len"):
            rope_from_hf_config(BASIC, seq_len=bad)


# ---------------------------------------------------------------------------
# load_json_config
# ---------------------------------------------------------------------------
class TestLoadJson:
    def test_reads_every_shared_config(self):
        for config in CONFIGS.values():
            assert load_json_config(json.dumps(config, indent=2)) == config
            assert load_json_config(json.dumps(config).encode()) == config

    def test_byte_order_mark(self):
        assert load_json_config("\ufeff{}") == {}

    @pytest.mark.parametrize(
        ("text", "match"),
        [
            ('{"a": 1,\n "b": }', "invalid JSON at line 2, column 7: Expecting value"),
            ("{'a': 1}", "invalid JSON at line 1, column 2"),
            ("", "config is empty"),
            ("   \n", "config is empty"),
            ('{"a": NaN}', "config contains NaN, which is not valid JSON"),
            ('{"a": Infinity}', "config contains Infinity"),
            ('{"a": -Infinity}', "config contains -Infinity"),
            ("[1, 2]", r"config must be a JSON object \(\{...\}\), got an array"),
            ('"text"', "got a string"),
            ("4096", "got a number"),
            ("null", "got null"),
            ("true", "got a boolean"),
            ('{"a": ' + "[" * 25 + "]" * 25 + "}", f"nested deeper than {MAX_JSON_DEPTH}"),
            ("[" * 100_000 + "]" * 100_000, "nested deeper than"),
            ('{"a": ' + "9" * 5000 + "}", "a value Python cannot read"),
        ],
    )
    def test_bad_text(self, text, match):
        with pytest.raises(ConfigError, match=match):
            load_json_config(text)

    def test_depth_limit_is_inclusive(self):
        def nested(depth):  # an object holding depth - 1 levels of arrays
            return '{"a": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"

        assert load_json_config(nested(MAX_JSON_DEPTH))
        with pytest.raises(ConfigError, match="nested deeper"):
            load_json_config(nested(MAX_JSON_DEPTH + 1))

    def test_size_limit(self):
        big = '{"a": "' + "x" * 300_000 + '"}'
        with pytest.raises(ConfigError, match="config is 300,009 bytes; the limit is 262,144"):
            load_json_config(big)
        with pytest.raises(ConfigError, match="config is 2,000,000 characters"):
            load_json_config("x" * 2_000_000)
        with pytest.raises(ConfigError, match="limit is 100 bytes"):
            load_json_config(json.dumps({"a": "é" * 60}), max_bytes=100)
        with pytest.raises(ConfigError, match="bytes"):
            load_json_config(big.encode())
        with pytest.raises(ValueError, match="max_bytes"):
            load_json_config("{}", max_bytes=0)

    def test_not_text(self):
        with pytest.raises(ConfigError, match="not UTF-8"):
            load_json_config(b'{"a": "\xff"}')
        with pytest.raises(ConfigError, match="must be a string"):
            load_json_config(None)  # type: ignore[arg-type]

    @given(st.text(max_size=200))
    def test_any_text_gives_dict_or_config_error(self, text):
        try:
            assert isinstance(load_json_config(text), dict)
        except ConfigError as error:
            assert str(error)


# ---------------------------------------------------------------------------
# Fuzz: no JSON-ish dict raises anything but ConfigError / RopeScalingError
# ---------------------------------------------------------------------------
KEYS = [
    "model_type",
    "hidden_size",
    "num_attention_heads",
    "head_dim",
    "max_position_embeddings",
    "original_max_position_embeddings",
    "rope_theta",
    "partial_rotary_factor",
    "rope_scaling",
    "rope_parameters",
    "rotary_dim",
    "qk_rope_head_dim",
    "n_positions",
    "text_config",
    "rope_type",
    "type",
    "factor",
    "beta_fast",
    "beta_slow",
    "mscale",
    "mscale_all_dim",
    "attention_factor",
    "truncate",
    "low_freq_factor",
    "high_freq_factor",
    "short_factor",
    "long_factor",
    "attn_config",
    "alibi",
    "n_embd",
    "n_head",
    "rotary_pct",
]
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["llama3", "yarn", "su", "longrope", "dynamic", "linear", "gpt2", "4096"])
    | st.sampled_from([0, 1, 2, 4, 64, 128, 4096, 10000.0, 0.5, 8.0])
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=6)
        | st.dictionaries(st.sampled_from(KEYS), children, max_size=6)
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), values, max_size=12))
def test_fuzz_only_config_errors(config):
    try:
        info = read_rope_config(config)
    except (ConfigError, RopeScalingError) as error:
        assert isinstance(error, ValueError) and str(error)
        return
    inv_freq, attention = info.rope_parameters()
    assert inv_freq.shape == (info.rotary_dim // 2,) and np.all(np.isfinite(inv_freq))
    assert math.isfinite(attention)


@given(
    name=st.sampled_from(ROPE_MODELS),
    key=st.sampled_from(KEYS),
    value=values,
    seq_len=st.none() | st.integers(1, 2**24),
)
def test_fuzz_one_key_of_a_real_config(name, key, value, seq_len):
    config = model(name)
    target = config
    if key not in config and isinstance(config.get("rope_scaling"), dict):
        target = config["rope_scaling"]
    target[key] = value
    try:
        inv_freq, attention = rope_from_hf_config(config, seq_len)
    except (ConfigError, RopeScalingError) as error:
        assert str(error)
        return
    assert np.all(np.isfinite(inv_freq)) and np.all(inv_freq > 0) and math.isfinite(attention)
