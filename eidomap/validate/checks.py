"""Map validation for designers: every problem of a map at once.

:func:`validate` reads a map leniently and reports every problem it finds,
each a :class:`~eidomap.base.problems.Problem` with a stable code, a severity, the
ids of the features involved, a location and one sentence.  The codes, what
they mean and how they are computed are documented in docs/validation.md.

The reader reports what is wrong with single features (``not-a-feature``,
``unknown-kind``, ``missing-id``, ``duplicate-id``, ``invalid-geometry``,
``unknown-terrain``, ``unknown-road``); the checks here look at how the
features that could be read fit together.  ``Board`` holds the geometric
analysis of the Eidos (overlaps, gaps, near-misses, corner contacts), every
part of it vectorised; :mod:`eidomap.validate.fix` reuses it.

>>> import shapely
>>> from eidomap.validate.checks import Board
>>> b = Board([shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1), shapely.box(1, 1, 2, 2)])
>>> b.contacts[:2]  # the first and last box touch only at a corner
(array([0]), array([2]))
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import shapely

from eidomap.base import params, progress
from eidomap.base.arrays import in_threads, member, unique
from eidomap.base.errors import RequestError
from eidomap.base.names import did_you_mean, number, plural, shown
from eidomap.base.problems import ERROR, WARNING, Problem
from eidomap.io.document import Document, MapData
from eidomap.io.readers import read_map
from eidomap.model.topology import (
    Adjacency,
    PileUp,
    Segments,
    boundary_segments,
    exact_pairs,
    exact_union,
    points_in_polygons,
    segment_adjacency,
    shared_lengths,
)
from eidomap.record import rulesets
from eidomap.record.catalog import Catalog
from eidomap.record.geometry import MAX_TOLERANCE, check_tolerance, default_tolerance, larger_side, query
from eidomap.record.record import MapRecord
from eidomap.rules.actors import resolve_actor

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

    from eidomap.model.network import Network
    from eidomap.rules.eido import Actor

__all__ = ["CODES", "CONSEQUENCES", "Report", "inlet_width", "max_gap_area", "near_miss_distance", "typical_size",
           "validate"]

#: Every code :func:`validate` may report, with its severity (reader codes first).
CODES = {
    "not-a-feature": ERROR,
    "unknown-kind": ERROR,
    "missing-id": ERROR,
    "bad-id": ERROR,
    "duplicate-id": ERROR,
    "invalid-geometry": ERROR,
    "unknown-terrain": ERROR,
    "unknown-road": ERROR,
    "bad-property": ERROR,
    "no-eidos": ERROR,
    "overlap": ERROR,
    "gap": ERROR,
    "near-miss": WARNING,
    "inlet": WARNING,
    "corner-contact": WARNING,
    "isolated": WARNING,
    "pousa-off-road": ERROR,
    "pousa-outside": ERROR,
    "pousa-junction": WARNING,
    "road-short": ERROR,
    "road-outside": WARNING,
    "fountain-outside": ERROR,
    "stream-outside": ERROR,
    "unreachable": WARNING,
}

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
_SHOWN = 10
#: Problems that an Eido the reader left out causes where it was drawn: they are
#: told in the message of the reader's problem (``caused_by``), not counted.
CONSEQUENCES = ("gap", "pousa-outside", "road-outside", "fountain-outside", "stream-outside")
#: Pairs of Eidos whose boxes come within the near-miss distance of each other, which validation measures (each
#: pair at GEOS's cost): this many an Eido, and :data:`CLOSE_PAIRS_FLOOR` whatever the map.  A drawn map has a few
#: an Eido (its neighbours, the sea's); Eidos drawn over one another (1,000 nested squares: 499,500) may have
#: any number, and are refused, before the pairs are listed, past the bound.
CLOSE_PAIRS_PER_EIDO = 64
#: See :data:`CLOSE_PAIRS_PER_EIDO`.
CLOSE_PAIRS_FLOOR = 1_000_000
#: Boxes' pairs found at a time (an upper bound of them: :func:`_box_pairs`).
_BOX_CHUNK = 4_000_000
#: Overlaps listed one by one: past them, one problem tells how many more pairs overlap.
MAX_OVERLAPS_LISTED = 1_000


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


def _xy(points) -> np.ndarray:
    return shapely.get_coordinates(points).reshape(-1, 2)


def _at(xy: np.ndarray | tuple[float, float]) -> tuple[float, float]:
    return float(xy[0]), float(xy[1])


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
        return i[wide], j[wide], area[wide], _xy(shapely.point_on_surface(inter[wide]))

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
        xy = _xy(shapely.centroid(shapely.shortest_line(self.geoms[i], self.geoms[j])))
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


@dataclass
class Report:
    """What :func:`validate` found.

    Attributes
    ----------
    problems : list of Problem
        Every problem, in a stable order: what the reader found, then the checks in the order of
        docs/validation.md.  Each has a ``code``, a ``severity``, the ``features`` involved, a ``location``, a
        ``message`` and, when it follows from another, ``caused_by``.
    data : MapData or None
        The map as read (what the lenient reader could use of it).
    tolerance, near_miss : float
        The distances used.
    board : Board or None
        The geometric analysis, for callers that go on to fix the map.
    """

    problems: list[Problem]
    data: MapData | None = None
    tolerance: float = 0.0
    near_miss: float = 0.0
    board: Board | None = field(default=None, repr=False)

    @property
    def errors(self) -> list[Problem]:
        """The errors, but those that follow from another problem (``caused_by``)."""
        return [p for p in self.problems if p.severity == ERROR and p.caused_by is None]

    @property
    def warnings(self) -> list[Problem]:
        """The warnings, but those that follow from another problem (``caused_by``)."""
        return [p for p in self.problems if p.severity == WARNING and p.caused_by is None]

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return not self.errors

    def codes(self) -> list[str]:
        """The distinct codes reported, in order.

        Returns
        -------
        list of str
            The codes.
        """
        return list(dict.fromkeys(p.code for p in self.problems))

    def as_dict(self) -> dict:
        """``{"errors": n, "warnings": n, "problems": [...]}`` (what ``validate --json`` prints).

        Returns
        -------
        dict
            The counts and every problem as plain data.
        """
        return {"errors": len(self.errors), "warnings": len(self.warnings),
                "problems": [p.as_dict() for p in self.problems]}


def _reader_problem(p: Problem, index: int) -> Problem:
    """A reader problem with plain ids, a whole sentence as message and the position of its feature."""
    subject = shown(p.features[0]) if p.features else "a feature"
    loc = None if p.location is None else _at(p.location)
    return Problem(p.code, p.severity, p.features, loc,
                   f"Feature {subject} {p.message}.", index=index)


def _drawn(doc: Document, index: int):
    """The polygon a feature the reader left out was drawn as; None when it is no polygon GEOS can read."""
    try:
        geom = shapely.from_geojson(doc.features.raw(index))
    except (shapely.errors.GEOSException, AttributeError):
        return None
    if shapely.get_dimensions(geom) != 2:
        return None
    return geom if shapely.is_valid(geom) else shapely.make_valid(geom)


def _fold(problems: list[Problem], doc: Document, read: list[Problem], tol: float) -> list[Problem]:
    """Tell the problems an Eido left out by the reader causes (a Pousa in no Eido) with their cause.

    A problem of :data:`CONSEQUENCES` whose location lies where a left-out
    Eido was drawn gets ``caused_by`` (that feature) and is listed in the
    reader problem's message instead of being counted on its own.
    """
    causes = [(k, p, g) for k, p in enumerate(read)
              if p.features and p.index is not None and (g := _drawn(doc, p.index)) is not None]
    after = [k for k, p in enumerate(problems) if p.code in CONSEQUENCES and p.location is not None
             and p.caused_by is None]
    if not causes or not after:
        return problems
    pts = shapely.points([problems[k].location for k in after])
    pi, ci = shapely.STRtree([g for _, _, g in causes]).query(pts, predicate="dwithin", distance=tol)
    first = np.r_[True, pi[1:] != pi[:-1]] if len(pi) else np.empty(0, bool)  # one cause each
    out = list(problems)
    hidden: dict[int, list[Problem]] = {}
    for k, c in zip(pi[first].tolist(), ci[first].tolist(), strict=True):
        cause = causes[c][1]
        out[after[k]] = dataclasses.replace(problems[after[k]], caused_by=cause.features[0])
        hidden.setdefault(c, []).append(out[after[k]])
    for c, found in hidden.items():
        k, cause, _ = causes[c]
        by_code: dict[str, list[str]] = {}
        for p in found:
            by_code.setdefault(p.code, []).append(p.features[0])
        told = "; ".join(plural(len(names), "gap") if code == "gap" else f"{code} {_ids(names)}"
                         for code, names in by_code.items())  # a gap has no id of its own
        out[out.index(cause)] = dataclasses.replace(
            cause, message=f"{cause.message} It is left out, so what lay on it is told here rather than"
                           f" counted apart: {told}.")
    return out


def checked_codes(codes: str | Iterable[str], what: str) -> set[str]:
    """``codes`` as a set, each a known code (:data:`CODES`).

    Parameters
    ----------
    codes : str or iterable of str
        Problem codes (a string: one code).
    what : str
        Where they come from, for the message (``"select"``).

    Returns
    -------
    set of str
        The codes.

    Raises
    ------
    RequestError
        For an unknown code (with the closest known one).

    See Also
    --------
    validate : Takes them as ``ignore`` and ``select``.

    Examples
    --------
    >>> sorted(checked_codes(["gap", " overlap"], "select"))
    ['gap', 'overlap']
    """
    codes = {c.strip() for c in ([codes] if isinstance(codes, str) else params.names(codes, what, "problem codes"))}
    codes -= {""}
    for c in sorted(codes):
        if c not in CODES:
            raise RequestError(f"{what}: unknown problem code {c!r}{did_you_mean(c, list(CODES))}"
                               " (see docs/validation.md for the codes)")
    return codes


def _ids(names) -> str:
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")


def geometry_problems(board: Board, ids: Sequence[str], errors_only: bool = False) -> list[Problem]:
    """Problems of the Eidos among themselves: overlap, gap (the errors), near-miss, corner-contact, inlet, isolated.

    Parameters
    ----------
    board : Board
        The Eidos' analysis.
    ids : sequence of str
        The Eidos' ids, in the order of the board's geometries.
    errors_only : bool
        Only the errors (overlaps and gaps).

    Returns
    -------
    list of Problem
        The problems.

    See Also
    --------
    validate : Every problem of a map.

    Examples
    --------
    >>> import shapely
    >>> board = Board([shapely.box(0, 0, 10, 10), shapely.box(9, 0, 20, 10), shapely.box(0, 10.01, 10, 20)])
    >>> [(p.code, p.features) for p in geometry_problems(board, ["a", "b", "c"])]
    [('overlap', ('a', 'b')), ('near-miss', ('a', 'c')), ('near-miss', ('b', 'c')), ('isolated', ('c',))]
    """
    out = _overlap_problems(board, ids)
    gi, ge = board.gap_eidos
    around = np.split(ge, np.searchsorted(gi, np.arange(1, len(board.gaps))))
    gxy = _xy(shapely.point_on_surface(board.gaps))
    for k, (gap, (x, y)) in enumerate(zip(board.gaps, gxy.tolist(), strict=True)):
        names = [ids[e] for e in around[k].tolist()]
        out.append(Problem("gap", ERROR, tuple(names), (x, y),
                           f"A gap of area {number(shapely.area(gap))} belongs to no Eido"
                           + (f"; around it: {_ids(names)}." if names else ".")))
    if errors_only:
        return out
    i, j, length, dist, xy = board.near_misses
    for a, b, ln, d, (x, y) in zip(i.tolist(), j.tolist(), length.tolist(), dist.tolist(), xy.tolist(), strict=True):
        out.append(Problem("near-miss", WARNING, (ids[a], ids[b]), (x, y),
                           f"Eidos {ids[a]!r} and {ids[b]!r} run within {number(d)} of each other for a length of"
                           f" {number(ln)} but share no border, so they are not adjacent."))
    i, j, length, width, xy = board.inlets
    for a, b, ln, w, (x, y) in zip(i.tolist(), j.tolist(), length.tolist(), width.tolist(), xy.tolist(), strict=True):
        out.append(Problem("inlet", WARNING, (ids[a], ids[b]), (x, y),
                           f"Eidos {ids[a]!r} and {ids[b]!r} face each other across a narrow inlet from outside the"
                           f" board (at most {number(w)} wide, {number(ln)} long), so they are not adjacent."))
    i, j, xy = board.contacts
    for a, b, (x, y) in zip(i.tolist(), j.tolist(), xy.tolist(), strict=True):
        out.append(Problem("corner-contact", WARNING, (ids[a], ids[b]), (x, y),
                           f"Eidos {ids[a]!r} and {ids[b]!r} touch only at a corner, so they are not adjacent."))
    inside = _xy(shapely.point_on_surface(board.geoms[board.isolated]))
    for k, (x, y) in zip(board.isolated.tolist(), inside.tolist(), strict=True):
        out.append(Problem("isolated", WARNING, (ids[k],), (x, y), f"Eido {ids[k]!r} has no neighbour."))
    return out


def _overlap_problems(board: Board, ids: Sequence[str]) -> list[Problem]:
    """A problem for each pair of Eidos that overlap, the first :data:`MAX_OVERLAPS_LISTED` of them; then one that
    tells how many more pairs overlap (Eidos drawn over one another: a list of every pair would be as long as
    their square)."""
    i, j, area, xy = (a[:MAX_OVERLAPS_LISTED] for a in board.overlaps)
    out = [Problem("overlap", ERROR, (ids[a], ids[b]), (x, y),
                   f"Eidos {ids[a]!r} and {ids[b]!r} overlap over an area of {number(ar)}.")
           for a, b, ar, (x, y) in zip(i.tolist(), j.tolist(), area.tolist(), xy.tolist(), strict=True)]
    more = len(board.overlaps[0]) - len(out)
    if more > 0:
        out.append(Problem("overlap", ERROR, (), None, f"{more:,} more {'pair' if more == 1 else 'pairs'} of Eidos"
                                                       f" overlap: only the first {len(out):,} are listed; fix them"
                                                       " and validate again."))
    return out


def _holders(points, board: Board) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (point, Eido) of points in or on an Eido (within the tolerance)."""
    if board.n == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return points_in_polygons(points, board.geoms, board.tol, board.tree)


