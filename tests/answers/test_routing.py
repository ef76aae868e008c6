"""Routes and reaches: the planner against brute-force oracles on random small maps (hypothesis), why a goal
cannot be reached, and the bounds on what is asked.

The oracles know nothing of thresholds, labels or policies: they enumerate the
actor's states -- (node, points left, debt) within a turn, every possible step
-- turn by turn, and for probabilities every sequence of rolls (debt rule) or
an expectimax over turn-start states (forbid).  Nor do they use eidomap's
graph or cost tables: their steps come from the map's geometry and the
catalog through ``oracle_graph`` (checked against the compiled network in
``test_compiled_edges_match_the_oracle_graph``).  Starts and goals are drawn far
apart, so that most cases take several turns (``hypothesis.event`` reports the
arrival turns; ``test_drawn_cases_mostly_need_several_turns`` holds it).
"""

from __future__ import annotations

import itertools
import json
import random
from collections import defaultdict

import numpy as np
import pytest
import shapely
from conftest import DEMO, collection, run, strip
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from oracle_graph import oracle_edges, oracle_vmv
from small_maps import (
    CATALOG,
    EPS,
    SETTINGS,
    SPECIES,
    UNITS,
    arrival,
    brute_force,
    cheapest,
    edge_list,
    far_apart,
    least_threshold,
    oracle_out,
    own_threshold,
    small_map,
    tie_rule_route,
    tie_rule_route_with_rolls,
    turn_of,
    within_turn,
)

import eidomap
from eidomap.answers.routing import MAX_TURNS, reach, reach_rolls, route
from eidomap.base.errors import RequestError
from eidomap.model.generate import generate_map, write_map
from eidomap.rules.eido import actor
from eidomap.search.turns import advance, earliest
from eidomap.search.weighted import dijkstra, threshold_to


def pick(m, data, out=None):
    n = len(m.eido_ids)
    s = data.draw(st.integers(0, n - 1))
    if out is None:
        return s, data.draw(st.integers(0, n - 1))
    return s, far_apart(m, out, s, lambda k: data.draw(st.integers(0, k - 1)))


def draw_dice_case(tmp_path_factory, n, seed, data):
    """A map, a unit rolling 1d4 (small enough to enumerate every roll), its steps, a start and a far goal."""
    m = small_map(tmp_path_factory, n, seed)
    who = data.draw(st.sampled_from(UNITS))
    a = actor(m.catalog, who["species"], mount=who.get("mount"), party=who.get("party", ()), dice="1d4")
    out = oracle_out(m, who)
    s, g = pick(m, data, out)
    return m, a, out, s, g


