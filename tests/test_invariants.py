"""Invariants on random generated maps (hypothesis) that the oracle tests do not state.

The oracles themselves live elsewhere: adjacency against a brute-force pairwise
check and split borders (test_topology.py), corner-only contacts at any angle
(test_corners.py), the planner against brute-force state searches under both
partial-step rules (test_planner_oracle.py), forbid never planning a step dearer
than the largest budget (test_forbid.py), the battle grid against brute force
(test_d20_tactical.py).  Here: adjacency unchanged by how a map is placed,
oriented and ordered; arrival turns monotone in costs, rolls, roads and
teleports; probabilities bounded and growing with K; routes using only the
steps the actor may take.
"""

from __future__ import annotations

import json

import numpy as np
import shapely
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle_graph import oracle_edges
from test_planner_oracle import UNITS, far_apart, oracle_out
from test_topology import pairs

import eidomap
from eidomap.generate import generate_map, voronoi_cells
from eidomap.graph import KIND
from eidomap.routing import reach, route
from eidomap.rules.eido import actor
from eidomap.topology import adjacency

SETTINGS = settings(max_examples=examples(20), deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
#: A species with fractional costs, roads and the teleport gift, whose costs the tests raise.
COSTS = {"sea": 3, "meadow": 1.5, "scrub": 2, "forest": 2.5, "marsh": 1, "rocks": 2, "rocky_cliff": 3.5,
         "mountain": 3, "road_cost": 0.5, "teleport_cost": 0}
ROLLS = st.lists(st.integers(1, 6), min_size=3, max_size=8)


def _catalog(costs: dict) -> str:
    terrain = ", ".join(f"{t} = {c}" for t, c in costs.items() if not t.endswith("_cost"))
    return (f'[species.frac]\nvmv = 0\ncosts = {{ {terrain} }}\nroad_cost = {costs["road_cost"]}\n'
            f'teleport_cost = {costs["teleport_cost"]}\ngifts = ["teleport"]\n')


def _load(folder, doc: dict, costs: dict = COSTS, drop=()) -> eidomap.Map:
    """``doc`` without the features of the kinds ``drop``, its catalog the ``frac`` species at ``costs``."""
    doc = {**doc, "features": [f for f in doc["features"] if f["properties"]["kind"] not in drop],
           "eidomap": {**doc["eidomap"], "catalog": "cat.toml"}}
    (folder / "cat.toml").write_text(_catalog(costs))
    (folder / "m.geojson").write_text(json.dumps(doc))
    return eidomap.load(folder / "m.geojson")


def _arrival(m, s: int, g: int, rolls, partial: str) -> float:
    t = route(m, m.eido_ids[s], m.eido_ids[g], "frac", rolls=rolls, partial=partial).arrival_turn
    return np.inf if t is None else t


def _turn(geoms, k: int) -> np.ndarray:
    """Rotated by k x 90 degrees about the origin, exactly (no sine or cosine rounding)."""
    def rot(xy):
        for _ in range(k % 4):
            xy = np.column_stack([-xy[:, 1], xy[:, 0]])
        return xy

    return shapely.transform(geoms, rot)


@SETTINGS
@given(n=st.integers(3, 30), seed=st.integers(0, 10_000), k=st.integers(0, 3), scale=st.sampled_from([0.001, 3.0, 1e6]),
       shift=st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)), data=st.data())
def test_adjacency_is_unchanged_by_placement_orientation_and_order(n, seed, k, scale, shift, data):
    cells = voronoi_cells(n, np.random.default_rng(seed), side=100.0)
    truth = pairs(adjacency(cells))
    moved = shapely.transform(_turn(cells, k), lambda xy: xy * scale + np.array(shift))
    flip = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    moved[flip] = shapely.reverse(moved[flip])  # ring orientation reversed on some Eidos
    order = np.array(data.draw(st.permutations(range(n))))
    got = pairs(adjacency(moved[order]))  # positions in the new order -> the original Eidos
    assert {tuple(sorted((int(order[i]), int(order[j])))) for i, j in got} == truth


@SETTINGS
@given(n=st.integers(12, 30), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]),
       raise_=st.sampled_from(sorted(COSTS)), by=st.sampled_from([0.5, 1, 3]), rolls=ROLLS, data=st.data())
