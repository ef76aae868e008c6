"""Dice expressions (``NdM+K``) and the distributions of turn budgets.

>>> d = Dice.parse("1d6")
>>> d.low, d.high
(1, 6)
>>> budget_pmf(d, vmv=2).round(3).tolist()  # P(budget = b), b = 0, 1, ...
[0.0, 0.0, 0.0, 0.167, 0.167, 0.167, 0.167, 0.167, 0.167]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import RequestError

__all__ = ["Dice", "arrival_cdf", "budget_pmf", "expected_turns_table"]

_PATTERN = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$")
MAX_DICE = 100
MAX_SIDES = 1000


@dataclass(frozen=True)
class Dice:
    """``n`` dice of ``sides`` faces plus ``plus``: the roll made each turn."""

    n: int = 1
    sides: int = 6
    plus: int = 0

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Read ``"1d6"``, ``"2d6+1"``, ``"d8-2"``..."""
        m = _PATTERN.match(text or "")
        if not m:
            raise RequestError(f"dice {text!r} is not of the form NdM+K (such as 1d6 or 2d6+1)")
        n = int(m.group(1) or 1)
        sides = int(m.group(2))
        plus = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
        if not (1 <= n <= MAX_DICE and 1 <= sides <= MAX_SIDES):
            raise RequestError(f"dice {text!r}: use 1 to {MAX_DICE} dice of 1 to {MAX_SIDES} sides")
        return cls(n, sides, plus)

    @property
    def low(self) -> int:
        return self.n + self.plus

    @property
    def high(self) -> int:
        return self.n * self.sides + self.plus

    def check_roll(self, roll: int) -> int:
        """``roll`` itself, or :class:`RequestError` if the dice cannot show it."""
        if isinstance(roll, bool) or not isinstance(roll, int | np.integer) or not self.low <= roll <= self.high:
            raise RequestError(f"roll {roll!r} is outside the range of {self} ({self.low} to {self.high})")
        return int(roll)

    def pmf(self) -> np.ndarray:
        """P(roll = low + i) for i = 0 .. high - low."""
        one = np.full(self.sides, 1.0 / self.sides)
        out = np.ones(1)
        for _ in range(self.n):
            out = np.convolve(out, one)
        return out

    def __str__(self) -> str:
        tail = f"{self.plus:+d}" if self.plus else ""
        return f"{self.n}d{self.sides}{tail}"


def budget_pmf(dice: Dice, vmv: int) -> np.ndarray:
    """P(budget = b) for b = 0, 1, ...: budget = max(0, roll + VMv)."""
    p = dice.pmf()
    lows = dice.low + vmv
    out = np.zeros(max(dice.high + vmv, 0) + 1)
    values = np.maximum(np.arange(lows, lows + len(p)), 0)
    np.add.at(out, values, p)
    return out


def arrival_cdf(budget: np.ndarray, thresholds: np.ndarray, turns: int) -> np.ndarray:
    """P(the budgets of the first k turns add up to at least each threshold).

    Returns an array of shape ``(turns, len(thresholds))``: row ``k - 1`` is
    P(S_k >= threshold) where S_k is the sum of k independent budgets drawn
    from ``budget``.  A threshold of 0 is met at once (probability 1); an
    infinite one never.  Both tails are summed directly and normalised, so a
    probability that is exactly 0 or 1 comes out as 0 or 1.
    """
    thresholds = np.asarray(thresholds, dtype=float)
    finite = np.isfinite(thresholds)
    top = int(thresholds[finite].max()) if finite.any() else 0
    top = min(top, turns * (len(budget) - 1) + 1)
    table = _reach_table(np.asarray(budget, dtype=float).tobytes(), top, turns)
    idx = np.where(finite, np.minimum(thresholds, top + 1), top + 2).astype(np.intp)
    return table[:, idx]


@lru_cache(maxsize=64)
def _reach_table(budget_bytes: bytes, top: int, turns: int) -> np.ndarray:
    """P(S_k >= t) for k = 1..turns and t = 0..top+1, then a column of 0 for "never".

    Depends only on the dice and the range of thresholds, so repeated
    questions (an analyst's batch, a heatmap per species) reuse it.
    """
    budget = np.frombuffer(budget_bytes, dtype=float)
    table = np.zeros((turns, top + 3))
    s = np.zeros(top + 2)  # pmf of S_k over 0..top, and everything above top in the last bin
    s[0] = 1.0
    for k in range(turns):
        grown = np.convolve(s[:-1], budget)
        over = s[-1] + grown[top + 1 :].sum()
        s = np.r_[grown[: top + 1], np.zeros(max(0, top + 1 - len(grown))), over]
        tail = np.cumsum(s[::-1])[::-1]  # tail[t] = P(S_k >= t)
        below = np.cumsum(s)[: top + 2] - s[: top + 2]  # below[t] = P(S_k < t)
        table[k, : top + 2] = tail / (tail + below)
    np.clip(table, 0.0, 1.0, out=table)
    table.flags.writeable = False
    return table


def expected_turns_table(budget: np.ndarray, top: int) -> np.ndarray:
    """E[first k with S_k >= t] for every threshold t = 0 .. top.

    ``E = sum_{k >= 0} P(S_k < t)``; the renewal recursion
    ``m(t) = 1 + sum_b P(b) m(t - b)`` (with ``m(t) = 0`` for ``t <= 0``) gives all
    thresholds at once.  Budgets of 0 are handled by conditioning them out.
    The table is kept for the next question with the same dice.
    """
    return _renewal(np.asarray(budget, dtype=float).tobytes(), int(top))


@lru_cache(maxsize=64)
def _renewal(budget_bytes: bytes, top: int) -> np.ndarray:
    budget = np.frombuffer(budget_bytes, dtype=float)
    p0 = budget[0]
    if p0 >= 1.0:
        m = np.r_[0.0, np.full(top, np.inf)]
    else:
        m = np.zeros(top + 1)
        b = np.arange(1, len(budget))
        pb = budget[1:]
        for t in range(1, top + 1):
            m[t] = (1.0 + np.dot(pb, m[np.maximum(t - b, 0)])) / (1.0 - p0)
    m.flags.writeable = False
    return m
