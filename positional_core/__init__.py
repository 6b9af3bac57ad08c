"""positional_core: every number the Positional Encoding Explorer shows, in pure NumPy.

One module per scheme; nothing here imports panel, holoviews, bokeh or param.

* :mod:`~positional_core.sinusoidal` — sinusoidal codes, shift matrices, clock angles.
* :mod:`~positional_core.learned` — learned position tables (GPT-2, BERT).
* :mod:`~positional_core.rope` — RoPE rotations, scores, layouts, decay bound.
* :mod:`~positional_core.extension` — trained angle bands, position interpolation, NTK base.
* :mod:`~positional_core.rope_scaling` — Hugging Face ``rope_scaling`` methods (registry).
* :mod:`~positional_core.stretch` — what each scaling method does to every pair of a head.
* :mod:`~positional_core.hf_config` — RoPE schedule from a ``config.json``.
* :mod:`~positional_core.alibi` — ALiBi slopes and biases.
* :mod:`~positional_core.relative` — T5 relative buckets, Shaw's clipping, NoPE.
* :mod:`~positional_core.attention` — a tiny attention head for the order demo.
* :mod:`~positional_core.terms` — the four terms of a score, absolute and Transformer-XL.
* :mod:`~positional_core.mistakes` — classic RoPE mistakes, each measured.
* :mod:`~positional_core.grid2d` — positions on a grid of image patches (2-D codes, 2-D RoPE).

Every public function validates its arguments and raises ``ValueError`` with a
message naming the argument and the allowed range; the size limits live in
:mod:`positional_core._validation`.
"""

from .alibi import (
    ALIBI_FORMS,
    alibi_bias,
    alibi_bias_row,
    alibi_half_lives,
    alibi_head_bias,
    alibi_slope_sources,
    alibi_slopes,
    alibi_weight_factors,
)
from .attention import (
    COMPARE_SCHEMES,
    ORDER_PAIR,
    SCHEMES,
    OrderLayer,
    causal_mask,
    compare_order_similarity,
    encode_sentence,
    match_rows,
    order_similarity,
    parse_sentence,
    scaled_dot_product_attention,
    softmax,
    word_vector,
)
from .extension import (
    band_excess,
    drope_frequencies,
    interpolate_positions,
    never_complete_turn,
    ntk_scaled_base,
    out_of_band,
    trained_max_angle,
    trained_turns,
)
from .grid2d import grid_positions, patch_scores, rope_2d, sincos_2d
from .hf_config import (
    ConfigError,
    NoRopeError,
    RopeModelInfo,
    load_json_config,
    read_rope_config,
    rope_from_hf_config,
)
from .learned import (
    LearnedPositionTable,
    PositionOutOfRangeError,
    learned_parameter_count,
    missing_positions,
)
from .mistakes import shift_changes, width_mistake
from .presets import MODEL_CONFIG_NAMES, model_config
from .relative import (
    T5BucketRegions,
    causal_weight,
    nope_causal_weights,
    nope_row_weight,
    shaw_clipped_distance,
    shaw_relative_index,
    t5_bias_matrix,
    t5_bucket_regions,
    t5_new_buckets,
    t5_random_bucket_biases,
    t5_relative_bucket,
)
from .rope import (
    LAYOUTS,
    RopeScoreTerms,
    apply_rope,
    pair_indices,
    rope_decay_bound,
    rope_frequencies,
    rope_score,
    rope_score_terms,
    rope_scores_by_offset,
    rotation_angles,
    rotation_matrix,
    wavelengths,
)
from .rope_scaling import (
    ROPE_SCALING_METHODS,
    RopeScalingError,
    compute_rope_parameters,
)
from .sinusoidal import (
    clock_angles,
    code_similarity,
    shift_matrix,
    sinusoidal_code,
    sinusoidal_encoding,
    sinusoidal_frequencies,
)
from .stretch import (
    AngleLine,
    StretchSchedule,
    StretchSettings,
    angle_lines,
    out_of_band_counts,
    reference_frequencies,
    stretch_schedule,
)
from .terms import (
    absolute_score_terms,
    seeded_head,
    toeplitz_deviation,
    transformer_xl_score_terms,
)

__all__ = [
    "ALIBI_FORMS",
    "COMPARE_SCHEMES",
    "LAYOUTS",
    "MODEL_CONFIG_NAMES",
    "ORDER_PAIR",
    "ROPE_SCALING_METHODS",
    "SCHEMES",
    "AngleLine",
    "ConfigError",
    "LearnedPositionTable",
    "NoRopeError",
    "OrderLayer",
    "PositionOutOfRangeError",
    "RopeModelInfo",
    "RopeScalingError",
    "RopeScoreTerms",
    "StretchSchedule",
    "StretchSettings",
    "T5BucketRegions",
    "absolute_score_terms",
    "alibi_bias",
    "alibi_bias_row",
    "alibi_half_lives",
    "alibi_head_bias",
    "alibi_slope_sources",
    "alibi_slopes",
    "alibi_weight_factors",
    "angle_lines",
    "apply_rope",
    "band_excess",
    "causal_mask",
    "causal_weight",
    "clock_angles",
    "code_similarity",
    "compare_order_similarity",
    "compute_rope_parameters",
    "drope_frequencies",
    "encode_sentence",
    "grid_positions",
    "interpolate_positions",
    "learned_parameter_count",
    "load_json_config",
    "match_rows",
    "missing_positions",
    "model_config",
    "never_complete_turn",
    "nope_causal_weights",
    "nope_row_weight",
    "ntk_scaled_base",
    "order_similarity",
    "out_of_band",
    "out_of_band_counts",
    "pair_indices",
    "parse_sentence",
    "patch_scores",
    "read_rope_config",
    "reference_frequencies",
    "rope_2d",
    "rope_decay_bound",
    "rope_frequencies",
    "rope_from_hf_config",
    "rope_score",
    "rope_score_terms",
    "rope_scores_by_offset",
    "rotation_angles",
    "rotation_matrix",
    "scaled_dot_product_attention",
    "seeded_head",
    "shaw_clipped_distance",
    "shaw_relative_index",
    "shift_changes",
    "shift_matrix",
    "sincos_2d",
    "sinusoidal_code",
    "sinusoidal_encoding",
    "sinusoidal_frequencies",
    "softmax",
    "stretch_schedule",
    "t5_bias_matrix",
    "t5_bucket_regions",
    "t5_new_buckets",
    "t5_random_bucket_biases",
    "t5_relative_bucket",
    "toeplitz_deviation",
    "trained_max_angle",
    "trained_turns",
    "transformer_xl_score_terms",
    "wavelengths",
    "width_mistake",
    "word_vector",
]
