"""O1 · The two sentences as the layer receives them: one fixed vector per word."""

from __future__ import annotations

from typing import Any

import numpy as np

from positional_core.attention import embed_sentence

from .shared import RowsChart, row_marks, row_options, similarity_text
from .similarity import similarities


class Inputs(RowsChart):
    title = "O1 · Two sentences, one attention head"
    caption = (
        "Each word enters the layer as a fixed vector of 16 numbers drawn from a hash "
        "of the word: the same in every sentence, session and machine. Left: one row "
        "per word of A; right: the same for B. A green line joins two rows that are "
        "exactly equal: the words of A in another order are the rows of A in another "
        "order. One attention head with fixed, seeded weights turns these rows into the "
        "outputs compared in O2 and O3."
    )
    formula = r"$$x_i = e(w_i),\qquad q_i = x_i W_Q,\quad k_i = x_i W_K,\quad v_i = x_i W_V$$"
    marks = row_marks("input")
    options = row_options("input")
    # Asked at O1, the layer's input: O2's bars are its answer.
    question = (
        "B reorders the words of A. Predict first, then check O2's top bar: with no "
        "position information, what is the cosine similarity of the two sentences' "
        "averaged outputs?"
    )
    answer_depends = ("sentence_a", "sentence_b")

    def rows(self, p: Any) -> tuple[np.ndarray, np.ndarray]:
        return embed_sentence(p.sentence_a), embed_sentence(p.sentence_b)

    def answer(self, p: Any) -> str:
        values = {key: similarity_text(v) for key, v in similarities(p).items()}
        return (
            f"With no positions: <b>{values['none']}</b>. For a reordering of the same "
            "words it is exactly 1: the rows are the same vectors in another order, and an "
            f"average ignores order. Here, sinusoidal codes give {values['sinusoidal']}, "
            f"RoPE {values['rope']} and a causal mask alone {values['causal']}."
        )
