"""Cheapest PtMv from a source, and the arrival thresholds derived from it.

The cheapest-cost search is SciPy's compiled Dijkstra over the network's CSR
(parallel edges reduced to the cheapest).  From the costs, one vectorised pass
over the edges gives each node's *arrival threshold*: how many PtMv the rolls
must add up to before the actor is in that node -- under the debt rule, the
actor has arrived in turn k exactly when the sum of its first k budgets reaches
the threshold, whatever the rolls (see docs/rules.md).

>>> import numpy as np
>>> # from nodes paid 0, 2.5 and 3 PtMv: a step of cost 3, a step of cost 1, a free step
>>> np.ceil(np.array([0.0, 2.5, 3.0]) + step_offsets(np.array([3.0, 1.0, 0.0]))).tolist()
[1.0, 3.0, 3.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._arrays import group_ranks

if TYPE_CHECKING:
    from ..graph import CostTable, Network

__all__ = ["EPS", "backward_thresholds", "dijkstra", "edges_into", "entry_offsets", "node_thresholds",
           "step_offsets", "threshold_to"]

#: Slack for comparing sums of fractional PtMv.
EPS = 1e-9


def dijkstra(network: Network, weights: np.ndarray | CostTable, sources: int | npt.ArrayLike, limit: float = np.inf,
             predecessors: bool = False) -> Any:
    """Cheapest PtMv from ``sources`` to every node (SciPy's csgraph Dijkstra).

    ``weights`` are the edge weights, or an actor's (kind x terrain+1) table
    (``Actor.table``: gathered straight into the CSR).  ``sources`` is a node
    index or an array of them; with ``limit`` the search stops at that cost
    (nodes beyond it are ``inf``).
    """
    from scipy.sparse.csgraph import dijkstra as _dijkstra

    return _dijkstra(network.csr(weights), directed=True, indices=sources, limit=limit,
                     return_predecessors=predecessors)


def step_offsets(w: np.ndarray | CostTable) -> np.ndarray:
    """How a step of cost ``w`` shifts the threshold before it is rounded up.

    A step with a cost starts once the node before is paid for and a point is
    left: the budgets must exceed ``du``, that is reach ``ceil(du + eps)``
    (budgets are whole numbers).  A free step needs only ``ceil(du - eps)``.
    An impassable step gets ``inf``: it never gives the minimum over edges.
    """
    w = np.asarray(w)
    return np.where(np.isfinite(w), np.where(w > EPS, EPS, -EPS), np.inf)



def entry_offsets(table: np.ndarray | CostTable, network: Network) -> np.ndarray:
    """:func:`step_offsets` of every edge for an actor's cost ``table``, in ``network.in_order``.

    What the arrival thresholds need from the actor: one gather from a small
    table, no pass over the weights.
    """
    return network.edge_weights_in(step_offsets(table))


def edges_into(network: Network, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges into ``targets`` (in ``in_order``), grouped by target: ``(edges, group starts, target columns)``.

    ``target columns`` are the positions in ``targets`` of those with an edge in.
    """
    k = np.minimum(np.searchsorted(network.in_nodes, targets), len(network.in_nodes) - 1)
    has = network.in_nodes[k] == targets
    lo = network.in_starts[k]
    hi = np.r_[network.in_starts, network.n_edges][k + 1]
    count = np.where(has, hi - lo, 0)
    return np.repeat(lo, count) + group_ranks(count), (np.cumsum(count) - count)[has], np.flatnonzero(has)


def backward_thresholds(network: Network, table: np.ndarray | CostTable, sources: npt.ArrayLike, offsets_in: np.ndarray,
                        targets: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Arrival thresholds (and least costs) from many ``sources`` to a few ``targets``: ``(theta, cost)``.

    The same numbers as :func:`node_thresholds` from every source, from
    searches on the reversed graph instead: one from each target and each node
    with an edge into one, which pays when the targets are far fewer than the
    sources.  Both have shape ``(len(sources), len(targets))``.
    """
    from scipy.sparse.csgraph import dijkstra as _dijkstra

    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    edges, starts, where = edges_into(network, targets)
    src = network.src_in[edges]
    nodes = np.unique(np.r_[src, targets])
    back = _dijkstra(network.csr(table).T, directed=True, indices=nodes)[:, sources]  # back[i, s]: s -> nodes[i]
    out = np.full((len(sources), len(targets)), np.inf)
    if len(src):
        need = back[np.searchsorted(nodes, src)].T + offsets_in[edges]
        out[:, where] = np.minimum.reduceat(np.ceil(need, out=need), starts, axis=1)
    out[sources[:, None] == targets[None, :]] = 0.0
    return out, back[np.searchsorted(nodes, targets)].T


def threshold_to(network: Network, dist: np.ndarray, table: np.ndarray | CostTable, target: int) -> float:
    """:func:`node_thresholds` of one search to one other node, from the edges into it alone (no reverse CSR)."""
    edges = np.flatnonzero(network.dst == target)
    if not len(edges):
        return np.inf
    src = np.searchsorted(network.indptr, edges, side="right") - 1
    need = dist[src] + np.take(step_offsets(table).ravel(), network.codes_of(edges))
    return float(np.ceil(need).min())


def node_thresholds(network: Network, dist: np.ndarray, sources: int | npt.ArrayLike, offsets_in: np.ndarray,
                    targets: npt.ArrayLike | None = None) -> np.ndarray:
    """Arrival thresholds from ``sources``: the least sum of budgets with which
    the actor has stepped into each node (0 at the source itself).

    The minimum over the edges into each node of ``ceil(du + step_offsets(w))``.  ``dist``
    is one row of cheapest costs (``(n,)``) or several (``(k, n)``, one per
    source); ``offsets_in`` are the :func:`step_offsets` of the actor's edge
    weights in the network's ``in_order`` (:func:`entry_offsets`, one small
    gather).  With ``targets`` only the edges into those nodes are read and the
    result has one column per target; otherwise one per node.
    """
    sources = np.atleast_1d(sources)
    if targets is None and dist.ndim == 1:
        # one source, every node: ufunc.at does the minimum per node at a fraction of reduceat's cost a group
        # (ceil after the minimum: it keeps the order)
        low = np.full(network.n_nodes, np.inf)
        need = dist[network.src_in]
        need += offsets_in
        np.minimum.at(low, network.dst_in, need)
        out = np.ceil(low, out=low)
        out[sources] = 0.0
        return out
    if targets is None:
        n = network.n_nodes
        edges: slice | np.ndarray = slice(None)
        starts, where = network.in_starts, network.in_nodes
    else:
        cols = np.asarray(targets, dtype=np.int64)
        n = len(cols)
        edges, starts, where = edges_into(network, cols)
    out = np.full((*dist.shape[:-1], n), np.inf)
    src = network.src_in[edges]
    if len(src):
        need = dist[..., src]
        need += offsets_in[edges]
        out[..., where] = np.minimum.reduceat(np.ceil(need, out=need), starts, axis=-1)
    # a source is reached at once
    if targets is None:
        r, c = np.arange(len(sources)), sources
    else:
        r, c = np.nonzero(cols[None, :] == sources[:, None])
    if out.ndim == 1:
        out[c] = 0.0
    else:
        out[r, c] = 0.0
    return out
