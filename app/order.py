"""Page "Order": why a transformer needs position information at all (O1–O3).

Two editable sentences go through one fixed, seeded attention head
(:mod:`positional_core.attention`). With no position information the output
rows of "man bites dog" are exactly those of "dog bites man", reordered.

What a user types is parsed by the core's ``parse_sentence``; a sentence it
refuses gets the core's message next to its box, and the figures keep the last
valid sentence. Typed text only ever reaches the page escaped (HTML panes via
``escape_text``) or as Bokeh tick labels and tooltips, which are plain text.
"""

from __future__ import annotations

from typing import Any, ClassVar

import holoviews as hv
import numpy as np
import panel as pn
import param
from bokeh.models import CustomJSHover

from positional_core.attention import (
    encode_sentence,
    match_rows,
    order_similarity,
    parse_sentence,
)

from .look import OKABE_ITO, Figure, QuickCheck, escape_text, notice_pane, plot_opts
from .page import Page

__all__ = ["VARIANTS", "OrderPage"]

#: The four ways of (not) giving the layer positions: label → (scheme, causal).
VARIANTS: dict[str, tuple[str, bool]] = {
    "none": ("none", False),
    "sinusoidal": ("sinusoidal", False),
    "rope": ("rope", False),
    "causal": ("none", True),
}
_VARIANT_LABELS = {
    "none": "no positions",
    "sinusoidal": "sinusoidal codes",
    "rope": "RoPE",
    "causal": "causal mask only",
}
_VARIANT_COLORS = {
    "no positions": OKABE_ITO["grey"],
    "sinusoidal codes": OKABE_ITO["blue"],
    "RoPE": OKABE_ITO["vermillion"],
    "causal mask only": OKABE_ITO["green"],
}
#: Longest word shown as a label in the permutation picture (drawing only).
_WORD_CHARS = 14
#: Horizontal gap, in cells, between the two output matrices (room for links).
_GAP = 7


def _similarity_label(value: float) -> str:
    """Three decimals, unless that would print a value below 1 as "1.000"."""
    text = f"{value:.3f}"
    if text == "1.000" and value < 1.0:
        text = f"{value:.6f}"
    return text


def _short(word: str) -> str:
    return word if len(word) <= _WORD_CHARS else word[: _WORD_CHARS - 1] + "…"


