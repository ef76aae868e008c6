"""The geometry of a board: how its Eidos lie against each other, and the sizes validation measures with.

:class:`Board` holds the geometric analysis of the Eidos (overlaps, gaps,
near-misses, corner contacts), every part of it vectorised;
:func:`typical_size`, :func:`near_miss_distance`, :func:`inlet_width` and
:func:`max_gap_area` are the defaults the checks (:mod:`eidomap.validate.checks`)
and the fixes (:mod:`eidomap.validate.fix`) take from the shapes.

>>> import shapely
>>> from eidomap.validate.board import Board
>>> b = Board([shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1), shapely.box(1, 1, 2, 2)])
>>> b.contacts[:2]  # the first and last box touch only at a corner
(array([0]), array([2]))
"""


from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import shapely

from eidomap.base import params
from eidomap.base.arrays import in_threads, member, unique
from eidomap.model.topology import (
    Adjacency,
    PileUp,
    Segments,
    boundary_segments,
    exact_pairs,
    exact_union,
    segment_adjacency,
    shared_lengths,
)
from eidomap.record.geometry import MAX_TOLERANCE, check_tolerance, default_tolerance, larger_side, query

if TYPE_CHECKING:

    pass

#: Default near-miss distance: this fraction of the map's larger side ...
NEAR_MISS_OF_SIDE = 1e-3
#: ... but at most this fraction of a typical Eido's size (square root of the median area).
NEAR_MISS_OF_EIDO = 1e-2
#: Borders that meet at an angle but stay within the near-miss distance ``D`` of
#: each other for at least this many ``D`` converge so slowly (under about 3
#: degrees) that they are a near-miss, not a corner contact.
CONVERGING_RUN = 20.0
#: Default widest inlet: this fraction of a typical Eido's size ...
INLET_OF_EIDO = 0.1
#: ... and an inlet is at least this many times as long as it is wide: borders
#: that part at a wider angle (over about 11 degrees) are a corner, not a slit.
INLET_RUN = 5.0
#: Default largest gap ``fix`` closes: this fraction of the larger side, squared ...
GAP_OF_SIDE = 1e-2
#: ... but at most this fraction of the median Eido area.
GAP_OF_EIDO = 0.25
#: Ids listed in full in a message (the problem's ``features`` has them all).
SHOWN = 10
#: Pairs of Eidos whose boxes come within the near-miss distance of each other, which validation measures (each
#: pair at GEOS's cost): this many an Eido, and :data:`CLOSE_PAIRS_FLOOR` whatever the map.  A drawn map has a few
#: an Eido (its neighbours, the sea's); Eidos drawn over one another (1,000 nested squares: 499,500) may have
#: any number, and are refused, before the pairs are listed, past the bound.
CLOSE_PAIRS_PER_EIDO = 64
#: See :data:`CLOSE_PAIRS_PER_EIDO`.
CLOSE_PAIRS_FLOOR = 1_000_000
#: Boxes' pairs found at a time (an upper bound of them: :func:`_box_pairs`).
_BOX_CHUNK = 4_000_000


def typical_size(geoms: np.ndarray) -> float:
    """The size of a typical Eido: the square root of the median area (0 for no Eido).

    Parameters
    ----------
    geoms : array of Polygon or MultiPolygon
        The Eidos.

    Returns
    -------
    float
        The size, in map units.

    See Also
    --------
    inlet_width, near_miss_distance : The defaults it sets.

    Examples
    --------
    >>> import shapely
    >>> typical_size([shapely.box(0, 0, 10, 10), shapely.box(10, 0, 20, 10)])
    10.0
    """
    return float(np.sqrt(np.median(shapely.area(np.asarray(geoms))))) if len(geoms) else 0.0


