"""What a new user stumbled on (issue 16): NetworkX weights, Pousa starts, d20 maps, reasons, words."""

from __future__ import annotations

import collections
import json

import networkx as nx
import numpy as np
import pytest
from conftest import DEMO, collection, eido, feature, pousa, road, strip
from hypothesis import given
from hypothesis import strategies as st
from test_planner_oracle import SETTINGS, small_map

import eidomap
from eidomap.cli import main
from eidomap.errors import RequestError
from eidomap.routing import reach, reach_rolls, route
from eidomap.rules.eido import actor
from eidomap.validate import validate


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- 1. species-weighted NetworkX edges -------------------------------------------------
@SETTINGS
@given(n=st.integers(4, 14), seed=st.integers(0, 400),
       who=st.sampled_from(["human", "horse", "marino", "oestrimio", "frac", "cow"]),
       partial=st.sampled_from(["carry", "forbid"]), data=st.data())
def test_networkx_dijkstra_on_species_weights_agrees_with_route(tmp_path_factory, n, seed, who, partial, data):
    m = small_map(tmp_path_factory, n, seed)
    ids = m.eido_ids
    s, g = ids[data.draw(st.integers(0, len(ids) - 1))], ids[data.draw(st.integers(0, len(ids) - 1))]
    r = route(m, s, g, who, partial=partial)
    weighted = m.graph_for(who, partial=partial)
    fn = eidomap.weight(m, who, partial=partial)
    if not r.reachable:
        assert not nx.has_path(weighted, s, g)
        with pytest.raises(nx.NetworkXNoPath):
            nx.dijkstra_path_length(m.graph, s, g, weight=fn)
        return
    assert nx.dijkstra_path_length(weighted, s, g, weight="cost") == pytest.approx(r.cheapest_cost)
    assert nx.dijkstra_path_length(m.graph, s, g, weight=fn) == pytest.approx(r.cheapest_cost)


def test_species_graph_leaves_out_what_the_species_cannot_do(demo):
    horse = demo.graph_for("horse")
    assert all(np.isfinite(c) for *_, c in horse.edges(data="cost"))
    sea = {e for e, t in zip(demo.eido_ids, demo.terrains, strict=True) if t == "sea"}
    assert not any(v in sea for _, v in horse.edges())
    assert nx.has_path(demo.graph, "porto-norte", "porto-sur")
    assert not nx.has_path(horse, "porto-norte", "porto-sur")
    # a rider moves as its mount
    rider = demo.graph_for(actor(demo.catalog, "human", mount="horse"))
    assert nx.dijkstra_path_length(rider, "agra-de-riba", "porto-norte", weight="cost") == pytest.approx(
        route(demo, "agra-de-riba", "porto-norte", actor(demo.catalog, "human", mount="horse")).cheapest_cost)


def test_all_cheapest_paths_with_networkx(demo):
    g = demo.graph_for("human")
    paths = list(nx.all_shortest_paths(g, "bouza-vella", "porto-norte", weight="cost"))
    best = route(demo, "bouza-vella", "porto-norte", "human")
    assert [s.node for s in best.path] in paths
    costs = {nx.path_weight(g, p, "cost") for p in paths}
    assert costs == {best.cheapest_cost}


# -- 2. a plan can start where a turn ends: a Pousa -----------------------------------------
def test_a_route_can_start_and_end_on_a_pousa(demo, capsys):
    r = route(demo, "cr-4", "porto-norte", "human")
    assert r.reachable and r.path[0].node == "cr-4" and r.total_cost > 0
    assert route(demo, "porto-norte", "cr-4", "human").path[-1].node == "cr-4"
    assert reach(demo, "cr-4", "human", roll=3).debt
    assert reach_rolls(demo, "cr-4", "human", rolls=[3]).arrival_turn
    code, out, _ = run(["route", DEMO, "--from", "cr-4", "--to", "porto-norte", "--species", "human"], capsys)
    assert code == 0 and out.startswith("Route Pousa cr-4 -> porto-norte")
    code, out, _ = run(["reach", DEMO, "--from", "cr-4", "--species", "human", "--roll", "2", "--json"], capsys)
    assert code == 0 and json.loads(out)["from"] == "cr-4"


