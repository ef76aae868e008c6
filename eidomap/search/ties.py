"""Which of equally good routes eidomap answers: the tie rule (docs/rules.md, "Ties").

Of the routes a question finds equally good -- the cheapest; with rolls, the
soonest and then the cheapest -- eidomap answers the one with the **fewest
steps** and, of those, the one that **comes from the node first in the map's
order**: read back from the goal, at the first node where two routes differ,
the one whose node has the smaller index (the map's Eidos in the order its
file lists them, then its Pousas, then the teleport hub).  Of equally cheap
steps between the same two nodes it takes the kind listed first in
:data:`~eidomap.model.network.KINDS` (the network's edges are in that order).
The rule is a property of the routes alone, never of the order in which a
search's queue settles its ties, so SciPy's Dijkstra, Dial's buckets and the
planner page's script answer the same route.

:func:`cheapest_path` applies it after any search of the cheapest costs: the
steps of the cheapest routes are the *tight* edges (``dist[u] + w <= dist[v]``,
within :data:`~eidomap.search.weighted.EPS`), their fewest steps from the
source are a breadth-first search's levels over them, and each node's step is,
of the tight edges from a node one level nearer the source, the first in the
network's order (the least source, then kind): read back from the goal, the
least node at every step.  Arrays all through; the only loop is over the route's
steps.  The label searches (:func:`eidomap.search.turns.soonest_route`, the
battle grid's :func:`eidomap.search.grid.plan_labels`) keep the rule by
comparing, of two ways into the same label, their chains back from it.

>>> import numpy as np
>>> # 0 -> 1 -> 3 and 0 -> 2 -> 3, each step 1, and 0 -> 3 for 2: three cheapest routes
>>> src, dst = np.array([0, 0, 0, 1, 2]), np.array([1, 2, 3, 3, 3])
>>> tight_levels(4, src, dst, 0).tolist()  # the direct step is the fewest
[0, 1, 1, 1]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from eidomap.base import settings
from eidomap.base.arrays import group_ranks
from eidomap.search.weighted import EPS

if TYPE_CHECKING:
    from eidomap.model.network import CostTable, Network


def tight_levels(n: int, src: np.ndarray, dst: np.ndarray, source: int) -> np.ndarray:
    """Fewest steps from ``source`` to each of ``n`` nodes over the edges ``src -> dst`` (sorted by ``src``), -1
    where there is no way: the levels of SciPy's breadth-first order.

    The order lists each level after the one before and each node after the one it was found from, so the
    places of the nodes' finders never go down along it: one binary search a level finds where the next
    level ends (no pass over the nodes a level).  Until SciPy's csgraph is imported
    (:func:`~eidomap.base.settings.scipy_graphs_loaded`: its import would take longer than a route on a small
    map), a breadth-first search of its own, a level at a time, each level's steps gathered at once: the same
    levels.
    """
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    level = np.full(n, -1, np.int64)
    if not settings.scipy_graphs_loaded():
        level[source] = 0
        found, k = np.array([source], np.int64), 0
        while len(found):
            k += 1
            size = indptr[found + 1] - indptr[found]
            found = dst[np.repeat(indptr[found], size) + group_ranks(size)]
            found = np.unique(found[level[found] < 0])
            level[found] = k
        return level
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import breadth_first_order

    graph = csr_array((np.ones(len(dst)), dst, indptr), shape=(n, n))
    order, pred = breadth_first_order(graph, source, directed=True, return_predecessors=True)
    place = np.empty(n, np.int64)
    place[order] = np.arange(len(order))
    finder = place[pred[order[1:]]]  # the place of the node each one was found from
    ends = [1]
    while ends[-1] < len(order):  # the next level: the nodes found from this one's
        ends.append(1 + int(np.searchsorted(finder, ends[-1])))
    level[order] = np.repeat(np.arange(len(ends)), np.diff(ends, prepend=0))
    return level


def cheapest_path(network: Network, weights: np.ndarray | CostTable, dist: np.ndarray, source: int,
                  target: int, last: np.ndarray | None = None) -> list[int]:
    """The edges of the cheapest route from ``source`` to ``target`` that the tie rule answers.

    Parameters
    ----------
    network : Network
        The map's network.
    weights : numpy.ndarray or CostTable
        The edge weights, or an actor's cost table (gathered for the edges read only).
    dist : numpy.ndarray
        The cheapest costs from ``source`` under ``weights``
        (:func:`eidomap.search.weighted.dijkstra`, whichever search gave them).
    source, target : int
        Node indices; ``target`` is reached (``dist[target]`` finite).
    last : numpy.ndarray of int, optional
        The edges into ``target`` a route may end with (in the network's order; at least one): then the route
        answered is the cheapest of those that go a cheapest way to the source of one of these edges and step
        from it into ``target`` (``target`` once, at the end), the tie rule's of them.  Under the debt rule the
        steps that give the goal its arrival threshold (:func:`eidomap.search.weighted.threshold_steps`) make
        it the cheapest of the routes that arrive soonest.

    Returns
    -------
    list of int
        The route's edges, in order (none when ``target`` is ``source``).

    Notes
    -----
    Only the edges into nodes no dearer than the route are read: no cheapest route to it passes another.
    """
    if source == target:
        return []
    src, dst = network.src, network.dst
    bound = dist[target]
    if last is not None:  # the cheapest of the ways in allowed (each after a cheapest way to its source)
        ends = dist[src[last]] + network.weights_of(last, weights)
        bound = ends.min()
        last = last[ends <= bound + EPS]
    near = np.flatnonzero(dist[dst] <= bound + EPS)
    tight = near[dist[src[near]] + network.weights_of(near, weights) <= dist[dst[near]] + EPS]
    if last is not None:  # into the target by those steps alone, and never on from it
        tight = np.union1d(tight[(dst[tight] != target) & (src[tight] != target)], last)
    level = tight_levels(network.n_nodes, src[tight], dst[tight], source)
    on = tight[(level[src[tight]] >= 0) & (level[src[tight]] + 1 == level[dst[tight]])]
    step = np.full(network.n_nodes, len(src), np.int64)
    np.minimum.at(step, dst[on], on)  # the first in the network's order: the least source, then kind
    edges = []
    v = target
    while v != source:
        e = int(step[v])
        edges.append(e)
        v = int(src[e])
    return edges[::-1]