def draw_case(tmp_path_factory, n, seed, data, max_rolls):
    """A map, a unit (as an Actor and as the oracle sees it), its steps, a start, a far goal and rolls."""
    m = small_map(tmp_path_factory, n, seed)
    who = data.draw(st.sampled_from(UNITS))
    a = actor(m.catalog, who["species"], mount=who.get("mount"), party=who.get("party", ()))
    assert a.vmv == oracle_vmv(m, **who)
    out = oracle_out(m, who)
    s, g = pick(m, data, out)
    rolls = data.draw(st.lists(st.integers(1, 6), min_size=max_rolls // 2, max_size=max_rolls))
    return m, a, out, s, g, rolls


@SETTINGS
@given(n=st.integers(4, 14), seed=st.integers(0, 400), data=st.data())
def test_compiled_edges_match_the_oracle_graph(tmp_path_factory, n, seed, data):
    """Every step and its cost, from geometry and catalog, for species, riders and parties."""
    m = small_map(tmp_path_factory, n, seed)
    who = data.draw(st.sampled_from(UNITS))
    a = actor(m.catalog, who["species"], mount=who.get("mount"), party=who.get("party", ()))
    ids = m.network.node_ids
    compiled = {(str(ids[u]), str(ids[v])): c for u, steps in edge_list(m, a).items() for v, c in steps}
    assert compiled == pytest.approx(oracle_edges(m, **who))


#: Units that teleport (by their species' gift or one given to them all) and cannot enter some terrain: air
#: (all of them), lake (frac), sea and rocky cliffs (horse, cow).
TELEPORTERS = [{"species": "frac"}, {"species": "marino"}, {"species": "frac", "party": ("marino",)},
               {"species": "human", "mount": "horse", "gifts": ("teleport",)},
               {"species": "human", "party": ("cow",), "gifts": ("teleport",)}]


def teleport_map(tmp_path_factory, n: int, seed: int, fountains, streams) -> eidomap.Map:
    """A generated map with more fountains and streams, in the Eidos given whatever their terrain (sea, air)."""
    doc = generate_map(n, seed)
    doc["eidomap"]["catalog"] = "cat.toml"
    cells = [shapely.from_geojson(json.dumps(f["geometry"])) for f in doc["features"]
             if f["properties"]["kind"] == "eido"]
    inside = shapely.get_coordinates(shapely.point_on_surface(cells)).tolist()
    doc["features"] += [{"type": "Feature", "properties": {"kind": "fountain"},
                         "geometry": {"type": "Point", "coordinates": inside[k]}} for k in fountains]
    doc["features"] += [{"type": "Feature", "properties": {"kind": "stream"},
                         "geometry": {"type": "LineString", "coordinates": [inside[a], inside[b]]}}
                        for a, b in streams if a != b]
    folder = tmp_path_factory.mktemp("teleports")
    (folder / "cat.toml").write_text(CATALOG)
    (folder / "m.geojson").write_text(json.dumps(doc))
    return eidomap.load(folder / "m.geojson")


@SETTINGS
@given(n=st.integers(6, 16), seed=st.integers(0, 400), who=st.sampled_from(TELEPORTERS),
       partial=st.sampled_from(["carry", "forbid"]), data=st.data())
def test_no_step_of_any_kind_enters_a_terrain_the_actor_cannot_enter(tmp_path_factory, n, seed, who, partial,
                                                                     data):
    """A terrain with no cost is impassable: fountains and stream sources in the sea or the air included.

    Fountains and streams are drawn in any Eido; the unit's steps of every kind are the oracle's, and no
    route or reach of the unit enters an Eido whose terrain one of its movers (the mount, or every member of
    the party) has no cost for -- by a border, a road, a fountain's exit or a stream.
    """
    eidos = st.integers(0, n - 1)
    m = teleport_map(tmp_path_factory, n, seed, data.draw(st.lists(eidos, min_size=2, max_size=5, unique=True)),
                     data.draw(st.lists(st.tuples(eidos, eidos), max_size=3)))
    cat = m.catalog
    a = actor(cat, who["species"], mount=who.get("mount"), party=who.get("party", ()), gifts=who.get("gifts", ()))
    ids = m.network.node_ids
    compiled = {(str(ids[u]), str(ids[v])): c for u, steps in edge_list(m, a).items() for v, c in steps}
    assert compiled == pytest.approx(oracle_edges(m, **who))
    movers = [cat.species[x] for x in ([who["mount"]] if "mount" in who else [who["species"], *who.get("party", ())])]
    can_be = [e for e, t in zip(m.eido_ids, m.terrains, strict=True) if all(t in sp.costs for sp in movers)]
    s = data.draw(st.sampled_from(can_be)) if can_be else m.eido_ids[0]
    reached = [e for e, p in reach(m, s, a, turns=3, partial=partial).p_within.items() if p > 0]
    path = [x.node for g in data.draw(st.lists(st.sampled_from(m.eido_ids), min_size=1, max_size=3))
            for x in route(m, s, g, a, partial=partial, rolls=[6] * 8).path[1:]]
    entered = {e for e in [*reached, *path] if e in m.eido_ids and e != s}
    assert entered <= set(can_be)


def assert_as_far_as_the_rolls_allow(m, a, out, g: int, entered: set[int], r) -> None:
    """Under forbid, rolls that run out before the goal end the itinerary, not there yet, in a node the goal is
    cheapest from of those the rolls can take the actor to (``entered``): no nearer node was in reach."""
    back = defaultdict(list)
    for u, steps in out.items():
        for v, c in steps:
            if c <= a.largest_budget + EPS:  # (a step no roll pays is never taken)
                back[v].append((u, c))
    to_goal = cheapest(back, g)
    if r.reachable:
        end = list(m.network.node_ids).index(r.turns[-1].end)
        assert r.arrival_turn is None and r.path[-1].node == m.eido_ids[g]
        assert to_goal[end] == pytest.approx(min(to_goal.get(v, np.inf) for v in entered))


@SETTINGS
@given(n=st.integers(12, 30), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]), data=st.data())
def test_route_with_rolls_matches_brute_force(tmp_path_factory, n, seed, partial, data):
    m, a, out, s, g, rolls = draw_case(tmp_path_factory, n, seed, data, max_rolls=10)
    first, cost = brute_force(out, s, [r + a.vmv for r in rolls], partial == "carry")
    r = route(m, m.eido_ids[s], m.eido_ids[g], a, rolls=rolls, partial=partial)
    event(f"arrival turn {first.get(g, 'never')}")
    if partial == "forbid":  # rolls that run out first: the ones before the arrival turn, or as many 1s
        lows = [1] * len(rolls)
        low_first, _ = brute_force(out, s, [1 + a.vmv] * len(lows), False)
        for given_rolls, entered in ((rolls[: first.get(g, len(rolls) + 1) - 1], first), (lows, low_first)):
            if given_rolls and entered.get(g, len(given_rolls) + 1) > len(given_rolls):
                r_short = route(m, m.eido_ids[s], m.eido_ids[g], a, rolls=given_rolls, partial=partial)
                assert_as_far_as_the_rolls_allow(m, a, out, g, {v for v, t in entered.items()
                                                                if t <= len(given_rolls)}, r_short)
    if g not in first:
        assert r.arrival_turn is None
        return
    assert r.arrival_turn == first[g]
    assert r.total_cost == pytest.approx(cost[g])
    # itinerary consistency
    spent = 0.0
    for t in r.turns:
        assert t.spent <= t.budget + EPS and t.spent + t.lost == pytest.approx(t.budget)
        spent += t.spent
    owed = r.turns[-1].debt_after if r.turns else 0.0  # what is not paid yet is owed
    assert spent + owed == pytest.approx(r.total_cost)
    assert [s.node for s in r.path[1:]] == [x.node for t in r.turns for x in t.steps]


