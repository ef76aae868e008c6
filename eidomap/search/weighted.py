"""Cheapest PtMv from a source, and the arrival thresholds derived from it.

The cheapest-cost search is SciPy's compiled Dijkstra over the network's CSR
(parallel edges reduced to the cheapest).  From the costs, one vectorised pass
over the edges gives each node's *arrival threshold*: how many PtMv the rolls
must add up to before the actor is in that node -- under the debt rule, the
actor has arrived in turn k exactly when the sum of its first k budgets reaches
the threshold, whatever the rolls (see docs/rules.md).

>>> import numpy as np
>>> # from nodes paid 0, 2.5 and 3 PtMv: a step of cost 3, a step of cost 1, a free step
>>> step_need(np.array([0.0, 2.5, 3.0]), np.array([3.0, 1.0, 0.0])).tolist()
[1.0, 3.0, 3.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["EPS", "dijkstra", "node_thresholds", "step_need"]

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
    -- which is ``ceil(du + eps)`` -- since budgets are whole numbers.  A free
    step needs only ``ceil(du - eps)``.  An impassable step (``w = inf``) gives
    NaN, which :func:`entry_thresholds` skips.
    """
    with np.errstate(invalid="ignore"):
        need = du + w * 0.0  # NaN where the step is impassable
    need += np.where(w > EPS, EPS, -EPS)
    return np.ceil(need, out=need)


def node_thresholds(network, edge_w: np.ndarray, dist: np.ndarray, sources, in_weights=None) -> np.ndarray:
    """Arrival thresholds of every node from ``sources`` (0 at each source itself).

    The least sum of budgets with which the actor has stepped into each node:
    the minimum of :func:`step_need` over the edges into it.  ``dist`` is one
    row of cheapest costs (``(n,)``) or several (``(k, n)``, one per source).
    ``in_weights`` are the edge weights already in the network's ``in_order``
    (``Actor.in_weights``: a cheap gather); otherwise ``edge_w`` is permuted.
    """
    w_in = edge_w[network.in_order] if in_weights is None else in_weights
    out = np.full((*dist.shape[:-1], network.n_nodes), np.inf)
    if len(w_in):
        with np.errstate(invalid="ignore"):
            need = step_need(dist[..., network.src_in], w_in)
            best = np.fmin.reduceat(need, network.in_starts, axis=-1)
        out[..., network.in_nodes] = np.where(np.isnan(best), np.inf, best)
    sources = np.atleast_1d(sources)
    if out.ndim == 1:
        out[sources[0]] = 0.0
    else:
        out[np.arange(len(sources)), sources] = 0.0
    return out