def _pousas_off_road(md: MapRecord, board: Board) -> list[Problem]:
    pousas, roads = md.pousas, md.roads
    if not len(pousas):
        return []
    out = []
    pxy = _xy(pousas.geoms)
    dist = shapely.distance(pousas.geoms, roads.geoms[md.pousa_road])
    for k in np.flatnonzero(dist > board.tol).tolist():
        rid = roads.ids[md.pousa_road[k]]
        out.append(Problem("pousa-off-road", ERROR, (pousas.ids[k], rid), _at(pxy[k]),
                           f"Pousa {pousas.ids[k]!r} is {number(dist[k])} away from the line of its road {rid!r}."))
    return out


def _pousas_held(md: MapRecord, board: Board) -> list[Problem]:
    """Pousas in no Eido (an error), and where three or more Eidos meet (a warning)."""
    ids, pousas = md.eidos.ids, md.pousas
    if not len(pousas):
        return []
    out = []
    pxy = _xy(pousas.geoms)
    pp, pe = _holders(pousas.geoms, board)
    count = np.bincount(pp, minlength=len(pousas))
    for k in np.flatnonzero(count == 0).tolist():
        out.append(Problem("pousa-outside", ERROR, (pousas.ids[k],), _at(pxy[k]),
                           f"Pousa {pousas.ids[k]!r} lies in no Eido."))
    held = np.split(pe, np.searchsorted(pp, np.arange(1, len(pousas))))
    for k in np.flatnonzero(count >= 3).tolist():
        names = [ids[e] for e in held[k].tolist()]
        out.append(Problem("pousa-junction", WARNING, (pousas.ids[k], *names), _at(pxy[k]),
                           f"Pousa {pousas.ids[k]!r} lies where {len(names)} Eidos meet ({_ids(names)});"
                           " it can be reached from each of them."))
    return out


