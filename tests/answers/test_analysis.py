"""Analyst tools: expected-turn matrices, races, bottlenecks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import eido, square
from hypothesis import given, settings
from hypothesis import strategies as st

import eidomap.answers.analysis as analysis
from eidomap.answers.routing import route


def test_expected_turns_matrix_matches_single_routes(demo, monkeypatch):
    places = ["porto-norte", "porto-sur", "carballeira", "monte-pindo"]
    got = analysis.expected_turns_matrix(demo, places, "human")
    for (i, a), (j, b) in itertools.product(enumerate(places), repeat=2):
        r = route(demo, a, b, "human")
        want = 0.0 if a == b else (r.expected_turns if r.reachable else np.inf)
        assert got[i, j] == pytest.approx(want)
    monkeypatch.setattr(analysis, "BATCH_CELLS", 1)  # one source at a time
    assert np.array_equal(analysis.expected_turns_matrix(demo, places, "human"), got)


def test_race_matches_enumeration():
    p_a = np.array([0.2, 0.7, 1.0])
    p_b = np.array([0.5, 0.5, 0.9, 1.0])
    pa, pb = np.diff(np.r_[0, p_a]), np.diff(np.r_[0, p_b])
    first = sum(pa[i] * pb[j] for i in range(3) for j in range(4) if i < j)
    tie = sum(pa[i] * pb[i] for i in range(3))
    assert analysis.race(p_a, p_b) == pytest.approx((first, tie, 1 - first - tie))


def _race_by_enumeration(laws: list[list[float]]) -> tuple[list[float], float, float]:
    """P(each actor strictly first), P(a tie for first), P(nobody arrives), by every joint outcome: ``laws[i][k]``
    is P(actor i arrives in turn k + 1), the rest of its mass P(it never arrives)."""
    first, tie, nobody = [0.0] * len(laws), 0.0, 0.0
    outcomes = [[*range(len(law)), None] for law in laws]  # a turn index, or never
    for joint in itertools.product(*outcomes):
        p = 1.0
        for law, k in zip(laws, joint, strict=True):
            p *= 1.0 - sum(law) if k is None else law[k]
        came = [k for k in joint if k is not None]
        if not came:
            nobody += p
            continue
        winners = [i for i, k in enumerate(joint) if k == min(came)]
        if len(winners) == 1:
            first[winners[0]] += p
        else:
            tie += p
    return first, tie, nobody


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), min_size=0, max_size=4), min_size=2, max_size=5), st.data())
def test_race_of_several_actors_is_the_enumeration_of_their_turns(weights, data):
    """Issue 48, item 9: for 2 to 5 actors, each with its own law over up to 4 turns (some mass never arriving, or
    none), every actor's P(strictly first) and P(a tie for first) are those of every joint outcome enumerated,
    and with P(nobody arrives within the horizon) they add up to 1."""
    laws = []
    for w in weights:
        never = data.draw(st.integers(0, 3))
        total = sum(w) + never or 1
        laws.append([x / total for x in w])
    cdfs = [np.minimum(np.cumsum(law), 1.0) if law else np.array([]) for law in laws]  # (a sum may pass 1 by an ulp)
    got = analysis.race(*cdfs)
    first, tie, nobody = _race_by_enumeration(laws)
    assert len(got) == len(laws) + 1 and all(type(x) is float for x in got)
    assert [got[0], *got[2:]] == pytest.approx(first, abs=1e-12) and got[1] == pytest.approx(tie, abs=1e-12)
    assert sum(got) + nobody == pytest.approx(1.0, abs=1e-12)


def test_a_race_tie_is_the_first_turn_shared_whoever_comes_later():
    """A and B arrive together in turn 3 and C in turn 5: a tie; A alone in turn 2, B and C together in turn 4: A
    first; an actor that never arrives loses to any that does, and two that never arrive make no tie."""
    assert analysis.race([0, 0, 1], [0, 0, 1], [0, 0, 0, 0, 1]) == (0.0, 1.0, 0.0, 0.0)
    assert analysis.race([0, 1], [0, 0, 0, 1], [0, 0, 0, 1]) == (1.0, 0.0, 0.0, 0.0)
    assert analysis.race([], [0.0, 0.0], [0, 0.5]) == (0.0, 0.0, 0.0, 0.5)
    assert analysis.race([0.0], [0.0]) == (0.0, 0.0, 0.0)


def test_a_route_already_at_the_goal_wins_the_race_and_one_that_cannot_arrive_never_does(demo):
    """Race of routes: a route already on the goal (reachable, no turn) and one that cannot arrive both have an
    empty ``p_by_turn``; given as routes, the first arrives before any turn -- first alone, in a tie with another
    already there -- and the second never.  Its distribution alone would lose the race it won."""
    there = route(demo, "porto-norte", "porto-norte", "human")
    walking = route(demo, "bouza-vella", "porto-norte", "human")
    stuck = route(demo, "bouza-vella", "porto-norte", "boat")
    assert there.reachable and not stuck.reachable and list(there.p_by_turn) == list(stuck.p_by_turn) == []
    assert analysis.race(walking, there) == (0.0, 0.0, 1.0)
    assert analysis.race(there, walking, there) == (0.0, 1.0, 0.0, 0.0)
    assert analysis.race(stuck, walking) == (0.0, 0.0, 1.0)
    assert analysis.race(walking, walking.p_by_turn) == analysis.race(walking.p_by_turn, walking.p_by_turn)
    assert analysis.race(walking.p_by_turn, there.p_by_turn) == (1.0, 0.0, 0.0)  # (a distribution: never there)


def test_the_race_of_two_is_the_formula_it_always_was():
    """Issue 48, item 9: the race of two gives the numbers it gave before it took more actors, to the last bit:
    P(A first) = sum_k P(A in k) P(B after k), the tie sum_k P(A in k) P(B in k)."""
    rng = np.random.default_rng(48)
    for _ in range(500):
        p_a, p_b = (np.sort(rng.random(rng.integers(1, 9))) for _ in range(2))
        n = max(len(p_a), len(p_b))
        cdf_a, cdf_b = (np.r_[0.0, np.pad(p, (0, n - len(p)), mode="edge")] for p in (p_a, p_b))
        pa, pb = np.diff(cdf_a), np.diff(cdf_b)
        want = (float(np.sum(pa * (1.0 - cdf_b[1:]))), float(np.sum(pa * pb)), float(np.sum(pb * (1.0 - cdf_a[1:]))))
        assert analysis.race(p_a, p_b) == want


def test_bottlenecks_are_eidos_ranked_by_betweenness(demo):
    top = analysis.bottlenecks(demo, "human", top=5)
    assert len(top) == 5 and all(e in demo.eido_ids for e, _ in top)
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)


def brute_betweenness(out: dict, nodes: list) -> dict:
    """Directed betweenness by counting cheapest paths between every pair (plain Python, normalised as NetworkX)."""
    def paths(s):
        dist, count, order = {s: 0.0}, {s: 1}, []
        frontier = [(0.0, s)]
        while frontier:
            frontier.sort()
            d, u = frontier.pop(0)
            if d > dist[u] or u in order:
                continue
            order.append(u)
            for v, c in out.get(u, []):
                if d + c < dist.get(v, float("inf")) - 1e-12:
                    dist[v], count[v] = d + c, count[u]
                    frontier.append((d + c, v))
                elif abs(d + c - dist[v]) <= 1e-12:
                    count[v] += count[u]
        return dist, count

    info = {s: paths(s) for s in nodes}
    score = dict.fromkeys(nodes, 0.0)
    for s, t in itertools.permutations(nodes, 2):
        dist_s, count_s = info[s]
        if t not in dist_s:
            continue
        for v in nodes:
            dist_v, count_v = info[v]
            if v in (s, t) or v not in dist_s or t not in dist_v:
                continue
            if abs(dist_s[v] + dist_v[t] - dist_s[t]) <= 1e-12:
                score[v] += count_s[v] * count_v[t] / count_s[t]
    n = len(nodes)
    return {v: x / ((n - 1) * (n - 2)) for v, x in score.items()}


def test_bottlenecks_equal_an_independent_betweenness(make_map):
    """Two blocks joined by one bridge Eido: the bridge has the fewest neighbours but the most paths."""
    cells = {"l00": (0, 0), "l10": (1, 0), "l01": (0, 1), "l11": (1, 1), "bridge": (2, 0),
             "r00": (3, 0), "r10": (4, 0), "r01": (3, 1), "r11": (4, 1)}
    m = make_map([eido(k, "meadow", square(*xy)) for k, xy in cells.items()])
    ids = [str(x) for x in m.network.node_ids]
    w = m.graph_for("human")
    out = {u: [(v, d["cost"]) for _, v, d in w.out_edges(u, data=True)] for u in ids}
    want = brute_betweenness(out, ids)
    got = dict(analysis.bottlenecks(m, "human", top=len(cells)))
    assert got == pytest.approx({e: want[e] for e in cells})
    assert next(iter(got)) == "bridge"
    degree = {e: len(m.neighbors(e)) for e in cells}
    assert max(degree, key=degree.get) != "bridge"  # degree centrality would rank it differently
