"""Write tests/core/data/rope_golden.json: RoPE inv_freq and attention factors from transformers.

Run with a Python that has transformers 5.x and torch (NOT the project venv; the
test suite never needs torch)::

    python3.11 -m venv /work/goldenvenv
    /work/goldenvenv/bin/pip install torch==2.13.0 transformers==5.24.0
    /work/goldenvenv/bin/python scripts/make_golden_rope.py [MODEL_CONFIG_DIR]

MODEL_CONFIG_DIR holds the public config.json extracts (default:
``../shared/model_configs`` next to the repository). Every config there is
copied into the JSON (``configs``) so the tests need nothing outside the repo.

Each RoPE config is loaded through its own transformers config class
(LlamaConfig, Qwen2Config, PhiConfig, Phi3Config, ...) and its model's rotary
embedding module; a served length is applied the way a model applies it, by
running the module's ``forward`` on position ``seq_len − 1`` (this triggers the
``dynamic`` / ``longrope`` update). The script also checks that the module
agrees with a direct ``ROPE_INIT_FUNCTIONS[rope_type](config, seq_len=...)``
call. Synthetic cases cover each scaling method's knobs.

Values are transformers' float32 results written as float64 numbers.
"""

from __future__ import annotations

import copy
import json
import math
import sys
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import (
    GptOssConfig,
    LlamaConfig,
    MistralConfig,
    Phi3Config,
    PhiConfig,
    Qwen2Config,
)
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.gpt_oss.modeling_gpt_oss import GptOssRotaryEmbedding
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
from transformers.models.mistral.modeling_mistral import MistralRotaryEmbedding
from transformers.models.phi.modeling_phi import PhiRotaryEmbedding
from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding
from transformers.models.qwen2.modeling_qwen2 import Qwen2RotaryEmbedding

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "core" / "data" / "rope_golden.json"

CLASSES = {
    "LlamaConfig": (LlamaConfig, LlamaRotaryEmbedding),
    "MistralConfig": (MistralConfig, MistralRotaryEmbedding),
    "Qwen2Config": (Qwen2Config, Qwen2RotaryEmbedding),
    "PhiConfig": (PhiConfig, PhiRotaryEmbedding),
    "Phi3Config": (Phi3Config, Phi3RotaryEmbedding),
    "GptOssConfig": (GptOssConfig, GptOssRotaryEmbedding),
}

# Which transformers classes read each shared config (None: no RoPE).
MODEL_FILES = {
    "llama-2-7b.json": "LlamaConfig",
    "llama-3.1-8b.json": "LlamaConfig",
    "codellama-7b.json": "LlamaConfig",
    # The file's own note: DeepSeek-V3's rope block fed through a LlamaConfig.
    "deepseek-v3-rope.json": "LlamaConfig",
    "mistral-7b-v0.1.json": "MistralConfig",
    "qwen2.5-7b-instruct.json": "Qwen2Config",
    "qwen2.5-7b-instruct-yarn-128k.json": "Qwen2Config",
    "phi-2.json": "PhiConfig",
    "phi-3.5-mini-instruct.json": "Phi3Config",
    "gpt-oss.json": "GptOssConfig",
    "gpt2.json": None,
    "bert-base-uncased.json": None,
    "bloom.json": None,
    "bloom-560m.json": None,
    "mpt-7b.json": None,
    "t5-base.json": None,
}

# Served lengths run for every config; dynamic / longrope get more below.
SERVED_FOR_TYPE = {
    "longrope": [None, 1000, 4096, 4097, 8192, 131072],
    "dynamic": [None, 1000, 4096, 4097, 8192, 16384, 65536, 131072],
}


