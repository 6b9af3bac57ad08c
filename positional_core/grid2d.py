"""Positions in two dimensions: a grid of image patches (vision and diffusion transformers).

A 224 × 224 image cut into 16 × 16 patches is a 14 × 14 grid; each patch
needs a position. Three ways, compared by the score of one patch with every
other:

* **2-D sine–cosine codes** (MAE, He et al. 2021, ``get_2d_sincos_pos_embed``;
  DiT uses the same code): half of the d dimensions hold a 1-D sinusoidal
  code of the column, the other half one of the row. Each half is MAE's 1-D
  code: d/4 sines, then d/4 cosines of ``position · ω_k``,
  ``ω_k = 1 / base^(k / (d/4))``. The dot product of two codes is a sum of
  cosines of Δcolumn and Δrow: it depends on (Δrow, Δcol) only.
* **2-D RoPE** (as in vision RoPE variants): the d/2 pairs of a head are split,
  the first half turned by the row index, the second by the column index,
  each half with its own d/4 speeds ``θ_k = base^(−2k/(d/2))``. A query's and a
  key's score then depends on their contents and (Δrow, Δcol) only.
* **A 1-D code in reading order** (row by row): patch (r, c) is position
  ``r · W + c``. The patch just below is W positions away, farther than the
  one at the end of the same row.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_base, check_count, check_even_dim
from .rope import apply_rope, random_query_key
from .sinusoidal import sinusoidal_encoding

__all__ = [
    "GRID_SCHEMES",
    "grid_positions",
    "patch_scores",
    "rope_2d",
    "sincos_2d",
]

#: Largest grid side (patches per row or column).
MAX_GRID = 64
#: The schemes of :func:`patch_scores`.
GRID_SCHEMES = ("sincos_2d", "rope_2d", "sincos_1d")


def grid_positions(height: int, width: int) -> np.ndarray:
    """(row, column) of every patch in reading order: shape (height · width, 2).

    >>> grid_positions(2, 3).tolist()
    [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    """
    height = check_count("height", height, high=MAX_GRID)
    width = check_count("width", width, high=MAX_GRID)
    rows, cols = np.divmod(np.arange(height * width), width)
    return np.stack([rows, cols], axis=1)


def _mae_1d(d: int, positions: np.ndarray, base: float) -> np.ndarray:
    """MAE's 1-D code: d/2 sines then d/2 cosines of position · ω_k (``d`` even)."""
    omega = 1.0 / base ** (np.arange(d // 2) / (d / 2))
    angles = np.outer(positions, omega)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def sincos_2d(height: int, width: int, d: int, base: float = 10000.0) -> np.ndarray:
    """MAE's 2-D sine–cosine code of every patch: shape (height · width, d).

    Columns ``0 … d/2 − 1`` code the column index, ``d/2 … d − 1`` the row index
    (MAE's code calls the first half ``emb_h`` but fills it from the column
    coordinate of its meshgrid; the dot products do not depend on the order).

    >>> code = sincos_2d(14, 14, 64)
    >>> code.shape, bool(np.allclose(code[0, 16:32], 1.0))  # patch (0, 0): cos 0 = 1
    ((196, 64), True)
    """
    d = check_even_dim("d", d)
    if d % 4:
        raise ValueError(f"d must be a multiple of 4 (a sine and a cosine per axis), got {d}")
    base = check_base("base", base)
    grid = grid_positions(height, width)
    return np.concatenate(
        [_mae_1d(d // 2, grid[:, 1], base), _mae_1d(d // 2, grid[:, 0], base)], axis=1
    )


def rope_2d(x: np.ndarray, height: int, width: int, base: float = 10000.0) -> np.ndarray:
    """Turn each patch's vector (rows of ``x``, reading order): the first d/4 pairs by
    the row index, the last d/4 by the column index (interleaved pairs).

    >>> x = np.ones((4, 8))
    >>> bool(np.allclose(rope_2d(x, 2, 2)[0], x[0]))  # patch (0, 0) is not turned
    True
    """
    x = np.asarray(x, dtype=float)
    grid = grid_positions(height, width)
    if x.ndim != 2 or x.shape[0] != grid.shape[0]:
        raise ValueError(f"x must have one row per patch ({grid.shape[0]}), got {x.shape}")
    d = check_even_dim("d", x.shape[1])
    if d % 4:
        raise ValueError(f"d must be a multiple of 4 (pairs for the rows and the columns), got {d}")
    half = d // 2
    return np.concatenate(
        [apply_rope(x[:, :half], grid[:, 0], base), apply_rope(x[:, half:], grid[:, 1], base)],
        axis=1,
    )


def patch_scores(
    scheme: str,
    patch: tuple[int, int],
    height: int = 14,
    width: int = 14,
    d: int = 64,
    base: float = 10000.0,
    seed: int = 0,
) -> np.ndarray:
    """The score of patch ``patch`` (row, column) with every patch: shape (height, width).

    ``sincos_2d`` and ``sincos_1d``: the dot product of the codes (the 1-D code
    of the reading-order index, interleaved as
    :func:`~positional_core.sinusoidal_encoding`). ``rope_2d``: the dot product
    of a seeded query (at ``patch``) and the same seeded key content at every
    patch, each turned by :func:`rope_2d`.

    >>> s = patch_scores("sincos_1d", (5, 5))
    >>> bool(s[5, 6] > s[6, 5])  # the next in the row is nearer than the one below
    True
    """
    if scheme not in GRID_SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(GRID_SCHEMES)}, got {scheme!r}")
    grid = grid_positions(height, width)
    row = check_count("patch row", patch[0], low=0, high=height - 1)
    col = check_count("patch column", patch[1], low=0, high=width - 1)
    index = row * width + col
    if scheme == "sincos_2d":
        code = sincos_2d(height, width, d, base)
        scores = code @ code[index]
    elif scheme == "sincos_1d":
        code = sinusoidal_encoding(grid.shape[0], check_even_dim("d", d), check_base("base", base))
        scores = code @ code[index]
    else:
        q, k = random_query_key(d, seed)
        keys = rope_2d(np.tile(k, (grid.shape[0], 1)), height, width, base)
        query = rope_2d(np.tile(q, (grid.shape[0], 1)), height, width, base)[index]
        scores = keys @ query
    return scores.reshape(height, width)
