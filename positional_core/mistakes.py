"""Classic RoPE mistakes, each measured by what it breaks.

* **RoPE on the values.** RoPE belongs on queries and keys: their scores then
  depend on the offset m − n only, so moving the whole sentence by k
  positions changes nothing. Rotating the values too makes each output a sum
  of vectors turned by their *absolute* positions: the same sentence, moved
  by k, gives another output. :func:`shift_changes` measures both.
* **Frequencies from the model width.** The speeds are θ_i = base^(−2i/d)
  with d the *head* size d_k. Computing them with the model width D (4,096 for
  Llama 2 7B instead of d_k = 128) keeps the first d_k/2 of D/2 speeds: every
  pair turns much faster than trained for, the slowest wavelengths shrink by
  a factor of about base^(1 − d_k/D), and the pairs that meet unseen angles at
  a longer context are not the ones the model has. :func:`width_mistake`.

(The interleaved / half-split layout mix-up is RoPE's R4 figure.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_base, check_count, check_even_dim
from .attention import scaled_dot_product_attention
from .extension import out_of_band
from .rope import apply_rope, rope_frequencies

__all__ = ["WidthMistake", "shift_changes", "width_mistake"]

#: Largest sentence and shift of :func:`shift_changes` (T × T scores per shift).
MAX_SHIFT_TOKENS = 256
MAX_SHIFT = 4_096


def _head(d: int, n_tokens: int, seed: int) -> tuple[np.ndarray, ...]:
    """Seeded queries, keys and values of one sentence: (T, d) each."""
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((n_tokens, d)) for _ in range(3))


def shift_changes(
    shifts: object,
    n_tokens: int = 8,
    d: int = 16,
    base: float = 10000.0,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """How much one head's outputs change when the whole sentence moves by k positions.

    The sentence's tokens sit at positions ``k … k + T − 1``; RoPE turns the
    queries and keys (right) or the queries, keys and values (the mistake).

    Parameters
    ----------
    shifts : array_like of int
        The shifts k, each ``0 ≤ k ≤ MAX_SHIFT``.
    n_tokens, d, base, seed
        The sentence's length, the head size (even), RoPE's base, and the seed
        of the random queries, keys and values.

    Returns
    -------
    (right, values_too) : two numpy.ndarray of shape (len(shifts),)
        The largest |output(k) − output(0)| over the tokens and dimensions.

    Examples
    --------
    >>> right, wrong = shift_changes([0, 1, 10])
    >>> bool(np.all(right < 1e-12)), bool(wrong[0] == 0 and np.all(wrong[1:] > 0.1))
    (True, True)
    """
    ks = np.asarray(shifts)
    if ks.ndim != 1 or ks.size == 0 or not np.issubdtype(ks.dtype, np.integer):
        raise ValueError("shifts must be a non-empty list of whole numbers")
    if ks.size > MAX_SHIFT or ks.min() < 0 or ks.max() > MAX_SHIFT:
        raise ValueError(f"shifts must be from 0 to {MAX_SHIFT}, at most {MAX_SHIFT} of them")
    n_tokens = check_count("n_tokens", n_tokens, low=1, high=MAX_SHIFT_TOKENS)
    d = check_even_dim("d", d, high=1_024)
    base = check_base("base", base)
    q, k, v = _head(d, n_tokens, check_count("seed", seed, low=0, high=2**32 - 1))

    def outputs(shift: int, rotate_values: bool) -> np.ndarray:
        positions = np.arange(shift, shift + n_tokens)
        turned = [apply_rope(x, positions, base) for x in (q, k)]
        values = apply_rope(v, positions, base) if rotate_values else v
        return scaled_dot_product_attention(turned[0], turned[1], values)[0]

    changes = np.zeros((2, ks.size))
    for column, rotate_values in enumerate((False, True)):
        start = outputs(0, rotate_values)
        for i, shift in enumerate(ks):
            changes[column, i] = np.max(np.abs(outputs(int(shift), rotate_values) - start))
    return changes[0], changes[1]


@dataclass(frozen=True)
class WidthMistake:
    """The speeds of a head's pairs computed from d_k (right) and from D (the mistake)."""

    right: np.ndarray  # θ_i = base^(−2i/d_k), i < d_k/2
    wrong: np.ndarray  # θ_i = base^(−2i/D),   i < d_k/2
    out_of_band_right: np.ndarray  # bool per pair at the longer context
    out_of_band_wrong: np.ndarray

    @property
    def wavelengths(self) -> tuple[np.ndarray, np.ndarray]:
        """2π/θ of each pair, right and wrong (positions per turn)."""
        return 2 * np.pi / self.right, 2 * np.pi / self.wrong


def width_mistake(
    d_model: int, d_head: int, trained_len: int, target_len: int, base: float = 10000.0
) -> WidthMistake:
    """Right and wrong speeds of one head, and which pairs leave their band at ``target_len``.

    Examples
    --------
    Llama 2 7B (D = 4,096, d_k = 128, trained on 4,096 positions) read at 16,384:

    >>> w = width_mistake(4096, 128, 4096, 16384)
    >>> int(w.out_of_band_right.sum()), int(w.out_of_band_wrong.sum())
    (18, 0)
    >>> round(float(w.wavelengths[0][-1])), round(float(w.wavelengths[1][-1]))
    (54410, 8)
    """
    d_model = check_even_dim("d_model", d_model)
    d_head = check_even_dim("d_head", d_head, high=d_model)
    right = rope_frequencies(d_head, base)
    wrong = rope_frequencies(d_model, base)[: d_head // 2]
    return WidthMistake(
        right,
        wrong,
        out_of_band(right, trained_len, target_len),
        out_of_band(wrong, trained_len, target_len),
    )
