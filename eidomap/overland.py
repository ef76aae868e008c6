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
from pathlib import Path

import numpy as np
import shapely

from .errors import MapError, RequestError
from .geometry import larger_side
from .rules.d20 import chase as _chase
from .rules.d20 import fatigue as _fatigue
from .rules.d20 import overland as _rules
from .rules.d20.tables import TERRAINS, tables
from .search.mesh import LINE, build_mesh, shortest_path

__all__ = ["Chase", "Day", "FatigueOdds", "MountSpeed", "SpeedTable", "Travel", "VesselSpeed", "chase",
           "example_map_path", "forced_march", "hustle", "mount_speed", "speed_table", "travel", "vessel_speed"]

#: Default mesh spacing: the map's larger side cut into this many pieces.
MESH_PIECES = 64
_EPS = 1e-9


def example_map_path() -> Path:
    """Path of the bundled overland map (``maps/d20-overland.geojson`` in a source checkout)."""
    from . import bundled_map_path

    return bundled_map_path("d20-overland.geojson")


def number(x: Fraction | float) -> int | float:
    """A whole number as an int, anything else as a float (for printing and JSON)."""
    return int(x) if x == int(x) else float(x)


# -- tables ----------------------------------------------------------------------------
@dataclass
class SpeedTable:
    """Table 7-6's column for a speed: distances by scale and mode; ``run_rounds`` from a Con score."""

    speed: float
    cells: dict[str, dict[str, Fraction]]
    run_rounds: int | None = None

    def as_dict(self) -> dict:
        out: dict = {"speed": number(self.speed)}
        out.update({scale: {mode: number(v) for mode, v in modes.items()} for scale, modes in self.cells.items()})
        if self.run_rounds is not None:
            out["run_rounds"] = self.run_rounds
        return out


def speed_table(speed, con: int | None = None) -> SpeedTable:
    """Table 7-6 for any speed (feet); with a Constitution score, the rounds a run can last (local scale)."""
    if con is not None and (isinstance(con, bool) or not isinstance(con, int) or con < 0):
        raise RequestError(f"a Constitution score must be a whole number >= 0, got {con!r}")
    return SpeedTable(speed, _rules.speed_table(speed), con)


@dataclass
class MountSpeed:
    """A Table 7-9 row of a mount or the cart."""

    kind: str
    per_hour: Fraction
    per_day: Fraction
    label: str = ""

    def as_dict(self) -> dict:
        return {"kind": self.kind, "per_hour": number(self.per_hour), "per_day": number(self.per_day)}


def mount_speed(kind: str, load: str | None = None) -> MountSpeed:
    """Miles per hour and per day of a mount (``load="heavy"``: its loaded row) or the cart."""
    row = _rules.mount_row(kind, load)
    return MountSpeed(kind, row.per_hour, row.per_day, row.label)


@dataclass
class VesselSpeed:
    """A vessel's speed with the river rules applied."""

    kind: str
    per_hour: Fraction
    per_day: Fraction

    def as_dict(self) -> dict:
        return {"per_hour": number(self.per_hour), "per_day": number(self.per_day)}


def vessel_speed(kind: str, downstream: bool = False, current=None, guided: bool = False) -> VesselSpeed:
    """Miles per hour and per day of a Table 7-9 ship, downstream with the current, floating if guided."""
    return VesselSpeed(kind, *_rules.vessel_speed(kind, downstream, current, guided))


# -- fatigue ------------------------------------------------------------------------------
@dataclass
class FatigueOdds:
    """P(fatigued) and the distribution of damage (nonlethal; lethal for a mount)."""

    p_fatigued: float
    damage: dict[int, float]
    lethal: bool

    @classmethod
    def of(cls, pmf: _fatigue.Pmf, lethal: bool) -> FatigueOdds:
        return cls(float(_fatigue.p_fatigued(pmf)), {k: float(p) for k, p in pmf.items()}, lethal)

    @property
    def expected_damage(self) -> float:
        return sum(k * p for k, p in self.damage.items())

    def as_dict(self) -> dict:
        return {"p_fatigued": self.p_fatigued, "damage": {str(k): p for k, p in self.damage.items()},
                "lethal": self.lethal}


def hustle(hours: int, mount: bool = False) -> FatigueOdds:
    """Hustling ``hours`` between sleep cycles: certain damage from the second hour on."""
    return FatigueOdds.of(_fatigue.hustle_pmf(hours), mount)


