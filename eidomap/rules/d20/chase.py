"""Evasion and pursuit: who gets away, exactly.

The quarry comes first in every list.  The chase is decided round by round by
the feet each side covers (:func:`round_feet`): a run, four times the speed
(three in heavy armour), or, for a fatigued side, which can neither run nor
charge, a double move.  A side at least :data:`MARKED` feet a round faster
than another is *markedly faster* and settles the chase outright (counting
squares, it gains a square every round).  Chasers the quarry outruns drop out;
a chaser that outruns it catches it.  Between the rest, opposed checks
(Dexterity; Constitution in a long overland chase): the quarry escapes when
its result is the highest.  Ties: the higher modifier wins; those tied with
equal modifiers roll again, among themselves, until one is highest (so each
of them wins a reroll with the same chance).

>>> p_escape([120, 120], [2, 1])
Fraction(229, 400)
>>> p_escape([120, 160], [5, 0]), p_escape([160, 120], [0, 5])
(Fraction(0, 1), Fraction(1, 1))
>>> round_feet([30, 30], fatigued=[True, False], heavy_armor=[False, False])   # a double move against a run
[60, 120]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from eidomap.base.errors import RequestError
from eidomap.rules.d20.grid import MAX_SPEED

#: Feet a round by which one side must be faster to settle the chase outright.
MARKED = 5
#: The die of the opposed checks.
DIE = 20
#: "A fatigued character ... takes a -2 penalty to Strength and Dexterity": off its Dexterity checks.
FATIGUE_PENALTY = 2
#: Most sides a chase may have (the quarry and its chasers): the exact answer's numbers grow with them.
MAX_SIDES = 10_000
#: A round of the chase: a run (x4; x3 in heavy armour), or a double move for a fatigued side.
RUN, RUN_HEAVY, DOUBLE = 4, 3, 2


def check(speeds: Sequence[float], mods: Sequence[int] | None, most: float = MAX_SPEED) -> list[int]:
    """The modifiers (0 each when None) after checking the sides: 2 to :data:`MAX_SIDES` of them, speeds positive
    up to ``most`` feet, one whole-number modifier each."""
    if len(speeds) < 2:
        raise RequestError("a chase needs the quarry's speed and at least one chaser's")
    if len(speeds) > MAX_SIDES:
        raise RequestError(f"a chase has at most {MAX_SIDES:,} sides, got {len(speeds):,}")
    if any(isinstance(s, bool) or not isinstance(s, int | float | np.integer | np.floating)
           or not 0 < s <= most for s in speeds):
        raise RequestError(f"speeds must be positive numbers of feet up to {most:,}, got {list(speeds)}")
    mods = [0] * len(speeds) if mods is None else list(mods)
    if len(mods) != len(speeds):
        raise RequestError(f"give one modifier per side ({len(speeds)}), got {len(mods)}")
    if any(isinstance(m, bool) or not isinstance(m, int) for m in mods):
        raise RequestError(f"modifiers must be whole numbers, got {mods}")
    return mods


def sides(flags: Sequence[bool] | bool | None, n: int, what: str) -> list[bool]:
    """One flag a side of ``n``: ``True`` is the quarry, ``None`` or ``False`` nobody.

    >>> sides(True, 3, "fatigued")
    [True, False, False]
    """
    if flags is None or flags is False:  # (nobody)
        return [False] * n
    out = [True] + [False] * (n - 1) if flags is True else list(flags)
    if len(out) != n or any(not isinstance(f, bool | np.bool_) for f in out):
        raise RequestError(f"{what} must be one flag (True or False) per side ({n}), got {flags!r}")
    return [bool(f) for f in out]


def round_feet(speeds: Sequence[float], fatigued: Sequence[bool], heavy_armor: Sequence[bool]) -> list[float]:
    """The feet each side covers a round of the chase: it runs (x4, x3 in heavy armour), or, fatigued, it can
    neither run nor charge and double-moves (x2)."""
    return [s * (DOUBLE if f else RUN_HEAVY if h else RUN)
            for s, f, h in zip(speeds, fatigued, heavy_armor, strict=True)]


def fatigue_mods(mods: Sequence[int], fatigued: Sequence[bool], long: bool) -> list[int]:
    """The sides' check modifiers with the fatigue penalty (:data:`FATIGUE_PENALTY`) on the Dexterity
    checks of the ``fatigued`` sides (one flag a side); a long chase's Constitution checks keep theirs.

    >>> fatigue_mods([1, 1], [True, False], long=False)
    [-1, 1]
    """
    return list(mods) if long else [m - FATIGUE_PENALTY * f for m, f in zip(mods, fatigued, strict=True)]


def p_escape(feet: Sequence[float], mods: Sequence[int] | None = None) -> Fraction:
    """P(the quarry, ``feet[0]``, escapes every chaser): ``feet`` what each side covers a round.

    Exact, in time linear in the sides: the rivals (the chasers neither side outruns) with the quarry's own
    modifier share one polynomial in the chance of a tie, summed in closed form; each other rival loses or
    wins on its roll alone.
    """
    mods = check(feet, mods, RUN * MAX_SPEED)
    quarry, q = feet[0], mods[0]
    if any(s - quarry >= MARKED for s in feet[1:]):
        return Fraction(0)
    rivals = [m - q for s, m in zip(feet[1:], mods[1:], strict=True) if quarry - s < MARKED]
    if not rivals:
        return Fraction(1)
    k = rivals.count(0)  # they tie the quarry on its own roll, and reroll with it
    # a rival more than 20 above or below always wins or loses: their counts, the gap clamped to +-20
    gaps = Counter(max(-DIE, min(DIE, g)) for g in rivals if g)
    win = 0
    for roll in range(1, DIE + 1):
        # each other rival's rolls that lose to the quarry's: below its total, or equal with a lower modifier
        lose: Counter[int] = Counter()
        for g, count in gaps.items():
            lose[min(roll - g, DIE) if g < 0 else max(roll - g - 1, 0)] += count
        if lose.get(0):
            continue
        term = roll ** (k + 1) - (roll - 1) ** (k + 1)  # sum over j ties of C(k, j) (roll - 1)^(k - j) / (j + 1)
        for faces, count in lose.items():
            term *= faces**count
        win += term
    return Fraction(win, (k + 1) * DIE ** (len(rivals) + 1))
