"""Optimal roll-by-roll play when a step must fit in the turn (``--partial forbid``).

Under ``forbid`` with dice, the best way on depends on the rolls: with a high
roll a long stretch fits, with a low one it may be better to stop short and
wait.  At the start of each turn the actor is free at some node ``u``; with a
budget ``b`` it can end the turn anywhere within ``b`` PtMv of ``u`` (or arrive
at the goal on the way).  The policy that minimises the expected number of
turns satisfies

    E(u) = 1 + sum_b P(b) * min(E(u), min_{v within b of u} E(v)),   E(goal) = 0

and, since ``E(u)`` depends only on nodes with a smaller value, the values can
be settled in increasing order like Dijkstra's distances (:func:`forbid_policy`).
The arrival distribution of that policy follows by pushing probability mass
through it turn by turn.  :func:`forbid_reach` gives, for many goals at once,
the best probability of arriving within K turns (a finite-horizon
dynamic programme).  Both are exact and meant for maps up to a few thousand
nodes.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from eidomap.base.errors import RequestError
from eidomap.base.settings import twin
from eidomap.search.arrival import counted
from eidomap.search.buckets import JIT_HELPERS as RING_HELPERS
from eidomap.search.buckets import (
    LAST_MAJOR,
    SIZE,
    bits_double,
    double_bits,
    least_key,
    link,
    new_queue,
    new_ring,
    pop,
    push,
    take,
    unlink,
)
from eidomap.search.forbid import forbid_costs
from eidomap.search.weighted import EPS

if TYPE_CHECKING:
    from eidomap.model.network import Network

#: What :func:`within_turn_pairs` gives: ``(u, v, d)``.
_Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]

#: Largest graph the exact policy computations accept.
MAX_POLICY_NODES = 20_000
#: Most pairs of nodes within one turn's reach the policy holds (16 bytes each), and most cells (a node by a budget,
#: or by a target) of its tables: a large VMv or a wide die must not make the work grow past the map's.
MAX_POLICY_PAIRS = 10_000_000
MAX_POLICY_CELLS = 20_000_000
_CHUNK = 256
#: The largest turn (PtMv) whose pairs :func:`ball_pairs` finds over Dial's buckets: each of its searches scans a
#: bucket a key up to it, so that the scans stay within a few hundred steps a node whatever the dice.
RING_BUDGET = 255
_WHY = "give rolls=..., or use the debt rule (partial='carry')"


def within_turn_pairs(network: Network, w: np.ndarray, bmax: float, compiled: bool | None = None) -> _Pairs:
    """Every ``(u, v, d)`` with ``v`` within ``d <= bmax`` PtMv of ``u`` (``u`` included), ``u`` then ``v``
    ascending.

    SciPy's Dijkstra from blocks of sources; or, when the steps a turn can pay cost whole numbers and a turn's
    keys fit :data:`RING_BUDGET` buckets, past :data:`~eidomap.base.settings.COMPILE_ABOVE` edges (or with
    ``compiled`` True), the compiled twin of :func:`ball_pairs`, which visits only the nodes each ball holds
    instead of a row of the map per source.  The same pairs and costs either way.  Where a turn outlasts every
    path, the pairs are counted before SciPy's searches (:func:`_all_pairs`): past :data:`MAX_POLICY_PAIRS` the map
    is refused at once.
    """
    n = network.n_nodes
    if n > MAX_POLICY_NODES:
        raise RequestError(
            f"the exact roll-by-roll policy handles maps up to {MAX_POLICY_NODES:,} nodes (this one has {n:,}); {_WHY}")
    weights = network.pair_weights(w)
    cap = int(np.floor(bmax + EPS)) if 0 <= bmax + EPS <= RING_BUDGET else -1
    costs = forbid_costs(weights, cap) if cap >= 0 else None
    if costs is not None:  # (the compiled twin looked up only where it may run: it imports numba)
        fn = twin(ball_pairs, network.n_edges, compiled)
        if fn is not ball_pairs:
            us, vs, ds, held = fn(network.pair_indptr, network.pair_dst, costs, cap, MAX_POLICY_PAIRS)
            if held < 0:
                _refuse_pairs(bmax)
            return us[:held], vs[:held], ds[:held]
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    csr = csr_matrix((weights, network.pair_dst, network.pair_indptr), shape=(n, n))  # (Network.csr's)
    if _all_pairs(network, weights, bmax) > MAX_POLICY_PAIRS:  # (else refused after the searches up to the bound)
        _refuse_pairs(bmax)
    blocks = []
    held = 0
    for lo in range(0, n, _CHUNK):
        d = dijkstra(csr, indices=np.arange(lo, min(n, lo + _CHUNK)), limit=bmax + EPS)
        r, c = np.nonzero(np.isfinite(d))
        held += len(r)
        if held > MAX_POLICY_PAIRS:
            _refuse_pairs(bmax)
        # (nodes are at most MAX_POLICY_NODES: 16 bytes a pair, not 24)
        blocks.append(((r + lo).astype(np.int32), c.astype(np.int32), d[r, c]))
    u, v, dd = (np.concatenate(part) for part in zip(*blocks, strict=True))
    return u, v, dd


def _all_pairs(network: Network, weights: np.ndarray, bmax: float) -> int:
    """How many pairs :func:`within_turn_pairs` finds on ``network`` (its pair ``weights``), where a turn reaches
    every node a node can reach at all (-1 where that cannot be told without the searches).

    A turn of at least twice the sum of the finite pair weights outlasts every path (a path's sum, however its
    doubles round, is below that); and where each group of nodes linked by steps either way is one where each
    node reaches every other (as many strong components as weak ones), a node's pairs are its group.  A weight
    of 0 or NaN leaves it to the searches (whether SciPy takes it for a step).
    """
    finite = np.isfinite(weights)
    if not (2 * float(weights[finite].sum()) <= bmax + EPS) or (weights[finite] <= 0).any() or np.isnan(weights).any():
        return -1
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = network.n_nodes
    steps = csr_matrix((finite.astype(np.int8), network.pair_dst, network.pair_indptr), shape=(n, n), copy=True)
    steps.eliminate_zeros()  # (in place: on a copy of the network's arrays)
    groups, weak = connected_components(steps, directed=True, connection="weak")
    if connected_components(steps, directed=True, connection="strong", return_labels=False) != groups:
        return -1
    return int((np.bincount(weak).astype(np.int64) ** 2).sum())


def _refuse_pairs(bmax: float) -> None:
    raise RequestError(f"the exact roll-by-roll policy would hold more than {MAX_POLICY_PAIRS:,} pairs of"
                       f" nodes within a turn's reach ({bmax:g} PtMv) on this map; {_WHY}")


def ball_pairs(indptr: np.ndarray, dst: np.ndarray, costs: np.ndarray, cap: int,
               most: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The pairs of :func:`within_turn_pairs` when the steps cost whole numbers: a search from each source over
    Dial's buckets (:mod:`.buckets`), bounded by ``cap``.

    The graph is a CSR (``indptr``, ``dst``) of whole costs ``costs`` (-1: no step within a turn;
    :func:`~eidomap.search.forbid.forbid_costs`).  Returns ``(u, v, d, held)``: the first ``held`` entries of
    the arrays are the pairs, or ``held`` is -1 when there are more than ``most`` (the search then stops).
    Each search costs what its ball holds and the ``cap + 1`` keys it scans at most: the nodes it reached are
    listed, and their keys set back after it.  Whole costs add up exactly: the costs are SciPy's.
    """
    n = len(indptr) - 1
    head, links = new_ring(cap + 1, n)  # every node queued is within ``cap`` of the source
    key = np.full(n, -1, np.int64)
    reached = np.empty(max(n, 1), np.int64)
    room = min(most, 16 * n) + 1
    us = np.empty(room, np.int32)
    vs = np.empty(room, np.int32)
    ds = np.empty(room)
    held = 0
    for s in range(n):
        key[s] = 0
        link(head, links, s, 0)
        reached[0] = s
        got = 1
        queued = 1
        k = 0
        while queued > 0:
            k = least_key(head, k)
            u = take(head, links, k)
            queued -= 1
            for e in range(indptr[u], indptr[u + 1]):
                c = costs[e]
                x = dst[e]
                new = k + c
                old = key[x]
                if c < 0 or new > cap or (old >= 0 and new >= old):  # a settled node (old <= k) never passes
                    continue
                if old < 0:
                    reached[got] = x
                    got += 1
                    queued += 1
                else:  # out of its bucket
                    unlink(head, links, x, old)
                key[x] = new
                link(head, links, x, new)
        ball = reached[:got]
        ascending(ball)
        if held + got > most:
            return us, vs, ds, -1
        if held + got > len(us):  # (joined, no slice assigned: see eidomap.base.compiled)
            more = min(max(len(us), got), most + 1 - len(us))
            us = np.concatenate((us, np.empty(more, np.int32)))
            vs = np.concatenate((vs, np.empty(more, np.int32)))
            ds = np.concatenate((ds, np.empty(more)))
        for v in ball:
            us[held] = s
            vs[held] = v
            ds[held] = key[v]
            key[v] = -1
            held += 1
    return us, vs, ds, held