def _short_roads(md: MapRecord, board: Board) -> list[Problem]:
    roads = md.roads
    if not len(roads) or not rulesets.get(md.rules).pousa_roads:  # (d20 roads are followed, not hopped)
        return []
    count = np.bincount(md.pousa_road, minlength=len(roads))
    start = _xy(shapely.get_point(roads.geoms, 0))
    return [Problem("road-short", ERROR, (roads.ids[k],), _at(start[k]),
                    f"Road {roads.ids[k]!r} has {plural(int(count[k]), 'Pousa')}; a road needs at least two.")
            for k in np.flatnonzero(count < 2).tolist()]


def _roads_outside(md: MapRecord, board: Board) -> list[Problem]:
    roads = md.roads
    if not len(roads) or not board.n:
        return []
    loose = np.flatnonzero(~shapely.covers(board.outline, roads.geoms))
    outside = shapely.difference(roads.geoms[loose], board.outline)
    far = shapely.length(outside) > board.tol
    where = _xy(shapely.line_interpolate_point(outside[far], 0.5, normalized=True))
    return [Problem("road-outside", WARNING, (roads.ids[k],), (x, y),
                    f"Road {roads.ids[k]!r} leaves the board for a length of {number(ln)}.")
            for k, ln, (x, y) in zip(loose[far].tolist(), shapely.length(outside[far]).tolist(), where.tolist(),
                                     strict=True)]