class OrderPage(Page):
    """Word order through a single attention head, with and without positions."""

    slug: ClassVar[str] = "order"
    title: ClassVar[str] = "Order"
    intro: ClassVar[str] = (
        "Attention compares every word with every other word, wherever they stand. "
        "Give it the same words in another order and, without position information, "
        "it returns the same vectors in another order: after averaging, "
        "<em>dog bites man</em> and <em>man bites dog</em> are identical to it."
    )

    a = param.String(
        default="dog bites man",
        label="Sentence A",
        doc="2 to 32 words. Press Enter (or leave the box) to apply.",
    )
    b = param.String(
        default="man bites dog",
        label="Sentence B",
        doc="2 to 32 words; try the words of A in another order. Press Enter to apply.",
    )
    scheme = param.Selector(
        default="none",
        objects={label: key for key, label in _VARIANT_LABELS.items()},
        label="Positions in the permutation picture (O3)",
        doc="Which position information the layer gets in figure O3.",
    )

    # The last sentences the core accepted: the figures draw these, so a
    # refused edit leaves the page showing the previous valid state.
    sentence_a = param.String(default="dog bites man", precedence=-1, doc="Last valid A.")
    sentence_b = param.String(default="man bites dog", precedence=-1, doc="Last valid B.")
    error_a = param.List(default=[], item_type=str, precedence=-1, doc="Why A was refused.")
    error_b = param.List(default=[], item_type=str, precedence=-1, doc="Why B was refused.")

    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "scheme": {"type": pn.widgets.RadioButtonGroup, "orientation": "vertical"},
    }

    # ------------------------------------------------------------------ rules
    @classmethod
    def constrain(cls, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes: list[str] = []
        for key in ("a", "b"):
            try:
                parse_sentence(fixed[key])
            except ValueError as err:
                default = cls.param[key].default
                notes.append(f"{key}: {err} Kept “{default}”.")
                fixed[key] = default
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    @param.depends("a", "b", watch=True, on_init=True)
    def _accept_sentences(self) -> None:
        """Commit typed sentences the core accepts; explain the ones it refuses."""
        updates: dict[str, Any] = {}
        for key in ("a", "b"):
            text = getattr(self, key)
            try:
                parse_sentence(text)
            except ValueError as err:
                updates[f"error_{key}"] = [str(err)]
            else:
                updates[f"error_{key}"] = []
                updates[f"sentence_{key}"] = text
        self.param.update(updates)

    # ------------------------------------------------------------- O2 bars
    @param.depends("sentence_a", "sentence_b")
    def _bars(self) -> hv.Overlay:
        rows = [
            (_VARIANT_LABELS[key], order_similarity(self.sentence_a, self.sentence_b, s, c))
            for key, (s, c) in VARIANTS.items()
        ]
        # A leading space keeps the label off the bar's end (an offset transform
        # would act on the categorical axis once the bars are horizontal).
        labels = [(name, value, "  " + _similarity_label(value)) for name, value in rows]
        low = min(0.0, min(v for _, v in rows))
        kdim = hv.Dimension("variant", label="position information")
        vdim = hv.Dimension("cos", label="cosine similarity of the averaged outputs")
        bars = self.style(
            hv.Bars(rows, kdim, vdim),
            "bars bars",
            color=kdim.name,
            cmap=_VARIANT_COLORS,
            invert_axes=True,
            invert_yaxis=True,
            tools=["hover"],
            hover_tooltips=[("variant", "@variant"), ("cosine", "@cos{0.000000}")],
            ylim=(low, 1.32),
            xticks=[x / 5 for x in range(round(low * 5), 6)],
            show_legend=False,
        )
        text = self.style(
            hv.Labels(labels, [kdim, vdim], "text"),
            "bars text",
            invert_axes=True,
            text_align="left",
            text_font_size="12pt",
            text_color=self._ink,
        )
        return bars * text

    # ------------------------------------------------------ O3 permutation
    @param.depends("sentence_a", "sentence_b", "scheme")
    def _permutation(self) -> hv.Overlay:
        scheme, causal = VARIANTS[self.scheme]
        words_a = parse_sentence(self.sentence_a)
        words_b = parse_sentence(self.sentence_b)
        out_a = encode_sentence(self.sentence_a, scheme, causal)
        out_b = encode_sentence(self.sentence_b, scheme, causal)
        matches = match_rows(out_a, out_b)
        d = out_a.shape[1]
        offset = d + _GAP
        # Colour scale (drawing only): symmetric, shared by both matrices.
        limit = float(max(np.abs(out_a).max(), np.abs(out_b).max())) or 1.0
        value = hv.Dimension("out", label="output value")
        row = hv.Dimension("row", label="word (row)")

        def image(out: np.ndarray, x0: float, name: str) -> hv.Image:
            fmt = CustomJSHover(code=f"return (value - {x0}).toFixed(0)")
            return self.style(
                hv.Image(
                    (np.arange(out.shape[1]) + x0, np.arange(out.shape[0]), out.astype(np.float32)),
                    kdims=[hv.Dimension("x", label="output dimension"), row],
                    vdims=[value],
                ),
                "permutation image",
                cmap="RdBu_r",
                clim=(-limit, limit),
                tools=["hover"],
                hover_tooltips=[
                    ("sentence", name),
                    ("row", "$y{0}"),
                    ("dimension", "$x{custom}"),
                    ("value", "@image{0.000}"),
                ],
                hover_formatters={"$x": fmt},
            )

        n = max(len(words_a), len(words_b))
        links = [(d - 0.4, i, offset - 0.6, j) for i, j in enumerate(matches) if j is not None]
        segments = self.style(
            hv.Segments(links, kdims=["x0", "y0", "x1", "y1"]),
            "permutation segments",
            color=OKABE_ITO["green"],
            line_width=3,
            tools=[],
        )
        right_words = self.style(
            hv.Labels(
                [(offset + d + 0.2, j, _short(w)) for j, w in enumerate(words_b)],
                ["x", "row"],
                "word",
            ),
            "permutation right_words",
            text_align="left",
            text_font_size="11pt",
            text_color=self._ink,
            tools=[],
        )
        if links:
            status = f"{len(links)} of {len(words_a)} rows of A reappear in B"
        else:
            status = "no row of A reappears in B"
        headline = self.style(
            hv.Labels(
                [
                    (d / 2 - 0.5, -1.1, "A"),
                    (offset + d / 2 - 0.5, -1.1, "B"),
                    (d + _GAP / 2 - 0.5, n + 0.2, status),
                ],
                ["x", "row"],
                "word",
            ),
            "permutation headline",
            text_font_size="11pt",
            text_color=self._ink,
            text_baseline="middle",
            tools=[],
        )
        yticks = [(i, _short(w)) for i, w in enumerate(words_a)]
        xticks = [(x, str(x)) for x in range(0, d, 5)] + [
            (offset + x, str(x)) for x in range(0, d, 5)
        ]
        return self.style(
            image(out_a, 0, "A") * image(out_b, offset, "B") * segments * right_words * headline,
            "permutation",
            invert_yaxis=True,
            yticks=yticks,
            xticks=xticks,
            xlim=(-0.5, offset + d + 6),
            ylim=(-1.7, n + 0.7),
            ylabel="word of A (row)",
            xlabel="output dimension",
            framewise=True,
        )

    # ---------------------------------------------------------------- views
    def controls(self) -> pn.viewable.Viewable:
        """Text boxes with their messages right under them, then the scheme."""
        if self._controls is None:
            self._controls = pn.Column(
                pn.widgets.TextInput.from_param(
                    self.param.a, placeholder="e.g. dog bites man", sizing_mode="stretch_width"
                ),
                notice_pane(self.param.error_a, kind="error"),
                pn.widgets.TextInput.from_param(
                    self.param.b, placeholder="e.g. man bites dog", sizing_mode="stretch_width"
                ),
                notice_pane(self.param.error_b, kind="error"),
                pn.pane.Markdown(self.param.scheme.label, margin=(10, 10, 0, 10)),
                pn.widgets.RadioButtonGroup.from_param(
                    self.param.scheme,
                    orientation="vertical",
                    color="primary",
                    variant="outline",
                    sizing_mode="stretch_width",
                ),
                sizing_mode="stretch_width",
                margin=0,
            )
        return self._controls

    @param.depends("sentence_a", "sentence_b")
    def _bars_readout(self) -> str:
        none = order_similarity(self.sentence_a, self.sentence_b, "none")
        a, b = escape_text(self.sentence_a, 80), escape_text(self.sentence_b, 80)
        if _similarity_label(none) == "1.000":
            why = (
                "B uses the same words as A, so without positions the layer cannot tell "
                "them apart: the similarity is exactly 1."
            )
        else:
            why = (
                "B does not use the same words as A, so even without positions the "
                "outputs differ. Type the words of A in another order to see the effect."
            )
        return f"A = “{a}”, B = “{b}”. {why}"

    def _build_figures(self) -> dict[str, Figure]:
        bars = self.in_place(self._bars).opts(hv.opts.Overlay(**plot_opts(height=320)))
        picture = self.in_place(self._permutation).opts(hv.opts.Overlay(**plot_opts(height=320)))
        return {
            "similarity": Figure(
                title="O2 · Does the layer see the word order?",
                plot=bars,
                caption=(
                    "The attention layer turns each word into an output vector; averaging "
                    "them gives one vector per sentence. The bars compare the two "
                    "sentences' vectors. With no position information the similarity is "
                    "exactly 1 whenever B reorders A's words. Sinusoidal codes, RoPE and even "
                    "a causal mask alone (each word sees only earlier words) pull it below 1."
                ),
                formula=(
                    r"$$\begin{gathered}\bar o = \frac1n\sum_{i=1}^{n} \mathrm{softmax}\!\Big("
                    r"\frac{q_i K^\top}{\sqrt d}\Big)V \\"
                    r"\cos(\bar o_A, \bar o_B) = \frac{\bar o_A\cdot\bar o_B}"
                    r"{\lVert\bar o_A\rVert\,\lVert\bar o_B\rVert}\end{gathered}$$"
                ),
                controls=("a", "b"),
                readout=pn.pane.HTML(
                    self._bars_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
            ),
            "permutation": Figure(
                title="O3 · The same rows, reordered",
                plot=picture,
                caption=(
                    "Left: the layer's output for each word of A (one row per word, 16 "
                    "numbers per row); right: the same for B. A green line joins two rows "
                    "that are exactly equal. With no positions every row of A reappears in "
                    "B, in B's order: attention is permutation-equivariant. Choose another "
                    "scheme and the lines disappear: each word's output now depends on "
                    "where it stands."
                ),
                formula=(
                    r"$$\mathrm{Attn}(P X) = P\,\mathrm{Attn}(X)"
                    r"\quad\text{for every permutation matrix } P$$"
                ),
                controls=("a", "b", "scheme"),
            ),
        }

    # ----------------------------------------------------------- quick check
    @param.depends("sentence_a", "sentence_b")
    def _quick_answer(self) -> str:
        values = {
            key: order_similarity(self.sentence_a, self.sentence_b, s, c)
            for key, (s, c) in VARIANTS.items()
        }
        return (
            f"With no positions: <b>{_similarity_label(values['none'])}</b>. For a reordering "
            "of the same words it is exactly 1: the rows are the same vectors in another "
            "order, and an average ignores order. Here, sinusoidal codes give "
            f"{_similarity_label(values['sinusoidal'])}, RoPE "
            f"{_similarity_label(values['rope'])} and a causal mask alone "
            f"{_similarity_label(values['causal'])}."
        )

    def _build_quick_check(self) -> QuickCheck:
        return QuickCheck(
            question=(
                "Reorder the words of sentence A to make B. Before looking at O2: what is "
                "the cosine similarity of the two averaged outputs when the layer gets no "
                "position information?"
            ),
            answer=self._quick_answer,
        )

    def _arrange(self, cards: list[pn.viewable.Viewable]) -> pn.viewable.Viewable:
        return pn.GridBox(*cards, ncols=2, sizing_mode="stretch_width")
