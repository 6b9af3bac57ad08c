"""O3 · The permutation picture: the output rows of A and B, equal rows joined."""

from __future__ import annotations

from typing import Any

import numpy as np

from positional_core.attention import encode_sentence

from .shared import VARIANTS, RowsChart, row_marks, row_options


class Permutation(RowsChart):
    title = "O3 · The same rows, reordered"
    caption = (
        "Left: the layer's output for each word of A (one row per word, 16 numbers per "
        "row); right: the same for B. A green line joins two rows that are exactly "
        "equal. With no positions every row of A reappears in B, in B's order: "
        "attention is permutation-equivariant. Choose another scheme and the lines "
        "disappear: each word's output now depends on where it stands."
    )
    formula = (
        r"$$\mathrm{Attn}(P X) = P\,\mathrm{Attn}(X)"
        r"\quad\text{for every permutation matrix } P$$"
    )
    depends = ("sentence_a", "sentence_b", "scheme")
    marks = row_marks("output")
    options = row_options("output")

    def rows(self, p: Any) -> tuple[np.ndarray, np.ndarray]:
        scheme, causal = VARIANTS[p.scheme]
        return (
            encode_sentence(p.sentence_a, scheme, causal),
            encode_sentence(p.sentence_b, scheme, causal),
        )
