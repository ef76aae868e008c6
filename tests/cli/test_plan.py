"""The planning commands: JSON shapes, exit codes and bad input."""

from __future__ import annotations

import collections
import json

import pytest
from conftest import DEMO, collection, eido, feature, pousa, road, run, strip

import eidomap
from eidomap.validate.checks import validate


@pytest.fixture
def strip_map(tmp_path):
    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(strip(["meadow", "forest", "meadow", "sea"]))))
    return p


def test_route_json_keys(strip_map, capsys):
    code, out, _ = run(["route", strip_map, "--from", "e0", "--to", "e2", "--species", "human", "--rolls", "2,6",
                        "--json"], capsys)
    r = json.loads(out)
    assert code == 0
    assert {"from", "to", "reachable", "total_cost", "path", "turns", "arrival_turn", "crossed_turn", "p_by_turn",
            "expected_turns"} <= set(r)
    assert r["path"][0] == {"node": "e0", "kind": "start", "cost": 0.0}
    assert {"turn", "roll", "budget", "spent", "lost", "debt_after", "end"} <= set(r["turns"][0])
    assert r["arrival_turn"] == r["crossed_turn"] == 2  # forest (3) entered with 2 points: 1 owed


def test_route_without_rolls_gives_the_distribution(strip_map, capsys):
    code, out, _ = run(["route", strip_map, "--from", "e0", "--to", "e2", "--species", "human", "--json"], capsys)
    r = json.loads(out)
    assert code == 0 and r["total_cost"] == 4 and r["p_by_turn"][-1] == 1.0 and r["turns"] == []


def test_unreachable_is_an_answer_with_exit_1(strip_map, capsys):
    code, out, err = run(["route", strip_map, "--from", "e0", "--to", "e3", "--species", "horse", "--json"], capsys)
    assert code == 1 and json.loads(out)["reachable"] is False and err == ""


def test_reach_json(strip_map, capsys):
    code, out, _ = run(["reach", strip_map, "--from", "e0", "--species", "human", "--roll", "2", "--json"], capsys)
    assert code == 0 and json.loads(out)["reachable"] == {"e0": 0.0, "e1": 1.0}
    code, out, _ = run(["reach", strip_map, "--from", "e0", "--species", "human", "--turns", "1", "--json"], capsys)
    assert json.loads(out)["p_within"]["e1"] == 1.0


def test_species_json(capsys, tmp_path):
    code, out, _ = run(["species", "--json"], capsys)
    human = json.loads(out)["species"]["human"]
    assert code == 0 and human["vmv"] == 0 and human["road_style"] == "pousa" and human["costs"]["air"] is None


@pytest.mark.parametrize(("args", "message"), [
    (["--species", "dragon"], "unknown species 'dragon'"),
    (["--species", "human", "--rolls", "3,7"], "roll 7 is outside the range of 1d6 (1 to 6)"),
    (["--species", "human", "--rolls", "3,x"], "--rolls must be whole numbers"),
    (["--species", "human", "--dice", "3x"], "dice '3x' is not of the form NdM+K"),
    (["--species", "human", "--mount", "unicorn"], "unknown species 'unicorn'"),
    (["--species", "human", "--gift", "flight"], "unknown gift 'flight'"),
    (["--species", "human", "--vmv", "-1"], "--vmv must be a whole number from 0 to 1,000,000"),
])
def test_bad_requests_are_one_line(strip_map, capsys, args, message):
    code, out, err = run(["route", strip_map, "--from", "e0", "--to", "e2", *args], capsys)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_unknown_eido_is_one_line(strip_map, capsys):
    code, _, err = run(["route", strip_map, "--from", "e0", "--to", "nowhere", "--species", "human"], capsys)
    assert code == 2 and "no Eido or Pousa with id 'nowhere'" in err


@pytest.mark.parametrize(("toml", "message"), [
    ("[species.bad]\nvmv = 1\ncosts = { meadow = -2 }\n", "cost of 'meadow' must not be negative"),
    ("[species.bad]\nvmv = 1.5\n", "vmv must be a whole number"),
    ("[species.bad]\ncosts = { lava = 1 }\n", "costs name unknown terrain 'lava'"),
    ("not toml at all [", "is not valid TOML"),
])
def test_bad_catalog_is_one_line(strip_map, tmp_path, capsys, toml, message):
    cat = tmp_path / "cat.toml"
    cat.write_text(toml)
    code, _, err = run(["route", strip_map, "--from", "e0", "--to", "e2", "--species", "human", "--catalog", cat],
                       capsys)
    assert code == 2 and message in err and str(cat) in err and err.count("\n") == 1


def test_itinerary_text_reads_as_words(capsys):
    code, out, _ = run(["route", DEMO, "--from", "bouza-vella", "--to", "porto-norte", "--species", "human",
                        "--rolls", "3,5,2,6"], capsys)
    assert code == 0
    assert "None" not in out and "board_adjacent" not in out and "alight" not in out
    assert 'bouza-vella "Bouza Vella"' in out.splitlines()[0]
    assert "Pousa cr-4 (onto the road, 1)" in out and "(off the road, 0)" in out
    assert "in 8 steps" in out and out.rstrip().endswith("arrives in turn 2")


def test_a_teleport_is_one_step_and_the_hub_is_never_shown(capsys):
    code, out, _ = run(["route", DEMO, "--from", "carballeira", "--to", "aldea-do-cabo", "--species", "marino"],
                       capsys)
    assert code == 0 and "@teleport" not in out and "in 1 step " in out and "(teleport, 0)" in out