def test_an_unknown_start_names_both_kinds(demo):
    with pytest.raises(RequestError, match="no Eido or Pousa with id 'cr-99'"):
        route(demo, "cr-99", "porto-norte", "human")
    with pytest.raises(RequestError, match=r"did you mean 'porto-norte'\?"):
        route(demo, "porto-nort", "porto-sur", "human")


# -- 3. a d20 map is not routed with the Eido rules --------------------------------------------
@pytest.fixture
def d20_map(tmp_path):
    p = tmp_path / "d20.geojson"
    doc = collection(strip(["plains", "forest", "plains"]), rules="d20")
    p.write_text(json.dumps(doc))
    return p


@pytest.mark.parametrize("args", [["route", "--to", "e2"], ["reach", "--turns", "2"], ["reach", "--rolls", "3"]])
def test_route_and_reach_refuse_a_d20_map(d20_map, capsys, args):
    cmd, *rest = args
    code, out, err = run([cmd, d20_map, "--from", "e0", "--species", "human", *rest], capsys)
    assert code == 2 and out == "" and "d20 rules" in err and "answer: travel" in err and err.count("\n") == 1


def test_the_python_api_refuses_a_d20_map_too(d20_map):
    m = eidomap.load(d20_map)
    with pytest.raises(RequestError, match="d20 rules"):
        route(m, "e0", "e2", "human")


# -- 4. say why a goal cannot be reached -------------------------------------------------
def test_unreachable_names_the_terrain_in_the_way(demo, capsys):
    r = route(demo, "porto-norte", "porto-sur", "horse")
    assert not r.reachable and r.reason == "horse cannot enter sea: porto-sur lies beyond"
    code, out, _ = run(["route", DEMO, "--from", "porto-norte", "--to", "porto-sur", "--species", "horse"], capsys)
    assert code == 1 and "the goal cannot be reached: horse cannot enter sea: porto-sur lies beyond" in out
    code, out, _ = run(["route", DEMO, "--from", "porto-norte", "--to", "porto-sur", "--species", "horse",
                        "--json"], capsys)
    assert code == 1 and json.loads(out)["reason"] == r.reason


def test_unreachable_names_the_goals_own_terrain(demo):
    r = route(demo, "porto-norte", "porto-sur", "boat")
    assert r.reason == "boat cannot enter meadow: the terrain of porto-sur"


def test_unreachable_under_forbid_names_the_dear_step(make_map):
    m = make_map(strip(["meadow", "mountain", "meadow"]),
                 catalog="[species.climber]\nvmv = 0\ncosts = { meadow = 1, mountain = 7 }\n")
    r = route(m, "e0", "e2", "climber", partial="forbid")
    assert r.reason == ("under forbid a step into mountain costs 7 PtMv, more than the 6 a turn can give:"
                        " e2 lies beyond")


def test_unreachable_names_every_terrain_in_the_way(make_map):
    m = make_map(strip(["meadow", "forest", "scrub", "marsh", "meadow"]),
                 catalog="[species.walker]\nvmv = 0\ncosts = { meadow = 1 }\n")
    assert route(m, "e0", "e4", "walker").reason == "walker cannot enter forest, scrub or marsh: e4 lies beyond"


def test_unreachable_names_the_roads_for_a_species_that_cannot_follow_them(demo):
    r = route(demo, "porto-norte", "cr-4", "boat")  # a Pousa: the goal's own "terrain" is the roads
    assert not r.reachable and r.reason == "boat cannot enter mountain or the roads: the terrain of cr-4"


