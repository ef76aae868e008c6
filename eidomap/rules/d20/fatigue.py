"""Hustle and forced march: the exact odds of fatigue and the distribution of damage.

Everything is computed with :class:`~fractions.Fraction` and handed out as
floats by the callers.  The damage distribution is a dict ``{points: P}``.

>>> hustle_damage(3)          # hour 1 free, hour 2: 1 point, hour 3: 2 points
3
>>> forced_march_fail(9, 2)   # hour 9, Con +2: DC 10, fails on a d20 of 1 to 7
Fraction(7, 20)
>>> d = forced_march_pmf(10, 2)
>>> d[0] == (1 - forced_march_fail(9, 2)) * (1 - forced_march_fail(10, 2))
True
"""

from __future__ import annotations

from fractions import Fraction

from eidomap.base.errors import RequestError
from eidomap.rules.d20.tables import tables

Pmf = dict[int, Fraction]


#: Hours in a day: no one hustles or marches more between two sleeps.
DAY = 24


def _hours(hours: int, what: str) -> int:
    if isinstance(hours, bool) or not isinstance(hours, int) or hours < 0:
        raise RequestError(f"{what} must be a whole number of hours >= 0, got {hours!r}")
    if hours > DAY:
        raise RequestError(f"{what} must be at most {DAY} hours (a day has {DAY}), got {hours}")
    return hours


def hustle_damage(hours: int) -> int:
    """Nonlethal damage of ``hours`` of hustling between sleep cycles.

    The first hour is free, the second deals 1 point, each further hour twice
    the previous one: ``2**(hours - 1) - 1`` in all.
    """
    free, first = tables().rules["hustle_free_hours"], tables().rules["hustle_first_damage"]
    extra = _hours(hours, "hustle") - free
    return first * (2**extra - 1) if extra > 0 else 0


def hustle_pmf(hours: int) -> Pmf:
    """The (certain) damage of hustling as a distribution."""
    return {hustle_damage(hours): Fraction(1)}


def forced_march_dc(hour: int) -> int:
    """DC of the Constitution check for march hour ``hour`` (9, 10, ...)."""
    r = tables().rules
    return r["forced_march_dc"] + r["forced_march_dc_step"] * (hour - r["day_hours"] - 1)


def forced_march_fail(hour: int, con_mod: int, mount: bool = False) -> Fraction:
    """P(the check of march hour ``hour`` fails): d20 + ``con_mod`` below the DC.

    A mount's check fails automatically.
    """
    if mount:
        return Fraction(1)
    need = forced_march_dc(hour) - con_mod  # the least d20 that succeeds
    return Fraction(min(max(need - 1, 0), 20), 20)


def forced_march_pmf(hours: int, con_mod: int = 0, mount: bool = False) -> Pmf:
    """Distribution of the damage of marching ``hours`` hours in a day (1d6 per failed check)."""
    r = tables().rules
    die = r["forced_march_damage_die"]
    pmf: Pmf = {0: Fraction(1)}
    for hour in range(r["day_hours"] + 1, _hours(hours, "march") + 1):
        fail = forced_march_fail(hour, con_mod, mount)
        nxt: Pmf = {}
        for dmg, p in pmf.items():
            if fail < 1:
                nxt[dmg] = nxt.get(dmg, 0) + p * (1 - fail)
            if fail > 0:
                for face in range(1, die + 1):
                    nxt[dmg + face] = nxt.get(dmg + face, 0) + p * fail / die
        pmf = nxt
    return dict(sorted(pmf.items()))


def p_fatigued(pmf: Pmf) -> Fraction:
    """Any damage from hustling or a forced march fatigues: P(damage > 0)."""
    return 1 - pmf.get(0, Fraction(0))


def _hp(hp: int) -> int:
    if isinstance(hp, bool) or not isinstance(hp, int) or hp < 1:
        raise RequestError(f"hit points must be a whole number >= 1, got {hp!r}")
    return hp


def p_staggered(pmf: Pmf, hp: int) -> Fraction:
    """P(the damage reaches ``hp`` hit points, or more): staggered or worse (3.5: nonlethal damage *equal* to the
    current hit points staggers; a mount's lethal damage that leaves it at exactly 0 disables it).

    >>> p_staggered(forced_march_pmf(9, 0), 1)   # hour 9 fails at 9/20, any damage reaches 1
    Fraction(9, 20)
    """
    hp = _hp(hp)
    return sum((p for dmg, p in pmf.items() if dmg >= hp), Fraction(0))


def p_unconscious(pmf: Pmf, hp: int) -> Fraction:
    """P(the damage *exceeds* ``hp`` hit points): unconscious (3.5: nonlethal damage beyond the current hit points
    knocks a character out; a mount's lethal damage below 0 leaves it dying, unconscious).

    >>> p_unconscious(forced_march_pmf(9, 0), 1)   # 9/20 x 5/6: the d6 shows 2 or more
    Fraction(3, 8)
    """
    hp = _hp(hp)
    return sum((p for dmg, p in pmf.items() if dmg > hp), Fraction(0))
