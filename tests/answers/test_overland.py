"""d20 overland movement: the chapter's tables cell by cell, its worked examples, the exact odds
(against brute-force enumeration), journeys on maps, the command line."""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections import Counter
from fractions import Fraction as F

import numpy as np
import pytest
import shapely
from conftest import collection, eido, feature
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eidomap.answers import overland
from eidomap.answers.overland import (
    chase,
    example_map_path,
    forced_march,
    hustle,
    mount_speed,
    speed_table,
    travel,
    vessel_speed,
)
from eidomap.base.errors import MapError, RequestError
from eidomap.cli import main
from eidomap.rules.d20 import chase as chase_rules
from eidomap.rules.d20 import fatigue
from eidomap.rules.d20.calendar import Clock, Schedule, advance
from eidomap.rules.d20.speeds import mount_row, multiplier, party, vessel_row
from eidomap.rules.d20.tables import tables
from eidomap.search.mesh import earliest

# -- the tables, typed from the chapter ---------------------------------------------------------
TABLE_7_6 = {  # speed: (round walk, hustle, run x3, run x4 | minute ... | hour walk, hustle | day walk)
    15: ((15, 30, 45, 60), (150, 300, 450, 600), (F(3, 2), 3), 12),
    20: ((20, 40, 60, 80), (200, 400, 600, 800), (2, 4), 16),
    30: ((30, 60, 90, 120), (300, 600, 900, 1200), (3, 6), 24),
    40: ((40, 80, 120, 160), (400, 800, 1200, 1600), (4, 8), 32),
}
TABLE_7_8 = {  # highway, road or trail, trackless
    "desert": ("1", "1/2", "1/2"), "forest": ("1", "1", "1/2"), "hills": ("1", "3/4", "1/2"),
    "jungle": ("1", "3/4", "1/4"), "moor": ("1", "1", "3/4"), "mountains": ("3/4", "3/4", "1/2"),
    "plains": ("1", "1", "3/4"), "swamp": ("1", "3/4", "1/2"), "tundra": ("1", "3/4", "3/4"),
}
TABLE_7_9_MOUNTS = {  # per hour, per day; loaded row
    "light-horse": (5, 40, (F(7, 2), 28)), "heavy-horse": (5, 40, (F(7, 2), 28)),
    "pony": (4, 32, (3, 24)), "riding-dog": (4, 32, (3, 24)), "cart": (2, 16, None),
}
TABLE_7_9_SHIPS = {
    "raft": (F(1, 2), 5), "keelboat": (1, 10), "rowboat": (F(3, 2), 15), "sailing-ship": (2, 48),
    "warship": (F(5, 2), 60), "longship": (3, 72), "galley": (4, 96),
}


@pytest.mark.parametrize("speed", TABLE_7_6)
def test_table_7_6_cell_by_cell(speed):
    rnd, minute, hour, day = TABLE_7_6[speed]
    col = tables().speeds.index(speed)
    mv = tables().movement
    assert tuple(mv["round"][m][col] for m in ("walk", "hustle", "run3", "run4")) == rnd
    assert tuple(mv["minute"][m][col] for m in ("walk", "hustle", "run3", "run4")) == minute
    assert (mv["hour"]["walk"][col], mv["hour"]["hustle"][col]) == hour
    assert mv["day"]["walk"][col] == day
    assert set(mv["hour"]) == {"walk", "hustle"} and set(mv["day"]) == {"walk"}  # the chapter's "-" cells
    cells = speed_table(speed).cells  # any speed: the same column
    assert cells["round"]["run4"] == rnd[3] and cells["hour"]["walk"] == hour[0] and cells["day"]["walk"] == day


def test_speed_table_for_any_speed_and_the_run():
    d = speed_table(25, con=14).as_dict()
    assert d == {"speed": 25, "round": {"walk": 25, "hustle": 50, "run3": 75, "run4": 100},
                 "minute": {"walk": 250, "hustle": 500, "run3": 750, "run4": 1000},
                 "hour": {"walk": 2.5, "hustle": 5}, "day": {"walk": 20}, "run_rounds": 14}
    with pytest.raises(RequestError):
        speed_table(0)


@pytest.mark.parametrize("terrain", TABLE_7_8)
def test_table_7_8_cell_by_cell(terrain):
    highway, road, trackless = (F(x) for x in TABLE_7_8[terrain])
    assert multiplier(terrain, "highway") == highway
    assert multiplier(terrain, "road") == road and multiplier(terrain, "trail") == road
    assert multiplier(terrain, "trackless") == trackless
    assert multiplier(terrain, "trail", vehicle=True) == trackless  # no benefit to a party with vehicles
    assert multiplier(terrain, "road", vehicle=True) == road


@pytest.mark.parametrize("kind", TABLE_7_9_MOUNTS)
def test_table_7_9_mounts_cell_by_cell(kind):
    hour, day, loaded = TABLE_7_9_MOUNTS[kind]
    assert mount_speed(kind).as_dict() == {"kind": kind, "per_hour": hour, "per_day": day}
    if loaded:
        r = mount_speed(kind, "heavy")
        assert (r.per_hour, r.per_day) == loaded
    else:
        with pytest.raises(RequestError):
            mount_speed(kind, "heavy")
    assert tables().mounts[kind].day_hours == 8


@pytest.mark.parametrize("kind", TABLE_7_9_SHIPS)
def test_table_7_9_ships_cell_by_cell(kind):
    row = tables().vessels[kind]
    assert (row.per_hour, row.per_day) == TABLE_7_9_SHIPS[kind]
    assert row.day_hours == (10 if row.river else 24)  # rowed craft: 10 hours; sailing ships: 24
    assert vessel_speed(kind).as_dict() == {"per_hour": row.per_hour, "per_day": row.per_day}


def test_loaded_row_ranges():
    assert [tables().mounts[k].loaded.load_range for k in ("light-horse", "heavy-horse", "pony", "riding-dog")] == [
        "175-525 lb", "229-690 lb", "151-450 lb", "101-300 lb"]


# -- worked examples ---------------------------------------------------------------------------------
def test_speed_30_walking_8_hours_in_trackless_forest_covers_12_miles():
    assert speed_table(30).cells["hour"]["walk"] * multiplier("forest", "trackless") * 8 == 12


def test_light_horse_on_a_highway_covers_40_miles_a_day():
    p = party(mount="light-horse")
    assert p.land_mph * multiplier("plains", "highway") * p.day_hours("land") == 40


def test_keelboat_downstream_with_the_current_and_14_hours_floating():
    assert vessel_speed("keelboat", downstream=True).as_dict() == {"per_hour": 4, "per_day": 40}
    assert vessel_speed("keelboat", downstream=True, guided=True).as_dict() == {"per_hour": 4, "per_day": 82}
    assert vessel_speed("rowboat", downstream=True, current=2, guided=True).as_dict() == {
        "per_hour": 3.5, "per_day": 35 + 28}
    with pytest.raises(RequestError):
        vessel_speed("galley", downstream=True, guided=True)


def test_forced_march_hour_9_with_con_2_fails_with_probability_7_20():
    assert fatigue.forced_march_fail(9, 2) == F(7, 20)
    assert forced_march(9, con_mod=2).p_fatigued == 0.35
    assert fatigue.forced_march_dc(9) == 10 and fatigue.forced_march_dc(11) == 14


# -- exact odds against brute force ----------------------------------------------------------------------
def _march_brute(hours: int, con_mod: int) -> dict[int, F]:
    """Every d20 of every extra hour, and every d6 of every failure, one by one.  A roll of the d20s deals the
    d6s of the checks it failed, whichever they were: the rolls are counted by how many they failed, and the d6s
    of that many failures listed once."""
    extra = list(range(9, hours + 1))
    fails = Counter(sum(r + con_mod < 10 + 2 * (h - 9) for r, h in zip(rolls, extra, strict=True))
                    for rolls in itertools.product(range(1, 21), repeat=len(extra)))
    out: dict[int, F] = {}
    for failed, rolls in fails.items():
        for damage, dice in Counter(map(sum, itertools.product(range(1, 7), repeat=failed))).items():
            out[damage] = out.get(damage, 0) + F(rolls * dice, 20 ** len(extra) * 6**failed)
    return out


