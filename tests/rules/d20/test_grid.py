"""d20 tactical movement: one test per rule (docs/d20.md names them), the issue's worked
examples, bad grids, and multi-round plans against a brute-force search."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import hang_guard
from d20_oracle import (
    brute_force,
    brute_force_journey,
    brute_force_run,
    check_plan,
    full_round_squares,
    neighbours,
    round_costs,
    run_lines,
    step_cost,
    tie_rule_plan,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from eidomap.answers import grid as d20
from eidomap.answers.grid import grid_from_array, load_grid, parse_grid, reach, route
from eidomap.base.errors import MapError, RequestError
from eidomap.io.grid import flags_char
from eidomap.record.grid import DIFFICULT, ENEMY, IMPASSABLE, OBSTACLE, POOR_VISIBILITY, parse_squares
from eidomap.rules.d20 import grid as tactical
from eidomap.rules.d20.grid import Mover, compile_grid, grid_arrays, line, step_masks
from eidomap.search import grid as grid_search

DATA = Path(__file__).resolve().parents[2] / "data" / "d20"
OPEN = "\n".join(["." * 12] * 12)


def feet(text: str, at, speed: int, **kw) -> dict:
    return reach(parse_grid(text), at, speed, **kw).feet


# -- Table 7-6 ---------------------------------------------------------------------
@pytest.mark.parametrize(("speed", "mode", "heavy", "squares"), [
    (30, "move", False, 6), (30, "double", False, 12), (30, "run", False, 24), (30, "run", True, 18),
    (20, "run", True, 12), (40, "double", False, 16), (30, "charge", False, 12)])
def test_table_7_6_speeds(speed, mode, heavy, squares):
    assert Mover(speed, mode, heavy_armor=heavy).budget == squares
    assert max(feet("." * 40, (0, 0), speed, mode=mode, heavy_armor=heavy).values()) == squares * 5


@pytest.mark.parametrize("bad", [0, 7, -5, 1005, "30", True])
def test_speed_must_be_a_multiple_of_5_ft(bad):
    with pytest.raises(RequestError):
        Mover(bad)


# -- diagonals ------------------------------------------------------------------------
def test_diagonals_alternate_5_10_5_speed_30_reaches_4_diagonal_squares():
    f = feet(OPEN, (0, 0), 30)
    assert [f.get((k, k)) for k in range(1, 6)] == [5, 15, 20, 30, None]  # 5+10+5+10; a 5th would be 35


def test_diagonal_count_starts_again_each_round():
    r = route(parse_grid(OPEN), (0, 0), (2, 2), 10)  # 2 squares a round: 1 + 2 does not fit
    assert (r.rounds, r.feet, r.round_ends) == (2, 10, [(1, 1), (2, 2)])  # the 2nd diagonal is a 1st again


def test_no_diagonal_past_the_corner_of_an_impassable_square():
    f = feet("..\n#.", (1, 1), 30)  # (1,1) -> (0,0) would pass the wall's corner
    assert f[(0, 0)] == 10 and f[(0, 1)] == 5
    assert feet(".#\n..", (0, 0), 30)[(1, 1)] == 10


# -- hampered movement (Table 7-7) -------------------------------------------------------
def test_hampered_movement_difficult_x2_and_difficult_plus_poor_visibility_x4():
    f = feet(".dDX\n....", (1, 0), 60)
    assert f[(0, 0)] == 5 and f[(0, 1)] == 15 and f[(1, 1)] == 5
    g = feet(".dDX", (0, 0), 60)
    assert (g[(0, 1)], g[(0, 2)] - g[(0, 1)]) == (10, 20)


def test_hampered_conditions_multiply_x8():
    assert feet(".X", (0, 0), 40)[(0, 1)] == 40
    assert feet("..B", (0, 1), 20)[(0, 2)] == 20  # difficult + obstacle: x4


def test_hampered_diagonal_costs_1_5_times():
    for ch, cost in (("d", 15), ("D", 30), ("X", 60)):  # 3, 6 and 12 squares
        assert feet(f".X\nX{ch}", (0, 0), 60)[(1, 1)] == cost


def test_hampered_diagonal_counts_as_two_diagonals_in_the_alternation():
    grid = ".XXX\nX.XX\nXXdX\nXXX."
    assert feet(grid, (0, 0), 60)[(3, 3)] == 30  # 5 + 15 + 10: the third diagonal is still a "second"


def test_impassable_squares_are_never_entered():
    f = feet(".#.", (0, 0), 60)
    assert (0, 1) not in f and (0, 2) not in f
    assert not route(parse_grid(".#."), (0, 0), (0, 2), 30).reachable


def test_flying_ignores_difficult_terrain():
    assert feet(".dd", (0, 0), 10, flying=True)[(0, 2)] == 10
    assert feet(".dd", (0, 0), 20)[(0, 2)] == 20
    assert feet(".oo", (0, 0), 40, flying=True)[(0, 2)] == 20  # obstacles still hamper
    assert feet(".D", (0, 0), 20, flying=True)[(0, 1)] == 10


# -- run and charge -------------------------------------------------------------------------
def test_run_refused_across_difficult_terrain():
    f = feet("...d......", (0, 0), 30, mode="run")
    assert f[(0, 2)] == 10 and (0, 4) not in f
    assert (0, 4) in feet("...d......", (0, 0), 30, mode="double")


def test_run_goes_in_a_straight_line():
    grid = ".....#....\n..........\n.........."
    assert (0, 9) not in feet(grid, (0, 0), 30, mode="run")
    assert feet(grid, (0, 0), 30, mode="run")[(2, 9)] == 50
    assert (1, 9) not in feet(grid, (0, 0), 30, mode="run")  # its line passes the wall's corner at (0, 5)
    assert (0, 9) in feet(grid, (0, 0), 30, mode="double")


def test_run_in_heavy_armor_is_three_times_speed():
    row = "." * 30
    assert max(feet(row, (0, 0), 20, mode="run").values()) == 80
    assert max(feet(row, (0, 0), 20, mode="run", heavy_armor=True).values()) == 60


def test_run_passes_allies_but_not_enemies():
    assert (0, 4) in feet("..a..", (0, 0), 30, mode="run") and (0, 2) not in feet("..a..", (0, 0), 30, mode="run")
    assert (0, 4) not in feet("..e..", (0, 0), 30, mode="run")


def test_straight_line_rasterisation():
    assert line(2, 4) == [(1, 1), (1, 2), (2, 3), (2, 4)]  # at 0.5 and 1.5 rows: ties, rounded away from the start
    assert line(1, 4) == [(0, 1), (1, 2), (1, 3), (1, 4)]
    assert line(-3, 0) == [(-1, 0), (-2, 0), (-3, 0)]
    assert line(4, -4) == [(1, -1), (2, -2), (3, -3), (4, -4)]


def test_charge_moves_10_ft_to_twice_speed_in_a_clear_line():
    f = feet("." * 20, (0, 0), 30, mode="charge")
    assert min(v for v in f.values() if v) == 10 and max(f.values()) == 60 and (0, 1) not in f
    assert (0, 5) not in feet("..a...", (0, 0), 30, mode="charge")  # no occupied square on the way
    assert (0, 5) not in feet("..d...", (0, 0), 30, mode="charge")


def test_charge_ends_next_to_the_target():
    f = feet("........e", (0, 0), 30, mode="charge", target=(0, 8))
    assert f == {(0, 7): 35}


def test_a_charge_never_lists_its_start():
    """A charge moves at least 10 ft: the square it starts on is no end of it (issue 27, 18)."""
    assert (0, 0) not in feet("." * 10, (0, 0), 30, mode="charge")
    assert reach(parse_grid("." * 10), (0, 0), 30, mode="charge").as_dict()["reachable"] == {
        f"0,{c}": 5 * c for c in range(2, 10)}


def test_charge_ends_on_the_closest_square_from_which_it_can_attack():
    """3.5: the charger moves to the closest space from which it can attack the target, never beyond it (the
    target's square is occupied), and only along a clear line."""
    row = "." * 10
    assert feet(row, (0, 0), 30, mode="charge", target=(0, 5)) == {(0, 4): 20}  # not 0,6, through the target
    assert feet(row, (0, 0), 30, mode="charge", target=(0, 3)) == {(0, 2): 10}  # not 0,4
    open_ = "\n".join(["." * 9] * 9)
    # 5,3 5,4 and 5,5 are as close (5-10-5): any of them; 6,3 and 6,5 (30 ft) are not
    assert feet(open_, (0, 4), 30, mode="charge", target=(6, 4)) == {(5, 3): 25, (5, 4): 25, (5, 5): 25}
    assert feet(open_, (0, 0), 30, mode="charge", target=(5, 3)) == {(4, 2): 25, (4, 3): 25}
    blocked = open_[:4 * 10 + 3] + "#" + open_[4 * 10 + 4:]  # 4,3 a wall: 4,2 is as close
    assert feet(blocked, (0, 0), 30, mode="charge", target=(5, 3)) == {(4, 2): 25}
    assert feet(open_, (0, 0), 20, mode="charge", target=(8, 8)) == {}  # the closest, 7,7, is 50 ft: too far


def test_no_charge_when_the_closest_square_is_5_ft_away_or_blocked():
    assert feet("." * 10, (0, 0), 30, mode="charge", target=(0, 2)) == {}  # the closest square is 5 ft away
    assert feet("." * 10, (0, 0), 30, mode="charge", target=(0, 1)) == {}  # already next to it
    assert feet("\n".join(["." * 5] * 5), (0, 0), 30, mode="charge", target=(2, 2)) == {}  # 1,1: 5 ft
    assert feet(".....#.e", (0, 0), 30, mode="charge", target=(0, 7)) == {}  # the closest square is a wall
    assert feet("....d.e", (0, 0), 30, mode="charge", target=(0, 6)) == {}  # ... or its line hampered
    assert feet(".....de", (0, 0), 30, mode="charge", target=(0, 6)) == {}  # ... or it is hampered
    assert reach(parse_grid("." * 10), (0, 0), 30, mode="charge", target=(0, 2)).why == (
        "the closest square from which to attack 0,2 (0,1) is 5 ft away: a charge moves at least 10 ft")
    assert reach(parse_grid(".....#.e"), (0, 0), 30, mode="charge", target=(0, 7)).why.endswith(
        "(0,6) is 30 ft away, and a line from the start square to it passes a hampering, occupied or impassable"
        " square, or it is one (3.5: every line must be clear)")
    assert reach(parse_grid("." * 20), (0, 0), 10, mode="charge", target=(0, 9)).why.endswith(
        "is 40 ft away: more than twice the speed")
    with pytest.raises(RequestError, match="a target is for a charge"):
        reach(parse_grid("..."), (0, 0), 30, target=(0, 2))
    with pytest.raises(RequestError, match="the target 0,2 is impassable"):
        reach(parse_grid("..#"), (0, 0), 30, mode="charge", target=(0, 2))


def test_no_charge_when_any_line_from_the_start_square_to_the_end_square_passes_a_square_not_clear():
    """Issue 44, 6, 3.5: "if any line from your starting space to the ending space passes through a square that
    blocks movement, slows movement, or contains a creature (even an ally), you can't charge"."""
    issue = ".d..\n....\n...."  # the centre-to-centre line from 0,0 to 1,2 crosses the difficult 0,1
    assert feet(issue, (0, 0), 30, mode="charge", target=(2, 3)) == {}
    assert feet(issue, (0, 0), 30, mode="charge", target=(2, 3), compiled=True) == {}
    assert feet("....\n.d..\n....", (0, 0), 30, mode="charge", target=(2, 3)) == {}  # the end's row, beside the line
    assert feet("....\n....\n....", (0, 0), 30, mode="charge", target=(2, 3)) == {(1, 2): 10}
    # a diagonal charge passes no corner: the squares beside the diagonal are crossed by some line
    assert (2, 2) not in feet(".a..\n....\n....", (0, 0), 30, mode="charge")  # past an ally's corner...
    assert (2, 2) in feet("..a.\n....\n....", (0, 0), 30, mode="charge")
    assert (3, 3) not in feet("....\n..d.\n....\n....", (0, 0), 30, mode="charge")
    assert (3, 3) in feet("...d\n....\n....\nd...", (0, 0), 30, mode="charge")  # ... not two squares off
    # a line along a square's edge does not pass through it: down a corridor beside walls and rubble
    assert feet("#####\n.....\ndd.dd", (1, 0), 30, mode="charge", target=(1, 4)) == {(1, 3): 15}
    # the charger leaves its own square: a start in difficult terrain does not stop it
    assert feet("d....", (0, 0), 30, mode="charge", target=(0, 4)) == {(0, 3): 15}


def _hull_clear(rows: list[str], start, end) -> bool:
    """The rule with Shapely: every square (the start's excepted) whose inside meets the convex hull of the start
    and end squares -- the points of the lines between them -- is clear and empty."""
    import shapely

    hull = shapely.convex_hull(shapely.union(shapely.box(start[1], start[0], start[1] + 1, start[0] + 1),
                                             shapely.box(end[1], end[0], end[1] + 1, end[0] + 1)))
    return all(rows[r][c] == "." for r in range(len(rows)) for c in range(len(rows[0]))
               if (r, c) != tuple(start) and shapely.box(c, r, c + 1, r + 1).intersection(hull).area > 1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([10, 20, 30]), st.booleans())
def test_charges_agree_with_the_lines_between_the_squares(seed, speed, compiled):
    rng = np.random.default_rng(seed)
    rows = ["".join(rng.choice(list(".......dvoa#e"), 8)) for _ in range(7)]
    free = [(r, c) for r in range(7) for c in range(8) if rows[r][c] == "."]
    if not free:
        return
    start = free[rng.integers(len(free))]
    got = feet("\n".join(rows), start, speed, mode="charge", compiled=compiled)
    want = {(r, c): 5 * cost for (r, c), cost in run_lines(rows, start, 2 * speed // 5).items()
            if cost >= 2 and _hull_clear(rows, start, (r, c))}
    assert got == want


# -- minimum movement, 5-foot step ------------------------------------------------------------
def test_full_round_one_square_move_speed_5_into_x4():
    g = parse_grid(".D.")
    r = reach(g, (0, 0), 5)
    assert r.feet == {(0, 0): 0} and r.full_round == [(0, 1)]
    assert r.as_dict() == {"reachable": {"0,0": 0}, "full_round": ["0,1"]}
    plan = route(g, (0, 0), (0, 2), 5)
    assert (plan.rounds, plan.round_ends, [leg.action for leg in plan.legs]) == (2, [(0, 1), (0, 2)],
                                                                                 ["full-round 5 ft", "move"])


def test_full_round_move_never_into_impassable_or_occupied_terrain():
    assert reach(parse_grid(".#"), (0, 0), 5).feet == {(0, 0): 0}
    assert reach(parse_grid(".X\na."), (1, 1), 5).full_round == [(0, 1)]  # not past the ally... nor onto it
    assert (1, 0) not in reach(parse_grid(".X\na."), (1, 1), 5).feet


def test_full_round_move_only_when_the_square_cannot_be_afforded():
    r = reach(parse_grid(".d"), (0, 0), 10)  # 10 ft pay for difficult terrain: an ordinary move
    assert r.feet[(0, 1)] == 10 and r.full_round == []


def test_full_round_move_only_when_no_move_action_reaches_the_square():
    """Speed 25 next to a difficult, poorly lit square (x4) on the diagonal: the diagonal costs 30 ft, but a
    move action via the clear square beside it pays 5 + 20 = 25 ft and keeps the standard action."""
    g = parse_grid("..\n.D")
    r = reach(g, (0, 0), 25)
    assert r.feet[(1, 1)] == 25 and r.full_round == []
    plan = route(g, (0, 0), (1, 1), 25)
    assert (plan.rounds, plan.feet, [leg.action for leg in plan.legs]) == (1, 25, ["move"])
    alone = reach(parse_grid(".o\noD"), (0, 0), 25)  # each way round costs 10 + 20 ft: the full-round move
    assert alone.full_round == [(1, 1)] and (1, 1) not in alone.feet
    walled = reach(parse_grid(".#\n#D"), (0, 0), 25)  # ... never past a wall's corner
    assert walled.full_round == [] and (1, 1) not in walled.feet


def test_five_foot_step():
    g = parse_grid("...\n.d.\n..a")
    assert reach(g, (0, 0), 30, mode="step").feet == {(0, 0): 0, (0, 1): 5, (1, 0): 5}
    assert reach(g, (0, 0), 5, mode="step").feet == {(0, 0): 0}  # not for speed 5 ft or less


# -- occupied squares ---------------------------------------------------------------------------
def test_occupied_squares_pass_allies_never_end_on_them_never_pass_enemies():
    g = parse_grid("..a..")
    assert (0, 2) not in reach(g, (0, 0), 30).feet and reach(g, (0, 0), 30).feet[(0, 3)] == 15
    r = route(g, (0, 0), (0, 4), 10)
    assert (r.rounds, r.round_ends) == (3, [(0, 1), (0, 3), (0, 4)]) and (0, 2) in r.path
    assert not route(parse_grid("..e.."), (0, 0), (0, 4), 30).reachable
    assert not route(g, (0, 0), (0, 2), 30).reachable


def test_blocked_squares_are_enemies():
    g = parse_grid(".....")
    assert not route(g, (0, 0), (0, 4), 30, enemies=[(0, 2)]).reachable
    assert route(g, (0, 0), (0, 4), 30, allies=[(0, 2)]).rounds == 1


# -- routes -------------------------------------------------------------------------------------------
def test_route_fewest_rounds_then_fewest_feet():
    g = load_grid(DATA / "battle.txt")
    r = route(g, (0, 0), (3, 8), 30)
    assert r.rounds == 2 and r.path[0] == (0, 0) and r.path[-1] == (3, 8)
    assert r.as_dict()["round_ends"][-1] == "3,8" and set(r.as_dict()) == {"rounds", "feet", "path", "round_ends",
                                                                                   "actions", "via", "used", "legs"}


def test_route_to_itself_and_to_a_wall():
    g = parse_grid("..#")
    assert route(g, (0, 0), (0, 0), 30).as_dict() == {"rounds": 0, "feet": 0, "path": ["0,0"], "round_ends": [],
                                                      "actions": [], "via": [], "used": 0, "legs": [
                                                          {"from": "0,0", "to": "0,0", "squares": 0, "feet": 0,
                                                           "round": 0}]}
    with pytest.raises(RequestError, match=r"^<text>:1:3: the goal 0,2 is impassable$"):  # issue 27, 14
        route(g, (0, 0), (0, 2), 30)


def test_route_to_an_occupied_square_says_why():
    r = route(parse_grid("..a"), (0, 0), (0, 2), 30)
    assert not r.reachable and r.why == "the goal 0,2 is occupied by an ally: no move ends there"


def test_a_runner_takes_a_double_move_where_it_cannot_run():
    """Across a strip of difficult terrain a runner does not crawl square by square with full-round moves
    (5 rounds): it double-moves through the strip, as a player would, and runs on (3 rounds)."""
    row = "." * 6 + "ddd" + "." * 12
    r = route(parse_grid(row), (0, 0), (0, 20), 15, mode="run")
    assert (r.rounds, r.feet // 5) == (3, 23) == brute_force_run([row], (0, 0), (0, 20), 15)
    assert [leg.action for leg in r.legs] == ["double move", "double move", "run"]
    assert "full-round 5 ft" not in [leg.action for leg in r.legs]


def test_run_route_uses_the_full_round_move_only_where_no_double_move_goes():
    r = route(parse_grid("......X......"), (0, 0), (0, 12), 10, mode="run")  # x8: no double move of 20 ft pays
    assert r.rounds == 3 and [leg.action for leg in r.legs] == ["run", "full-round 5 ft", "run"]


def test_reach_in_run_mode_lists_only_what_a_run_reaches():
    """A run goes in a straight line over clear squares: the hampered squares beside the lane are not reached
    (not even by the full-round move, which is no run)."""
    r = reach(parse_grid(".d..\n....\nd..."), (1, 0), 30, mode="run")
    assert (0, 1) not in r.feet and (2, 0) not in r.feet and r.full_round == []
    assert r.feet[(1, 3)] == 15


def test_each_round_of_a_route_says_its_action():
    g = parse_grid("." * 40)
    assert route(g, (0, 0), (0, 1), 30).as_dict()["actions"] == ["5-ft step"]
    assert route(g, (0, 0), (0, 1), 5).as_dict()["actions"] == ["move"]  # no 5-foot step at speed 5 ft
    assert route(g, (0, 0), (0, 5), 30).as_dict()["actions"] == ["move"]
    assert route(g, (0, 0), (0, 9), 30, mode="double").as_dict()["actions"] == ["double move"]
    assert route(g, (0, 0), (0, 20), 30, mode="run").as_dict()["actions"] == ["run"]
    assert route(g, (0, 0), (0, 32), 30, mode="run").as_dict()["actions"] == ["run", "double move"]
    assert route(parse_grid(".X."), (0, 0), (0, 2), 5).as_dict()["actions"] == ["full-round 5 ft", "move"]


# -- fatigue ---------------------------------------------------------------------------------------------
def test_a_fatigued_character_can_neither_run_nor_charge():
    g = parse_grid("." * 10)
    for mode in ("run", "charge"):
        with pytest.raises(RequestError, match="a fatigued character can neither run nor charge"):
            reach(g, (0, 0), 30, mode=mode, fatigued=True)
    with pytest.raises(RequestError, match="neither run nor charge"):
        route(g, (0, 0), (0, 9), 30, mode="run", fatigued=True)
    assert route(g, (0, 0), (0, 9), 30, mode="double", fatigued=True).rounds == 1  # it may still hustle


# -- grids ----------------------------------------------------------------------------------------------
def test_grid_legend_and_comments():
    g = load_grid(DATA / "battle.txt")
    assert g.shape == (4, 9)
    assert g.flags[2, 2] == DIFFICULT | OBSTACLE and g.occupant[1, 6] == 1 and g.occupant[2, 8] == ENEMY
    assert g.where((0, 4)) == f"{DATA / 'battle.txt'}:3:5"


def test_grid_from_array_and_characters():
    f = np.array([[0, IMPASSABLE], [OBSTACLE | POOR_VISIBILITY, DIFFICULT]])
    g = grid_from_array(f)
    assert flags_char(g.flags).tolist() == [[".", "#"], ["O", "d"]]
    with pytest.raises(MapError):
        grid_from_array(np.zeros((2, 1001), int))
    with pytest.raises(MapError):
        grid_from_array([[16]])


@pytest.mark.parametrize(("name", "where", "what"), [
    ("ragged.txt", ":2:4", "row 1 has 4 squares"),
    ("unknown.txt", ":2:2", "unknown square character '?'"),
    ("empty.txt", ":1:1", "no grid rows"),
    ("bad-legend.txt", ":1:11", "legend term 'lava' is unknown"),
    ("latin1.txt", ":1:2", "not UTF-8"),
])
def test_bad_grid_files_name_the_line_and_column(name, where, what):
    with pytest.raises(MapError) as err:
        load_grid(DATA / name)
    assert str(err.value).startswith(f"{DATA / name}{where}: ") and what in str(err.value)


def test_an_unknown_character_gets_a_legend_line_for_itself():
    """Issue 27, 15: the hint names the character found (not a fixed ``X=...``), and a legend character it
    may have been meant for."""
    with pytest.raises(MapError) as err:
        parse_grid("..x\n...")
    said = str(err.value)
    assert said.startswith("<text>:1:3: unknown square character 'x' (name it with a comment line such as"
                           " '; legend: x=difficult', terms joined with +: clear, difficult, obstacle,")
    assert said.endswith("; 'X' is difficult+obstacle+poor_visibility)")
    assert parse_grid("; legend: x=difficult\n..x").flags[0, 2] == DIFFICULT  # the line it suggests works
    with pytest.raises(MapError, match=r"'A' \(name it .* 'a' is ally\)$"):
        parse_grid(".A")
    with pytest.raises(MapError, match="a legend cannot name it"):
        parse_grid(". .")


def test_a_legend_entry_is_char_equals_terms_and_an_array_grid_names_its_source():
    with pytest.raises(MapError) as err:
        parse_grid("; legend: x\n..")
    assert str(err.value) == "<text>:1:11: legend entry 'x' is not CHAR=TERM[+TERM...]"
    with pytest.raises(MapError) as err:
        grid_from_array([[16]], source="g.npy")
    assert str(err.value) == "g.npy: flags must be integers from 0 to 15 (DIFFICULT | OBSTACLE | ...)"


def test_grid_over_the_size_limit():
    with pytest.raises(MapError, match=r"<text>:1:1001: the grid is larger than 1000 x 1000"):
        parse_grid("." * 1001)
    with pytest.raises(MapError, match=r"<text>:1001:1: the grid is larger"):
        parse_grid("\n".join(["."] * 1001))


def test_squares_and_creatures_given_wrong_are_named():
    with pytest.raises(RequestError, match=r"^squares must be R,C \(row,column from 0 at the top left\), got '1'$"):
        parse_squares("0,0;1")
    with pytest.raises(RequestError, match=r"battle.txt: ally 9,9 is outside the grid \(4 rows x 9 columns\)$"):
        reach(load_grid(DATA / "battle.txt"), (0, 0), 30, allies=[(9, 9)])
    with pytest.raises(RequestError, match=r"^mode must be 'move', 'double', 'run', 'charge' or 'step', got 'fly'$"):
        Mover(30, mode="fly")
    with pytest.raises(RequestError, match=r"battle.txt:3:5: blocked square 0,4 is impassable; no creature stands"):
        reach(load_grid(DATA / "battle.txt"), (0, 0), 30, enemies=[(0, 4)])


def test_start_on_a_wall_or_outside_the_grid():
    g = load_grid(DATA / "battle.txt")
    with pytest.raises(RequestError, match=r"battle.txt:3:5: at 0,4 is impassable"):
        reach(g, (0, 4), 30)
    with pytest.raises(RequestError, match=r"battle.txt: goal 9,9 is outside the grid \(4 rows x 9 columns\)"):
        route(g, (0, 0), (9, 9), 30)
    with pytest.raises(RequestError, match="occupied by an ally"):
        reach(g, (1, 6), 30)


# -- brute force (tests/d20_oracle.py: the rules written again, plainly; benchmarks/d20.py runs them too) ----
def _grids(max_side=6, chars="....." + "#dvoDBX" + "ae"):
    letters = st.sampled_from(list(chars))
    return st.integers(2, max_side).flatmap(lambda w: st.lists(
        st.lists(letters, min_size=w, max_size=w).map("".join), min_size=2, max_size=max_side))


@settings(max_examples=250, deadline=None)
@given(rows=_grids(), speed=st.sampled_from([5, 10, 15, 20, 25, 30]), mode=st.sampled_from(["move", "double"]),
       flying=st.booleans(), data=st.data())
def test_multi_round_plans_agree_with_brute_force(rows, speed, mode, flying, data):
    squares = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))]
    start = data.draw(st.sampled_from([s for s in squares if rows[s[0]][s[1]] in ".dvoDBX"] or [None]))
    if start is None:
        return
    goal = data.draw(st.sampled_from([s for s in squares if rows[s[0]][s[1]] != "#"]))
    budget = Mover(speed, mode).budget
    plan = route(parse_grid("\n".join(rows)), start, goal, speed, mode=mode, flying=flying)
    want = brute_force(rows, start, goal, budget, flying)
    assert (None if plan.rounds is None else (plan.rounds, plan.feet // 5)) == want
    if plan.rounds:
        check_plan(rows, plan, speed, mode, flying)


@settings(max_examples=120, deadline=None)
@given(rows=_grids(6, ".." + "a" * 3 + "dB#"), speed=st.sampled_from([5, 10, 15]),
       mode=st.sampled_from(["move", "double"]), data=st.data())
def test_plans_among_many_allies_agree_with_brute_force(rows, speed, mode, data):
    """Where rounds may not end (allies' squares) the backward count is only a lower bound: the route
    must still find the best plan (benchmarks/d20.py runs this on 20,000 such grids)."""
    squares = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))]
    free = [s for s in squares if rows[s[0]][s[1]] in ".dB"]
    if not free:
        return
    start, goal = data.draw(st.sampled_from(free)), data.draw(st.sampled_from(free))
    plan = route(parse_grid("\n".join(rows)), start, goal, speed, mode=mode)
    assert (None if plan.rounds is None else (plan.rounds, plan.feet // 5)) == brute_force(
        rows, start, goal, Mover(speed, mode).budget, False)


@settings(max_examples=200, deadline=None)
@given(rows=_grids(5, "......." + "dB#" + "a"), speed=st.sampled_from([5, 10, 15, 20]),
       mode=st.sampled_from(["move", "double"]), flying=st.booleans(), compiled=st.booleans(), data=st.data())
def test_of_plans_as_good_the_route_is_the_tie_rules(rows, speed, mode, flying, compiled, data):
    """docs/d20.md, "Ties": of every plan with the fewest rounds and then the fewest feet (listed by brute force),
    read back move by move, the first difference into the lesser square, then the earlier round, then with more
    of it left -- by either twin of the search."""
    free = [(r, c) for r in range(len(rows)) for c in range(len(rows[0])) if rows[r][c] in ".dB"]
    if len(free) < 2:
        return
    start, goal = data.draw(st.sampled_from(free)), data.draw(st.sampled_from(free))
    want = tie_rule_plan(rows, start, goal, Mover(speed, mode).budget, flying)
    plan = route(parse_grid("\n".join(rows)), start, goal, speed, mode=mode, flying=flying, compiled=compiled)
    if want is not None:
        assert plan.path == want


@settings(max_examples=150, deadline=None)
@given(rows=_grids(), speed=st.sampled_from([5, 10, 20, 30]), flying=st.booleans(), data=st.data())
def test_rounds_counted_back_from_the_goal_bound_the_route(rows, speed, flying, data):
    """The backward count a route's search keeps to: the brute force's rounds from every square where no
    creature stands, never more where an ally does (a round cannot end on it)."""
    squares = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))]
    goal = data.draw(st.sampled_from(squares))
    grid = parse_grid("\n".join(rows))
    mult, enterable, can_end, _ = grid_arrays(grid, flying)
    cols, budget = len(rows[0]), Mover(speed).budget
    if not can_end[goal[0] * cols + goal[1]]:
        return
    counted, _ = grid_search.rounds_to(mult, step_masks(mult, enterable, len(rows), cols), cols,
                                       goal[0] * cols + goal[1], budget)
    allies = any("a" in row for row in rows)
    for start in squares:
        if rows[start[0]][start[1]] in "#ae":
            continue
        want = brute_force(rows, start, goal, budget, flying)
        got = counted[start[0] * cols + start[1]]
        if not allies:
            assert got == (-1 if want is None else want[0])
        elif want is not None:
            assert 0 <= got <= want[0]