def transformers_rope(class_name: str, config_dict: dict, seq_len: int | None):
    """(inv_freq float32 array, attention_factor, rope_type) as a transformers model has them."""
    config_cls, rotary_cls = CLASSES[class_name]
    kwargs = {k: copy.deepcopy(v) for k, v in config_dict.items() if not k.startswith("_")}
    config = config_cls(**kwargs)
    rotary = rotary_cls(config)
    rope_type = config.rope_parameters["rope_type"]
    if seq_len is not None:
        x = torch.zeros(1, 1, 8)
        rotary(x, torch.tensor([[seq_len - 1]]))
    inv_freq = rotary.inv_freq.detach().cpu().numpy()
    attention = float(rotary.attention_scaling)
    assert inv_freq.dtype == np.float32, inv_freq.dtype

    # Cross-check the module against a direct call of the registry function.
    if rope_type != "default":
        direct, direct_attention = ROPE_INIT_FUNCTIONS[rope_type](
            config_cls(**copy.deepcopy(kwargs)), seq_len=seq_len
        )
        direct = direct.numpy()
        np.testing.assert_allclose(inv_freq, direct, rtol=1e-6, err_msg=f"{class_name} {seq_len}")
        assert math.isclose(attention, float(direct_attention), rel_tol=1e-7), (
            attention,
            direct_attention,
        )
    return inv_freq, attention, rope_type