def forced_march(hours: int, con_mod: int = 0, mount: bool = False) -> FatigueOdds:
    """Marching ``hours`` in a day: a Con check each hour beyond 8 (a mount's always fails)."""
    if isinstance(con_mod, bool) or not isinstance(con_mod, int):
        raise RequestError(f"the Constitution modifier must be a whole number, got {con_mod!r}")
    return FatigueOdds.of(_fatigue.forced_march_pmf(hours, con_mod, mount), mount)


# -- chases -----------------------------------------------------------------------------------
@dataclass
class Chase:
    """The chance that the quarry (first of ``speeds``) escapes."""

    speeds: list
    mods: list[int]
    check: str
    p_escape: float

    def as_dict(self) -> dict:
        return {"p_escape": self.p_escape}


def chase(speeds: Sequence, mods: Sequence[int] | None = None, long: bool = False) -> Chase:
    """Evasion and pursuit: the quarry first; ``mods`` are Dexterity (Constitution if ``long``) modifiers."""
    p = _chase.p_escape(list(speeds), None if mods is None else list(mods))
    return Chase(list(speeds), list(mods or [0] * len(speeds)), "Constitution" if long else "Dexterity", float(p))


# -- journeys on a map ----------------------------------------------------------------------
@dataclass
class Day:
    """One day of a journey: hours and miles travelled, where it ends (the night's camp or the goal)."""

    day: int
    hours: float
    miles: float
    end: tuple[float, float]
    hustled: float = 0.0
    forced: float = 0.0

    def as_dict(self) -> dict:
        return {"day": self.day, "hours": self.hours, "miles": self.miles, "end": list(self.end)}


@dataclass
class Travel:
    """The answer of :func:`travel`.

    ``path`` is the route in map units (night camps included as vertices);
    ``modes[k]`` and ``day_of[k]`` say how leg ``k`` (``path[k] -> path[k+1]``)
    is travelled and on which day; ``fatigue`` is the plan's odds when it
    hustles or force-marches.
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
    land_mph: float = 0.0
    spacing_miles: float = 0.0
    fatigue: dict | None = None

    def as_dict(self) -> dict:
        out = {"hours": self.hours, "miles": self.miles, "days": [d.as_dict() for d in self.days],
               "path": [list(p) for p in self.path]}
        if self.fatigue is not None:
            out["fatigue"] = self.fatigue
        return out


def _d20_map(m) -> float:
    """The map's units per mile, after checking it is a d20 overland map with Table 7-8 terrains."""
    if m.rules != "d20":
        raise MapError(m.path, None, f"is drawn for the {m.rules!r} rules; overland travel needs 'rules': 'd20'")
    upm = m.data.meta.get("units_per_mile")
    if upm is None:
        raise MapError(m.path, None, "has no 'units_per_mile' in its 'eidomap' member (needed for overland travel)")
    for eid, t in zip(m.eido_ids, m.terrains, strict=True):
        if t not in TERRAINS:
            raise MapError(m.path, repr(eid), f"has terrain {t!r}, which is not in Table 7-8 ({', '.join(TERRAINS)})")
    return float(upm)


def _place(m, where) -> tuple[str, tuple[float, float]]:
    """A region id (its representative point: Shapely's point_on_surface) or ``"x,y"`` or ``(x, y)``."""
    if isinstance(where, str) and where in m._id_index:
        return where, tuple(float(v) for v in m.positions[m.index(where)])
    if isinstance(where, str):
        parts = where.split(",")
        try:
            xy = tuple(float(v) for v in parts) if len(parts) == 2 else None
        except ValueError:
            xy = None
        if xy is None:
            raise RequestError(f"{m.path or m.name}: {where!r} is neither a region id nor a point x,y")
    else:
        xy = tuple(float(v) for v in where)
    if len(xy) != 2 or not all(math.isfinite(v) for v in xy):
        raise RequestError(f"a point must be two finite numbers x,y, got {where!r}")
    if not shapely.dwithin(m.geometries, shapely.Point(xy), m.tolerance).any():
        raise RequestError(f"{m.path or m.name}: the point {xy[0]:g},{xy[1]:g} lies in no region of the map")
    return f"{xy[0]:g},{xy[1]:g}", xy