@settings(max_examples=150, deadline=None)
@given(rows=_grids(max_side=12), speed=st.sampled_from([5, 10, 20, 30]), mode=st.sampled_from(["move", "run"]),
       extra=st.sampled_from([None, 0, 1, 3]), data=st.data())
def test_rounds_counted_toward_a_stop_are_the_whole_count_where_its_ways_pass(rows, speed, mode, extra, data):
    """rounds_to aimed at a square (A*): each square keeps the whole count's rounds and first squares, or gets
    one round past the limit (the stop's rounds, or more), none first; and the round-by-round search kept to that
    limit finds the same labels with it as with the whole count -- no way of the limit's rounds passes a square
    it left out.  Where the stop has no way, the whole count."""
    cols, n = len(rows[0]), len(rows) * len(rows[0])
    mult, enterable, can_end, occupant = grid_arrays(parse_grid("\n".join(rows)))
    goal, stop = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    if not can_end[goal] or not mult[stop]:
        return
    mover = Mover(speed, mode)
    run = mover.budget if mode == "run" else 0
    mask, budget = step_masks(mult, enterable, len(rows), cols), max(mover.step_budget, run)
    rounds, first = grid_search.rounds_to(mult, mask, cols, goal, budget)
    if rounds[stop] < 0:
        cut, cut_first = grid_search.rounds_to(mult, mask, cols, goal, budget, stop)
        assert cut.tolist() == rounds.tolist() and cut_first.tolist() == first.tolist()
        return
    limit = int(rounds[stop]) + (extra or 0)
    cut, cut_first = grid_search.rounds_to(mult, mask, cols, goal, budget, stop, -1 if extra is None else limit)
    kept = (cut == rounds) & (cut_first == first)
    assert ((cut[~kept] == limit + 1) & (cut_first[~kept] == 0)).all()
    assert kept[stop] and kept[goal]
    args = (mult, mask, can_end, occupant, len(rows), cols, stop, goal, mover.step_budget, run, limit)
    none, rows_none = np.zeros(0, np.int64), np.zeros((0, n), np.int32)
    fresh = (none, none, rows_none, rows_none, none, mover.step_budget, 0)  # no stops, a fresh round 1
    whole, aimed = (grid_search.plan_labels(*args, rounds, first, *fresh),
                    grid_search.plan_labels(*args, cut, cut_first, *fresh))
    assert aimed[0].tolist() == whole[0].tolist() and aimed[1] == whole[1]


