"""Plain geometry shared by the readers and the topology: the drawing tolerance, positions along lines,
points near segments, tree queries on two cores.

Nothing here knows of maps or graphs; :mod:`eidomap.io` and :mod:`eidomap.model.topology`
both stand on it.

>>> import shapely
>>> larger_side([shapely.box(0, 0, 4, 1), shapely.box(4, 0, 5, 2)])
5.0
>>> round(default_tolerance([shapely.box(0, 0, 1000, 10)]), 15)  # 1e-9 of the larger side
1e-06
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

from eidomap.base import params
from eidomap.base.arrays import distinct_rows, in_parts, join

#: Default drawing tolerance, as a fraction of the map's larger side.
RELATIVE_TOLERANCE = 1e-9
#: Smallest map, its larger side: the default tolerance, 1e-9 of it, squared is still a normal double (a map
#: 1e-200 across made GEOS fail to measure along its roads).
MIN_SIDE = 1e-100
#: Largest drawing tolerance asked: a map's coordinates lie within ±1e15 (the readers' bound), so nothing is
#: farther from anything than twice this; beyond, a tolerance joins every Eido and its sums overflow.
MAX_TOLERANCE = 1e15


def check_tolerance(value: object) -> float:
    """A drawing tolerance asked for, as a float: a number from 0 to :data:`MAX_TOLERANCE`; :class:`RequestError` else.

    >>> check_tolerance(0.5)
    0.5
    """
    return params.real(value, "tolerance", 0, MAX_TOLERANCE)


def larger_side(geoms: np.ndarray) -> float:
    """The larger side of the box around ``geoms`` (0 for none)."""
    if len(geoms) == 0:
        return 0.0
    x0, y0, x1, y1 = shapely.total_bounds(np.asarray(geoms))
    return float(max(x1 - x0, y1 - y0))


def default_tolerance(geoms: np.ndarray) -> float:
    """The drawing tolerance tied to the extent of ``geoms`` (that of a map :data:`MIN_SIDE` across for none)."""
    return tolerance_for(larger_side(geoms))


def tolerance_for(side: float) -> float:
    """The drawing tolerance of a map whose larger side is ``side`` long."""
    return RELATIVE_TOLERANCE * max(side, MIN_SIDE)  # (a degenerate map: still a tolerance a double can square)


def places_along(lines: np.ndarray, which: np.ndarray, points: np.ndarray,
                 tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """Where each point lies along its line: ``(position, near)``.

    ``position[k]`` is the distance along ``lines[which[k]]`` to the
    projection of ``points[k]``; ``near[k]`` whether the point lies within
    ``tolerance`` of a segment of its line (then its distance to the line is
    within the tolerance too; a point not near may still be, by a rounding).
    Each point is matched to the segments of its own line within the
    tolerance and projected on them (the first such place along the line
    wins); a point farther than that from its line falls back to Shapely's
    ``line_locate_point``.  Cost: the segments near each point, not the whole
    line: one bulk query of the points' boxes widened by the tolerance (the
    envelopes a GEOS ``dwithin`` query looks at) against the distinct
    segments, then :func:`within` on the pairs of the same line only.
    """
    points = np.asarray(points, dtype=object)
    which = np.asarray(which, dtype=np.int64)
    out = np.full(len(points), np.nan)
    if len(points) == 0:
        return out, np.zeros(0, bool)
    a, b, seg_line, seg_len, seg_pos = line_segments(lines)
    d = b - a
    # lines sharing a stretch share its segments: query the distinct ones, then take those of the point's line
    ab, inst = distinct_rows(np.concatenate([a, b], axis=1))
    tree = shapely.STRtree(shapely.linestrings(ab.reshape(-1, 2, 2)))
    pxy = shapely.get_coordinates(points)
    pi, ui = query(tree, shapely.box(*(pxy - tolerance).T, *(pxy + tolerance).T))
    pair, si = join(ui, inst)  # (instances are numbered densely: a table of counts, no binary search)
    own = seg_line[si] == which[pi[pair]]
    pi, si = pi[pair[own]], si[own]
    keep = within(pxy[pi], a[si], b[si], tolerance)
    pi, si = pi[keep], si[keep]
    p = pxy[pi]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.clip(((p - a[si]) * d[si]).sum(axis=1) / seg_len[si] ** 2, 0.0, 1.0)
    pos = seg_pos[si] + np.nan_to_num(t) * seg_len[si]
    order = np.lexsort((pos, pi))
    first = order[np.r_[True, pi[order][1:] != pi[order][:-1]]] if len(order) else order
    out[pi[first]] = pos[first]
    near = ~np.isnan(out)
    missing = np.flatnonzero(~near)
    if len(missing):
        # a line no longer than the tolerance is a point: at 0 (GEOS fails to measure along one of 1e-300)
        long = shapely.length(lines[which[missing]]) > tolerance
        out[missing] = 0.0
        out[missing[long]] = shapely.line_locate_point(lines[which[missing[long]]], points[missing[long]])
    return out, near


def query(tree: shapely.STRtree, geoms: np.ndarray, **kwargs: Any) -> np.ndarray:
    """``tree.query(geoms, **kwargs)``, many geometries in parts on threads (:func:`~eidomap.base.arrays.in_parts`).

    GEOS lets go of the GIL while it queries.  The pairs come in the same
    order as from one query.
    """
    parts = in_parts(lambda part: tree.query(part, **kwargs), geoms)
    for first, pairs in parts:
        pairs[0] += first
    return np.concatenate([pairs for _, pairs in parts], axis=1)


def line_segments(lines: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The segments of ``lines``: ``(a, b, line, length, start)``, ``start`` where each begins along its line."""
    xy, idx = shapely.get_coordinates(lines, return_index=True)
    same = idx[1:] == idx[:-1]
    a, b, line = xy[:-1][same], xy[1:][same], idx[:-1][same]
    length = np.hypot(b[:, 0] - a[:, 0], b[:, 1] - a[:, 1])
    before = np.cumsum(length) - length
    return a, b, line, length, before - before[np.searchsorted(line, line)]


def within(p: np.ndarray, a: np.ndarray, b: np.ndarray, tolerance: float) -> np.ndarray:
    """Whether points ``p`` lie within ``tolerance`` of segments ``a -> b`` (``(n, 2)`` arrays), as GEOS decides.

    The distance in numpy settles every pair but those within a rounding
    margin of the tolerance (a billionth of the coordinates' differences,
    millions of times their rounding errors): GEOS's ``dwithin`` decides
    those, so the answer is the one a ``dwithin`` query gives.
    """
    d, w = b - a, p - a
    len2 = d[:, 0] ** 2 + d[:, 1] ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.clip((w[:, 0] * d[:, 0] + w[:, 1] * d[:, 1]) / len2, 0.0, 1.0)
    r[len2 == 0] = 0.0
    dist = np.hypot(w[:, 0] - r * d[:, 0], w[:, 1] - r * d[:, 1])
    margin = 1e-9 * (np.abs(w).sum(axis=1) + np.abs(d).sum(axis=1))
    out = dist <= tolerance
    unsure = np.flatnonzero(np.abs(dist - tolerance) <= margin)
    if len(unsure):
        out[unsure] = shapely.dwithin(shapely.points(p[unsure]),
                                      shapely.linestrings(np.stack([a[unsure], b[unsure]], axis=1)), tolerance)
    return out
