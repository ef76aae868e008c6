"""Reproducible synthetic maps for tests and benchmarks.

Voronoi cells of random points, clipped to a square board: a sea around the
coast, a strip of air along the top, land terrains by a smooth random
elevation, roads with Pousas between distant land Eidos, fountains and
streams.  The same ``(eidos, seed)`` always gives the same map.

:func:`generate_map` returns the GeoJSON document; :func:`write_generated`
writes the same bytes as ``write_map(generate_map(...))`` feature by feature,
without ever holding the document (a million Eidos in about 20 s and 1 GiB on
two cores).

>>> doc = generate_map(200, seed=1)
>>> sum(f["properties"]["kind"] == "eido" for f in doc["features"])
200
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

from eidomap.base import params, progress, settings
from eidomap.base.arrays import nested_take
from eidomap.base.files import open_atomic, write_atomic
from eidomap.base.settings import twin
from eidomap.model.topology import Adjacency, ring_segments, segment_adjacency
from eidomap.record.geometry import tolerance_for

if TYPE_CHECKING:
    import pyarrow as pa
    from scipy.sparse import csr_matrix

LAND = ("marsh", "meadow", "scrub", "forest", "rocks", "rocky_cliff", "mountain")
#: Eidos formatted and written at a time by :func:`write_generated`.
CHUNK = 10_000
#: Voronoi cells clipped and turned into arrays at a time by :func:`_board`.
CELL_CHUNK = 20_000
#: Sites past which the Voronoi cells are built in bands of this many sites (:func:`_cell_pieces`).
BAND_SITES = 50_000
#: A band's first margin either side, in mean distances between sites: doubled where a cell reaches past it (at a
#: million sites, one band of twenty).
BAND_MARGIN = 4.0
#: Breadth-first searches :func:`_roads` runs at once (each in a thread, without the GIL).
SEARCH_THREADS = 2
#: The most Eidos a generated map has (a million: about 20 s and 1 GiB), and its largest seed (64 bits).
MAX_EIDOS = 1_000_000
MAX_SEED = 2**64 - 1
_BAND = 16
_JSON: dict[str, Any] = {"separators": (",", ":")}


def voronoi_cells(n: int, rng: np.random.Generator, side: float) -> np.ndarray:
    """``n`` Voronoi cells of uniform random points, clipped to ``[0, side]^2``."""
    cells = np.empty(n, dtype=object)
    for sites, piece in _cell_pieces(rng.uniform(0, side, (n, 2)), side):
        cells[sites] = piece
    return cells


def _cell_pieces(pts: np.ndarray, side: float) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The Voronoi cells of the sites ``pts``, clipped to ``[0, side]^2``: (sites, their cells), a piece at a time.

    Up to :data:`BAND_SITES` sites, one GEOS diagram of them all, its cells
    clipped :data:`CELL_CHUNK` at a time, in the sites' order.  Past it, the
    sites are cut by ``x`` into bands of :data:`BAND_SITES`, and each band's
    cells come from a diagram of the band and the sites within a margin either
    side: GEOS's whole triangulation is never held (at 200,000 sites it alone
    is 3x the file written).  A cell so built is the board's when no site left
    out is nearer than its own site to any of its vertices -- the cell is
    convex, so a site that took a part of it would take a vertex -- which holds
    when each vertex's circle through its site stays inside the margin; a band
    where one does not is built again with the margin doubled.
    """
    box = shapely.box(0, 0, side, side)
    n = len(pts)
    if n <= BAND_SITES:
        yield from _clipped(_diagram(pts, box), np.arange(n), 0, box, side)
        return
    order = np.argsort(pts[:, 0], kind="stable")
    x = pts[order, 0]
    for k0 in range(0, n, BAND_SITES):
        k1 = min(k0 + BAND_SITES, n)
        margin = BAND_MARGIN * side / np.sqrt(n)  # (in mean distances between sites)
        while True:
            lo, hi = np.searchsorted(x, x[k0] - margin), np.searchsorted(x, x[k1 - 1] + margin, "right")
            lo, hi = min(lo, max(k0 - 1, 0)), max(hi, min(k1 + 1, n))  # (GEOS wants two sites)
            pieces = list(_clipped(_diagram(pts[order[lo:hi]], box), order[k0:k1], k0 - lo, box, side))
            if lo == 0 and hi == n:  # no site left out
                break
            # the sites left out lie beyond these lines
            left, right = (x[k0] - margin if lo > 0 else -np.inf), (x[k1 - 1] + margin if hi < n else np.inf)
            if all(_within(cells, pts[sites], left, right) for sites, cells in pieces):
                break
            margin *= 2
        yield from pieces


