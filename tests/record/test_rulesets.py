"""The rule-set seam: a third rule set is registered in a few lines, and eidomap answers with it.

The toy is a hex crawl: the party walks a fixed four hexes a turn, every hex of
land costs one step whatever its terrain, water stops it, and a road is
followed hex by hex at half a step (no Pousas).  It reuses the network's
borders and road edges, with its own cost table; nothing else of eidomap is
changed to answer with it.  Asked a route, a reach, a batch, a validation, the
planner page or the command line, it answers with its own actor's costs, or
refuses saying that the rule set does not answer that.
"""

from __future__ import annotations

import dataclasses
import json
import math
from contextlib import contextmanager

import networkx as nx
import numpy as np
import pytest

import eidomap
from eidomap.base.errors import MapError, RequestError
from eidomap.model.generate import generate_map
from eidomap.model.network import KIND, KINDS
from eidomap.record import rulesets
from eidomap.rules.dice import Dice
from eidomap.rules.eido import Actor

HEX_KINDS = ("border", "road_eido")


def hex_walker(catalog, who: str) -> Actor:
    """Four hexes a turn; a hex of land costs 1, water cannot be entered, a road hex 1/2."""
    land = np.array([not t.name.endswith("sea") for t in catalog.terrains] + [False])
    table = np.full((len(KINDS), len(land)), np.inf)
    table[KIND["border"], land] = 1.0
    table[KIND["road_eido"], land] = 0.5
    return Actor(who, 0, table, Dice(1, 1, 3))


HEXCRAWL = rulesets.RuleSet("hexcrawl", HEX_KINDS, hex_walker,
                            frozenset({"route", "reach"}))


def answering(*questions: str) -> rulesets.RuleSet:
    """The hex crawl, answering ``questions`` too."""
    return dataclasses.replace(HEXCRAWL, answers=HEXCRAWL.answers | set(questions))


@contextmanager
def registered(rule_set: rulesets.RuleSet):
    """``rule_set`` known while the block runs (in place of the one of its name, put back after)."""
    before = rulesets.get(rule_set.name) if rule_set.name in rulesets.names() else None
    if before is not None:
        rulesets.unregister(rule_set.name)
    rulesets.register(rule_set)
    try:
        yield rule_set
    finally:
        rulesets.unregister(rule_set.name)
        if before is not None:
            rulesets.register(before)


@pytest.fixture
def hexcrawl():
    with registered(HEXCRAWL):
        yield HEXCRAWL


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    doc = generate_map(150, seed=4)
    doc["eidomap"]["rules"] = "hexcrawl"
    path = tmp_path_factory.mktemp("hex") / "hex.geojson"
    path.write_text(json.dumps(doc))
    return path


def test_a_registered_rule_set_compiles_its_own_network_and_costs(hexcrawl, board):
    m = eidomap.load(board)
    assert m.rules == "hexcrawl"
    assert set(np.unique(m.network.kind).tolist()) <= {KIND[k] for k in HEX_KINDS}
    land = [k for k, t in enumerate(m.terrains) if not t.endswith("sea")]
    g = nx.Graph(np.c_[m.adjacency.i, m.adjacency.j].tolist()).subgraph(land)
    start = land[0]
    hops = nx.single_source_shortest_path_length(g, start)
    far = max(hops, key=hops.get)
    r = eidomap.answers.routing.route(m, m.eido_ids[start], m.eido_ids[far], "scout")
    # an oracle: hops across shared borders over land, a road hex at half a step
    assert r.reachable and r.cheapest_cost <= hops[far] and r.cheapest_cost >= hops[far] / 2
    assert r.expected_turns == pytest.approx(math.ceil(r.cheapest_cost / 4))  # four hexes every turn
    if not np.any(m.network.kind == KIND["road_eido"]):
        assert r.cheapest_cost == hops[far]


def test_a_rule_set_answers_only_what_it_says(hexcrawl, board):
    m = eidomap.load(board)
    with pytest.raises(RequestError, match="hexcrawl rules, and planner applies the eido rules"):
        m.planner()


def test_an_unknown_rule_set_is_refused_when_the_map_is_read(board):
    with pytest.raises(MapError, match="'rules' must be one of eido, d20, got 'hexcrawl'"):
        eidomap.load(board)


