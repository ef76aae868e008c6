"""The Map facade: loading, its NetworkX graphs per species, its checks of what it is given."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import DEMO
from hypothesis import given
from hypothesis import strategies as st
from small_maps import SETTINGS, small_map

import eidomap
from eidomap.answers.routing import route
from eidomap.base.errors import RequestError
from eidomap.rules.eido import actor
from eidomap.validate.checks import validate


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


@pytest.mark.parametrize("tolerance", [float("nan"), float("inf"), 1e308, -1.0, "0.1", True])
def test_a_tolerance_no_map_holds_is_refused(tolerance):
    with pytest.raises(RequestError, match="tolerance must be a number from 0 to 1e\\+15"):
        eidomap.load(DEMO, tolerance=tolerance)
    with pytest.raises(RequestError, match="tolerance must be a number from 0 to 1e\\+15"):
        validate(DEMO, tolerance=tolerance)


@pytest.mark.parametrize("helper", [None, False, True])
def test_load_starts_a_helper_process_only_when_asked(helper, monkeypatch):
    """A second process shares a big map's reading only with ``helper=True``: by default eidomap starts none (an
    embedding program owns its processes), whatever the map's size."""
    from eidomap.base import settings as tuning
    from eidomap.io.fast import geojson as fastjson

    asked = []

    class Recorded(fastjson.Pair):
        def __init__(self, start: bool = True):
            asked.append(start)
            super().__init__(start=False)

    monkeypatch.setattr(tuning, "HELPER_BYTES", 0)  # every map is big enough
    monkeypatch.setattr(fastjson, "Pair", Recorded)
    m = eidomap.load(DEMO, reader="msgspec", **({} if helper is None else {"helper": helper}))
    assert asked == [bool(helper)] and len(m.eido_ids) == 76