def synthetic_cases() -> list[dict]:
    """(id, config dict for LlamaConfig, seq_len, direct call of our API)."""
    cases: list[dict] = []

    def add(
        case_id,
        rope_type,
        base,
        head_dim,
        max_pos,
        params,
        seq_lens=(None,),
        prf=None,
        top=None,
        call_params=None,
    ):
        config = {
            "hidden_size": head_dim * 8,
            "num_attention_heads": 8,
            "head_dim": head_dim,
            "max_position_embeddings": max_pos,
            "rope_parameters": {"rope_type": rope_type, "rope_theta": base, **params},
            **(top or {}),
        }
        dim = head_dim
        if prf is not None:
            config["partial_rotary_factor"] = prf
            dim = int(head_dim * prf)
        for seq_len in seq_lens:
            suffix = "" if seq_len is None else f"-serve{seq_len}"
            cases.append(
                {
                    "id": f"{case_id}{suffix}",
                    "source": "synthetic",
                    "config_class": "LlamaConfig",
                    "config": config,
                    "seq_len": seq_len,
                    "call": {
                        "rope_type": rope_type,
                        "base": base,
                        "dim": dim,
                        "max_position_embeddings": max_pos,
                        "params": params if call_params is None else call_params,
                    },
                }
            )

    # default
    add("default-b1e4-d128", "default", 10000.0, 128, 4096, {})
    add("default-b5e5-d64", "default", 500000.0, 64, 8192, {})
    add("default-b1e6-d96", "default", 1000000.0, 96, 32768, {})
    # linear (position interpolation)
    for factor in (2.0, 4.0, 8.0):
        add(f"linear-b1e4-d128-f{factor:g}", "linear", 10000.0, 128, 4096, {"factor": factor})
    add("linear-b5e5-d64-f4", "linear", 500000.0, 64, 16384, {"factor": 4.0})
    add("linear-b1e4-d80-partial0.5-f2", "linear", 10000.0, 80, 2048, {"factor": 2.0}, prf=0.5)
    # dynamic NTK at served lengths below and above the trained length
    served = (None, 1000, 4096, 4097, 8192, 16384, 65536, 131072)
    add("dynamic-b1e4-d128-f2", "dynamic", 10000.0, 128, 4096, {"factor": 2.0}, served)
    add("dynamic-b1e4-d128-f4", "dynamic", 10000.0, 128, 4096, {"factor": 4.0}, served)
    add("dynamic-b1e4-d128-f1", "dynamic", 10000.0, 128, 4096, {"factor": 1.0}, (16384, 32768))
    add("dynamic-b5e5-d64-f8", "dynamic", 500000.0, 64, 8192, {"factor": 8.0}, (None, 8193, 65536))
    # YaRN
    yarn = {"factor": 4.0, "original_max_position_embeddings": 4096}
    add("yarn-b1e4-d128-f4", "yarn", 10000.0, 128, 16384, yarn)
    add("yarn-b1e4-d128-f4-truncfalse", "yarn", 10000.0, 128, 16384, {**yarn, "truncate": False})
    add("yarn-b1e4-d128-f4-trunctrue", "yarn", 10000.0, 128, 16384, {**yarn, "truncate": True})
    add(
        "yarn-b1e4-d128-f4-beta16-2",
        "yarn",
        10000.0,
        128,
        16384,
        {**yarn, "beta_fast": 16.0, "beta_slow": 2.0},
    )
    add(
        "yarn-b1e4-d64-f40-mscale0.707-all1",
        "yarn",
        10000.0,
        64,
        163840,
        {
            "factor": 40.0,
            "original_max_position_embeddings": 4096,
            "mscale": 0.707,
            "mscale_all_dim": 1.0,
        },
    )
    add(
        "yarn-b1e4-d64-f40-mscale1-all0.707",
        "yarn",
        10000.0,
        64,
        163840,
        {
            "factor": 40.0,
            "original_max_position_embeddings": 4096,
            "mscale": 1.0,
            "mscale_all_dim": 0.707,
        },
    )
    add(
        "yarn-b1e4-d64-f40-mscale-only",
        "yarn",
        10000.0,
        64,
        163840,
        {"factor": 40.0, "original_max_position_embeddings": 4096, "mscale": 0.707},
    )
    add(
        "yarn-b1e4-d128-f4-attn1.5",
        "yarn",
        10000.0,
        128,
        16384,
        {**yarn, "attention_factor": 1.5},
    )
    add(
        "yarn-b1e4-d128-factor-derived",
        "yarn",
        10000.0,
        128,
        65536,
        {"factor": None, "original_max_position_embeddings": 4096},
    )
    add(
        "yarn-b1e6-d128-f4-qwen",
        "yarn",
        1000000.0,
        128,
        131072,
        {"factor": 4.0, "original_max_position_embeddings": 32768},
    )
    add(
        "yarn-b1.5e5-d64-f32-truncfalse-gptoss",
        "yarn",
        150000.0,
        64,
        131072,
        {
            "factor": 32.0,
            "original_max_position_embeddings": 4096,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "truncate": False,
        },
    )
    add(
        "yarn-b1e4-d128-f4-truncnull",
        "yarn",
        10000.0,
        128,
        16384,
        {**yarn, "truncate": None},
        call_params={**yarn, "truncate": False},
    )
    # A top-level original_max_position_embeddings wins over the block's.
    add(
        "yarn-b1e4-d128-f4-toplevel-original",
        "yarn",
        10000.0,
        128,
        16384,
        yarn,
        top={"original_max_position_embeddings": 2048},
        call_params={**yarn, "original_max_position_embeddings": 2048},
    )
    add(
        "yarn-b1e4-d128-partial0.5-f4",
        "yarn",
        10000.0,
        128,
        16384,
        yarn,
        prf=0.5,
    )
    # Llama 3
    llama3 = {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    }
    add("llama3-b5e5-d128-f8", "llama3", 500000.0, 128, 131072, llama3)
    add("llama3-b5e5-d64-f32", "llama3", 500000.0, 64, 131072, {**llama3, "factor": 32.0})
    add(
        "llama3-b1e4-d64-f4-low2-high8",
        "llama3",
        10000.0,
        64,
        8192,
        {
            "factor": 4.0,
            "low_freq_factor": 2.0,
            "high_freq_factor": 8.0,
            "original_max_position_embeddings": 2048,
        },
    )
    # LongRoPE with made-up, deterministic per-pair factors
    short = [round(1.0 + 0.05 * i, 4) for i in range(32)]
    long = [round(1.0 + 1.25 * i, 4) for i in range(32)]
    longrope = {
        "short_factor": short,
        "long_factor": long,
        "original_max_position_embeddings": 4096,
    }
    serve = (None, 2048, 4096, 4097, 131072)
    add("longrope-b1e4-d64-derived", "longrope", 10000.0, 64, 131072, longrope, serve)
    add(
        "longrope-b1e4-d64-factor16",
        "longrope",
        10000.0,
        64,
        131072,
        {**longrope, "factor": 16.0},
        (None, 4097),
    )
    add(
        "longrope-b1e4-d64-attn1.25",
        "longrope",
        10000.0,
        64,
        131072,
        {**longrope, "attention_factor": 1.25},
        (None, 4097),
    )
    return cases


