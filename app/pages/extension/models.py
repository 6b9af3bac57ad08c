"""E5 · Real models: presets, a pasted or uploaded config.json, and what they set.

A config is read by the core (:func:`~positional_core.hf_config.load_json_config`,
:func:`~positional_core.hf_config.read_rope_config`); any refusal is shown next
to the box with the core's message and the page keeps its state. The config
is shown as escaped text, never as HTML.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import panel as pn

from positional_core.hf_config import (
    MAX_CONFIG_BYTES,
    NoRopeError,
    RopeModelInfo,
    load_json_config,
    read_rope_config,
)
from positional_core.presets import MODEL_CONFIG_NAMES, model_config

from ...cards import card_grid, notice_html, notice_pane
from ...look import escape_text
from ...numbers import readable
from .shared import MAX_TARGET, METHODS, ROWS_CSS, rows_html

__all__ = ["CUSTOM", "PRESET_LABELS", "ModelCard", "models_card", "preset_card", "preset_values"]

#: Preset file name → label, in menu order (RoPE models first).
PRESET_LABELS: dict[str, str] = {
    "llama-2-7b": "Llama 2 7B",
    "llama-3.1-8b": "Llama 3.1 8B (llama3 scaling)",
    "mistral-7b-v0.1": "Mistral 7B v0.1",
    "codellama-7b": "Code Llama 7B",
    "qwen2.5-7b-instruct": "Qwen2.5 7B Instruct",
    "qwen2.5-7b-instruct-yarn-128k": "Qwen2.5 7B Instruct + 128K YaRN",
    "gpt-oss": "gpt-oss (YaRN)",
    "deepseek-v3-rope": "DeepSeek-V3 RoPE block (YaRN)",
    "phi-2": "Phi-2 (partial rotary)",
    "phi-3.5-mini-instruct": "Phi-3.5-mini (LongRoPE)",
    "gpt2": "GPT-2 (learned positions)",
    "bert-base-uncased": "BERT base (learned positions)",
    "bloom-560m": "BLOOM 560M (ALiBi)",
    "bloom": "BLOOM 176B (ALiBi)",
    "mpt-7b": "MPT 7B (ALiBi)",
    "t5-base": "T5 base (relative buckets)",
}
CUSTOM = "custom"
PRESET_OBJECTS = {"custom (or a pasted config.json)": CUSTOM} | {
    PRESET_LABELS.get(n, n): n
    for n in [n for n in PRESET_LABELS if n in MODEL_CONFIG_NAMES]
    + [n for n in MODEL_CONFIG_NAMES if n not in PRESET_LABELS]
}
DEFAULT_PRESET = "llama-2-7b"

#: Where each no-RoPE scheme is explained: (page slug, page title).
SCHEME_PAGES = {
    "learned": ("sinusoidal", "Sinusoidal & learned"),
    "alibi": ("alibi", "ALiBi"),
    "relative": ("relative", "Relative"),
}

#: LongRoPE's per-pair factors come from a real config (never from a slider):
#: Phi-3.5-mini's, unless a pasted LongRoPE config brings its own.
LONGROPE_PRESET = "phi-3.5-mini-instruct"
_LONGROPE_INFO = read_rope_config(model_config(LONGROPE_PRESET))
LONGROPE_SHORT: tuple[float, ...] = tuple(_LONGROPE_INFO.params["short_factor"])
LONGROPE_LONG: tuple[float, ...] = tuple(_LONGROPE_INFO.params["long_factor"])

#: Longest config text shown in the page (the core accepts up to 256 KB).
_SHOWN_CONFIG_CHARS = 12_000
_MODELS_CSS = """
.muted { opacity: 0.8; }
.caption { font-size: 0.9em; line-height: 1.4; margin: 0; }
pre.config { max-height: 320px; overflow: auto; white-space: pre-wrap; word-break: break-all;
  font-size: 0.85em; line-height: 1.35; margin: 0; padding: 6px 8px; border-radius: 4px;
  background: rgba(128, 128, 128, 0.12); }