def _leg_speeds(m, mesh, party: _rules.Party, upm: float) -> tuple[np.ndarray, ...]:
    """Miles an hour, mode, floating speed and miles of every mesh leg (speed 0: cannot be travelled)."""
    terrain = np.asarray(m.terrains, dtype=object)[mesh.region]
    n_roads = len(m.data.roads)
    road = (mesh.kind == LINE) & (mesh.line < n_roads)
    river = (mesh.kind == LINE) & (mesh.line >= n_roads)
    way = np.full(len(mesh.src), "trackless", dtype=object)
    way[road] = np.asarray(m.data.road_class, dtype=object)[mesh.line[road]]
    mult = np.array([float(_rules.multiplier(tr, w, party.vehicle)) for tr, w in
                     zip(terrain.tolist(), way.tolist(), strict=True)]) if len(way) else np.empty(0)
    mph = float(party.land_mph) * mult
    mode = np.full(len(mph), "land", dtype=object)
    drift = np.zeros(len(mph))
    if river.any():
        current = m.data.river_current[mesh.line[river] - n_roads]
        speeds = [None if party.vessel is None else _rules.river_mph(party.vessel, party.tow, Fraction(c), bool(f))
                  for c, f in zip(current.tolist(), mesh.forward[river].tolist(), strict=True)]
        mph[river] = [0.0 if s is None else float(s[0]) for s in speeds]
        mode[river] = ["none" if s is None else s[1] for s in speeds]
        if party.vessel is not None and party.vessel.river:
            drift[river] = np.where(mesh.forward[river], current, 0.0)
    return mph, mode, drift, mesh.length / upm


def _schedule(legs: list[tuple], party: _rules.Party, hustle_h: int, forced_h: int, guided: bool):
    """Walk the route hour by hour of each day: the days, the path with camps, and each piece's mode and day.

    ``legs``: ``(a, b, miles, mph, mode, drift)``.  Land legs move for 8 hours
    a day plus the forced-march hours, the first ``hustle_h`` at double speed;
    rowed legs 10 hours, then (``guided``, downstream) float at the current
    until 24; towed legs 8 hours; sailed legs 24.
    """
    r = tables().rules
    land_limit = r["day_hours"] + forced_h
    days: list[Day] = []
    path, modes, day_of = [tuple(map(float, legs[0][0]))], [], []
    clock = day_miles = hustled = forced = 0.0

    def phase(mode: str, mph: float, drift: float) -> tuple[float, float, str] | None:
        """Speed, end of the phase (clock hours) and mode right now; None: camp."""
        if mode == "land":
            if clock < hustle_h - _EPS and clock < land_limit - _EPS:
                return 2 * mph, min(hustle_h, land_limit), "hustle"
            return (mph, land_limit, "land") if clock < land_limit - _EPS else None
        limit = party.day_hours(mode)
        if clock < limit - _EPS:
            return mph, limit, mode
        if mode == "rowed" and guided and drift > 0 and clock < party.day_hours("float") - _EPS:
            return drift, party.day_hours("float"), "float"
        return None

    for a, b, miles, mph, mode, drift in legs:
        a, b, miles, mph, drift = np.asarray(a, float), np.asarray(b, float), float(miles), float(mph), float(drift)
        done = 0.0
        while miles - done > _EPS * max(miles, 1.0):
            now = phase(mode, mph, drift)
            if now is None:  # camp for the night
                days.append(Day(len(days) + 1, clock, day_miles, tuple(path[-1]), hustled, forced))
                clock = day_miles = hustled = forced = 0.0
                continue
            speed, until, how = now
            dt = min(until - clock, (miles - done) / speed)
            if how == "hustle":
                hustled += dt
            elif how == "land" and clock + dt > r["day_hours"] + _EPS:
                forced += clock + dt - max(clock, r["day_hours"])
            clock += dt
            done = min(miles, done + dt * speed)
            day_miles += dt * speed
            path.append(tuple((a + (b - a) * (done / miles)).tolist()))
            modes.append(how)
            day_of.append(len(days) + 1)
    days.append(Day(len(days) + 1, clock, day_miles, tuple(path[-1]), hustled, forced))
    return days, path, modes, day_of