def ascending(a: np.ndarray) -> None:
    """Sort ``a`` in place: by insertion when short (a ball of a few dozen nodes, sorted in a tenth of the time
    numba's quicksort takes, which is most of :func:`ball_pairs`' time otherwise), else by ``a.sort()``."""
    if len(a) > 32:
        a.sort()
        return
    for i in range(1, len(a)):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


def _check_cells(nodes: int, columns: int, what: str) -> None:
    """Refuse tables of ``nodes`` x ``columns`` past :data:`MAX_POLICY_CELLS`, before they are made."""
    if nodes * columns > MAX_POLICY_CELLS:
        raise RequestError(f"the exact roll-by-roll policy would hold {nodes:,} nodes x {columns:,} {what}, more"
                           f" than {MAX_POLICY_CELLS:,}; {_WHY}")


@dataclass
class PolicyResult:
    """Expected turns of the optimal policy, its arrival distribution and its likeliest course.

    ``course`` is the sequence of turn ends (start first, goal last) that the
    policy goes through most likely, waiting turns left out.
    """

    expected: float
    p_by_turn: list[float]
    worst: int | None
    course: list[int] = field(default_factory=list)


def _threshold_value(best: np.ndarray, weights: np.ndarray) -> float:
    """Solve ``E = 1 + sum_b P(b) min(E, best_b)`` for a node's ``best``.

    ``best[k]`` is non-increasing in the budget; the optimum moves on the
    largest budgets and waits on the rest: the best of the prefixes.  Moving
    on the prefix ``S``, ``E = (W + sum_S w_b best_b) / sum_S w_b`` with
    ``P(b) = w_b / W``: ``weights`` are the law's counts (:func:`.arrival.counted`)
    and ``W`` their total, so that a node every budget takes to the goal is 1
    turn from it exactly.  The sums run from the largest budget down, one
    term at a time (numpy's ``cumsum`` of the reversed rows), and a prefix
    whose value is NaN is left out.
    """
    total = 0.0
    for k in range(len(weights) - 1, -1, -1):
        total += weights[k]
    held = 0.0
    moved = 0.0
    out = np.inf
    for k in range(len(weights) - 1, -1, -1):
        held += weights[k]
        moved += weights[k] * best[k]
        value = (total + moved) / held
        if value < out:
            out = value
    return out