def _fountains_outside(md: MapRecord, board: Board) -> list[Problem]:
    if not len(md.fountains):
        return []
    fp, _ = _holders(md.fountains.geoms, board)
    fxy = _xy(md.fountains.geoms)
    return [Problem("fountain-outside", ERROR, (md.fountains.ids[k],), _at(fxy[k]),
                    f"Fountain {md.fountains.ids[k]!r} lies in no Eido.")
            for k in np.flatnonzero(np.bincount(fp, minlength=len(md.fountains)) == 0).tolist()]


def _streams_outside(md: MapRecord, board: Board) -> list[Problem]:
    streams = md.streams
    out = []
    for end, which in ((0, "source (first point)"), (-1, "mouth (last point)")):
        if not len(streams):
            break
        pts = shapely.get_point(streams.geoms, end)
        sp, _ = _holders(pts, board)
        sxy = _xy(pts)
        for k in np.flatnonzero(np.bincount(sp, minlength=len(streams)) == 0).tolist():
            out.append(Problem("stream-outside", ERROR, (streams.ids[k],), _at(sxy[k]),
                               f"The {which} of stream {streams.ids[k]!r} lies in no Eido."))
    return out


#: The checks of :func:`feature_problems`, each with the codes it reports.
_FEATURE_CHECKS = ((("pousa-off-road",), _pousas_off_road), (("pousa-outside", "pousa-junction"), _pousas_held),
                   (("road-short",), _short_roads), (("road-outside",), _roads_outside),
                   (("fountain-outside",), _fountains_outside), (("stream-outside",), _streams_outside))