@pytest.mark.parametrize("limit", [0, 1, 2, 5])
def test_rounds_counted_with_no_stop_are_the_whole_count_whatever_the_limit(limit):
    """``limit`` bounds the rounds of a search aimed at a stop; with no stop (-1) every square is counted, a limit
    given or not: on a winding corridor some squares are three rounds and more from the goal, and keep them."""
    rows = ["..#...", ".##.#.", "....#.", "####..", "......"]
    mult, enterable, _, _ = grid_arrays(parse_grid("\n".join(rows)))
    cols, budget = len(rows[0]), Mover(10).step_budget
    mask = step_masks(mult, enterable, len(rows), cols)
    whole, first = grid_search.rounds_to(mult, mask, cols, 0, budget)
    assert whole.max() > 2
    got, got_first = grid_search.rounds_to(mult, mask, cols, 0, budget, -1, limit)
    assert got.tolist() == whole.tolist() and got_first.tolist() == first.tolist()


def test_the_potential_toward_a_stop_is_consistent():
    """The A* order of rounds_to: from every round part and every step the rules allow (orthogonal or diagonal, into
    clear or hampered squares, in the round or beginning the next, or a whole round), the key a step adds is no less
    than what it takes off the potential; and a square's later key never has a lower key plus potential (one label
    a square stays exact).  Budgets 1 to 16, every distance up to three rounds of steps.

    The potential of each distance and round part is asked once (``pot[u, rest]``, distances up to three steps
    past the last checked) and the checks compare the table's columns."""
    for budget in range(1, 17):
        width, full = 2 * budget + 4, 2 * budget + 2
        units = np.arange(3 * width)
        pot = np.array([[grid_search._potential(u, rest, budget) for rest in range(width)]
                        for u in range(3 * width + 3)])
        # a later key, a later (or the same) order: key + potential(rest) <= key + 1 + potential(next rest), where
        # rest = key % width (the key's own value cancels: one lap of the round parts checks every key)
        for rest in range(width):
            assert (pot[units, rest] <= 1 + pot[units, (rest + 1) % width]).all(), (budget, rest)
        for v in range(budget + 2):
            for q in (0, 1):
                rest = 2 * v + q
                if rest >= width:
                    continue
                for m in (1, 2, 4, 8):
                    mult = np.array([m])
                    for k, near in ((0, 2), (4, 3)):  # an orthogonal step is 2 units nearer at most, a diagonal 3
                        c, p = tactical.step_cost(mult, 0, q, k)
                        if v + c <= budget:
                            after, added = rest + 2 * c + p - q, 2 * c + p - q
                        else:
                            c0, p0 = tactical.step_cost(mult, 0, 0, k)
                            after = 2 * c0 + p0 if c0 <= budget else full
                            added = width - rest + after
                        for d in range(-near, near + 1):
                            u = units[units - d >= 0]
                            bad = u[pot[u, rest] > added + pot[u - d, after]]
                            assert not bad.size, (budget, v, q, m, k, bad[:1].tolist(), d)


