"""Cheapest PtMv from a source, and the arrival thresholds derived from it.

The cheapest-cost search is SciPy's compiled Dijkstra over the network's CSR
(parallel edges reduced to the cheapest), or -- for an actor's cost table of
whole numbers on a big network -- Dial's bucket search compiled with numba
(:mod:`.dial`), which gives the same costs in about half the time (see
:func:`dijkstra` for when which runs).  From the costs, one vectorised pass
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

from eidomap.base import settings
from eidomap.base.arrays import group_ranks
from eidomap.base.settings import twin
from eidomap.search.dial import MAX_COST, dial_labels

if TYPE_CHECKING:
    from eidomap.model.network import CostTable, Network

#: Slack for comparing sums of fractional PtMv.
EPS = 1e-9


#: The limit the Dial search takes for "no limit": more than any cost of a CSR (2**31 nodes x :data:`MAX_COST`).
_NO_LIMIT = 1 << 62


def whole_costs(weights: np.ndarray | CostTable) -> np.ndarray | None:
    """The costs of a cost table as the Dial search takes them (``int64``, -1 where a step cannot be taken), or
    None where it cannot: per-edge weights, or a finite cost that is not a whole number from 0 to
    :data:`~eidomap.search.dial.MAX_COST`.

    >>> from eidomap.model.network import KINDS, CostTable
    >>> table = np.full((len(KINDS), 2), np.inf); table[0] = [1.0, 3.0]
    >>> whole_costs(CostTable(table))[:3].tolist(), whole_costs(CostTable(table / 2))
    ([1, 3, -1], None)
    """
    from eidomap.model.network import CostTable

    if not isinstance(weights, CostTable):
        return None
    flat = weights.array.ravel()
    finite = np.isfinite(flat)
    costs = flat[finite]
    if np.any(flat[~finite] != np.inf) or np.any((costs < 0) | (costs > MAX_COST) | (costs != np.floor(costs))):
        return None
    return np.where(finite, flat, -1.0).astype(np.int64)


def dijkstra(network: Network, weights: np.ndarray | CostTable, sources: int | npt.ArrayLike, limit: float = np.inf,
             predecessors: bool = False, compiled: bool | None = None) -> Any:
    """Cheapest PtMv from ``sources`` to every node, as SciPy's csgraph Dijkstra gives them.

    ``weights`` are the edge weights, or an actor's (kind x terrain+1) table
    (``Actor.table``: gathered straight into the CSR).  ``sources`` is a node
    index or an array of them; with ``limit`` the search stops at that cost
    (nodes beyond it are ``inf``).

    A :class:`~eidomap.model.network.CostTable` whose finite costs are whole numbers
    from 0 to :data:`~eidomap.search.dial.MAX_COST` is searched by Dial's
    buckets (:func:`~eidomap.search.dial.dial_labels`, compiled) over the
    network's renumbered CSR (:attr:`~eidomap.model.network.Network.near`, built on
    first use) when ``compiled`` is True or, by default, when that pays
    (:func:`_dial_pays`: many searches, or a network already renumbered);
    by its plain Python twin over the network's own CSR when the searches
    are few and small and SciPy's csgraph is not imported yet (:func:`_small`:
    a route on a small map then needs no SciPy, whose import would take longer).
    Everything else -- per-edge weights, fractional or negative costs, a
    costlier step (a wide cost range), a small network, one search of a
    network not yet renumbered -- goes to SciPy.  The costs are the same;
    of two ways of equal cost the predecessors name the one the search
    happened to settle first: the route eidomap answers is the tie rule's,
    from the costs alone (:func:`eidomap.search.ties.cheapest_path`).
    """
    small = compiled is None and _small(network, sources)
    table = whole_costs(weights) if (small or _dial_pays(network, sources) if compiled is None else compiled) else None
    if table is None or not limit >= 0:
        from scipy.sparse.csgraph import dijkstra as _dijkstra

        return _dijkstra(network.csr(weights), directed=True, indices=sources, limit=limit,
                         return_predecessors=predecessors)
    starts = np.atleast_1d(np.asarray(sources))
    if starts.ndim != 1 or (starts.size and (starts.dtype.kind not in "iu" or starts.min() < 0
                                              or starts.max() >= network.n_nodes)):
        raise ValueError(f"sources: node indices from 0 to {network.n_nodes - 1}, got {sources!r}")
    cap = int(min(np.floor(limit), _NO_LIMIT))
    if small:  # (the network's own CSR: the renumbering is SciPy's, and pays on big networks only)
        order = np.arange(network.n_nodes, dtype=np.int32)
        found = [dial_labels(network.indptr, network.dst, network.codes, table, int(s), cap, order) for s in starts]
    else:
        near = network.near
        search = twin(dial_labels, network.n_edges, True)
        found = [search(near.indptr, near.dst, near.codes, table, int(near.rank[s]), cap, near.order) for s in starts]
    if np.ndim(sources) == 0:
        dist, pred = found[0]
    else:
        dist = np.stack([d for d, _ in found]) if found else np.empty((0, network.n_nodes))
        pred = np.stack([p for _, p in found]) if found else np.empty((0, network.n_nodes), np.int32)
    return (dist, pred) if predecessors else dist


def _small(network: Network, sources: int | npt.ArrayLike) -> bool:
    """Whether the Dial search in Python answers sooner than SciPy's import would: SciPy's csgraph is not
    imported yet, and the searches of the call together cover at most
    :data:`~eidomap.base.settings.PYTHON_DIAL_UP_TO` edges."""
    return (int(np.size(sources)) * network.n_edges <= settings.PYTHON_DIAL_UP_TO
            and not settings.scipy_graphs_loaded())


def _dial_pays(network: Network, sources: int | npt.ArrayLike) -> bool:
    """Whether the Dial search pays back what it costs before its first search: numba's import and the
    renumbering (:attr:`~eidomap.model.network.Network.near`), together about one SciPy search of a big network.

    The searches of the call must cover more than :data:`~eidomap.base.settings.DIAL_ABOVE` edges
    -- beyond the first search's, unless the network is renumbered already --
    so that a one-shot route on a million Eidos stays on SciPy (0.7 s, where
    numba's import, the renumbering and the search together take longer).
    """
    n = int(np.size(sources))
    paid = "near" in network.__dict__  # (the cached renumbering)
    return (n if paid else n - 1) * network.n_edges > settings.DIAL_ABOVE


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


def _steps_in(network: Network, dist: np.ndarray, weights: np.ndarray | CostTable,
              target: int) -> tuple[np.ndarray, np.ndarray]:
    """The edges into ``target`` and the threshold each gives it (the least sum of budgets with which the actor has
    stepped into it by that edge): read from the edges into it alone (no reverse CSR)."""
    edges = np.flatnonzero(network.dst == target)
    src = np.searchsorted(network.indptr, edges, side="right") - 1
    return edges, np.ceil(dist[src] + step_offsets(network.weights_of(edges, weights)))


def threshold_to(network: Network, dist: np.ndarray, weights: np.ndarray | CostTable, target: int) -> float:
    """:func:`node_thresholds` of one search to one other node, from the edges into it alone (no reverse CSR).

    ``weights``: the edge weights, or an actor's cost table (gathered for the edges into ``target`` only).
    """
    _, need = _steps_in(network, dist, weights, target)
    return float(need.min(initial=np.inf))


def threshold_steps(network: Network, dist: np.ndarray, weights: np.ndarray | CostTable, target: int) -> np.ndarray:
    """The edges into ``target`` that give it its arrival threshold (:func:`threshold_to`), in the network's order.

    Under the debt rule a route arrives by turn k exactly when the first k budgets add up to its own threshold,
    that of its last step (``ceil`` of the cost before it, plus the step's offset): the routes that end with one
    of these edges, after a cheapest way to its source, are those that arrive soonest whatever the rolls --
    :func:`eidomap.search.ties.cheapest_path` with ``last=`` takes the cheapest of them.
    """
    edges, need = _steps_in(network, dist, weights, target)
    theta = need.min(initial=np.inf)
    return edges[need == theta] if np.isfinite(theta) else edges[:0]


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