def _nodes(m, r) -> list[int]:
    index = {str(x): k for k, x in enumerate(m.network.node_ids)}
    return [index[s.node] for s in r.path]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(6, 20), seed=st.integers(0, 400), data=st.data())
def test_of_the_routes_that_arrive_soonest_the_route_is_the_cheapest_then_the_tie_rules(tmp_path_factory, n, seed,
                                                                                        data):
    """docs/rules.md, "What a route answers" and "Ties": without rolls, under the debt rule, of every route whose
    own arrival threshold is the goal's (listed by brute force over the oracle's steps), the cheapest, then the
    fewest steps, then read back from the goal the node first in the map's order."""
    m = small_map(tmp_path_factory, n, seed)
    who = data.draw(st.sampled_from(UNITS))
    a = actor(m.catalog, who["species"], mount=who.get("mount"), party=who.get("party", ()))
    s, g = pick(m, data)
    want = tie_rule_route(oracle_out(m, who), s, g)
    if want is not None:
        assert _nodes(m, route(m, m.eido_ids[s], m.eido_ids[g], a)) == want


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(6, 16), seed=st.integers(0, 400), data=st.data())
def test_the_route_drawn_is_the_route_its_odds_describe(tmp_path_factory, n, seed, data):
    """docs/rules.md, "What a route answers": under the debt rule without rolls ``p_by_turn`` is computed from the
    goal's arrival threshold, the least over every route (by brute force, one turn of each budget); the route
    drawn has that threshold of its own, and ``p_by_turn`` is its own arrival distribution under every sequence of
    1d4 rolls (walked step by step).  Rolls that run out before the goal walk the same route as far as they go."""
    m, a, out, s, g = draw_dice_case(tmp_path_factory, n, seed, data)
    r = route(m, m.eido_ids[s], m.eido_ids[g], a)
    if not r.reachable or s == g:
        return
    costs = [x.cost for x in r.path[1:]]
    net = m.network
    assert own_threshold(costs) == least_threshold(out, s, g) == threshold_to(net, dijkstra(net, a.costs, s),
                                                                               a.costs, g)
    k_max = 4
    hits = np.zeros(k_max)
    for seq in itertools.product(range(1, 5), repeat=k_max):
        t = arrival(costs, [max(x + a.vmv, 0) for x in seq], True)
        if t is not None:
            hits[t - 1 :] += 1
    assert np.allclose(np.pad(r.p_by_turn, (0, k_max), mode="edge")[:k_max], hits / 4**k_max)
    event(f"P(turn 1) {r.p_by_turn[0]:.2f}")
    short = route(m, m.eido_ids[s], m.eido_ids[g], a, rolls=data.draw(st.lists(st.integers(1, 4), min_size=1,
                                                                                 max_size=3)))
    if short.arrival_turn is None:
        assert short.path == r.path


