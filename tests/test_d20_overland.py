"""d20 overland movement: the chapter's tables cell by cell, its worked examples, the exact odds
(against brute-force enumeration), journeys on maps, the command line."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction as F

import pytest
import shapely
from conftest import collection, eido, feature
from scipy.optimize import minimize_scalar

from eidomap.cli import main
from eidomap.errors import MapError, RequestError
from eidomap.overland import (
    chase,
    example_map_path,
    forced_march,
    hustle,
    mount_speed,
    speed_table,
    travel,
    vessel_speed,
)
from eidomap.rules.d20 import chase as chase_rules
from eidomap.rules.d20 import fatigue
from eidomap.rules.d20.overland import multiplier, party
from eidomap.rules.d20.tables import tables

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
        vessel_speed("galley", downstream=True)


def test_forced_march_hour_9_with_con_2_fails_with_probability_7_20():
    assert fatigue.forced_march_fail(9, 2) == F(7, 20)
    assert forced_march(9, con_mod=2).p_fatigued == 0.35
    assert fatigue.forced_march_dc(9) == 10 and fatigue.forced_march_dc(11) == 14


# -- exact odds against brute force ----------------------------------------------------------------------
def _march_brute(hours: int, con_mod: int) -> dict[int, F]:
    """Every d20 of every extra hour, and every d6 of every failure, one by one."""
    extra = list(range(9, hours + 1))
    out: dict[int, F] = {}
    for rolls in itertools.product(range(1, 21), repeat=len(extra)):
        failed = sum(r + con_mod < 10 + 2 * (h - 9) for r, h in zip(rolls, extra, strict=True))
        for dice in itertools.product(range(1, 7), repeat=failed):
            p = F(1, 20 ** len(extra) * 6**failed)
            out[sum(dice)] = out.get(sum(dice), 0) + p
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
    """P(first of ``mods`` wins): every roll of everyone; ties by modifier, equal modifiers reroll."""
    def win(group: tuple[int, ...]) -> F:  # P(group[0] wins among ``group``)
        now, again = F(0), F(0)
        for rolls in itertools.product(range(1, 21), repeat=len(group)):
            best = max((r + mods[i], mods[i]) for r, i in zip(rolls, group, strict=True))
            top = tuple(i for r, i in zip(rolls, group, strict=True) if (r + mods[i], mods[i]) == best)
            p = F(1, 20 ** len(group))
            if len(top) == 1:
                now += p * (top[0] == group[0])
            elif top == group:
                again += p
            elif group[0] in top:
                now += p * win(top)
        return now / (1 - again)

    return win(tuple(range(len(mods))))


@pytest.mark.parametrize("mods", [[0, 0], [2, 1], [1, 2], [-3, 4], [1, 1, 1], [2, 2, 0], [0, 2, 2]])
def test_chase_probability_matches_enumeration(mods):
    assert chase_rules.p_escape([30] * len(mods), mods) == _chase_brute(mods)


def test_chase_speeds_settle_it_outright():
    assert chase([30, 40]).p_escape == 0.0  # a markedly faster chaser
    assert chase([40, 30], [-5, 5]).p_escape == 1.0  # a markedly faster quarry
    assert chase([30, 30, 20], [0, 0, 9]).p_escape == 0.5  # the slow chaser drops out
    assert chase([30, 32], [0, 0]).p_escape == 0.5  # less than a square a round: equal
    assert chase([30, 30], [1, 0], long=True).check == "Constitution"
    with pytest.raises(RequestError):
        chase([30])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: chase([30]), "a chase needs the quarry's speed and at least one chaser's"),
    (lambda: vessel_speed("keelboat", downstream=True, current=-1),
     "the current must be a number of miles an hour >= 0, got -1"),
    (lambda: hustle(-1), "hustle must be a whole number of hours >= 0, got -1"),
    (lambda: forced_march(-2), "march must be a whole number of hours >= 0, got -2"),
    (lambda: speed_table(0), "speed must be a positive number, got 0"),
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


@pytest.mark.parametrize("spacing", [2.0, 1.0, 0.25])
def test_mesh_error_stays_within_the_documented_bound(make_map, spacing):
    """Two terrains across a straight border: the exact optimum by Snell's law, numerically."""
    m = _d20(make_map, [eido("P", "plains", _box(0, 0, 10, 10)), eido("F", "forest", _box(10, 0, 20, 10))])
    a, b = (1.3, 1.1), (18.2, 8.7)
    t = travel(m, a, b, spacing=spacing)

    def hours(y):
        return math.hypot(10 - a[0], y - a[1]) / 2.25 + math.hypot(b[0] - 10, b[1] - y) / 1.5

    best = minimize_scalar(hours, bounds=(0, 10), method="bounded", options={"xatol": 1e-10}).fun
    assert best - 1e-9 <= t.hours <= best + spacing / 1.5


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
    towed = travel(m, "40,1", "0,1", vehicle="keelboat", towed_by="heavy-horse")
    assert towed.hours == pytest.approx(8) and set(towed.modes) == {"towed"}
    still = travel(_river_map(make_map, current=0), "40,1", "0,1", speed=10, vehicle="rowboat")  # rowed both ways
    assert still.hours == pytest.approx(40 / 1.5)


def test_hustle_and_forced_march_in_the_plan(make_map):
    m = _d20(make_map, [eido("p", "plains", _box(0, 0, 100, 2))])
    t = travel(m, "0,1", "60,1", speed=30, hustle=2, forced_march=2, con_mod=2)
    per_day = 2.25 * (2 * 2 + 6 + 2)  # 2 hustled hours, 6 walked, 2 forced
    assert t.days[0].miles == pytest.approx(per_day) and t.days[0].hours == pytest.approx(10)
    assert [round(d.miles, 6) for d in t.days] == [27, 27, 6]
    # days 1 and 2: hustle 1 point, march hours 9 and 10 fail at 7/20 and 9/20 for 1d6 (3.5); day 3: hustle only
    assert t.fatigue == pytest.approx({"expected_damage": 2 * (1 + (7 + 9) / 20 * 3.5) + 1, "p_fatigued": 1.0,
                                       "lethal": False})
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
    highway = m.data.roads.geoms[m.data.roads.ids.index("kings-highway")]
    on_road = shapely.length(shapely.intersection(shapely.LineString(t.path), shapely.buffer(highway, 0.5)))
    assert on_road > 0.8 * t.miles * 10


# -- the command line --------------------------------------------------------------------------------
def _json(capsys, argv) -> tuple[int, dict]:
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


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
        "p_escape": 229 / 400}


def test_cli_travel(capsys, tmp_path):
    out = tmp_path / "trip.png"
    code, d = _json(capsys, ["d20", "travel", str(example_map_path()), "--from", "greypeaks", "--to", "greenfield",
                             "--mount", "light-horse", "--forced-march", "1", "--json", "--png", str(out)])
    assert code == 0 and set(d) == {"hours", "miles", "days", "path", "fatigue"}
    assert set(d["days"][0]) == {"day", "hours", "miles", "end"} and d["days"][0]["day"] == 1
    assert sum(x["miles"] for x in d["days"]) == pytest.approx(d["miles"])
    assert d["path"][-1] == pytest.approx(d["days"][-1]["end"]) and out.stat().st_size > 0
    assert d["fatigue"]["lethal"] is True
    assert main(["d20", "travel", str(example_map_path()), "--from", "heath", "--to", "ridge"]) == 0
    assert "days" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["d20", "speed", "fast"],
    ["d20", "mount-speed", "unicorn"],
    ["d20", "vessel", "galley", "--float"],
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