@settings(max_examples=80, deadline=None)
@given(rows=_grids(), flying=st.booleans())
def test_the_compiled_grid_holds_every_legal_step_at_its_rule_cost(rows, flying):
    """compile_grid's CSR (for SciPy, NetworkX): from each passable square and diagonal parity, exactly the
    steps the rules allow, at their cost and with the parity after them (the brute force's step rule)."""
    net = compile_grid(parse_grid("\n".join(rows)), flying=flying)
    cols = len(rows[0])
    for sq in range(len(rows) * cols):
        u = divmod(sq, cols)
        for parity in (0, 1):
            node = 2 * sq + parity
            got = sorted(zip(net.dst[net.indptr[node]:net.indptr[node + 1]].tolist(),
                             net.cost[net.indptr[node]:net.indptr[node + 1]].tolist(), strict=True))
            want = [] if rows[u[0]][u[1]] == "#" else sorted(
                (2 * (v[0] * cols + v[1]) + step[1], step[0])
                for v in neighbours(u) if (step := step_cost(rows, u, v, parity, flying)) is not None)
            assert got == want, (u, parity)


def test_the_compiled_grid_is_an_integer_csr_for_a_walker_unless_told_flying():
    """compile_grid's graph for other tools: integer index arrays (a CSR's), a walker's steps by default (a flyer
    pays no difficult terrain: the battle grid's differ), and ``can_end`` true on exactly the passable squares
    no creature stands on (where a move may end)."""
    g = load_grid(DATA / "battle.txt")
    net, walker, flyer = compile_grid(g), compile_grid(g, flying=False), compile_grid(g, flying=True)
    assert [a.dtype.kind for a in (net.indptr, net.dst, net.cost)] == ["i", "i", "i"]
    assert all(np.array_equal(getattr(net, k), getattr(walker, k)) for k in ("indptr", "dst", "cost", "mult"))
    assert not np.array_equal(flyer.cost, walker.cost)
    want = ((g.flags & IMPASSABLE) == 0) & (g.occupant == 0)
    assert net.can_end.tolist() == want.reshape(-1).tolist() and not want.all()