@pytest.mark.parametrize(("hours", "con_mod"), [(8, 0), (9, 2), (10, 2), (10, -1), (11, 5), (10, 30)])
def test_forced_march_distribution_matches_enumeration(hours, con_mod):
    exact = fatigue.forced_march_pmf(hours, con_mod)
    assert exact == {k: v for k, v in _march_brute(hours, con_mod).items() if v}
    odds = forced_march(hours, con_mod)
    assert odds.p_fatigued == pytest.approx(float(1 - exact.get(0, 0)))
    assert not odds.lethal


def test_a_mounts_forced_march_fails_every_check():
    odds = forced_march(10, con_mod=10, mount=True)
    assert odds.lethal and odds.p_fatigued == 1.0
    assert odds.damage == pytest.approx({k: len([1 for a in range(1, 7) for b in range(1, 7) if a + b == k]) / 36
                                         for k in range(2, 13)})


@pytest.mark.parametrize("hours", range(0, 8))
def test_hustle_damage_matches_the_rule_hour_by_hour(hours):
    damage, last = 0, 0
    for hour in range(1, hours + 1):  # free, then 1, then twice the previous hour's
        last = 0 if hour == 1 else (1 if hour == 2 else 2 * last)
        damage += last
    odds = hustle(hours)
    assert odds.damage == {damage: 1.0}
    assert odds.p_fatigued == (1.0 if hours >= 2 else 0.0)
    assert hustle(hours, mount=True).lethal


def _chase_brute(mods: list[int]) -> F:
    """P(first of ``mods`` wins): every roll of everyone; ties by modifier, equal modifiers reroll (the rolls
    counted, each tie's own odds worked out once)."""
    @functools.cache
    def win(group: tuple[int, ...]) -> F:  # P(group[0] wins among ``group``)
        now, again, ties = 0, 0, Counter[tuple[int, ...]]()
        for rolls in itertools.product(range(1, 21), repeat=len(group)):
            best = max((r + mods[i], mods[i]) for r, i in zip(rolls, group, strict=True))
            top = tuple(i for r, i in zip(rolls, group, strict=True) if (r + mods[i], mods[i]) == best)
            if len(top) == 1:
                now += top[0] == group[0]
            elif top == group:
                again += 1
            elif group[0] in top:
                ties[top] += 1
        n = 20 ** len(group)
        return (F(now, n) + sum((F(k, n) * win(top) for top, k in ties.items()), F(0))) / (1 - F(again, n))

    return win(tuple(range(len(mods))))


@pytest.mark.parametrize("mods", [[0, 0], [2, 1], [1, 2], [-3, 4], [1, 1, 1], [2, 2, 0], [0, 2, 2]])
def test_chase_probability_matches_enumeration(mods):
    assert chase_rules.p_escape([30] * len(mods), mods) == _chase_brute(mods)


def test_chase_speeds_settle_it_outright():
    assert chase([30, 40]).p_escape == 0.0  # a markedly faster chaser
    assert chase([40, 30], [-5, 5]).p_escape == 1.0  # a markedly faster quarry
    assert chase([30, 30, 20], [0, 0, 9]).p_escape == 0.5  # the slow chaser drops out
    assert chase([30, 31], [0, 0]).p_escape == 0.5  # running, 4 ft a round more: less than a square, equal
    assert chase([30, 32], [0, 0]).p_escape == 0.0  # 8 ft a round more: a square gained every round
    assert chase([30, 32], [0, 0], long=True).p_escape == 0.5  # no one runs a long chase: the speeds as they are
    assert chase([30, 30], [1, 0], long=True).check == "Constitution"
    with pytest.raises(RequestError):
        chase([30])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: chase([30]), "a chase needs the quarry's speed and at least one chaser's"),
    (lambda: vessel_speed("keelboat", downstream=True, current=-1),
     "current must be a number from 0 to 1,000, got -1"),
    (lambda: hustle(-1), "hours must be a whole number from 0 to 24, got -1"),
    (lambda: forced_march(-2), "hours must be a whole number from 0 to 24, got -2"),
    (lambda: speed_table(0), "speed must be a number above 0 and at most 1,000, got 0"),
    (lambda: speed_table(1e308), "speed must be a number above 0 and at most 1,000, got 1e+308"),
    (lambda: vessel_speed("keelboat", downstream=True, current=1e308),
     "current must be a number from 0 to 1,000, got 1e+308"),
    (lambda: chase([30, 0]),
     "speeds must be a list of numbers above 0 and at most 1,000, got 0 in [30, 0]"),
    (lambda: chase([30, 1e308]),
     "speeds must be a list of numbers above 0 and at most 1,000, got 1e+308 in [30, 1e+308]"),
    (lambda: chase([30] * 10_001), "speeds must be a list of at most 10,000 sides' speeds, got 10,001"),
    (lambda: vessel_speed("keelboat", downstream=True, current=math.inf),
     "current must be a number from 0 to 1,000, got inf"),
    (lambda: multiplier("plains", "footpath"), "way must be 'highway', 'road', 'trail' or 'trackless', got 'footpath'"),
    (lambda: party(vehicle="sailing-ship", towed_by="light-horse"),
     "towing applies to a raft, barge, keelboat or rowboat (vehicle=...)"),
    (lambda: party(towed_by="light-horse"), "towing applies to a raft, barge, keelboat or rowboat (vehicle=...)"),
])
def test_a_refused_request_names_the_value_and_what_it_must_be(call, message):
    with pytest.raises(RequestError) as err:
        call()
    assert str(err.value) == message


# -- journeys on maps ------------------------------------------------------------------------------
def _box(x0, y0, x1, y1):
    return [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]


def _d20(make_map, features, upm=1):
    path = make_map.path(collection(features, rules="d20", units_per_mile=upm))
    from eidomap import load

    return load(path)


def test_a_route_prefers_a_longer_highway_to_a_shorter_swamp_crossing(make_map):
    road = feature("road", "LineString", [[0, 0], [5, 4], [10, 0]], "hw", **{"class": "highway"})
    m = _d20(make_map, [eido("mire", "swamp", _box(-1, -1, 11, 5)), road])
    t = travel(m, "0,0", "10,0", speed=30, spacing=0.25)
    highway = 2 * math.hypot(5, 4)
    assert t.miles == pytest.approx(highway) and t.hours == pytest.approx(highway / 3)
    assert 10 / 1.5 > t.hours  # straight across the swamp: 10 miles at 3 x 1/2 mph
    assert {"hustle", "land"} >= set(t.modes)


def test_a_route_crosses_a_region_corner_to_corner_when_that_is_faster(make_map):
    features = [eido("W", "swamp", _box(0, -10, 10, 10)), eido("S", "swamp", _box(10, -10, 40, 0)),
                eido("M", "plains", _box(10, 0, 40, 10)), eido("N", "swamp", _box(10, 10, 40, 20)),
                eido("E", "swamp", _box(40, -10, 50, 20))]
    m = _d20(make_map, features)
    spacing = 0.5
    t = travel(m, "5,-5", "45,15", spacing=spacing)
    corners = 2 * math.hypot(5, 5) / 1.5 + math.hypot(30, 10) / 2.25
    through_centre = 2 * math.hypot(10, 5) / 1.5 + math.hypot(20, 10) / 2.25  # the straight line
    assert corners < through_centre
    assert corners - 1e-9 <= t.hours <= corners + 2 * spacing / 1.5  # the documented bound: spacing / v a crossing
    route = shapely.LineString(t.path)
    assert route.distance(shapely.Point(10, 0)) < spacing and route.distance(shapely.Point(40, 10)) < spacing
    assert t.hours < through_centre  # start -> M's centre -> goal, as a graph of region centres would go


@pytest.mark.parametrize("spacing", [2.0, 1.0, 0.25, 3.3])
def test_a_border_between_two_terrains_is_crossed_where_the_time_is_least(make_map, spacing):
    """Two terrains across a straight border: the exact optimum by Snell's law, numerically.  The mesh finds the
    border; the crossing slides along it to the least time (issue 44, 5): exact at any spacing, where the mesh's
    node alone was within the documented bound."""
    m = _d20(make_map, [eido("P", "plains", _box(0, 0, 10, 10)), eido("F", "forest", _box(10, 0, 20, 10))])
    a, b = (1.3, 1.1), (18.2, 8.7)
    t = travel(m, a, b, spacing=spacing)

    def hours(y):
        return math.hypot(10 - a[0], y - a[1]) / 2.25 + math.hypot(b[0] - 10, b[1] - y) / 1.5

    from scipy.optimize import minimize_scalar  # (here: every worker collects this file, one runs this test)

    best = minimize_scalar(hours, bounds=(0, 10), method="bounded", options={"xatol": 1e-12}).fun
    assert t.hours == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("spacing", [None, 0.013, 0.07, 0.1, 0.3, 1.3])
