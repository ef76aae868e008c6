"""Cheapest PtMv from a source, and the arrival thresholds derived from it.

The cheapest-cost search is SciPy's compiled Dijkstra over the network's CSR
(parallel edges reduced to the cheapest).  From the costs, one vectorised pass
over the edges gives each node's *arrival threshold*: how many PtMv the rolls
must add up to before the actor is in that node -- under the debt rule, the
actor has arrived in turn k exactly when the sum of its first k budgets reaches
the threshold, whatever the rolls (see docs/rules.md).

>>> import numpy as np
>>> from eidomap.search.weighted import entry_thresholds
>>> # a -> b costs 3, b -> c costs 0 (a free step, like getting off a road)
>>> entry_thresholds(np.array([0.0, 3.0, 3.0]), np.array([0, 1]), np.array([1, 2]),
...                  np.array([3.0, 0.0]), n=3).tolist()
[inf, 1.0, 3.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["EPS", "dijkstra", "step_need", "entry_thresholds", "node_thresholds"]

#: Slack for comparing sums of fractional PtMv.
EPS = 1e-9


def dijkstra(network, edge_w: np.ndarray, sources, limit: float = np.inf, predecessors: bool = False):
    """Cheapest PtMv from ``sources`` to every node (SciPy's csgraph Dijkstra).

    ``sources`` is a node index or an array of them; with ``limit`` the search
    stops at that cost (nodes beyond it are ``inf``).
    """
    from scipy.sparse.csgraph import dijkstra as _dijkstra

    return _dijkstra(network.csr(edge_w), directed=True, indices=sources, limit=limit,
                     return_predecessors=predecessors)


def step_need(du: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Least sum of budgets with which a step of cost ``w`` from a node paid ``du`` starts.

    A step of cost ``c > 0`` from ``u`` can start once ``u`` is paid for and a
    point is left: the budgets must exceed ``du``, i.e. reach ``floor(du) + 1``
    (budgets are whole numbers).  A free step needs only ``ceil(du)``.
    """
    need = np.where(w > EPS, np.floor(du + EPS) + 1.0, np.ceil(du - EPS))
    return np.where(np.isfinite(w), need, np.inf)


def entry_thresholds(dist: np.ndarray, src: np.ndarray, dst: np.ndarray, w: np.ndarray, n: int,
                     order: np.ndarray | None = None) -> np.ndarray:
    """Per node, the least sum of budgets with which the actor has stepped into it.

    The minimum of :func:`step_need` over the edges into each node.  Works on
    one source (``dist`` of shape ``(n,)``) or many (``(k, n)``).  The source
    itself is not special-cased here.  ``order`` is the edges sorted by ``dst``
    (computed when not given).
    """
    need = step_need(dist[..., src], w)
    out = np.full(dist.shape[:-1] + (n,), np.inf)
    order = np.argsort(dst, kind="stable") if order is None else order
    d = dst[order]
    starts = np.flatnonzero(np.r_[True, d[1:] != d[:-1]]) if len(d) else np.empty(0, np.int64)
    if len(d):
        out[..., d[starts]] = np.minimum.reduceat(need[..., order], starts, axis=-1)
    return out


def node_thresholds(network, edge_w: np.ndarray, dist: np.ndarray, sources) -> np.ndarray:
    """Arrival thresholds of every node from ``sources`` (0 at each source itself)."""
    th = entry_thresholds(dist, network.src, network.dst, edge_w, network.n_nodes, network.in_order)
    sources = np.atleast_1d(sources)
    if th.ndim == 1:
        th[sources[0]] = 0.0
    else:
        th[np.arange(len(sources)), sources] = 0.0
    return th