@settings(max_examples=80, deadline=None)
@given(rows=_grids(5), speed=st.sampled_from([5, 10, 15]), heavy=st.booleans(), data=st.data())
def test_run_plans_agree_with_brute_force(rows, speed, heavy, data):
    squares = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))]
    start = data.draw(st.sampled_from([s for s in squares if rows[s[0]][s[1]] in ".dvoDBX"] or [None]))
    if start is None:
        return
    goal = data.draw(st.sampled_from([s for s in squares if rows[s[0]][s[1]] != "#"]))
    plan = route(parse_grid("\n".join(rows)), start, goal, speed, mode="run", heavy_armor=heavy)
    want = (0, 0) if start == goal else brute_force_run(rows, start, goal, speed, heavy)
    assert (None if plan.rounds is None else (plan.rounds, plan.feet // 5)) == want
    if plan.rounds:
        check_plan(rows, plan, speed, "run", heavy=heavy)


@settings(max_examples=60, deadline=None)
@given(rows=_grids(6), speed=st.sampled_from([5, 10, 15, 20, 30]), mode=st.sampled_from(["move", "double", "run"]),
       data=st.data())
def test_reach_agrees_with_brute_force(rows, speed, mode, data):
    """A round's reach: every square a move (a double move; a run's straight lines) ends on, at its fewest
    squares, and apart the squares only the full-round one-square move takes (not for a runner)."""
    squares = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))]
    start = data.draw(st.sampled_from([s for s in squares if rows[s[0]][s[1]] in ".dvoDBX"] or [None]))
    if start is None:
        return
    r = reach(parse_grid("\n".join(rows)), start, speed, mode=mode)
    budget = Mover(speed, mode).budget
    if mode == "run":
        want = {start: 0, **{v: 5 * d for v, d in run_lines(rows, start, budget).items()}}
        assert r.feet == want and r.full_round == []
    else:
        moved = round_costs(rows, start, budget, False)
        assert r.feet == {v: 5 * d for v, d in moved.items() if rows[v[0]][v[1]] != "a"}
        assert r.full_round == sorted(full_round_squares(rows, start, budget, False))


