"""The tables of the d20 movement chapter, read from ``eidomap/data/d20_tables.toml``.

Every cell is kept exactly (multipliers and miles as :class:`~fractions.Fraction`).

>>> t = tables()
>>> t.terrain["forest"]["trackless"]
Fraction(1, 2)
>>> t.vessels["keelboat"].per_hour, t.mounts["light-horse"].loaded.per_day
(Fraction(1, 1), Fraction(28, 1))
>>> t.speed_factor["hour"]["walk"]  # miles an hour per foot of speed
Fraction(1, 10)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources

#: Scales of Table 7-6, in its order, and the unit of each.
SCALES = {"round": "ft", "minute": "ft", "hour": "mi", "day": "mi"}
#: The columns of Table 7-8: how a stretch is travelled ("road" is "road or trail").
WAYS = ("highway", "road", "trackless")
#: The terrains of Table 7-8, in its order.
TERRAINS = ("desert", "forest", "hills", "jungle", "moor", "mountains", "plains", "swamp", "tundra")


@dataclass(frozen=True)
class Row:
    """A row of Table 7-9: miles per hour and per day; ``loaded`` is the heavy-load row (carrying
    ``load_range``), ``towed`` says the row is the craft's speed when towed too."""

    kind: str
    label: str
    group: str
    per_hour: Fraction
    per_day: Fraction
    river: bool = False
    vehicle: bool = False
    towed: bool = False
    loaded: Row | None = None
    load_range: str = ""

    @property
    def load_pounds(self) -> tuple[int, int]:
        """The loaded row's range of pounds (``load_range`` read), ``(0, 0)`` for no range."""
        if not self.load_range:
            return 0, 0
        low, high = self.load_range.removesuffix(" lb").split("-")
        return int(low), int(high)

    @property
    def day_hours(self) -> Fraction:
        """Hours of travel in the row's day: 8 ridden, 10 rowed, 24 sailed."""
        return self.per_day / self.per_hour


@dataclass(frozen=True)
class Tables:
    """Tables 7-6, 7-8 and 7-9, and the numbers the chapter gives in its text.

    ``speeds`` are Table 7-6's columns; ``movement[scale][mode]`` its cells
    (one per column); ``speed_factor[scale][mode]`` the distance per foot of
    speed, the same for every column; ``terrain[name][way]`` Table 7-8;
    ``mounts`` and ``vessels`` Table 7-9 (``mounts`` holds the cart too).
    """

    speeds: tuple[int, ...]
    movement: dict[str, dict[str, tuple[Fraction, ...]]]
    speed_factor: dict[str, dict[str, Fraction]]
    terrain: dict[str, dict[str, Fraction]]
    terrain_labels: dict[str, str]
    mounts: dict[str, Row]
    vessels: dict[str, Row]
    rules: dict[str, int]


def _row(kind: str, spec: dict) -> Row:
    loaded = spec.get("loaded")
    heavy = None
    if loaded:
        heavy = Row(kind, f"{spec['label']} ({loaded['range']})", spec["group"], Fraction(loaded["per_hour"]),
                    Fraction(loaded["per_day"]), load_range=loaded["range"])
    return Row(kind, spec["label"], spec["group"], Fraction(spec["per_hour"]), Fraction(spec["per_day"]),
               river=spec.get("river", False), vehicle=spec.get("vehicle", False), towed=spec.get("towed", False),
               loaded=heavy)


def _factors(speeds: tuple[int, ...], movement: dict) -> dict[str, dict[str, Fraction]]:
    """Distance per foot of speed of every row; the table must be proportional to speed."""
    out: dict[str, dict[str, Fraction]] = {}
    for scale, rows in movement.items():
        out[scale] = {}
        for mode, cells in rows.items():
            ratios = {c / s for c, s in zip(cells, speeds, strict=True)}
            if len(ratios) != 1:
                raise ValueError(f"Table 7-6 {scale}/{mode} is not proportional to speed: {cells}")
            out[scale][mode] = ratios.pop()
    return out


@cache
def tables() -> Tables:
    """The chapter's tables, read once from the package data."""
    doc = tomllib.loads(resources.files("eidomap").joinpath("data/d20_tables.toml").read_text("utf-8"))
    t76 = doc["table_7_6"]
    speeds = tuple(t76["speeds"])
    movement = {scale: {mode: tuple(Fraction(c) for c in cells) for mode, cells in t76[scale].items()}
                for scale in SCALES}
    terrain = {name: {way: Fraction(row[way]) for way in WAYS} for name, row in doc["table_7_8"].items()}
    labels = {name: row["label"] for name, row in doc["table_7_8"].items()}
    rows = {kind: _row(kind, spec) for kind, spec in doc["table_7_9"].items()}
    return Tables(speeds, movement, _factors(speeds, movement), terrain, labels,
                  {k: r for k, r in rows.items() if r.group == "mount"},
                  {k: r for k, r in rows.items() if r.group == "ship"}, dict(doc["rules"]))