def test_a_route_that_arrives_sooner_is_drawn_rather_than_the_cheapest(tmp_path):
    """docs/rules.md, "What a route answers": on this generated map the cheapest way from road0@5 to road1@2 (6 PtMv)
    starts its last step with 5 PtMv paid -- only a 6 arrives in turn 1 -- while one of 7 PtMv starts it with 4 paid
    and a 5 arrives too.  The route drawn is the one the odds (1 in 3 in turn 1) describe, its cost ``total_cost``;
    ``cheapest_cost`` is still the least; rolls that run out walk it."""
    write_map(generate_map(40, 5), tmp_path / "m.geojson")
    m = eidomap.load(tmp_path / "m.geojson")
    r = route(m, "road0@5", "road1@2", "human")
    assert [x.node for x in r.path] == ["road0@5", "road0@4", "e01", "e08", "road1@2"]
    assert (r.total_cost, r.cheapest_cost, r.p_by_turn[0]) == (7.0, 6.0, pytest.approx(1 / 3))
    short = route(m, "road0@5", "road1@2", "human", rolls=[4])
    assert short.path == r.path and short.turns[0].end == "e08" and short.arrival_turn is None
    assert route(m, "road0@5", "road1@2", "human", rolls=[5]).arrival_turn == 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(6, 16), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]), data=st.data())
def test_with_rolls_of_the_routes_as_soon_and_as_cheap_the_route_is_the_tie_rules(tmp_path_factory, n, seed, partial,
                                                                                 data):
    """With rolls, of every route that arrives soonest and costs least (listed by brute force), the tie rule's."""
    m, a, out, s, g, rolls = draw_case(tmp_path_factory, n, seed, data, max_rolls=8)
    want = tie_rule_route_with_rolls(out, s, g, [max(r + a.vmv, 0) for r in rolls], partial == "carry")
    if want is not None:
        assert _nodes(m, route(m, m.eido_ids[s], m.eido_ids[g], a, rolls=rolls, partial=partial)) == want


@SETTINGS
@given(n=st.integers(12, 30), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]), data=st.data())
def test_multi_turn_search_matches_brute_force(tmp_path_factory, n, seed, partial, data):
    m, a, out, s, _, rolls = draw_case(tmp_path_factory, n, seed, data, max_rolls=6)
    first, _ = brute_force(out, s, [r + a.vmv for r in rolls], partial == "carry")
    event(f"{max(first.values())} turns to the farthest node")
    got = reach_rolls(m, m.eido_ids[s], a, rolls=rolls, partial=partial).arrival_turn
    want = {m.eido_ids[k]: t for k, t in first.items() if k < len(m.eido_ids)}
    assert got == want


@SETTINGS
@given(n=st.integers(4, 12), seed=st.integers(0, 400), species=st.sampled_from(SPECIES),
       partial=st.sampled_from(["carry", "forbid"]), budget=st.integers(1, 6), data=st.data())