def to_list(array: np.ndarray) -> list[float]:
    return [float(v) for v in array.astype(np.float64)]


def main() -> None:
    config_dir = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "model_configs"
    )
    configs: dict[str, dict] = {}
    cases: list[dict] = []
    for file_name, class_name in MODEL_FILES.items():
        config = json.loads((config_dir / file_name).read_text())
        name = file_name.removesuffix(".json")
        configs[name] = {"config_class": class_name, "config": config}
        if class_name is None:
            continue
        _, _, rope_type = transformers_rope(class_name, config, None)
        for seq_len in SERVED_FOR_TYPE.get(rope_type, [None]):
            inv_freq, attention, rope_type = transformers_rope(class_name, config, seq_len)
            suffix = "" if seq_len is None else f"-serve{seq_len}"
            cases.append(
                {
                    "id": f"{name}{suffix}",
                    "source": f"model_configs/{file_name}",
                    "config_class": class_name,
                    "config": name,
                    "seq_len": seq_len,
                    "rope_type": rope_type,
                    "inv_freq": to_list(inv_freq),
                    "attention_factor": attention,
                }
            )
    phi = copy.deepcopy(configs["phi-3.5-mini-instruct"]["config"])
    phi["rope_scaling"]["type"] = "su"
    # transformers 5.24 only copies a top-level original_max_position_embeddings into a
    # llama3/yarn/longrope block, and maps "su" after that step: without the key in the
    # block, Phi3Config(...) raises KeyError. So the block states it too.
    phi["rope_scaling"]["original_max_position_embeddings"] = phi[
        "original_max_position_embeddings"
    ]
    phi["_source"] = (
        "phi-3.5-mini-instruct.json with the old rope_scaling type name 'su' "
        "(and original_max_position_embeddings repeated in the block)"
    )
    for seq_len in (None, 4097):
        inv_freq, attention, rope_type = transformers_rope("Phi3Config", phi, seq_len)
        cases.append(
            {
                "id": "phi-3.5-su" + ("" if seq_len is None else f"-serve{seq_len}"),
                "source": "synthetic",
                "config_class": "Phi3Config",
                "config": phi,
                "seq_len": seq_len,
                "rope_type": rope_type,
                "inv_freq": to_list(inv_freq),
                "attention_factor": attention,
            }
        )
    for case in synthetic_cases():
        inv_freq, attention, rope_type = transformers_rope(
            case["config_class"], case["config"], case["seq_len"]
        )
        assert rope_type == case["call"]["rope_type"], (rope_type, case["id"])
        cases.append(
            {
                **case,
                "rope_type": rope_type,
                "inv_freq": to_list(inv_freq),
                "attention_factor": attention,
            }
        )

    ids = [case["id"] for case in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    golden = {
        "_about": (
            "Golden RoPE values from Hugging Face transformers: inv_freq (float32 values "
            "written as float64) and attention_factor per case. Made by "
            "scripts/make_golden_rope.py; checked by tests/core/test_rope_scaling.py and "
            "tests/core/test_hf_config.py at rtol 2e-6. 'configs' copies the public "
            "config extracts of shared/model_configs/ (with their _source notes)."
        ),
        "transformers_version": transformers.__version__,
        "torch_version": torch.__version__,
        "python_version": sys.version.split()[0],
        "configs": configs,
        "cases": cases,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {OUT} ({OUT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
