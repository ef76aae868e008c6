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
from eidomap.search.arrival import counted
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
_WHY = "give rolls=..., or use the debt rule (partial='carry')"


def within_turn_pairs(network: Network, w: np.ndarray, bmax: float) -> _Pairs:
    """Every ``(u, v, d)`` with ``v`` within ``d <= bmax`` PtMv of ``u`` (``u`` included)."""
    from scipy.sparse.csgraph import dijkstra

    n = network.n_nodes
    if n > MAX_POLICY_NODES:
        raise RequestError(
            f"the exact roll-by-roll policy handles maps up to {MAX_POLICY_NODES:,} nodes (this one has {n:,}); {_WHY}")
    csr = network.csr(w)
    us, vs, ds = [], [], []
    held = 0
    for lo in range(0, n, _CHUNK):
        d = dijkstra(csr, indices=np.arange(lo, min(n, lo + _CHUNK)), limit=bmax + EPS)
        r, c = np.nonzero(np.isfinite(d))
        held += len(r)
        if held > MAX_POLICY_PAIRS:
            raise RequestError(f"the exact roll-by-roll policy would hold more than {MAX_POLICY_PAIRS:,} pairs of"
                               f" nodes within a turn's reach ({bmax:g} PtMv) on this map; {_WHY}")
        us.append((r + lo).astype(np.int32))  # (nodes are at most MAX_POLICY_NODES: 16 bytes a pair, not 24)
        vs.append(c.astype(np.int32))
        ds.append(d[r, c])
    return np.concatenate(us), np.concatenate(vs), np.concatenate(ds)


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


def _threshold_value(best: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Solve ``E = 1 + sum_b P(b) min(E, best_b)`` for each row of ``best``.

    ``best[:, k]`` is non-increasing in the budget; the optimum moves on the
    largest budgets and waits on the rest: the best of the prefixes.  Moving
    on the prefix ``S``, ``E = (W + sum_S w_b best_b) / sum_S w_b`` with
    ``P(b) = w_b / W``: ``weights`` are the law's counts (:func:`.arrival.counted`)
    and ``W`` their total, so that a node every budget takes to the goal is 1
    turn from it exactly.
    """
    rb = best[:, ::-1]
    rw = weights[::-1]
    held = np.cumsum(rw)
    with np.errstate(invalid="ignore"):
        value = (held[-1] + np.cumsum(rw * rb, axis=1)) / held
    return np.nanmin(np.where(np.isnan(value), np.inf, value), axis=1)


def policy_values(network: Network, w: np.ndarray, goal: int, budgets: np.ndarray, probs: np.ndarray,
                  start: int | None = None, pairs: _Pairs | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Expected turns to ``goal`` of the optimal ``forbid`` policy, from every node.

    Returns ``(value, best, arg)``: ``value[u]`` the expected turns from ``u``
    (``inf`` where the goal cannot be reached), and per node and budget the
    best value in reach (``best``) and the node that gives it (``arg``).  With
    ``start`` the search stops once ``start`` is settled (nodes settled later
    keep ``inf``).  ``pairs`` are :func:`within_turn_pairs`, when already
    computed for another goal.
    """
    n = network.n_nodes
    _check_cells(n, len(budgets), "budgets")
    u, v, d = within_turn_pairs(network, w, float(budgets[-1])) if pairs is None else pairs
    order = np.argsort(v, kind="stable")
    u, d = u[order], d[order]
    vptr = np.searchsorted(v[order], np.arange(n + 1))
    nb = len(budgets)
    weights = counted(probs)
    best = np.full((n, nb), np.inf)
    arg = np.full((n, nb), -1, np.int64)
    value = np.full(n, np.inf)
    tentative = np.full(n, np.inf)
    final = np.zeros(n, bool)
    tentative[goal] = 0.0
    heap = [(0.0, goal)]
    while heap:
        e, x = heapq.heappop(heap)
        if final[x] or e != tentative[x]:
            continue
        final[x] = True
        value[x] = e
        if x == start:
            break
        us, ds = u[vptr[x] : vptr[x + 1]], d[vptr[x] : vptr[x + 1]]
        fits = (budgets[None, :] + EPS >= ds[:, None]) & ~np.isfinite(best[us])
        rows, cols = np.nonzero(fits)
        best[us[rows], cols] = e
        arg[us[rows], cols] = x
        touched = np.unique(us[rows])
        touched = touched[~final[touched]]
        if len(touched) == 0:
            continue
        t = _threshold_value(best[touched], weights)
        better = t < tentative[touched]
        for node, val in zip(touched[better].tolist(), t[better].tolist(), strict=True):
            tentative[node] = val
            heapq.heappush(heap, (val, node))
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