"""


@dataclass(frozen=True)
class ModelCard:
    """The model shown in E5: a preset or a pasted/uploaded config."""

    label: str
    source: str  # "preset", "pasted", "uploaded"
    config: Mapping[str, Any]
    info: RopeModelInfo | None = None
    no_rope: NoRopeError | None = None


def preset_card(name: str) -> ModelCard:
    """The card of a shipped preset (a model without RoPE says which scheme it uses)."""
    config = model_config(name)
    label = PRESET_LABELS.get(name, name)
    try:
        return ModelCard(label, "preset", config, info=read_rope_config(config))
    except NoRopeError as error:
        return ModelCard(label, "preset", config, no_rope=error)


def read_card(text: str | bytes, label: str, source: str) -> ModelCard:
    """A pasted or uploaded config's card; raises the core's ConfigError (NoRopeError)."""
    config = load_json_config(text, MAX_CONFIG_BYTES)
    return ModelCard(label, source, config, info=read_rope_config(config))


def preset_values(
    card: ModelCard, values: Mapping[str, Any], bounds: Callable[[str], tuple[Any, Any]]
) -> tuple[dict[str, Any], list[str]]:
    """The control values (and LongRoPE's lists) that show the model of ``card``, clamped
    to the page's ``bounds``, with notes for what the page cannot show exactly."""
    info = card.info
    assert info is not None
    p = info.params
    out = dict(values)
    notes: list[str] = []

    def bounded(name: str, value: Any, what: str) -> Any:
        low, high = bounds(name)
        clamped = min(max(value, low), high)
        if clamped != value:
            notes.append(
                f"{what} = {readable(value)} is outside the page's range {readable(low)} … "
                f"{readable(high)}; shown with {readable(clamped)}, so the figures differ from "
                "the model."
            )
        return clamped

    d = bounded("d", info.rotary_dim, "the rotary dimensions")
    trained = bounded("trained_len", info.trained_len, "the trained length")
    target = info.target_len
    if target > MAX_TARGET:
        notes.append(
            f"the target length {target:,} is past the page's limit {MAX_TARGET:,}; "
            f"shown with {MAX_TARGET:,}."
        )
        target = MAX_TARGET
    target = max(target, trained)
    knobs = {
        "beta_fast": p.get("beta_fast") or 32.0,
        "beta_slow": p.get("beta_slow") or 1.0,
        "mscale": p.get("mscale") or 0.0,
        "mscale_all_dim": p.get("mscale_all_dim") or 0.0,
        "attention_factor": p.get("attention_factor") or 0.0,
        "low_freq_factor": p.get("low_freq_factor", 1.0),
        "high_freq_factor": p.get("high_freq_factor", 4.0),
    }
    out.update(
        d=d,
        base=bounded("base", info.base, "rope_theta"),
        trained_len=trained,
        target_len=target,
        factor=bounded("factor", info.factor, "factor"),
        method=info.rope_type,
        served_len=target,
        pair=d // 2 - 1,
        truncate=bool(p["truncate"]) if "truncate" in p else True,
        **{name: bounded(name, float(value), name) for name, value in knobs.items()},
    )
    if info.rope_type == "longrope":
        if d == info.rotary_dim:
            out.update(
                longrope_short=tuple(p["short_factor"]),
                longrope_long=tuple(p["long_factor"]),
                longrope_pairs=len(p["short_factor"]),
                longrope_source=card.label,
            )
        else:
            out["method"] = "default"
            notes.append(
                f"LongRoPE needs one factor per pair; {info.n_pairs} pairs is past the "
                "page's limit, so the method is shown as none."
            )
    if info.rope_type == "dynamic" and info.max_position_embeddings != info.trained_len:
        notes.append(
            "dynamic NTK starts growing the base past max_position_embeddings "
            f"({info.max_position_embeddings:,}); the page uses the trained length L = "
            f"{info.trained_len:,} for both."
        )
    if info.ignored_keys:
        keys = ", ".join(k[:40] for k in info.ignored_keys[:8])
        notes.append(
            f"{info.rope_type} does not read these keys (transformers ignores them too): {keys}."
        )
    return out, notes


def _shown(name: str, value: Any) -> str:
    """A control's value as text (the method by its label)."""
    if name == "method":
        return METHODS[value].label
    if isinstance(value, bool):
        return "on" if value else "off"
    return readable(value, 6)


def longrope_note(source: str, pairs: int) -> str:
    """Where the LongRoPE factors in use come from (under the method's knobs)."""
    return (
        f"<small>short_factor / long_factor: {pairs} pairs each, from "
        f"{escape_text(source, 60)} (read-only).</small>"
    )


def no_rope_html(error: NoRopeError) -> str:
    slug, title = SCHEME_PAGES.get(error.scheme, ("sinusoidal", "Sinusoidal & learned"))
    return notice_html(str(error) + ".", kind="info", title="No RoPE here.").replace(
        "</div>",
        f' See <a href="?page={slug}">the {escape_text(title)} page</a>.</div>',
        1,
    )


def model_html(page: Any) -> str:
    """E5's numbers: what the model's config says, and what was changed since."""
    card: ModelCard | None = page.model
    if card is None:
        return (
            "<p>No preset: the controls are your own settings. Choose a model in the "
            "sidebar, or paste or upload a <code>config.json</code>.</p>"
        )
    title = f"<b>{escape_text(card.label, 80)}</b> <span class=muted>({card.source})</span>"
    if card.no_rope is not None:
        return f"<p>{title}</p>" + no_rope_html(card.no_rope)
    info = card.info
    assert info is not None
    trained_from = "max_position_embeddings"
    if info.original_max_position_embeddings:
        trained_from = "original_" + trained_from
    block = f" (from <code>{info.block_key}</code>)" if info.block_key else " (no scaling block)"
    rows = {
        "model_type": escape_text(info.model_type, 40) if info.model_type else "—",
        "head_dim": f"{info.head_dim:,}",
        "rotary dimensions": (
            f"{info.rotary_dim:,} ({info.n_pairs} pairs; "
            f"partial_rotary_factor {readable(info.partial_rotary_factor)})"
        ),
        "rope_theta θ (base)": readable(info.base, 8),
        "trained length L": f"{info.trained_len:,} <span class=muted>({trained_from})</span>",
        "maximum length": (
            f"{info.max_position_embeddings:,} <span class=muted>(max_position_embeddings)</span>"
        ),
        "rope_type": f"<code>{info.rope_type}</code>{block}",
        "factor": readable(info.factor, 6),
        f"attention factor at S = {page.served_len:,}": readable(
            info.attention_factor(min(page.served_len, 2**24)), 6
        ),
    }
    labels = type(page).param
    differ = [
        f"{labels[k].label} {_shown(k, now)} (model: {_shown(k, then)})"
        for k, now, then in page.changed_since_load()
    ]
    text = f"<p>{title}</p>" + rows_html(rows)
    if differ:
        changed = escape_text("; ".join(differ))
        text += f"<p class=muted>Changed since the model was loaded: {changed}.</p>"
    return text


def pretty_config(config: Mapping[str, Any]) -> str:
    """The config as JSON text, lists of numbers kept on one line (plain text, not escaped)."""

    def dump(value: Any, indent: int) -> str:
        pad = "  " * (indent + 1)
        if isinstance(value, dict) and value:
            items = [f"{pad}{json.dumps(str(k))}: {dump(v, indent + 1)}" for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
        if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
            items = [f"{pad}{dump(v, indent + 1)}" for v in value]
            return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
        return json.dumps(value, ensure_ascii=False)

    return dump(config, 0)


def config_html(card: ModelCard | None) -> str:
    """The config as read, escaped, in a scrolling box (long configs cut)."""
    if card is None:
        return ""
    text = pretty_config(card.config)
    if len(text) > _SHOWN_CONFIG_CHARS:
        more = len(text) - _SHOWN_CONFIG_CHARS
        text = text[:_SHOWN_CONFIG_CHARS] + f"\n… ({more:,} more characters)"
    return f'<pre class="config">{escape_text(text)}</pre>'


def _paste_box(page: Any) -> pn.Column:
    box = pn.widgets.TextAreaInput(
        label="Paste a config.json",
        placeholder='{"hidden_size": 4096, "num_attention_heads": 32, '
        '"max_position_embeddings": 4096, "rope_theta": 10000.0, "rope_scaling": null}',
        rows=7,
        max_length=2 * MAX_CONFIG_BYTES,
        sizing_mode="stretch_width",
    )
    apply = pn.widgets.Button(label="Apply", color="primary", width=100)
    apply.on_click(lambda _event: page.apply_config(box.value or "", "pasted config", "pasted"))
    upload = pn.widgets.FileInput(
        label="Upload a config.json",
        accept=".json,application/json,text/plain",
        multiple=False,
        sizing_mode="stretch_width",
    )

    def uploaded(event: Any) -> None:
        if event.new:
            label = f"uploaded file {upload.filename or ''}".strip()
            page.apply_config(bytes(event.new), label, "uploaded")

    upload.param.watch(uploaded, "value")
    link = pn.bind(lambda error: no_rope_html(error) if error else "", page.param.config_link)
    return pn.Column(
        box,
        apply,
        pn.pane.Markdown("…or upload a `config.json` (256 KB at most):", margin=(8, 10, 0, 10)),
        upload,
        notice_pane(page.param.config_errors, kind="error", title="Config not loaded:"),
        _html(link, margin=(0, 8)),
        _html(
            "<p class=caption>Both <code>rope_scaling</code> and <code>rope_parameters</code> "
            "are read; the head size from <code>head_dim</code> or hidden_size / "
            "num_attention_heads; <code>partial_rotary_factor</code> for partial rotary "
            "models. A pasted config fills every control (it is not part of the link; the "
            "controls are).</p>"
        ),
        sizing_mode="stretch_width",
    )


def _html(content: Any, **params: Any) -> pn.pane.HTML:
    return pn.pane.HTML(
        content, stylesheets=[_MODELS_CSS, ROWS_CSS], sizing_mode="stretch_width", **params
    )


def models_card(page: Any) -> pn.Card:
    """The card: the model's numbers and config beside the paste and upload box."""
    follows = [page.param[n] for n in ("model", "loaded", *page.control_names())]
    model = pn.Column(
        _html(pn.bind(lambda *_: model_html(page), *follows)),
        notice_pane(page.param.config_warnings, kind="warning", title="Shown approximately:"),
        pn.pane.Markdown("**The config** (as read; text only)", margin=(4, 10, 0, 10)),
        _html(pn.bind(config_html, page.param.model)),
        sizing_mode="stretch_width",
    )
    return pn.Card(
        card_grid(model, _paste_box(page)),
        title="E5 · Real models: the config, its numbers, and your own config.json",
        collapsible=False,
        sizing_mode="stretch_width",
        margin=(6, 6),
    )