@settings(max_examples=80, deadline=None)
@given(rows=_grids(6), speed=st.sampled_from([5, 10, 15, 20, 30]), mode=st.sampled_from(["move", "double", "run"]),
       flying=st.booleans(), compiled=st.booleans(), data=st.data())
def test_the_reach_of_a_round_under_way_agrees_with_brute_force(rows, speed, mode, flying, compiled, data):
    """docs/d20.md, "A round under way": with ``used`` feet of the round already moved (an odd count of diagonals
    among them or not), the round goes on step by step with the rest of its movement -- a runner's too, with a
    double move's --, neither a run nor the full-round one-square move begun; the feet are those moved from the
    square, and every square of the round's route from it with as much used ends where this reach says."""
    squares = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))]
    start = data.draw(st.sampled_from([s for s in squares if rows[s[0]][s[1]] in ".dvoDBX"] or [None]))
    if start is None:
        return
    budget = Mover(speed, mode).step_budget
    used = data.draw(st.integers(1, budget))
    odd = data.draw(st.booleans())
    grid = parse_grid("\n".join(rows))
    r = reach(grid, start, speed, mode=mode, flying=flying, used=5 * used, odd_diagonals=odd, compiled=compiled)
    moved = round_costs(rows, start, budget - used, flying, int(odd))
    assert r.feet == {v: 5 * d for v, d in moved.items() if rows[v[0]][v[1]] != "a"}
    assert r.full_round == [] and r.used == 5 * used
    goal = data.draw(st.sampled_from([s for s in squares if rows[s[0]][s[1]] != "#"]))
    plan = route(grid, start, goal, speed, mode=mode, flying=flying, used=5 * used, odd_diagonals=odd)
    if plan.rounds == 1:  # (the goal this round: the route's feet are the reach's)
        assert r.feet[goal] == plan.feet


def test_a_round_under_way_is_refused_to_a_charge_and_a_5_foot_step():
    grid = parse_grid("....\n....")
    for mode in ("charge", "step"):
        with pytest.raises(RequestError, match=f"used is for a round's movement under way .*not for mode '{mode}'"):
            reach(grid, (0, 0), 30, mode=mode, used=5)
    with pytest.raises(RequestError, match="used must be a multiple of 5 ft from 0 to 30"):
        reach(grid, (0, 0), 30, used=35)
    with pytest.raises(RequestError, match="odd_diagonals is for a round already under way"):
        reach(grid, (0, 0), 30, odd_diagonals=True)
    assert reach(grid, (0, 0), 30, mode="run", used=60).feet == {(0, 0): 0}  # (a runner's double move, all used)


