"""A travel mesh over regions: cross-country travel that may cross a region anywhere.

Nodes are points along every region's boundary (each ring cut by
:func:`shapely.segmentize` into pieces no longer than ``spacing``, so every
vertex and corner is a node), the vertices of lines (roads, rivers) cut the
same way and clipped to the regions they cross, and any extra points (the
start and the goal).  A node belongs to every region it lies in or on (within
the tolerance).  Legs:

* ``cross``: a straight leg between any two nodes of one region, kept only if
  it stays inside the region (so non-convex regions bend at their corners);
* ``line``: consecutive vertices of a line's piece inside one region.

The caller weighs each leg (hours) and :func:`tree` runs SciPy's compiled
Dijkstra on the CSR of the cheapest leg between each pair of nodes;
:func:`earliest` finds the earliest arrivals where a leg's time depends on when
it starts (a travel day), over the few legs that need it (the rivers).

**Resolution.**  A crossing of a border, or a join onto or off a line, happens
at a node; nodes are at most ``spacing`` apart along any boundary or line, so
the true point is within ``spacing / 2`` of a node, and moving it there
lengthens the two straight legs meeting at it by at most ``spacing / 2`` each.
Two things make border crossings exact: the straight ways between extra points
named in ``straight`` cross the borders at nodes (:func:`build_mesh`), and
:func:`straighten` slides the crossings of a route found on the mesh along
their borders to where the route costs least.  A join onto a line stays at
its node: the mesh's time exceeds the true optimum by at most ``spacing / v``
per join, ``v`` the slowest speed of the regions involved; it is never below
it.  Within a region the mesh is exact (straight legs, bends at the region's
own vertices).

>>> import shapely
>>> m = build_mesh([shapely.box(0, 0, 2, 1), shapely.box(2, 0, 4, 1)], [], spacing=0.5, tolerance=1e-9,
...                points=[(0.5, 0.5), (3.5, 0.5)])
>>> dist, pred, leg = tree(len(m.xy), m.src, m.dst, m.length, m.extra[0])
>>> legs = walk(pred, leg, m.extra[1])
>>> round(float(dist[m.extra[1]]), 6), [m.xy[m.src[k]].tolist() for k in legs] + [m.xy[m.extra[1]].tolist()]
(3.0, [[0.5, 0.5], [2.0, 0.5], [3.5, 0.5]])
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt
import shapely

#: Leg kinds.
CROSS, LINE = 0, 1



@dataclass
class Mesh:
    """Nodes ``xy`` and directed legs ``src -> dst`` (both directions of every leg).

    ``kind`` is :data:`CROSS` or :data:`LINE`; ``region`` the region a leg
    lies in; ``line`` the line a ``LINE`` leg follows (-1 otherwise);
    ``forward`` is True when a line leg runs in the line's drawing direction;
    ``extra`` the nodes of the extra points, in order.
    """

    xy: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    length: np.ndarray
    kind: np.ndarray
    region: np.ndarray
    line: np.ndarray
    forward: np.ndarray
    extra: np.ndarray


def _coords(geoms: npt.ArrayLike, spacing: float) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of ``geoms`` cut to ``spacing``, with the index of the geometry of each."""
    return shapely.get_coordinates(shapely.segmentize(np.asarray(geoms, dtype=object), spacing), return_index=True)


def _pieces(lines: np.ndarray, regions: np.ndarray, tree: shapely.STRtree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each line clipped to each region it crosses: the pieces, their line and region."""
    li, ri = tree.query(lines, predicate="intersects")
    parts, which = shapely.get_parts(shapely.intersection(lines[li], regions[ri]), return_index=True)
    keep = shapely.get_type_id(parts) == shapely.GeometryType.LINESTRING
    return parts[keep], li[which[keep]], ri[which[keep]]


def _inside_pairs(members: np.ndarray, owner: np.ndarray, xy: np.ndarray, regions: np.ndarray, tolerance: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of nodes of the same region whose straight leg stays in it: (i, j, region)."""
    order = np.lexsort((members, owner))
    members, owner = members[order], owner[order]
    bounds = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1], True])
    ii, jj, rr = [], [], []
    for a, b in pairwise(bounds):  # one block of pairs per region
        i, j = np.triu_indices(int(b - a), 1)
        ii.append(members[a + i])
        jj.append(members[a + j])
        rr.append(np.full(len(i), owner[a]))
    i, j, r = (np.concatenate(x) if x else np.empty(0, np.int64) for x in (ii, jj, rr))
    convex = shapely.area(shapely.convex_hull(regions)) - shapely.area(regions) <= tolerance * shapely.length(regions)
    check = ~convex[r]
    if check.any():
        segs = shapely.linestrings(np.stack([xy[i[check]], xy[j[check]]], axis=1))
        grown = shapely.buffer(regions, tolerance)
        shapely.prepare(grown)  # (each region is asked of many legs: GEOS indexes its edges once)
        ok = np.ones(len(i), bool)
        ok[check] = shapely.covers(grown[r[check]], segs)
        i, j, r = i[ok], j[ok], r[ok]
    return i, j, r


