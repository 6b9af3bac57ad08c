"""Learned absolute position tables (GPT-2, BERT).

A learned table is a plain parameter matrix with one row per position,
``max_len × d``, added to the token embeddings. It has a row only for the
positions seen when the model was built: GPT-2 has 1,024 rows of 768 numbers
(786,432 parameters), BERT 512 rows. Position ``max_len`` simply has no row —
the model cannot be run past its table, unlike sinusoidal codes or RoPE.

The table here is a stand-in for a trained one: drawn from
``numpy.random.default_rng(seed)`` with N(0, 0.02²) entries, GPT-2's
initialisation.

Limits: ``max_len ≤ MAX_POSITION``, ``d ≤ MAX_DIM`` and
``max_len · d ≤ MAX_ELEMENTS`` (2**26) when the table is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._validation import MAX_DIM, check_count, check_finite_array, check_size

__all__ = [
    "INIT_STD",
    "LearnedPositionTable",
    "PositionOutOfRangeError",
    "learned_parameter_count",
    "missing_positions",
]

#: Standard deviation of the initial entries (GPT-2's ``initializer_range``).
INIT_STD = 0.02


class PositionOutOfRangeError(ValueError):
    """A position has no row in a learned table (it is ``≥ max_len`` or negative)."""


def learned_parameter_count(max_len: int, d: int) -> int:
    """Number of parameters of a ``max_len × d`` position table.

    Parameters
    ----------
    max_len : int
        Rows, ``1 ≤ max_len ≤ MAX_POSITION``.
    d : int
        Columns, ``1 ≤ d ≤ MAX_DIM``.

    Returns
    -------
    int

    Examples
    --------
    >>> learned_parameter_count(1024, 768)  # GPT-2
    786432
    """
    max_len = check_count("max_len", max_len)
    d = check_count("d", d, high=MAX_DIM)
    return max_len * d


def missing_positions(max_len: int, seq_len: int) -> int:
    """How many of the positions ``0 … seq_len − 1`` have no row in a ``max_len``-row table.

    Parameters
    ----------
    max_len : int
        Rows of the table, ``1 ≤ max_len ≤ MAX_POSITION``.
    seq_len : int
        Length of the input, ``1 ≤ seq_len ≤ MAX_POSITION``.

    Returns
    -------
    int
        ``max(0, seq_len − max_len)``: positions ``max_len … seq_len − 1``.

    Examples
    --------
    >>> missing_positions(1024, 4096)  # GPT-2 run on 4,096 tokens
    3072
    >>> missing_positions(512, 100)
    0
    """
    max_len = check_count("max_len", max_len)
    seq_len = check_count("seq_len", seq_len)
    return max(0, seq_len - max_len)


@dataclass(frozen=True)
class LearnedPositionTable:
    """A ``max_len × d`` table of position vectors, built from a seed.

    Parameters
    ----------
    max_len : int
        Number of positions (rows), ``1 ≤ max_len ≤ MAX_POSITION``.
    d : int
        Model dimension, ``1 ≤ d ≤ MAX_DIM``.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``; same seed, same table.

    Attributes
    ----------
    table : numpy.ndarray, shape (max_len, d)
        Read-only; built on first access (``max_len · d ≤ MAX_ELEMENTS``).
    n_parameters : int
        ``max_len · d``; available without building the table.

    Examples
    --------
    >>> gpt2 = LearnedPositionTable(1024, 768)
    >>> gpt2.n_parameters
    786432
    >>> gpt2.lookup(1023).shape
    (768,)
    >>> try:
    ...     gpt2.lookup(1024)
    ... except PositionOutOfRangeError as error:
    ...     print(error)
    position 1024 has no row: the table has rows 0…1023
    """

    max_len: int
    d: int
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_len", check_count("max_len", self.max_len))
        object.__setattr__(self, "d", check_count("d", self.d, high=MAX_DIM))
        object.__setattr__(self, "seed", check_count("seed", self.seed, low=0, high=2**63 - 1))

    @property
    def n_parameters(self) -> int:
        """Number of learned numbers, ``max_len · d``."""
        return self.max_len * self.d

    @cached_property
    def table(self) -> np.ndarray:
        """The ``(max_len, d)`` table, N(0, 0.02²) entries, read-only."""
        check_size("the learned table (max_len × d)", self.n_parameters)
        table = np.random.default_rng(self.seed).normal(0.0, INIT_STD, (self.max_len, self.d))
        table.setflags(write=False)
        return table

    def has_row(self, position: int) -> bool:
        """True when ``position`` is a whole number in ``0 … max_len − 1``.

        Raises ``ValueError`` only for something that is not a number.

        Examples
        --------
        >>> LearnedPositionTable(512, 8).has_row(512)
        False
        """
        try:
            self._check_positions(position)
        except PositionOutOfRangeError:
            return False
        return True

    def _check_positions(self, position: object) -> np.ndarray:
        positions = check_finite_array("position", position)
        if positions.ndim > 1:
            raise ValueError(
                f"position must be a whole number or a 1-D array, got shape {positions.shape}"
            )
        rows = f"the table has rows 0…{self.max_len - 1}"
        fractional = positions[positions != np.round(positions)]
        if fractional.size:
            raise PositionOutOfRangeError(
                f"position {fractional.flat[0]:g} has no row: {rows} (whole positions only)"
            )
        outside = positions[(positions < 0) | (positions >= self.max_len)]
        if outside.size:
            raise PositionOutOfRangeError(f"position {outside.flat[0]:.0f} has no row: {rows}")
        return positions.astype(np.int64)

    def lookup(self, position: int | object) -> np.ndarray:
        """The row of ``position`` (or rows of an array of positions).

        Parameters
        ----------
        position : int or array_like of int, shape (n,)
            Whole numbers in ``0 … max_len − 1``.

        Returns
        -------
        numpy.ndarray, shape (d,) or (n, d)
            A read-only view for one position, a new array for several.

        Raises
        ------
        PositionOutOfRangeError
            (a ``ValueError``) for a position with no row.

        Examples
        --------
        >>> LearnedPositionTable(4, 2).lookup([0, 3]).shape
        (2, 2)
        """
        positions = self._check_positions(position)
        if positions.ndim == 0:
            return self.table[int(positions)]  # a read-only view of the row
        return self.table[positions]