def test_a_rule_set_is_a_word_registered_once_with_borders(hexcrawl):
    with pytest.raises(RequestError, match="already registered"):
        rulesets.register(HEXCRAWL)
    with pytest.raises(RequestError, match="'border' edges"):
        rulesets.register(rulesets.RuleSet("noborder", ("road_eido",)))
    with pytest.raises(RequestError, match="is a word"):
        rulesets.register(rulesets.RuleSet("hex crawl", HEX_KINDS))


def test_eido_and_d20_are_the_rule_sets_eidomap_knows():
    assert rulesets.names()[:2] == ("eido", "d20")
    assert rulesets.get("eido").edge_kinds == KINDS and rulesets.get("d20").edge_kinds == ("border", "road_eido")
    with pytest.raises(RequestError, match="rules must be one of"):
        rulesets.get("gurps")


def test_a_d20_maps_network_has_its_borders_and_roads_followed_not_hopped():
    m = eidomap.load(eidomap.bundled_map_path("d20-overland.geojson"))
    assert set(np.unique(m.network.kind).tolist()) == {KIND["border"], KIND["road_eido"]}
    # (a d20 road has no Pousas: the network does not count it as too short, as validate does not)
    assert m.network.map_errors.sum() == m.adjacency.overlaps


# -- every answer asks the rule set for its actor (issue 47) ---------------------------------------------------
def hex_costs(m, start: str) -> dict[str, float]:
    """The oracle: least steps from ``start`` on the map's network, a hex of land 1, along a road 1/2, water never."""
    step = {"border": 1.0, "road_eido": 0.5}

    def cost(u, v, parallel):  # (m.graph is a MultiDiGraph: the cheapest of the edges from u to v)
        return min((step[d["kind"]] for d in parallel.values() if not d["terrain"].endswith("sea")), default=None)

    return nx.single_source_dijkstra_path_length(m.graph, start, weight=cost)


def eido_costs(m, start: str, species: str = "human") -> dict[str, float]:
    """What the Eido rules would make ``species`` pay on the same network (the numbers the hex crawl must not give)."""
    from eidomap.answers.routing import plan_weights
    from eidomap.rules.eido import actor

    g = m.weighted_graph(plan_weights(m, actor(m.catalog, species), carry=True))
    return nx.single_source_dijkstra_path_length(g, start, weight="cost")


def a_land_start(m) -> str:
    return next(e for e, t in zip(m.eido_ids, m.terrains, strict=True) if not t.endswith("sea"))


def run_query(query, out):
    from eidomap.answers.analysis import load_batch
    from eidomap.answers.batch.job import prepare, run_chunk
    from eidomap.answers.batch.store import open_folder

    job, chunks, record = prepare(query, out)
    with open_folder(out, record):
        for c in chunks:
            run_chunk(job, c)
    return load_batch(out).to_pandas()


def test_a_rule_set_that_answers_a_batch_batches_with_its_own_actor(board, tmp_path):
    from eidomap.answers.batch import Query

    with registered(answering("batch")):
        m = eidomap.load(board)
        start = a_land_start(m)
        rows = run_query(Query((str(board),), actors=("human",), starts=(start,), turns=2), tmp_path / "out")
        want, eido = hex_costs(m, start), eido_costs(m, start)
        reached = rows[rows["reachable"]]
        turns = [eidomap.answers.routing.route(m, start, e, "human").expected_turns for e in reached["to"]]
    got = dict(zip(rows["to"].astype(str), rows["cost"], strict=True))
    assert {e for e, c in got.items() if np.isfinite(c)} == {e for e in want if e in set(m.eido_ids)}
    assert all(got[e] == pytest.approx(c) for e, c in want.items() if e in got)
    assert any(got[e] != pytest.approx(eido.get(e, math.inf)) for e in want)  # (not the Eido human's costs)
    # the hex crawl's own turn: four hexes, every turn (no 1d6)
    assert reached["expected_turns"].tolist() == pytest.approx(turns)
    assert set(reached["p_1"]) | set(reached["p_2"]) == {0.0, 1.0}


