"""Cheapest costs from one source when every step costs a small whole number: Dial's buckets.

PtMv costs are small whole numbers (0 to 5 for most actors), so a
label-setting search needs no comparison heap: a ring of ``C + 1`` buckets
(:mod:`.buckets`), ``C`` the dearest step, holds every node queued (all
within ``C`` of the last cost settled), and the settled cost only moves
forward.  A node is queued once, in the bucket of its cost, so that a
cheaper cost found later moves it to another bucket in constant time: no
stale entries, no pool, memory of a few arrays of the nodes and the ring,
settling a node in a few nanoseconds where a binary heap pays a log factor.

Plain Python over arrays, like the other searches of this package:
:mod:`eidomap.base.compiled` compiles the same function with numba, and
:func:`eidomap.search.weighted.dijkstra` decides when it runs (cost tables of
whole numbers up to :data:`MAX_COST`, big enough networks) and when SciPy's
csgraph Dijkstra does instead.

>>> import numpy as np
>>> # 0 -> 1 costs 2, 0 -> 2 costs 5, 1 -> 2 costs 1: node 2 is cheapest through 1
>>> indptr, dst, codes = np.array([0, 2, 3, 3]), np.array([1, 2, 2]), np.array([0, 1, 2])
>>> dist, pred = dial_labels(indptr, dst, codes, np.array([2, 5, 1]), 0, 10, np.arange(3))
>>> dist.tolist(), pred.tolist()
([0.0, 2.0, 3.0], [-9999, 0, 1])
"""

from __future__ import annotations

import numpy as np

from eidomap.search.buckets import JIT_HELPERS as RING_HELPERS
from eidomap.search.buckets import least_key, link, new_ring, take, unlink

#: The dearest step the buckets take (a ring of 64 Ki buckets, 256 KiB): a cost table with a dearer finite cost
#: (a wide cost range) is searched by SciPy instead, so the ring never grows with a number written in a map.
MAX_COST = (1 << 16) - 1
#: The predecessor of the source and of the nodes not reached (SciPy's value).
NO_PRED = -9999
_NONE = np.iinfo(np.int64).max


def dial_labels(indptr: np.ndarray, dst: np.ndarray, codes: np.ndarray, table: np.ndarray, source: int,
                limit: int, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cheapest cost from ``source`` to every node, and each node's predecessor: ``(dist, pred)``.

    The graph is a CSR (``indptr``, ``dst``); edge ``e`` costs
    ``table[codes[e]]``, a whole number from 0 to :data:`MAX_COST`, or less
    than 0 where the step cannot be taken.  Nodes costing more than ``limit``
    are not settled.  ``dist`` is ``inf`` and ``pred`` :data:`NO_PRED` where
    no node is reached (and ``pred`` at the source), as SciPy's Dijkstra gives
    them.  Of two ways of equal cost the one found first is kept.  Node ``i``
    of the CSR is node ``order[i]`` of the answer (the caller's numbering, when
    the CSR is renumbered: :attr:`eidomap.model.network.Network.near`).
    """
    n = len(indptr) - 1
    dearest = 0
    for c in table:
        dearest = max(dearest, c)
    head, links = new_ring(dearest + 1, n)  # every node queued is within ``dearest`` of the cost being settled
    cost = np.full(n, _NONE, np.int64)
    pred = np.full(n, NO_PRED, np.int32)
    cost[source] = 0
    link(head, links, source, 0)
    queued = 1
    k = 0
    while queued > 0:
        k = least_key(head, k)
        if k > limit:
            break
        u = take(head, links, k)
        queued -= 1
        for e in range(indptr[u], indptr[u + 1]):
            c = table[codes[e]]
            if c < 0:
                continue
            v = dst[e]
            new = k + c
            old = cost[v]
            if new >= old:  # a settled node (old <= k) never passes here: costs are never negative
                continue
            if old == _NONE:
                queued += 1
            else:  # out of its bucket
                unlink(head, links, v, old)
            cost[v] = new
            pred[v] = u
            link(head, links, v, new)
    dist = np.empty(n)
    back = np.empty(n, np.int32)
    for i in range(n):
        v = order[i]
        if cost[i] <= limit:  # every node queued at a cost within the limit is settled
            dist[v] = cost[i]
            back[v] = order[pred[i]] if pred[i] >= 0 else NO_PRED
        else:  # not reached, or only past the limit
            dist[v] = np.inf
            back[v] = NO_PRED
    return dist, back


#: The functions :func:`dial_labels` calls (:func:`eidomap.base.compiled.compiled` registers them).
JIT_HELPERS = RING_HELPERS