def test_a_border_crossing_never_adds_a_day(make_map, capsys, spacing):
    """Issue 44, 5: two 2 x 2 mile plains side by side; 3 miles at 5 ft (0.375 mph) is exactly a day's 8 hours,
    and the straight way crosses the border at y = 0.3, no mesh node: it arrived on day 2 after 0.00 hours."""
    m = _d20(make_map, [eido("w", "plains", _box(0, 0, 2, 2)), eido("e", "plains", _box(2, 0, 4, 2))])
    t = travel(m, "0.5,0.3", "3.5,0.3", speed=5, spacing=spacing)
    assert t.arrival[0] == 1 and t.arrival[1] == pytest.approx(8.0, abs=1e-9) and t.miles == pytest.approx(3.0)
    argv = ["d20", "travel", str(m.path), "--speed", "5", "--from", "0.5,0.3", "--to", "3.5,0.3"]
    assert main(argv + ([] if spacing is None else ["--spacing", str(spacing)])) == 0
    assert "3.0 miles in 8.00 hours of travel, arriving on day 1 after 8.00 hours\n" in capsys.readouterr().out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["plains", "moor", "tundra"]), min_size=6, max_size=6),
       st.floats(0.05, 5.95), st.floats(0.05, 3.95), st.floats(0, 2 * math.pi), st.floats(0.1, 2.5),
       st.sampled_from([(5, 3.0), (10, 6.0)]))