def _plan_fatigue(days: list[Day], party: _rules.Party, con_mod: int) -> dict:
    """Expected damage and P(fatigued at least once) of the plan's hustled and force-marched hours.

    Any part of an hour counts as that hour; damage heals overnight (each day is one sleep cycle).
    """
    day_hours = tables().rules["day_hours"]
    expected, p_fresh = Fraction(0), Fraction(1)
    for d in days:
        pmf = _fatigue.forced_march_pmf(day_hours + math.ceil(d.forced - _EPS), con_mod, party.mounted)
        extra = _fatigue.hustle_damage(math.ceil(d.hustled - _EPS))
        expected += extra + sum(k * p for k, p in pmf.items())
        p_fresh *= pmf.get(0, Fraction(0)) if extra == 0 else 0
    return {"expected_damage": float(expected), "p_fatigued": float(1 - p_fresh), "lethal": party.mounted}


def _hours_option(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RequestError(f"{what} must be a whole number of hours >= 0, got {value!r}")
    return value


def travel(m, start, goal, speed=30, party: Sequence = (), mount: str | None = None, load: str | None = None,
           vehicle: str | None = None, towed_by: str | None = None, hustle: int = 0, forced_march: int = 0,
           con_mod: int = 0, guided: bool = False, spacing: float | None = None) -> Travel:
    """The fastest journey from ``start`` to ``goal`` on a d20 overland map, and its day-by-day plan.

    Parameters
    ----------
    m : Map
        A map with ``"rules": "d20"`` and ``units_per_mile``.
    start, goal : str or (x, y)
        A region id (its representative point, Shapely's ``point_on_surface``,
        as :attr:`~eidomap.model.Map.positions`), ``"x,y"`` or a pair, in map units.
    speed, party : feet
        The walkers' speeds; the party moves at the slowest.
    mount, load : str
        Everyone rides this Table 7-9 mount (``load="heavy"``: its loaded row).
    vehicle : str
        A cart or wagon (slows the party, no benefit from trails), or a ship
        used on rivers (rowed craft: current downstream, no rowing against it).
    towed_by : str
        A draft animal (Table 7-9 mount) that tows the boat upstream from the bank.
    hustle, forced_march : int
        Hours hustled at the start of each day; hours marched beyond 8 a day.
    guided : bool
        Rowed craft float 14 more hours a day downstream.
    spacing : float
        Mesh spacing in miles (default: the map's larger side / 64).
    """
    upm = _d20_map(m)
    start_name, a = _place(m, start)
    goal_name, b = _place(m, goal)
    who = _rules.party([speed, *party], mount, load, vehicle, towed_by)
    hustle, forced_march = _hours_option(hustle, "hustle"), _hours_option(forced_march, "forced march")
    if spacing is None:
        step = larger_side(m.geometries) / MESH_PIECES
    elif isinstance(spacing, bool) or not isinstance(spacing, int | float) or not 0 < spacing < math.inf:
        raise RequestError(f"the mesh spacing must be a positive number of miles, got {spacing!r}")
    else:
        step = spacing * upm
    rivers = m.data.rivers.geoms if who.vessel is not None else []
    lines = np.concatenate([np.asarray(m.data.roads.geoms, dtype=object), np.asarray(rivers, dtype=object)])
    mesh = build_mesh(m.geometries, lines, step, m.tolerance, points=[a, b])
    mph, mode, drift, miles = _leg_speeds(m, mesh, who, upm)
    with np.errstate(divide="ignore"):
        hours = np.where(mph > 0, miles / np.where(mph > 0, mph, 1.0), np.inf)
    out = Travel(start_name, goal_name, False, land_mph=float(who.land_mph), spacing_miles=step / upm)
    total, _, legs = shortest_path(len(mesh.xy), mesh.src, mesh.dst, hours, mesh.extra[0], mesh.extra[1])
    if not np.isfinite(total):
        return out
    steps = [(mesh.xy[mesh.src[k]], mesh.xy[mesh.dst[k]], miles[k], mph[k], mode[k], drift[k]) for k in legs]
    if not steps:
        steps = [(np.asarray(a), np.asarray(b), 0.0, 1.0, "land", 0.0)]
    out.days, out.path, out.modes, out.day_of = _schedule(steps, who, hustle, forced_march, guided)
    out.reachable = True
    out.hours = float(sum(d.hours for d in out.days))
    out.miles = float(miles[legs].sum())
    if hustle or forced_march:
        out.fatigue = _plan_fatigue(out.days, who, con_mod)
    return out
