"""``eidomap d20 reach`` and ``eidomap d20 route``: JSON shapes, exit codes, bad input, pictures."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

from eidomap.answers.grid import load_grid, parse_grid, reach, route
from eidomap.cli import main
from eidomap.plot import plot_grid_reach, plot_grid_route

BATTLE = Path(__file__).resolve().parents[1] / "data" / "d20" / "battle.txt"


def run(argv, capsys):
    code = main(["d20", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_reach_json(capsys):
    code, out, _ = run(["reach", BATTLE, "--at", "0,0", "--speed", "30", "--json"], capsys)
    r = json.loads(out)
    assert code == 0 and set(r) == {"reachable", "full_round"} and r["reachable"]["0,0"] == 0
    assert r["reachable"]["3,3"] == 25 and r["full_round"] == []
    code, out, _ = run(["reach", BATTLE, "--at", "1,1", "--speed", "5", "--json"], capsys)  # 1,2: x2; 2,2: x4
    assert json.loads(out)["full_round"] == ["1,2", "2,2"] and "1,2" not in json.loads(out)["reachable"]
    code, out, _ = run(["reach", BATTLE, "--at", "1,1", "--speed", "5"], capsys)
    assert "only by the full-round 5-ft move (a full-round action, 5 ft): 1,2 2,2" in out


def test_reach_used_goes_on_from_a_round_under_way(capsys):
    """``d20 reach --used FT [--odd-diagonals]`` (issue 48): the rest of the round from ``--at``, the feet listed
    moved from it; the text says what is left."""
    code, out, _ = run(["reach", BATTLE, "--at", "0,0", "--speed", "30", "--used", "15", "--odd-diagonals",
                        "--json"], capsys)
    r = json.loads(out)
    want = reach(load_grid(BATTLE), (0, 0), 30, used=15, odd_diagonals=True)
    assert code == 0 and r == want.as_dict() and max(r["reachable"].values()) == 15 and "1,1" in r["reachable"]
    assert r["reachable"]["1,1"] == 10 and reach(load_grid(BATTLE), (0, 0), 30, used=15).feet[(1, 1)] == 5
    code, out, _ = run(["reach", BATTLE, "--at", "0,0", "--speed", "30", "--mode", "double", "--used", "45"], capsys)
    assert out.splitlines()[1] == "  45 ft of this round already used: up to 15 ft more, step by step"


def test_route_json_and_no_way(capsys):
    code, out, _ = run(["route", BATTLE, "--from", "0,0", "--to", "3,8", "--speed", "20", "--json"], capsys)
    r = json.loads(out)
    assert code == 0 and r["rounds"] == 3 and r["feet"] == 45 and r["path"][0] == "0,0"
    assert r["round_ends"] == ["2,3", "2,7", "3,8"]  # (or 3,7: of ways as good, the tie rule's, docs/d20.md)
    code, out, err = run(["route", BATTLE, "--from", "0,0", "--to", "0,8", "--speed", "30", "--json",
                          "--blocked", "0,7;1,7;1,8"], capsys)
    assert code == 1 and not err
    assert json.loads(out) == {"rounds": None, "feet": None, "path": [], "round_ends": [], "actions": [], "via": [],
                               "used": 0, "legs": []}
    code, out, _ = run(["route", BATTLE, "--from", "0,0", "--to", "1,6", "--speed", "30"], capsys)
    assert code == 1 and out == "no way from 0,0 to 1,6: the goal 1,6 is occupied by an ally: no move ends there\n"


def test_route_via_stops_names_each_leg_in_json_and_a_line_each_in_text(capsys):
    """``--via R,C;R,C`` (issue 48): the route passes the stops in order, ``--json`` names each leg (``legs``: from,
    to, squares, feet, the round its end is reached in) and the text says each leg on a line of its own; ``--used``
    starts in a round under way."""
    code, out, _ = run(["route", BATTLE, "--from", "0,0", "--to", "3,8", "--speed", "20", "--via", "3,0;0,8",
                        "--json"], capsys)
    r = json.loads(out)
    assert code == 0 and r["via"] == ["3,0", "0,8"] and [(leg["from"], leg["to"]) for leg in r["legs"]] == [
        ("0,0", "3,0"), ("3,0", "0,8"), ("0,8", "3,8")]
    assert sum(leg["squares"] for leg in r["legs"]) == len(r["path"]) - 1 and r["legs"][-1]["round"] == r["rounds"]
    assert sum(leg["feet"] for leg in r["legs"]) == r["feet"] and r["path"][len(r["path"]) - 4] == "0,8"
    code, out, _ = run(["route", BATTLE, "--from", "0,0", "--to", "3,8", "--speed", "20", "--via", "3,0;0,8",
                        "--used", "10"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[1:3] == ["  via 3,0 0,8", "  10 ft of round 1 already used"]
    assert [line.split(":")[0] for line in lines[3:6]] == ["  leg 1", "  leg 2", "  leg 3"]
    assert lines[3].startswith("  leg 1: 0,0 -> 3,0: 3 squares, 15 ft, there in round ")


def test_route_says_each_rounds_action(capsys):
    code, out, _ = run(["route", BATTLE, "--from", "0,0", "--to", "3,8", "--speed", "10", "--mode", "run"], capsys)
    assert code == 0 and "round   1: double move     0,1 0,2 1,3 2,3  (20 ft)" in out
    assert "round   2: run             2,4 2,5 3,6 3,7 3,8  (25 ft)" in out


def test_run_and_charge_modes(capsys):
    code, out, _ = run(["reach", BATTLE, "--at", "3,0", "--speed", "10", "--mode", "charge", "--json"], capsys)
    assert code == 0 and "3,1" not in json.loads(out)["reachable"] and "3,4" in json.loads(out)["reachable"]
    code, out, _ = run(["route", BATTLE, "--from", "3,0", "--to", "3,8", "--speed", "30", "--mode", "run"], capsys)
    assert code == 0 and "3,0 -> 3,8: 1 round, 40 ft (speed 30 ft, run)" in out


def test_one_is_singular_and_a_run_in_heavy_armour_says_its_x3(capsys):
    # issue 46, items 9 and 10 (the battle page says the same: tests/planner/grid.test.cjs)
    chapel = Path(__file__).resolve().parents[2] / "maps" / "d20-battle.txt"
    code, out, _ = run(["reach", chapel, "--at", "5,17", "--speed", "30", "--mode", "charge", "--target", "2,19"],
                       capsys)
    assert code == 0 and out.startswith("1 square reachable from 5,17 this round (speed 30 ft, charge: up to 60 ft)")
    code, out, _ = run(["route", BATTLE, "--from", "3,0", "--to", "3,8", "--speed", "30", "--mode", "run",
                        "--heavy-armor"], capsys)
    assert code == 0 and "3,0 -> 3,8: 1 round, 40 ft (speed 30 ft, run x3)" in out
    code, out, _ = run(["reach", BATTLE, "--at", "3,0", "--speed", "30", "--mode", "run", "--heavy-armor"], capsys)
    assert code == 0 and "(speed 30 ft, run x3: up to 90 ft)" in out.splitlines()[0]


@pytest.mark.parametrize(("argv", "message"), [
    (["reach", BATTLE, "--at", "0,4", "--speed", "30"], "battle.txt:3:5: at 0,4 is impassable"),
    (["reach", BATTLE, "--at", "9,0", "--speed", "30"], "at 9,0 is outside the grid"),
    (["reach", BATTLE, "--at", "x", "--speed", "30"], "--at must be R,C"),
    (["reach", BATTLE, "--at", "0,0", "--speed", "12"], "speed must be a multiple of 5"),
    (["reach", BATTLE.with_name("ragged.txt"), "--at", "0,0", "--speed", "30"], "ragged.txt:2:4: row 1 has"),
    (["reach", BATTLE.with_name("missing.txt"), "--at", "0,0", "--speed", "30"], "cannot be read"),
    (["route", BATTLE, "--from", "0,0", "--to", "0,1", "--speed", "30", "--blocked", "0,4"], "is impassable"),
    (["route", BATTLE, "--from", "0,0", "--to", "0,4", "--speed", "30"], "battle.txt:3:5: the goal 0,4 is impassable"),
    (["route", BATTLE, "--from", "0,0", "--to", "3,8", "--speed", "30", "--mode", "run", "--fatigued"],
     "a fatigued character can neither run nor charge"),
    (["reach", BATTLE, "--at", "3,0", "--speed", "30", "--mode", "charge", "--fatigued"], "neither run nor charge"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err and err.startswith("eidomap: ")


def test_png_is_written(tmp_path, capsys):
    out = tmp_path / "route.svg"
    code, text, _ = run(["route", BATTLE, "--from", "0,0", "--to", "3,8", "--speed", "20", "--png", out], capsys)
    assert code == 0 and f"wrote {out}" in text and out.read_text().startswith("<?xml")
    out = tmp_path / "reach.png"
    code, text, _ = run(["reach", BATTLE, "--at", "0,0", "--speed", "5", "--png", out], capsys)
    assert code == 0 and out.read_bytes()[:4] == b"\x89PNG"


def test_plot_functions_return_their_axes():
    g = load_grid(BATTLE)
    ax = plot_grid_reach(g, reach(g, (0, 0), 30))
    assert {c.get_gid() for c in ax.collections} >= {"ally", "enemy", "start"}
    _, ax2 = plt.subplots()
    assert plot_grid_route(g, route(g, (0, 0), (3, 8), 20), ax2) is ax2
    assert [t.get_text() for t in ax2.texts if t.get_gid() == "round-end"] == ["1", "2", "3"]
    plt.close("all")


def test_reach_picture_legend_lists_what_the_grid_has_clear_of_the_colour_bar():
    """Issue 27, 16: the colour bar was drawn over the legend's x2/x4/x8 labels, and the legend listed
    multipliers the grid does not have."""
    g = load_grid(BATTLE)  # clear, x2, x4 (c: difficult + obstacle), walls; no x8
    fig = Figure(figsize=(8, 4))
    ax = plot_grid_reach(g, reach(g, (1, 1), 5), fig.add_subplot())
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["clear", "x2", "x4", "impassable", "ally", "enemy", "start", "full-round 5-ft move only"]
    fig.canvas.draw()
    bar = next(a for a in fig.axes if a is not ax)
    assert not bar.get_window_extent().overlaps(ax.get_legend().get_window_extent())
    assert [t.get_text() for t in bar.get_xticklabels()] == ["0", "5"]
    open_ = plot_grid_reach(parse_grid("..."), reach(parse_grid("..."), (0, 0), 5), Figure().add_subplot())
    assert [t.get_text() for t in open_.get_legend().get_texts()] == ["clear", "start"]