def feature_problems(md: MapRecord, board: Board, codes: Collection[str] | None = None) -> list[Problem]:
    """Problems of Pousas, roads, fountains and streams against the Eidos.

    Parameters
    ----------
    md : MapRecord
        The map's record.
    board : Board
        The Eidos' analysis.
    codes : collection of str, optional
        Only the checks that report one of these codes.

    Returns
    -------
    list of Problem
        The problems.

    See Also
    --------
    validate : Every problem of a map.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> feature_problems(m.record, Board(m.geometries))
    []
    """
    return [p for reports, check in _FEATURE_CHECKS if codes is None or not set(codes).isdisjoint(reports)
            for p in check(md, board)]


def counted_problems(md: MapRecord, board: Board, codes: Collection[str]) -> dict[str, int]:
    """How many problems of each of ``codes`` :func:`validate` reports on this map, found by its own checks.

    Only the checks that report them run; codes it finds none of are left out.  What ``eidomap route`` warns
    of (:meth:`eidomap.Map.map_errors`) is counted here: one count, from one place.

    Parameters
    ----------
    md : MapRecord
        The map's record.
    board : Board
        The Eidos' analysis.
    codes : collection of str
        ``overlap`` and the feature codes.

    Returns
    -------
    dict of str to int
        The number of problems of each code found.

    See Also
    --------
    eidomap.Map.map_errors : What a loaded map noticed.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> counted_problems(m.record, Board(m.geometries), ["overlap", "pousa-off-road"])
    {}
    """
    codes = list(codes)
    count = Counter(p.code for p in feature_problems(md, board, codes))
    if "overlap" in codes:  # (every pair that overlaps, though validate lists the first MAX_OVERLAPS_LISTED)
        count["overlap"] = len(board.overlaps[0])
    return {c: count[c] for c in codes if count[c]}


