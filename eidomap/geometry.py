"""Plain geometry shared by the readers and the topology: the drawing tolerance, positions along lines.

Nothing here knows of maps or graphs; :mod:`eidomap.io` and :mod:`eidomap.topology`
both stand on it.

>>> import shapely
>>> larger_side([shapely.box(0, 0, 4, 1), shapely.box(4, 0, 5, 2)])
5.0
>>> round(default_tolerance([shapely.box(0, 0, 1000, 10)]), 15)  # 1e-9 of the larger side
1e-06
"""

from __future__ import annotations

import numpy as np
import shapely

__all__ = ["RELATIVE_TOLERANCE", "default_tolerance", "larger_side", "positions_along", "tolerance_for"]

#: Default drawing tolerance, as a fraction of the map's larger side.
RELATIVE_TOLERANCE = 1e-9


def larger_side(geoms) -> float:
    """The larger side of the box around ``geoms`` (0 for none)."""
    if len(geoms) == 0:
        return 0.0
    x0, y0, x1, y1 = shapely.total_bounds(np.asarray(geoms))
    return float(max(x1 - x0, y1 - y0))


def default_tolerance(geoms) -> float:
    """The drawing tolerance tied to the extent of ``geoms``."""
    return tolerance_for(larger_side(geoms)) if len(geoms) else 0.0


def tolerance_for(side: float) -> float:
    """The drawing tolerance of a map whose larger side is ``side`` long."""
    return RELATIVE_TOLERANCE * max(side, 1e-300)


def positions_along(lines, which: np.ndarray, points, tolerance: float) -> np.ndarray:
    """Distance along ``lines[which[k]]`` to the projection of ``points[k]``.

    Each point is matched, by one bulk tree query, to the segments of its own
    line within ``tolerance`` and projected on them (the first such place
    along the line wins); a point farther than that from its line falls back
    to Shapely's ``line_locate_point``.  Cost: the segments near each point,
    not the whole line.
    """
    points = np.asarray(points, dtype=object)
    which = np.asarray(which, dtype=np.int64)
    out = np.full(len(points), np.nan)
    if len(points) == 0:
        return out
    xy, idx = shapely.get_coordinates(lines, return_index=True)
    same = idx[1:] == idx[:-1]
    a, b, seg_line = xy[:-1][same], xy[1:][same], idx[:-1][same]
    d = b - a
    seg_len = np.hypot(d[:, 0], d[:, 1])
    before = np.cumsum(seg_len) - seg_len
    seg_pos = before - before[np.searchsorted(seg_line, seg_line)]
    tree = shapely.STRtree(shapely.linestrings(np.stack([a, b], axis=1)))
    pi, si = tree.query(points, predicate="dwithin", distance=tolerance)
    keep = seg_line[si] == which[pi]
    pi, si = pi[keep], si[keep]
    p = shapely.get_coordinates(points)[pi]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.clip(((p - a[si]) * d[si]).sum(axis=1) / seg_len[si] ** 2, 0.0, 1.0)
    pos = seg_pos[si] + np.nan_to_num(t) * seg_len[si]
    order = np.lexsort((pos, pi))
    first = order[np.r_[True, pi[order][1:] != pi[order][:-1]]] if len(order) else order
    out[pi[first]] = pos[first]
    missing = np.flatnonzero(np.isnan(out))
    if len(missing):
        out[missing] = shapely.line_locate_point(lines[which[missing]], points[missing])
    return out
