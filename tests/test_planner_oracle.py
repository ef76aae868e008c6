"""The planner against brute-force oracles on random small maps (hypothesis).

The oracles know nothing of thresholds, labels or policies: they enumerate the
actor's states -- (node, points left, debt) within a turn, every possible step
-- turn by turn, and for probabilities every sequence of rolls (debt rule) or
an expectimax over turn-start states (forbid).
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict

import numpy as np
import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eidomap
from eidomap.generate import generate_map
from eidomap.routing import reach, reach_rolls, route
from eidomap.rules.eido import actor
from eidomap.search.turns import earliest

EPS = 1e-9
CATALOG = """
[species.frac]
vmv = 0
costs = { sea = 3, meadow = 1.5, scrub = 2, forest = 2.5, marsh = 1, rocks = 2, rocky_cliff = 3.5, mountain = 3 }
road_cost = 0.5
gifts = ["teleport"]
"""
SPECIES = ["human", "horse", "marino", "oestrimio", "frac", "frac", "frac", "bird"]  # fractions most
SETTINGS = settings(max_examples=examples(30), deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


_maps: dict = {}


def small_map(tmp_path_factory, n: int, seed: int) -> eidomap.Map:
    if (n, seed) not in _maps:
        folder = tmp_path_factory.mktemp(f"m{n}_{seed}")
        doc = generate_map(n, seed)
        doc["eidomap"]["catalog"] = "cat.toml"
        (folder / "cat.toml").write_text(CATALOG)
        (folder / "m.geojson").write_text(json.dumps(doc))
        _maps[n, seed] = eidomap.load(folder / "m.geojson")
    return _maps[n, seed]


def edge_list(m, a) -> dict[int, list[tuple[int, float]]]:
    net = m.network
    w = a.weights(net)
    best: dict[tuple[int, int], float] = {}
    for u, v, c in zip(net.src.tolist(), net.dst.tolist(), w.tolist(), strict=True):
        if np.isfinite(c):
            best[u, v] = min(c, best.get((u, v), np.inf))
    out = defaultdict(list)
    for (u, v), c in best.items():
        out[u].append((v, c))
    return out


def brute_force(out, s: int, budgets, carry: bool):
    """First turn each node is entered, and the least cost of entering it then."""
    first: dict[int, int] = {s: 0}
    cost_at: dict[int, float] = {s: 0.0}
    starts = {(s, 0.0): 0.0}  # (node, debt) at the start of a turn -> least cost
    for t, b in enumerate(budgets, start=1):
        best: dict[tuple, float] = {}
        stack = []

        def relax(state, cost, best=best, stack=stack):
            if cost < best.get(state, np.inf) - EPS:
                best[state] = cost
                stack.append(state)

        for (u, d), cost in starts.items():
            pay = min(d, b)
            relax((u, round(b - pay, 9), round(d - pay, 9)), cost)
        entered: dict[int, float] = {}
        while stack:
            state = stack.pop()
            u, left, debt = state
            cost = best[state]
            if debt > EPS:
                continue
            for v, c in out[u]:
                if c <= EPS:
                    nxt = (v, left, 0.0)
                elif left + EPS >= c:
                    nxt = (v, round(left - c, 9), 0.0)
                elif carry and left > EPS:
                    nxt = (v, 0.0, round(c - left, 9))
                else:
                    continue
                entered[v] = min(entered.get(v, np.inf), cost + c)
                relax(nxt, cost + c)
        for v, c in entered.items():
            if v not in first:
                first[v], cost_at[v] = t, c
        starts = {}
        for (u, _, debt), cost in best.items():
            starts[u, debt] = min(cost, starts.get((u, debt), np.inf))
    return first, cost_at


def within_turn(out, u: int, b: float) -> set[int]:
    """Nodes an actor free at u can be in during a turn of budget b, steps fitting (forbid)."""
    seen = {u: b}
    stack = [u]
    while stack:
        x = stack.pop()
        for v, c in out[x]:
            left = seen[x] - c
            if left >= -EPS and left > seen.get(v, -1.0) + EPS:
                seen[v] = left
                stack.append(v)
    return set(seen)


def pick(m, data):
    n = len(m.eido_ids)
    s = data.draw(st.integers(0, n - 1))
    g = data.draw(st.integers(0, n - 1))
    return s, g


def draw_case(tmp_path_factory, n, seed, species, data, max_rolls):
    """A map, an actor, a start, a goal and a sequence of rolls."""
    m = small_map(tmp_path_factory, n, seed)
    a = actor(m.catalog, species)
    s, g = pick(m, data)
    rolls = data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=max_rolls))
    return m, a, s, g, rolls


@SETTINGS
@given(n=st.integers(4, 14), seed=st.integers(0, 400), species=st.sampled_from(SPECIES),
       partial=st.sampled_from(["carry", "forbid"]), data=st.data())
def test_route_with_rolls_matches_brute_force(tmp_path_factory, n, seed, species, partial, data):
    m, a, s, g, rolls = draw_case(tmp_path_factory, n, seed, species, data, max_rolls=8)
    first, cost = brute_force(edge_list(m, a), s, [r + a.vmv for r in rolls], partial == "carry")
    r = route(m, m.eido_ids[s], m.eido_ids[g], a, rolls=rolls, partial=partial)
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


@SETTINGS
@given(n=st.integers(4, 14), seed=st.integers(0, 400), species=st.sampled_from(SPECIES),
       partial=st.sampled_from(["carry", "forbid"]), data=st.data())
def test_multi_turn_search_matches_brute_force(tmp_path_factory, n, seed, species, partial, data):
    m, a, s, _, rolls = draw_case(tmp_path_factory, n, seed, species, data, max_rolls=6)
    first, _ = brute_force(edge_list(m, a), s, [r + a.vmv for r in rolls], partial == "carry")
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
    py = earliest(m.network, w, s, [budget], partial, cycle=True, compiled=False)
    jit = earliest(m.network, w, s, [budget], partial, cycle=True, compiled=True)
    for x, y in zip(py, jit, strict=True):
        assert np.allclose(x, y)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(4, 10), seed=st.integers(0, 400), species=st.sampled_from(SPECIES), data=st.data())
def test_debt_rule_probabilities_match_every_roll_sequence(tmp_path_factory, n, seed, species, data):
    m = small_map(tmp_path_factory, n, seed)
    a = actor(m.catalog, species, dice="1d4")
    s, g = pick(m, data)
    k_max = 3
    out = edge_list(m, a)
    hits = np.zeros((k_max, len(m.eido_ids)))
    for seq in itertools.product(range(1, 5), repeat=k_max):
        first, _ = brute_force(out, s, [r + a.vmv for r in seq], True)
        for v, t in first.items():
            if v < len(m.eido_ids):
                hits[max(t, 1) - 1 :, v] += 1
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


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(4, 10), seed=st.integers(0, 400), species=st.sampled_from(SPECIES), data=st.data())
def test_forbid_policy_matches_expectimax(tmp_path_factory, n, seed, species, data):
    m = small_map(tmp_path_factory, n, seed)
    a = actor(m.catalog, species, dice="1d4")
    s, g = pick(m, data)
    out = edge_list(m, a)
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