def test_under_the_debt_rule_a_dear_step_is_never_the_reason(make_map):
    m = make_map(strip(["meadow", "mountain", "sea", "meadow"]),
                 catalog="[species.climber]\nvmv = 0\ncosts = { meadow = 1, mountain = 7 }\n")
    assert route(m, "e0", "e3", "climber").reason == "climber cannot enter sea: e3 lies beyond"
    assert route(m, "e0", "e3", "climber", partial="forbid").reason == (
        "climber cannot enter sea; under forbid a step into mountain costs 7 PtMv, more than the 6 a turn can give:"
        " e3 lies beyond")


def test_unreachable_when_nothing_joins_the_two(make_map):
    m = make_map([*strip(["meadow", "meadow"]), *strip(["meadow"], y=5, prefix="far")])
    assert route(m, "e0", "far0", "human").reason == "no border, road or teleport leads from e0 to far0 at all"


# -- 10, 11. words a player reads ---------------------------------------------------------
def test_reach_answers_name_their_fields(demo, capsys):
    code, out, _ = run(["reach", DEMO, "--from", "porto-sur", "--species", "human", "--turns", "2", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and list(doc) == ["from", "actor", "partial", "turns", "p_within"]
    assert (doc["from"], doc["actor"], doc["partial"], doc["turns"]) == ("porto-sur", "human", "carry", 2)
    rolls = reach_rolls(demo, "porto-sur", "human", rolls=[4], partial="forbid")
    assert rolls.as_dict() == {"from": "porto-sur", "actor": "human", "partial": "forbid",
                               "arrival_turn": rolls.arrival_turn}
    with pytest.raises(RequestError, match=r"^turns must be a whole number from 1 to 10000, got 0$"):
        reach(demo, "porto-sur", "human", turns=0)


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


def test_info_counts_read_as_words(capsys):
    code, out, _ = run(["info", DEMO], capsys)
    assert code == 0 and "76 Eidos in 2 regions" in out and "23 Pousas" in out and "1 stream\n" in out


@pytest.mark.parametrize("cmd", [["route", "--to", "porto-norte", "--rolls", "3,3"], ["reach", "--turns", "2"]])
def test_pictures_say_which_file_they_wrote(tmp_path, capsys, cmd):
    out_png = tmp_path / "pic.png"
    name, *rest = cmd
    code, out, _ = run([name, DEMO, "--from", "bouza-vella", "--species", "human", *rest, "--png", out_png], capsys)
    assert code == 0 and f"wrote {out_png}" in out and out_png.stat().st_size > 0
    code, out, err = run([name, DEMO, "--from", "bouza-vella", "--species", "human", *rest, "--png", out_png,
                          "--json", "--force"], capsys)
    assert json.loads(out) and f"wrote {out_png}" in err


@pytest.mark.parametrize("option", ["--png", "--html"])
def test_validate_says_which_picture_it_wrote(tmp_path, capsys, option):
    path = DEMO.parent.parent / "tests" / "data" / "validate" / "overlap.geojson"
    pic = tmp_path / f"problems.{'png' if option == '--png' else 'html'}"
    code, out, err = run(["validate", path, option, pic], capsys)
    assert code == 1 and out.endswith(f"1 error, 0 warnings\nwrote {pic}\n") and pic.stat().st_size > 0
    code, out, err = run(["validate", path, option, pic, "--json", "--force"], capsys)
    assert json.loads(out)["errors"] == 1 and err == f"wrote {pic}\n"


@pytest.mark.parametrize("cmd", ["route", "reach", "species", "info", "neighbors", "plot", "generate", "validate",
                                 "fix", "import-tiled"])
def test_help_ends_with_an_example(cmd, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([cmd, "--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0 and f"example:\n  eidomap {cmd} " in out
    if cmd in ("route", "reach"):
        options = out[out.index("options:"):]
        assert options.index("--from") < options.index("--species") < options.index("--catalog")


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
    from eidomap.graph import MAP_ERROR_CODES

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
