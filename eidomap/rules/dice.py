"""Dice expressions (``NdM+K``) and the distribution of a turn's budget.

>>> d = Dice.parse("1d6")
>>> d.low, d.high
(1, 6)
>>> budget_pmf(d, vmv=2).round(3).tolist()  # P(budget = b), b = 0, 1, ...
[0.0, 0.0, 0.0, 0.167, 0.167, 0.167, 0.167, 0.167, 0.167]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import RequestError

__all__ = ["Dice", "budget_pmf"]

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
