"""The movement graph: one build, two views.

:func:`build_network` turns a map's features and adjacency into a compiled
:class:`Network` -- CSR arrays (offsets, targets, edge-kind codes and the
terrain each edge enters) that the search runs on.  :func:`to_networkx` turns
the same arrays into a NetworkX ``MultiDiGraph``; since it is made from the
arrays, the two views cannot disagree.

Nodes are laid out in layers: Eidos first, then Pousas, then the teleport hub.
Edge kinds:

==================  ===========================================================
``border``          Eido -> adjacent Eido, across their shared border
``road``            Pousa -> next/previous Pousa along the same road
``board``           Eido -> a Pousa it holds (pays the first Pousa)
``board_adjacent``  Eido -> a Pousa held by an adjacent Eido (pays that Eido)
``alight``          Pousa -> an Eido that holds it (free)
``teleport``        fountain Eido -> the teleport hub
``teleport_exit``   teleport hub -> fountain Eido (free)
``stream``          Eido at a stream's mouth -> Eido at its source
``road_eido``       Eido -> adjacent Eido, where a road crosses their border
==================  ===========================================================
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt
import shapely

from eidomap.base import settings
from eidomap.base.arrays import distinct_rows, group_ranks, join, member, rows, stable_argsort, unique, unique_inverse
from eidomap.base.errors import MapError, RequestError
from eidomap.model.topology import Adjacency, boundary_segments, points_in_polygons
from eidomap.record.geometry import line_segments, places_along, query
from eidomap.record.record import Places

if TYPE_CHECKING:
    from eidomap.record.record import MapRecord

KINDS = ("border", "road", "board", "board_adjacent", "alight", "teleport", "teleport_exit", "stream", "road_eido")
KIND = {name: code for code, name in enumerate(KINDS)}
LAYERS = ("eido", "pousa", "hub")
#: Name of the teleport hub node.
HUB = "@teleport"
#: What the build notices on the way that ``eidomap validate`` reports as errors
#: (counts in :attr:`Network.map_errors`): cheap signs, not a full validation.
MAP_ERROR_CODES = ("overlap", "pousa-off-road", "pousa-outside", "road-short", "fountain-outside", "stream-outside")


@dataclass(frozen=True, eq=False)
class CostTable:
    """What each step costs one actor, by the kind of the step and the terrain it enters.

    ``array[k, t]`` is the cost of an edge of kind ``k`` (:data:`KINDS`)
    entering terrain ``t``; the last column is for an edge that enters no
    terrain (into the teleport hub); ``inf`` is impassable.  Shape
    ``(len(KINDS), n_terrains + 1)``.  A :class:`Network` gathers it straight
    into its edges or pairs (:meth:`Network.edge_weights`, :meth:`Network.csr`):
    where the searches take weights they take per-edge weights (shape
    ``(n_edges,)``) or a cost table, told apart by type.
    """

    array: np.ndarray

    def __post_init__(self) -> None:
        a = np.asarray(self.array, dtype=float)
        if a.ndim != 2 or a.shape[0] != len(KINDS):
            raise ValueError(f"a cost table has shape ({len(KINDS)}, terrains + 1), got {a.shape}")
        object.__setattr__(self, "array", a)

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        return self.array if dtype is None else self.array.astype(dtype)


def _weights(weights: npt.ArrayLike | CostTable) -> np.ndarray | CostTable:
    """Per-edge weights or a :class:`CostTable`, as given (told apart by type, never by shape)."""
    if isinstance(weights, CostTable):
        return weights
    w = np.asarray(weights)
    if w.ndim != 1:
        raise RequestError(f"weights must be per edge (shape (n_edges,)) or a CostTable, got an array of shape"
                           f" {w.shape}", param="weights")
    return w


class NearLayout(NamedTuple):
    """A :class:`Network`'s CSR over its nodes renumbered (:attr:`Network.near`): node ``i`` here is
    ``order[i]`` of the network, node ``v`` of the network is ``rank[v]`` here; edge ``e`` of the CSR
    (``indptr``, ``dst``) is edge ``edges[e]`` of the network, its (kind, terrain) code ``codes[e]``
    (:attr:`Network.codes`, in the narrowest type)."""

    order: np.ndarray
    rank: np.ndarray
    indptr: np.ndarray
    dst: np.ndarray
    edges: np.ndarray
    codes: np.ndarray


@dataclass(frozen=True, eq=False)
class Network:
    """The compiled movement graph (CSR over nodes; edges sorted by source, target).

    ``indptr[u]:indptr[u+1]`` are the edges leaving node ``u``; ``dst``,
    ``kind`` and ``terrain`` give each edge's target, kind code (see
    :data:`KINDS`) and the terrain code it enters (-1 for none).  Parallel
    edges (same source and target, other kind or terrain) are grouped: the
    ``pair_*`` arrays are the CSR over distinct (source, target) pairs, and
    ``pair_start`` the first edge of each group.  ``map_errors`` counts, per
    :data:`MAP_ERROR_CODES`, the problems the build came across.  ``offered``
    holds derived arrays a cache keeps (``pair_codes``, ``in_order``: a pass
    over every edge to make again), taken instead of being computed
    (:meth:`from_arrays`).
    """

    node_ids: np.ndarray
    node_layer: np.ndarray
    node_terrain: np.ndarray
    indptr: np.ndarray
    dst: np.ndarray
    kind: np.ndarray
    terrain: np.ndarray
    pair_indptr: np.ndarray
    pair_dst: np.ndarray
    pair_start: np.ndarray
    map_errors: np.ndarray
    terrain_names: tuple[str, ...]
    offered: Mapping[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def n_nodes(self) -> int:
        return len(self.node_ids)

    @property
    def n_edges(self) -> int:
        return len(self.dst)

    @property
    def n_eidos(self) -> int:
        return int(np.count_nonzero(self.node_layer == 0))

    @cached_property
    def src(self) -> np.ndarray:
        """Source node of each edge."""
        return np.repeat(np.arange(self.n_nodes, dtype=np.int32), np.diff(self.indptr))

    @cached_property
    def in_order(self) -> np.ndarray:
        """Edge indices sorted by target node (the reverse CSR's order).

        A cache may offer one (:attr:`offered`): it is checked before it is
        trusted, and only when first asked for (sorting again is slow on big maps).
        """
        offered = self.offered.get("in_order")
        if offered is not None and self.sorts_by_target(offered):
            return offered
        return stable_argsort(self.dst).astype(np.int32)

    def sorts_by_target(self, order: np.ndarray) -> bool:
        """Whether ``order`` is a permutation of the edges sorting them by target."""
        if order.shape != (self.n_edges,) or order.dtype.kind not in "iu":
            return False
        if self.n_edges == 0:
            return True
        if order.min() < 0 or order.max() >= self.n_edges:
            return False
        return bool(np.all(np.bincount(order, minlength=self.n_edges) == 1) and np.all(np.diff(self.dst[order]) >= 0))

    @cached_property
    def src_in(self) -> np.ndarray:
        """Source node of each edge, in :attr:`in_order` (as ``intp``, to index with)."""
        return self.src[self.in_order].astype(np.intp)

    @cached_property
    def dst_in(self) -> np.ndarray:
        """Target node of each edge, in :attr:`in_order` (as ``intp``, to index with)."""
        return self.dst[self.in_order].astype(np.intp)

    @cached_property
    def in_starts(self) -> np.ndarray:
        """Where each node's incoming edges start in :attr:`in_order` (nodes with some)."""
        d = self.dst_in
        return np.flatnonzero(np.r_[True, d[1:] != d[:-1]]) if len(d) else np.empty(0, np.int64)

    @cached_property
    def in_nodes(self) -> np.ndarray:
        """The node of each run in :attr:`in_starts`."""
        return self.dst_in[self.in_starts]

    @cached_property
    def codes(self) -> np.ndarray:
        """Each edge's (kind, terrain) as one index into a flattened (kind x terrain+1) table."""
        return self.codes_of(slice(None))

    def codes_of(self, edges: slice | np.ndarray) -> np.ndarray:
        """:attr:`codes` of some edges only."""
        width = len(self.terrain_names) + 1
        return self.kind[edges].astype(np.intp) * width + self.terrain[edges] % width  # terrain -1: the last column

    @cached_property
    def _in_codes(self) -> np.ndarray:
        return self.codes[self.in_order].astype(np.intp)  # an index would convert them on every gather

    def edge_weights_in(self, table: CostTable | np.ndarray) -> np.ndarray:
        """:meth:`edge_weights` in :attr:`in_order` (one gather, no permutation)."""
        return np.asarray(table).ravel()[self._in_codes]

    def edge_weights(self, table: CostTable | np.ndarray) -> np.ndarray:
        """Weight of every edge: one gather from a cost table (:class:`CostTable`, or its array)."""
        return np.take(np.asarray(table).ravel(), self.codes)

    @property
    def n_codes(self) -> int:
        """How many (kind, terrain) codes there are: the size of a flattened (kind x terrain+1) table."""
        return len(KINDS) * (len(self.terrain_names) + 1)

    @cached_property
    def pair_codes(self) -> np.ndarray:
        """:attr:`codes` of each pair's first edge, in the narrowest unsigned type (a cache may offer them, checked
        for length and range)."""
        offered = self.offered.get("pair_codes")
        if offered is not None and len(offered) == len(self.pair_dst) and offered.dtype.kind in "iu" \
                and (len(offered) == 0 or (offered.min() >= 0 and offered.max() < self.n_codes)):
            return offered
        return self.codes_of(self.pair_start).astype(np.min_scalar_type(self.n_codes - 1))

    @cached_property
    def _multi_codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs that have parallel edges, their edges' codes and where each pair's start among them."""
        size = np.diff(np.r_[self.pair_start, self.n_edges])
        multi = np.flatnonzero(size > 1)
        edges = np.repeat(self.pair_start[multi], size[multi]) + group_ranks(size[multi])
        return multi, self.codes_of(edges), np.cumsum(size[multi]) - size[multi]

    def pair_weights(self, weights: np.ndarray | CostTable) -> np.ndarray:
        """Cheapest weight of each distinct (source, target) pair.

        ``weights`` are the edge weights, or a :class:`CostTable`: then they
        are gathered straight in pair order, and only the few pairs with
        parallel edges look at more than one edge.
        """
        weights = _weights(weights)
        if not isinstance(weights, CostTable):
            return np.minimum.reduceat(weights, self.pair_start) if len(weights) else weights
        multi, multi_codes, starts = self._multi_codes
        flat = weights.array.ravel()
        out = np.take(flat, self.pair_codes)
        if len(multi):
            out[multi] = np.minimum.reduceat(np.take(flat, multi_codes), starts)
        return out

    def csr(self, weights: np.ndarray | CostTable) -> Any:
        """A SciPy CSR matrix of the cheapest pair weights (``weights``: edge weights or a :class:`CostTable`).

        Impassable pairs stay as explicit ``inf`` entries: SciPy's searches
        never improve a distance through them, and no filtering pass is needed.
        """
        from scipy.sparse import csr_matrix

        return csr_matrix((self.pair_weights(weights), self.pair_dst, self.pair_indptr),
                          shape=(self.n_nodes, self.n_nodes))

    @cached_property
    def near(self) -> NearLayout:
        """The CSR with the nodes renumbered so that neighbours sit close in memory (:class:`NearLayout`).

        A search settles a node's neighbours soon after it; in the map's own
        order (the file's) they lie anywhere in the arrays, and on a big map
        each step reads memory the caches do not hold.  The order is SciPy's
        reverse Cuthill-McKee over the edges either way (a breadth-first order
        of each connected part, narrow bands): built once, on first use.
        """
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import reverse_cuthill_mckee

        n = self.n_nodes
        links = csr_matrix((np.ones(self.n_edges, np.int8), self.dst, self.indptr), shape=(n, n))
        order = reverse_cuthill_mckee(links, symmetric_mode=False).astype(np.int32)
        rank = np.empty(n, np.int32)
        rank[order] = np.arange(n, dtype=np.int32)
        size = np.diff(self.indptr)[order]
        indptr = np.zeros(n + 1, self.indptr.dtype)
        np.cumsum(size, out=indptr[1:])
        edges = np.repeat(self.indptr[:-1][order], size) + group_ranks(size)
        codes = self.codes_of(edges).astype(np.min_scalar_type(self.n_codes - 1))
        return NearLayout(order, rank, indptr, rank[self.dst[edges]], edges.astype(np.int32), codes)

    def weights_of(self, edges: slice | np.ndarray, weights: np.ndarray | CostTable) -> np.ndarray:
        """The weights of some edges, from the edge weights or a :class:`CostTable`."""
        weights = _weights(weights)
        if isinstance(weights, CostTable):
            return weights.array.ravel()[self.codes_of(edges)]
        return weights[edges]

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays, by field name, and the derived ones a cache keeps (what a cache stores)."""
        out = {name: getattr(self, name) for name in _ARRAYS}
        out["terrain_names"] = np.array(self.terrain_names, dtype=str)
        return out | {"pair_codes": self.pair_codes, "in_order": self.in_order}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> Network:
        """The network of :meth:`arrays` (a cache's): the derived arrays among them are offered, checked before
        they are used."""
        offered = {k: arrays[k] for k in ("pair_codes", "in_order") if k in arrays}
        return cls(**{k: arrays[k] for k in _ARRAYS}, terrain_names=tuple(str(t) for t in arrays["terrain_names"]),
                   offered=offered)


#: The fields of a :class:`Network` that are arrays.
_ARRAYS = tuple(name for name in Network.__dataclass_fields__ if name not in ("terrain_names", "offered"))


def road_crossings(roads: np.ndarray, eidos: np.ndarray, adjacent_keys: np.ndarray, tolerance: float,
                   tree: shapely.STRtree | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Where the roads cross the border between two adjacent Eidos.

    Every point where a road segment crosses an Eido's boundary is an event at
    a position along the road; events at the same position (within the
    tolerance) from exactly two Eidos that are adjacent are a border crossing.
    A road through a point where three or more Eidos meet crosses nothing
    there.  Returns ``(from_eido, to_eido)``, both directions of each crossing.
    All vectorised: candidate pairs by a bulk envelope query of the distinct
    road segments, the segment intersections in numpy.
    """
    empty = np.empty(0, np.int64)
    if len(roads) == 0 or len(eidos) == 0:
        return empty, empty
    tree = tree if tree is not None else shapely.STRtree(eidos)
    start, end, seg_road, seg_len, seg_pos = line_segments(roads)
    # roads that share a stretch share its segments: each distinct one (to the bit, same way) is cut once
    pq, inst = distinct_rows(np.concatenate([start, end], axis=1))
    p, d = pq[:, :2], pq[:, 2:] - pq[:, :2]
    slack_t = tolerance / np.maximum(np.hypot(d[:, 0], d[:, 1]), tolerance)
    si, ei = query(tree, shapely.linestrings(pq.reshape(-1, 2, 2)))
    touched, ei = unique_inverse(ei)
    bnd = boundary_segments(eidos[touched])
    e = bnd.b - bnd.a
    slack_u = tolerance / np.maximum(np.hypot(e[:, 0], e[:, 1]), tolerance)
    first = np.searchsorted(bnd.owner, np.arange(len(touched) + 1))
    count = np.diff(first)[ei]
    pair = np.repeat(np.arange(len(si)), count)
    b = np.repeat(first[ei], count) + group_ranks(count)
    s = si[pair]
    # the segment crosses the boundary segment's line (t), then, of those, the line crosses the segment (u)
    ds, eb, w = rows(d, s), rows(e, b), rows(bnd.a, b) - rows(p, s)
    denom = ds[:, 0] * eb[:, 1] - ds[:, 1] * eb[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (w[:, 0] * eb[:, 1] - w[:, 1] * eb[:, 0]) / denom
    k = np.flatnonzero((denom != 0) & (t >= -slack_t[s]) & (t <= 1 + slack_t[s]))
    with np.errstate(divide="ignore", invalid="ignore"):
        u = (w[k, 0] * ds[k, 1] - w[k, 1] * ds[k, 0]) / denom[k]
    k = k[(u >= -slack_u[b[k]]) & (u <= 1 + slack_u[b[k]])]
    if not len(k):
        return empty, empty
    hit, seg = join(s[k], inst)  # every road segment that is the one cut
    road, eido = seg_road[seg], touched[ei[pair[k[hit]]]]
    pos = seg_pos[seg] + t[k[hit]] * seg_len[seg]
    order = np.lexsort((pos, road))
    road, pos, eido = road[order], pos[order], eido[order]
    new_group = np.r_[True, (road[1:] != road[:-1]) | (pos[1:] - pos[:-1] > tolerance)]
    group = np.cumsum(new_group) - 1
    order = np.lexsort((eido, group))  # the Eidos of each group together
    group, eido = group[order], eido[order]
    new_group = np.r_[True, group[1:] != group[:-1]]
    distinct = np.r_[True, new_group[1:] | (eido[1:] != eido[:-1])]
    n_distinct = np.bincount(group[distinct])
    lo = np.minimum.reduceat(eido, np.flatnonzero(new_group))
    hi = np.maximum.reduceat(eido, np.flatnonzero(new_group))
    two = n_distinct == 2
    a, c = lo[two], hi[two]
    n = len(eidos)
    key = unique(a * n + c)
    key = key[member(key, adjacent_keys)]
    a, c = np.divmod(key, n)
    return np.r_[a, c], np.r_[c, a]


#: The kinds of each family of edges :func:`build_network` may add beside the borders.
POUSA_KINDS = ("road", "board", "board_adjacent", "alight")
TELEPORT_KINDS = ("teleport", "teleport_exit", "stream")


def build_network(md: MapRecord, adj: Adjacency, tolerance: float, kinds: Collection[str] = KINDS,
                  tree: shapely.STRtree | None = None) -> Network:
    """Compile a map's record and its adjacency into the edges of ``kinds`` (a rule set's
    :attr:`~eidomap.record.rulesets.RuleSet.edge_kinds`; by default every kind: the Eido rules').

    The borders are always there; the Pousas' edges (:data:`POUSA_KINDS`), the
    teleports (:data:`TELEPORT_KINDS`) and the roads followed Eido by Eido
    (``road_eido``) are added when their kinds are asked, each family whole.
    ``tree`` is the Eidos' ``STRtree`` when the caller has one already.
    """
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise RequestError(f"kinds must be among {', '.join(KINDS)}, got {', '.join(map(repr, unknown))}")
    n_e, n_p = len(md.eidos), len(md.pousas)
    eidos = md.eidos.geoms
    terrain = md.terrain.astype(np.int32)
    if tree is None and n_e:
        tree = shapely.STRtree(eidos)
    n_nodes = n_e + n_p + 1
    w_dst, w_kind, w_ter = _key_bits(n_nodes, len(md.catalog.terrain_names))
    if 2 * w_dst + w_kind + w_ter > KEY_BITS:  # the keys would overflow: a wrong network, silently
        raise MapError(md.path, None, f"has too many features ({n_nodes - 1:,} Eidos and Pousas) for a catalog"
                                      f" of {len(md.catalog.terrain_names):,} terrains: the movement graph cannot"
                                      " be built")
    edges = []

    def add(s: np.ndarray, d: np.ndarray, k: str, t: np.ndarray | int) -> None:
        """Edges from ``s`` to ``d`` of kind ``k`` entering terrain ``t``, as :func:`_compile` keys."""
        edges.append((((np.asarray(s, np.int64) << w_dst | d) << w_kind | KIND[k]) << w_ter) | (np.asarray(t) + 1))

    add(np.r_[adj.i, adj.j], np.r_[adj.j, adj.i], "border", terrain[np.r_[adj.j, adj.i]])
    crossing = (md.roads.geoms, eidos, adj.i * max(n_e, 1) + adj.j, tolerance, tree) if "road_eido" in kinds else None
    # a big map's road crossings beside the rest: NumPy and GEOS let go of the GIL
    threaded = crossing is not None and n_e >= settings.CROSSINGS_THREAD_FROM
    with ThreadPoolExecutor(1) if threaded else contextlib.nullcontext() as pool:
        later = pool.submit(road_crossings, *crossing) if pool is not None and crossing is not None else None
        off_road, outside, dry, broken = _nodes_and_hops(md, adj, tolerance, tree, terrain, add, kinds)
        node_ids = np.array([*md.eidos.ids, *md.pousas.ids, HUB], dtype=str)
        if crossing is not None:  # oestrimios: along a road, Eido by Eido
            ra, rb = later.result() if later is not None else road_crossings(*crossing)
            add(ra, rb, "road_eido", terrain[rb])
    node_layer = np.r_[np.zeros(n_e, np.uint8), np.ones(n_p, np.uint8), np.uint8(2)]
    node_terrain = np.r_[terrain, np.full(n_p + 1, -1, np.int32)]
    short = np.count_nonzero(np.bincount(md.pousa_road, minlength=len(md.roads)) < 2) if not set(
        POUSA_KINDS).isdisjoint(kinds) else 0
    errors = np.array([adj.overlaps, off_road, outside, short, dry, broken], dtype=np.int64)
    keys = np.concatenate(edges)
    edges.clear()  # (its parts are as big as the keys, and sorting them is the peak of the build)
    return _compile(node_ids, node_layer, node_terrain, keys, n_nodes, md.catalog.terrain_names, errors)


#: How the edge builders below hand their edges over: ``add(sources, targets, kind, terrain entered)``.
_AddEdges = Callable[[np.ndarray, np.ndarray, str, np.ndarray | int], None]


def _nodes_and_hops(md: MapRecord, adj: Adjacency, tolerance: float, tree: shapely.STRtree, terrain: np.ndarray,
                    add: _AddEdges, kinds: Collection[str]) -> tuple[int, int, int, int]:
    """The edges of Pousas (boarding, alighting, along roads) and teleports of ``kinds``, given to ``add``.

    Returns how many Pousas lie off their road and outside every Eido, how
    many fountains outside every Eido, how many streams without a source and a
    mouth in Eidos (0 for a family not asked).
    """
    off_road = outside = 0
    if not set(POUSA_KINDS).isdisjoint(kinds):
        off_road, outside = _pousa_hops(md, adj, tolerance, tree, terrain, add)
    if set(TELEPORT_KINDS).isdisjoint(kinds):
        return off_road, outside, 0, 0
    return off_road, outside, *_teleports(md, tolerance, tree, terrain, add)


def _pousa_hops(md: MapRecord, adj: Adjacency, tolerance: float, tree: shapely.STRtree, terrain: np.ndarray,
                add: _AddEdges) -> tuple[int, int]:
    """The Pousas' edges (boarding, alighting, along roads); how many Pousas lie off their road, outside every
    Eido."""
    n_e, n_p = len(md.eidos), len(md.pousas)
    eidos = md.eidos.geoms
    far = np.empty(0, np.int64)
    # Pousas: which Eidos hold them, boarding and alighting, hops along roads
    pp, pe = points_in_polygons(md.pousas.geoms, eidos, tolerance, tree)
    pnode = n_e + pp
    add(pe, pnode, "board", terrain[pe])
    add(pnode, pe, "alight", terrain[pe])
    # board from an Eido adjacent to a holder, paying the holder's terrain (the borders of holders joined only)
    held = np.zeros(n_e, bool)
    held[pe] = True
    ends = np.r_[adj.i, adj.j]
    near = np.flatnonzero(held[ends])
    nb, holder = join(ends[near], pe)
    nb = np.r_[adj.j, adj.i][near[nb]]
    own = member(pp[holder] * max(n_e, 1) + nb, pp * max(n_e, 1) + pe)
    holder, nb = holder[~own], nb[~own]
    add(nb, pnode[holder], "board_adjacent", terrain[pe[holder]])
    if n_p:
        places = md.pousa_places  # (found by the reader at the default tolerance: the one most maps are built at)
        if places.tolerance != tolerance:
            places = Places(tolerance, *places_along(md.roads.geoms, md.pousa_road, md.pousas.geoms, tolerance))
        pos, near = places.position, places.near
        order = np.lexsort((pos, md.pousa_road))
        same = md.pousa_road[order][1:] == md.pousa_road[order][:-1]
        a, b = order[:-1][same], order[1:][same]
        first_holder = np.full(n_p, -1, np.int64)
        first = np.flatnonzero(np.r_[len(pp) > 0, pp[1:] != pp[:-1]])  # pp is sorted (empty: no Pousa in an Eido)
        first_holder[pp[first]] = pe[first]  # the holder listed first (lowest Eido index)
        pt = np.where(first_holder >= 0, terrain[np.maximum(first_holder, 0)], -1)
        add(n_e + np.r_[a, b], n_e + np.r_[b, a], "road", pt[np.r_[b, a]])
        far = np.flatnonzero(~near)  # a Pousa near a segment of its road is on it
    off_road = shapely.distance(md.pousas.geoms[far], md.roads.geoms[md.pousa_road[far]]) > tolerance
    return int(np.count_nonzero(off_road)), n_p - len(unique(pp))


def _teleports(md: MapRecord, tolerance: float, tree: shapely.STRtree, terrain: np.ndarray, add: _AddEdges
               ) -> tuple[int, int]:
    """Fountains through one hub, stream mouths to their sources; how many fountains lie outside every Eido,
    how many streams have no source and mouth in Eidos."""
    eidos = md.eidos.geoms
    hub = len(md.eidos) + len(md.pousas)
    fi, fe = points_in_polygons(md.fountains.geoms, eidos, tolerance, tree)
    fe = unique(fe)
    add(fe, np.full(len(fe), hub), "teleport", -1)
    add(np.full(len(fe), hub), fe, "teleport_exit", terrain[fe])
    lines = md.streams.geoms
    si, source = points_in_polygons(shapely.get_point(lines, 0), eidos, tolerance, tree)
    mi, mouth = points_in_polygons(shapely.get_point(lines, -1), eidos, tolerance, tree)
    a, b = join(mi, si)  # every (mouth Eido, source Eido) of the same stream
    m_e, s_e = mouth[a], source[b]
    differ = m_e != s_e
    add(m_e[differ], s_e[differ], "stream", terrain[s_e[differ]])
    return len(md.fountains) - len(unique(fi)), len(lines) - len(np.intersect1d(si, mi))


#: The bits an edge's key may use (an int64's, but its sign's).
KEY_BITS = 63


def _key_bits(n_nodes: int, n_terrains: int) -> tuple[int, int, int]:
    """Widths of the target, kind and terrain fields of an edge's key (see :func:`_compile`)."""
    return (n_nodes - 1).bit_length(), (len(KINDS) - 1).bit_length(), n_terrains.bit_length()


def _compile(node_ids: np.ndarray, node_layer: np.ndarray, node_terrain: np.ndarray, keys: np.ndarray, n_nodes: int,
             terrain_names: tuple[str, ...], map_errors: np.ndarray) -> Network:
    """The network of the edges given as int64 keys, one per edge.

    A key holds, from its high bits to its low ones, the edge's source,
    target, kind and terrain + 1 (:func:`_key_bits`; :data:`KEY_BITS` hold
    them for 5,000,000 features, the most a map may have, and up to 8,191
    terrains; :func:`build_network` refuses more): sorting the keys orders the
    edges by source, target, kind and terrain, ten times faster than sorting
    the edges by them (an argsort), and the sorted edges' fields are read back
    from the keys by shifts and masks, :data:`FIELD_CHUNK` keys at a time.
    ``keys`` is sorted in place: with no copy of it and no temporary its size,
    the build's peak is the keys and the fields read back.
    """
    nb, kb, tb = _key_bits(n_nodes, len(terrain_names))
    keys.sort()
    n = len(keys)
    dst, kind, ent = np.empty(n, np.int32), np.empty(n, np.uint8), np.empty(n, np.int32)
    out_degree = np.zeros(n_nodes, np.int64)
    pair_degree = np.zeros(n_nodes, np.int64)
    starts = [np.empty(0, np.int32)]
    last = np.int64(-1)  # the source and target of the edge before the chunk (none)
    for a in range(0, n, FIELD_CHUNK):
        key = keys[a : a + FIELD_CHUNK]
        pair = key >> (tb + kb)  # source and target
        first = np.empty(len(key), bool)  # the first edge between its two nodes
        first[0] = pair[0] != last
        np.not_equal(pair[1:], pair[:-1], out=first[1:])
        last = pair[-1]
        starts.append((np.flatnonzero(first) + a).astype(np.int32))
        src = pair >> nb
        out_degree += np.bincount(src, minlength=n_nodes)
        pair_degree += np.bincount(src[first], minlength=n_nodes)
        dst[a : a + len(key)] = pair & ((1 << nb) - 1)
        kind[a : a + len(key)] = (key >> tb) & ((1 << kb) - 1)
        ent[a : a + len(key)] = (key & ((1 << tb) - 1)) - 1
    pair_start = np.concatenate(starts)
    indptr = np.zeros(n_nodes + 1, np.int32)  # a map of at most 2 GiB has far fewer than 2**31 edges
    np.cumsum(out_degree, out=indptr[1:])
    pair_indptr = np.zeros(n_nodes + 1, np.int32)  # int32 indices: SciPy's CSR takes them as they are
    np.cumsum(pair_degree, out=pair_indptr[1:])
    return Network(
        node_ids=node_ids,
        node_layer=node_layer,
        node_terrain=node_terrain.astype(np.int32),
        indptr=indptr,
        dst=dst,
        kind=kind,
        terrain=ent,
        pair_indptr=pair_indptr,
        pair_dst=dst[pair_start],
        pair_start=pair_start,
        map_errors=map_errors,
        terrain_names=tuple(terrain_names),
    )


#: Edge keys :func:`_compile` reads back at a time (8 MiB of keys: its temporaries stay that small).
FIELD_CHUNK = 1 << 20


def to_networkx(net: Network, node_attrs: dict | None = None, weights: np.ndarray | None = None) -> Any:
    """The NetworkX ``MultiDiGraph`` view of a compiled network.

    Nodes are named by feature id (the hub is :data:`HUB`) and carry ``layer``
    and, for Eidos, ``terrain``; every edge carries ``kind`` and the
    ``terrain`` it enters (None for none).  ``node_attrs`` maps node names to
    extra attributes.  With ``weights`` (one per edge) it is a ``DiGraph``
    instead: between two nodes the cheapest step, its ``cost`` the weight;
    steps of infinite weight are left out.
    """
    import networkx as nx

    g = nx.MultiDiGraph() if weights is None else nx.DiGraph()
    names = net.node_ids.tolist()
    tnames = net.terrain_names
    for k, name in enumerate(names):
        attrs = {"layer": LAYERS[net.node_layer[k]]}
        if net.node_terrain[k] >= 0:
            attrs["terrain"] = tnames[net.node_terrain[k]]
        if node_attrs and name in node_attrs:
            attrs.update(node_attrs[name])
        g.add_node(name, **attrs)
    # with weights, dearest first: the cheapest step between two nodes is added last and stays
    keep: slice | np.ndarray = slice(None)
    if weights is not None:
        keep = np.argsort(-weights, kind="stable")
        keep = keep[np.isfinite(weights[keep])]
    columns = [net.src[keep].tolist(), net.dst[keep].tolist(), net.kind[keep].tolist(), net.terrain[keep].tolist()]
    edge_attrs: Iterator[dict[str, Any]] = ({"kind": KINDS[k], "terrain": tnames[t] if t >= 0 else None}
                                            for k, t in zip(*columns[2:], strict=True))
    if weights is not None:
        edge_attrs = ({**a, "cost": c} for a, c in zip(edge_attrs, weights[keep].tolist(), strict=True))
    g.add_edges_from((names[s], names[d], a) for s, d, a in zip(*columns[:2], edge_attrs, strict=True))
    return g