def test_a_rule_set_that_answers_no_batch_refuses_one_in_its_words(hexcrawl, board, tmp_path):
    from eidomap.answers.batch import Query
    from eidomap.answers.batch.job import prepare

    with pytest.raises(RequestError, match=r"hexcrawl rules, and batch applies the eido rules \(the hexcrawl rules"
                                           r" answer: reach, route\)"):
        prepare(Query((str(board),), actors=("human",), starts="all"), tmp_path / "out")


def test_a_rule_sets_actor_is_given_only_the_options_it_takes(board, tmp_path):
    from eidomap.answers.batch import Query, actor_from_spec
    from eidomap.answers.batch.job import prepare
    from eidomap.rules.actors import resolve_actor

    with registered(answering("batch")):
        m = eidomap.load(board)
        for spec, dice, option in (("human@horse", None, "mount"), ("human+cow", None, "party"),
                                   ("human", "2d6", "dice")):
            with pytest.raises(RequestError, match=rf"^{option} does not apply: .*hex.geojson is drawn for the"
                                                   " hexcrawl rules, whose actor takes a name alone$"):
                actor_from_spec(m, spec, dice)
        with pytest.raises(RequestError, match="dice does not apply"):
            prepare(Query((str(board),), actors=("human",), starts="all", dice="1d6"), tmp_path / "out")
        with pytest.raises(RequestError, match="vmv does not apply"):
            resolve_actor(m, "human", "route", vmv=2)
    demo = eidomap.load(eidomap.demo_map_path())  # (the Eido rules' actor takes them, and no other)
    assert resolve_actor(demo, "human", "route", mount="horse", dice="2d6").name == "human on horse"
    with pytest.raises(RequestError, match=r"^speed does not apply: .* eido rules, whose actor takes only mount,"
                                           r" party, gifts, vmv, dice$"):
        resolve_actor(demo, "human", "route", speed=30)
    with pytest.raises(RequestError, match=r"^mount goes with a name of who moves, not with an Actor"):
        resolve_actor(demo, resolve_actor(demo, "human"), "route", mount="horse")


def test_a_rule_sets_actor_must_give_an_actor(board):
    from eidomap.rules.actors import resolve_actor

    with registered(dataclasses.replace(HEXCRAWL, actor=lambda catalog, who: hex_walker(catalog, who).table)):
        with pytest.raises(TypeError, match="the hexcrawl rules' actor gave ndarray, not an Actor"):
            resolve_actor(eidomap.load(board), "human")


def test_validation_checks_species_with_the_rule_sets_actor(hexcrawl, board, tmp_path):
    from eidomap.validate.checks import validate

    m = eidomap.load(board)
    moves = nx.DiGraph([(u, v) for u, v, d in m.graph.edges(data=True) if not d["terrain"].endswith("sea")])
    moves.add_nodes_from(m.eido_ids)
    order = {e: k for k, e in enumerate(m.eido_ids)}
    parts = [p for p in nx.strongly_connected_components(moves)]
    region = min(parts, key=lambda p: (-len(p), min(order[e] for e in p)))
    reached = set(region).union(*(nx.descendants(moves, e) for e in region))
    want = set(m.eido_ids) - reached
    found = [p for p in validate(board, species=["human"]).problems if p.code == "unreachable"]
    assert len(found) == 1 and set(found[0].features) == want
    eido = tmp_path / "eido.geojson"  # the same map under the Eido rules: the human cannot reach other Eidos
    doc = json.loads(board.read_text())
    doc["eidomap"]["rules"] = "eido"
    eido.write_text(json.dumps(doc))
    under_eido = [p for p in validate(eido, species=["human"]).problems if p.code == "unreachable"]
    assert set(under_eido[0].features) != want


