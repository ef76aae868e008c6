"""The turn search of the common case: ``forbid``, whole-number costs and the same whole budget every turn.

:func:`eidomap.search.turns.earliest_labels` takes any costs and any
sequence of budgets under either rule, so each of its steps goes through the
general step rule (:func:`~eidomap.search.turns.advance`: floats, debts over
cycles of budgets).  With one whole budget ``b`` every turn and whole costs,
under ``forbid``, a step from the label ``(t, p)`` (turn ``t``, ``p`` points
left) of cost ``c`` lands at ``(t, p - c)`` when ``c <= p``, at
``(t + 1, b - c)`` when ``c <= b``, and never otherwise.  The label is one
whole number, ``t * (b + 1) + b - p``, and a step moves it forward by at most
``2 b + 1``: Dial's buckets order the labels, each node on the list of its
key's bucket in a ring (:mod:`.buckets`) of at least ``2 (b + 1)`` buckets.

:func:`forbid_labels` is that search: the same labels and predecessors as
:func:`~eidomap.search.turns.earliest_labels` on the same CSR (the ring pops
the nodes in the same order as the general search's queue), at a fraction of
its time.  :func:`eidomap.search.turns.earliest` picks it when the case
applies (:func:`steady_budget`, :func:`forbid_costs`).

>>> import numpy as np
>>> # 0 -> 1 costs 2, 1 -> 2 costs 3, budget 4: node 2 is reached in turn 2 with a point left
>>> indptr, dst, codes = np.array([0, 1, 2, 2]), np.array([1, 2]), np.array([0, 1])
>>> turn, left, pred = forbid_labels(indptr, dst, codes, np.array([2, 3]), 0, 4, 10, np.arange(3), np.arange(2))
>>> turn.tolist(), left.tolist(), pred.tolist()
([0, 1, 2], [4.0, 2.0, 1.0], [-1, 0, 1])
"""

from __future__ import annotations

import numpy as np

from eidomap.search.buckets import JIT_HELPERS as RING_HELPERS
from eidomap.search.buckets import MAX_RING, least_key, link, new_ring, take, unlink

#: The largest budget the search takes: its ring of ``2 (b + 1)`` buckets or more stays within the general
#: queue's (:data:`~eidomap.search.buckets.MAX_RING`), which then orders the labels the same way.
MAX_BUDGET = MAX_RING // 2 - 1
_NONE = np.iinfo(np.int64).max


def steady_budget(budgets: np.ndarray, cycle: bool, carry: bool) -> tuple[int, int] | None:
    """``(budget, last turn)`` when :func:`forbid_labels` applies to these budgets, else None: ``forbid``,
    one whole budget from 0 to :data:`MAX_BUDGET` every turn, for ever (``cycle``) or for ``len(budgets)``
    turns.

    >>> steady_budget(np.array([6.0, 6.0]), False, False), steady_budget(np.array([6.0, 5.0]), True, False)
    ((6, 2), None)
    """
    if carry or len(budgets) == 0:
        return None
    b = budgets[0]
    if not (0 <= b <= MAX_BUDGET and b == np.floor(b) and np.all(budgets == b)):
        return None
    return int(b), (_NONE if cycle else len(budgets))


def forbid_costs(weights: np.ndarray, budget: int) -> np.ndarray | None:
    """The costs :func:`forbid_labels` takes (``int64``; -1 where a step never starts: dearer than ``budget``,
    impassable or NaN), or None where a cost it could start is not a whole number of 0 or more.

    >>> forbid_costs(np.array([0.0, 3.0, 7.0, np.inf]), 6).tolist(), forbid_costs(np.array([1.5]), 6)
    ([0, 3, -1, -1], None)
    """
    usable = weights <= budget
    costs = weights[usable]
    if np.any((costs < 0) | (costs != np.floor(costs))):
        return None
    return np.where(usable, weights, -1.0).astype(np.int64)


def forbid_labels(indptr: np.ndarray, dst: np.ndarray, codes: np.ndarray, table: np.ndarray, source: int,
                  budget: int, last: int, order: np.ndarray,
                  edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Earliest free label of every node under ``forbid``, ``budget`` points every turn: ``(turn, left, pred)``.

    The graph is a CSR (``indptr``, ``dst``); edge ``e`` costs
    ``table[codes[e]]`` (:func:`forbid_costs`: -1 where it never starts).
    Turns after ``last`` have no points.  ``turn`` is the turn the actor is
    first in each node (0 at the source, -1 where it never is), ``left`` the
    most points left then and ``pred`` the edge it came by (-1: none), as
    :func:`~eidomap.search.turns.earliest_labels` gives them.  Node ``i`` and
    edge ``e`` of the CSR are node ``order[i]`` and edge ``edges[e]`` of the
    answer (the caller's numbering, when the CSR is renumbered:
    :attr:`eidomap.model.network.Network.near`).
    """
    n = len(indptr) - 1
    width = budget + 1  # a turn's keys: ``t * width`` (all the budget left) to ``t * width + budget`` (none)
    head, links = new_ring(2 * width, n)  # every node queued is within 2 * budget + 1 of the key being settled
    key = np.full(n, _NONE, np.int64)
    via = np.full(n, -1, np.int64)
    key[source] = width  # turn 1, nothing spent
    link(head, links, source, width)
    queued = 1
    k = width
    while queued > 0:
        k = least_key(head, k)
        u = take(head, links, k)
        queued -= 1
        t = k // width
        p = budget - (k - t * width)
        for e in range(indptr[u], indptr[u + 1]):
            c = table[codes[e]]
            if c < 0:
                continue
            if c <= p:  # paid out of this turn's points
                new = k + c
            elif c <= budget and t < last:  # waits for the next turn
                new = (t + 1) * width + c
            else:
                continue
            v = dst[e]
            old = key[v]
            if new >= old:  # a settled node (old <= k) never passes here: no step goes back in time
                continue
            if old == _NONE:
                queued += 1
            else:  # out of its bucket
                unlink(head, links, v, old)
            key[v] = new
            via[v] = e
            link(head, links, v, new)
    turn = np.full(n, -1, np.int64)
    left = np.zeros(n)
    pred = np.full(n, -1, np.int64)
    for i in range(n):
        if key[i] != _NONE:
            v = order[i]
            turn[v] = key[i] // width
            left[v] = budget - key[i] % width
            if via[i] >= 0:
                pred[v] = edges[via[i]]
    turn[order[source]] = 0
    return turn, left, pred


#: The functions :func:`forbid_labels` calls (:func:`eidomap.base.compiled.compiled` registers them).
JIT_HELPERS = RING_HELPERS