def near_miss_distance(geoms: np.ndarray) -> float:
    """Default near-miss distance: 1e-3 of the larger side, at most 1e-2 of a typical Eido.

    Parameters
    ----------
    geoms : array of Polygon or MultiPolygon
        The Eidos.

    Returns
    -------
    float
        The distance, in map units.

    See Also
    --------
    typical_size : A typical Eido's size.
    validate : Reports the near-misses.

    Examples
    --------
    >>> import shapely
    >>> near_miss_distance([shapely.box(0, 0, 1000, 500), shapely.box(1000, 0, 2000, 500)])
    2.0
    """
    if len(geoms) == 0:
        return 0.0
    return min(NEAR_MISS_OF_SIDE * larger_side(geoms), NEAR_MISS_OF_EIDO * typical_size(geoms))


def inlet_width(geoms: np.ndarray) -> float:
    """Default widest inlet: 1e-1 of a typical Eido (:func:`typical_size`).

    Parameters
    ----------
    geoms : array of Polygon or MultiPolygon
        The Eidos.

    Returns
    -------
    float
        The width, in map units.

    See Also
    --------
    validate : Reports the inlets.

    Examples
    --------
    >>> import shapely
    >>> inlet_width([shapely.box(0, 0, 10, 10), shapely.box(10, 0, 20, 10)])
    1.0
    """
    return INLET_OF_EIDO * typical_size(geoms)


def max_gap_area(geoms: np.ndarray) -> float:
    """Default largest gap ``fix`` closes: (1e-2 of the larger side)², at most a quarter Eido.

    Parameters
    ----------
    geoms : array of Polygon or MultiPolygon
        The Eidos.

    Returns
    -------
    float
        The area, in square map units.

    See Also
    --------
    eidomap.validate.fix.fix_geometries : Closes the gaps.

    Examples
    --------
    >>> import shapely
    >>> max_gap_area([shapely.box(0, 0, 1000, 500), shapely.box(1000, 0, 2000, 500)])
    400.0
    """
    if len(geoms) == 0:
        return 0.0
    return min((GAP_OF_SIDE * larger_side(geoms)) ** 2, GAP_OF_EIDO * typical_size(geoms) ** 2)


def distance(value: object, what: str, most: float = MAX_TOLERANCE) -> float:
    """``value`` as a distance (a number from 0 to ``most``), checked where it comes in.

    The bound is the drawing tolerance's (:data:`~eidomap.record.geometry.MAX_TOLERANCE`): a map's coordinates lie
    within ±1e15, so a farther distance says no more than that one, and its sums overflow.

    Parameters
    ----------
    value : object
        What was passed.
    what : str
        The parameter, for the message (``"near_miss"``).
    most : float, default MAX_TOLERANCE
        The largest value taken (an area: its square).

    Returns
    -------
    float
        The distance.

    Raises
    ------
    RequestError
        When ``value`` is not a number from 0 to ``most``.

    See Also
    --------
    checked_codes : The other check of validate's arguments.

    Examples
    --------
    >>> distance(2, "inlet")
    2.0
    """
    return params.real(value, what, 0, most)


