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

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.params import MAX_DIGITS

# Dice are written with the digits 0-9 and ASCII blanks, as every number a person types
# (:func:`eidomap.base.params.read_whole`), here and in the planner pages (``Dice.parse``).
_BLANK = "[ \t\n\r\f\v]*"
_PATTERN = re.compile(f"{_BLANK}([0-9]*){_BLANK}[dD]{_BLANK}([0-9]+){_BLANK}(?:([+-]){_BLANK}([0-9]+))?{_BLANK}")
MAX_DICE = 100
MAX_SIDES = 1000
#: Largest modifier ``K`` either way: no larger than the highest roll (``MAX_DICE`` x ``MAX_SIDES``), so a
#: turn's budget table (:func:`budget_pmf`) is bounded.
MAX_MODIFIER = MAX_DICE * MAX_SIDES


@dataclass(frozen=True)
class Dice:
    """``n`` dice of ``sides`` faces plus ``plus``: the roll made each turn."""

    n: int = 1
    sides: int = 6
    plus: int = 0

    def __post_init__(self) -> None:
        values = (self.n, self.sides, self.plus)
        whole = all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values)
        if not (whole and 1 <= self.n <= MAX_DICE and 1 <= self.sides <= MAX_SIDES and abs(self.plus) <= MAX_MODIFIER):
            raise RequestError(f"dice {str(self)!r}: use 1 to {MAX_DICE} dice of 1 to {MAX_SIDES} sides and a"
                               f" modifier within ±{MAX_MODIFIER:,}")

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Read ``"1d6"``, ``"2d6+1"``, ``"d8-2"``..."""
        m = _PATTERN.fullmatch(text or "")
        if not m:
            raise RequestError(f"dice {text!r} is not of the form NdM+K (such as 1d6 or 2d6+1)")
        n, sides, plus = m.group(1) or "1", m.group(2), (m.group(3) or "") + (m.group(4) or "0")
        if max(len(n), len(sides), len(m.group(4) or "")) > MAX_DIGITS:
            raise RequestError(f"dice {text!r}: use 1 to {MAX_DICE} dice of 1 to {MAX_SIDES} sides and a modifier"
                               f" within ±{MAX_MODIFIER:,}")
        return cls(int(n), int(sides), int(plus))

    @property
    def low(self) -> int:
        return self.n + self.plus

    @property
    def high(self) -> int:
        return self.n * self.sides + self.plus

    def check_roll(self, roll: int) -> int:
        """``roll`` as an ``int``, or :class:`RequestError` if it is not a whole number or the dice cannot show it."""
        roll = params.whole(roll, "roll")
        if not self.low <= roll <= self.high:
            raise RequestError(f"roll {roll} is outside the range of {self} ({self.low} to {self.high})")
        return roll

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