def _steps(net: Network, ok: np.ndarray) -> csr_matrix:
    """The steps ``ok`` of the network's distinct (source, target) pairs, as a SciPy CSR matrix of ones."""
    from scipy.sparse import csr_matrix

    count = np.zeros(len(ok) + 1, np.int32)
    np.cumsum(ok, out=count[1:])
    return csr_matrix((np.ones(int(count[-1])), net.pair_dst[ok], count[net.pair_indptr]),
                      shape=(net.n_nodes, net.n_nodes))


def reach_problems(md: MapRecord, board: Board, species: Iterable[str | Actor]) -> list[Problem]:
    """``unreachable``: per species, the Eidos it cannot reach from the largest region it moves in.

    The region is the largest strongly connected part of the movement graph (counted in Eidos, over steps the
    species can take; of parts as large, the one holding the Eido first in the file); an Eido is unreachable
    when no path leads to it from that region.  Who moves and what each step costs is the map's rule set's
    (:func:`eidomap.rules.actors.resolve_actor`): a map drawn for rules without an actor is refused.

    Parameters
    ----------
    md : MapRecord
        The map's record.
    board : Board
        The Eidos' analysis.
    species : iterable of str or Actor
        Names the map's rule set makes actors of (under the Eido rules, species of the map's catalog), or
        actors.

    Returns
    -------
    list of Problem
        One ``unreachable`` warning per species that has such Eidos.

    Raises
    ------
    RequestError
        For a species not in the catalog, or a map drawn for rules that have no actor.

    See Also
    --------
    validate : With ``species=``.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> [(p.code, p.features[:2]) for p in reach_problems(m.record, Board(m.geometries), ["cart"])]
    [('unreachable', ('ceo-poente', 'ceo-gaivotas'))]
    """
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    from eidomap.model.network import KIND, build_network

    actors = [resolve_actor(md, sp, None) for sp in species]
    if not actors or board.n == 0:
        return []
    net = build_network(md, board.adjacency, board.tol, tree=board.tree)
    n_e, n = net.n_eidos, net.n_nodes
    ids = np.array(md.eidos.ids, dtype=object)
    names = md.catalog.terrain_names
    searched: dict[bytes, tuple[csr_matrix, np.ndarray, dict[int, np.ndarray]]] = {}  # by the steps it can take
    out = []
    for who in actors:
        ok = np.isfinite(net.pair_weights(who.costs))
        steps = np.packbits(ok).tobytes()
        if steps not in searched:  # species that take the same steps share their graph and searches
            graph = _steps(net, ok)
            searched[steps] = (graph, connected_components(graph, directed=True, connection="strong")[1], {})
        graph, label, reached_from = searched[steps]
        can_be = np.isfinite(who.table[KIND["border"], md.terrain])  # (an Eido it can enter across a border)
        if not can_be.any():
            reached = np.zeros(n_e, bool)
            region = 0
        else:
            # the largest region; of regions as large, the one holding the Eido first in the file
            found, first, sizes = np.unique(label[:n_e][can_be], return_index=True, return_counts=True)
            pick = np.flatnonzero(sizes == sizes.max())
            big = int(found[pick[np.argmin(first[pick])]])
            region = int(sizes.max())
            if big not in reached_from:
                # what the region reaches, any one of its nodes reaches (it reaches the others): one search
                reached = np.zeros(n, bool)
                root = int(np.argmax(label == big))
                reached[breadth_first_order(graph, root, return_predecessors=False)] = True
                reached_from[big] = reached[:n_e]
            reached = reached_from[big]
        lost = np.flatnonzero(~reached)
        if not len(lost):
            continue
        lost_ids = ids[lost].tolist()
        barred = int(np.count_nonzero(~can_be[lost]))
        kinds = sorted({names[t] for t in md.terrain[lost[~can_be[lost]]].tolist()})
        are = "1 of them is of a terrain" if barred == 1 else f"{barred} of them are of terrains"
        why = f" {are} it cannot enter ({', '.join(shown(k) for k in kinds)})." if barred else ""
        where = _xy(shapely.point_on_surface(board.geoms[lost[:1]]))[0]
        out.append(Problem("unreachable", WARNING, tuple(lost_ids), _at(where),
                           f"Species {who.name!r} cannot reach {plural(len(lost), 'Eido')} of {n_e} from the"
                           f" largest region it can move in ({plural(region, 'Eido')}): {_ids(lost_ids)}.{why}"))
    return out