def policy_values(network: Network, w: np.ndarray, goal: int, budgets: np.ndarray, probs: np.ndarray,
                  start: int | None = None, pairs: _Pairs | None = None,
                  compiled: bool | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Expected turns to ``goal`` of the optimal ``forbid`` policy, from every node.

    Returns ``(value, best, arg)``: ``value[u]`` the expected turns from ``u``
    (``inf`` where the goal cannot be reached), and per node and budget the
    best value in reach (``best``) and the node that gives it (``arg``).  With
    ``start`` the search stops once ``start`` is settled (nodes settled later
    keep ``inf``).  ``pairs`` are :func:`within_turn_pairs`, when already
    computed for another goal.  The search is :func:`settle_values`, compiled
    (``compiled`` True, or by default past :data:`~eidomap.base.settings.COMPILE_ABOVE`
    pairs times budgets).
    """
    n = network.n_nodes
    _check_cells(n, len(budgets), "budgets")
    u, v, d = within_turn_pairs(network, w, float(budgets[-1]), compiled) if pairs is None else pairs
    settle = twin(settle_values, len(u) * len(budgets), compiled)
    return settle(n, u, v, d, np.asarray(budgets, np.float64), np.asarray(counted(probs), np.float64), goal,
                  -1 if start is None else start)


def settle_values(n: int, u: np.ndarray, v: np.ndarray, d: np.ndarray, budgets: np.ndarray, weights: np.ndarray,
                  goal: int, start: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`policy_values` over the pairs ``(u, v, d)`` (:func:`within_turn_pairs`) of ``n`` nodes.

    The nodes are settled in increasing value, of equal values the least node first, like Dijkstra's
    distances: when ``x`` settles at ``e``, every ``u`` with ``x`` within a budget's reach that had no node in
    that reach yet gets ``e`` (``best``) and ``x`` (``arg``) for that budget, and a node whose ``best`` changed
    has its value solved again (:func:`_threshold_value`, ``weights`` the law's counts).  A budget that reaches
    a node reaches it for every larger budget too, so the budgets of ``u`` with a node in reach are the largest
    ones, from ``first[u]`` on: a pair tries only the budgets below.  Stops once ``start``
    is settled (-1: never).  The pairs into each node are gathered first (a counting sort by ``v``, stable).
    """
    nb = len(budgets)
    vptr = np.zeros(n + 1, np.int64)
    for i in range(len(v)):
        vptr[v[i] + 1] += 1
    for x in range(n):
        vptr[x + 1] += vptr[x]
    fill = vptr.copy()
    into = np.empty(len(v), np.int64)  # the pairs into each node, in their order
    for i in range(len(v)):
        into[fill[v[i]]] = i
        fill[v[i]] += 1
    best = np.full((n, nb), np.inf)
    arg = np.full((n, nb), -1, np.int64)
    value = np.full(n, np.inf)
    tentative = np.full(n, np.inf)
    final = np.zeros(n, np.bool_)
    mark = np.full(n, -1, np.int64)
    touched = np.empty(n, np.int64)
    first = np.full(n, nb, np.int64)  # the budgets that reach a settled node from a node: its first and more
    # the queue (of equal values the least node first): an entry a value lowered (at most one a pair), the goal's
    pool, queue, head = new_queue(len(u) + 1)
    tentative[goal] = 0.0
    push(pool, queue, head, double_bits(0.0), goal, goal)
    while queue[SIZE] > 0:
        x = pop(pool, queue, head)
        e = bits_double(queue[LAST_MAJOR])
        if final[x] or e != tentative[x]:
            continue
        final[x] = True
        value[x] = e
        if x == start:
            break
        count = 0
        for j in range(vptr[x], vptr[x + 1]):
            i = into[j]
            s = u[i]
            k = first[s]
            while k > 0 and budgets[k - 1] + EPS >= d[i]:
                k -= 1
                best[s, k] = e
                arg[s, k] = x
            if k < first[s]:
                first[s] = k
                if mark[s] != x and not final[s]:
                    mark[s] = x
                    touched[count] = s
                    count += 1
        for j in range(count):
            s = touched[j]
            t = _threshold_value(best[s], weights)
            if t < tentative[s]:
                tentative[s] = t
                push(pool, queue, head, double_bits(t), s, s)
    return value, best, arg


def _likeliest_course(move: np.ndarray, probs: np.ndarray, value: np.ndarray, start: int, goal: int) -> list[int]:
    """The sequence of turn ends the policy ``move`` most likely goes through from ``start`` to ``goal``.

    Waiting turns are left out: from ``u`` the next *other* turn end is ``v``
    with probability ``P(u -> v) / (1 - P(stay at u))``.  Every move lowers the
    value, so the moves form a DAG; nodes are settled in decreasing value (a
    max-product path, ties to the lower node index).
    """
    logp = {start: 0.0}
    parent: dict[int, int] = {}
    heap = [(-value[start], start)]
    seen = {start}
    while heap:
        _, x = heapq.heappop(heap)
        if x == goal:
            break
        row = move[x]
        stay = float(probs[row == x].sum())
        for y in sorted(set(row.tolist()) - {x}):
            q = float(probs[row == y].sum()) / (1.0 - stay)
            cand = logp[x] + float(np.log(q))
            if cand > logp.get(y, -np.inf) + 1e-12:
                logp[y], parent[y] = cand, x
            if y not in seen:
                seen.add(y)
                heapq.heappush(heap, (-value[y], y))
    course = [goal]
    while course[-1] != start:
        course.append(parent[course[-1]])
    return course[::-1]


def forbid_policy(network: Network, w: np.ndarray, start: int, goal: int, budgets: np.ndarray, probs: np.ndarray,
                  max_turns: int) -> PolicyResult:
    """Value, arrival distribution and likeliest course of the expected-turn optimal policy under ``forbid``.

    ``budgets`` are the possible budgets of a turn (ascending) and ``probs``
    their probabilities.  ``w`` should hold only steps some budget can pay
    (:func:`eidomap.search.turns.payable`).
    """
    n = network.n_nodes
    value, best, arg = policy_values(network, w, goal, budgets, probs, start)
    if not np.isfinite(value[start]):
        return PolicyResult(np.inf, [], None)
    if start == goal:
        return PolicyResult(0.0, [], 0, [start])
    # the policy: move to the best node in reach when it is better than staying
    stay = np.arange(n)[:, None]
    move = np.where(best < value[:, None] - 1e-12, arg, stay)
    # the mass pushed counts roll sequences where the dice's faces can be counted (:func:`.arrival.counted`), and
    # P(arrived) is what has arrived over all that was pushed: exact while a double holds the counts, and 1.0
    # exactly once no mass is left anywhere else (six sixths would add up to 0.9999999999999999)
    weights = counted(probs)
    scale = float(weights.sum())
    mass = np.zeros(n)
    mass[start] = 1.0
    arrived, p_by_turn = 0.0, []
    for _ in range(max_turns):
        nxt = np.zeros(n)
        for k in range(len(budgets)):
            nxt += np.bincount(move[:, k], weights=mass * weights[k], minlength=n)
        arrived = arrived * scale + float(nxt[goal])
        nxt[goal] = 0.0
        left = float(nxt.sum())
        p_by_turn.append(arrived / (arrived + left))
        mass = nxt
        if left <= 1e-12 * (arrived + left):
            break
        if arrived + left > 1e200:  # counted past what a double holds: kept as probabilities from here on
            mass, arrived = mass / (arrived + left), arrived / (arrived + left)
    worst = len(p_by_turn) if not mass.any() else None
    return PolicyResult(float(value[start]), p_by_turn, worst, _likeliest_course(move, probs, value, start, goal))


def forbid_reach(network: Network, w: np.ndarray, start: int, targets: np.ndarray, budgets: np.ndarray,
                 probs: np.ndarray, turns: int, max_work: float = 4e9) -> np.ndarray:
    """Best probability of being at each target within ``turns`` turns, under ``forbid``.

    For each target separately, the policy that maximises that probability
    (it may differ between targets).  ``V_k(u, g) = sum_b P(b) max_{v within b
    of u} V_{k-1}(v, g)`` with ``V(g, g) = 1``.
    """
    return forbid_reach_by_turn(network, w, [start], targets, budgets, probs, turns, max_work=max_work)[-1, 0]


def forbid_reach_by_turn(network: Network, w: np.ndarray, starts: npt.ArrayLike, targets: np.ndarray,
                         budgets: np.ndarray, probs: np.ndarray, turns: int, max_work: float = 4e9,
                         pairs: _Pairs | None = None) -> np.ndarray:
    """:func:`forbid_reach` for every horizon k = 1..``turns`` and several starts: shape ``(turns, starts, targets)``.

    One run of the programme gives them all (``V_k`` is its k-th step);
    ``pairs`` are :func:`within_turn_pairs`, when already computed.
    """
    g = len(targets)
    _check_cells(network.n_nodes, g, "targets")
    u, v, d = within_turn_pairs(network, w, float(budgets[-1])) if pairs is None else pairs
    if len(u) * g * turns > max_work:
        raise RequestError(
            f"turns={turns} under partial='forbid' would need about {len(u) * g * turns:.1e} operations"
            " on this map; use fewer turns, the debt rule, or route for single goals"
        )
    n = network.n_nodes
    starts = np.asarray(starts, dtype=np.int64)
    lower = np.r_[-np.inf, budgets[:-1]]
    bands = [np.flatnonzero((d > lower[k] + EPS) & (d <= budgets[k] + EPS)) for k in range(len(budgets))]
    cols = np.arange(g)
    value = np.zeros((n, g))
    value[targets, cols] = 1.0
    out = np.empty((turns, len(starts), g))
    # the law's counts (:func:`.arrival.counted`) over their total: a node every budget takes to a sure target is
    # sure of it too, 1.0 exactly (six sixths of 1 would add up to 0.9999999999999999)
    weights = counted(probs)
    scale = float(weights.sum())
    for k_turn in range(turns):
        reach_best = np.zeros((n, g))
        nxt = np.zeros((n, g))
        for k, band in enumerate(bands):
            np.maximum.at(reach_best, u[band], value[v[band]])
            nxt += weights[k] * reach_best
        nxt /= scale
        nxt[targets, cols] = 1.0
        value = nxt
        out[k_turn] = value[starts]
    return out


#: The functions :func:`ball_pairs` and :func:`settle_values` call (:func:`eidomap.base.compiled.compiled` registers
#: them).
JIT_HELPERS = (*RING_HELPERS, ascending, _threshold_value)
