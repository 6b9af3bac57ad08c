"""The Context extension page's controls: bounds, labels and docs, declared once."""

from __future__ import annotations

from typing import Any, ClassVar

import panel as pn
import param

from .models import (
    DEFAULT_PRESET,
    LONGROPE_LONG,
    LONGROPE_PRESET,
    LONGROPE_SHORT,
    PRESET_LABELS,
    PRESET_OBJECTS,
)
from .shared import MAX_TARGET, METHODS

__all__ = ["MAX_TRAINED", "MIN_TRAINED", "ExtensionControls"]

#: Trained length bounds: at least two octaves of stretch always remain.
MIN_TRAINED, MAX_TRAINED = 128, 2**19


class ExtensionControls(param.Parameterized):
    """The parameters of :class:`~app.pages.extension.ExtensionPage` (its sliders), and
    the state a loaded model brings (not controls: not in links)."""

    preset = param.Selector(
        default=DEFAULT_PRESET,
        objects=PRESET_OBJECTS,
        label="Model preset",
        doc="Fills every control from a real model's config.json (E5). Models without "
        "RoPE say which positions they use instead.",
    )
    d = param.Integer(
        default=128,
        bounds=(4, 512),
        step=2,
        label="Rotary dimensions d",
        doc="Dimensions that rotate in one head (head_dim × partial_rotary_factor); "
        "d/2 pairs. Even.",
    )
    base = param.Number(
        default=10_000.0,
        bounds=(10.0, 1e9),
        label="Base b (rope_theta)",
        doc="θ_i = b^(−2i/d): a larger base gives slower slow pairs. Llama 2: 10,000; "
        "Llama 3: 500,000; Code Llama: 1,000,000.",
    )
    trained_len = param.Integer(
        default=4096,
        bounds=(MIN_TRAINED, MAX_TRAINED),
        label="Trained length L",
        doc="Positions 0 … L − 1 were seen in training (original_max_position_embeddings).",
    )
    target_len = param.Integer(
        default=16_384,
        bounds=(MIN_TRAINED, MAX_TARGET),
        label="Target length L′",
        doc="The length you want to serve; at least L. Moving it sets s = L′/L.",
    )
    factor = param.Number(
        default=4.0,
        bounds=(1.0, MAX_TARGET / MIN_TRAINED),
        label="Stretch factor s",
        doc="The rope_scaling factor; usually L′/L. Moving it sets L′ = s·L (a model's "
        "config may use a smaller s than its maximum length suggests: Llama 3.1).",
    )
    method = param.Selector(
        default="default",
        objects={method.label: key for key, method in METHODS.items()},
        label="Scaling method",
        doc="How the speeds θ_i are changed to reach L′ (Hugging Face rope_type; "
        "NTK-aware is the static form of dynamic NTK).",
    )
    served_len = param.Integer(
        default=16_384,
        bounds=(1, MAX_TARGET),
        label="Served length S",
        doc="Tokens in the current input (dynamic NTK and LongRoPE change with it); at most L′.",
    )
    beta_fast = param.Number(
        default=32.0,
        bounds=(1.0, 128.0),
        step=0.5,
        label="beta_fast",
        doc="YaRN: pairs turning more than beta_fast times within L keep their speed.",
    )
    beta_slow = param.Number(
        default=1.0,
        bounds=(0.1, 32.0),
        step=0.1,
        label="beta_slow",
        doc="YaRN: pairs turning fewer than beta_slow times within L are divided by s. "
        "At most beta_fast.",
    )
    mscale = param.Number(
        default=0.0,
        bounds=(0.0, 10.0),
        step=0.05,
        label="mscale (0 = not set)",
        doc="YaRN (DeepSeek): with mscale_all_dim, attention factor = "
        "(0.1·mscale·ln s + 1) / (0.1·mscale_all_dim·ln s + 1).",
    )
    mscale_all_dim = param.Number(
        default=0.0,
        bounds=(0.0, 10.0),
        step=0.05,
        label="mscale_all_dim (0 = not set)",
        doc="YaRN (DeepSeek): used with mscale; both must be set to count.",
    )
    truncate = param.Boolean(
        default=True,
        label="truncate (round the ramp ends)",
        doc="YaRN: floor / ceil the ramp ends to whole pairs (transformers' default; "
        "gpt-oss turns it off).",
    )
    attention_factor = param.Number(
        default=0.0,
        bounds=(0.0, 10.0),
        step=0.01,
        label="attention_factor (0 = from the formula)",
        doc="YaRN and LongRoPE: overrides the attention factor the method derives from s.",
    )
    low_freq_factor = param.Number(
        default=1.0,
        bounds=(0.25, 32.0),
        step=0.25,
        label="low_freq_factor",
        doc="Llama 3: pairs with wavelength above L / low_freq_factor are divided by s.",
    )
    high_freq_factor = param.Number(
        default=4.0,
        bounds=(0.5, 64.0),
        step=0.25,
        label="high_freq_factor",
        doc="Llama 3: pairs with wavelength below L / high_freq_factor keep their speed. "
        "Greater than low_freq_factor.",
    )
    pair = param.Integer(
        default=63,
        bounds=(0, 255),
        label="Pair shown in E2",
        doc="Which pair's angle E2 draws (0 = fastest, d/2 − 1 = slowest).",
    )

    # State that is not a control (not in links).
    longrope_short = param.Parameter(
        default=LONGROPE_SHORT, precedence=-1, doc="LongRoPE short_factor (from a config)."
    )
    longrope_long = param.Parameter(
        default=LONGROPE_LONG, precedence=-1, doc="LongRoPE long_factor (from a config)."
    )
    longrope_pairs = param.Integer(
        default=len(LONGROPE_SHORT), precedence=-1, doc="Pairs the LongRoPE factors are for."
    )
    longrope_source = param.String(
        default=PRESET_LABELS[LONGROPE_PRESET], precedence=-1, doc="Where the factors come from."
    )
    model = param.Parameter(default=None, precedence=-1, doc="The ModelCard shown in E5.")
    loaded = param.Dict(
        default=None,
        allow_None=True,
        precedence=-1,
        doc="The controls as the model shown in E5 set them (to list what changed since).",
    )
    config_errors = param.List(
        default=[], item_type=str, precedence=-1, doc="Why the last pasted config was refused."
    )
    config_warnings = param.List(
        default=[],
        item_type=str,
        precedence=-1,
        doc="What the page could not show exactly for the loaded config.",
    )
    config_link = param.Parameter(
        default=None, precedence=-1, doc="The NoRopeError of a pasted config with no RoPE."
    )

    #: The lengths, the base and s as number boxes where a figure shows its own
    #: controls (the sidebar draws them as log sliders).
    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "base": {"type": pn.widgets.FloatInput},
        "trained_len": {"type": pn.widgets.IntInput},
        "target_len": {"type": pn.widgets.IntInput},
        "factor": {"type": pn.widgets.FloatInput},
        "served_len": {"type": pn.widgets.IntInput},
    }
