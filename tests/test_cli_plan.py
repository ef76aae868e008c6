"""The planning commands: JSON shapes, exit codes and bad input."""

from __future__ import annotations

import json

import pytest
from conftest import collection, strip

from eidomap.cli import main


@pytest.fixture
def strip_map(tmp_path):
    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(strip(["meadow", "forest", "meadow", "sea"]))))
    return p


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


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
    (["--species", "human", "--vmv", "-1"], "VMv must be a whole number from 0 to 1,000,000"),
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
