"""Evasion and pursuit: who gets away, exactly.

The quarry comes first in every list.  A side at least :data:`MARKED` feet a
round faster than another is *markedly faster* and settles the chase outright
(counting squares, it gains a square every round).  Chasers it outruns drop
out; a chaser that outruns it catches it.  Between the rest, opposed checks
(Dexterity; Constitution in a long overland chase): the quarry escapes when
its result is the highest.  Ties: the higher modifier wins; those tied with
equal modifiers roll again, among themselves, until one is highest (so each
of them wins a reroll with the same chance).

>>> p_escape([30, 30], [2, 1])
Fraction(229, 400)
>>> p_escape([30, 40], [5, 0]), p_escape([40, 30], [0, 5])
(Fraction(0, 1), Fraction(1, 1))
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from ...errors import RequestError

__all__ = ["DIE", "FATIGUE_PENALTY", "MARKED", "fatigue_mods", "p_escape"]

#: Feet a round by which one side must be faster to settle the chase outright.
MARKED = 5
#: The die of the opposed checks.
DIE = 20
#: "A fatigued character ... takes a -2 penalty to Strength and Dexterity": off its Dexterity checks.
FATIGUE_PENALTY = 2


def _check(speeds: Sequence[int], mods: Sequence[int] | None) -> list[int]:
    if len(speeds) < 2:
        raise RequestError("a chase needs the quarry's speed and at least one chaser's")
    if any(isinstance(s, bool) or not isinstance(s, int | float) or s <= 0 for s in speeds):
        raise RequestError(f"speeds must be positive numbers of feet, got {list(speeds)}")
    mods = [0] * len(speeds) if mods is None else list(mods)
    if len(mods) != len(speeds):
        raise RequestError(f"give one modifier per side ({len(speeds)}), got {len(mods)}")
    if any(isinstance(m, bool) or not isinstance(m, int) for m in mods):
        raise RequestError(f"modifiers must be whole numbers, got {mods}")
    return mods


def fatigue_mods(speeds: Sequence[int], mods: Sequence[int] | None, fatigued: Sequence[bool] | bool | None,
                 long: bool) -> list[int]:
    """The sides' check modifiers with the fatigue penalty (:data:`FATIGUE_PENALTY`) on the Dexterity
    checks of the ``fatigued`` sides (one flag a side; ``True``: the quarry); a long chase's
    Constitution checks keep theirs.

    >>> fatigue_mods([30, 30], [1, 1], [True, False], long=False)
    [-1, 1]
    """
    mods = _check(speeds, mods)
    if fatigued is None or fatigued is False:  # (nobody)
        return mods
    flags = [True] + [False] * (len(mods) - 1) if fatigued is True else list(fatigued)
    if len(flags) != len(mods) or any(not isinstance(f, bool | np.bool_) for f in flags):
        raise RequestError(f"fatigued must be one flag (True or False) per side ({len(mods)}), got {fatigued!r}")
    return mods if long else [m - FATIGUE_PENALTY * bool(f) for m, f in zip(mods, flags, strict=True)]


def p_escape(speeds: Sequence[int], mods: Sequence[int] | None = None) -> Fraction:
    """P(the quarry, ``speeds[0]``, escapes every chaser)."""
    mods = _check(speeds, mods)
    quarry, q_mod = speeds[0], mods[0]
    if any(s - quarry >= MARKED for s in speeds[1:]):
        return Fraction(0)
    rivals = [m for s, m in zip(speeds[1:], mods[1:], strict=True) if quarry - s < MARKED]
    if not rivals:
        return Fraction(1)
    win = Fraction(0)
    for roll in range(1, DIE + 1):
        total = roll + q_mod
        # ties[k]: P(exactly k rivals tie the quarry with its own modifier, and every other rival loses)
        ties = [Fraction(1)]
        for m in rivals:
            below = Fraction(min(max(total - m - 1, 0), DIE), DIE)  # rival's d20 + m < total
            same = Fraction(1, DIE) if 1 <= total - m <= DIE else Fraction(0)
            lose = below + (same if m < q_mod else 0)
            tie = same if m == q_mod else Fraction(0)
            ties = [a * lose + (ties[k - 1] * tie if k else 0) for k, a in enumerate([*ties, Fraction(0)])]
        win += sum((p / (k + 1) for k, p in enumerate(ties)), Fraction(0)) / DIE
    return win
