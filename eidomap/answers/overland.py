"""d20 local and overland movement: speeds, mounts, vessels, journeys on a map, fatigue, chases.

Plain functions returning dataclasses; each has ``as_dict()``, the shape
``eidomap d20 ... --json`` prints.  The rules are in :mod:`eidomap.rules.d20`
and quoted in docs/d20.md.

>>> speed_table(30).as_dict()["hour"]
{'walk': 3, 'hustle': 6}
>>> mount_speed("light-horse").as_dict()
{'kind': 'light-horse', 'per_hour': 5, 'per_day': 40}
>>> forced_march(9, con_mod=2).p_fatigued
0.35
>>> import eidomap
>>> m = eidomap.load(example_map_path())
>>> t = travel(m, "greenfield", "kingsbridge", speed=30)
>>> round(t.miles, 1), len(t.days)
(51.0, 3)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import Any

import numpy as np
import shapely

from eidomap.base import params
from eidomap.base.errors import MapError, RequestError
from eidomap.base.names import did_you_mean, shown
from eidomap.io.features import MAX_COORDINATE
from eidomap.model.map import Map
from eidomap.record import rulesets
from eidomap.record.geometry import larger_side
from eidomap.rules.d20 import chase as _chase
from eidomap.rules.d20 import fatigue as _fatigue
from eidomap.rules.d20 import speeds as _rules
from eidomap.rules.d20.calendar import EPS as _EPS
from eidomap.rules.d20.calendar import Clock, Piece, Schedule, advance
from eidomap.rules.d20.grid import MAX_SPEED
from eidomap.rules.d20.tables import TERRAINS, tables
from eidomap.search.mesh import CROSS, LINE, build_mesh, earliest, lightest, straighten, walk

__all__ = ["Chase", "Day", "FatigueOdds", "MountSpeed", "SpeedTable", "Travel", "VesselSpeed", "chase",
           "example_map_path", "forced_march", "hustle", "mount_speed", "speed_table", "travel", "vessel_speed"]

#: What a mount's (or a vehicle's) parameter takes, for its message.
_A_MOUNT = "a name of Table 7-9 (such as 'light-horse')"
#: Default mesh spacing: the map's larger side cut into this many pieces.
MESH_PIECES = 64
#: Most straight legs a mesh spacing may make (a region of k nodes has k (k - 1) / 2 of them): checked
#: before the mesh is built, so that memory and time stay bounded whatever the spacing asked.
MAX_MESH_LEGS = 1_000_000
#: Most days a journey may take: the search counts a leg's repeating days at once, but the answer lists each day
#: of the journey, so a pace of a hair above 0 would list days without end; the days on foot are bounded (checked
#: from the hours walked, before any is listed).
MAX_DAYS = 100_000


def example_map_path() -> Path:
    """Path of the bundled overland map (``maps/d20-overland.geojson`` in a source checkout).

    Returns
    -------
    Path
        A d20 overland map: regions of Table 7-8's terrains, highways, roads and trails, a river.

    See Also
    --------
    eidomap.bundled_map_path : The other bundled maps.
    travel : A journey on it.

    Examples
    --------
    >>> import eidomap
    >>> eidomap.load(example_map_path()).rules
    'd20'
    """
    from eidomap.base.files import bundled_map_path

    return bundled_map_path("d20-overland.geojson")


def number(x: Fraction | float) -> int | float:
    """A whole number as an int, anything else as a float: how the answers hold the tables' exact numbers (and
    JSON prints them)."""
    return int(x) if x == int(x) else float(x)


# -- tables ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SpeedTable:
    """Table 7-6's column for a speed: distances by scale and mode.

    Attributes
    ----------
    speed : int or float
        The speed in feet.
    cells : dict of str to dict of str to (int or float)
        By scale (``round`` and ``minute`` in feet, ``hour`` and ``day`` in miles), the distance of each mode
        (``walk``, ``hustle``, ``run3``, ``run4``).
    run_rounds : int or None
        With a Constitution score: the rounds a run can last.
    """

    speed: int | float
    cells: dict[str, dict[str, int | float]]
    run_rounds: int | None = None

    def as_dict(self) -> dict:
        """The table as plain data: what ``eidomap d20 speed --json`` prints.

        Returns
        -------
        dict
            ``speed``, a mapping per scale, and ``run_rounds`` when known.
        """
        out: dict = {"speed": self.speed}
        out.update({scale: dict(modes) for scale, modes in self.cells.items()})
        if self.run_rounds is not None:
            out["run_rounds"] = self.run_rounds
        return out


def speed_table(speed: float | Fraction, con: int | None = None) -> SpeedTable:
    """Table 7-6 for any speed (feet); with a Constitution score, the rounds a run can last (local scale).

    Parameters
    ----------
    speed : float or Fraction
        The speed in feet.
    con : int, optional
        A Constitution score.

    Returns
    -------
    SpeedTable
        The distances by scale and mode.

    Raises
    ------
    RequestError
        For a speed that is not a positive number, or a Constitution score that is not a whole number >= 0.

    See Also
    --------
    mount_speed, vessel_speed : Table 7-9's rows.

    Examples
    --------
    >>> t = speed_table(30, con=12)
    >>> t.as_dict()["hour"], t.run_rounds
    ({'walk': 3, 'hustle': 6}, 12)
    """
    speed, con = params.fraction(speed, "speed", above=0, high=MAX_SPEED), params.maybe(params.whole, con, "con", 0)
    cells = _rules.speed_table(speed)
    return SpeedTable(number(speed), {scale: {mode: number(v) for mode, v in modes.items()} for scale, modes in
                                      cells.items()}, con)


@dataclass(frozen=True)
class MountSpeed:
    """A Table 7-9 row of a mount or the cart.

    Attributes
    ----------
    kind : str
        The mount (``"light-horse"``, ``"pony"``...) or ``"cart"``.
    per_hour, per_day : int or float
        Miles an hour and a day.
    label : str
        The row's name in the table (``"pony (151-450 lb)"``).
    """

    kind: str
    per_hour: int | float
    per_day: int | float
    label: str = ""

    def as_dict(self) -> dict:
        """The row as plain data: what ``eidomap d20 mount-speed --json`` prints.

        Returns
        -------
        dict
            ``kind``, ``per_hour``, ``per_day``.
        """
        return {"kind": self.kind, "per_hour": self.per_hour, "per_day": self.per_day}


def mount_speed(kind: str, load: str | float | None = None) -> MountSpeed:
    """Miles per hour and per day of a mount or the cart.

    Parameters
    ----------
    kind : str
        ``light-horse``, ``heavy-horse``, ``pony``, ``riding-dog`` or ``cart``.
    load : str or float, optional
        ``"heavy"``, or a weight in pounds (``300``, ``"300lb"``) within its loaded row's range: the loaded
        row.

    Returns
    -------
    MountSpeed
        The row.

    Raises
    ------
    RequestError
        For an unknown kind, or a load outside the mount's rows.

    See Also
    --------
    vessel_speed : A ship's row.
    travel : A journey on a mount.

    Examples
    --------
    >>> row = mount_speed("pony", load="200lb")
    >>> row.label, int(row.per_hour), int(row.per_day)
    ('pony (151-450 lb)', 3, 24)
    """
    row = _rules.mount_row(params.text(kind, "kind", _A_MOUNT), load)
    return MountSpeed(kind, number(row.per_hour), number(row.per_day), row.label)


@dataclass(frozen=True)
class VesselSpeed:
    """A vessel's speed with the river rules applied.

    Attributes
    ----------
    kind : str
        The vessel (``"keelboat"``...).
    per_hour, per_day : int, float or None
        Miles an hour and a day; None when it cannot be rowed that way (upstream against a current).
    towed : (int or float, int or float) or None
        Then its speed an hour and a day towed from the bank.
    """

    kind: str
    per_hour: int | float | None
    per_day: int | float | None
    towed: tuple[int | float, int | float] | None = None

    def as_dict(self) -> dict:
        """The speeds as plain data: what ``eidomap d20 vessel --json`` prints.

        Returns
        -------
        dict
            ``per_hour``, ``per_day`` and, when towed, ``towed``.
        """
        out: dict[str, Any] = {"per_hour": self.per_hour, "per_day": self.per_day}
        if self.towed is not None:
            out["towed"] = {"per_hour": self.towed[0], "per_day": self.towed[1]}
        return out


def vessel_speed(kind: str, downstream: bool = False, current: float | None = None, guided: bool = False,
                 upstream: bool = False) -> VesselSpeed:
    """Miles per hour and per day of a Table 7-9 ship, with the river rules.

    Downstream with the current (floating if guided), or upstream: a raft, keelboat or rowboat cannot be
    rowed against a current, but can be towed.

    Parameters
    ----------
    kind : str
        ``raft``, ``keelboat``, ``rowboat``, ``sailing-ship``, ``warship``, ``longship`` or ``galley``.
    downstream, upstream : bool
        The way it goes on a river (neither: still water).
    current : float, optional
        The river's current in miles an hour (default 3).
    guided : bool
        Someone guides it: it floats 14 more hours a day downstream.

    Returns
    -------
    VesselSpeed
        The speeds.

    Raises
    ------
    RequestError
        For an unknown vessel, or both directions.

    See Also
    --------
    mount_speed : A mount's row.
    travel : A journey by boat.

    Examples
    --------
    >>> v = vessel_speed("keelboat", downstream=True, guided=True)
    >>> int(v.per_hour), int(v.per_day)
    (4, 82)
    >>> vessel_speed("keelboat", upstream=True).as_dict()
    {'per_hour': None, 'per_day': None, 'towed': {'per_hour': 2, 'per_day': 16}}
    """
    kind = params.text(kind, "kind", "a ship of Table 7-9 (such as 'keelboat')")
    downstream, guided, upstream = (params.flag(v, name) for v, name in ((downstream, "downstream"),
                                                                         (guided, "guided"), (upstream, "upstream")))
    current = params.maybe(params.real, current, "current", 0, _rules.MAX_CURRENT)
    per_hour, per_day, towed = _rules.vessel_speed(kind, downstream, current, guided, upstream)
    return VesselSpeed(kind, None if per_hour is None else number(per_hour),
                       None if per_day is None else number(per_day),
                       None if towed is None else (number(towed[0]), number(towed[1])))


# -- fatigue ------------------------------------------------------------------------------
@dataclass(frozen=True)
class FatigueOdds:
    """The odds of a day's hustle or forced march: fatigue and damage.

    Attributes
    ----------
    p_fatigued : float
        P(fatigued) at the end.
    damage : dict of int to float
        The distribution of the damage taken (nonlethal; lethal for a mount).
    lethal : bool
        Whether the damage is lethal (a mount's).
    hp : int or None
        The hit points asked about.
    p_staggered : float or None
        With ``hp``: P(the damage reaches them, or more): staggered or worse (3.5: nonlethal damage equal to the
        current hit points staggers); for a mount's lethal damage, disabled or worse (at exactly 0 hit points it
        is disabled, still conscious).
    p_unconscious : float or None
        With ``hp``: P(the damage exceeds them): unconscious (a mount: below 0 hit points, dying).
    """

    p_fatigued: float
    damage: dict[int, float]
    lethal: bool
    hp: int | None = None
    p_staggered: float | None = None
    p_unconscious: float | None = None

    @classmethod
    def of(cls, pmf: _fatigue.Pmf, lethal: bool, hp: int | None = None) -> FatigueOdds:
        """The odds from a damage distribution.

        Parameters
        ----------
        pmf : dict of int to Fraction
            P(damage = k).
        lethal : bool
            Whether the damage is lethal.
        hp : int, optional
            Hit points: also P(the damage reaches them) and P(it exceeds them).

        Returns
        -------
        FatigueOdds
            The odds.
        """
        p_fatigued, damage = float(_fatigue.p_fatigued(pmf)), {int(k): float(p) for k, p in pmf.items()}
        if hp is None:
            return cls(p_fatigued, damage, bool(lethal))
        return cls(p_fatigued, damage, bool(lethal), int(hp), float(_fatigue.p_staggered(pmf, hp)),
                   float(_fatigue.p_unconscious(pmf, hp)))

    @property
    def at_hp(self) -> str:
        """What damage equal to the hit points does: ``"staggered"`` (nonlethal), ``"disabled"`` (a mount's
        lethal damage)."""
        return "disabled" if self.lethal else "staggered"

    @property
    def expected_damage(self) -> float:
        """The mean damage."""
        return sum(k * p for k, p in self.damage.items())

    def as_dict(self) -> dict:
        """The odds as plain data: what ``eidomap d20 march --json`` and ``hustle --json`` print.

        Returns
        -------
        dict
            ``p_fatigued``, ``damage`` (by amount), ``lethal``, and when asked ``hp``, ``p_staggered`` (a
            mount: ``p_disabled``) and ``p_unconscious``.
        """
        out = {"p_fatigued": self.p_fatigued, "damage": {str(k): p for k, p in self.damage.items()},
               "lethal": self.lethal}
        if self.hp is not None:
            out.update({"hp": self.hp, f"p_{self.at_hp}": self.p_staggered, "p_unconscious": self.p_unconscious})
        return out


def hustle(hours: int, mount: bool = False) -> FatigueOdds:
    """Hustling ``hours`` between sleep cycles: certain damage from the second hour on.

    Parameters
    ----------
    hours : int
        Hours hustled, at most 24.
    mount : bool
        A mount hustles: the damage is lethal.

    Returns
    -------
    FatigueOdds
        The damage and fatigue.

    Raises
    ------
    RequestError
        For hours that are not a whole number from 0 to 24.

    See Also
    --------
    forced_march : Marching beyond 8 hours.

    Examples
    --------
    >>> odds = hustle(3)
    >>> odds.p_fatigued, odds.damage
    (1.0, {3: 1.0})
    """
    hours, mount = params.whole(hours, "hours", 0, _fatigue.DAY), params.flag(mount, "mount")
    return FatigueOdds.of(_fatigue.hustle_pmf(hours), mount)


def forced_march(hours: int, con_mod: int = 0, mount: bool = False, hp: int | None = None) -> FatigueOdds:
    """Marching ``hours`` in a day: a Con check each hour beyond 8 (a mount's always fails).

    Parameters
    ----------
    hours : int
        Hours marched, at most 24.
    con_mod : int
        The marcher's Constitution modifier.
    mount : bool
        A mount marches: every check fails and the damage is lethal.
    hp : int, optional
        Hit points: also the chances that the damage reaches them (staggered; a mount disabled) and that it
        exceeds them (unconscious).

    Returns
    -------
    FatigueOdds
        The exact odds of fatigue and the damage distribution.

    Raises
    ------
    RequestError
        For hours that are not a whole number from 0 to 24, or a modifier that is not a whole number.

    See Also
    --------
    hustle : Hustling.
    travel : A journey that force-marches.

    Examples
    --------
    >>> odds = forced_march(10, con_mod=2)
    >>> round(odds.p_fatigued, 4), round(odds.expected_damage, 4)
    (0.6425, 2.8)
    """
    hours, con_mod = params.whole(hours, "hours", 0, _fatigue.DAY), params.whole(con_mod, "con_mod")
    mount, hp = params.flag(mount, "mount"), params.maybe(params.whole, hp, "hp", 1)
    return FatigueOdds.of(_fatigue.forced_march_pmf(hours, con_mod, mount), mount, hp)


# -- chases -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Chase:
    """The chance that the quarry (first of ``speeds``) escapes.

    Attributes
    ----------
    speeds : list
        The speeds, the quarry's first.
    mods : list of int
        Each side's modifier to the opposed checks (fatigue taken off).
    check : {"Dexterity", "Constitution"}
        The checks that break a tie of speeds (Constitution for a long chase).
    p_escape : float
        P(the quarry escapes).
    feet : list or None
        The feet each side covers a round: a run (x4, x3 in heavy armour), a double move when fatigued; None in
        a long chase, whose speeds compare as they are.
    """

    speeds: list
    mods: list[int]
    check: str
    p_escape: float
    feet: list | None = None

    def as_dict(self) -> dict:
        """The answer as plain data: what ``eidomap d20 chase --json`` prints.

        Returns
        -------
        dict
            ``p_escape`` and, in a chase of a few rounds, ``feet_a_round`` (one a side).
        """
        return {"p_escape": self.p_escape} | ({} if self.feet is None else {"feet_a_round": self.feet})


def chase(speeds: Sequence, mods: Sequence[int] | None = None, long: bool = False,
          fatigued: Sequence[bool] | bool | None = None, heavy_armor: Sequence[bool] | bool | None = None) -> Chase:
    """Evasion and pursuit: the chance that the quarry (listed first) escapes.

    A chase of a few rounds is decided round by round by the feet each side covers: a run, four times the speed
    (three in heavy armour), or a double move for a fatigued side, which can neither run nor charge.  A side at
    least 5 ft a round faster settles it; opposed checks settle it between the others.  In a long (overland)
    chase no one runs for long: the speeds compare as they are.

    Parameters
    ----------
    speeds : sequence of float
        The speeds in feet (up to 1,000), the quarry's first; at most :data:`~eidomap.rules.d20.chase.MAX_SIDES`.
    mods : sequence of int, optional
        Dexterity (Constitution if ``long``) modifiers, one a side (default 0).
    long : bool
        A long chase: Constitution checks.
    fatigued : sequence of bool or bool, optional
        One flag a side, or ``True`` for the quarry: those sides double-move instead of running, and take the
        fatigue penalty, -2 to Dexterity, off their Dexterity checks; a long chase's Constitution checks are
        unchanged.
    heavy_armor : sequence of bool or bool, optional
        One flag a side, or ``True`` for the quarry: those sides run at x3 instead of x4.

    Returns
    -------
    Chase
        The chance.

    Raises
    ------
    RequestError
        For fewer than two sides or too many, a speed that is not a positive number up to 1,000 ft, or modifiers
        or flags of another count.

    See Also
    --------
    speed_table : The distances a speed covers.

    Examples
    --------
    >>> chase([30, 30], [2, 1]).p_escape
    0.5725
    >>> chase([20, 30], fatigued=[False, True]).feet   # the fresh quarry runs, the tired chaser double-moves
    [80, 60]
    """
    feet: list[Any] = params.reals(speeds, "speeds", above=0, high=MAX_SPEED)  # (whole or not: compared)
    if len(feet) > _chase.MAX_SIDES:
        raise RequestError(f"speeds must be a list of at most {_chase.MAX_SIDES:,} sides' speeds, got {len(feet):,}",
                           param="speeds")
    mods = params.maybe(params.wholes, mods, "mods")
    long = params.flag(long, "long")
    tired = _chase.sides(_flags(fatigued, "fatigued"), len(feet), "fatigued")
    heavy = _chase.sides(_flags(heavy_armor, "heavy_armor"), len(feet), "heavy_armor")
    mods = _chase.check(feet, mods)
    covered = None if long else _chase.round_feet(feet, tired, heavy)
    mods = _chase.fatigue_mods(mods, tired, long)
    p = _chase.p_escape(feet if covered is None else covered, mods)
    return Chase(feet, mods, "Constitution" if long else "Dexterity", float(p), covered)


# -- journeys on a map ----------------------------------------------------------------------
@dataclass(frozen=True)
class Day:
    """One day of a journey.

    Attributes
    ----------
    day : int
        Its number, from 1.
    hours, miles : float
        The hours and miles travelled.
    end : (float, float)
        Where it ends, in map units: the night's camp, or the goal.
    hustled, forced : float
        The hours hustled and force-marched.
    by : dict of str to (float, float)
        The hours and miles by each means: ``land``, ``hustle``, ``rowed``, ``float``, ``towed``, ``sailed``.
    """

    day: int
    hours: float
    miles: float
    end: tuple[float, float]
    hustled: float = 0.0
    forced: float = 0.0
    by: dict[str, tuple[float, float]] = field(default_factory=dict)

    def as_dict(self) -> dict:
        """The day as plain data.

        Returns
        -------
        dict
            ``day``, ``hours``, ``miles``, ``end`` and ``by``.
        """
        return {"day": self.day, "hours": self.hours, "miles": self.miles, "end": list(self.end),
                "by": {how: {"hours": h, "miles": mi} for how, (h, mi) in self.by.items()}}


@dataclass(frozen=True)
class Travel:
    """The answer of :func:`travel`.

    Attributes
    ----------
    start, goal : str
        As asked.
    reachable : bool
        Whether the goal can be reached.
    hours, miles : float or None
        The hours and miles travelled.
    days : list of Day
        The journey day by day.
    path : list of (float, float)
        The route in map units (night camps included as vertices).
    modes : list of str
        How each leg ``k`` (``path[k] -> path[k + 1]``) is travelled: ``land``, ``hustle``, ``rowed``,
        ``float``, ``towed`` or ``sailed``.
    day_of : list of int
        The day of each leg.
    arrival : (int, float) or None
        The day and the hour of the day the party arrives.
    boat : ((float, float), (float, float)) or None
        Where the party's boat lay at the start and where it is left (None without one).
    land_mph : float
        The party's speed on land, in miles an hour.
    spacing_miles : float
        The mesh spacing the journey was planned on.
    fatigue : dict or None
        The plan's odds when it hustles or force-marches.
    """

    start: str
    goal: str
    reachable: bool
    hours: float | None = None
    miles: float | None = None
    days: list[Day] = field(default_factory=list)
    path: list[tuple[float, float]] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)
    day_of: list[int] = field(default_factory=list)
    arrival: tuple[int, float] | None = None
    boat: tuple[tuple[float, float], tuple[float, float]] | None = None
    land_mph: float = 0.0
    spacing_miles: float = 0.0
    fatigue: dict | None = None

    def as_dict(self) -> dict:
        """The journey as plain data: what ``eidomap d20 travel --json`` prints.

        Returns
        -------
        dict
            ``hours``, ``miles``, ``arrival``, ``days``, ``path`` and, when they apply, ``boat`` and ``fatigue``.
        """
        out: dict[str, Any] = {"hours": self.hours, "miles": self.miles,
               "arrival": None if self.arrival is None else {"day": self.arrival[0], "hour": self.arrival[1]},
               "days": [d.as_dict() for d in self.days], "path": [list(p) for p in self.path]}
        if self.boat is not None:
            out["boat"] = {"start": list(self.boat[0]), "end": list(self.boat[1])}
        if self.fatigue is not None:
            out["fatigue"] = self.fatigue
        return out


def _d20_map(m: Map) -> float:
    """The map's units per mile, after checking it is a d20 overland map with Table 7-8 terrains."""
    rulesets.require(m.rules, "travel", m.path or m.name)
    upm = m.meta.get("units_per_mile")
    if upm is None:
        raise MapError(m.path, None, "has no 'units_per_mile' in its 'eidomap' member (needed for overland travel)")
    for eid, t in zip(m.eido_ids, m.terrains, strict=True):
        if t not in TERRAINS:
            raise MapError(m.path, repr(eid), f"has terrain {t!r}, which is not in Table 7-8 ({', '.join(TERRAINS)})")
    return float(upm)


def _point(where, what: str) -> tuple[float, float]:
    """``"x,y"`` or a pair as two numbers within a map's coordinates (±``MAX_COORDINATE``, so that distances
    stay finite); :class:`RequestError` naming ``what`` otherwise."""
    if isinstance(where, str):
        parts = where.split(",")
        try:
            xy = tuple(float(v) for v in parts) if len(parts) == 2 else ()
        except ValueError:
            xy = ()
    else:  # (two numbers: never a bool or a str, as a square's are)
        try:
            xy = tuple(float(v) for v in params.reals(where, "point", -MAX_COORDINATE, MAX_COORDINATE))
        except RequestError:
            xy = ()
    if len(xy) != 2 or not all(abs(v) <= MAX_COORDINATE for v in xy):  # (NaN fails too)
        raise RequestError(f"{what} must be two numbers x,y within ±{MAX_COORDINATE:g} (a map's coordinates),"
                           f" got {where!r}")
    return xy


def _xy(a: np.ndarray) -> tuple[float, float]:
    return float(a[0]), float(a[1])


def _place(m: Map, where, what: str) -> tuple[str, tuple[float, float]]:
    """A region id (its representative point: Shapely's point_on_surface) or ``"x,y"`` or ``(x, y)``."""
    if isinstance(where, str) and (k := m.find(where)) is not None:
        return where, _xy(m.positions[k])
    if isinstance(where, str) and len(where.split(",")) != 2:
        raise RequestError(f"{shown(m.path or m.name)}: {what} {where!r} is neither a region id nor a"
                           f" point x,y{did_you_mean(where, m.eido_ids)}")
    xy = _point(where, f"{what} (a point)")
    if not shapely.dwithin(m.geometries, shapely.Point(xy), m.tolerance).any():
        raise RequestError(f"{shown(m.path or m.name)}: the point {xy[0]:g},{xy[1]:g} lies in no region"
                           " of the map")
    return f"{xy[0]:g},{xy[1]:g}", xy


#: The columns of the multiplier table: how a mesh leg crosses its region.
_WAYS = (_rules.Way.TRACKLESS, *_rules.CLASSES)


def _leg_speeds(m: Map, mesh, party: _rules.Party, upm: float) -> tuple[np.ndarray, ...]:
    """Miles an hour, how (``land``, ``rowed``, ``towed``, ``sailed``; ``none``: cannot be travelled),
    floating speed and miles of every mesh leg.  By lookup tables, not a loop over the legs."""
    n_roads = len(m.record.roads)
    road = (mesh.kind == LINE) & (mesh.line < n_roads)
    river = (mesh.kind == LINE) & (mesh.line >= n_roads)
    table = np.array([[float(_rules.multiplier(t, w, party.vehicle)) for w in _WAYS] for t in TERRAINS])
    terrain = np.array([TERRAINS.index(t) for t in m.terrains], dtype=np.int64)  # one a region
    way = np.zeros(len(mesh.src), np.int64)
    classes = np.asarray([_WAYS.index(c) for c in m.record.road_class], dtype=np.int64)
    way[road] = classes[mesh.line[road]]
    mph = float(party.land_mph) * table[terrain[mesh.region], way]
    mode = np.full(len(mph), "land", dtype=object)
    drift = np.zeros(len(mph))
    mph[river] = 0.0
    mode[river] = "none"
    if river.any() and party.vessel is not None:
        current = m.record.river_current[mesh.line[river] - n_roads]
        forward = mesh.forward[river]
        pairs, which = np.unique(np.c_[current, forward], axis=0, return_inverse=True)
        speeds = [_rules.river_mph(party.vessel, party.tow, Fraction(c), bool(f)) for c, f in pairs.tolist()]
        mph[river] = np.array([0.0 if v is None else float(v[0]) for v in speeds])[which.reshape(-1)]
        mode[river] = np.array(["none" if v is None else v[1] for v in speeds], dtype=object)[which.reshape(-1)]
        if party.vessel.river:
            drift[river] = np.where(forward, current, 0.0)
    mode[mph <= 0] = "none"
    return mph, mode, drift, mesh.length / upm


def _boat_node(m: Map, mesh, party, boat_at, start_name: str, upm: float) -> int:
    """The node where the party's boat lies: where the journey starts, or ``boat_at``; on a river it can use."""
    n_roads = len(m.record.roads)
    river = (mesh.kind == LINE) & (mesh.line >= n_roads)
    node = int(mesh.extra[2])
    if not (river & ((mesh.src == node) | (mesh.dst == node))).any():
        where = shapely.Point(mesh.xy[node])
        rivers = m.record.rivers.geoms
        if not len(rivers):
            raise RequestError(f"{shown(m.path or m.name)}: the map has no river for the"
                               f" {party.vessel.kind}")
        near = rivers[int(np.argmin(shapely.distance(rivers, where)))]
        x, y = shapely.get_coordinates(shapely.line_interpolate_point(near, shapely.line_locate_point(near, where)))[0]
        said = (f"boat_at {where.x:g},{where.y:g}" if boat_at is not None
                else f"the start, {shown(start_name)},")
        raise RequestError(f"{shown(m.path or m.name)}: the {party.vessel.kind} lies at {said} on no river"
                           " (nor within the mesh spacing of one): give boat_at, a point on a river (the nearest:"
                           f" {x:g},{y:g}, {where.distance(shapely.Point(x, y)) / upm:.3g} miles away)")
    return node


def _boat_point(m: Map, xy: tuple[float, float], step: float) -> tuple[float, float]:
    """``xy`` moved onto the nearest river point when within a mesh spacing of one (else as given)."""
    rivers = m.record.rivers.geoms
    if len(rivers):
        where = shapely.Point(xy)
        k = int(np.argmin(shapely.distance(rivers, where)))
        onto = shapely.line_interpolate_point(rivers[k], shapely.line_locate_point(rivers[k], where))
        if onto.distance(where) <= step:
            return tuple(shapely.get_coordinates(onto)[0].tolist())
    return xy


def _exact(m: Map, mesh, steps: list[int], mph, mode, upm: float) -> tuple[np.ndarray, np.ndarray]:
    """The route of the legs ``steps``: its vertices, its border crossings slid to where they cost least
    (:func:`~eidomap.search.mesh.straighten`: the mesh finds the borders, this where they are crossed), and the
    miles of each leg."""
    k = np.asarray(steps, dtype=np.int64)
    points = np.vstack([mesh.xy[mesh.src[k]], mesh.xy[mesh.dst[k[-1:]]]]) if len(k) else mesh.xy[mesh.extra[:1]]
    if len(k):
        land = (mesh.kind[k] == CROSS) & (mode[k] == "land")
        with np.errstate(divide="ignore"):
            points = straighten(points, np.where(land, mesh.region[k], -1), 1.0 / mph[k], m.geometries, m.tolerance)
    return points, np.hypot(*np.diff(points, axis=0).T) / upm


def _days(points: np.ndarray, steps: list[int], miles: np.ndarray, mph, mode, drift, schedule: Schedule):
    """Walk the legs ``steps`` of the route through ``points`` (``miles`` each) on the calendar: the days, the path
    with the camps, how each piece goes and on which day, and the arrival."""
    pieces: list[Piece] = []
    ends: list[tuple[float, float]] = []
    clock = Clock()
    for i, k in enumerate(steps):
        a, b = points[i], points[i + 1]
        first = len(pieces)
        clock = advance(clock, float(miles[i]), float(mph[k]), mode[k], float(drift[k]), schedule, pieces)
        done = np.cumsum([p.miles for p in pieces[first:]]) / max(miles[i], _EPS)
        ends += [tuple((a + (b - a) * min(f, 1.0)).tolist()) for f in done]
    start = _xy(points[0])
    days: list[Day] = []
    walk = tables().rules["day_hours"]
    for day, stretch in groupby(zip(pieces, ends, strict=True), key=lambda piece: piece[0].clock.day):
        hours_of_day = miles_of_day = hustled = forced = 0.0
        by: dict[str, tuple[float, float]] = {}
        pieces_of_day = [*stretch]
        for p, _ in pieces_of_day:
            hours_of_day += p.hours
            miles_of_day += p.miles
            h, mi = by.get(p.how, (0.0, 0.0))
            by[p.how] = (h + p.hours, mi + p.miles)
            hustled += p.hours if p.how == "hustle" else 0.0
            if p.how in ("land", "hustle"):
                forced += max(0.0, p.clock.hour + p.hours - max(p.clock.hour, walk))
        days.append(Day(int(day), hours_of_day, miles_of_day, pieces_of_day[-1][1], hustled, forced, by))
    if not days:
        days.append(Day(1, 0.0, 0.0, start))
    return days, [start, *ends], [p.how for p in pieces], [p.clock.day for p in pieces], clock


def _plan_fatigue(days: list[Day], party: _rules.Party, con_mod: int) -> dict:
    """Expected damage and P(fatigued) of the plan's hustled and force-marched hours.

    Any part of an hour counts as that hour; each day is one sleep cycle.
    """
    day_hours = tables().rules["day_hours"]
    expected, p_fresh = Fraction(0), Fraction(1)
    for d in days:
        pmf = _fatigue.forced_march_pmf(day_hours + math.ceil(d.forced - _EPS), con_mod, party.mounted)
        extra = _fatigue.hustle_damage(math.ceil(d.hustled - _EPS))
        expected += extra + sum(k * p for k, p in pmf.items())
        p_fresh *= pmf.get(0, Fraction(0)) if extra == 0 else 0
    return {"expected_damage": float(expected), "p_fatigued": float(1 - p_fresh), "lethal": party.mounted}


def _flags(value: object, param: str) -> list[bool] | bool | None:
    """A chase's flags as given: None, one flag (the quarry's), or a list of flags (one a side)."""
    if value is None or isinstance(value, bool | np.bool_):
        return None if value is None else bool(value)
    return [params.flag(f, param) for f in params.listed(value, param, "True or False, one a side")]


def _mesh_sizes(m: Map, lines) -> tuple[np.ndarray, np.ndarray]:
    """Per region, the length of its boundary and of the lines in it, and its vertices."""
    regions = m.geometries
    length = shapely.length(regions)
    if len(lines):
        li, ri = shapely.STRtree(regions).query(lines, predicate="intersects")
        np.add.at(length, ri, shapely.length(shapely.intersection(lines[li], regions[ri])))
    return length, shapely.get_num_coordinates(regions)


def _mesh_legs(length: np.ndarray, vertices: np.ndarray, step: float) -> float:
    """About how many straight legs the mesh of this spacing has: a region's nodes are its boundary and
    the lines in it cut every ``step``, and its vertices; ``k`` nodes make ``k (k - 1) / 2`` legs (``inf``
    past what a float holds)."""
    with np.errstate(over="ignore"):
        k = length / step + vertices
        return float((k * (k - 1) / 2).sum())


def _mesh_step(m: Map, spacing, lines, upm: float) -> float:
    """The mesh spacing in map units: ``spacing`` miles, or the map's larger side / :data:`MESH_PIECES`;
    checked, before the mesh is built, to make at most :data:`MAX_MESH_LEGS` legs."""
    if spacing is None:
        step = larger_side(m.geometries) / MESH_PIECES
    elif isinstance(spacing, bool) or not isinstance(spacing, int | float) or not 0 < spacing < math.inf:
        raise RequestError(f"spacing must be a positive number of miles (the mesh's), got {spacing!r}")
    else:
        step = spacing * upm
    length, vertices = _mesh_sizes(m, lines)
    legs = _mesh_legs(length, vertices, step)
    if legs > MAX_MESH_LEGS:  # legs grow as 1 / spacing squared: the finest spacing that fits, by bisection
        low, high = step, max(step, float(length.max()))
        while _mesh_legs(length, vertices, high) > MAX_MESH_LEGS:  # (a region of more vertices than fit: none)
            high *= 2
        for _ in range(64):
            mid = math.sqrt(low * high) if low > 0 else high / 2
            low, high = (mid, high) if _mesh_legs(length, vertices, mid) > MAX_MESH_LEGS else (low, mid)
        legs_said = f"about {legs:,.0f}" if math.isfinite(legs) else "more than 10^308"
        unit = 10.0 ** (math.floor(math.log10(high / upm)) - 2)  # three digits, rounded up: the spacing said fits
        raise RequestError(f"a mesh spacing of {step / upm:g} miles makes {legs_said} legs on this map (at"
                           f" most {MAX_MESH_LEGS:,}): use a spacing of at least"
                           f" {math.ceil(high / upm / unit) * unit:.3g} miles")
    return step


def travel(m: Map, start: str | Sequence[float], goal: str | Sequence[float], speed: float = 30,
           party: Sequence[float] = (), mount: str | None = None, load: str | float | None = None,
           vehicle: str | None = None, towed_by: str | None = None, hustle: int = 0, forced_march: int = 0,
           con_mod: int = 0, guided: bool = False, spacing: float | None = None,
           boat_at: str | Sequence[float] | None = None) -> Travel:
    """The journey from ``start`` to ``goal`` on a d20 overland map that arrives first on the calendar, and its
    day-by-day plan.

    The arrival is the day, then the hour of that day: each leg goes by its own day (8 hours on land, 10
    rowed, 8 towed, 24 sailed), so a party may walk the morning, board at noon and sail through the night.

    Parameters
    ----------
    m : Map
        A map with ``"rules": "d20"`` and ``units_per_mile``.
    start, goal : str or (x, y)
        A region id (its representative point, Shapely's ``point_on_surface``, as
        :attr:`Map.positions <eidomap.Map.positions>`), ``"x,y"`` or a pair, in map units.  A point on a road or
        a river (within the map's tolerance) is on it.
    speed, party : float
        The walkers' speeds in feet; the party moves at the slowest.
    mount, load : str
        Everyone rides this Table 7-9 mount (``load="heavy"`` or a weight such as ``"300lb"``: its loaded row
        when in its range).
    vehicle : str
        A cart or wagon (slows the party, no benefit from trails), or a ship used on rivers (rowed craft:
        current downstream, no rowing against it).
    towed_by : str
        A draft animal (Table 7-9 mount) that tows the boat upstream from the bank.
    hustle, forced_march : int
        Hours hustled at the start of each day (not the day after one that ended fatigued); hours marched
        beyond 8 a day.
    con_mod : int
        The Constitution modifier for the forced march's checks.
    guided : bool
        Rowed craft float 14 more hours a day downstream.
    spacing : float
        Mesh spacing in miles (default: the map's larger side / 64).
    boat_at : str or (x, y)
        Where the boat lies: on a river, or within a mesh spacing of one (it is then moored at the river's
        nearest point); by default where the journey starts, which must then be so.  The boat stays wherever
        the party leaves it.

    Returns
    -------
    Travel
        The journey; ``reachable`` False when no way leads there.

    Raises
    ------
    MapError
        For a map without ``units_per_mile`` or with a terrain not in Table 7-8.
    RequestError
        For a place that is neither a region nor a point in one, a boat on no river, a mount, vehicle or hours
        out of the tables, or a spacing that would make the mesh too large.

    See Also
    --------
    eidomap.plot.plot_travel : Draw the journey.
    eidomap.answers.overland.forced_march : The odds of one day's forced march.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(example_map_path())
    >>> trip = travel(m, "greenfield", "kingsbridge")
    >>> round(trip.miles, 1), len(trip.days), trip.arrival[0]
    (51.0, 3, 3)
    >>> [round(d.miles, 1) for d in trip.days]
    [23.8, 23.4, 3.8]
    """
    m = params.instance(m, "m", Map)
    speeds = [params.real(speed, "speed", above=0, high=MAX_SPEED),
              *params.reals(party, "party", above=0, high=MAX_SPEED)]
    mount, vehicle, towed_by = (params.maybe(params.text, v, name, _A_MOUNT) for v, name in
                                ((mount, "mount"), (vehicle, "vehicle"), (towed_by, "towed_by")))
    hustle = params.whole(hustle, "hustle", 0, _fatigue.DAY)
    forced_march = params.whole(forced_march, "forced_march", 0, _fatigue.DAY - tables().rules["day_hours"])
    con_mod, guided = params.whole(con_mod, "con_mod"), params.flag(guided, "guided")
    spacing = params.maybe(params.real, spacing, "spacing", above=0)
    upm = _d20_map(m)
    start_name, a = _place(m, start, "start")
    goal_name, b = _place(m, goal, "goal")
    who = _rules.party(speeds, mount, load, vehicle, towed_by)
    if boat_at is not None and who.vessel is None:
        raise RequestError("boat_at is where the party's boat lies: give vehicle, a ship of Table 7-9")
    rivers: np.ndarray | list = m.record.rivers.geoms if who.vessel is not None else []
    lines = np.concatenate([np.asarray(m.record.roads.geoms, dtype=object), np.asarray(rivers, dtype=object)])
    step = _mesh_step(m, spacing, lines, upm)
    schedule = Schedule(hustle, forced_march, guided, who.day_hours("towed"), who.mounted, con_mod)
    points = [a, b]
    if who.vessel is not None:  # where the boat lies: moored at the start, or at boat_at
        points.append(_boat_point(m, a if boat_at is None else _point(boat_at, "boat_at"), step))
    # the straight ways from the start to the goal and to the boat cross the borders where a straight line does
    mesh = build_mesh(m.geometries, lines, step, m.tolerance, points=points,
                      straight=[(0, 1), (0, 2)] if who.vessel is not None else [(0, 1)])
    mph, mode, drift, miles = _leg_speeds(m, mesh, who, upm)
    with np.errstate(divide="ignore"):
        hours = np.where(mode == "land", miles / np.where(mph > 0, mph, 1.0), np.inf)
    n, s, g = len(mesh.xy), int(mesh.extra[0]), int(mesh.extra[1])
    answer = partial(Travel, start_name, goal_name, land_mph=float(who.land_mph), spacing_miles=float(step / upm))
    boat = None if who.vessel is None else _boat_node(m, mesh, who, boat_at, start_name, upm)

    def walked(clock: Clock, h: float) -> Clock:  # land legs: in hours at the party's pace
        return advance(clock, float(h), 1.0, "land", 0.0, schedule)

    # (the most hours at the party's pace a day holds, hustled at twice it: more than MAX_DAYS of them are beyond
    # the bound, and are never put on the calendar)
    most = MAX_DAYS * (schedule.limit("land") + min(schedule.hustle, schedule.limit("land")))

    def within(h: float) -> bool:
        return bool(np.isfinite(h)) and h <= most

    legs = lightest(n, mesh.src, mesh.dst, hours)  # (the walks from the start and to the goal)
    dist, pred, leg = legs.tree(s)
    beyond = (np.isfinite(dist[g]) and not within(dist[g])) or (boat is not None and np.isfinite(dist[boat])
                                                                 and not within(dist[boat]))
    dist[dist > most] = np.inf  # (a way walked beyond the bound is no way)
    # (legs, the boat's start and end when it is taken)
    ways: list[tuple[list[int], tuple[tuple[float, float], tuple[float, float]] | None]] = \
        [(walk(pred, leg, g), None)] if np.isfinite(dist[g]) else []
    moored = None  # where the boat lies, when the party can get to it (and leaves it, unless it takes it)
    if boat is not None and np.isfinite(dist[boat]):
        moored = (_xy(mesh.xy[boat]),) * 2
        water = np.flatnonzero((mesh.kind == LINE) & (mode != "land") & (mode != "none"))
        arrivals = earliest(n, mesh.src, mesh.dst, water, boat, walked(Clock(), dist[boat]),
                            lambda c, k: advance(c, float(miles[k]), float(mph[k]), str(mode[k]), float(drift[k]),
                                                 schedule))
        to_goal, nxt, by = legs.tree(g, reverse=True)
        beyond |= any(np.isfinite(to_goal[v]) and not within(to_goal[v]) for v in arrivals)
        landing = min(((walked(c, to_goal[v]).key, v) for v, (c, _) in arrivals.items() if within(to_goal[v])),
                      default=None)
        if landing is not None and (not ways or landing[0] < walked(Clock(), dist[g]).key):
            v, afloat = landing[1], []
            while arrivals[v][1] >= 0:
                afloat.append(arrivals[v][1])
                v = int(mesh.src[arrivals[v][1]])
            ways.append(([*walk(pred, leg, boat), *afloat[::-1], *walk(nxt, by, landing[1], reverse=True)],
                         (_xy(mesh.xy[boat]), _xy(mesh.xy[landing[1]]))))
    too_long = RequestError(f"at this pace the journey takes more than {MAX_DAYS:,} days (speed {min(speeds):g} ft):"
                            " give a faster speed")
    if not ways and beyond:
        raise too_long
    if not ways:
        return answer(False, boat=moored)
    # each way with its crossings exact, on the calendar; the first to arrive (ties: walking)
    plans = []
    for steps, ends in ways:
        vertices, lengths = _exact(m, mesh, steps, mph, mode, upm)
        plans.append((_days(vertices, steps, lengths, mph, mode, drift, schedule), ends))
    (days, path, modes, day_of, arrived), ends = min(plans, key=lambda p: p[0][-1].key)
    if arrived.day > MAX_DAYS:
        raise too_long
    return answer(True, hours=float(sum(d.hours for d in days)), miles=float(sum(d.miles for d in days)), days=days,
                  path=path, modes=modes, day_of=day_of, arrival=(arrived.day, arrived.hour),
                  boat=moored if ends is None else ends,
                  fatigue=_plan_fatigue(days, who, con_mod) if hustle or forced_march else None)