def test_compiled_search_agrees_with_python(tmp_path_factory, n, seed, species, partial, budget, data):
    m = small_map(tmp_path_factory, n, seed)
    a = actor(m.catalog, species)
    s, _ = pick(m, data)
    w = a.weights(m.network)
    net = m.network
    py = earliest(net, w, s, [budget], partial, cycle=True, compiled=False)
    jit = earliest(net, w, s, [budget], partial, cycle=True, compiled=True)  # over the renumbered CSR
    table = earliest(net, a.costs, s, [budget], partial, cycle=True, compiled=True)  # the table, not the weights
    for x, y, z in zip(py[:3], jit[:3], table[:3], strict=True):
        assert np.allclose(x, y) and np.allclose(x, z)
    # of two steps to the same label either may be named: each names a step to its node's label
    _, turn, left, _ = py
    turn = np.where(np.arange(net.n_nodes) == s, 1, turn)  # the source's own label: turn 1, before reported as 0
    for pred in (py[3], jit[3]):
        assert np.array_equal(pred >= 0, py[3] >= 0)
        for v in np.flatnonzero(pred >= 0):
            e = pred[v]
            u = int(net.src[e])
            got = advance(int(turn[u]), left[u], w[e], np.array([float(budget)]), True, partial == "carry")
            assert net.dst[e] == v and got[1:] == (turn[v], pytest.approx(left[v]))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(6, 16), seed=st.integers(0, 400), data=st.data())
def test_debt_rule_probabilities_match_every_roll_sequence(tmp_path_factory, n, seed, data):
    m, a, out, s, g = draw_dice_case(tmp_path_factory, n, seed, data)
    k_max = 3
    hits = np.zeros((k_max, len(m.eido_ids)))

    def roll_on(starts, t, seen):  # every sequence of the rolls of turns t..k_max after those that led to ``starts``
        for r in range(1, 5):
            entered, after = turn_of(out, starts, r + a.vmv, True)
            new = [v for v in entered if v not in seen and v < len(m.eido_ids)]
            hits[t - 1:, new] += 4 ** (k_max - t)  # first entered now, by each of the sequences that go on
            if t < k_max:
                roll_on(after, t + 1, seen | set(new))

    # every sequence of 1d4 rolls, brute_force's turns walked once for all the sequences that begin alike
    hits[:, s] += 4**k_max
    roll_on({(s, 0.0): 0.0}, 1, {s})
    p = hits / 4**k_max
    r = route(m, m.eido_ids[s], m.eido_ids[g], a)
    if not r.reachable:
        assert p[:, g].max() == 0
        return
    got = np.pad(r.p_by_turn, (0, k_max), mode="edge")[:k_max] if s != g else np.ones(k_max)
    assert np.allclose(got, p[:, g])
    for k in range(1, k_max + 1):
        within = reach(m, m.eido_ids[s], a, turns=k).p_within
        assert np.allclose([within[e] for e in m.eido_ids], p[k - 1])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(6, 16), seed=st.integers(0, 400), data=st.data())
def test_forbid_policy_matches_expectimax(tmp_path_factory, n, seed, data):
    m, a, out, s, g = draw_dice_case(tmp_path_factory, n, seed, data)
    nodes = range(m.network.n_nodes)
    budgets = [r + a.vmv for r in range(1, 5)]
    reachable = {(u, b): within_turn(out, u, b) for u in nodes for b in budgets}
    # finite horizon: best probability of being in g within k turns, for every g at once
    k_max = 3
    value = np.eye(m.network.n_nodes)
    for _ in range(k_max):
        value = np.mean([np.array([value[list(reachable[u, b])].max(axis=0) for u in nodes]) for b in budgets],
                        axis=0)
        np.fill_diagonal(value, 1.0)
    within = reach(m, m.eido_ids[s], a, turns=k_max, partial="forbid").p_within
    assert np.allclose([within[e] for e in m.eido_ids], value[s, : len(m.eido_ids)])
    # expected turns of the optimal policy: value iteration to convergence, from
    # the nodes that can reach g at all (the others: never)
    can = {g}
    while True:
        more = {u for u in nodes if reachable[u, budgets[-1]] & can} - can
        if not more:
            break
        can |= more
    e = np.array([0.0 if u in can else np.inf for u in nodes])
    for _ in range(5000):
        best = np.array([[min(e[list(reachable[u, b])]) for b in budgets] for u in nodes])
        new = 1.0 + np.mean(np.minimum(best, e[:, None]), axis=1)
        new[g] = 0.0
        if np.allclose(new, e, rtol=0, atol=1e-13, equal_nan=True):
            break
        e = new
    r = route(m, m.eido_ids[s], m.eido_ids[g], a, partial="forbid")
    if s == g:
        assert r.expected_turns == 0
    elif not np.isfinite(e[s]):
        assert not r.reachable
    else:
        assert r.expected_turns == pytest.approx(e[s], rel=1e-9, abs=1e-9)
        tail = 1 + sum(1 - p for p in r.p_by_turn)  # E[T] = sum_{k>=0} P(T > k)
        assert tail == pytest.approx(e[s], rel=1e-6)
        event(f"expected turns {int(e[s])}+")
        # the path is a course the optimal play can take: its steps exist and cost what they say
        index = {str(x): k for k, x in enumerate(m.network.node_ids)}
        steps = dict(((u, v), c) for u in out for v, c in out[u])
        nodes_on = [index[x.node] for x in r.path]
        assert all(steps[u, v] == pytest.approx(x.cost) for (u, v), x in zip(itertools.pairwise(nodes_on),
                                                                             r.path[1:], strict=True))
        assert r.total_cost == pytest.approx(sum(x.cost for x in r.path))


