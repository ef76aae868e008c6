"""The rule-set seam: a third rule set is registered in a few lines, and eidomap answers with it.

The toy is a hex crawl: the party walks a fixed four hexes a turn, every hex of
land costs one step whatever its terrain, water stops it, and a road is
followed hex by hex at half a step (no Pousas).  It reuses the network's
borders and road edges, with its own cost table; nothing else of eidomap is
changed to answer with it.
"""

from __future__ import annotations

import json
import math
from functools import partial

import networkx as nx
import numpy as np
import pytest
from conftest import shared

import eidomap
from eidomap import rulesets
from eidomap.errors import MapError, RequestError
from eidomap.generate import generate_map
from eidomap.graph import KIND, KINDS, build_network
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


HEXCRAWL = rulesets.RuleSet("hexcrawl", HEX_KINDS, partial(build_network, kinds=HEX_KINDS), hex_walker,
                            frozenset({"route", "reach"}))


@pytest.fixture
def hexcrawl():
    rulesets.register(HEXCRAWL)
    yield HEXCRAWL
    rulesets.unregister("hexcrawl")


@pytest.fixture(scope=shared("module"))
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
    r = eidomap.routing.route(m, m.eido_ids[start], m.eido_ids[far], "scout")
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
        rulesets.register(rulesets.RuleSet("noborder", ("road_eido",), HEXCRAWL.compile))
    with pytest.raises(RequestError, match="is a word"):
        rulesets.register(rulesets.RuleSet("hex crawl", HEX_KINDS, HEXCRAWL.compile))


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
