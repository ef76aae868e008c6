"""The travel day: when each way of travel may go on, and a clock that walks a journey through it.

A day is 8 hours of travel on land, 10 hours of rowing (then, for a guided
craft going downstream, floating until the 24th hour), 8 hours towed (the
draft animals' day: :func:`~eidomap.rules.d20.speeds.towed_speed`), 24 hours
sailing; one clock runs through a day that mixes them (three hours' walk to
the river leave seven to row).  On land the first ``hustle`` hours of a day go
at double speed and ``forced`` hours more may be marched; a party that ends a
day fatigued for certain (hustle damage, or a forced march whose damage is
certain, as a mount's) does not hustle the next day.  When the way it is going
has no hour left, the party camps where it is.  Times compare on the calendar:
day, then hour of the day.

>>> s = Schedule(hustle=2)
>>> c = advance(Clock(), 30.0, 3.0, "land", 0.0, s)   # 2 h hustled at 6 mph, 6 h walked: 30 miles
>>> (c.day, c.hour, c.hustled), s.fatigued(c)
((1, 8.0, 2.0), True)
>>> c = advance(c, 15.0, 3.0, "land", 0.0, s)   # the next day: no hustle, 5 hours
>>> c.day, c.hour, c.rested
(2, 5.0, False)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from eidomap.rules.d20 import fatigue
from eidomap.rules.d20.tables import tables

#: Hours and miles closer than this are equal (the sums of a mesh's legs).
EPS = 1e-9
#: How a piece of a journey goes: the party's pace on land, hustling, rowed, floating, towed, sailed.
HOWS = ("land", "hustle", "rowed", "float", "towed", "sailed")


@dataclass(frozen=True)
class Schedule:
    """A party's travel day: the hours hustled and force-marched on land, floating when guided, the towed
    day's hours, whether it rides (a mount's forced march always deals damage) and its Constitution."""

    hustle: int = 0
    forced: int = 0
    guided: bool = False
    towed_hours: int = 8
    mounted: bool = False
    con_mod: int = 0

    def limit(self, mode: str) -> int:
        """The hour of the day at which legs travelled this way stop (floating: after the rowed hours)."""
        r = tables().rules
        return {"land": r["day_hours"] + self.forced, "rowed": r["rowed_day_hours"],
                "float": r["rowed_day_hours"] + r["float_hours"], "towed": self.towed_hours,
                "sailed": r["sailed_day_hours"]}[mode]

    def fatigued(self, clock: Clock) -> bool:
        """Does the day of ``clock`` end with the party fatigued for certain (any part of an hour counts)?"""
        hustled = fatigue.hustle_damage(math.ceil(clock.hustled - EPS)) > 0
        # (no damage is impossible exactly when one of the march's checks fails for certain: the odds of none
        # are the product of each hour's odds of passing -- no need to build the damage's distribution each day)
        walk = tables().rules["day_hours"]
        marched = any(fatigue.forced_march_fail(hour, self.con_mod, self.mounted) == 1
                      for hour in range(walk + 1, walk + math.ceil(clock.forced - EPS) + 1))
        return hustled or marched


@dataclass(frozen=True)
class Clock:
    """Where a journey stands on the calendar: ``day`` (from 1) and ``hour`` of it, the hours hustled and
    force-marched that day, whether the party may hustle that day (``rested``) and the hours travelled."""

    day: int = 1
    hour: float = 0.0
    hustled: float = 0.0
    forced: float = 0.0
    rested: bool = True
    travelled: float = 0.0

    @property
    def time(self) -> float:
        """Hours since the journey began, on the calendar (24 a day)."""
        return 24.0 * (self.day - 1) + self.hour

    @property
    def key(self) -> tuple[int, float, float]:
        """What a search compares: the day, the hour of it (within :data:`EPS`), then the hours travelled."""
        return self.day, round(self.hour / EPS) * EPS, self.travelled


@dataclass
class Piece:
    """A stretch of a leg travelled one way within one day: ``hours`` from ``clock``, ``miles`` of the leg."""

    clock: Clock
    hours: float
    miles: float
    how: str
    camp_before: bool = field(default=False)


def _phase(clock: Clock, mph: float, mode: str, drift: float, schedule: Schedule) -> tuple[float, float, str] | None:
    """Speed, the hour it lasts until and how, for a leg travelled ``mode`` at ``clock``; None: camp."""
    h = clock.hour
    if mode == "land":
        land = schedule.limit("land")
        if h >= land - EPS:
            return None
        if clock.rested and h < schedule.hustle - EPS:
            return 2 * mph, min(schedule.hustle, land), "hustle"
        return mph, land, "land"
    if h < schedule.limit(mode) - EPS:
        return mph, schedule.limit(mode), mode
    if mode == "rowed" and schedule.guided and drift > 0 and h < schedule.limit("float") - EPS:
        return drift, schedule.limit("float"), "float"
    return None


def _travelled(clock: Clock, dt: float, how: str) -> Clock:
    """The clock after ``dt`` hours travelled ``how`` from ``clock`` (on land, those past the walking day forced)."""
    walk = tables().rules["day_hours"]
    forced = max(0.0, clock.hour + dt - max(clock.hour, walk)) if how in ("land", "hustle") else 0.0
    return replace(clock, hour=clock.hour + dt, hustled=clock.hustled + (dt if how == "hustle" else 0.0),
                   forced=clock.forced + forced, travelled=clock.travelled + dt)


def _camped(clock: Clock, schedule: Schedule) -> Clock:
    """The next morning: a party that ended the day fatigued for certain may not hustle."""
    return Clock(clock.day + 1, rested=not schedule.fatigued(clock), travelled=clock.travelled)


def _whole_day(morning: Clock, mph: float, mode: str, drift: float, schedule: Schedule) -> tuple[float, Clock]:
    """The miles a whole day from ``morning`` covers travelling ``mode``, and the next morning."""
    clock, miles = morning, 0.0
    while (now := _phase(clock, mph, mode, drift, schedule)) is not None:
        speed, until, how = now
        miles += (until - clock.hour) * speed
        clock = _travelled(clock, until - clock.hour, how)
    return miles, _camped(clock, schedule)


def _repeats(morning: Clock, left: float, mph: float, mode: str, drift: float,
             schedule: Schedule) -> tuple[Clock, float]:
    """The morning after the whole days of a leg that repeat from ``morning``, and the miles they cover.

    A day of one way of travel depends only on whether the party may hustle that morning, so from
    ``morning`` the days repeat every day or every other day: all but the last repeats of that cycle
    that ``left`` miles hold are counted at once (the last ones are walked, as any day).  A slow party's
    leg of thousands of days costs a few days' work, not a loop a day.
    """
    days, miles, after = 0, 0.0, morning
    while days == 0 or (days == 1 and after.rested != morning.rested):
        covered, after = _whole_day(after, mph, mode, drift, schedule)
        days, miles = days + 1, miles + covered
    cycles = int(left // miles) - 1 if after.rested == morning.rested and miles > 0 else 0
    if cycles < 1:
        return morning, 0.0
    return replace(morning, day=morning.day + cycles * days,
                   travelled=morning.travelled + cycles * (after.travelled - morning.travelled)), cycles * miles


def advance(clock: Clock, miles: float, mph: float, mode: str, drift: float, schedule: Schedule,
            pieces: list[Piece] | None = None) -> Clock:
    """The clock after a leg of ``miles`` travelled ``mode`` at ``mph`` (``drift``: the current carrying a
    guided craft downstream), camping whenever the way has no hour left that day.

    ``pieces``, when given, receives the leg's pieces in order (the first of a day marked ``camp_before``).
    Never earlier for a later start: an earlier clock arrives no later (the searches rely on it).
    """
    done, camped = 0.0, False
    while miles - done > EPS * max(miles, 1.0):
        now = _phase(clock, mph, mode, drift, schedule)
        if now is None:
            clock, camped = _camped(clock, schedule), True
            if pieces is None:  # (an itinerary lists every day)
                clock, skipped = _repeats(clock, miles - done, mph, mode, drift, schedule)
                done += skipped
            continue
        speed, until, how = now
        dt = min(until - clock.hour, (miles - done) / speed)
        step = min(miles - done, dt * speed)
        if pieces is not None:
            pieces.append(Piece(clock, dt, step, how, camped))
        clock = _travelled(clock, dt, how)
        done += step
        camped = False
    return clock