def _junctions(lines: np.ndarray, tree: shapely.STRtree, tolerance: float) -> np.ndarray:
    """Points where two lines meet: their crossings, and an end of one lying on the other."""
    a, b = tree.query(lines, predicate="dwithin", distance=tolerance)
    a, b = a[a < b], b[a < b]
    if not len(a):
        return np.empty((0, 2))
    crossings = shapely.get_coordinates(shapely.intersection(lines[a], lines[b]))
    ends = shapely.get_coordinates(shapely.boundary(lines[np.r_[a, b]]), return_index=True)
    near = shapely.dwithin(shapely.points(ends[0]), lines[np.r_[b, a]][ends[1]], tolerance)
    return np.vstack([crossings, ends[0][near]])


def _with_vertices(lines: np.ndarray, points: np.ndarray, tree: shapely.STRtree, tolerance: float) -> np.ndarray:
    """``lines`` with each of ``points`` that lies on one (within ``tolerance``) made a vertex of it."""
    if not len(points):
        return lines
    pi, li = tree.query(shapely.points(points), predicate="dwithin", distance=tolerance)
    out = lines.copy()
    for k in np.unique(li):  # one pass per line that gets points (a few)
        mine = points[pi[li == k]]
        xy = shapely.get_coordinates(lines[k])
        along = np.r_[0.0, np.cumsum(np.hypot(*np.diff(xy, axis=0).T))]
        at = shapely.line_locate_point(lines[k], shapely.points(mine))
        xy = np.vstack([xy, mine])[np.argsort(np.r_[along, at], kind="stable")]
        out[k] = shapely.linestrings(xy[np.r_[True, (np.diff(xy, axis=0) != 0).any(axis=1)]])
    return out