def _first_turn(out, s: int, g: int, budgets) -> int | None:
    """brute_force's first turn into ``g`` (carry), its turns walked only until then."""
    if s == g:
        return 0
    starts = {(s, 0.0): 0.0}
    for t, b in enumerate(budgets, start=1):
        entered, starts = turn_of(out, starts, b, True)
        if g in entered:
            return t
    return None


def test_drawn_cases_mostly_need_several_turns(tmp_path_factory):
    """The goals drawn far apart make most routes with rolls a matter of two turns or more."""
    rng = random.Random(7)
    turns = []
    for n, seed in itertools.product(range(12, 31, 6), range(12)):
        m = small_map(tmp_path_factory, n, seed)
        who = rng.choice(UNITS)
        out = oracle_out(m, who)
        s = rng.randrange(len(m.eido_ids))
        g = far_apart(m, out, s, rng.randrange)
        rolls = [rng.randint(1, 6) for _ in range(8)]
        turns.append(_first_turn(out, s, g, [r + oracle_vmv(m, **who) for r in rolls]))
    several = sum(t is not None and t >= 2 for t in turns)
    assert several >= 0.6 * len(turns), turns


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
    assert code == 2 and out == "" and "d20 rules" in err and "answer: grid, travel" in err and err.count("\n") == 1


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
    assert r.reason == "boat cannot enter meadow: the terrain of porto-sur is meadow"


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


def test_unreachable_says_the_goals_own_terrain_in_a_sentence(make_map):
    """Issue 46, 10: "boat cannot enter meadow or scrub: the terrain of scrub-n" named two terrains as one."""
    m = make_map(strip(["meadow", "forest", "scrub"]), catalog="[species.walker]\nvmv = 0\ncosts = { meadow = 1 }\n")
    assert route(m, "e0", "e2", "walker").reason == "walker cannot enter forest or scrub: the terrain of e2 is scrub"


def test_unreachable_names_the_roads_for_a_species_that_cannot_follow_them(demo):
    r = route(demo, "porto-norte", "cr-4", "boat")  # a Pousa: the goal's own "terrain" is the roads
    assert not r.reachable and r.reason == "boat cannot enter mountain or the roads: cr-4 lies on the roads"


@pytest.mark.parametrize(("start", "goal", "said"), [
    ("cd-6", "areeiro", "oestrimio cannot use the roads, where its start cd-6 lies: areeiro lies beyond"),
    ("cd-11", "eira", "oestrimio cannot use the roads, where its start cd-11 lies: eira lies beyond"),
    ("cd-1", "mar-12", "oestrimio cannot use the roads, where its start cd-1 lies, and cannot enter sea: the terrain"
                       " of mar-12 is sea"),
])
def test_unreachable_from_a_pousa_by_one_who_cannot_use_the_roads_names_the_roads(demo, start, goal, said):
    """A step off a Pousa is closed to a species that keeps off the roads (an oestrimio) whatever the Eido it
    leads into: the reason named the terrain of that Eido ('oestrimio cannot enter meadow'), which it enters."""
    r = route(demo, start, goal, "oestrimio")
    assert not r.reachable and r.reason == said
    assert route(demo, "porto-norte", "porto-sur", "horse").reason == "horse cannot enter sea: porto-sur lies beyond"


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
    with pytest.raises(RequestError, match=r"^turns must be a whole number from 1 to 10,000, got 0$"):
        reach(demo, "porto-sur", "human", turns=0)


