"""Random small maps for the planner's tests, and the oracles' steps on them (shared by the routing, arrival, policy
and map tests): a generated map with a catalog of fractional costs, each actor's steps from the map's geometry
(``oracle_graph``), the cheapest costs and the brute-force play over them, and starts and goals drawn far apart."""

from __future__ import annotations

import heapq
import json
import math
from collections import defaultdict
from itertools import count, pairwise

import numpy as np
from hypothesis import HealthCheck, settings
from oracle_graph import oracle_edges

import eidomap
from eidomap.model.generate import generate_map

EPS = 1e-9
CATALOG = """
[species.frac]
vmv = 0
costs = { sea = 3, meadow = 1.5, scrub = 2, forest = 2.5, marsh = 1, rocks = 2, rocky_cliff = 3.5, mountain = 3 }
road_cost = 0.5
gifts = ["teleport"]
"""
SPECIES = ["human", "horse", "marino", "oestrimio", "frac", "frac", "frac", "bird"]  # fractions most
SETTINGS = settings(max_examples=30, deadline=None,
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
    """The compiled network's cheapest step between each pair of nodes for actor ``a`` (what is checked)."""
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


def oracle_out(m, who: dict) -> dict[int, list[tuple[int, float]]]:
    """The independent graph's steps, by node index, for a unit ``who`` (species, mount, party)."""
    index = {str(x): k for k, x in enumerate(m.network.node_ids)}
    out = defaultdict(list)
    for (u, v), c in oracle_edges(m, **who).items():
        out[index[u]].append((index[v], c))
    return out


def cheapest(out, s: int) -> dict[int, float]:
    """Least PtMv from ``s`` over the oracle's steps (plain Dijkstra)."""
    dist, heap = {s: 0.0}, [(0.0, s)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, c in out[u]:
            if d + c < dist.get(v, np.inf):
                dist[v] = d + c
                heapq.heappush(heap, (d + c, v))
    return dist


def brute_force(out, s: int, budgets, carry: bool):
    """First turn each node is entered, and the least cost of entering it then."""
    first: dict[int, int] = {s: 0}
    cost_at: dict[int, float] = {s: 0.0}
    starts = {(s, 0.0): 0.0}  # (node, debt) at the start of a turn -> least cost
    for t, b in enumerate(budgets, start=1):
        entered, starts = turn_of(out, starts, b, carry)
        for v, c in entered.items():
            if v not in first:
                first[v], cost_at[v] = t, c
    return first, cost_at


def turn_of(out, starts: dict, b: float, carry: bool) -> tuple[dict[int, float], dict]:
    """A turn of :func:`brute_force` of budget ``b`` from ``starts`` ((node, debt) at its start -> least cost): the
    least cost of entering each node entered in it, and the next turn's starts.

    The states (node, points left, debt) are taken cheapest first (Dijkstra's order over the states: the costs are
    never negative), so each is expanded once, at its least cost; taken in any order, a state made cheaper later
    is expanded again with all its steps (2.4 times per state on the routing tests' maps)."""
    best: dict[tuple, float] = {}
    heap: list = []
    tie = count()
    push, pop, inf = heapq.heappush, heapq.heappop, math.inf  # (a Python loop per state: names looked up once)

    for (u, d), cost in starts.items():
        pay = min(d, b)
        state = (u, round(b - pay, 9), round(d - pay, 9))
        if cost < best.get(state, inf) - EPS:
            best[state] = cost
            push(heap, (cost, next(tie), state))
    entered: dict[int, float] = {}
    while heap:
        cost, _, state = pop(heap)
        u, left, debt = state
        if cost > best[state] or debt > EPS:  # (a cheaper way to it came after this one was queued)
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
            to = cost + c
            if to < entered.get(v, inf):
                entered[v] = to
            if to < best.get(nxt, inf) - EPS:
                best[nxt] = to
                push(heap, (to, next(tie), nxt))
    after: dict = {}
    for (u, _, debt), cost in best.items():
        after[u, debt] = min(cost, after.get((u, debt), np.inf))
    return entered, after


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


UNITS = [{"species": "frac"}, {"species": "human"}, {"species": "oestrimio"}, {"species": "marino"},
         {"species": "human", "mount": "horse"}, {"species": "human", "party": ("cow",)},
         {"species": "frac", "party": ("human", "dog")}, {"species": "bird"}]


def far_apart(m, out, s: int, choose) -> int:
    """A goal among the Eidos farthest from ``s`` (the dearest quarter of those it reaches), or any Eido."""
    n = len(m.eido_ids)
    dist = cheapest(out, s)
    reached = sorted((d, v) for v, d in dist.items() if v < n and v != s)
    pool = [v for _, v in reached[3 * len(reached) // 4:]] or list(range(n))
    return pool[choose(len(pool))]


# -- the tie rule (docs/rules.md, "Ties"), by listing every route as good -------------------------------------------
#: Most routes a tie oracle lists before it gives up (the case is then left out: ``None``).
MANY = 20_000


class TooMany(Exception):
    """More routes as good than :data:`MANY`."""


def _reversed(out) -> dict[int, list[tuple[int, float]]]:
    back = defaultdict(list)
    for u, steps in out.items():
        for v, c in steps:
            back[v].append((u, c))
    return back


def rule_choice(routes: list[list[int]]) -> list[int]:
    """The tie rule, as docs/rules.md states it, over node sequences: the fewest steps, then, read back from the
    goal, the least node at the first difference."""
    return min(routes, key=lambda r: (len(r), r[::-1]))


def own_threshold(costs: list[float]) -> int:
    """A route's own arrival threshold under the debt rule: the least budget with which one turn walks the steps
    of ``costs`` into its last node (docs/rules.md: the route has arrived by turn k when its first k budgets add up
    to it)."""
    return next(b for b in count() if arrival(costs, [b], True) is not None)


def least_threshold(out, s: int, g: int) -> int | None:
    """The goal's arrival threshold under the debt rule: the least budget with which one turn of the brute force
    enters ``g`` by any route (0 when it starts there); None when ``g`` is not reached."""
    if g not in cheapest(out, s):
        return None
    return 0 if s == g else next(b for b in count() if brute_force(out, s, [b], True)[0].get(g) == 1)


def tie_rule_route(out, s: int, g: int) -> list[int] | None:
    """The nodes of the route the tie rule takes, under the debt rule without rolls, of the routes that arrive
    soonest whatever the rolls (their own threshold the goal's: :func:`own_threshold`, :func:`least_threshold`)
    and, of those, cost least -- each listed over the oracle's steps: no node twice, ``g`` only at the end; None
    when ``g`` is not reached or the routes are too many to list."""
    theta = least_threshold(out, s, g)
    if theta is None or s == g:
        return None if theta is None else [s]
    step = {(u, v): c for u, steps in out.items() for v, c in steps}
    before = defaultdict(list)  # (a way to the nodes with a step into g: a route pays at most theta before its last)
    for (u, v), c in step.items():
        before[v if v != g else -1].append((u, c if v != g else 0.0))
    to_last = cheapest(before, -1)
    routes: list[tuple[float, list[int]]] = []

    def on(route, spent):
        for v, c in out[route[-1]]:
            if v == g:
                if own_threshold([step[e] for e in pairwise([*route, g])]) == theta:
                    routes.append((spent + c, [*route, g]))
                    if len(routes) > MANY:
                        raise TooMany
            elif v not in route and spent + c + to_last.get(v, np.inf) <= theta + EPS:
                on([*route, v], spent + c)

    try:
        on([s], 0.0)
    except TooMany:
        return None
    least = min(c for c, _ in routes)
    return rule_choice([r for c, r in routes if c <= least + EPS])


def arrival(costs: list[float], budgets, carry: bool, debt: float = 0.0) -> int | None:
    """The turn a route of step ``costs`` enters its last node, every step taken as early as the rules allow
    (docs/rules.md: the debt, or under forbid a step only when the points left cover it), after paying a ``debt``
    carried in; None if never."""
    if not costs:
        return 0
    k = 0
    for t, b in enumerate(budgets, start=1):
        pay = min(debt, b)
        debt, left = debt - pay, b - pay
        while k < len(costs) and debt <= EPS:
            c = costs[k]
            if c <= EPS or left + EPS >= c:
                left = max(left - c, 0.0)
            elif carry and left > EPS:
                debt, left = c - left, 0.0
            else:
                break
            k += 1
            if k == len(costs):
                return t
    return None


def tie_rule_route_with_rolls(out, s: int, g: int, budgets, carry: bool) -> list[int] | None:
    """The nodes of the route the tie rule takes of those that arrive soonest with these ``budgets`` and, of
    those, cost least (each route no dearer than the least such cost listed, no node twice); None when ``g`` is
    not reached within them or the routes are too many to list."""
    first, cost = brute_force(out, s, budgets, carry)
    if g not in first or s == g:
        return None if g not in first else [s]
    soonest, least = first[g], cost[g]
    to_goal = cheapest(_reversed(out), g)
    step = {(u, v): c for u, steps in out.items() for v, c in steps}
    routes: list[list[int]] = []

    def on(route, spent):
        u = route[-1]
        if u == g:
            if abs(spent - least) <= EPS and arrival([step[e] for e in pairwise(route)], budgets, carry) == soonest:
                routes.append(route)
                if len(routes) > MANY:
                    raise TooMany
            return
        for v, c in out[u]:
            if v not in route and spent + c + to_goal.get(v, np.inf) <= least + EPS:
                on([*route, v], spent + c)

    try:
        on([s], 0.0)
    except TooMany:
        return None
    return rule_choice(routes)