def _diagram(pts: np.ndarray, box: shapely.Geometry) -> shapely.Geometry:
    """The Voronoi cells of the sites ``pts``, unclipped but to ``box``, as one GEOS collection in their order.

    The sites go to GEOS as the vertices of one line: the cells are those of
    a multipoint of them, bit for bit and in the same order, without a GEOS
    point each (70 MiB at 200,000 Eidos).
    """
    return shapely.voronoi_polygons(shapely.linestrings(pts), extend_to=box, ordered=True)


def _clipped(diagram: shapely.Geometry, sites: np.ndarray, first: int, box: shapely.Geometry,
             side: float) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The cells of ``sites``, parts ``first`` on of ``diagram``, clipped :data:`CELL_CHUNK` at a time."""
    for k0 in range(0, len(sites), CELL_CHUNK):
        k1 = min(k0 + CELL_CHUNK, len(sites))
        yield sites[k0:k1], _clip(shapely.get_geometry(diagram, np.arange(first + k0, first + k1)), box, side)


def _within(cells: np.ndarray, sites: np.ndarray, left: float, right: float) -> bool:
    """Whether the circle about each vertex of each cell through its site (``sites``: ``(n, 2)``) lies between
    ``x = left`` and ``x = right`` (with a relative margin for rounding)."""
    xy, cell = shapely.get_coordinates(cells, return_index=True)
    r = np.hypot(*(xy - sites[cell]).T) * (1 + 1e-9)
    return bool(np.all(xy[:, 0] - r > left) and np.all(xy[:, 0] + r < right))


def _clip(cells: np.ndarray, box: shapely.Geometry, side: float) -> np.ndarray:
    """``shapely.intersection(cells, box)``, with the overlay run only on the cells the box cuts.

    GEOS' overlay gives a clockwise ring that lies strictly inside the box back
    unchanged but for where it starts: one vertex later (the ring is rebuilt
    from its single edge, whose first point it skips and closes on).  That is
    done here with arrays for those cells; the rest (cut by the box, or not a
    plain clockwise ring) go through ``shapely.intersection``.
    """
    out = np.empty(len(cells), dtype=object)
    b = shapely.bounds(cells)
    inner = (b[:, 0] > 0) & (b[:, 1] > 0) & (b[:, 2] < side) & (b[:, 3] < side)
    inner &= shapely.get_num_interior_rings(cells) == 0
    inner[inner] &= ~shapely.is_ccw(shapely.get_exterior_ring(cells[inner]))
    if inner.any():
        _, xy, (ring_off, _) = shapely.to_ragged_array(cells[inner])
        length = np.diff(ring_off)
        start = np.repeat(ring_off[:-1], length)
        k = np.arange(len(xy)) - start
        # a repeated vertex would be dropped by the overlay: leave such cells to it
        repeated = np.zeros(len(xy), bool)
        repeated[1:] = np.all(xy[1:] == xy[:-1], axis=1) & (k[1:] > 0)
        plain = ~np.logical_or.reduceat(repeated, ring_off[:-1])
        rotated = xy[start + 1 + k % np.repeat(length - 1, length)]
        polys = shapely.from_ragged_array(shapely.GeometryType.POLYGON, rotated, (ring_off, np.arange(len(length) + 1)))
        idx = np.flatnonzero(inner)
        out[idx[plain]] = polys[plain]
        inner[idx[~plain]] = False
    out[~inner] = shapely.intersection(cells[~inner], box)
    return out


def _elevation(xy: np.ndarray, rng: np.random.Generator, side: float) -> np.ndarray:
    """A smooth random height field in [0, 1]: a central island plus hills."""
    c = xy / side - 0.5
    z = 1.0 - 2.2 * np.hypot(c[:, 0], c[:, 1])
    for _ in range(12):
        centre = rng.uniform(-0.45, 0.45, 2)
        width = rng.uniform(0.04, 0.18)
        z += rng.uniform(-0.5, 0.7) * np.exp(-np.sum((c - centre) ** 2, axis=1) / (2 * width**2))
    z += rng.normal(0, 0.05, len(z))
    return (z - z.min()) / (np.ptp(z) or 1.0)


def _terrains(z: np.ndarray, xy: np.ndarray, rng: np.random.Generator, side: float) -> np.ndarray:
    sea = z < 0.35
    land_z = np.clip((z - 0.35) / 0.65, 0, 1)
    k = np.clip((land_z * len(LAND) + rng.normal(0, 0.6, len(z))).astype(int), 0, len(LAND) - 1)
    out = np.array(LAND, dtype=object)[k]
    out[sea] = "sea"
    out[xy[:, 1] > side * 0.97] = "air"
    return out


def _levels(indptr: np.ndarray, indices: np.ndarray, level: np.ndarray, queue: np.ndarray, s: int) -> tuple[int, int]:
    """Breadth-first from ``s``: fills ``level`` and ``queue`` (the nodes reached, nearest first).

    Returns how many nodes were reached and where in ``queue`` the farthest
    fifth starts: those at least as far as NumPy's ``quantile(levels, 0.8)``
    (linear rule: between the sorted levels ``lo`` and ``lo + 1``; on whole
    numbers a level reaches it when it reaches the upper one, or the lower one
    when the rule lands on it exactly).
    """
    queue[0] = s
    level[s] = 0
    head, tail = 0, 1
    while head < tail:
        v = queue[head]
        head += 1
        for e in range(indptr[v], indptr[v + 1]):
            w = indices[e]
            if level[w] < 0:
                level[w] = level[v] + 1
                queue[tail] = w
                tail += 1
    return tail, _far_fifth(level, queue, tail)


def _far_fifth(level: np.ndarray, queue: np.ndarray, tail: int) -> int:
    """Where the farthest fifth of a breadth-first ``queue`` of ``tail`` nodes starts (see :func:`_levels`)."""
    h = (tail - 1) * 0.8
    lo = int(np.floor(h))
    top = level[queue[lo]] if h == lo else level[queue[min(lo + 1, tail - 1)]]
    k = lo
    while k > 0 and level[queue[k - 1]] >= top:
        k -= 1
    while level[queue[k]] < top:
        k += 1
    return k


def _levels_by_scipy(graph: csr_matrix, level: np.ndarray, queue: np.ndarray, s: int) -> tuple[int, int]:
    """:func:`_levels` by SciPy's breadth-first order (``graph``: the CSR matrix): the same ``level``, ``queue``
    and answer.

    The order lists each level after the one before it, so a node's level is
    its distance to the start along the predecessors, found by pointer doubling
    (a few passes over the nodes reached, however deep the levels go).
    """
    from scipy.sparse.csgraph import breadth_first_order

    order, pred = breadth_first_order(graph, s, directed=True, return_predecessors=True)
    tail = len(order)
    queue[:tail] = order
    level[order] = np.arange(tail)  # (each node's place in the order, for a moment)
    jump = np.zeros(tail, np.int64)  # each node's parent, by its place
    jump[1:] = level[pred[order[1:]]]
    depth = np.ones(tail, np.int64)
    depth[0] = 0
    while jump.any():  # depth: the steps from each node to its node ``jump``
        depth += depth[jump]
        jump = jump[jump]
    level[order] = depth
    return tail, _far_fifth(level, queue, tail)


def _path_back(indptr: np.ndarray, indices: np.ndarray, level: np.ndarray, name: np.ndarray, t: int) -> np.ndarray:
    """From ``t`` down the levels to the start: each step to the neighbour one level lower with the highest ``name``."""
    path = np.empty(level[t] + 1, np.int32)
    path[0] = t
    for k in range(1, len(path)):
        v = path[k - 1]
        best = -1
        for e in range(indptr[v], indptr[v + 1]):
            w = indices[e]
            if level[w] == level[v] - 1 and (best < 0 or name[w] > name[best]):
                best = w
        path[k] = best
    return path


def _roads(adj: Adjacency, land: np.ndarray, xy: np.ndarray, n_roads: int, rng: np.random.Generator,
           compiled: bool | None = None) -> list[list[int]]:
    """Road paths (cell indices) along land-only shortest paths between random land cells.

    Each road runs from a random land cell to a random cell among the farthest
    fifth (in steps) of what it reaches, along the path SciPy's unweighted
    ``dijkstra(..., directed=False)`` on the land cells returns: one
    breadth-first search a road, and back from the goal through the
    highest-numbered neighbour one step nearer, which is the predecessor
    SciPy's Fibonacci heap records when every step costs 1 (the tests hold
    the two to the same roads).  The searches run over the cells renumbered
    in bands :data:`_BAND` cells high across the board (``xy``: a point in
    each), so that what a search reaches next is near in memory (bands one
    cell high took a quarter longer), :data:`SEARCH_THREADS` at a time; the goals
    are drawn in road order, so the roads do not depend on the threads.  The
    searches run compiled by numba past :data:`~eidomap.base.settings.COMPILE_ROADS_ABOVE` (``compiled``
    None), else by SciPy: the same roads.
    """
    from scipy.sparse import coo_matrix, csr_matrix

    n = len(land)
    cells = np.flatnonzero(land)
    if len(cells) < 2 or n_roads == 0:
        return []
    band = np.floor((xy[:, 1] - xy[:, 1].min()) / (np.ptp(xy[:, 1]) * _BAND / np.sqrt(n) or 1.0))
    name = np.lexsort((xy[:, 0], band)).astype(np.int32)  # name[node] = the cell it is
    node = np.empty(n, np.int32)
    node[name] = np.arange(n, dtype=np.int32)
    both = land[adj.i] & land[adj.j]
    a, b = node[adj.i[both]], node[adj.j[both]]
    g = coo_matrix((np.ones(2 * len(a), np.int8), (np.r_[a, b], np.r_[b, a])), shape=(n, n)).tocsr()
    graph = g.indptr.astype(np.int32), g.indices.astype(np.int32)
    starts = node[rng.choice(cells, size=min(n_roads, len(cells)), replace=False)]
    if compiled is None:
        compiled = len(cells) * len(starts) > settings.COMPILE_ROADS_ABOVE
    # SciPy's CSR matrix over the same arrays (weights as SciPy reads them: not converted each search)
    matrix = None if compiled else csr_matrix((np.ones(len(graph[1])), graph[1], graph[0]), shape=(n, n))
    searches = [_Search(n, matrix) for _ in range(min(SEARCH_THREADS, len(starts)))]
    roads: list[list[int]] = []
    threads = len(cells) >= settings.SEARCH_THREADS_FROM  # (fewer: starting the threads costs more than they save)
    with ThreadPoolExecutor(len(searches)) if threads else contextlib.nullcontext() as pool:
        run = pool.map if pool is not None else map
        for k in range(0, len(starts), len(searches)):
            batch = list(run(_Search.run, searches, starts[k : k + len(searches)], [graph] * len(searches)))
            roads.extend(path for path in (s.road(graph, name, node, rng) for s in batch) if path is not None)
    return roads


class _Search:
    """One breadth-first search's arrays, reused from road to road: compiled by numba, or by SciPy over
    ``matrix``, the graph's CSR matrix."""

    def __init__(self, n: int, matrix: Any = None):
        self.level = np.full(n, -1, np.int32)
        self.queue = np.empty(n, np.int32)
        self.reached = self.far = 0
        self.matrix = matrix

    def run(self, start: int, graph: tuple[np.ndarray, np.ndarray]) -> _Search:
        """Forget the last search, then search from ``start``."""
        self.level[self.queue[: self.reached]] = -1
        if self.matrix is None:
            self.reached, self.far = twin(_levels, 0, compiled=True)(*graph, self.level, self.queue, start)
        else:
            self.reached, self.far = _levels_by_scipy(self.matrix, self.level, self.queue, start)
        return self

    def road(self, graph: tuple[np.ndarray, np.ndarray], name: np.ndarray, node: np.ndarray,
             rng: np.random.Generator) -> list[int] | None:
        """The road to a goal drawn among the farthest fifth (``rng.choice`` of their sorted names), if any."""
        if self.reached < 3:
            return None
        far = name[self.queue[self.far : self.reached]]
        k = rng.integers(0, len(far))  # what rng.choice(np.sort(far)) draws, without the sort
        t = node[np.partition(far, k)[k]]
        if self.level[t] < 2:
            return None
        back = twin(_path_back, 0, compiled=self.matrix is None)
        return name[back(*graph, self.level, name, t)[::-1]].tolist()