def test_the_next_round_starts_from_the_cheapest_way_into_a_square():
    """Two ways reach 3,0 in round 2 with as many squares of the round left: via the obstacle 2,0 (2 + 1
    squares) or the full-round move into 2,1 and a diagonal (1 + 1).  Round 3 must go on from the cheaper."""
    rows = ["B.", "oo", "oB", ".v", "Dd"]
    plan = route(parse_grid("\n".join(rows)), (1, 0), (4, 1), 10)
    assert (plan.rounds, plan.feet // 5) == brute_force(rows, (1, 0), (4, 1), 2, False) == (3, 3)
    assert [leg.squares for leg in plan.legs] == [[(2, 1)], [(3, 0)], [(4, 1)]]


def test_a_route_beside_a_column_of_allies_is_the_best_one():
    """The backward count is only a lower bound beside allies (a round cannot end on them): squares it has
    not counted yet must not be taken for unreachable, or the best plan is pruned at every widened bound."""
    rows = ["...", ".a.", ".a.", ".a.", ".a.", "..."]
    r = route(parse_grid("\n".join(rows)), (1, 2), (3, 0), 5)
    assert (r.rounds, r.feet) == (4, 20) and brute_force(rows, (1, 2), (3, 0), 1, False) == (4, 4)


def test_the_round_bound_widens_until_the_goal_is_found(monkeypatch):
    """The column of allies: counted back, 2 rounds; searched within 2, then 3 rounds, no plan; within 5 (the
    slack doubles), the best plan, of 4 rounds."""
    bounds = []

    def counting(*args):
        bounds.append(args[10])  # max_round
        return grid_search.plan_labels(*args)

    monkeypatch.setattr(d20, "_fn", lambda name, squares, compiled: counting if name == "plan_labels"
                        else getattr(grid_search, name))
    r = route(parse_grid("...\n.a.\n.a.\n.a.\n.a.\n..."), (1, 2), (3, 0), 5)
    assert bounds == [2, 3, 5] and r.rounds == 4
    bounds.clear()  # inside a ring of allies, at 5 ft a round: no round may end on the ring, so no way in;
    ring = route(parse_grid(".....\n.aaa.\n.a.a.\n.aaa.\n....."), (0, 0), (2, 2), 5)  # the bound widens until
    assert not ring.reachable and bounds == [2, 3, 5, 9, 17]  # nothing is left out (every square has begun a round)


BOUNDED = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
import numpy as np
from eidomap.answers.grid import grid_from_array, load_grid, reach, route
g, speed = load_grid(sys.argv[1]), int(sys.argv[2])
out = [reach(g, (13, 0), speed, mode=m, compiled=False).as_dict() for m in ("move", "double", "run", "charge")]
out += [route(g, (13, 0), (0, 21), speed, mode=m, compiled=False).as_dict() for m in ("move", "double", "run")]
big = grid_from_array(np.zeros((1000, 1000), np.uint8))
out += [len(reach(big, (0, 0), 1000, mode="charge").feet)]
out += [route(big, (0, 0), (999, 999), 1000, mode=m).rounds for m in ("run", "double")]
print(json.dumps(out))
"""


def test_grid_searches_are_bounded_by_the_grid_not_the_speed():
    """Issue 28: speed 1,000 in run or charge mode took over 6 GB on the bundled 14 x 22 grid (a table of every
    straight line of the whole budget) and 3.2 GB on a 1,000 x 1,000 open grid.  Now under a 1 GiB address-space
    limit, with the answers of a speed that already reaches across the bundled grid."""
    battle = Path(__file__).resolve().parents[3] / "maps" / "d20-battle.txt"
    p = subprocess.run([sys.executable, "-c", BOUNDED, str(battle), "1000"], capture_output=True, text=True,
                       timeout=hang_guard(20), check=False)
    assert p.returncode == 0, p.stderr[-2000:]
    *small, charges, run_rounds, double_rounds = json.loads(p.stdout)
    g = load_grid(battle)
    assert small == [*(reach(g, (13, 0), 200, mode=m).as_dict() for m in ("move", "double", "run", "charge")),
                     *(route(g, (13, 0), (0, 21), 200, mode=m).as_dict() for m in ("move", "double", "run"))]
    cost = np.maximum.outer(np.arange(1000), np.arange(1000)) + np.minimum.outer(np.arange(1000), np.arange(1000)) // 2
    assert charges == int(((cost >= 2) & (cost <= 400)).sum())  # every clear line of 10 to 2,000 ft
    assert (run_rounds, double_rounds) == (2, 4)  # 1,498 squares corner to corner: 800 a run, 400 a double move


def test_a_runner_s_search_is_compiled_by_the_lines_it_tries_not_by_the_squares_alone(monkeypatch):
    """A run through stops on the bundled 14 x 22 grid took 3.7 s in plain Python (every round's start tries each
    straight line within the run) and 40 ms compiled: the default form is chosen by the steps the search may try --
    the squares' directions times the stops plus one, and a runner's lines -- and the count goes in the same form."""
    from eidomap.base import settings as twins

    chosen = []
    real = twins.twin
    monkeypatch.setattr(twins, "twin", lambda fn, steps, compiled=None: chosen.append(
        (fn.__name__, steps > twins.COMPILE_ABOVE)) or real(fn, steps, compiled))
    g = load_grid(Path(__file__).resolve().parents[3] / "maps" / "d20-battle.txt")
    assert g.flags.size < d20.COMPILE_ABOVE  # (a small grid: a walker's search stays in Python)
    route(g, (3, 6), (3, 21), 20, mode="double")
    assert chosen and not any(big for _, big in chosen)
    chosen.clear()
    ran = route(g, (3, 6), (3, 21), 20, mode="run", via=[(8, 7), (1, 14)])
    assert set(chosen) == {("plan_labels", True), ("rounds_to", True)}
    assert ran.rounds == 4 and [leg.goal for leg in ran.via_legs][:2] == [(8, 7), (1, 14)]


def test_compiled_and_python_searches_agree():
    rng = np.random.default_rng(3)
    flags = rng.choice([0, 0, 0, DIFFICULT, OBSTACLE, IMPASSABLE], size=(30, 30))
    flags[0, 0] = flags[-1, -1] = 0
    g = grid_from_array(flags)
    for mode in ("move", "run"):
        a = route(g, (0, 0), (29, 29), 20, mode=mode, compiled=False)
        b = route(g, (0, 0), (29, 29), 20, mode=mode, compiled=True)
        assert a.as_dict() == b.as_dict()
    for mode in ("double", "charge"):
        assert reach(g, (0, 0), 20, mode=mode, compiled=False) == reach(g, (0, 0), 20, mode=mode, compiled=True)


def test_lines_from_says_it_left_out_a_run_end_the_goal_is_too_far_from():
    """A run's ends from which the goal takes more rounds than the slack allows are left out before their lines
    are walked, and lines_from says so (``pruned``), so that a wider bound may be tried; an end with no way to
    the goal is left out without saying it."""
    mult, enterable, can_end, occupant = grid_arrays(parse_grid("......"))
    cols, goal = 6, 5
    mask = step_masks(mult, enterable, 1, cols)
    rounds, first = grid_search.rounds_to(mult, mask, cols, goal, 1)  # a square a round: rounds 5, 4, ... 0
    ends, costs, near = np.empty(36, np.int64), np.empty(36, np.int64), np.empty(0, np.int64)  # (near: unused at -1)
    for slack, pruned, reached in ((4, False, [1, 2, 3, 4, 5]), (2, True, [3, 4, 5]), (0, True, [5])):
        count, cut = grid_search.lines_from(mult, occupant, can_end, 1, cols, 0, 1, 5, False, rounds, first, slack,
                                            near, -1, ends, costs)
        assert cut is pruned and sorted(ends[:count].tolist()) == reached
    rounds[1:goal] = -1  # no way on from them: left out, and not a bound's doing
    count, cut = grid_search.lines_from(mult, occupant, can_end, 1, cols, 0, 1, 5, False, rounds, first, 0,
                                        near, -1, ends, costs)
    assert cut is False and ends[:count].tolist() == [5]


# -- stops on the way and a round under way (issue 48; docs/d20.md "Stops and a round under way") ------------------
@settings(max_examples=250, deadline=None)
@given(rows=_grids(), speed=st.sampled_from([5, 10, 15, 20, 30]), mode=st.sampled_from(["move", "double", "run"]),
       flying=st.booleans(), heavy=st.booleans(), compiled=st.booleans(), data=st.data())
def test_a_route_through_stops_and_a_round_under_way_agrees_with_brute_force(rows, speed, mode, flying, heavy,
                                                                            compiled, data):
    """The best whole journey through the stops in order (fewest rounds, then feet), round 1 going on from the feet
    already used (an odd count of diagonals or not), against a Dijkstra over (square, squares left, parity, stops
    passed); each plan replayed round by round, its legs ending where each stop is first passed."""
    squares = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))]
    start = data.draw(st.sampled_from([s for s in squares if rows[s[0]][s[1]] in ".dvoDBX"] or [None]))
    if start is None:
        return
    open_ = [s for s in squares if rows[s[0]][s[1]] != "#"]
    goal = data.draw(st.sampled_from(open_))
    stops = data.draw(st.lists(st.sampled_from(open_), max_size=3))
    flying, heavy = flying and mode != "run", heavy and mode == "run"  # (the run oracle walks on foot)
    used = data.draw(st.integers(0, Mover(speed, mode).step_budget))
    odd = used > 0 and data.draw(st.booleans())
    plan = route(parse_grid("\n".join(rows)), start, goal, speed, mode=mode, flying=flying, heavy_armor=heavy,
                 via=stops, used=5 * used, odd_diagonals=odd, compiled=compiled)
    want = brute_force_journey(rows, start, goal, speed, mode, flying, heavy, stops, used, odd)
    assert (None if plan.rounds is None else (plan.rounds, plan.feet // 5)) == want
    if plan.rounds:
        check_plan(rows, plan, speed, mode, flying, heavy, stops, used, odd)


@settings(max_examples=40, deadline=None)
@given(rows=_grids(10, "......." + "dB#a"), speed=st.sampled_from([5, 10]), compiled=st.booleans(), data=st.data())
def test_a_runners_journey_past_stops_out_of_a_runs_reach_agrees_with_brute_force(rows, speed, compiled, data):
    """A runner far from its next stop (no run reaches it) has its runs' ends bounded by the rounds counted back from
    that stop; near it, each run's end by the layer the run leaves it in: the same journeys as the brute force."""
    free = [(r, c) for r in range(len(rows)) for c in range(len(rows[0])) if rows[r][c] in ".dB"]
    if len(free) < 2:
        return
    start, goal = data.draw(st.sampled_from(free)), data.draw(st.sampled_from(free))
    stops = data.draw(st.lists(st.sampled_from(free), min_size=1, max_size=2))
    plan = route(parse_grid("\n".join(rows)), start, goal, speed, mode="run", via=stops, compiled=compiled)
    want = brute_force_journey(rows, start, goal, speed, "run", stops=stops)
    assert (None if plan.rounds is None else (plan.rounds, plan.feet // 5)) == want
    if plan.rounds:
        check_plan(rows, plan, speed, "run", stops=stops)


@settings(max_examples=150, deadline=None)
@given(rows=_grids(5, "......." + "dB#" + "a"), speed=st.sampled_from([5, 10, 15, 20]),
       mode=st.sampled_from(["move", "double"]), compiled=st.booleans(), data=st.data())
def test_of_journeys_as_good_through_stops_the_route_is_the_tie_rules(rows, speed, mode, compiled, data):
    """docs/d20.md, "Ties", through stops and from a round under way: of every plan as good, read back move by
    move, the first difference into the lesser square, then the earlier round, then with more of it left."""
    free = [(r, c) for r in range(len(rows)) for c in range(len(rows[0])) if rows[r][c] in ".dB"]
    if len(free) < 2:
        return
    start, goal = data.draw(st.sampled_from(free)), data.draw(st.sampled_from(free))
    stops = data.draw(st.lists(st.sampled_from(free), min_size=1, max_size=2))
    budget = Mover(speed, mode).budget
    used = data.draw(st.integers(0, budget))
    odd = used > 0 and data.draw(st.booleans())
    want = tie_rule_plan(rows, start, goal, budget, False, stops, used, odd)
    plan = route(parse_grid("\n".join(rows)), start, goal, speed, mode=mode, via=stops, used=5 * used,
                 odd_diagonals=odd, compiled=compiled)
    if want is not None:
        assert plan.path == want


def test_a_stop_ends_no_round_and_the_journey_is_not_its_legs_each_best():
    """A stop is passed on the way: the round goes on past it (0,3 and 0,6 in one round of 30 ft).  And the best
    journey is found whole: alone, 0,1 -> 2,0 takes one round of 20 ft (diagonal 5, diagonal 10, 5), after which
    2,1 costs a second round of 5 ft (25 ft in all); ending round 1 after the first diagonal starts the 5-10-5 count
    again, and the journey makes it in the same 2 rounds for 20 ft."""
    line = route(parse_grid("." * 8), (0, 0), (0, 6), 30, via=[(0, 3)])
    assert (line.rounds, line.feet) == (1, 30)
    assert [(leg.goal, leg.squares, leg.feet, leg.round) for leg in line.via_legs] == [((0, 3), 3, 15, 1),
                                                                                      ((0, 6), 3, 15, 1)]
    rows = ["#...", ".B.d", "..d#"]
    g = parse_grid("\n".join(rows))
    alone = route(g, (0, 1), (2, 0), 20)
    assert (alone.rounds, alone.feet) == (1, 20)
    whole = route(g, (0, 1), (2, 1), 20, via=[(2, 0)])
    assert (whole.rounds, whole.feet // 5) == brute_force_journey(rows, (0, 1), (2, 1), 20, "move", stops=[(2, 0)])
    assert (whole.rounds, whole.feet) == (2, 20) and whole.round_ends == [(1, 2), (2, 1)]
    assert [(leg.feet, leg.round) for leg in whole.via_legs] == [(15, 2), (5, 2)]


def test_a_runs_every_square_passes_a_stop():
    """A stop on a run's line is passed by the run (each of its squares is entered): one round of 40 ft for speed
    10, where stepping through the stop would take 2 (a double move is 20 ft)."""
    r = route(parse_grid("." * 9), (0, 0), (0, 8), 10, mode="run", via=[(0, 5)])
    assert (r.rounds, r.feet, r.legs[0].action) == (1, 40, "run")
    assert [(leg.goal, leg.squares, leg.round) for leg in r.via_legs] == [((0, 5), 5, 1), ((0, 8), 3, 1)]


def test_stops_repeated_on_the_start_or_the_goal():
    """A stop the route starts on is passed at once; a stop given twice in a row is passed once (its second leg
    has no square); the goal may be a stop, and a route may go out and back to its start."""
    g = parse_grid("." * 6)
    r = route(g, (0, 0), (0, 4), 30, via=[(0, 0), (0, 2), (0, 2)])
    assert [(leg.start, leg.goal, leg.squares) for leg in r.via_legs] == [
        ((0, 0), (0, 0), 0), ((0, 0), (0, 2), 2), ((0, 2), (0, 2), 0), ((0, 2), (0, 4), 2)]
    back = route(g, (0, 0), (0, 0), 10, via=[(0, 3)])
    assert (back.rounds, back.feet, back.path) == (3, 30, [(0, i) for i in (0, 1, 2, 3, 2, 1, 0)])
    still = route(g, (0, 0), (0, 0), 10, via=[(0, 0)])
    assert (still.rounds, still.feet, [leg.round for leg in still.via_legs]) == (0, 0, [0, 0])


def test_a_stop_passes_an_allys_square_never_an_enemys():
    """An ally's square may be a stop (passed, not ended on); an enemy's is never entered: no way, and why."""
    g = parse_grid("..a..\n.....")
    assert route(g, (0, 0), (0, 4), 30, via=[(0, 2)]).path == [(0, i) for i in range(5)]
    r = route(g, (0, 0), (0, 4), 30, via=[(1, 2)], enemies=[(1, 2)])
    assert not r.reachable and r.why == "the stop 1,2 is occupied by an enemy: no move enters it"
    walled = route(parse_grid("..#..\n..#.."), (0, 0), (0, 1), 30, via=[(1, 4)])
    assert not walled.reachable and walled.why == "no way from 0,0 to 1,4"


def test_a_round_under_way_goes_on_with_what_is_left_of_it():
    """``used``: 20 of speed 30's 30 ft already moved leave 2 squares of round 1, so 0,6 is reached in round 2; with
    30 ft used round 1 has nothing left; a double move's rest makes round 1 a double move; an odd diagonal already
    moved makes the next one 10 ft; no run and no full-round move in a round under way."""
    g = parse_grid("." * 8 + "\n" + "." * 8)
    r = route(g, (0, 0), (0, 6), 30, used=20)
    assert (r.rounds, r.feet, r.round_ends) == (2, 30, [(0, 2), (0, 6)])
    assert [leg.round for leg in route(g, (0, 0), (0, 1), 30, used=30).legs] == [2]
    assert route(g, (0, 0), (0, 2), 30, mode="double", used=30).legs[0].action == "double move"
    assert route(g, (0, 0), (0, 1), 30, used=5).legs[0].action == "move"  # (no 5-ft step after moving)
    assert route(g, (0, 0), (1, 2), 15, used=5).rounds == 1  # diagonal 5, then 5: 15 ft
    assert route(g, (0, 0), (1, 2), 15, used=5, odd_diagonals=True).rounds == 2  # diagonal 10, then 5: 20 ft
    run = route(parse_grid("." * 9), (0, 0), (0, 8), 10, mode="run", used=5)
    assert [leg.action for leg in run.legs] == ["double move", "run"]
    slow = route(parse_grid(".X"), (0, 0), (0, 1), 5, used=0)
    late = route(parse_grid(".X"), (0, 0), (0, 1), 5, used=5)
    assert [leg.round for leg in slow.legs] == [1] and [(leg.round, leg.action) for leg in late.legs] == [
        (2, "full-round 5 ft")]


@pytest.mark.parametrize(("kw", "message"), [
    ({"via": [(0, 9)]}, r"<array>: stop 0,9 of via=\.\.\. is outside the grid \(2 rows x 5 columns\)"),
    ({"via": [(1, 1), (0, 2)]}, r"<array>: square 0,2: stop 0,2 of via=\.\.\. is impassable"),
    ({"via": "1,1"}, r"via must be a list of squares"),
    ({"via": [(0, 0)] * 101}, r"via must be at most 100 stops, got 101"),
    ({"used": 35}, r"used must be a multiple of 5 ft from 0 to 30 \(a round's movement at speed 30 ft, move\), got 35"),
    ({"used": 7}, r"used must be a multiple of 5 ft from 0 to 30"),
    ({"used": -5}, r"used must be a multiple of 5 ft from 0 to 30"),
    ({"used": 5.0}, r"used must be a multiple of 5 ft"),
    ({"used": 0, "odd_diagonals": True}, r"odd_diagonals is for a round already under way: give used=\.\.\."),
])
def test_stops_and_used_given_wrong_are_named(kw, message):
    g = grid_from_array(np.array([[0, 0, IMPASSABLE, 0, 0], [0] * 5]))
    with pytest.raises(RequestError, match=message):
        route(g, (0, 0), (1, 4), 30, **kw)


def test_stops_on_a_large_grid_are_bounded_before_the_search():
    """The search keeps a list of labels for each square and count of stops passed: refused, before anything is
    allocated for it, past 16,000,000 of them (a 1,000 x 1,000 grid through 16 stops)."""
    big = grid_from_array(np.zeros((1000, 1000), np.uint8))
    with pytest.raises(RequestError, match=r"via has 16 stops: on a grid of 1,000,000 squares the search would"
                                           r" hold 17,000,000 squares-and-stops, more than 16,000,000"):
        route(big, (0, 0), (999, 999), 30, via=[(5, 5)] * 16)