def test_straight_trips_across_borders_arrive_on_the_day_at_any_spacing(make_map, terrains, x, y, angle, spacing,
                                                                        trip):
    """Issue 44, 5, as a property: on 3 x 2 squares of 2 miles whose terrains all go at x 3/4, a straight trip of
    exactly 8 hours in any direction arrives on day 1 at hour 8, whatever borders and corners it passes."""
    speed, miles = trip  # 0.5 or 1 mph x 3/4: 8 hours
    goal = (x + miles * math.cos(angle), y + miles * math.sin(angle))
    if not (0.01 < goal[0] < 5.99 and 0.01 < goal[1] < 3.99):
        return
    m = _d20(make_map, [eido(f"r{k}", t, _box(2 * (k % 3), 2 * (k // 3), 2 * (k % 3) + 2, 2 * (k // 3) + 2))
                        for k, t in enumerate(terrains)])
    t = travel(m, (x, y), goal, speed=speed, spacing=spacing)
    assert t.arrival[0] == 1 and t.arrival[1] == pytest.approx(8.0, abs=1e-9)
    assert t.miles == pytest.approx(miles, abs=1e-9)


def test_party_pace_mounts_carts_and_trails(make_map):
    road = feature("road", "LineString", [[0, 1], [20, 1]], "t", **{"class": "trail"})
    m = _d20(make_map, [eido("h", "hills", _box(0, 0, 20, 2)), road])
    walk = travel(m, "0,1", "20,1", speed=30, party=[20])  # the slowest: 2 mph x 3/4 on a trail
    assert walk.hours == pytest.approx(20 / 1.5)
    assert travel(m, "0,1", "20,1", mount="pony", load="heavy").hours == pytest.approx(20 / (3 * 0.75))
    assert travel(m, "0,1", "20,1", vehicle="cart").hours == pytest.approx(20 / (2 * 0.5))  # trail is trackless


def _river_map(make_map, current=3):
    river = feature("river", "LineString", [[0, 1], [40, 1]], "r", current=current)
    return _d20(make_map, [eido("p", "plains", _box(0, 0, 40, 2)), river])


def test_keelboat_day_plan_downstream_and_floating(make_map):
    m = _river_map(make_map)
    t = travel(m, "0,1", "40,1", vehicle="keelboat")
    assert t.hours == pytest.approx(10) and [d.miles for d in t.days] == pytest.approx([40])
    long = travel(_river_map(make_map), "0,1", "40,1", vehicle="keelboat", spacing=1)
    assert set(long.modes) == {"rowed"}
    m2 = _d20(make_map, [eido("p", "plains", _box(0, 0, 100, 2)),
                         feature("river", "LineString", [[0, 1], [100, 1]], "r")])
    t = travel(m2, "0,1", "100,1", vehicle="keelboat", guided=True)
    assert [round(d.miles, 6) for d in t.days] == [82, 18]
    assert [round(d.hours, 6) for d in t.days] == [24, 4.5]


def test_no_rowing_upstream_against_the_current_but_towing(make_map):
    m = _river_map(make_map)
    walk_hours = 40 / (3 * 0.75)
    assert travel(m, "40,1", "0,1", vehicle="keelboat").hours == pytest.approx(walk_hours)  # walks instead
    towed = travel(m, "40,1", "0,1", speed=15, vehicle="keelboat", towed_by="heavy-horse")  # walking: 1.125 mph
    assert towed.hours == pytest.approx(20) and set(towed.modes) == {"towed"}
    still = travel(_river_map(make_map, current=0), "40,1", "0,1", speed=10, vehicle="rowboat")  # rowed both ways
    assert still.hours == pytest.approx(40 / 1.5)


def test_towing_upstream_goes_as_a_cart_never_faster_than_the_crafts_own_row(make_map):
    """Issue 26, 2: Table 7-9 gives no towing speed; a keelboat towed by a heavy horse went upstream at the horse's
    riding speed (5 mph, faster than it rows downstream).  Towing is a vehicle pulled by draft animals: the cart
    or wagon row, 2 mph and 16 miles a day; a raft's own row says "poled or towed": 1/2 mph, 5 miles a day."""
    assert vessel_speed("keelboat", upstream=True).as_dict() == {
        "per_hour": None, "per_day": None, "towed": {"per_hour": 2, "per_day": 16}}
    assert vessel_speed("raft", upstream=True).as_dict()["towed"] == {"per_hour": 0.5, "per_day": 5}
    assert vessel_speed("rowboat", upstream=True, current=0).as_dict() == {"per_hour": 1.5, "per_day": 15}
    assert vessel_speed("galley", upstream=True).as_dict() == {"per_hour": 4, "per_day": 96}  # sails either way
    m = _river_map(make_map)
    towed = travel(m, "40,1", "0,1", speed=15, vehicle="keelboat", towed_by="heavy-horse")
    assert [round(d.miles, 6) for d in towed.days] == [16, 16, 8] and towed.arrival == pytest.approx((3, 4))
    raft = travel(m, "40,1", "30,1", speed=5, vehicle="raft", towed_by="pony")  # walking 0.375 mph
    assert set(raft.modes) == {"towed"} and [round(d.miles, 6) for d in raft.days] == [5, 5]  # 10-hour days


def _valley(make_map):
    """A plains valley 200 miles long, a river along it (current 3 mph) and a highway beside it, hills above."""
    return _d20(make_map, [eido("vale", "plains", _box(0, 0, 200, 4)), eido("hills", "hills", _box(0, 4, 200, 30)),
                           feature("river", "LineString", [[0, 2], [200, 2]], "long-river", current=3),
                           feature("road", "LineString", [[0, 3], [200, 3]], "valley-road", **{"class": "highway"})])


def test_the_day_not_the_hour_decides_the_route(make_map):
    """Issue 26, 1: the route arrives first on the calendar.  A sailing ship (2 mph, 24 hours a day) is slower by
    the hour than walking the highway (3 mph, 8 hours a day) but sails 96 miles in 2 days, not 4 days' walk."""
    m = _valley(make_map)
    sail = travel(m, "0,2", "96,2", speed=30, vehicle="sailing-ship")
    assert sail.arrival == pytest.approx((2, 24)) and set(sail.modes) == {"sailed"}
    assert [d.as_dict()["by"] for d in sail.days] == [{"sailed": {"hours": 24, "miles": 48}}] * 2
    walked = travel(m, "0,2", "96,2", speed=30)
    assert walked.hours < sail.hours and len(walked.days) == 5  # fewer hours of travel, more days


def test_a_guided_float_wins_when_it_covers_more_a_day(make_map):
    """A guided raft goes (1/2 + 3) x 10 + 3 x 14 = 77 miles a day downstream; light horses ride 40 on the highway:
    faster by the hour, slower by the day."""
    m = _valley(make_map)
    t = travel(m, "0,2", "154,2", mount="light-horse", vehicle="raft", guided=True)
    assert t.arrival == pytest.approx((2, 24))
    assert [{k: tuple(round(x, 6) for x in v) for k, v in d.by.items()} for d in t.days] == [
        {"rowed": (10, 35), "float": (14, 42)}] * 2
    assert travel(m, "0,2", "154,2", mount="light-horse").arrival[0] == 4


def test_a_journey_walks_the_morning_boards_and_sails_through_the_night(make_map):
    m = _valley(make_map)
    t = travel(m, "10,6", "106,2", speed=30, vehicle="sailing-ship", boat_at="10,2", spacing=1)
    assert t.path[0] == (10, 6) and t.boat[0] == (10, 2)
    first = t.days[0]
    assert set(first.by) == {"land", "sailed"} and first.hours == pytest.approx(24)
    assert first.by["land"] == pytest.approx((2 / 1.5 + 2 / 2.25, 4))  # 2 miles of hills, 2 of plains: no road
    assert t.modes[: t.modes.index("sailed")] == ["land"] * t.modes.index("sailed")  # walks to the boat first


def test_a_start_or_goal_on_a_road_joins_the_road(make_map):
    """Issue 26, 3: a point lying on a road was linked to the nearest mesh node, so 24 miles of road at 3 mph came
    out at 8.1 hours and 2 days.  It is snapped onto the road, and the trip stays exact at any spacing."""
    m = _d20(make_map, [eido("moor", "moor", _box(-10, -5, 40, 5)),
                        feature("road", "LineString", [[-5, 0], [30, 0]], "track", **{"class": "road"})])
    for spacing in (0.7, 1.3, 3.0):
        t = travel(m, "1,0", "25,0", speed=30, spacing=spacing)
        assert (t.hours, t.miles, len(t.days)) == (pytest.approx(8), pytest.approx(24), 1)
        assert t.arrival == pytest.approx((1, 8))
    off = travel(m, (1, 1e-10), (25, -1e-10), speed=30, spacing=1.3)  # within the map's tolerance of it
    assert off.path[0] == (1, 0) and off.hours == pytest.approx(8)


def _two_rivers(make_map):
    """A brook near the start, a great river far off, not joined to it; a tributary that joins the great river
    in the middle of one of its stretches."""
    return _d20(make_map, [eido("plain", "plains", _box(0, 0, 120, 30)),
                           feature("river", "LineString", [[0, 2], [12, 2]], "brook", current=3),
                           feature("river", "LineString", [[20, 20], [120, 20]], "great-river", current=3),
                           feature("river", "LineString", [[30, 5], [50, 20]], "tributary", current=3)])


def test_a_boat_is_somewhere(make_map):
    """Issue 26, 4: the boat lies where the journey starts (or at boat_at); the party boards it there, it stays
    where it is left, and it goes only on rivers joined to its own."""
    m = _two_rivers(make_map)
    t = travel(m, "0,2", "120,20", vehicle="keelboat")  # on the brook: rowed 12 miles, then a long walk
    great = shapely.LineString([(20, 20), (120, 20)])
    rowed = [shapely.LineString(t.path[k:k + 2]) for k, how in enumerate(t.modes) if how != "land"]
    assert rowed and all(great.distance(leg) > 1 for leg in rowed)  # never on the great river
    assert t.boat == ((0, 2), (12, 2)) and t.arrival[0] == 7
    tributary = travel(m, "0,2", "120,20", vehicle="keelboat", boat_at="30,5")
    assert tributary.boat == ((30, 5), (120, 20)) and tributary.arrival[0] == 4  # walks to it, rows into the river
    assert tributary.modes[0] == "land" and tributary.modes[-1] == "rowed"
    assert great.distance(shapely.Point(tributary.path[-2])) < 1e-9  # down the great river to the goal
    with pytest.raises(RequestError, match=r"the keelboat lies at the start, 5,10, on no river \(nor within the"
                                           r" mesh spacing of one\): give boat_at, a point on a river \(the"
                                           r" nearest: 5,2, 8 miles away\)$"):
        travel(m, "5,10", "120,20", vehicle="keelboat")
    moored = travel(m, "5,3", "120,20", vehicle="keelboat", spacing=2)  # a mile from the brook: moored there
    assert moored.boat[0] == (5, 2)
    with pytest.raises(RequestError, match="boat_at is where the party's boat lies: give vehicle"):
        travel(m, "0,2", "120,20", boat_at="0,2")
    near = travel(m, "0,2", "120,20", vehicle="keelboat", boat_at=(30.2, 5.1), spacing=2)  # within a spacing
    assert near.boat[0] == pytest.approx((30.176, 5.132))  # moved onto the tributary


def test_no_way_with_a_boat_is_no_way(make_map):
    """Two islands, a creek on one: a keelboat does not cross the sea between them, and nothing breaks."""
    m = _d20(make_map, [eido("isle", "plains", _box(0, 0, 10, 10)), eido("far", "plains", _box(20, 0, 30, 10)),
                        feature("river", "LineString", [[0, 5], [10, 5]], "creek", current=3)])
    t = travel(m, "0,5", "far", vehicle="keelboat")
    assert not t.reachable and t.as_dict()["arrival"] is None
    here = travel(m, "0,5", "0,5", vehicle="keelboat")
    assert (here.hours, here.arrival, here.path) == (0, (1, 0), [(0, 5)])


@settings(max_examples=60, deadline=None)
@given(hustle=st.integers(0, 4), forced=st.integers(0, 3), mounted=st.booleans(), start=st.floats(0, 30),
       pieces=st.lists(st.floats(0.01, 9), min_size=1, max_size=6))
def test_a_land_day_composes(hustle, forced, mounted, start, pieces):
    """The land layers of travel add up hours with SciPy and walk the sum on the calendar: walking the pieces one
    after another must arrive exactly when walking their sum does (camps, hustle and the day after a fatigued one
    included)."""
    schedule = Schedule(hustle, forced, mounted=mounted)
    first = advance(Clock(), start, 1.0, "land", 0.0, schedule)
    one_by_one = first
    for h in pieces:
        one_by_one = advance(one_by_one, h, 1.0, "land", 0.0, schedule)
    at_once = advance(first, sum(pieces), 1.0, "land", 0.0, schedule)
    assert (one_by_one.day, one_by_one.rested) == (at_once.day, at_once.rested)
    assert one_by_one.hour == pytest.approx(at_once.hour, abs=1e-6)
    later = advance(Clock(first.day, first.hour + 0.5, first.hustled, first.forced, first.rested), sum(pieces), 1.0,
                    "land", 0.0, schedule)
    assert later.time >= at_once.time - 1e-9  # leaving later never arrives earlier


@settings(max_examples=60, deadline=None)
@given(hustle=st.integers(0, 4), forced=st.integers(0, 3), mounted=st.booleans(), guided=st.booleans(),
       way=st.sampled_from([(1.0, "land", 0.0), (3.0, "land", 0.0), (1.0, "rowed", 0.0), (4.0, "rowed", 3.0),
                            (2.0, "towed", 0.0), (2.0, "sailed", 0.0)]),
       start=st.floats(0, 30), miles=st.floats(0.01, 3000))
def test_a_long_leg_arrives_when_walking_it_day_by_day_does(hustle, forced, mounted, guided, way, start, miles):
    """A search's leg counts the days that repeat at once (the party's day depends only on whether it may hustle
    that morning); an itinerary walks each day to list it.  Both arrive on the same day, at the same hour, as
    rested -- a hustled day that fatigues, then one that may not hustle, repeat every other day."""
    schedule = Schedule(hustle, forced, guided=guided, mounted=mounted)
    mph, mode, drift = way
    begin = advance(Clock(), start, 1.0, "land", 0.0, schedule)
    counted = advance(begin, miles, mph, mode, drift, schedule)
    walked = advance(begin, miles, mph, mode, drift, schedule, pieces=[])
    assert (counted.day, counted.rested) == (walked.day, walked.rested)
    assert counted.hour == pytest.approx(walked.hour, abs=1e-6)
    assert counted.travelled == pytest.approx(walked.travelled, rel=1e-9)


def test_a_slow_leg_costs_a_few_days_work_however_many_days_it_takes(monkeypatch):
    """Bounded work: a leg of 17,000 days (a slow boat) is not walked a day at a time -- the days that repeat are
    counted at once, so the days looked at do not grow with the leg's length."""
    from eidomap.rules.d20 import calendar

    looked = []
    phase = calendar._phase
    monkeypatch.setattr(calendar, "_phase", lambda *a: looked.append(1) or phase(*a))
    schedule = Schedule(hustle=2, guided=True)
    far = advance(Clock(), 30_000 * 10 * 0.5, 0.5, "rowed", 0.25, schedule)
    assert far.day > 15_000 and len(looked) < 60  # (8.5 miles a day: 5 rowed, 3.5 afloat)
    looked.clear()
    advance(Clock(), 30_000 * 12.0, 1.0, "land", 0.0, schedule)  # hustled days that fatigue: every other day
    assert len(looked) < 60


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(2, 5), guided=st.booleans(), start=st.floats(0, 30))
def test_earliest_arrival_on_rivers_agrees_with_every_path(data, n, guided, start):
    """search.mesh.earliest, which the river legs use (their time depends on the hour they start), against every
    simple path of a small random graph of rowed, floating, towed and sailed legs walked on the calendar."""
    legs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.floats(0.5, 40),
                                        st.sampled_from([(1.0, "rowed", 0.0), (4.0, "rowed", 3.0), (2.0, "towed", 0.0),
                                                         (2.0, "sailed", 0.0)])),
                              min_size=1, max_size=8).filter(lambda ls: all(a != b for a, b, *_ in ls)))
    schedule = Schedule(guided=guided)
    src = np.array([a for a, *_ in legs])
    dst = np.array([b for _, b, *_ in legs])

    def step(clock, k):
        miles, (mph, mode, drift) = legs[k][2], legs[k][3]
        return advance(clock, miles, mph, mode, drift, schedule)

    begin = advance(Clock(), start, 1.0, "land", 0.0, schedule)
    got = earliest(n, src, dst, np.arange(len(legs)), 0, begin, step)
    best = {0: begin.key}

    def walk(node, clock, seen):
        for k, (a, b, *_) in enumerate(legs):
            if a == node and b not in seen:
                there = step(clock, k)
                if b not in best or there.key < best[b]:
                    best[b] = there.key
                walk(b, there, seen | {b})

    walk(0, begin, {0})
    assert set(got) == set(best)
    for v, key in best.items():
        assert got[v][0].day == key[0] and got[v][0].hour == pytest.approx(key[1], abs=1e-6)


