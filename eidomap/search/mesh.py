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

The caller weighs each leg (hours) and :func:`shortest_path` runs SciPy's
compiled Dijkstra on the CSR of the cheapest leg between each pair of nodes.

**Resolution.**  A crossing of a border, or a join onto or off a line, can
only happen at a node; nodes are at most ``spacing`` apart along any boundary
or line, so the true crossing point is within ``spacing / 2`` of a node.
Moving the crossing there lengthens the two straight legs meeting at it by at
most ``spacing / 2`` each (triangle inequality), so the mesh's time exceeds
the true optimum by at most ``spacing / v`` per crossing or join, ``v`` the
slowest speed of the regions involved; it is never below it.  Within a region
the mesh is exact (straight legs, bends at the region's own vertices).

>>> import shapely
>>> m = build_mesh([shapely.box(0, 0, 2, 1), shapely.box(2, 0, 4, 1)], [], spacing=0.5, tolerance=1e-9,
...                points=[(0.5, 0.5), (3.5, 0.5)])
>>> hours, path, legs = shortest_path(len(m.xy), m.src, m.dst, m.length, m.extra[0], m.extra[1])
>>> round(hours, 6), [m.xy[k].tolist() for k in path]
(3.0, [[0.5, 0.5], [2.0, 0.5], [3.5, 0.5]])
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import shapely

__all__ = ["CROSS", "LINE", "Mesh", "build_mesh", "shortest_path"]

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


def _coords(geoms, spacing: float) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of ``geoms`` cut to ``spacing``, with the index of the geometry of each."""
    return shapely.get_coordinates(shapely.segmentize(np.asarray(geoms, dtype=object), spacing), return_index=True)


def _pieces(lines, regions, tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each line clipped to each region it crosses: the pieces, their line and region."""
    li, ri = tree.query(lines, predicate="intersects")
    parts, which = shapely.get_parts(shapely.intersection(lines[li], regions[ri]), return_index=True)
    keep = shapely.get_type_id(parts) == shapely.GeometryType.LINESTRING
    return parts[keep], li[which[keep]], ri[which[keep]]


def _inside_pairs(members: np.ndarray, owner: np.ndarray, xy: np.ndarray, regions, tolerance: float):
    """Pairs of nodes of the same region whose straight leg stays in it: (i, j, region)."""
    order = np.lexsort((members, owner))
    members, owner = members[order], owner[order]
    bounds = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1], True])
    ii, jj, rr = [], [], []
    for a, b in pairwise(bounds):  # one block of pairs per region
        i, j = np.triu_indices(b - a, 1)
        ii.append(members[a + i])
        jj.append(members[a + j])
        rr.append(np.full(len(i), owner[a]))
    i, j, r = (np.concatenate(x) if x else np.empty(0, np.int64) for x in (ii, jj, rr))
    convex = shapely.area(shapely.convex_hull(regions)) - shapely.area(regions) <= tolerance * shapely.length(regions)
    check = ~convex[r]
    if check.any():
        segs = shapely.linestrings(np.stack([xy[i[check]], xy[j[check]]], axis=1))
        grown = shapely.buffer(regions, tolerance)
        ok = np.ones(len(i), bool)
        ok[check] = shapely.covers(grown[r[check]], segs)
        i, j, r = i[ok], j[ok], r[ok]
    return i, j, r


def build_mesh(regions, lines, spacing: float, tolerance: float, points=()) -> Mesh:
    """The travel mesh of ``regions`` (polygons) with ``lines`` to follow, at this ``spacing``."""
    regions = np.asarray(regions, dtype=object)
    lines = np.asarray(lines, dtype=object).reshape(-1)
    tree = shapely.STRtree(regions)
    ring_xy, _ = _coords(shapely.get_rings(shapely.get_parts(regions)), spacing)
    pieces, piece_line, piece_region = _pieces(lines, regions, tree) if len(lines) else (lines, [], [])
    line_xy, piece = _coords(pieces, spacing)
    extra_xy = np.asarray(points, dtype=float).reshape(-1, 2)
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


def shortest_path(n: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray, start: int, goal: int
                  ) -> tuple[float, list[int], np.ndarray]:
    """Least total weight from ``start`` to ``goal``, the nodes on the way and the legs taken.

    Legs of infinite weight are left out; between two nodes only the lightest
    leg counts.  The legs are indices into ``src``/``dst``.  No way: ``inf``, [], [].
    """
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import dijkstra

    ok = np.isfinite(weight)
    src, dst, weight = src[ok], dst[ok], weight[ok]
    order = np.lexsort((weight, dst, src))
    first = order[np.r_[True, (np.diff(src[order]) != 0) | (np.diff(dst[order]) != 0)]] if len(order) else order
    graph = csr_array((weight[first], (src[first], dst[first])), shape=(n, n))
    dist, pred = dijkstra(graph, directed=True, indices=start, return_predecessors=True)
    if not np.isfinite(dist[goal]):
        return float("inf"), [], np.empty(0, np.int64)
    path = [int(goal)]
    while path[-1] != start:  # one step per node of the path
        path.append(int(pred[path[-1]]))
    path.reverse()
    keys = src[first] * n + dst[first]  # sorted: first is in (src, dst) order
    nodes = np.asarray(path, dtype=np.int64)
    legs = np.flatnonzero(ok)[first[np.searchsorted(keys, nodes[:-1] * n + nodes[1:])]]
    return float(dist[goal]), path, legs
