"""T4 · Why relative: a score's four terms, with absolute codes and in Transformer-XL's form."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.terms import (
    TERM_NAMES,
    absolute_score_terms,
    seeded_head,
    transformer_xl_score_terms,
)

from ...chart import Chart, Frame
from ...look import plot_opts
from ...marks import image_columns, labels, layer
from ...numbers import difference

#: The head's width, seed and token: an illustration, not a trained model.
TERMS_D, TERMS_SEED, TERMS_TOKEN = 32, 3, "word"
#: A term whose entries spread less than this is drawn as constant (rounding only).
FLAT = 1e-9
#: The forms a reader compares (the page's selector uses these keys).
FORMS = {"absolute": absolute_score_terms, "transformer_xl": transformer_xl_score_terms}


def term_matrices(form: str, n: int) -> tuple[np.ndarray, ...]:
    """The four (n, n) terms of ``form`` for the page's seeded head and token."""
    return FORMS[form](seeded_head(TERMS_D, seed=TERMS_SEED), n, TERMS_TOKEN).terms


def changing_terms(form: str, n: int) -> list[str]:
    """The names of ``form``'s terms that change along a diagonal (depend on more than m − n)."""
    return FORMS[form](seeded_head(TERMS_D, seed=TERMS_SEED), n, TERMS_TOKEN).changing(FLAT)


def _gap(n: int) -> int:
    """Rows between the mosaic's quadrants: room for a term's name (about 14 px)."""
    return max(2, n // 4)


def _mosaic(terms: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The four terms in a 2 × 2 mosaic with a gap: each scaled to its own spread
    around its mean (what the colour shows), and the raw values (the hover)."""
    n = terms[0].shape[0]
    step = n + _gap(n)
    shown = np.full((step + n, step + n), np.nan, dtype=np.float32)
    raw = shown.copy()
    for index, term in enumerate(terms):
        row, col = divmod(index, 2)
        cells = (slice(row * step, row * step + n), slice(col * step, col * step + n))
        spread = term - term.mean()
        top = float(np.max(np.abs(spread)))
        shown[cells] = spread / top if top > FLAT * max(1.0, float(np.abs(term).max())) else 0.0
        raw[cells] = term
    return shown, raw


class Terms(Chart):
    title = "T4 · Why relative: the four terms of a score"
    caption = (
        "One head, the same token at every position, so everything that changes "
        "comes from the positions. With codes added to the input, the score of "
        "query m and key n splits into four matrices (row m, column n): "
        "content·content is constant, content·position changes with the key alone "
        "(columns), position·content with the query alone (rows), position·position "
        "with both. Only a matrix constant along its diagonals depends on the offset "
        "m − n alone. Transformer-XL (Dai et al. 2019) codes the offset instead of the "
        "key's position and replaces the query's position terms by two learned "
        "vectors u and v: all four become constant along the diagonals. Colour: each "
        "matrix's change from its own mean (white: constant); hover for the values. "
        "The head is seeded, not trained."
    )
    formula = (
        r"$$\begin{aligned}(x_m+p_m)^{\top}A\,(x_n+p_n) &= x_m^{\top}Ax_n + x_m^{\top}Ap_n"
        r" + p_m^{\top}Ax_n + p_m^{\top}Ap_n \\ \text{Transformer-XL:}\quad &"
        r"x_m^{\top}W_q^{\top}W_{k,E}\,x_n + x_m^{\top}W_q^{\top}W_{k,R}\,R_{m-n}"
        r" + u^{\top}W_{k,E}\,x_n + v^{\top}W_{k,R}\,R_{m-n}\end{aligned}$$"
    )
    depends = ("terms_form", "terms_len")
    marks = {  # noqa: RUF012
        "image": layer(
            hv.Image,
            ("col", "row"),
            (hv.Dimension("change", label="change from the term's mean (scaled)"), "value"),
            cmap="RdBu_r",
            colorbar=True,
            clim=(-1, 1),
            clipping_colors={"NaN": "rgba(0, 0, 0, 0)"},
            tools=["hover"],
            hover_tooltips=[("term value", "@value{0.0000}")],
        ),
        "names": labels(size="10pt", text_align="left", text_baseline="bottom"),
    }
    # No axes: the mosaic's rows and columns are positions within each term.
    options = plot_opts(height=420, invert_yaxis=True, xaxis=None, yaxis=None)
    readout_depends = depends
    question = (
        "With sinusoidal codes added to the input (and the same token everywhere), how "
        "many of the four terms change along a diagonal, that is depend on more than the "
        "offset m − n?"
    )
    answer_depends = ("terms_len",)

    def frame(self, p: Any) -> Frame:
        n = p.terms_len
        shown, raw = _mosaic(term_matrices(p.terms_form, n))
        size, step = shown.shape[0], n + _gap(n)
        image = image_columns(shown, -0.5, -0.5, float(size), float(size))
        image["value"] = [raw]
        # Each name just above its quadrant (the y axis runs down the page).
        tops = [(-0.5, -0.6), (step - 0.5, -0.6), (-0.5, step - 0.6), (step - 0.5, step - 0.6)]
        return Frame(
            image=image,
            names={
                "x": [x for x, _ in tops],
                "y": [y for _, y in tops],
                "text": list(TERM_NAMES[p.terms_form]),
            },
            x=(-0.5, size - 0.5),
            y=(-0.5 - _gap(n), size - 0.5),
        )

    def readout(self, p: Any) -> str:
        n = p.terms_len
        head = seeded_head(TERMS_D, seed=TERMS_SEED)
        forms = [FORMS[form](head, n, TERMS_TOKEN) for form in FORMS]
        rows = "".join(
            f"<tr><td>{a}</td><td>{difference(x)}</td><td>{b}</td><td>{difference(y)}</td></tr>"
            for a, x, b, y in zip(
                forms[0].names,
                forms[0].deviations(),
                forms[1].names,
                forms[1].deviations(),
                strict=True,
            )
        )
        return (
            f"Largest change along a diagonal of each {n} × {n} matrix (0: it depends on "
            "m − n only):<table class='terms'><tr><th>codes added</th><th></th>"
            f"<th>Transformer-XL</th><th></th></tr>{rows}</table>"
        )

    def answer(self, p: Any) -> str:
        changing = changing_terms("absolute", p.terms_len)
        relative = changing_terms("transformer_xl", p.terms_len)
        return (
            f"<b>{len(changing)}</b>: {', '.join(changing)}. Only content·content stays the "
            f"same everywhere. In Transformer-XL's form, {len(relative)} of the four change "
            "along a diagonal: each depends on the offset alone."
        )