def test_arrival_is_never_sooner_when_a_cost_rises_or_a_roll_falls(tmp_path_factory, n, seed, partial, raise_, by,
                                                                     rolls, data):
    doc = generate_map(n, seed)
    m = _load(tmp_path_factory.mktemp("base"), doc)
    dearer = _load(tmp_path_factory.mktemp("dearer"), doc, {**COSTS, raise_: COSTS[raise_] + by})
    s = data.draw(st.integers(0, n - 1))
    g = far_apart(m, oracle_out(m, {"species": "frac"}), s, lambda k: data.draw(st.integers(0, k - 1)))
    base = _arrival(m, s, g, rolls, partial)
    assert _arrival(dearer, s, g, rolls, partial) >= base
    i = data.draw(st.integers(0, len(rolls) - 1))
    lower = [*rolls[:i], max(1, rolls[i] - data.draw(st.integers(1, 5))), *rolls[i + 1:]]
    assert _arrival(m, s, g, lower, partial) >= base


@SETTINGS
@given(n=st.integers(15, 30), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]),
       added=st.sampled_from([("road", "pousa"), ("fountain",)]), rolls=ROLLS, data=st.data())
def test_arrival_is_never_later_with_a_road_or_a_teleport_added(tmp_path_factory, n, seed, partial, added, rolls,
                                                                  data):
    doc = generate_map(n, seed)
    without = _load(tmp_path_factory.mktemp("without"), doc, drop=added)
    m = _load(tmp_path_factory.mktemp("with"), doc)
    s, g = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    assert _arrival(m, s, g, rolls, partial) <= _arrival(without, s, g, rolls, partial)


@SETTINGS
@given(n=st.integers(6, 20), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]), data=st.data())
def test_probabilities_lie_in_0_1_and_grow_with_the_turns(tmp_path_factory, n, seed, partial, data):
    m = _load(tmp_path_factory.mktemp("m"), generate_map(n, seed))
    who = data.draw(st.sampled_from(["frac", "human", "horse", "boat"]))
    s, g = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    p = np.asarray(route(m, m.eido_ids[s], m.eido_ids[g], who, partial=partial).p_by_turn or [0.0])
    assert ((p >= 0) & (p <= 1 + 1e-12)).all() and (np.diff(p) >= -1e-12).all()
    within = [reach(m, m.eido_ids[s], who, turns=k, partial=partial).p_within for k in (1, 2, 4)]
    for e in m.eido_ids:
        ks = [w.get(e, 0.0) for w in within]
        assert 0 <= ks[0] <= ks[1] + 1e-12 <= ks[2] + 2e-12 <= 1 + 3e-12


@SETTINGS
@given(n=st.integers(12, 30), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]),
       rolls=st.none() | ROLLS, data=st.data())
def test_routes_only_take_steps_the_actor_may_take(tmp_path_factory, n, seed, partial, rolls, data):
    m = _load(tmp_path_factory.mktemp("m"), generate_map(n, seed))
    who = data.draw(st.sampled_from(UNITS))
    a = actor(m.catalog, who["species"], mount=who.get("mount"), party=who.get("party", ()))
    steps = oracle_edges(m, **who)  # from the geometry and the catalog, not from eidomap's tables
    s, g = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    r = route(m, m.eido_ids[s], m.eido_ids[g], a, rolls=rolls, partial=partial)
    medium = dict(zip(m.eido_ids, m.catalog.media()[m.record.terrain], strict=True))
    movers = [m.catalog.species[x] for x in ([who["mount"]] if who.get("mount") else [who["species"],
                                                                                        *who.get("party", ())])]
    for before, step in zip(r.path, r.path[1:], strict=False):
        assert (before.node, step.node) in steps and step.cost == steps[before.node, step.node]
        if medium.get(step.node) == "water":  # no swimming for who has no cost for that water
            assert all(m.terrains[m.index(step.node)] in u.costs for u in movers)
        if step.kind in ("teleport", "teleport_exit"):
            assert all("teleport" in u.gifts for u in movers)
        if partial == "forbid":
            assert step.cost <= a.largest_budget
    borders = m.network.kind == KIND["border"]
    edges = set(zip(m.network.src[borders].tolist(), m.network.dst[borders].tolist(), strict=True))
    assert edges == {(v, u) for u, v in edges}  # adjacency is symmetric