def test_hustle_and_forced_march_in_the_plan(make_map):
    m = _d20(make_map, [eido("p", "plains", _box(0, 0, 100, 2))])
    t = travel(m, "0,1", "60,1", speed=30, hustle=2, forced_march=2, con_mod=2)
    per_day = 2.25 * (2 * 2 + 6 + 2)  # 2 hustled hours, 6 walked, 2 forced
    assert t.days[0].miles == pytest.approx(per_day) and t.days[0].hours == pytest.approx(10)
    assert {k: pytest.approx(v) for k, v in t.days[0].by.items()} == {"hustle": (2, 9), "land": (8, 18)}
    # day 1 ends fatigued (the hustle's damage): day 2 does not hustle; day 3 does again
    assert [round(d.miles, 6) for d in t.days] == [27, 22.5, 10.5]
    # days 1 and 2: march hours 9 and 10 fail at 7/20 and 9/20 for 1d6 (3.5); days 1 and 3: hustle 1 point
    assert t.fatigue == pytest.approx({"expected_damage": 2 * (7 + 9) / 20 * 3.5 + 2, "p_fatigued": 1.0,
                                       "lethal": False})


def test_travel_plans_the_day_after_a_fatigued_one_without_hustle(make_map):
    """Issue 26, 8: a party that ends a day fatigued for certain does not hustle the next day -- after hustling
    more than an hour, or after a forced march whose damage is certain (a mount's checks always fail)."""
    m = _d20(make_map, [eido("p", "plains", _box(0, 0, 200, 2))])
    walk = travel(m, "0,1", "100,1", speed=30, hustle=3)
    assert [d.by.get("hustle", (0, 0))[0] for d in walk.days] == pytest.approx([3, 0, 3, 0, 3][:len(walk.days)])
    calm = travel(m, "0,1", "100,1", speed=30, hustle=1)  # an hour of hustle deals no damage: every day
    assert all(d.by.get("hustle", (0, 0))[0] == pytest.approx(1) for d in calm.days[:-1])
    # a mount's forced march always deals damage: it ends every day fatigued, and hustles only the first
    ridden = travel(m, "0,1", "150,1", mount="light-horse", hustle=1, forced_march=1)
    assert [d.by.get("hustle", (0, 0))[0] for d in ridden.days] == pytest.approx([1] + [0] * (len(ridden.days) - 1))
    hopeless = travel(m, "0,1", "60,1", speed=30, hustle=1, forced_march=1, con_mod=-20)  # every check fails
    assert [d.by.get("hustle", (0, 0))[0] for d in hopeless.days] == pytest.approx([1, 0, 0])
    calm = travel(m, "0,1", "60,1", speed=30, forced_march=1, con_mod=2)
    assert calm.fatigue["p_fatigued"] == pytest.approx(1 - (13 / 20) ** 3)  # 20.25 mi a day: 3 days with an hour 9


def test_unreachable_goal_and_bad_maps(make_map, tmp_path):
    m = _d20(make_map, [eido("a", "plains", _box(0, 0, 1, 1)), eido("b", "plains", _box(5, 0, 6, 1))])
    t = travel(m, "a", "b")
    assert not t.reachable and t.as_dict()["hours"] is None
    with pytest.raises(MapError, match="Table 7-8"):
        travel(_d20(make_map, [eido("a", "meadow", _box(0, 0, 1, 1))]), "a", "a")
    path = make_map.path(collection([eido("a", "plains", _box(0, 0, 1, 1))], rules="d20"))
    from eidomap import load

    with pytest.raises(MapError, match="units_per_mile"):
        travel(load(path), "a", "a")
    with pytest.raises(RequestError, match="lies in no region"):
        travel(m, "a", "3,3")


def test_the_bundled_map_takes_the_highway():
    from eidomap import load

    m = load(example_map_path())
    t = travel(m, "greenfield", "kingsbridge")
    highway = m.record.roads.geoms[m.record.roads.ids.index("kings-highway")]
    on_road = shapely.length(shapely.intersection(shapely.LineString(t.path), shapely.buffer(highway, 0.5)))
    assert on_road > 0.8 * t.miles * 10


# -- the command line --------------------------------------------------------------------------------
def _json(capsys, argv, err: list | None = None) -> tuple[int, dict]:
    code = main(argv)
    said = capsys.readouterr()
    if err is not None:
        err.append(said.err)
    return code, json.loads(said.out)


def test_cli_json_shapes(capsys):
    code, d = _json(capsys, ["d20", "speed", "30", "--json"])
    assert code == 0 and d == {"speed": 30, "round": {"walk": 30, "hustle": 60, "run3": 90, "run4": 120},
                               "minute": {"walk": 300, "hustle": 600, "run3": 900, "run4": 1200},
                               "hour": {"walk": 3, "hustle": 6}, "day": {"walk": 24}}
    assert _json(capsys, ["d20", "mount-speed", "light-horse", "--json"])[1] == {
        "kind": "light-horse", "per_hour": 5, "per_day": 40}
    assert _json(capsys, ["d20", "vessel", "keelboat", "--downstream", "--current", "3", "--float", "--json"])[1] == {
        "per_hour": 4, "per_day": 82}
    code, d = _json(capsys, ["d20", "march", "--hours", "9", "--con-mod", "2", "--json"])
    assert d["p_fatigued"] == 0.35 and d["lethal"] is False
    assert d["damage"] == pytest.approx({"0": 0.65, **{str(k): 0.35 / 6 for k in range(1, 7)}})
    assert _json(capsys, ["d20", "hustle", "--hours", "3", "--mount", "--json"])[1] == {
        "p_fatigued": 1.0, "damage": {"3": 1.0}, "lethal": True}
    assert _json(capsys, ["d20", "chase", "--speeds", "30,30", "--dex-mods", "2,1", "--json"])[1] == {
        "p_escape": 229 / 400, "feet_a_round": [120, 120]}


