"""The schemes compared, left to right: what each adds, where position enters, its texts.

Adding a scheme takes a :class:`SchemeColumn` here (its key names the
``compare_order_similarity`` scheme of its order check: extend the core's
``COMPARE_SCHEMES`` if it is not there yet), its verdict in :mod:`.verdicts` and its
figure (a chart module).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from positional_core.attention import ORDER_PAIR
from positional_core.presets import model_config
from positional_core.relative import t5_bucket_regions

__all__ = [
    "ORDER_PAIR",
    "SCHEME_COLUMNS",
    "T5_HEADS",
    "T5_LAST_BUCKET",
    "T5_SETTINGS",
    "SchemeColumn",
    "column",
]

#: The T5 column's model: T5-base's encoder (bidirectional), from the shipped config.
_T5_CONFIG = model_config("t5-base")
T5_SETTINGS: dict[str, Any] = {
    "num_buckets": int(_T5_CONFIG["relative_attention_num_buckets"]),
    "max_distance": int(_T5_CONFIG["relative_attention_max_distance"]),
    "bidirectional": True,
}
T5_HEADS = int(_T5_CONFIG["num_heads"])
#: Where each direction's last bucket starts (91 for T5-base).
T5_LAST_BUCKET = t5_bucket_regions(**T5_SETTINGS).last_bucket_start


@dataclass(frozen=True)
class SchemeColumn:
    """One scheme of the comparison: its texts and how to check its order blindness
    (``order_causal``: with the causal mask the scheme is used with)."""

    key: str
    title: str
    enters: str
    depends: str
    caption: str
    formula: str
    order_causal: bool = False
    #: The ``compare_order_similarity`` scheme its order check runs ("": its key).
    order_as: str = ""

    @property
    def order_scheme(self) -> str:
        """The ``compare_order_similarity`` scheme of its order check."""
        return self.order_as or self.key


SCHEME_COLUMNS: tuple[SchemeColumn, ...] = (
    SchemeColumn(
        key="learned",
        title="Learned table",
        enters="a trained row added to each input vector",
        depends="absolute positions i and j (through their rows)",
        caption=(
            "A learned table (GPT-2, BERT) has one trained row per position 0 … L − 1. "
            "Positions from L on (vermillion) have no row at all: past L the model "
            "cannot even be run."
        ),
        formula=(
            r"$$\begin{gathered}x_t = e_{w_t} + W[t] \\ "
            r"W\in\mathbb{R}^{L\times d},\ \ t < L\end{gathered}$$"
        ),
    ),
    SchemeColumn(
        key="sinusoidal",
        title="Sinusoidal codes",
        enters="a fixed code added to each input vector",
        depends="absolute positions (the code mixes with the content)",
        caption=(
            "The slowest (sin, cos) pair of the code as a point on a circle. In training "
            "it only moved along the blue arc; up to L′ it goes on along the vermillion "
            "arc, to codes the model has never seen."
        ),
        formula=(
            r"$$\begin{gathered}PE(t)_{2i} = \sin(t\,\omega_i) \\ "
            r"PE(t)_{2i+1} = \cos(t\,\omega_i) \\ "
            r"\omega_i = \mathrm{base}^{-2i/d}\end{gathered}$$"
        ),
    ),
    SchemeColumn(
        key="rope",
        title="RoPE",
        enters="a rotation of each query and key",
        depends="the offset m − n only",
        caption=(
            "Per pair, how far its angles at L′ go beyond the largest angle seen in "
            "training (1 = the trained edge), with no change, with position "
            "interpolation and with the NTK-aware base. Pairs in the grey zone completed "
            "a turn in training and have seen every angle."
        ),
        formula=(
            r"$$\begin{gathered}\text{pair } i \text{ out of band:} \\ "
            r"\theta_i L < 2\pi\ \text{ and }\ \theta'_i L' > \theta_i L\end{gathered}$$"
        ),
    ),
    SchemeColumn(
        key="alibi",
        title="ALiBi",
        enters="a penalty added to each attention score",
        depends="the distance i − j only",
        caption=(
            "The bias of the shallowest head against distance, for the last query of a "
            "training-length input (blue) and of a target-length input (dashed). They lie "
            "on one line: past L there are only longer distances, never a new bias for "
            "a distance already seen."
        ),
        formula=r"$$\begin{gathered}b_{ij} = -m_h\,(i - j) \\ m_h = 2^{-8h/H}\end{gathered}$$",
        order_causal=True,
    ),
    SchemeColumn(
        key="t5",
        title="T5 relative buckets",
        enters="a learned scalar bias per (bucket of j − i, head) added to each score",
        depends="q·k plus the bucket of j − i",
        caption=(
            "T5-base's bucket for each distance between key and query (log scale), for "
            "keys after the query and before it. Near distances get a "
            "bucket each, far ones share wider buckets, and from "
            f"{T5_LAST_BUCKET} on every distance shares the last bucket: "
            "past L there are only longer distances in a bucket already trained."
        ),
        formula=(
            r"$$\begin{gathered}\mathrm{score}_{ij} = q_i\cdot k_j + \beta^{(h)}_{b(j-i)} \\ "
            r"b(\Delta) = \text{last bucket for } |\Delta| \ge "
            f"{T5_LAST_BUCKET}"
            r"\end{gathered}$$"
        ),
    ),
    # DroPE is not among the core's order schemes: a model with RoPE dropped is the
    # causal layer with no positions, which is what its order check runs.
    SchemeColumn(
        key="drope",
        title="DroPE (RoPE dropped)",
        enters="nowhere: RoPE's rotations are removed after training",
        depends="q·k only; position comes from the causal mask",
        caption=(
            "DroPE trains with RoPE, then removes the rotations and recalibrates briefly "
            "at L (Gelberg et al. 2025, arXiv 2512.12167). No pair turns, so none can "
            "leave its band. What is left is the causal mask: query i spreads its weight "
            "over the i + 1 keys it sees (log axes), a line that goes on past L (dashed)."
        ),
        formula=(
            r"$$\begin{gathered}\theta'_i = 0 \ \Rightarrow\ R(\theta'_i m) = I \\ "
            r"w_{ij} = \tfrac{1}{i+1}\ \ (j \le i)\end{gathered}$$"
        ),
        order_causal=True,
        order_as="none",
    ),
)


def column(key: str) -> SchemeColumn:
    """The column of scheme ``key``."""
    return next(c for c in SCHEME_COLUMNS if c.key == key)