def test_start_equal_goal_says_already_there(capsys):
    code, out, _ = run(["route", DEMO, "--from", "portela", "--to", "portela", "--species", "human"], capsys)
    assert code == 0 and "already there" in out and "P(arrived" not in out and "in 0 steps" in out


def test_a_single_roll_is_not_plural(capsys):
    code, out, _ = run(["route", DEMO, "--from", "bouza-vella", "--to", "porto-sur", "--species", "human",
                        "--rolls", "1"], capsys)
    assert code == 1 and "not there after the 1 roll given" in out


def test_species_table_keeps_whole_terrain_names(capsys):
    code, out, _ = run(["species", "--catalog", DEMO.parent / "demo-catalog.toml"], capsys)
    head = out.splitlines()[0].split()
    assert code == 0 and "rocky_cliff" in head and "mountain" in head
    assert "road 'eido': follows a road Eido by Eido" in out


@pytest.mark.parametrize("cmd", [["route", "--to", "porto-norte", "--rolls", "3,3"], ["reach", "--turns", "2"]])
def test_pictures_say_which_file_they_wrote(tmp_path, capsys, cmd):
    out_png = tmp_path / "pic.png"
    name, *rest = cmd
    code, out, _ = run([name, DEMO, "--from", "bouza-vella", "--species", "human", *rest, "--png", out_png], capsys)
    assert code == 0 and f"wrote {out_png}" in out and out_png.stat().st_size > 0
    code, out, err = run([name, DEMO, "--from", "bouza-vella", "--species", "human", *rest, "--png", out_png,
                          "--json", "--force"], capsys)
    assert json.loads(out) and f"wrote {out_png}" in err


# -- 5. a plan on a broken map says so ----------------------------------------------------
@pytest.mark.parametrize(("name", "code"), [("overlap", "overlap"), ("pousa-off-road", "pousa-off-road"),
                                            ("pousa-outside", "pousa-outside"), ("road-short", "road-short")])
def test_route_on_a_broken_map_warns_in_one_line(capsys, name, code):
    path = DEMO.parent.parent / "tests" / "data" / "validate" / f"{name}.geojson"
    m = eidomap.load(path)
    assert m.map_errors().get(code, 0) >= 1
    first, last = m.eido_ids[0], m.eido_ids[-1]
    status, out, err = run(["route", path, "--from", first, "--to", last, "--species", "human"], capsys)
    assert status in (0, 1) and out.startswith("Route ")
    assert err.count("\n") == 1 and err.startswith("eidomap: warning: ") and f" {code}" in err
    assert f"run 'eidomap validate {path}'" in err


def _broken_map() -> dict:
    """A strip with one Eido overlapping three, a Pousa off its road, a stream and a fountain off the board."""
    feats = [*strip(["meadow"] * 4), eido("over", "forest", [[[0.5, 0.2], [2.5, 0.2], [2.5, 0.8], [0.5, 0.8],
                                                               [0.5, 0.2]]])]
    feats += [road("r", [[0.5, 0.5], [3.5, 0.5]]), pousa("r", (0.5, 0.5)), pousa("r", (3.5, 0.9)),
              feature("stream", "LineString", [[9, 9], [8, 8]], "s"), feature("fountain", "Point", [7, 7], "f")]
    return collection(feats)


@pytest.mark.parametrize("name", [p.stem for p in sorted((DEMO.parent.parent / "tests" / "data" / "validate")
                                                         .glob("*.geojson"))] + ["broken"])
def test_route_warns_of_the_errors_validate_counts(tmp_path, capsys, name):
    from eidomap.model.network import MAP_ERROR_CODES

    path = DEMO.parent.parent / "tests" / "data" / "validate" / f"{name}.geojson"
    if name == "broken":
        path = tmp_path / "broken.geojson"
        path.write_text(json.dumps(_broken_map()))
    try:
        m = eidomap.load(path)
    except eidomap.MapError:
        return  # a map route refuses: nothing to warn of
    told = collections.Counter(p.code for p in validate(path).errors if p.code in MAP_ERROR_CODES)
    assert m.map_errors() == dict(told)
    if name == "broken":
        assert told == {"overlap": 3, "pousa-off-road": 1, "stream-outside": 2, "fountain-outside": 1}
    _, _, err = run(["route", path, "--from", m.eido_ids[0], "--to", m.eido_ids[-1], "--species", "human"], capsys)
    total = sum(told.values())
    assert (f"has {total} validation error" in err) if total else err == ""


def test_route_on_a_clean_map_does_not_warn(capsys):
    assert eidomap.load(DEMO).map_errors() == {}
    _, _, err = run(["route", DEMO, "--from", "portela", "--to", "porto-norte", "--species", "human"], capsys)
    assert err == ""


@pytest.mark.parametrize("args", [["route", "--to", "porto-norte", "--rolls", "\u0663,\u0664"],
                                  ["reach", "--roll", "\u0663"], ["reach", "--turns", "\uff13"],
                                  ["route", "--to", "porto-norte", "--rolls", "3,,5"]])
def test_numbers_are_the_digits_0_to_9_as_the_planner_page_reads_them(capsys, args):
    # issue 44, item 9: the command line read an Arabic-Indic or full-width digit, the page refused it
    from conftest import DEMO, run

    try:
        code, _, err = run([args[0], DEMO, "--from", "bouza-vella", "--species", "human", *args[1:]], capsys)
    except SystemExit as usage:  # argparse's
        code, err = usage.code, capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "whole number" in err