@pytest.mark.parametrize(("dice", "vmv"), [("1d6-6", 0), ("1d6-100", 0), ("2d4-9", 1)])
def test_dice_whose_budget_is_never_positive_cannot_move(demo, dice, vmv):
    with pytest.raises(RequestError, match=rf"human cannot move: with dice {dice} and VMv {vmv} no turn gives a PtMv"):
        actor(demo.catalog, "human", dice=dice, vmv=vmv)
    assert actor(demo.catalog, "human", dice=dice, vmv=vmv + 100).largest_budget > 0


def test_a_vmv_given_is_bounded_like_the_catalog_s(demo):
    with pytest.raises(RequestError, match="vmv must be a whole number from 0 to 1,000,000, got 1000001"):
        actor(demo.catalog, "human", vmv=1_000_001)
    with pytest.raises(RequestError, match="dice must be a Dice or text"):
        actor(demo.catalog, "human", dice=6)


@pytest.mark.parametrize("turns", [0, MAX_TURNS + 1, True, 2.0])
def test_the_turns_asked_are_bounded(demo, turns):
    with pytest.raises(RequestError, match=f"must be a whole number from 1 to {MAX_TURNS:,}"):
        route(demo, "porto-norte", "aldea-do-cabo", "human", max_turns=turns)
    with pytest.raises(RequestError, match=f"turns must be a whole number from 1 to {MAX_TURNS:,}"):
        reach(demo, "porto-norte", "human", turns=turns)


def test_a_goal_beyond_the_horizon_is_said_so_without_a_distribution(make_map):
    m = make_map(strip(["meadow"] * 4), catalog="[species.walker]\nvmv = 0\ncosts = { meadow = 5 }\n")
    r = route(m, "e0", "e3", "walker", max_turns=1)  # in e3 once 10 PtMv and a point are paid: a turn gives 6
    assert not r.reachable and r.p_by_turn == [] and r.best_turns is None and r.worst_turns is None
    assert r.reason == "e3 is 15 PtMv away and a turn gives at most 6: more than 1 turn"
    far = make_map(strip(["meadow"] * 6), catalog="[species.walker]\nvmv = 0\ncosts = { meadow = 5 }\n")
    assert route(far, "e0", "e5", "walker", max_turns=2).reason.endswith(": more than 2 turns")
    r = route(m, "e0", "e3", "walker", max_turns=2)  # 11 points in two turns: 5+6, 6+5 or 6+6
    assert r.reachable and (r.best_turns, r.worst_turns) == (2, 11) and r.p_by_turn == [0.0, 3 / 36]


def test_rolls_are_a_list_of_whole_numbers(demo):
    for rolls in ("3,5", b"35", 4):
        with pytest.raises(RequestError, match="rolls must be a list of whole numbers"):
            route(demo, "porto-norte", "aldea-do-cabo", "human", rolls=rolls)


@pytest.mark.parametrize("goal", ["aldea-do-cabo", "ceo-nacente", "porto-sur"])  # reachable, air, beyond the sea
def test_rolls_are_checked_whether_or_not_the_goal_can_be_reached(demo, goal):
    """A parameter is checked at the boundary: bad rolls are refused before the search, not only when the
    search finds a way (a goal out of reach once answered rolls=[3.0] as if they were fine)."""
    for rolls, what in (([3.0], "whole numbers"), ([True], "whole numbers"), ([None], "whole numbers"),
                        ([7], "outside the range of 1d6")):
        with pytest.raises(RequestError, match=what):
            route(demo, "bouza-vella", goal, "horse", rolls=rolls)
