"""The union of Eidos that share every border to the bit, from the borders no two of them share.

Give each Eido's boundary the direction that keeps its inside on the left:
around any point off the borders, the sum over the Eidos of their boundaries'
winding numbers counts the Eidos that cover it.  A border two Eidos share to
the bit, each on its own side, runs once each way: the two cancel out of that
sum.  So what covers a point is told by the borders left over alone; and when
those are, segment for segment and way for way, the boundary of one valid
(multi)polygon ``U``, every point of ``U`` is covered exactly once and no
other point at all.  Then the Eidos do not overlap anywhere (not even by a
hair) and ``U`` is their union -- found without an overlay, from a few
segments: the board's outline and the rims of its gaps.

Where the check fails (borders that cross or run together on one side,
T-junctions, vertices off by rounding) nothing is concluded: validation goes
the general way (GEOS's coverage check and union).

>>> import numpy as np, shapely
>>> from eidomap.topology import boundary_segments, exact_pairs
>>> seg = boundary_segments([shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1)])
>>> exact_union(seg, exact_pairs(seg).paired).normalize().wkt
'POLYGON ((0 0, 0 1, 1 1, 2 1, 2 0, 1 0, 0 0))'
"""

from __future__ import annotations

import numpy as np
import shapely

from .topology import Segments, boundary_segments

__all__ = ["exact_union"]

#: The unpaired segments are tried as a boundary when they are at most this share of all segments, or at
#: most :data:`FEW` of them.  A partition leaves its outline and the rims of its gaps (at 200,000 Eidos, 1,589
#: of 1.2 million segments); ``build_area`` takes about 20 µs a segment, so on borders split on one side
#: (half of them left unpaired) the attempt would cost several times the general way it then falls back to.
MOST = 1 / 8
FEW = 10_000


def _directed(seg: Segments) -> np.ndarray:
    """Segments as rows ``(x0, y0, x1, y1)``, each running with the inside of its polygon on its left, sorted."""
    assert seg.inside_left is not None  # (from boundary_segments, which tells it)
    left = seg.inside_left[:, None]
    rows = np.hstack([np.where(left, seg.a, seg.b), np.where(left, seg.b, seg.a)])
    return rows[np.lexsort(rows.T[::-1])]


def exact_union(seg: Segments, paired: np.ndarray) -> shapely.Geometry | None:
    """The union of valid polygons when their unpaired borders bound it exactly; None when they do not.

    Parameters
    ----------
    seg : Segments
        The polygons' :func:`~eidomap.topology.boundary_segments`; the polygons must be valid (the caller checks).
    paired : numpy.ndarray of bool
        The segments shared to the bit with a polygon on the other side (:attr:`ExactPairs.paired`).

    Returns
    -------
    shapely.Geometry or None
        The union, a valid Polygon or MultiPolygon whose boundary is exactly the unpaired segments (so the
        polygons overlap nowhere); None when those segments are no such boundary, or too many of them to try
        (:data:`MOST`).
    """
    unpaired = np.flatnonzero(~paired)
    if not len(unpaired) or len(unpaired) > max(MOST * len(seg), FEW):
        return None
    rest = seg.take(unpaired)
    lines = _directed(rest)
    try:
        union = shapely.build_area(shapely.multilinestrings(shapely.linestrings(lines.reshape(-1, 2, 2))))
    except shapely.errors.GEOSException:  # linework that bounds no area cleanly (borders crossing...)
        return None
    if shapely.get_type_id(union) not in (shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON) \
            or not shapely.is_valid(union):
        return None
    edge = _directed(boundary_segments([union]))
    return union if edge.shape == lines.shape and np.array_equal(edge, lines) else None
