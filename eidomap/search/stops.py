"""Routes through stops in order: the network layered by the stops passed (issue 48).

A route from ``s`` through the stops ``v1, ..., vk`` to ``g`` is a walk whose state is its node *and* how many
stops it has passed.  The layered network holds one copy of the map's network per count, ``0..k``: node ``u``
with ``i`` stops passed is node ``u * (k + 1) + i``, and each step ``u -> v`` of the map leaves every copy of
``u``; from layer ``i`` it stays in layer ``i``, unless ``v`` is the next stop ``v(i+1)``, where it goes on in
layer ``i + 1`` (past every following stop that is ``v`` again).  The journey is then one route from ``s``
(in the layer of the stops it already stands on) to ``g`` in layer ``k``: the same step costs, so every search
runs on it unchanged and stays exact -- the turns, the points left and a debt are carried across a stop as across
any node, and the best journey through the stops is found whole, not as legs each best on its own (a leg that
arrives later but with more points left can make the next one sooner).

The layered network is a :class:`~eidomap.model.network.Network` like the map's: edges sorted by source, then
target, kind and terrain (a node's edges in each layer are its edges in the map's order, and their targets keep
that order), so the tie rule (:mod:`eidomap.search.ties`) reads it as docs/rules.md says: of two routes as good,
read back from the goal, at the first place where they differ the lesser node, and at the same node the fewer
stops passed.  Built by array operations over the map's CSR: no loop over the edges.

>>> import numpy as np
>>> from eidomap.model.network import Network
>>> # a path 0 - 1 - 2 both ways, through stop 2 and back to 0
>>> net = Network(np.array(["a", "b", "c"]), np.zeros(3, np.int8), np.zeros(3, np.int32),
...               np.array([0, 1, 3, 4], np.int32), np.array([1, 0, 2, 1], np.int32), np.zeros(4, np.uint8),
...               np.zeros(4, np.int32), np.array([0, 1, 3, 4], np.int32), np.array([1, 0, 2, 1], np.int32),
...               np.arange(4, dtype=np.int32), np.zeros(1, np.int64), ("meadow",))
>>> layered = through_stops(net, [2])
>>> layered.node(0, 0), layered.network.dst[layered.network.indptr[2]:layered.network.indptr[3]].tolist()
(0, [0, 5])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from eidomap.base.arrays import group_ranks
from eidomap.base.errors import RequestError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from eidomap.model.network import Network

#: Most stops a route goes through.
MAX_STOPS = 100
#: Most edges of a layered network (the map's edges times the stops plus one): about 1 GB of arrays.
MAX_LAYERED_EDGES = 50_000_000


@dataclass(frozen=True)
class Layered:
    """The layered network of :func:`through_stops`.

    Attributes
    ----------
    network : Network
        The layered network: node ``u * layers + i`` is the map's node ``u`` with ``i`` stops passed.
    layers : int
        The number of layers: the stops plus one.
    jump : numpy.ndarray
        ``jump[i]``: the layer a step into stop ``i + 1`` (from 0: ``stops[i]``) leads to from layer ``i``.
    stops : numpy.ndarray
        The stops, as the map's node indices.
    """

    network: Network
    layers: int
    jump: np.ndarray
    stops: np.ndarray

    def node(self, u: int, layer: int) -> int:
        """The layered node of the map's node ``u`` with ``layer`` stops passed."""
        return int(u) * self.layers + int(layer)

    def start(self, u: int) -> int:
        """The layered node a route starting at ``u`` starts from: the stops it stands on already passed."""
        k = len(self.stops)
        return self.node(u, self.jump[0] if k and self.stops[0] == u else 0)

    def goal(self, u: int) -> int:
        """The layered node of the goal ``u``: every stop passed."""
        return self.node(u, len(self.stops))


def through_stops(network: Network, stops: Sequence[int]) -> Layered:
    """The network layered by the stops passed (see the module's docstring).

    Parameters
    ----------
    network : Network
        The map's network.
    stops : sequence of int
        The stops in order, as node indices.

    Returns
    -------
    Layered
        The layered network and how its nodes are numbered.

    Raises
    ------
    RequestError
        For more than :data:`MAX_STOPS` stops, or a layered network of more than :data:`MAX_LAYERED_EDGES` edges
        (checked before it is made).
    """
    from eidomap.model.network import Network

    at = np.asarray(stops, dtype=np.int64)
    k = len(at)
    layers = k + 1
    if k > MAX_STOPS:
        raise RequestError(f"via must be at most {MAX_STOPS} stops, got {k}")
    if network.n_edges * layers > MAX_LAYERED_EDGES:
        raise RequestError(f"via: {k} stops on a map of {network.n_edges:,} steps would search"
                           f" {network.n_edges * layers:,} of them, more than {MAX_LAYERED_EDGES:,}; give fewer stops")
    jump = np.arange(1, layers, dtype=np.int64)  # past each following stop that is the same node
    for i in range(k - 2, -1, -1):  # (a loop over the stops, not the edges)
        if at[i + 1] == at[i]:
            jump[i] = jump[i + 1]
    index = np.int64 if network.n_edges * layers >= 2**31 or network.n_nodes * layers >= 2**31 else np.int32
    size = np.repeat(np.diff(network.indptr).astype(np.int64), layers)  # each layered node's edges
    indptr = np.zeros(network.n_nodes * layers + 1, index)
    np.cumsum(size, out=indptr[1:])
    edge = np.repeat(np.repeat(network.indptr[:-1].astype(np.int64), layers), size) + group_ranks(size)
    layer = np.repeat(np.tile(np.arange(layers, dtype=np.int64), network.n_nodes), size)
    v = network.dst[edge].astype(np.int64)
    to = layer.copy()
    if k:
        inner = np.flatnonzero(layer < k)
        hit = inner[v[inner] == at[layer[inner]]]
        to[hit] = jump[layer[hit]]
    dst = (v * layers + to).astype(index)
    first = np.zeros(network.n_edges, bool)
    first[network.pair_start] = True
    pair_start = np.flatnonzero(first[edge]).astype(index)
    pair_indptr = np.zeros(network.n_nodes * layers + 1, index)
    np.cumsum(np.repeat(np.diff(network.pair_indptr).astype(np.int64), layers), out=pair_indptr[1:])
    layered = Network(
        node_ids=np.repeat(network.node_ids, layers),
        node_layer=np.repeat(network.node_layer, layers),
        node_terrain=np.repeat(network.node_terrain, layers),
        indptr=indptr,
        dst=dst,
        kind=network.kind[edge],
        terrain=network.terrain[edge],
        pair_indptr=pair_indptr,
        pair_dst=dst[pair_start],
        pair_start=pair_start,
        map_errors=network.map_errors,
        terrain_names=network.terrain_names,
    )
    return Layered(layered, layers, jump, at)