def test_rules_without_an_actor_refuse_species_checks_saying_so(board, capsys):
    from conftest import run

    from eidomap.validate.checks import validate

    with registered(dataclasses.replace(HEXCRAWL, actor=None)):
        assert validate(board).problems is not None  # (the checks of the drawing need no actor)
        with pytest.raises(RequestError, match="the map is drawn for the hexcrawl rules, which have no actor"):
            validate(board, species=["human"])
    with pytest.raises(RequestError, match="drawn for the d20 rules, which have no actor"):
        validate(eidomap.bundled_map_path("d20-overland.geojson"), species=["human"])
    code, out, err = run(["validate", eidomap.bundled_map_path("d20-overland.geojson"), "--species", "human"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "d20 rules, which have no actor (who moves over the map's network, and what each step costs) to make" \
           " 'human' of: the eido rules have one" in err


def test_the_planner_page_holds_the_rule_sets_costs(board):
    import base64

    from eidomap.pages.planner import eido_data

    with registered(answering("planner")):
        m = eidomap.load(board)
        data = eido_data(m)
    names = data["species"]["names"]
    tables = np.frombuffer(base64.b64decode(data["species"]["tables"]["b64"]), "<f8").reshape(len(names), len(KINDS),
                                                                                               -1)
    for name, table in zip(names, tables, strict=True):
        assert np.array_equal(table, hex_walker(m.catalog, name).table)
    assert data["species"]["vmv"] == [0] * len(names)


def test_the_command_line_asks_the_rule_set(hexcrawl, board, tmp_path, capsys):
    from conftest import run

    m = eidomap.load(board)
    start = a_land_start(m)
    want, eido = hex_costs(m, start), eido_costs(m, start)
    goal = next(e for e in want if e in set(m.eido_ids) and want[e] != eido.get(e))
    code, out, _ = run(["route", board, "--from", start, "--to", goal, "--species", "human", "--json"], capsys)
    assert code == 0 and json.loads(out)["total_cost"] == pytest.approx(want[goal])
    code, out, _ = run(["reach", board, "--from", start, "--species", "human", "--turns", "2", "--json"], capsys)
    p = json.loads(out)["p_within"]  # four hexes every turn: there by turn 2, or not (no 1d6)
    assert code == 0 and p == eidomap.answers.routing.reach(m, start, "human", turns=2).p_within
    assert set(p.values()) == {0.0, 1.0} and all(p[e] == 0.0 for e in m.eido_ids if e not in want)
    code, _, err = run(["route", board, "--from", start, "--to", goal, "--species", "human", "--mount", "horse"],
                       capsys)
    assert code == 2 and "--mount does not apply: " in err and "whose actor takes a name alone" in err
    assert err.count("\n") == 1
    code, _, err = run(["batch", board, "--species", "human", "--from", start, "--out", tmp_path / "no"], capsys)
    assert code == 2 and "hexcrawl rules, and batch applies the eido rules" in err


def test_the_command_line_batches_and_validates_with_the_rule_sets_actor(board, tmp_path, capsys):
    from conftest import run

    from eidomap.answers.analysis import load_batch

    with registered(answering("batch")):
        m = eidomap.load(board)
        start = a_land_start(m)
        code, _, err = run(["batch", board, "--species", "human", "--from", start, "--out", tmp_path / "out",
                            "--quiet"], capsys)
        assert code == 0, err
        code, out, _ = run(["validate", board, "--species", "human", "--select", "unreachable", "--json"], capsys)
        want = hex_costs(m, start)
    rows = load_batch(tmp_path / "out").to_pandas()
    assert all(c == pytest.approx(want[e]) for e, c in zip(rows["to"].astype(str), rows["cost"], strict=True)
               if np.isfinite(c))
    lost = {e for e, t in zip(m.eido_ids, m.terrains, strict=True) if t.endswith("sea")}
    found = [p for p in json.loads(out)["problems"] if p["code"] == "unreachable"]
    assert lost <= set(found[0]["features"])  # (the sea, and what it cuts off)


def test_the_battle_grid_is_answered_by_the_d20_rule_set():
    from eidomap.answers.grid import parse_grid, reach, route
    from eidomap.pages.planner import grid_data

    grid = parse_grid("....\n.d..\n....")
    assert grid.rules == "d20" and "grid" in rulesets.get("d20").answers
    d20 = rulesets.get("d20")
    with registered(dataclasses.replace(d20, answers=frozenset({"travel"}))):
        for ask in (lambda: reach(grid, (0, 0), 30), lambda: route(grid, (0, 0), (2, 3), 30), lambda: grid_data(grid)):
            with pytest.raises(RequestError, match=r"drawn for the d20 rules, and grid applies the no rules \(the d20"
                                                   r" rules answer: travel\)"):
                ask()
    assert rulesets.get("d20") is d20 and reach(grid, (0, 0), 30).feet[(1, 1)] == 15
