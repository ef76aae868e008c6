"""The tie rule (docs/rules.md, "Ties"): of equally cheap routes, the fewest steps, then, read back from the goal,
the node first in the map's order (then the kind of step listed first) -- whichever search gave the costs.

Against a brute force that lists every cheapest route on random networks (parallel edges of every kind, free
steps, steps that cannot be taken), on a board of equal Eidos where ties are certain, and on the golden tie
questions the planner page's tests read (tests/data/planner/ties.json)."""

from __future__ import annotations

import heapq
import json
from collections import defaultdict

import numpy as np
import pytest
from d20_oracle import tie_rule_plan
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from planner_golden import OUT, tie_maps
from random_networks import cost_table, network
from small_maps import oracle_out, tie_rule_route, tie_rule_route_with_rolls

from eidomap.answers.routing import route
from eidomap.base import settings as tuning
from eidomap.base.settings import twin
from eidomap.rules.d20.grid import Mover
from eidomap.rules.eido import actor
from eidomap.search.dial import dial_labels
from eidomap.search.ties import cheapest_path
from eidomap.search.weighted import EPS, dijkstra, whole_costs

#: Most routes the brute force lists (a case with more is left out).
MANY = 20_000


def _every_cheapest_route(net, w: np.ndarray, s: int, g: int) -> list[list[int]] | None:
    """Every cheapest route from ``s`` to ``g`` as its edges (no node twice), from a plain Dijkstra of its own."""
    src, dst = net.src.tolist(), net.dst.tolist()
    dist, heap = {s: 0.0}, [(0.0, s)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for e in range(net.indptr[u], net.indptr[u + 1]):
            if np.isfinite(w[e]) and d + w[e] < dist.get(dst[e], np.inf):
                dist[dst[e]] = d + w[e]
                heapq.heappush(heap, (d + w[e], dst[e]))
    if g not in dist:
        return []
    into = defaultdict(list)
    for e, (u, v) in enumerate(zip(src, dst, strict=True)):
        if u in dist and v in dist and dist[u] + w[e] <= dist[v] + EPS:
            into[v].append(e)
    routes: list[list[int]] = []

    def back(edges, nodes):
        if nodes[-1] == s:
            routes.append(edges[::-1])
            return len(routes) <= MANY
        return all(back([*edges, e], [*nodes, src[e]]) for e in into[nodes[-1]] if src[e] not in nodes)

    return routes if back([], [g]) else None


def _rule(net, routes: list[list[int]]) -> list[int]:
    """The rule as docs/rules.md states it: the fewest steps; read back from the goal, the least node at the first
    difference; the same nodes, the least edge (the kind listed first)."""
    return min(routes, key=lambda r: (len(r), [int(net.src[e]) for e in r[::-1]], r[::-1]))


@settings(max_examples=150, deadline=None)
@given(data=st.data(), jit=st.booleans())
def test_the_cheapest_route_is_the_tie_rules_whichever_search_gave_the_costs(data, jit):
    net = network(data.draw, 2)
    table = cost_table(data.draw, 2, st.sampled_from([0.0, 1.0, 1.0, 1.0, 2.0, np.inf]))  # ties, free steps
    s, g = (data.draw(st.integers(0, net.n_nodes - 1)) for _ in range(2))
    w = net.weights_of(slice(None), table)
    scipy = dijkstra(net, table, s, compiled=False)
    near = net.near  # Dial's buckets, compiled or not, over the renumbered CSR
    dial, _ = twin(dial_labels, 0, jit)(near.indptr, near.dst, near.codes, whole_costs(table), int(near.rank[s]),
                                        1 << 62, near.order)
    assert np.array_equal(scipy, dial)
    routes = _every_cheapest_route(net, w, s, g)
    assume(routes is not None)
    if not routes:
        assert not np.isfinite(scipy[g])
        return
    want = _rule(net, routes)
    assert cheapest_path(net, table, scipy, s, g) == want
    assert cheapest_path(net, w, dial, s, g) == want  # the edge weights or the table: the same route
    with pytest.MonkeyPatch.context() as mp:  # before SciPy's csgraph is imported: the levels found without it
        mp.setattr(tuning, "scipy_graphs_loaded", lambda: False)
        assert cheapest_path(net, table, scipy, s, g) == want


def _board_route(m, monkeypatch, dial: bool, *args, **kw):
    if dial:  # past the bound, Dial's buckets answer every search (compiled, over the renumbered CSR)
        monkeypatch.setattr(tuning, "DIAL_ABOVE", -1)
    else:
        monkeypatch.setattr(tuning, "DIAL_ABOVE", 1 << 62)
    return [s.node for s in route(m, *args, **kw).path]


@pytest.mark.parametrize("dial", [False, True])
def test_of_equally_cheap_routes_across_a_board_the_one_read_back_from_the_first_eido(make_map, monkeypatch, dial):
    """Every way across a board of meadows with the fewest steps is as cheap; read back from the far corner, each
    step comes from the Eido listed first (the row above before the square to the left): along the top row, then
    down the last column -- with SciPy's Dijkstra or Dial's buckets (each settles ties in its own order)."""
    from conftest import eido, square

    m = make_map([eido(f"r{r}c{c}", "meadow", square(c, -r)) for r in range(4) for c in range(5)])
    want = ["r0c0", "r0c1", "r0c2", "r0c3", "r0c4", "r1c4", "r2c4", "r3c4"]
    assert _board_route(m, monkeypatch, dial, "r0c0", "r3c4", "human") == want
    assert _board_route(m, monkeypatch, dial, "r3c4", "r0c0", "human") == want[::-1]


def test_of_equally_cheap_routes_the_fewest_steps(make_map):
    """A scrub Eido (2 PtMv for a human) is as dear as two meadows: from ``a`` to ``c`` across the scrub ``s`` or
    round it by ``x`` and ``y``, both 3 PtMv; the route of fewer steps, with or without rolls (SciPy's heap gave
    the other)."""
    from conftest import eido

    def rect(x0, y0, x1, y1):
        return [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]

    m = make_map([eido("a", "meadow", rect(0, 0, 1, 1)), eido("s", "scrub", rect(1, 0, 2, 1)),
                  eido("c", "meadow", rect(2, 0, 3, 1)), eido("x", "meadow", rect(0, -1, 1.5, 0)),
                  eido("y", "meadow", rect(1.5, -1, 3, 0))])
    assert [s.node for s in route(m, "a", "c", "human").path] == ["a", "s", "c"]
    for partial, rolls in (("carry", [1, 1, 1, 1]), ("forbid", [2, 2])):  # (turn 3, turn 2: either way)
        assert [s.node for s in route(m, "a", "c", "human", rolls=rolls, partial=partial).path] == ["a", "s", "c"]


# -- the golden tie questions the page's tests read ----------------------------------------------------------------
def test_the_golden_tie_answers_follow_the_rule(tmp_path):
    """tests/data/planner/ties.json: each route eidomap answers there (and the page must) is the one the rule
    takes of every route as good, listed by the brute forces of tests/small_maps.py and tests/d20_oracle.py."""
    golden = json.loads((OUT / "ties.json").read_text())
    maps, grids = tie_maps(tmp_path)
    checked = 0
    for q in golden["questions"]:
        want = q["want"]
        if "grid" in q:
            rows = grids[q["grid"]]
            o = q["o"]
            if o["mode"] == "run":  # (the brute force lists step-by-step rounds only: a run is checked by its rounds
                continue  # and squares in tests/rules/d20/test_grid.py)
            plan = tie_rule_plan(rows, tuple(q["from"]), tuple(q["to"]), Mover(o["speed"], o["mode"]).budget)
            assert plan is not None
            assert [list(sq) for sq in plan] == [[int(x) for x in sq.split(",")] for sq in want["path"]], q
            checked += 1
            continue
        m = maps[q["map"]]
        o = q["o"]
        who = {"species": o.get("species", "human")}
        out = oracle_out(m, who)
        ids = [str(x) for x in m.network.node_ids]
        s, g = ids.index(q["from"]), ids.index(q["to"])
        carry = o.get("partial", "carry") == "carry"
        if "rolls" in o and want["arrival_turn"] is not None:
            a = actor(m.catalog, who["species"])
            nodes = tie_rule_route_with_rolls(out, s, g, [max(r + a.vmv, 0) for r in o["rolls"]], carry)
        elif carry:  # (rolls that run out first: the route drawn without rolls, as far as they go)
            nodes = tie_rule_route(out, s, g)
        else:  # (under forbid without rolls the policy's likeliest course, its legs the cheapest routes' rule's;
            continue  # rolls that run out first: as far as they go, then on)
        assert nodes is not None
        assert [ids[k] for k in nodes] == [step["node"] for step in want["path"]], q
        checked += 1
    assert checked >= 30
