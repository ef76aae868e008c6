"""Overland movement: speeds, terrain and roads, mounts and vessels, river current, parties.

Speeds are exact (:class:`~fractions.Fraction`): miles an hour for overland
travel, feet for a round or a minute.

>>> speed_table(30)["hour"]["walk"], speed_table(25)["day"]["walk"]
(Fraction(3, 1), Fraction(20, 1))
>>> multiplier("forest", "trackless"), multiplier("hills", "trail"), multiplier("hills", "trail", vehicle=True)
(Fraction(1, 2), Fraction(3, 4), Fraction(1, 2))
>>> vessel_speed("keelboat", downstream=True, guided=True)[:2]   # (1 + 3) x 10 h, + 3 x 14 h floating
(Fraction(4, 1), Fraction(82, 1))
>>> vessel_speed("keelboat", upstream=True)   # not rowed against the current; towed as a cart goes
(None, None, (Fraction(2, 1), Fraction(16, 1)))
>>> p = party([30, 20], mount=None)
>>> p.land_mph, p.day_hours("land")
(Fraction(2, 1), 8)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.modes import Mode
from eidomap.rules.d20.grid import MAX_SPEED
from eidomap.rules.d20.tables import TERRAINS, Row, tables


class Way(Mode):
    """How a leg of overland travel goes (Table 7-8): by highway, road or trail (a map's road classes), or
    trackless."""

    HIGHWAY = "highway"
    ROAD = "road"
    TRAIL = "trail"
    TRACKLESS = "trackless"


#: Road classes of an overland map, and the column of Table 7-8 each one reads.
CLASSES = {Way.HIGHWAY: "highway", Way.ROAD: "road", Way.TRAIL: "road"}
#: Loads a mount may carry: None (the plain row) or "heavy" (the loaded row).
LOADS = (None, "heavy")
#: Fastest current a vessel's speed is asked with (miles an hour): more than any river, and a day's miles a
#: finite float.
MAX_CURRENT = 1000
#: How a leg of a journey is travelled: on land, rowed, floating (guided, downstream), towed, sailed.
MODES = ("land", "rowed", "float", "towed", "sailed")


def _positive(value: object, what: str) -> Fraction:
    """A speed in feet: a positive number up to :data:`~eidomap.rules.d20.grid.MAX_SPEED`."""
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction) or not 0 < value <= MAX_SPEED:
        raise RequestError(f"{what} must be a positive number of feet up to {MAX_SPEED:,}, got {value!r}")
    return Fraction(value)


def speed_table(speed: float | Fraction) -> dict[str, dict[str, Fraction]]:
    """Table 7-6's column for any speed: ``{scale: {mode: distance}}``; the chapter's "-" cells are left out."""
    s = _positive(speed, "speed")
    return {scale: {mode: f * s for mode, f in modes.items()} for scale, modes in tables().speed_factor.items()}


def multiplier(terrain: str, way: Way | str, vehicle: bool = False) -> Fraction:
    """Table 7-8: the speed multiplier on ``terrain`` by ``way`` (highway, road, trail or trackless).

    A trail "does not benefit a party travelling with vehicles": for them it is trackless.
    """
    row = tables().terrain.get(terrain)
    if row is None:
        raise RequestError(f"terrain {terrain!r} is not in Table 7-8 ({', '.join(TERRAINS)})")
    way = Way.checked(way, "way")
    if way is Way.TRAIL and vehicle:
        way = Way.TRACKLESS
    return row[CLASSES.get(way, way)]


def _lookup(rows: dict[str, Row], kind: str, what: str) -> Row:
    row = rows.get(kind)
    if row is None:
        raise RequestError(f"unknown {what} {kind!r} (Table 7-9: {', '.join(rows)})")
    return row


def pounds(load: str | float | None) -> float | None:
    """A load given as a weight: ``300``, ``"300lb"`` or ``"300 lb"`` -> 300.0; None for ``None`` or ``"heavy"``.

    >>> pounds("300lb"), pounds(" 175.5 lb"), pounds("heavy")
    (300.0, 175.5, None)
    """
    if load is None or (isinstance(load, str) and load in LOADS):
        return None
    value: object = load
    if isinstance(load, str):
        try:
            value = float(load.strip().removesuffix("lb").strip())
        except ValueError:
            value = None
    try:
        return params.real(value, "load", 0)  # (a number: a Python or NumPy one, finite, never a bool)
    except RequestError:
        raise params.refused("load", "'heavy' or a weight in pounds such as '300lb'", load) from None


def mount_row(kind: str, load: str | float | None = None) -> Row:
    """A mount's (or the cart's) row of Table 7-9.

    ``load="heavy"``: its loaded row; a weight (``300``, ``"300lb"``): the
    plain row below the loaded row's range, the loaded row within it, and a
    :class:`RequestError` above it (more than the mount carries).
    """
    row = _lookup(tables().mounts, kind, "mount")
    weight = pounds(load)
    if load is None or (weight is not None and row.loaded is not None and weight < row.loaded.load_pounds[0]):
        return row
    if row.loaded is None:
        raise RequestError(f"Table 7-9 has no loaded row for {kind!r}: a load applies to a mount that carries it")
    high = row.loaded.load_pounds[1]
    if weight is not None and weight > high:
        raise RequestError(f"a {row.label} carries at most {high} lb (Table 7-9's loaded row,"
                           f" {row.loaded.load_range}), got {weight:g} lb")
    return row.loaded


def vessel_row(kind: str) -> Row:
    """A ship's row of Table 7-9."""
    return _lookup(tables().vessels, kind, "vessel")