@pytest.mark.parametrize(("argv", "said"), [
    (["d20", "hustle", "--hours", "1"], "1 hour of hustling: P(fatigued) = 0.0000"),
    (["d20", "march", "--hours", "1", "--mount"], "1 hour of marching, a mount: P(fatigued) = 0.0000"),
    (["d20", "march", "--hours", "0"], "0 hours of marching: P(fatigued) = 0.0000"),
])
def test_cli_odds_say_one_hour_in_the_singular(capsys, argv, said):
    """As one square and one round are (issue 46, 10): '1 hours of hustling' was said."""
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith(said)


@pytest.mark.parametrize("kw", [{}, {"vehicle": "keelboat", "boat_at": (480.0, 310.0)}])
def test_a_journey_of_more_days_than_the_bound_is_refused_before_it_is_walked(kw, capsys):
    """The calendar walks a journey a day at a time: speed=1e-300 walked some 1e300 days and never answered
    (issue 45 item 6's rule: a number in a parameter bounds no work); past MAX_DAYS the journey is refused."""
    from eidomap import load

    m = load(example_map_path())
    with pytest.raises(RequestError, match=r"^at this pace the journey takes more than 100,000 days"):
        travel(m, "greenfield", "kingsbridge", speed=1e-300, **kw)
    assert travel(m, "greenfield", "kingsbridge", speed=0.01, **kw).arrival[0] > 1000  # slow, within the bound
    assert main(["d20", "travel", str(example_map_path()), "--from", "greenfield", "--to", "kingsbridge",
                 "--speed", "1e-300"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("eidomap: at this pace the journey takes more than 100,000 days") and err.count("\n") == 1


def test_cli_odds_say_a_certain_outcome_once(capsys):
    """A certain outcome is the summary line: no table of one row repeating it; a spread has its table."""
    assert main(["d20", "hustle", "--hours", "3"]) == 0
    certain = capsys.readouterr().out.splitlines()
    assert certain == ["3 hours of hustling: P(fatigued) = 1.0000, expected nonlethal damage 3.000"]
    assert main(["d20", "march", "--hours", "9", "--con-mod", "2"]) == 0
    spread = capsys.readouterr().out.splitlines()
    assert len(spread) == 8 and spread[1] == "    0 damage: 0.6500"


def test_cli_travel(capsys, tmp_path):
    out, err = tmp_path / "trip.png", []
    code, d = _json(capsys, ["d20", "travel", str(example_map_path()), "--from", "greypeaks", "--to", "greenfield",
                             "--mount", "light-horse", "--forced-march", "1", "--json", "--png", str(out)], err)
    assert code == 0 and set(d) == {"hours", "miles", "arrival", "days", "path", "fatigue"}
    assert set(d["days"][0]) == {"day", "hours", "miles", "end", "by"} and d["days"][0]["day"] == 1
    assert d["arrival"] == {"day": len(d["days"]), "hour": pytest.approx(d["days"][-1]["hours"])}
    assert err == [f"wrote {out}\n"]  # issue 27, 17: said, beside the JSON on stderr
    assert sum(x["miles"] for x in d["days"]) == pytest.approx(d["miles"])
    assert d["path"][-1] == pytest.approx(d["days"][-1]["end"]) and out.stat().st_size > 0
    assert d["fatigue"]["lethal"] is True
    assert main(["d20", "travel", str(example_map_path()), "--from", "heath", "--to", "ridge"]) == 0
    assert "arriving on day 3 after 2.85 hours\n  day 1:  8.00 h " in capsys.readouterr().out


def test_mount_loads_by_weight(capsys):
    """``--load`` takes a weight, checked against Table 7-9's loaded range for that mount."""
    assert mount_speed("light-horse", "300lb").as_dict() == {"kind": "light-horse", "per_hour": 3.5, "per_day": 28}
    assert mount_speed("light-horse", 174).per_hour == 5 and mount_speed("light-horse", "175 lb").per_hour == 3.5
    assert mount_speed("riding-dog", 300.0).per_day == 24
    with pytest.raises(RequestError, match=r"^a light horse carries at most 525 lb \(Table 7-9's loaded row,"
                                           r" 175-525 lb\), got 526 lb$"):
        mount_speed("light-horse", "526lb")
    for bad in ("lots", "-5lb", float("nan"), True):
        with pytest.raises(RequestError, match="load must be 'heavy' or a weight in pounds"):
            mount_speed("pony", bad)
    with pytest.raises(RequestError, match="no loaded row for 'cart'"):
        mount_speed("cart", 100)
    assert main(["d20", "mount-speed", "pony", "--load", "200lb", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["per_hour"] == 3
    assert main(["d20", "mount-speed", "pony", "--load", "451lb"]) == 2
    assert capsys.readouterr().err == "eidomap: a pony carries at most 450 lb (Table 7-9's loaded row, 151-450 lb)," \
                                      " got 451 lb\n"


def test_nonlethal_damage_equal_to_the_hit_points_staggers_and_beyond_them_knocks_out(capsys):
    """Issue 44, 3: "A character can fall unconscious from too much forced marching"; 3.5 sets the line: nonlethal
    damage *equal* to the current hit points staggers, damage *exceeding* them knocks out (every roll enumerated)."""
    for hours, con_mod, hp in ((9, 2, 4), (10, 0, 3), (11, -1, 7), (9, 0, 1)):
        brute = _march_brute(hours, con_mod)
        odds = forced_march(hours, con_mod, hp=hp)
        assert odds.p_staggered == pytest.approx(float(sum(p for dmg, p in brute.items() if dmg >= hp)))
        assert odds.p_unconscious == pytest.approx(float(sum(p for dmg, p in brute.items() if dmg > hp)))
    assert fatigue.p_unconscious(fatigue.forced_march_pmf(9, 0), 1) == F(9, 20) * F(5, 6)  # a 1 on the d6 staggers
    assert main(["d20", "march", "--hours", "9", "--hp", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["hp"] == 1 and d["p_unconscious"] == 0.375 and d["p_staggered"] == 0.45 and "p_reaches_hp" not in d
    assert main(["d20", "march", "--hours", "9", "--hp", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[1:3] == [
        "  P(staggered or worse: the damage reaches 1 hit point) = 0.4500",
        "  P(unconscious: the damage exceeds 1 hit point) = 0.3750"]
    assert main(["d20", "march", "--hours", "9", "--hp", "0"]) == 2
    assert "--hp must be" in capsys.readouterr().err


def test_a_mount_left_at_exactly_0_hit_points_is_disabled_still_conscious(capsys):
    """A mount's forced-march damage is lethal: at exactly 0 hit points it is disabled, below 0 unconscious."""
    odds = forced_march(9, mount=True, hp=3)  # every check fails: 1d6 lethal
    assert (odds.p_staggered, odds.p_unconscious) == (pytest.approx(4 / 6), pytest.approx(3 / 6))
    assert main(["d20", "march", "--hours", "9", "--hp", "3", "--mount", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["p_disabled"] == pytest.approx(4 / 6) and d["p_unconscious"] == pytest.approx(0.5)
    assert "p_staggered" not in d
    assert main(["d20", "march", "--hours", "9", "--hp", "3", "--mount"]) == 0
    assert "  P(disabled or worse: the damage reaches 3 hit points) = 0.6667\n" in capsys.readouterr().out


def test_a_mount_tires_from_any_damage_its_lethal_damage_included(capsys):
    """Issue 44, 7: "A mount also becomes fatigued when it takes any damage from hustling or a forced march": its
    damage is lethal, and the output says it is a mount's fatigue."""
    assert hustle(3, mount=True).p_fatigued == 1.0 and hustle(1, mount=True).p_fatigued == 0.0
    assert main(["d20", "hustle", "--hours", "3", "--mount"]) == 0
    assert capsys.readouterr().out == ("3 hours of hustling, a mount: P(fatigued) = 1.0000 (any damage tires a mount),"
                                       " expected lethal damage 3.000\n")


def test_a_day_has_24_hours():
    for call in (lambda: hustle(25), lambda: forced_march(25)):
        with pytest.raises(RequestError, match=r"^hours must be a whole number from 0 to 24, got 25$"):
            call()
    assert forced_march(24, con_mod=50).p_fatigued == 0.0


def test_fatigued_chasers_take_2_off_their_dexterity_checks(capsys):
    """Issue 26, 8: -2 to Dexterity: off the Dexterity checks of a fatigued side; a long chase's Constitution
    checks are unchanged.  (A fatigued side double-moves: at speed 30 it covers a round what a runner of speed 15
    does.)"""
    assert chase([30, 15], [2, 2], fatigued=[True, False]).p_escape == pytest.approx(float(_chase_brute([0, 2])))
    assert chase([30, 30, 30], [0, 1, 1], fatigued=[False, True, True]).mods == [0, -1, -1]
    assert chase([30, 30], [2, 2], long=True, fatigued=[True, False]).p_escape == 0.5
    with pytest.raises(RequestError, match="one flag"):
        chase([30, 30], fatigued=[True])
    assert main(["d20", "chase", "--speeds", "30,15", "--dex-mods", "2,2", "--fatigued", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["p_escape"] == pytest.approx(float(_chase_brute([0, 2])))
    assert main(["d20", "chase", "--speeds", "30,15", "--dex-mods", "2,2", "--fatigued", "--json"]) == 0  # the quarry
    assert json.loads(capsys.readouterr().out)["p_escape"] == pytest.approx(float(_chase_brute([0, 2])))
    assert main(["d20", "chase", "--speeds", "30,30,30", "--dex-mods", "1,2,2", "--fatigued", "1,2,3",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["p_escape"] == pytest.approx(float(_chase_brute([1, 2, 2])))
    assert chase([30, 30], [2, 2], fatigued=True).mods == [0, 2]


def test_a_fatigued_side_cannot_run_and_moves_a_double_move_a_round(capsys):
    """Issue 44, 4: "A fatigued character can't run or charge": the chase is decided round by round by the feet
    each side covers, a fatigued side's a double move; the Dexterity checks only between sides as fast."""
    tired = chase([30, 30], fatigued=True)  # 60 ft a round against a run's 120: it cannot keep up
    assert tired.p_escape == 0.0 and tired.feet == [60, 120]
    assert chase([20, 30], fatigued=[False, True]).p_escape == 1.0  # the fresh quarry runs 80 ft, the chaser 60
    assert chase([30, 30], fatigued=[True, True]).p_escape == 0.5  # both double-move: the checks decide
    assert main(["d20", "chase", "--speeds", "30,30", "--fatigued"]) == 0
    assert capsys.readouterr().out == (
        "speeds [30, 30] (quarry first), a round [60, 120] ft (a run x4; a double move when fatigued), opposed"
        " Dexterity checks [-2, 0] (with the fatigue penalty): P(quarry escapes) = 0.0000\n")
    assert _json(capsys, ["d20", "chase", "--speeds", "20,30", "--fatigued", "2", "--json"])[1] == {
        "p_escape": 1.0, "feet_a_round": [80, 60]}


def test_heavy_armour_runs_at_x3_in_a_chase(capsys):
    """Run (x3): "moving three times speed is the running speed of a character in heavy armor"."""
    assert chase([30, 30], heavy_armor=True).feet == [90, 120] and chase([30, 30], heavy_armor=True).p_escape == 0
    assert chase([40, 30], heavy_armor=[True, False]).p_escape == 0.5  # 120 ft a round each
    assert chase([30, 30], heavy_armor=True, fatigued=True).feet == [60, 120]  # fatigued: no run at all
    assert _json(capsys, ["d20", "chase", "--speeds", "40,30", "--heavy-armor", "--json"])[1] == {
        "p_escape": 0.5, "feet_a_round": [120, 120]}
    assert main(["d20", "chase", "--speeds", "30,30", "--heavy-armor", "3"]) == 2
    assert capsys.readouterr().err == "eidomap: --heavy-armor names sides by their place in --speeds, 1 to 2, got '3'\n"


def _chase_by_rivals(feet: list[int], mods: list[int]) -> F:
    """P(the quarry escapes), rival by rival: the chance that ``k`` rivals tie it, grown one rival at a time.

    The chances are counted in rolls of the rivals' d20s (``ties[k]``: of the ``20 ** j`` rolls of the first ``j``
    rivals, those where ``k`` of them tie the quarry and the rest lose): whole numbers, a fraction only once a roll
    of the quarry's (a Fraction an operation reduced every product by its gcd: 100 sides took 0.34 s, now 0.01)."""
    if any(s - feet[0] >= 5 for s in feet[1:]):
        return F(0)
    rivals = [m for s, m in zip(feet[1:], mods[1:], strict=True) if feet[0] - s < 5]
    win = F(0)
    for roll in range(1, 21):
        total, ties = roll + mods[0], [1]
        for m in rivals:
            below = min(max(total - m - 1, 0), 20)
            same = 1 if 1 <= total - m <= 20 else 0
            lose = below + (same if m < mods[0] else 0)
            tie = same if m == mods[0] else 0
            ties = [a * lose + (ties[k - 1] * tie if k else 0) for k, a in enumerate([*ties, 0])]
        win += sum((F(p, k + 1) for k, p in enumerate(ties)), F(0)) / 20 ** len(rivals) / 20
    return win


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([60, 80, 120, 124, 160]), st.integers(-25, 25)), min_size=2, max_size=9))
def test_a_chase_in_closed_form_is_the_chase_rival_by_rival(sides):
    """Issue 45, 12: the exact answer in time linear in the sides equals the rival-by-rival one."""
    feet, mods = [s for s, _ in sides], [m for _, m in sides]
    assert chase_rules.p_escape(feet, mods) == _chase_by_rivals(feet, mods)


def test_a_chase_of_thousands_of_sides_answers_exactly_and_a_bound_holds(capsys):
    """Issue 45, 12: 2,000 sides took minutes (the exact fractions grew as 20^n); at most 10,000 sides."""
    mods = np.random.default_rng(12).integers(-3, 4, 2000).tolist()
    assert chase_rules.p_escape([120] * 100, mods[:100]) == _chase_by_rivals([120] * 100, mods[:100])
    assert chase_rules.p_escape([120] * 2000, [0] * 2000) == F(1, 2000)  # all alike: each side 1 in 2,000
    assert 0 < chase_rules.p_escape([120] * 2000, mods) < 1
    assert main(["d20", "chase", "--speeds", ",".join(["30"] * 2000), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["p_escape"] == pytest.approx(1 / 2000)  # all equal: 1 in 2,000
    assert main(["d20", "chase", "--speeds", ",".join(["30"] * 10_001)]) == 2
    assert capsys.readouterr().err == "eidomap: --speeds must be a list of at most 10,000 sides' speeds, got 10,001\n"


def test_negative_modifiers_after_a_space(capsys):
    assert main(["d20", "chase", "--speeds", "30,30", "--dex-mods", "-1,3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["p_escape"] == pytest.approx(float(_chase_brute([-1, 3])))
    assert main(["d20", "chase", "--speeds", "30,30", "--con-mods", "-2,-3", "--long", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["p_escape"] == pytest.approx(float(_chase_brute([-2, -3])))
    assert main(["d20", "march", "--hours", "9", "--con-mod", "-2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["p_fatigued"] == pytest.approx(11 / 20)
    assert main(["d20", "travel", str(example_map_path()), "--from", "heath", "--to", "ridge", "--forced-march", "1",
                 "--con-mod", "-2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fatigue"]["p_fatigued"] > 0


def test_vessel_upstream_and_floating_only_downstream(capsys):
    assert main(["d20", "vessel", "keelboat", "--upstream", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"per_hour": None, "per_day": None,
                                                   "towed": {"per_hour": 2, "per_day": 16}}
    assert main(["d20", "vessel", "rowboat", "--upstream", "--current", "0"]) == 0
    assert capsys.readouterr().out == "rowboat upstream: 1.5 mi an hour, 15 mi a day\n"
    assert main(["d20", "vessel", "keelboat", "--float"]) == 2
    assert capsys.readouterr().err == "eidomap: --float carries a craft downstream only: add --downstream\n"
    with pytest.raises(RequestError, match="downstream only"):
        vessel_speed("keelboat", guided=True)


@pytest.mark.parametrize(("kind", "said"), [
    ("keelboat", "towed by draft animals from the bank (read as a cart or wagon): 2 mi an hour, 16 mi a day"),
    ("rowboat", "towed by draft animals from the bank (read as a cart or wagon): 2 mi an hour, 16 mi a day"),
    ("raft", "towed by draft animals from the bank (its own row, poled or towed): 0.5 mi an hour, 5 mi a day"),
])
def test_a_craft_towed_upstream_says_the_row_its_speed_is_read_from(capsys, kind, said):
    """A raft towed goes at its own row, slower than a cart (docs/d20.md): it was said 'read as a cart or wagon'
    beside the raft's 0.5 mi an hour."""
    assert main(["d20", "vessel", kind, "--upstream"]) == 0
    assert capsys.readouterr().out == f"{kind} upstream: cannot be rowed against the current; {said}\n"


def test_a_ship_sails_a_river_both_ways_at_its_own_speed(capsys):
    """Issue 44, 7: the current and floating rules are for rafts, keelboats and rowboats; a sailing ship gets the
    same kind of answer upstream and downstream: the table's speed."""
    said = {}
    for way in ("--upstream", "--downstream"):
        assert vessel_speed("sailing-ship", **{way[2:]: True}).as_dict() == {"per_hour": 2, "per_day": 48}
        assert main(["d20", "vessel", "sailing-ship", way, "--current", "5"]) == 0
        said[way] = capsys.readouterr().out
    assert said["--downstream"] == said["--upstream"].replace("upstream", "downstream", 1) == (
        "sailing-ship downstream: 2 mi an hour, 48 mi a day (a ship sails a river both ways at its own speed: the"
        " current is for rafts, keelboats and rowboats)\n")
    with pytest.raises(RequestError, match=r"^floating is for rafts, keelboats and rowboats, not 'galley'"):
        vessel_speed("galley", downstream=True, guided=True)


@pytest.mark.parametrize("where", [(True, 100), ("100", "100"), (100, None), [100.0, np.bool_(False)]])
def test_a_point_is_two_numbers_never_a_bool_or_a_str(where):
    """As a square is two whole numbers, never (True, False) (issue 45, 10): a point's x and y are numbers; (True, 100)
    was the point 1,100 and ('100', '100') read as numbers."""
    m = __import__("eidomap").load(example_map_path())
    for call in (lambda: travel(m, where, "kingsbridge"), lambda: travel(m, "greenfield", where),
                 lambda: travel(m, "greenfield", "kingsbridge", vehicle="keelboat", boat_at=where)):
        with pytest.raises(RequestError, match=r"must be two numbers x,y within ±1e\+15 \(a map's coordinates\)"):
            call()
    assert travel(m, (np.float64(100.0), np.int64(100)), "kingsbridge").reachable


def test_points_far_beyond_the_map_and_a_spacing_near_0_are_refused_without_a_warning():
    """Issue 45, 6 and 13: a boat at 1e300,1e300 (a GEOSException, a RuntimeWarning) and a spacing of 1e-300 (a
    RuntimeWarning, then "a spacing of at least inf miles") are refused in one line, with a spacing that fits."""
    import warnings

    m = __import__("eidomap").load(example_map_path())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for call in (lambda: travel(m, "greenfield", "kingsbridge", vehicle="keelboat", boat_at=(1e300, 1e300)),
                     lambda: travel(m, "1e300,-1e300", "kingsbridge")):
            with pytest.raises(RequestError, match=r"must be two numbers x,y within ±1e\+15 \(a map's coordinates\)"):
                call()
        with pytest.raises(RequestError) as err:
            travel(m, "greenfield", "kingsbridge", spacing=1e-300)
    said = str(err.value)
    assert "more than 10^308 legs" in said and "inf" not in said
    finest = float(said.rsplit("at least ", 1)[1].split()[0]) * m.meta["units_per_mile"]
    sizes = overland._mesh_sizes(m, np.asarray(m.record.roads.geoms, dtype=object))
    assert overland._mesh_legs(*sizes, finest) <= overland.MAX_MESH_LEGS < overland._mesh_legs(*sizes, finest * 0.99)


@pytest.mark.parametrize("spacing", [0, -1.5, math.inf, math.nan, True, "1", 1e-6])
def test_a_bad_mesh_spacing_is_one_request_error(spacing):
    m = __import__("eidomap").load(example_map_path())
    with pytest.raises(RequestError, match=r"^spacing must be a positive number|^a mesh spacing of 1e-06 miles"
                                           r" makes about [\d,]+ legs on this map \(at most 1,000,000\): use a"
                                           r" spacing of at least 0\.18\d miles$"):
        travel(m, "greenfield", "kingsbridge", spacing=spacing)


def test_cli_travel_suggests_a_region_and_draws_the_start(capsys, tmp_path):
    assert main(["d20", "travel", str(example_map_path()), "--from", "greenfeld", "--to", "kingsbridge"]) == 2
    assert capsys.readouterr().err.endswith(": start 'greenfeld' is neither a region id nor a point x,y"
                                            " (did you mean 'greenfield'?)\n")
    out = tmp_path / "trip.svg"
    assert main(["d20", "travel", str(example_map_path()), "--from", "greenfield", "--to", "kingsbridge",
                 "--png", str(out)]) == 0
    assert capsys.readouterr().out.endswith(f"wrote {out}\n")
    from matplotlib.figure import Figure

    from eidomap import load
    from eidomap.plot import plot_travel

    m = load(example_map_path())
    ax = plot_travel(m, travel(m, "greenfield", "kingsbridge"), Figure().add_subplot())
    assert {"start", "goal"} <= {t.get_text() for t in ax.get_legend().get_texts()}


@pytest.mark.parametrize("argv", [
    ["d20", "speed", "fast"],
    ["d20", "mount-speed", "unicorn"],
    ["d20", "vessel", "galley", "--float"],
    ["d20", "vessel", "galley", "--downstream", "--float"],
    ["d20", "march", "--hours", "25"],
    ["d20", "hustle", "--hours", "30"],
    ["d20", "travel", "MAP", "--from", "greenfield", "--to", "heath", "--spacing", "0"],
    ["d20", "travel", "MAP", "--from", "greenfield", "--to", "heath", "--vehicle", "keelboat"],
    ["d20", "travel", "MAP", "--from", "greenfield", "--to", "heath", "--boat-at", "1,1"],
    ["d20", "chase", "--speeds", "30,30", "--fatigued", "3"],
    ["d20", "march", "--hours", "x"],
    ["d20", "chase", "--speeds", "30"],
    ["d20", "chase", "--speeds", "30,30", "--dex-mods", "1,2", "--long"],
    ["d20", "travel", "MAP", "--from", "greenfield", "--to", "nowhere"],
    ["d20", "travel", "MAP", "--from", "greenfield", "--to", "heath", "--vehicle", "broom"],
])
def test_cli_bad_input_is_one_line_and_exit_2(capsys, argv):
    argv = [str(example_map_path()) if a == "MAP" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("eidomap: ") and err.count("\n") == 1


def test_cli_bad_map_names_file_and_feature(capsys, make_map):
    path = make_map.path(collection([eido("a", "plains", _box(0, 0, 1, 1)),
                                     feature("road", "LineString", [[0, 0], [1, 1]], "r9", **{"class": "lane"})],
                                    rules="d20", units_per_mile=1))
    assert main(["d20", "travel", str(path), "--from", "a", "--to", "a"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "r9" in err and "'class'" in err and err.count("\n") == 1


def test_cli_no_route_exits_1(capsys, make_map):
    path = make_map.path(collection([eido("a", "plains", _box(0, 0, 1, 1)), eido("b", "plains", _box(5, 0, 6, 1))],
                                    rules="d20", units_per_mile=1))
    assert main(["d20", "travel", str(path), "--from", "a", "--to", "b"]) == 1


def test_fatigued_false_is_nobody_fatigued():
    """``fatigued=True`` is the quarry; ``False``, its opposite, nobody (it was taken for a list of flags)."""
    assert chase([30, 30], [2, 1], fatigued=False) == chase([30, 30], [2, 1])


@pytest.mark.parametrize(("ask", "kind", "table"),
                         [(mount_row, "camel", "mounts"), (vessel_row, "zeppelin", "vessels")])
def test_an_unknown_mount_or_vessel_is_refused_naming_every_row_of_table_7_9(ask, kind, table):
    """The error lists the rows the user may write, comma-separated, as Table 7-9 spells them."""
    rows = ", ".join(getattr(tables(), table))
    what = "mount" if table == "mounts" else "vessel"
    with pytest.raises(RequestError, match=rf"^unknown {what} '{kind}' \(Table 7-9: {re.escape(rows)}\)$"):
        ask(kind)
