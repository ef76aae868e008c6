"""Turn by turn: the step rule, the multi-turn label search, itineraries.

The step rule (docs/rules.md, "the contract"): every move is a step into a
node at a cost ``c >= 0``.  A step with ``c > 0`` starts when no debt is owed
and either the points left cover it, or -- under the debt rule (``carry``) --
some points are left: they are all spent and the rest is owed, paid first out
of the next rolls.  Under ``forbid`` a step starts only when the points left
cover it.  Free steps can be taken at any time without debt.  Unused points
are lost at the end of each turn.

The multi-turn search labels each node with the earliest moment the actor can
be *free* there (no debt): ``(turn, points left)``, earlier turn first, then
more points.  That order is total and every step is monotone in it, so one
label per node and a Dijkstra-style search are exact, for both rules and any
sequence of budgets (:func:`earliest_labels`, through the bucket queue of
:mod:`.buckets`).  This module does not import numba:
:mod:`eidomap.base.compiled` compiles the same functions and
:func:`eidomap.base.settings.twin` picks which runs.

>>> budgets = [3.0, 4.0]
>>> advance(1, 3.0, 5.0, budgets, False, True)   # carry: start now, debt 2
(1, 2, 2.0)
>>> advance(1, 3.0, 5.0, budgets, False, False)  # forbid: wait for turn 2
(-1, -1, 0.0)
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from eidomap.base.modes import Partial
from eidomap.base.settings import twin
from eidomap.search.buckets import JIT_HELPERS as QUEUE_HELPERS
from eidomap.search.buckets import LAST_MAJOR, LAST_MINOR, SIZE, double_bits, grow, has_room, new_queue, pop, push, wide
from eidomap.search.forbid import forbid_costs, forbid_labels, steady_budget
from eidomap.search.weighted import EPS

if TYPE_CHECKING:
    from eidomap.model.network import CostTable, Network

def payable(w: np.ndarray, largest_budget: float, carry: bool) -> np.ndarray:
    """The edge weights a plan may use under the step rule.

    Under ``forbid`` a step starts only when the turn's points cover it, so a
    step dearer than the largest budget the dice can give never starts: it is
    left out (``inf``).  Under the debt rule any step can start.

    >>> payable(np.array([3.0, 10.0, np.inf]), 6.0, carry=False).tolist()
    [3.0, inf, inf]
    """
    return w if carry else np.where(w > largest_budget + EPS, np.inf, w)


def budget_at(budgets: np.ndarray, cycle: bool, t: int) -> float:
    """Budget of turn ``t`` (1-based); -1 past the last turn of a finite sequence."""
    n = len(budgets)
    if n == 0:
        return -1.0
    if t <= n:
        return budgets[t - 1]
    if cycle:
        return budgets[(t - 1) % n]
    return -1.0


def can_start(left: float, c: float, carry: bool) -> bool:
    """The step rule: a step starts when it is free, when the points left cover
    it, or -- under the debt rule -- when some points are left (the rest is owed).
    The caller makes sure no debt is owed."""
    return c <= EPS or left + EPS >= c or (carry and left > EPS)


def advance(t: int, p: float, c: float, budgets: np.ndarray, cycle: bool, carry: bool) -> tuple[int, int, float]:
    """Take one step of cost ``c``, free at turn ``t`` with ``p`` points left.

    Returns ``(start, end, left)``: the turn the step starts (the actor is in
    the new node from then), the turn its cost is paid off and the points left
    then.  ``start == -1`` when the step never starts within the budgets,
    ``end == -1`` when it starts but is never paid off.  With ``cycle``, the
    whole cycles a debt outlasts are skipped at once: the time does not grow
    with a cost (a debt of 1,000,000 paid 1 PtMv a turn).
    """
    if c <= EPS:
        return t, t, p
    if p + EPS >= c:
        return t, t, max(p - c, 0.0)
    n = len(budgets)
    start = -1
    debt = c
    if can_start(p, c, carry):  # a partial step: start now, owe the rest
        start = t
        debt = c - p
    idle = 0
    while True:
        t += 1
        b = budget_at(budgets, cycle, t)
        if b < 0:
            return start, -1, 0.0
        if start < 0:
            if b + EPS >= c:
                return t, t, max(b - c, 0.0)
            if can_start(b, c, carry):
                start = t
                debt = c - b
                idle = 0
                continue
        elif b + EPS >= debt:
            return start, t, max(b - debt, 0.0)
        elif b > EPS:
            debt -= b
            idle = 0
            if cycle and t % n == 0:  # a cycle ends: skip the whole cycles that cannot pay the debt off
                whole = 0.0
                for k in range(n):
                    whole += budgets[k]
                skip = int((debt - EPS) // whole) - 1  # after them more than a cycle is owed: no earlier end
                if skip > 0:
                    t += skip * n
                    debt -= skip * whole
            continue
        idle += 1
        if cycle and idle > n:  # a whole cycle of budgets without progress
            return start, -1, 0.0


def _before(t1: int, p1: float, t2: int, p2: float) -> bool:
    """Label ``(t1, p1)`` is strictly earlier than ``(t2, p2)``."""
    return t1 < t2 or (t1 == t2 and p1 > p2 + EPS)


def _small_keys(w: np.ndarray, budgets: np.ndarray, cycle: bool, n: int) -> bool:
    """Whether every label's key can be one small whole number, its turn times (the largest budget + 1) plus
    the points it has spent of the largest budget: every cost and budget whole, and no turn the search can
    reach (each step waits a cycle at most and pays its cost off a cycle's budgets at a time) past 2**62."""
    dearest = 0.0
    for c in w:  # one pass, no temporary arrays: this check is a tenth of a compiled search's time otherwise
        if c == np.inf:
            continue
        if c != np.floor(c):  # NaN too
            return False
        dearest = max(dearest, c)
    total = 0.0
    for b in budgets:
        if b != np.floor(b):
            return False
        total += b
    turns = len(budgets) + 1.0
    if cycle:
        turns = 1.0 + n * len(budgets) * (dearest / max(total, 1.0) + 2.0)
    return turns * (_largest(budgets) + 1.0) < 2.0**62


def _largest(budgets: np.ndarray) -> float:
    """The largest of ``budgets`` (not empty): a loop, where ``budgets.max()`` takes half a second to compile."""
    top = budgets[0]
    for b in budgets:
        top = max(top, b)
    return top


def earliest_labels(indptr: np.ndarray, dst: np.ndarray, w: np.ndarray, source: int, budgets: np.ndarray, cycle: bool,
                    carry: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Earliest arrival and earliest free label of every node (multi-turn Dijkstra).

    Returns ``(arrive, turn, left, pred)``: the turn the actor can first be in
    each node (debt or not), the turn it can first be there free of debt, the
    most points left then, and the edge used to get there (-1 for none).  The
    source has turn 0.  Unreachable nodes have -1.

    The labels go through the bucket queue of :mod:`.buckets` under the key
    (turn, points spent of the largest budget).  When the costs and budgets
    are whole numbers (:func:`_small_keys`) that key is one small number and
    the queue's ring holds a turn's labels and the next turn's; otherwise
    (fractions of a PtMv) the key is the turn and the bit pattern of the
    points spent, and the queue's heap orders the labels exactly, as a
    comparison queue does.
    """
    n = len(indptr) - 1
    arrive = np.full(n, -1, np.int64)
    turn = np.full(n, -1, np.int64)
    left = np.zeros(n)
    pred = np.full(n, -1, np.int64)
    done = np.zeros(n, np.bool_)
    b1 = budget_at(budgets, cycle, 1)
    arrive[source] = 0
    if b1 < 0:
        turn[source] = 0
        return arrive, turn, left, pred
    turn[source] = 1
    left[source] = b1
    top = _largest(budgets)
    small = _small_keys(w, budgets, cycle, n)
    width = int(top) + 1 if small else 1
    # with small keys each node's queued key stands for its label: one array read a step, not two
    key = np.full(n if small else 0, np.iinfo(np.int64).max, np.int64)
    pool, queue, head = new_queue(n + 1, 2 * width)
    if small:
        key[source] = width + int(top - b1)
        push(pool, queue, head, 0, key[source], source)
    else:
        push(pool, queue, head, 1, double_bits(top - b1), source)
    while queue[SIZE] > 0:
        u = pop(pool, queue, head)
        if done[u]:
            continue
        t, p = turn[u], left[u]
        if small:
            if queue[LAST_MINOR] != key[u]:
                continue
        elif queue[LAST_MAJOR] != t or queue[LAST_MINOR] != double_bits(top - p):
            continue
        done[u] = True
        if not has_room(pool, queue, indptr[u + 1] - indptr[u]):
            pool = grow(pool, queue, indptr[u + 1] - indptr[u])
        for e in range(indptr[u], indptr[u + 1]):
            c = w[e]
            v = wide(dst[e])
            if done[v] or not c < np.inf:
                continue
            s, f, rest = advance(t, p, c, budgets, cycle, carry)
            if carry and s >= 0 and (arrive[v] < 0 or s < arrive[v]):
                arrive[v] = s
            if f < 0:
                continue
            if small:
                k = f * width + int(top - rest)
                if k >= key[v]:
                    continue
                key[v] = k
                push(pool, queue, head, 0, k, v)
            elif turn[v] < 0 or _before(f, rest, turn[v], left[v]):
                push(pool, queue, head, f, double_bits(top - rest), v)
            else:
                continue
            turn[v] = f
            left[v] = rest
            pred[v] = e
    turn[source] = 0
    if not carry:  # a step starts only in the turn it is paid off: the first arrival is the first free label
        arrive = turn.copy()  # (no slice assigned: see eidomap.base.compiled)
    return arrive, turn, left, pred


def soonest_route(network: Network, w: np.ndarray, source: int, goal: int, budgets: np.ndarray,
                  carry: bool, debt: float = 0.0) -> tuple[list[int] | None, int]:
    """The route that arrives soonest and, among those, costs least; of those, the tie rule's
    (:mod:`eidomap.search.ties`): the fewest steps, then, read back from the goal, the least node.

    A multi-criteria label search.  A label is a way to a node, free of debt at (turn, points left), with its
    cost and its steps; labels are popped in the order of (turn, -points left, cost, steps, node).  One is
    dropped when an earlier label of its node costs less, or as much with fewer steps: every way on from it is
    no sooner, dearer or longer.  Of labels the same in all five, popped together, the one whose chain back
    from the node comes first under the rule is kept (:func:`_ahead`), as it is of the ways into the goal that
    arrive as soon, cost as much and take as many steps.  The search stops once the labels are later than the
    best arrival turn found, so the answer is exact.

    A ``debt`` carried into the first turn is paid first, out of the budgets: the search starts from the label
    where it is paid off (a step with no debt owed starts only then; :func:`advance` pays it as a step's).

    Returns ``(edges, arrival_turn)`` with the list of edge indices, or
    ``(None, -1)`` when the goal is not reached within the budgets.
    """
    indptr, dst = network.indptr, network.dst
    b1 = budget_at(budgets, False, 1)
    if source == goal:
        return [], 0
    if b1 < 0:
        return None, -1
    _, t0, left0 = advance(1, b1, debt, budgets, False, True)  # (the debt is paid as it is owed, under either rule)
    if t0 < 0:
        return None, -1
    kept: dict[int, list[tuple[float, int]]] = {}  # per node: the (cost, steps) of the labels kept
    node, parent = [source], [(-1, -1)]  # per label: its node, and (parent label, edge into it)
    heap = [(t0, -left0, 0.0, 0, source, 0)]
    best = None  # (arrival, cost, steps, label, edge)
    while heap:
        t, q, cost, steps, u, lab = heapq.heappop(heap)
        if best is not None and t > best[0]:
            break
        while heap and heap[0][:5] == (t, q, cost, steps, u):  # the same label by another way: the rule's kept
            other = heapq.heappop(heap)[5]
            if _ahead(node, parent, *parent[other], *parent[lab]):
                lab = other
        if _beaten(kept.get(u, ()), cost, steps):
            continue
        kept.setdefault(u, []).append((cost, steps))
        for e in range(indptr[u], indptr[u + 1]):
            c = w[e]
            v = int(dst[e])
            if not c < np.inf:
                continue
            s, f, rest = advance(t, -q, c, budgets, False, carry)
            if s < 0:
                continue
            if v == goal:
                way = (s, cost + c, steps + 1, lab, e)
                if best is None or _sooner(node, parent, way, best):
                    best = way
            elif f >= 0 and not _beaten(kept.get(v, ()), cost + c, steps + 1):
                node.append(v)
                parent.append((lab, e))
                heapq.heappush(heap, (f, -rest, cost + c, steps + 1, v, len(node) - 1))
    if best is None:
        return None, -1
    edges = [best[4]]
    lab = best[3]
    while lab > 0:
        lab, e = parent[lab]
        edges.append(e)
    return edges[::-1], best[0]


def _sooner(node: list[int], parent: list[tuple[int, int]], way: tuple, best: tuple) -> bool:
    """Whether ``way`` into the goal, ``(arrival, cost, steps, label, edge)``, beats ``best``: it arrives sooner,
    or as soon and cheaper (by more than :data:`EPS`), or as cheap in fewer steps, or comes first under the rule."""
    if way[0] != best[0]:
        return way[0] < best[0]
    if abs(way[1] - best[1]) > EPS:
        return way[1] < best[1]
    if way[2] != best[2]:
        return way[2] < best[2]
    return _ahead(node, parent, *way[3:], *best[3:])


def _beaten(kept: Iterable[tuple[float, int]], cost: float, steps: int) -> bool:
    """Whether a label of ``cost`` and ``steps`` is beaten by one its node kept before it (no later): cheaper,
    or as cheap in fewer steps."""
    return any(k < cost - EPS or (k <= cost + EPS and n < steps) for k, n in kept)


def _ahead(node: list[int], parent: list[tuple[int, int]], a: int, ea: int, b: int, eb: int) -> bool:
    """Whether the way of label ``a`` then edge ``ea`` comes before that of ``b`` then ``eb`` (both into one
    node, as many steps) under the tie rule: read back, the first node where they differ is the lesser; the
    same nodes all the way, the first edge where they differ (the kind listed first)."""
    edge = 0
    while True:
        if not edge and ea != eb:
            edge = -1 if ea < eb else 1
        if a == b:
            return edge < 0
        if node[a] != node[b]:
            return node[a] < node[b]
        (a, ea), (b, eb) = parent[a], parent[b]


@dataclass
class TurnLog:
    """One turn of an itinerary: the steps started in it and the points' fate."""

    turn: int
    roll: int
    budget: float
    steps: list[int]
    spent: float
    lost: float
    debt_after: float
    end: int  # index of the step the actor stands in at the end (-1: start)


def simulate(costs: list[float], rolls: list[int], budgets: np.ndarray,
             carry: bool, debt: float = 0.0) -> tuple[list[TurnLog], int, int]:
    """Walk a route step by step under the rolls, as early as the rule allows.

    ``debt``: owed when the first turn begins (for the start itself, not crossed yet), paid first.

    Returns ``(turns, arrival, crossed)``: a :class:`TurnLog` per turn played,
    the turn the last step started (-1 if never) and the turn it was paid off
    (with no step, the turn the debt carried in is paid off).
    """
    turns: list[TurnLog] = []
    k = 0  # next step
    debt = float(debt)
    arrival = 0 if not costs else -1
    crossed = 0 if not costs and debt <= EPS else -1
    for t, (roll, budget) in enumerate(zip(rolls, budgets, strict=True), start=1):
        if k == len(costs) and debt <= EPS:
            break
        pay = min(debt, budget)
        debt -= pay
        left = budget - pay
        taken = []
        while k < len(costs) and debt <= EPS:
            c = costs[k]
            if not can_start(left, c, carry):
                break
            spend = min(c, left)
            debt = max(c - spend, 0.0)
            left = max(left - spend, 0.0)
            taken.append(k)
            k += 1
            if k == len(costs):
                arrival = t
        if k == len(costs) and debt <= EPS and crossed < 0:
            crossed = t
        turns.append(TurnLog(t, roll, budget, taken, budget - left, left, debt, k - 1))
    return turns, arrival, crossed


def earliest(network: Network, w: np.ndarray | CostTable, source: int, budgets: npt.ArrayLike,
             partial: Partial | str = Partial.CARRY, cycle: bool = False,
             compiled: bool | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`earliest_labels` on a :class:`~eidomap.model.network.Network`.

    ``w`` are the edge weights, or an actor's :class:`~eidomap.model.network.CostTable`
    (gathered straight into the search's edge order).  ``budgets`` are the
    budgets of turns 1, 2, ... (repeated when ``cycle``).  ``compiled`` forces
    (True) or avoids (False) the numba twin; by default
    :func:`~eidomap.base.settings.twin` picks it by the network's edges.  The
    compiled twin runs over the renumbered CSR
    (:attr:`~eidomap.model.network.Network.near`, built on first use).  Under
    ``forbid`` with one whole budget every turn and whole costs (the common
    case: a fixed speed) :func:`~eidomap.search.forbid.forbid_labels` answers,
    with the same labels: each step is one addition to a whole-number key.
    """
    from eidomap.model.network import CostTable

    carry = Partial.checked(partial, "partial").carry
    if not isinstance(w, CostTable) and np.shape(w) != (network.n_edges,):  # (the compiled searches read unchecked)
        raise ValueError(f"w: per-edge weights of shape ({network.n_edges},) or a CostTable, got shape {np.shape(w)}")
    budgets = np.asarray(budgets, dtype=np.float64)
    steady = steady_budget(budgets, bool(cycle), carry)
    table = forbid_costs(np.asarray(w, np.float64).ravel(), steady[0]) if steady is not None else None
    if steady is not None and table is not None:
        return _forbid(network, w, table, int(source), *steady, compiled)
    fn = twin(earliest_labels, network.n_edges, compiled)
    if fn is earliest_labels:
        weights = network.edge_weights(w) if isinstance(w, CostTable) else np.asarray(w, np.float64)
        return fn(network.indptr, network.dst, weights, int(source), budgets, bool(cycle), carry)
    # compiled: over the renumbered CSR, where a node's neighbours are near it in memory (half the time on a big
    # map), the answer read back in the network's numbering
    near = network.near
    weights = w.array.ravel()[near.codes] if isinstance(w, CostTable) else np.asarray(w, np.float64)[near.edges]
    labels = fn(near.indptr, near.dst, weights, int(near.rank[source]), budgets, bool(cycle), carry)
    arrive, turn, left, pred = (x[near.rank] for x in labels)
    came = pred >= 0  # (a network without edges has none to index)
    pred[came] = near.edges[pred[came]]
    return arrive, turn, left, pred


def _forbid(network: Network, w: np.ndarray | CostTable, table: np.ndarray, source: int, budget: int, last: int,
            compiled: bool | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`earliest` through :func:`~eidomap.search.forbid.forbid_labels`, ``table`` the whole costs of the
    cost table or edge weights ``w`` (:func:`~eidomap.search.forbid.forbid_costs`)."""
    from eidomap.model.network import CostTable

    fn = twin(forbid_labels, network.n_edges, compiled)
    by_table = isinstance(w, CostTable)  # edge e costs table[code of e]; per-edge weights: table[e]
    if fn is forbid_labels:
        nodes, edges = np.arange(network.n_nodes), np.arange(network.n_edges)
        turn, left, pred = fn(network.indptr, network.dst, network.codes if by_table else edges, table, source,
                              budget, last, nodes, edges)
    else:  # compiled: over the renumbered CSR (as earliest_labels), answering in the network's numbering
        near = network.near
        turn, left, pred = fn(near.indptr, near.dst, near.codes if by_table else near.edges, table,
                              int(near.rank[source]), budget, last, near.order, near.edges)
    return turn.copy(), turn, left, pred

#: The functions :func:`earliest_labels` calls (:func:`eidomap.base.compiled.compiled` registers them).
JIT_HELPERS = (*QUEUE_HELPERS, budget_at, can_start, advance, _before, _small_keys, _largest)