def validate(source: str | os.PathLike | MapData, *, catalog: Catalog | str | os.PathLike | None = None,
             tolerance: float | None = None, near_miss: float | None = None, inlet: float | None = None,
             species: Iterable[str] = (), ignore: Iterable[str] = (), select: Iterable[str] = (),
             terrain_field: str = "terrain",
             id_field: str = "id", show: bool | None = False, reader: str | None = None,
             helper: bool = False, pause_gc: bool = False) -> Report:
    """Check a map and report every problem at once.

    Parameters
    ----------
    source : str, Path or MapData
        A map file (read leniently: what the reader cannot use is reported and left out of the checks), or a
        map already read.
    catalog : str, Path or Catalog, optional
        Terrain/species catalog (default: the one the map names).
    tolerance : float, optional
        Drawing tolerance (default 1e-9 of the map's larger side).
    near_miss : float, optional
        Largest distance between two borders reported as a near-miss (default
        :func:`~eidomap.validate.checks.near_miss_distance`).
    inlet : float, optional
        Widest inlet reported (default :func:`~eidomap.validate.checks.inlet_width`).
    species : iterable of str
        Species to check ``unreachable`` for.
    ignore, select : iterable of str
        Problem codes (:data:`~eidomap.validate.checks.CODES`) left out of the report, or the only ones kept in it
        (empty: all).
    terrain_field, id_field, reader, helper, pause_gc
        How the file is read (see :func:`eidomap.load`).
    show : bool or None
        A progress bar on stderr; None: when it is a terminal.

    Returns
    -------
    Report
        Every problem, with the map as read.

    Raises
    ------
    MapError
        When the file cannot be read as a map at all.
    RequestError
        When a species is not in the catalog, or a code is unknown.

    See Also
    --------
    eidomap.validate.fix.fix_map : Fix what can be fixed.
    eidomap.plot.plot_problems : Draw the problems.

    Examples
    --------
    >>> import eidomap
    >>> report = validate(eidomap.demo_map_path(), species=["boat"])
    >>> report.ok, report.codes()
    (True, ['corner-contact', 'unreachable'])
    >>> report.problems[0].message
    "Eidos 'xesteira' and 'bouza-vella' touch only at a corner, so they are not adjacent."

    A generated map has no error:

    >>> import os, tempfile
    >>> from eidomap.model.generate import generate_map, write_map
    >>> path = os.path.join(tempfile.mkdtemp(), "g.geojson")
    >>> write_map(generate_map(300, seed=2), path)
    >>> validate(path).errors
    []
    """
    ignore, select = checked_codes(ignore, "ignore"), checked_codes(select, "select")
    species, show = params.names(species, "species", "species names"), params.maybe(params.flag, show, "show")
    near_miss, inlet = (params.maybe(distance, v, name) for v, name in ((near_miss, "near_miss"), (inlet, "inlet")))
    if not isinstance(source, MapData):
        source = Path(params.path(source, "source", "a MapData"))
    with progress.steps(("reading", "geometry", "features", "reach"), show) as step:
        if isinstance(source, MapData):  # (what its reader found, the caller holds)
            data, read = source, []
        else:
            data, found = read_map(source, catalog=catalog, terrain_field=terrain_field, id_field=id_field,
                                   reader=reader, helper=helper, pause_gc=pause_gc)
            read = [_reader_problem(p, i) for p, i in zip(found, data.document.left_out, strict=True)]
        md = data.record
        actors = [resolve_actor(md, sp, None) for sp in species]  # the map's rule set's; refused before the work
        step("geometry")
        board = Board(md.eidos.geoms, tolerance, near_miss, inlet)
        problems = list(read)
        if board.n == 0:
            problems.append(Problem("no-eidos", ERROR, (), None, "The map has no Eido that could be read."))
        try:
            problems += geometry_problems(board, md.eidos.ids)
            step("features")
            problems += feature_problems(md, board)
            step("reach")
            if "unreachable" not in ignore and (not select or "unreachable" in select):
                problems += reach_problems(md, board, actors)
        except PileUp as exc:  # (a Board knows no file)
            raise exc.of(md.path) from None
    kept = [p for p in _fold(problems, data.document, read, board.tol)
            if p.code not in ignore and (not select or p.code in select)]
    return Report(kept, data, board.tol, board.near, board)