def snap(lines: np.ndarray, points: npt.ArrayLike, tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """Points on a line (within ``tolerance``) moved onto the nearest such line, and the lines with
    those points and the lines' junctions made vertices: a start on a road then joins the road, and
    two rivers that meet share a node.  Returns ``(lines, points)``.

    >>> road = shapely.LineString([(0, 0), (10, 0)])
    >>> lines, pts = snap([road], [(4, 1e-12), (5, 3)], 1e-9)
    >>> shapely.get_coordinates(lines[0]).tolist(), pts.tolist()
    ([[0.0, 0.0], [4.0, 0.0], [10.0, 0.0]], [[4.0, 0.0], [5.0, 3.0]])
    """
    lines = np.asarray(lines, dtype=object).reshape(-1)
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    if not len(lines):
        return lines, points
    tree = shapely.STRtree(lines)
    pts = shapely.points(points)
    pi, li = tree.query(pts, predicate="dwithin", distance=tolerance)
    if len(pi):
        onto = shapely.line_interpolate_point(lines[li], shapely.line_locate_point(lines[li], pts[pi]))
        gap = shapely.distance(onto, pts[pi])
        order = np.lexsort((gap, pi))  # per point, the nearest line first
        first = order[np.r_[True, pi[order][1:] != pi[order][:-1]]]
        points = points.copy()
        points[pi[first]] = shapely.get_coordinates(onto[first])
    lines = _with_vertices(lines, np.vstack([points, _junctions(lines, tree, tolerance)]), tree, tolerance)
    return lines, points


def _crossings(regions: np.ndarray, tree: shapely.STRtree, pairs: np.ndarray) -> np.ndarray:
    """Where the straight segments ``pairs`` (``(k, 2, 2)``) cross the regions' boundaries (the ends of a piece
    that runs along one)."""
    if not len(pairs):
        return np.empty((0, 2))
    segs = shapely.linestrings(pairs)
    si, ri = tree.query(segs, predicate="intersects")
    return shapely.get_coordinates(shapely.intersection(segs[si], shapely.boundary(regions[ri])))


def build_mesh(regions: np.ndarray, lines: np.ndarray, spacing: float, tolerance: float,
               points: Sequence[Sequence[float]] = (), straight: Sequence[tuple[int, int]] = ()) -> Mesh:
    """The travel mesh of ``regions`` (polygons) with ``lines`` to follow, at this ``spacing``.

    The extra ``points`` are first moved onto the lines they lie on, and made vertices of them
    (:func:`snap`), so that a start on a road starts on the road at any spacing.  Each pair ``(i, j)`` of
    ``straight`` names two of them whose straight way is made exact: the points where it crosses a border
    are nodes, so a straight trip crosses where the straight line does at any spacing.
    """
    regions = np.asarray(regions, dtype=object)
    lines, extra_xy = snap(lines, points, tolerance)
    tree = shapely.STRtree(regions)
    ring_xy, _ = _coords(shapely.get_rings(shapely.get_parts(regions)), spacing)
    pairs = np.array([[extra_xy[i], extra_xy[j]] for i, j in straight], dtype=float).reshape(-1, 2, 2)
    ring_xy = np.vstack([ring_xy, _crossings(regions, tree, pairs)])
    pieces, piece_line, piece_region = _pieces(lines, regions, tree) if len(lines) else (lines, [], [])
    line_xy, piece = _coords(pieces, spacing)
    all_xy = np.vstack([ring_xy, line_xy, extra_xy])
    _, first, node = np.unique(np.round(all_xy / max(tolerance, 1e-300)), axis=0, return_index=True,
                               return_inverse=True)
    node = node.reshape(-1)
    xy = all_xy[first]
    pt, owner = tree.query(shapely.points(xy), predicate="dwithin", distance=tolerance)
    i, j, r = _inside_pairs(pt, owner, xy, regions, tolerance)
    # line legs: consecutive vertices of one piece
    line_node = node[len(ring_xy): len(ring_xy) + len(line_xy)]
    same = piece[1:] == piece[:-1]
    a, b, p = line_node[:-1][same], line_node[1:][same], piece[:-1][same]
    n_cross, n_line = len(i), len(a)
    src = np.concatenate([i, j, a, b])
    dst = np.concatenate([j, i, b, a])
    seg = xy[dst] - xy[src]
    lr = np.asarray(piece_region, dtype=np.int64)[p]
    ll = np.asarray(piece_line, dtype=np.int64)[p]
    return Mesh(
        xy=xy, src=src, dst=dst, length=np.hypot(seg[:, 0], seg[:, 1]),
        kind=np.repeat(np.array([CROSS, LINE], np.int8), [2 * n_cross, 2 * n_line]),
        region=np.concatenate([r, r, lr, lr]),
        line=np.concatenate([np.full(2 * n_cross, -1), ll, ll]),
        forward=np.concatenate([np.zeros(2 * n_cross, bool), np.ones(n_line, bool), np.zeros(n_line, bool)]),
        extra=node[len(ring_xy) + len(line_xy):],
    )


def _edge(region: shapely.Geometry, p: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The straight piece of ``region``'s boundary that ``p`` lies on, off its ends (within ``tolerance``): its two
    ends; None at one of the region's vertices or off its boundary."""
    rings = shapely.get_rings(shapely.get_parts(region))
    xy = [shapely.get_coordinates(r) for r in rings]
    a = np.vstack([c[:-1] for c in xy])
    b = np.vstack([c[1:] for c in xy])
    if (np.hypot(*(a - p).T) <= tolerance).any():
        return None
    d = b - a
    t = np.clip(((p - a) * d).sum(axis=1) / np.maximum((d * d).sum(axis=1), 1e-300), 0.0, 1.0)
    gap = np.hypot(*(a + t[:, None] * d - p).T)
    k = int(np.argmin(gap))
    return (a[k], b[k]) if gap[k] <= tolerance else None


def _slide(a0: np.ndarray, d: np.ndarray, lo: float, hi: float, x: np.ndarray, wx: float, y: np.ndarray,
           wy: float) -> float:
    """Where on ``a0 + t d`` (``lo <= t <= hi``) the way ``x`` -> point -> ``y`` costs least, at ``wx`` and ``wy`` a
    unit: the root of its derivative, which rises with ``t`` (the cost is convex), by bisection."""
    def slope(t: float) -> float:
        p = a0 + t * d
        u, v = p - x, p - y
        return wx * float(u @ d) / max(math.hypot(*u), 1e-300) + wy * float(v @ d) / max(math.hypot(*v), 1e-300)

    if slope(lo) >= 0:
        return lo
    if slope(hi) <= 0:
        return hi
    for _ in range(64):  # 2^-64 of the piece: below a double's own precision
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if slope(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


#: Most rounds of sliding every border crossing of a route once (:func:`straighten`).
MAX_SWEEPS = 1000


def straighten(points: np.ndarray, region: np.ndarray, weight: np.ndarray, regions: np.ndarray,
               tolerance: float) -> np.ndarray:
    """A route's border crossings slid along their borders to where the route costs least: exact crossings.

    ``points`` are the route's vertices; leg ``i`` (from ``points[i]`` to ``points[i + 1]``) crosses region
    ``region[i]`` (-1: a leg that is not a straight crossing of a region, kept) at ``weight[i]`` a unit.  A vertex
    between the straight legs of two regions, inside a straight piece of the border they share (not at a corner),
    moves along that piece: the cost is convex in the vertices' places, and each is put at its best place given its
    neighbours (rounds of exact one-dimensional minimisations, until none moves by ``tolerance``).  A leg that would
    leave a non-convex region keeps its vertices where they were.  The mesh finds the borders a route crosses; this
    finds where.
    """
    start = np.array(points, dtype=float)
    pieces = {}
    for j in range(1, len(start) - 1):
        ra, rb = int(region[j - 1]), int(region[j])
        if ra < 0 or rb < 0 or ra == rb:
            continue
        ea, eb = _edge(regions[ra], start[j], tolerance), _edge(regions[rb], start[j], tolerance)
        if ea is None or eb is None:
            continue
        a0, d = ea[0], ea[1] - ea[0]
        length2 = float(d @ d)
        off = [abs(float(d[0] * (q - a0)[1] - d[1] * (q - a0)[0])) for q in eb]  # B's piece on A's line?
        if max(off) > tolerance * math.sqrt(length2):
            continue
        tb = [float((q - a0) @ d) / length2 for q in eb]
        lo, hi = max(0.0, min(tb)), min(1.0, max(tb))
        if hi > lo:
            pieces[j] = (a0, d, lo, hi)
    while True:
        out = start.copy()
        for _ in range(MAX_SWEEPS):
            moved = 0.0
            for j, (a0, d, lo, hi) in pieces.items():
                q = a0 + _slide(a0, d, lo, hi, out[j - 1], weight[j - 1], out[j + 1], weight[j]) * d
                moved = max(moved, float(np.abs(q - out[j]).max()))
                out[j] = q
            if moved <= tolerance:
                break
        legs = [i for i in range(len(out) - 1) if region[i] >= 0 and (i in pieces or i + 1 in pieces)]
        inside = shapely.covers(shapely.buffer(regions[region[legs].astype(np.int64)], tolerance),
                                shapely.linestrings(np.stack([out[legs], out[np.add(legs, 1)]], axis=1))) \
            if legs else np.ones(0, bool)
        left = [i for i, ok in zip(legs, inside.tolist(), strict=True) if not ok]
        if not left:
            return out
        for i in left:  # (a non-convex region: those crossings stay at the mesh's nodes)
            pieces.pop(i, None)
            pieces.pop(i + 1, None)


@dataclass(frozen=True)
class Lightest:
    """The lightest leg between each pair of nodes, as a CSR graph: what :func:`tree` searches.

    Built once by :func:`lightest` for the searches of one weighing (a journey's walk from the start
    and its walk to the goal share it).
    """

    graph: Any  # scipy.sparse.csr_array, (n, n)
    #: (k,) the leg each stored entry is, in (src, dst) order
    first: np.ndarray
    #: (k,) ``src * n + dst`` of each stored entry, ascending
    keys: np.ndarray

    def tree(self, source: int, reverse: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(dist, pred, leg)`` from ``source`` (``reverse``: to it): see :func:`tree`."""
        from scipy.sparse.csgraph import dijkstra

        n = self.graph.shape[0]
        dist, pred = dijkstra(self.graph.T if reverse else self.graph, directed=True, indices=source,
                              return_predecessors=True)
        leg = np.full(n, -1, np.int64)
        has = np.flatnonzero(pred >= 0)
        a, b = (has, pred[has]) if reverse else (pred[has], has)
        leg[has] = self.first[np.searchsorted(self.keys, a * n + b)]
        return dist, pred, leg


def lightest(n: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray) -> Lightest:
    """The lightest leg of finite ``weight`` between each pair of the ``n`` nodes (ties: the first leg)."""
    from scipy.sparse import csr_array

    ok = np.flatnonzero(np.isfinite(weight))
    # the legs by pair (stable: each pair's legs in index order), then each pair's first lightest leg: sorting
    # 300,000 pairs takes 2 ms, the lexsort of (src, dst, weight) that gives the same order 145
    pair = src[ok].astype(np.int64) * n + dst[ok]
    order = np.argsort(pair, kind="stable")
    legs, pair = ok[order], pair[order]
    head = np.r_[True, pair[1:] != pair[:-1]] if len(pair) else np.ones(0, bool)
    group = np.cumsum(head) - 1
    lowest = np.minimum.reduceat(weight[legs], np.flatnonzero(head)) if len(legs) else weight[:0]
    at = np.flatnonzero(weight[legs] == lowest[group])
    at = at[np.r_[True, group[at[1:]] != group[at[:-1]]]] if len(at) else at
    first, keys = legs[at], pair[at]
    # (sorted by source, then destination, one entry a pair: the CSR arrays themselves)
    indptr = np.searchsorted(keys, np.arange(n + 1, dtype=np.int64) * n)
    graph = csr_array((weight[first], dst[first], indptr), shape=(n, n))
    return Lightest(graph, first, keys)


def tree(n: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray, source: int, reverse: bool = False
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Least total weight from node ``source`` to every node (``reverse``: from every node to
    ``source``), with SciPy's compiled Dijkstra: ``(dist, pred, leg)``.

    ``pred[v]`` is the node before ``v`` on its way from ``source`` (``reverse``: the node after
    ``v`` on its way to ``source``), ``leg[v]`` the leg between them (an index into ``src``/``dst``),
    -1 where there is none.  Legs of infinite weight are left out; between two nodes only the
    lightest leg counts.  Several searches of one weighing share :func:`lightest`'s graph.
    """
    return lightest(n, src, dst, weight).tree(source, reverse)


def walk(pred: np.ndarray, leg: np.ndarray, end: int, reverse: bool = False) -> list[int]:
    """The legs of a :func:`tree` from its source to ``end`` (``reverse``: from ``end`` to the source)."""
    out = []
    while leg[end] >= 0:
        out.append(int(leg[end]))
        end = int(pred[end])
    return out if reverse else out[::-1]


def earliest(n: int, src: np.ndarray, dst: np.ndarray, legs: np.ndarray, source: int, start: Any,
             step: Callable[[Any, int], Any]) -> dict[int, tuple[Any, int]]:
    """Earliest arrival over ``legs`` (indices into ``src``/``dst`` of a graph of ``n`` nodes) from
    node ``source`` at ``start``: ``{node: (arrival, leg)}``, ``leg`` the leg it arrived by (-1 at
    the source).

    ``step(arrival, leg)`` is the arrival at the leg's end when leaving its start at ``arrival``;
    arrivals compare by their ``key``.  A Dijkstra over arrival times, exact when leaving later never
    arrives earlier (each leg's ``step`` is monotone), as a travel day is.
    """
    legs = np.asarray(legs, dtype=np.int64)
    legs = legs[np.argsort(src[legs], kind="stable")]
    bounds = np.searchsorted(src[legs], np.arange(n + 1))
    best = {source: (start, -1)}
    heap = [(start.key, source)]
    done = set()
    while heap:
        _, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        here = best[u][0]
        for k in legs[bounds[u]:bounds[u + 1]].tolist():
            there = step(here, k)
            v = int(dst[k])
            if v not in best or there.key < best[v][0].key:
                best[v] = (there, k)
                heapq.heappush(heap, (there.key, v))
    return best