#: The functions the compiled road search calls (:func:`eidomap.base.compiled.compiled` registers them).
JIT_HELPERS = (_far_fifth,)


@dataclass(frozen=True)
class _Board:
    """The Eidos of a generated map, before they are written."""

    name: str
    seed: int
    coords: np.ndarray  # the Eidos' rings as shapely.to_ragged_array gives them (the geometries let go)
    ring_off: np.ndarray
    poly_off: np.ndarray
    terrain: np.ndarray
    inside: np.ndarray
    region: np.ndarray

    def head(self) -> dict:
        """The document's members before its features."""
        return {"type": "FeatureCollection",
                "eidomap": {"format": 1, "rules": "eido", "name": self.name, "seed": self.seed}}

    def ids(self, k0: int, k1: int) -> list[str]:
        """The ids of Eidos ``k0`` to ``k1 - 1``: "e" and a number, zero-padded to one width."""
        width = len(str(len(self.terrain) - 1))
        return [f"e{k:0{width}d}" for k in range(k0, k1)]

    def rings(self, k0: int, k1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The coordinates, ring offsets and polygon offsets of Eidos ``k0`` to ``k1 - 1``."""
        r0, r1 = self.poly_off[k0], self.poly_off[k1]
        c0 = self.ring_off[r0]
        return (self.coords[c0 : self.ring_off[r1]], self.ring_off[r0 : r1 + 1] - c0,
                self.poly_off[k0 : k1 + 1] - r0)


@dataclass(frozen=True)
class _Lines:
    """What a generated map draws over its Eidos, as Eido indices: roads, fountains, streams."""

    roads: list[list[int]]
    fountains: np.ndarray
    streams: list[tuple[int, int]]

    def road_features(self, inside: np.ndarray) -> Iterator[dict]:
        """Each road followed by its Pousas (``inside``: a point in each Eido)."""
        for r, path in enumerate(self.roads):
            rid = f"road{r}"
            line = inside[path].tolist()
            yield _feature(rid, {"kind": "road", "name": f"Road {r}"}, "LineString", line)
            yield from (_feature(None, {"kind": "pousa", "road": rid}, "Point", p) for p in line)

    def other_features(self, inside: np.ndarray) -> Iterator[dict]:
        """Fountains, then streams."""
        for k, c in enumerate(self.fountains):
            yield _feature(f"fountain{k}", {"kind": "fountain"}, "Point", inside[c].tolist())
        for k, (src, mouth) in enumerate(self.streams):
            yield _feature(f"stream{k}", {"kind": "stream"}, "LineString", inside[[src, mouth]].tolist())


def _checked(n_eidos: object, seed: object) -> tuple[int, int]:
    """The size and seed asked for: 3 to :data:`MAX_EIDOS` Eidos, a seed from 0 to :data:`MAX_SEED`."""
    return params.whole(n_eidos, "n_eidos", 3, MAX_EIDOS), params.whole(seed, "seed", 0, MAX_SEED)


def _board(n_eidos: int, seed: int) -> tuple[_Board, np.random.Generator]:
    """The Eidos, and the random generator where :func:`_lines` goes on."""
    rng = np.random.default_rng(seed)
    side = float(np.sqrt(n_eidos) * 10.0)
    # clipped, measured and turned into arrays a piece at a time: the clipped geometries are never all held
    parts = [(sites, shapely.get_coordinates(shapely.point_on_surface(cells)), *shapely.to_ragged_array(cells)[1:])
             for sites, cells in _cell_pieces(rng.uniform(0, side, (n_eidos, 2)), side)]
    _give_back_freed_memory()
    sites = np.concatenate([p[0] for p in parts])
    inside = np.concatenate([p[1] for p in parts])
    coords = np.concatenate([p[2] for p in parts])
    ring_off = _joined_offsets([p[3][0] for p in parts])
    poly_off = _joined_offsets([p[3][1] for p in parts])
    del parts
    if (sites[1:] < sites[:-1]).any():  # built band by band
        inside, coords, ring_off, poly_off = _in_site_order(sites, inside, coords, ring_off, poly_off)
    del sites
    terr = _terrains(_elevation(inside, rng, side), inside, rng, side)
    region = np.where(inside[:, 0] < side / 2, "west", "east")
    _give_back_freed_memory()
    return _Board(f"generated-{n_eidos}-{seed}", seed, coords, ring_off, poly_off, terr, inside, region), rng


def _in_site_order(sites: np.ndarray, inside: np.ndarray, coords: np.ndarray, ring_off: np.ndarray,
                   poly_off: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cells in the order of their sites: ``inside`` and the cells' ragged arrays, given cell ``k`` of site
    ``sites[k]``."""
    where = np.empty_like(sites)
    where[sites] = np.arange(len(sites))
    (rings, points), at = nested_take([poly_off, ring_off], where)
    return inside[where], coords[at], np.r_[0, np.cumsum(points)], np.r_[0, np.cumsum(rings)]


def _joined_offsets(offsets: list[np.ndarray]) -> np.ndarray:
    """Offset arrays of consecutive pieces (each from 0) as the offsets of the pieces one after the other."""
    ends = np.cumsum([0] + [off[-1] for off in offsets[:-1]])
    return np.concatenate([offsets[0][:1]] + [off[1:] + end for off, end in zip(offsets, ends, strict=True)])


def _lines(board: _Board, adj: Adjacency, rng: np.random.Generator) -> _Lines:
    """Roads between distant land Eidos, fountains on land, streams from mountains to the coast (``adj``: Eidos')."""
    n_eidos, terr = len(board.terrain), board.terrain
    land = np.isin(terr, LAND)
    roads = _roads(adj, land, board.inside, max(2, min(500, n_eidos // 2000)), rng)
    land_cells = np.flatnonzero(land)
    fountains = rng.choice(land_cells, min(len(land_cells), max(2, n_eidos // 500)), replace=False)
    high = np.flatnonzero(terr == "mountain")
    a, b = np.r_[adj.i, adj.j], np.r_[adj.j, adj.i]
    by_sea = np.zeros(n_eidos, bool)
    by_sea[a[(terr == "sea")[b]]] = True  # (not terr[b]: its text would be 50 MiB at 200,000 Eidos)
    coast = np.flatnonzero(land & by_sea)
    streams = []
    for _ in range(min(len(high), len(coast), max(1, n_eidos // 2000))):
        src = rng.choice(high)
        mouths = coast[coast != src]
        if len(mouths) == 0:
            continue
        streams.append((src, rng.choice(mouths)))
    return _Lines(roads, fountains, streams)


def _adjacency(board: _Board) -> Adjacency:
    """``adjacency`` of the Eidos (at its default tolerance), from the rings at hand rather than the geometries."""
    tol = tolerance_for(float(np.ptp(board.coords, axis=0).max()))  # default_tolerance, from the coordinates
    return segment_adjacency(ring_segments(board.coords, (board.ring_off, board.poly_off)), len(board.terrain), tol)


def generate_map(n_eidos: int, seed: int = 0) -> dict:
    """A synthetic eidomap GeoJSON document with ``n_eidos`` Eidos (3 to :data:`MAX_EIDOS`; ``seed`` from 0 to
    :data:`MAX_SEED`)."""
    n_eidos, seed = _checked(n_eidos, seed)
    board, rng = _board(n_eidos, seed)
    lines = _lines(board, _adjacency(board), rng)
    coords = board.coords.tolist()
    ring_off, poly_off = board.ring_off.tolist(), board.poly_off.tolist()
    features = []
    for k, fid in enumerate(board.ids(0, n_eidos)):
        rings = [coords[ring_off[r] : ring_off[r + 1]] for r in range(poly_off[k], poly_off[k + 1])]
        features.append(_feature(fid, _eido_properties(board.terrain[k], board.region[k]), "Polygon", rings))
    features.extend(lines.road_features(board.inside))
    features.extend(lines.other_features(board.inside))
    return board.head() | {"features": features}


def _eido_properties(terrain: str, region: str) -> dict:
    props = {"kind": "eido", "terrain": str(terrain)}
    if terrain not in ("sea", "air"):
        props["region"] = str(region)
    return props


def _feature(fid: str | None, props: dict, gtype: str, coords: object) -> dict:
    f: dict[str, Any] = {"type": "Feature"}
    if fid is not None:
        f["id"] = fid
    f["properties"] = props
    f["geometry"] = {"type": gtype, "coordinates": coords}
    return f


def write_map(doc: dict, path: str | os.PathLike) -> None:
    """Write a generated document as GeoJSON."""
    write_atomic(path, json.dumps(doc, **_JSON).encode())


def write_generated(path: str | os.PathLike, n_eidos: int, seed: int = 0, *, show: bool | None = None) -> None:
    """Write ``generate_map(n_eidos, seed)`` to ``path`` as :func:`write_map` would, feature by feature.

    The Eidos are formatted :data:`CHUNK` at a time straight from the
    coordinate arrays (``repr`` of each float, as ``json`` does) while a
    thread finds the roads, fountains and streams; the roads and Pousas are
    formatted the same way, the few other features with ``json``.  The file
    appears at ``path`` only when complete.  ``show``: a progress bar on
    stderr (default: when it is a terminal).
    """
    path, show = params.path(path, "path"), params.maybe(params.flag, show, "show")
    n_eidos, seed = _checked(n_eidos, seed)
    bar = progress.bar(n_eidos, unit="Eido", desc="generating", show=show)
    try:
        board, rng = _board(n_eidos, seed)
        # before the writing, whose Arrow buffers would otherwise be held beside the adjacency's sort
        adj = _adjacency(board)
        _give_back_freed_memory()
        bar.set_description_str("writing")
        with ThreadPoolExecutor(1) as pool, open_atomic(path) as fh:
            later = pool.submit(_lines, board, adj, rng)
            del adj
            fh.write(json.dumps(board.head(), **_JSON)[:-1].encode() + b',"features":[')
            for k0 in range(0, n_eidos, CHUNK):
                k1 = min(k0 + CHUNK, n_eidos)
                fh.write(_eido_text(board, k0, k1))
                bar.update(k1 - k0)
            lines = later.result()
            fh.write(_road_text(lines.roads, board.inside))
            for f in lines.other_features(board.inside):
                fh.write(b"," + json.dumps(f, **_JSON).encode())
            fh.write(b"]}")
    finally:
        bar.close()


def _give_back_freed_memory() -> None:
    """Return the heap's free pages to the system (glibc's ``malloc_trim``; elsewhere nothing).

    The cells' GEOS geometries, a million small blocks, leave about a gigabyte
    of free heap that glibc keeps; NumPy's large arrays (memory maps) would
    not reuse it, so it would count in the peak of what follows.
    """
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError, TypeError):  # no glibc (TypeError: Windows has no CDLL(None))
        pass


def _eido_text(board: _Board, k0: int, k1: int) -> memoryview:
    """Eidos ``k0`` to ``k1 - 1`` as the text ``json.dumps`` gives them, each after a comma, in UTF-8.

    Built with Arrow's string kernels: a float becomes the shortest text that
    reads back as it, as Python's ``repr`` (hence ``json``) writes it but for
    whole numbers (``5`` for ``5.0``) and the notation of very small and very
    large ones; :func:`_floats_text` mends those.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    xy, ring_off, poly_off = board.rings(k0, k1)
    rings = pc.binary_join(pa.ListArray.from_arrays(_arrow(ring_off.astype(np.int32)), _points_text(xy)), _text(","))
    rings = _concat("[", rings, "]")
    coords = pc.binary_join(pa.ListArray.from_arrays(_arrow(poly_off.astype(np.int32)), rings), _text(","))
    terrains, code = np.unique(board.terrain[k0:k1], return_inverse=True)
    table = [json.dumps(_eido_properties(t, "west" if w else "east"), **_JSON) for t in terrains for w in (False, True)]
    props = _strings(table).take(_arrow(code * 2 + (board.region[k0:k1] == "west")))
    ids = _strings(board.ids(k0, k1))  # "e" and digits: nothing to escape
    text = _concat(',{"type":"Feature","id":"', ids, '","properties":', props,
                   ',"geometry":{"type":"Polygon","coordinates":[', coords, "]}}")
    return _joined(text)[int(k0 == 0) :]


def _road_text(roads: list[list[int]], inside: np.ndarray) -> memoryview:
    """The roads, each before its Pousas, as ``json.dumps`` gives :meth:`_Lines.road_features`, after commas."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not roads:
        return memoryview(b"")
    count = np.array([len(path) for path in roads])
    off = np.r_[0, np.cumsum(count)]
    points = _points_text(inside[np.concatenate(roads)])
    number = _strings([str(r) for r in range(len(roads))])
    line = pc.binary_join(pa.ListArray.from_arrays(_arrow(off.astype(np.int32)), points), _text(","))
    road = _concat(',{"type":"Feature","id":"road', number, '","properties":{"kind":"road","name":"Road ', number,
                   '"},"geometry":{"type":"LineString","coordinates":[', line, "]}}")
    of = np.repeat(np.arange(len(roads)), count)
    pousa = _concat(',{"type":"Feature","properties":{"kind":"pousa","road":"road', number.take(_arrow(of)),
                    '"},"geometry":{"type":"Point","coordinates":', points, "}}")
    # road r goes before its Pousas: at off[r] + r, Pousa k (of road of[k]) at k + of[k] + 1
    order = np.empty(len(roads) + len(of), np.int64)
    order[off[:-1] + np.arange(len(roads))] = np.arange(len(roads))
    order[np.arange(len(of)) + of + 1] = len(roads) + np.arange(len(of))
    return _joined(pa.concat_arrays([road, pousa]).take(_arrow(order)))


def _points_text(xy: np.ndarray) -> pa.StringArray:
    """``[x,y]`` of each point as ``json`` writes it, as an Arrow string array."""
    return _concat("[", _floats_text(xy[:, 0]), ",", _floats_text(xy[:, 1]), "]")


def _joined(text: pa.StringArray) -> memoryview:
    """The strings of an Arrow string array one after the other, without a copy."""
    ends = np.frombuffer(text.buffers()[1], np.int32, len(text) + 1, text.offset * 4)
    return memoryview(text.buffers()[2])[ends[0] : ends[-1]]


def _floats_text(x: np.ndarray) -> pa.StringArray:
    """``repr`` of each float, as an Arrow string array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    text = pc.cast(_arrow(x), pa.string())
    a = np.abs(x)
    odd = ((a < 1e-4) & (x != 0)) | (a >= 1e16) | _bools(pc.match_substring(text, "e"))
    whole = (x == np.floor(x)) & ~odd
    text = pc.if_else(_arrow(whole), _concat(text, ".0"), text)
    if odd.any():
        text = pc.replace_with_mask(text, _arrow(odd), _strings([repr(v) for v in x[odd].tolist()]))
    return text


# The Arrow arrays and scalars below are built from buffers: ``pa.array`` and ``pa.scalar``, and Python values
# given to a compute function, go through pyarrow's check for pandas objects, which imports pandas where it is
# installed -- 42 MiB and 0.3 s, the largest share of the writing's memory.

def _arrow(x: np.ndarray) -> pa.Array:
    """A NumPy array of numbers or bools as an Arrow array (numbers: its memory shared)."""
    import pyarrow as pa

    x = np.ascontiguousarray(x)
    if x.dtype == bool:
        return pa.Array.from_buffers(pa.bool_(), len(x), [None, pa.py_buffer(np.packbits(x, bitorder="little"))])
    return pa.Array.from_buffers(pa.from_numpy_dtype(x.dtype), len(x), [None, pa.py_buffer(x)])


def _strings(texts: list[str]) -> pa.StringArray:
    """Python strings as an Arrow string array."""
    import pyarrow as pa

    data = [t.encode() for t in texts]
    ends = np.r_[0, np.cumsum([len(d) for d in data], dtype=np.int64)].astype(np.int32)
    return pa.Array.from_buffers(pa.string(), len(data), [None, pa.py_buffer(ends), pa.py_buffer(b"".join(data))])


def _text(text: str) -> pa.StringScalar:
    """One string as an Arrow scalar."""
    return _strings([text])[0]


def _concat(*parts: pa.StringArray | str) -> pa.StringArray:
    """The Arrow string arrays and Python strings ``parts`` joined item by item (``binary_join_element_wise``)."""
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(*(_text(p) if isinstance(p, str) else p for p in parts), _text(""))


def _bools(flags: pa.BooleanArray) -> np.ndarray:
    """An Arrow boolean array without nulls as NumPy bools."""
    off = flags.offset
    bits = np.frombuffer(flags.buffers()[1], np.uint8)
    return np.unpackbits(bits, count=off + len(flags), bitorder="little")[off:].view(bool)