def _current(current: object) -> Fraction:
    if isinstance(current, bool) or not isinstance(current, int | float | Fraction) or not 0 <= current <= MAX_CURRENT:
        raise RequestError(f"the current must be a number of miles an hour from 0 to {MAX_CURRENT:,}, got {current!r}")
    return Fraction(current)


def towed_speed(vessel: Row) -> tuple[Fraction, Fraction]:
    """Miles per hour and per day of a river craft towed upstream by draft animals on the bank.

    Table 7-9 has no towing row: towing is read as a vehicle pulled by draft
    animals (the cart or wagon row, 2 mph, 16 miles a day), never faster than
    the row of the towed craft's kind where the table has one (the raft or
    barge, "poled or towed": 1/2 mph, 5 miles a day).
    """
    cart = next(row for row in tables().mounts.values() if row.vehicle)
    if not vessel.towed:
        return cart.per_hour, cart.per_day
    return min(cart.per_hour, vessel.per_hour), min(cart.per_day, vessel.per_day)


def vessel_speed(kind: str, downstream: bool = False, current: float | None = None, guided: bool = False,
                 upstream: bool = False
                 ) -> tuple[Fraction | None, Fraction | None, tuple[Fraction, Fraction] | None]:
    """A vessel's miles per hour and per day, with footnote 2 of Table 7-9 applied, and its towed speed.

    Rafts, barges, keelboats and rowboats going downstream add the current
    (3 mph unless given) to their speed for their 10 rowed hours, and, if
    ``guided``, float 14 more hours at the current's speed.  ``upstream``,
    against a current they cannot be rowed (``None, None``) but can be towed:
    the third value, :func:`towed_speed` (None otherwise).  Other ships go at the
    table's speed both ways (they neither add the current nor float), as do craft on
    still water.
    """
    row = vessel_row(kind)
    r = tables().rules
    if downstream and upstream:
        raise RequestError("a vessel goes downstream or upstream, not both")
    if guided and not downstream:
        raise RequestError("floating (guided) carries a craft downstream only: set downstream=True")
    if guided and not row.river:
        raise RequestError(f"floating is for rafts, keelboats and rowboats, not {kind!r}: other ships sail at"
                           " their own speed")
    c = _current(r["current_mph"] if current is None else current) if downstream or upstream else Fraction(0)
    if not row.river:  # other ships sail a river both ways at their speed
        c = Fraction(0)
    if upstream and c > 0:
        return None, None, towed_speed(row)
    per_hour = row.per_hour + (c if downstream else 0)
    per_day = per_hour * row.day_hours + (c * r["float_hours"] if guided else 0)
    return per_hour, per_day, None


def river_mph(vessel: Row, tow: Row | None, current: Fraction, downstream: bool) -> tuple[Fraction, str] | None:
    """Speed and mode of ``vessel`` on a river stretch; None if it cannot go that way.

    Downstream, river craft add the current; upstream they cannot be rowed
    against a current (any current above 0: the chapter's text says they
    cannot be rowed upstream), but can be towed from the bank by the draft
    animals ``tow`` (:func:`towed_speed`).  Other ships sail both ways at
    their speed.
    """
    if not vessel.river:
        return vessel.per_hour, "sailed"
    if downstream:
        return vessel.per_hour + current, "rowed"
    if current == 0:
        return vessel.per_hour, "rowed"
    return None if tow is None else (towed_speed(vessel)[0], "towed")


@dataclass(frozen=True)
class Party:
    """Who travels: its land speed (the slowest member), land vehicle, vessel and tow."""

    land_mph: Fraction
    mounted: bool = False
    vehicle: bool = False
    vessel: Row | None = None
    tow: Row | None = None

    def day_hours(self, mode: str) -> int:
        """Hours of travel in a day for legs travelled this way (floating: after the rowed hours)."""
        r = tables().rules
        if mode == "rowed":
            return r["rowed_day_hours"]
        if mode == "float":
            return r["rowed_day_hours"] + r["float_hours"]
        if mode == "sailed":
            return r["sailed_day_hours"]
        if mode == "towed" and self.vessel is not None:
            per_hour, per_day = towed_speed(self.vessel)
            return int(per_day / per_hour)
        return r["day_hours"]


def party(speeds: Sequence[float] = (30,), mount: str | None = None, load: str | float | None = None,
          vehicle: str | None = None, towed_by: str | None = None) -> Party:
    """A party: walkers of these speeds (feet), or riding ``mount``, with a cart or a vessel.

    On land it moves at the speed of its slowest member: the walkers (speed /
    10 mph), or the mount (Table 7-9, its loaded row with ``load="heavy"`` or
    a weight in its range: :func:`mount_row`),
    and a cart or wagon.  ``vehicle`` may be a ship of Table 7-9, used on
    rivers; ``towed_by`` names the draft animal that tows it upstream.
    """
    walk = tables().speed_factor["hour"]["walk"]
    if mount is not None:
        land = mount_row(mount, load).per_hour
    else:
        if load is not None:
            raise RequestError("a load applies to a mount: give one")
        if not speeds:
            raise RequestError("a party needs at least one member")
        land = min(_positive(s, "speed") for s in speeds) * walk
    cart = vessel = None
    if vehicle is not None:
        if vehicle in tables().mounts and tables().mounts[vehicle].vehicle:
            cart = tables().mounts[vehicle]
            land = min(land, cart.per_hour)
        else:
            vessel = vessel_row(vehicle)
    tow = None
    if towed_by is not None:
        if vessel is None or not vessel.river:
            raise RequestError("towing applies to a raft, barge, keelboat or rowboat (vehicle=...)")
        tow = mount_row(towed_by)
        if tow.vehicle:
            raise RequestError(f"{towed_by!r} is a vehicle, not a draft animal")
    return Party(land, mount is not None, cart is not None, vessel, tow)
