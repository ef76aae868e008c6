"""Rings that are surely simple, told from their coordinates without GEOS.

A polygon of one ring is valid exactly when its ring is simple: at least
three distinct positions, and no two of its segments meet except
consecutive ones at the position they share.  GEOS's ``is_valid`` takes
about 0.8 µs on the six-sided Eidos of a generated map, most of it in
setting up its general noding; :func:`surely_simple` tries every pair of
segments of a short ring, about ten times faster, and says True only where
every answer is certain.  Each orientation and dot product is trusted only
beyond the bound of its floating-point error (Shewchuk's filter for
``orient2d``), so a ring it calls simple is simple in exact arithmetic too;
a ring it is not sure of -- one that touches or crosses itself, nearly
does, has a repeated position, or has more than :data:`MAX_SEGMENTS`
segments -- is left to GEOS, whose answer stands.

Written as plain Python over arrays and compiled with numba
(:func:`eidomap.base.settings.twin`), as the searches are; the work per ring is
bounded by :data:`MAX_SEGMENTS` squared.

>>> import numpy as np
>>> square = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]], dtype=float)
>>> bowtie = np.array([[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]], dtype=float)
>>> xy = np.concatenate([square, bowtie])
>>> surely_simple(xy, np.array([0, 5]), np.array([5, 5])).tolist()
[True, False]
"""

from __future__ import annotations

import numpy as np

#: Longest ring tried (segments); a longer one is left to GEOS (the pairs grow with the square of its length).
MAX_SEGMENTS = 64

#: Shewchuk's bound on the relative error of a 2 x 2 determinant of coordinate differences in float64
#: ("Adaptive Precision Floating-Point Arithmetic", ccwerrboundA), doubled for margin.
_ERROR = 2.0 * (3.0 + 16.0 * 2.0**-53) * 2.0**-53


def _sign(left: float, right: float) -> int:
    """The sign of ``left - right`` for two products of coordinate differences, where it is certain; else 0."""
    det = left - right
    bound = _ERROR * (abs(left) + abs(right))
    if det > bound:
        return 1
    if det < -bound:
        return -1
    return 0


def _orient(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> int:
    """Which side of the line through a and b point c is on (1 left, -1 right), where it is certain; else 0."""
    return _sign((ax - cx) * (by - cy), (ay - cy) * (bx - cx))


def _apart(xy: np.ndarray, i: int, j: int) -> bool:
    """Whether the segments from positions ``i`` and ``j`` of ``xy`` (each to the next position) surely do not
    meet: their boxes are apart, or one lies strictly on one side of the other's line."""
    ax, ay, bx, by = xy[i, 0], xy[i, 1], xy[i + 1, 0], xy[i + 1, 1]
    cx, cy, dx, dy = xy[j, 0], xy[j, 1], xy[j + 1, 0], xy[j + 1, 1]
    if (max(ax, bx) < min(cx, dx) or max(cx, dx) < min(ax, bx)
            or max(ay, by) < min(cy, dy) or max(cy, dy) < min(ay, by)):
        return True
    c, d = _orient(ax, ay, bx, by, cx, cy), _orient(ax, ay, bx, by, dx, dy)
    if c != 0 and c == d:
        return True
    a, b = _orient(cx, cy, dx, dy, ax, ay), _orient(cx, cy, dx, dy, bx, by)
    return a != 0 and a == b


def _turns(xy: np.ndarray, i: int, k: int, j: int) -> bool:
    """Whether the segments ``i``-``k`` and ``k``-``j`` (consecutive at position ``k``) surely meet only there:
    the three positions are surely not on one line, or ``i`` and ``j`` surely lie on opposite sides of ``k``."""
    qx, qy = xy[k, 0], xy[k, 1]
    ux, uy, vx, vy = xy[i, 0] - qx, xy[i, 1] - qy, xy[j, 0] - qx, xy[j, 1] - qy
    return _orient(xy[i, 0], xy[i, 1], qx, qy, xy[j, 0], xy[j, 1]) != 0 or _sign(-ux * vx, uy * vy) == 1


def _ring_simple(xy: np.ndarray, a: int, n: int) -> bool:
    """Whether the closed ring of the ``n`` positions from ``a`` (the last repeating the first) is surely
    simple."""
    m = n - 1  # segments
    if m < 3 or m > MAX_SEGMENTS:
        return False
    for s in range(a, a + m):
        if xy[s, 0] == xy[s + 1, 0] and xy[s, 1] == xy[s + 1, 1]:
            return False
    for s in range(m):  # each position between its two segments (the first one between the last and the first)
        before = a + (s - 1 if s > 0 else m - 1)
        if not _turns(xy, before, a + s, a + s + 1):
            return False
    for s in range(m - 2):
        last = m if s > 0 else m - 1  # (the last segment and the first are consecutive)
        for t in range(s + 2, last):
            if not _apart(xy, a + s, a + t):
                return False
    return True


def surely_simple(xy: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Which closed rings are surely simple.

    Parameters
    ----------
    xy : ndarray of float64, shape (n, 2)
        Positions, every ring's one after another.
    start, length : ndarray of int64, shape (k,)
        Each ring's first position in ``xy`` and its count of positions, its closing one included.

    Returns
    -------
    ndarray of bool, shape (k,)
        True where the ring has at least three distinct positions and surely neither crosses nor touches itself;
        False where it does, may do, or is too long to try (:data:`MAX_SEGMENTS`).
    """
    out = np.zeros(len(start), dtype=np.bool_)
    for r in range(len(start)):
        out[r] = _ring_simple(xy, start[r], length[r])
    return out


JIT_HELPERS = (_sign, _orient, _apart, _turns, _ring_simple)