def grouped(geoms: np.ndarray, slots: np.ndarray, make: Callable[..., np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The slots used, and one collection of ``geoms`` per slot.

    Parameters
    ----------
    geoms : numpy.ndarray of Geometry
        The geometries.
    slots : numpy.ndarray of int
        The slot of each.
    make : callable
        A Shapely constructor taking ``indices=`` (``shapely.multipoints``, ``shapely.multilinestrings``...).

    Returns
    -------
    used : numpy.ndarray of int
        The slots that hold a geometry, sorted.
    collections : numpy.ndarray of Geometry
        One collection per slot of ``used``.

    See Also
    --------
    eidomap.validate.fix.snap_onto : Groups the borders each Eido is snapped onto.

    Examples
    --------
    >>> import numpy as np, shapely
    >>> used, groups = grouped(shapely.points([[0, 0], [1, 1], [2, 2]]), np.array([3, 1, 3]), shapely.multipoints)
    >>> used.tolist(), [g.wkt for g in groups]
    ([1, 3], ['MULTIPOINT ((1 1))', 'MULTIPOINT ((0 0), (2 2))'])
    """
    used, compact = np.unique(slots, return_inverse=True)
    order = np.argsort(compact, kind="stable")
    return used, make(geoms[order], indices=compact[order])


def _keys(i, j, n: int) -> np.ndarray:
    """One integer per unordered pair."""
    return np.minimum(i, j).astype(np.int64) * n + np.maximum(i, j)


def _width(geoms) -> np.ndarray:
    """Mean width of polygons, ``2 * area / perimeter`` (0 for empty ones)."""
    area, per = shapely.area(geoms), shapely.length(geoms)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(per > 0, 2 * area / per, 0.0)


def points_xy(points: np.ndarray) -> np.ndarray:
    """The coordinates of points, shape ``(n, 2)``."""
    return shapely.get_coordinates(points).reshape(-1, 2)


def location(xy: np.ndarray | tuple[float, float]) -> tuple[float, float]:
    """A problem's location: a point as two plain floats."""
    return float(xy[0]), float(xy[1])


def listed_ids(names: Iterable[str]) -> str:
    """Ids for a message: the first :data:`SHOWN` in full, then how many more."""
    names = list(names)
    text = ", ".join(repr(n) for n in names[:SHOWN])
    return text + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def _box_pairs(tree: shapely.STRtree, bounds: np.ndarray, d: float) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``i < j`` of geometries whose boxes (``bounds``, ``(n, 4)``; ``tree`` theirs) come within ``d`` of
    each other, in ``tree.query``'s order: at most :data:`CLOSE_PAIRS_PER_EIDO` an Eido (and
    :data:`CLOSE_PAIRS_FLOOR`), else :class:`~eidomap.model.topology.PileUp`.

    Each box is asked of the tree with others whose partners, along x and along y, are at most
    :data:`_BOX_CHUNK` (counted from the sorted ends: an upper bound of what the tree gives), so the pairs held at
    once stay bounded, and the count stops at the bound.
    """
    n = len(bounds)
    x0, y0, x1, y1 = bounds.T
    lo, hi = bounds[:, :2] - d, bounds[:, 2:] + d
    most = np.minimum(*(np.searchsorted(np.sort(a0), h, "right") - np.searchsorted(np.sort(a1), low, "left")
                        for a0, a1, low, h in ((x0, x1, lo[:, 0], hi[:, 0]), (y0, y1, lo[:, 1], hi[:, 1]))))
    ends = np.cumsum(most)
    cuts = np.searchsorted(ends, np.arange(_BOX_CHUNK, int(ends[-1]) if n else 0, _BOX_CHUNK))
    limit = CLOSE_PAIRS_PER_EIDO * n + CLOSE_PAIRS_FLOOR
    found, count = [], 0
    for a, b in zip(np.r_[0, cuts].tolist(), np.r_[cuts, n].tolist(), strict=True):
        i, j = query(tree, shapely.box(lo[a:b, 0], lo[a:b, 1], hi[a:b, 0], hi[a:b, 1]))
        i += a
        keep = i < j
        count += int(np.count_nonzero(keep))
        if count > limit:
            k = int(np.argmax(most))
            raise PileUp(f"its Eidos pile up around ({(x0[k] + x1[k]) / 2:.6g}, {(y0[k] + y1[k]) / 2:.6g}): more than"
                         f" {limit:,} pairs of them come within the near-miss distance of each other, the most"
                         f" validation measures on a map of {n:,} Eidos ({CLOSE_PAIRS_PER_EIDO} an Eido); Eidos drawn"
                         f" over one another?")
        found.append((i[keep], j[keep]))
    if not found:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    i, j = zip(*found, strict=True)
    return np.concatenate(i), np.concatenate(j)


class Board:
    """The geometric analysis of a set of Eidos, each part computed on first use.

    Pair arrays hold indices into ``geoms`` with ``i < j``.

    Parameters
    ----------
    geoms : array_like of Polygon or MultiPolygon
        The Eidos.
    tolerance : float, optional
        Drawing tolerance: decides adjacency (default 1e-9 of the larger side).  Overlaps and gaps no wider than
        it (``2 * area / perimeter``) are rounding, not problems.
    near_miss : float, optional
        Near-miss distance (default :func:`near_miss_distance`).
    inlet : float, optional
        Widest inlet reported (default :func:`inlet_width`).

    Examples
    --------
    >>> import shapely
    >>> board = Board([shapely.box(0, 0, 10, 10), shapely.box(9, 0, 20, 10), shapely.box(0, 10.01, 10, 20)])
    >>> board.overlap_keys.tolist(), board.near_keys.tolist()  # pairs as i * n + j
    ([1], [2, 5])
    """

    def __init__(self, geoms: npt.ArrayLike, tolerance: float | None = None, near_miss: float | None = None,
                 inlet: float | None = None):
        self.geoms = np.asarray(geoms, dtype=object)
        self.n = len(self.geoms)
        self.tol = default_tolerance(self.geoms) if tolerance is None else check_tolerance(tolerance)
        self.near = (near_miss_distance(self.geoms) if near_miss is None
                     else distance(near_miss, "near_miss"))
        self.inlet = inlet_width(self.geoms) if inlet is None else distance(inlet, "inlet")

    @cached_property
    def tree(self) -> shapely.STRtree:
        """The Eidos' ``shapely.STRtree``."""
        return shapely.STRtree(self.geoms)

    @cached_property
    def _borders(self) -> tuple[Adjacency, np.ndarray, shapely.Geometry | None]:
        """The adjacency, the pairs sharing a segment to the bit (as keys) and ``topology.exact_union``.

        One pass over the boundary segments gives all three; the segments
        themselves are not kept.
        """
        seg = boundary_segments(self.geoms)
        exact = exact_pairs(seg)
        valid = bool(self.n) and in_threads(shapely.is_valid, self.geoms).all()
        union = exact_union(seg, exact.paired) if valid else None
        # (the adjacency is told the proof, when there was one to try, rather than trying it again)
        adjacency = segment_adjacency(seg, self.n, self.tol, exact, proven=union is not None if valid else None)
        return adjacency, unique(_keys(exact.i, exact.j, self.n)), union

    @cached_property
    def adjacency(self) -> Adjacency:
        """The adjacent pairs (sharing a border longer than the tolerance) and the length they share."""
        return self._borders[0]

    @cached_property
    def adjacent_keys(self) -> np.ndarray:
        """The adjacent pairs as integers ``i * n + j``."""
        return _keys(self.adjacency.i, self.adjacency.j, self.n)

    @cached_property
    def clean(self) -> bool:
        """Whether the Eidos are a valid coverage (no overlap, borders noded alike).

        Told by ``topology.exact_union`` when the Eidos share their borders to the
        bit (a generated map, most drawn ones), else by GEOS's coverage check.
        """
        if self._borders[2] is not None:
            return True
        try:
            return bool(shapely.coverage_is_valid(self.geoms))
        except shapely.errors.GEOSException:
            return False

    @cached_property
    def union(self) -> shapely.Geometry:
        """The board: the union of all Eidos (a fast coverage union when the Eidos are clean)."""
        if self.n == 0:
            return shapely.Polygon()
        if self._borders[2] is not None:
            return self._borders[2]
        if self.clean:
            try:
                return shapely.coverage_union_all(self.geoms)
            except shapely.errors.GEOSException:  # valid to GEOS's check, yet not to its union (found by fuzzing)
                pass
        return shapely.union_all(self.geoms)

    @cached_property
    def _frame(self):
        """A box around the board, and the parts of the plane in it that no Eido covers."""
        x0, y0, x1, y1 = shapely.total_bounds(self.geoms)
        m = 0.01 * max(x1 - x0, y1 - y0) + 1.0
        frame = shapely.box(x0 - m, y0 - m, x1 + m, y1 + m)
        free = shapely.get_parts(shapely.difference(frame, self.union))
        return frame, free[shapely.get_dimensions(free) == 2]

    @cached_property
    def _enclosed(self) -> np.ndarray:
        """Whether each uncovered part is enclosed by the board (not joined to the outside)."""
        frame, free = self._frame
        return ~shapely.intersects(free, shapely.boundary(frame))

    @cached_property
    def outline(self) -> shapely.Geometry:
        """The board's outline: the union of the Eidos with every gap in it filled."""
        frame, free = self._frame
        out = shapely.difference(frame, shapely.union_all(free[~self._enclosed]))
        shapely.prepare(out)
        return out

    @cached_property
    def close(self) -> tuple[np.ndarray, np.ndarray]:
        """Pairs of Eidos within the near-miss distance (or the tolerance) of each other.

        The pairs ``tree.query(geoms, predicate="dwithin")`` gives, in its
        order; but only the pairs whose boxes come that close and share no
        segment to the bit (those are 0 apart) are measured.
        """
        d = max(self.near, self.tol)
        i, j = _box_pairs(self.tree, shapely.bounds(self.geoms), d)
        near = member(_keys(i, j, self.n), self._borders[1])
        far = np.flatnonzero(~near)
        near[far] = in_threads(lambda k: shapely.dwithin(self.geoms[i[k]], self.geoms[j[k]], d), far)
        return i[near], j[near]

    @cached_property
    def _apart(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The close pairs that are not adjacent, and their keys."""
        i, j = self.close
        key = _keys(i, j, self.n)
        keep = ~member(key, self.adjacent_keys)
        return i[keep], j[keep], key[keep]

    def _close_but(self, *exclude: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The close pairs, not adjacent, whose keys are in none of ``exclude``."""
        i, j, key = self._apart
        keep = np.ones(len(key), bool)
        for keys in exclude:
            keep &= ~member(key, keys)
        return i[keep], j[keep]

    @cached_property
    def overlaps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Pairs whose interiors overlap more widely than the tolerance: ``(i, j, area, xy)``."""
        if self.clean:  # a valid coverage has no overlap at all
            return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0), np.empty((0, 2))
        i, j = self.close
        inner = shapely.relate_pattern(self.geoms[i], self.geoms[j], "T********")
        i, j = i[inner], j[inner]
        inter = shapely.intersection(self.geoms[i], self.geoms[j])
        parts, k = shapely.get_parts(inter, return_index=True)
        poly = shapely.get_dimensions(parts) == 2
        parts, k = parts[poly], k[poly]
        area = np.bincount(k, shapely.area(parts), minlength=len(i))
        per = np.bincount(k, shapely.length(parts), minlength=len(i))
        with np.errstate(divide="ignore", invalid="ignore"):
            wide = np.where(per > 0, 2 * area / per, 0.0) > self.tol
        return i[wide], j[wide], area[wide], points_xy(shapely.point_on_surface(inter[wide]))

    @cached_property
    def overlap_keys(self) -> np.ndarray:
        """The overlapping pairs as integers ``i * n + j``."""
        i, j = self.overlaps[:2]
        return _keys(i, j, self.n)

    @cached_property
    def gaps(self) -> np.ndarray:
        """The gaps: parts of the plane enclosed by the board that no Eido covers, wider than the tolerance.

        They are the parts of a box around the board, minus the board, that do
        not reach the box's edge: holes in the union, and also spaces closed
        by Eidos that touch only at corners around them.  Each is in GEOS's
        normal form, in the order of their lower left corners (left to right,
        then bottom to top): what the union was drawn as, one overlay or the
        other, makes no difference to them.
        """
        if self.n == 0:
            return np.empty(0, dtype=object)
        holes = self._frame[1][self._enclosed]
        holes = shapely.normalize(holes[_width(holes) > self.tol])
        return holes[np.lexsort(shapely.bounds(holes).T[::-1])]

    @cached_property
    def gap_eidos(self) -> tuple[np.ndarray, np.ndarray]:
        """Pairs ``(gap, eido)`` of each gap and the Eidos around it."""
        g, e = self.tree.query(self.gaps, predicate="dwithin", distance=self.tol)
        order = np.lexsort((e, g))
        return g[order], e[order]

    @cached_property
    def near_misses(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Pairs not adjacent whose borders run within the near-miss distance over open space.

        Returns ``(i, j, length, distance, xy)``: how long the borders run
        within the distance, the widest distance between them there, and a
        point between them.  Borders with a third Eido between them (a short
        border of two other Eidos, a corner where four meet) are not a near-miss.
        """
        if self.near <= self.tol or self.n < 2:
            return _no_pairs()
        a, b = self._close_but(self.overlap_keys)
        pair, length, p, q, width, oa, ob = self._facing(a, b, self.near, CONVERGING_RUN * self.near)
        open_ = ~self._blocked(p, q, oa, ob)
        return self._per_pair(pair[open_], length[open_], p[open_], q[open_], width[open_])

    @cached_property
    def inlets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Pairs of Eidos on the board's edge facing each other across a narrow inlet from outside.

        An inlet is open space outside the board's outline (not a gap) between
        two Eidos that neither touch, overlap, are adjacent nor a near-miss,
        whose borders run within the inlet width of each other, at both ends
        of each stretch, over at least ``INLET_RUN`` (5) times the widest
        distance between them.  Returns ``(i, j, length, width, xy)`` as
        :attr:`near_misses` does.
        """
        if self.inlet <= self.near or self.n < 2:
            return _no_pairs()
        coast = np.flatnonzero(~shapely.contains_properly(self.outline, self.geoms))
        ci, b = self.tree.query(self.geoms[coast], predicate="dwithin", distance=self.inlet)
        a = coast[ci]
        key = _keys(a, b, self.n)
        keep = (a < b) & member(b, coast)
        keep[keep] = ~(member(key[keep], self.adjacent_keys) | member(key[keep], self.overlap_keys)
                       | member(key[keep], self.near_keys))
        a, b = a[keep], b[keep]
        apart = ~shapely.dwithin(self.geoms[a], self.geoms[b], self.tol)
        pair, length, p, q, width, oa, ob = self._facing(a[apart], b[apart], self.inlet)
        out = ~shapely.covers(self.outline, shapely.points((p + q) / 2)) & ~self._blocked(p, q, oa, ob)
        i, j, total, widest, xy = self._per_pair(pair[out], length[out], p[out], q[out], width[out])
        long_ = total >= INLET_RUN * widest
        return i[long_], j[long_], total[long_], widest[long_], xy[long_]

    def _facing(self, a: np.ndarray, b: np.ndarray, within: float, converging: float = np.inf):
        """The pairs of border segments of Eidos ``a[k]`` and ``b[k]`` running within ``within`` of each other.

        Returns, per pair of segments, the key of the pair of Eidos, the length
        they run together (see :func:`~eidomap.model.topology.shared_lengths`, which
        ``converging`` is passed to), a point ``p`` on the first facing the
        second, the nearest point ``q`` of the second, the widest distance
        between them (at most ``within``) and the two owners.
        """
        if not len(a):
            return (np.empty(0, np.int64), np.empty(0), np.empty((0, 2)), np.empty((0, 2)), np.empty(0),
                    np.empty(0, np.int64), np.empty(0, np.int64))
        cand = _keys(a, b, self.n)
        # segment by segment (each segment its own owner), on the Eidos involved only
        involved = np.unique(np.r_[a, b])
        seg = boundary_segments(self.geoms[involved])
        seg = Segments(seg.a, seg.b, involved[seg.owner])
        si, sj, length = shared_lengths(Segments(seg.a, seg.b, np.arange(len(seg))), within,
                                        min_converging=converging)
        oa, ob = seg.owner[si], seg.owner[sj]
        pair = _keys(oa, ob, self.n)
        keep = (oa != ob) & np.isin(pair, cand)
        p, q, width = _facing_points(seg, si[keep], sj[keep])
        return pair[keep], length[keep], p, q, np.minimum(width, within), oa[keep], ob[keep]

    def _per_pair(self, pair, length, p, q, width) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                              np.ndarray]:
        """``(i, j, length, widest, xy)`` per pair of Eidos from its pairs of segments (:meth:`_facing`).

        The length is the total, the widest the largest width, the point the
        middle of ``pq`` for the longest pair of segments; only pairs of a
        total longer than the tolerance.
        """
        if not len(pair):
            return _no_pairs()
        ukey, inv = np.unique(pair, return_inverse=True)
        total = np.bincount(inv, length)
        widest = np.zeros(len(ukey))
        np.maximum.at(widest, inv, width)
        order = np.lexsort((-length, inv))  # per pair of Eidos, the longest pair of segments first
        first = order[np.r_[0, np.flatnonzero(np.diff(inv[order])) + 1]]
        xy = (p[first] + q[first]) / 2
        ok = total > self.tol
        i, j = np.divmod(ukey[ok], self.n)
        return i, j, total[ok], widest[ok], xy[ok]

    def _blocked(self, p: np.ndarray, q: np.ndarray, oa: np.ndarray, ob: np.ndarray) -> np.ndarray:
        """Whether the segment from ``p`` to ``q`` passes through the inside of a third Eido."""
        blocked = np.zeros(len(p), bool)
        idx = np.flatnonzero(np.any(p != q, axis=1))
        if not len(idx):
            return blocked
        lines = shapely.linestrings(np.stack([p[idx], q[idx]], axis=1))
        li, ei = self.tree.query(lines, predicate="intersects")
        third = (ei != oa[idx[li]]) & (ei != ob[idx[li]])
        li, ei = li[third], ei[third]
        inside = shapely.relate_pattern(lines[li], self.geoms[ei], "T********")
        blocked[idx[li[inside]]] = True
        return blocked

    @cached_property
    def near_keys(self) -> np.ndarray:
        """The near-miss pairs as integers ``i * n + j``."""
        i, j = self.near_misses[:2]
        return _keys(i, j, self.n)

    @cached_property
    def contacts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pairs that touch but are not adjacent, do not overlap and are no near-miss: ``(i, j, xy)``."""
        i, j = self._close_but(self.overlap_keys, self.near_keys)
        touch = shapely.dwithin(self.geoms[i], self.geoms[j], self.tol)  # touching, up to rounding
        i, j = i[touch], j[touch]
        xy = points_xy(shapely.centroid(shapely.shortest_line(self.geoms[i], self.geoms[j])))
        return i, j, xy

    @cached_property
    def square_grid(self) -> bool:
        """Whether most Eidos are axis-aligned rectangles: a board of squares, where corners meet by design."""
        box_area = np.prod(np.diff(shapely.bounds(self.geoms).reshape(-1, 2, 2), axis=1), axis=2).ravel()
        return bool(np.count_nonzero(np.isclose(shapely.area(self.geoms), box_area, rtol=1e-9)) > self.n / 2)

    @cached_property
    def isolated(self) -> np.ndarray:
        """Eidos with no neighbour."""
        deg = np.bincount(np.r_[self.adjacency.i, self.adjacency.j], minlength=self.n)
        return np.flatnonzero(deg == 0)


def _no_pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0), np.empty(0), np.empty((0, 2))


def _facing_points(seg: Segments, si: np.ndarray, sj: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For pairs of segments, a point ``p`` on the first facing the second, ``q`` on the second, and the width.

    ``p`` is the middle of the part of segment ``si`` that segment ``sj``
    projects onto; ``q`` the point of ``sj`` closest to ``p``; the width the
    larger distance from ``sj`` to either end of that part (borders that
    cross there are 0 apart in the middle, not at the ends).
    """
    a, d = seg.a[si], seg.b[si] - seg.a[si]
    la = np.hypot(d[:, 0], d[:, 1])
    u = d / la[:, None]
    c, e = seg.a[sj], seg.b[sj] - seg.a[sj]
    t0 = np.einsum("ij,ij->i", c - a, u)
    t1 = np.einsum("ij,ij->i", c + e - a, u)
    lo = np.clip(np.minimum(t0, t1), 0, la)
    hi = np.clip(np.maximum(t0, t1), 0, la)

    def nearest(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = a + u * t[:, None]
        s = np.clip(np.einsum("ij,ij->i", p - c, e) / np.einsum("ij,ij->i", e, e), 0, 1)
        return p, c + e * s[:, None]

    width = np.maximum(*(np.hypot(*(q - p).T) for p, q in (nearest(lo), nearest(hi))))
    return (*nearest((lo + hi) / 2), width)
