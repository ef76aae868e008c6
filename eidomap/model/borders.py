"""The boundary segments of polygons and their exact pairs, as plain loops over arrays that numba compiles.

:func:`eidomap.model.topology.ring_segments` and :func:`eidomap.model.topology.exact_pairs`
are written with numpy, a dozen passes over every segment of the map, each
with its temporaries.  On a big map (millions of segments) the same work in
one pass per step is several times faster and holds no temporary the size of
the map: these loops are that pass, and :mod:`eidomap.base.compiled` compiles them
(:func:`eidomap.base.settings.twin` picks the form).  They give the numpy functions'
answers bit for bit -- the same segments in the same order, the same
signed areas summed in the same order, the same pairs -- which
``tests/model/test_borders.py`` checks on random polygons.

>>> import numpy as np
>>> xy = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])  # a triangle, a repeated vertex
>>> a, b, ring, left = ring_segment_loop(xy, np.array([0, 5]), np.array([True]))
>>> a.tolist(), ring.tolist(), left.tolist()
([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]], [0, 0, 0], [True, True, True])
"""

from __future__ import annotations

import numpy as np

_M1, _M2, _M3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9)
_SHIFT = np.uint64(29)


def ring_segment_loop(xy: np.ndarray, ring_off: np.ndarray,
                      exterior: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The segments of rings laid end to end: ``(a, b, ring, inside_left)``.

    ``xy`` ``(n, 2)`` float64, the rings' coordinates; ``ring_off`` ``(r + 1,)``
    where each ring starts; ``exterior`` ``(r,)`` whether each is an exterior
    ring.  A segment joins each coordinate to the next of its ring unless they
    are the same point; ``inside_left`` tells whether its polygon lies on its
    left (an exterior ring drawn counter-clockwise, a hole clockwise: the sign
    of the ring's area, summed segment by segment as ``np.bincount`` sums it).
    """
    n_rings = len(ring_off) - 1
    cap = len(xy)  # a ring of k coordinates has at most k - 1 segments
    for r in range(n_rings):
        cap -= ring_off[r + 1] > ring_off[r]
    a = np.empty((cap, 2))
    b = np.empty((cap, 2))
    ring = np.empty(cap, np.int64)
    area2 = np.zeros(n_rings)
    m = 0
    for r in range(n_rings):
        for k in range(ring_off[r], ring_off[r + 1] - 1):
            x0, y0, x1, y1 = xy[k, 0], xy[k, 1], xy[k + 1, 0], xy[k + 1, 1]
            if x0 == x1 and y0 == y1:
                continue
            a[m, 0], a[m, 1], b[m, 0], b[m, 1] = x0, y0, x1, y1
            ring[m] = r
            area2[r] += x0 * y1 - x1 * y0
            m += 1
    left = np.empty(m, np.bool_)
    for s in range(m):
        left[s] = (area2[ring[s]] > 0) == exterior[ring[s]]
    return a[:m], b[:m], ring[:m], left


def segment_hash_loop(a_bits: np.ndarray, b_bits: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each segment, the same either way round: its ends' hashes XOR-ed.

    ``a_bits``, ``b_bits``: ``(m, 2)`` uint64, the bits of the ends'
    coordinates (so -0.0 is not 0.0); the hash of a point is
    :func:`eidomap.model.topology._point_hash`'s.
    """
    h = np.empty(len(a_bits), np.uint64)
    for s in range(len(a_bits)):
        ha = a_bits[s, 0] * _M1 ^ a_bits[s, 1] * _M2
        ha ^= ha >> _SHIFT
        hb = b_bits[s, 0] * _M1 ^ b_bits[s, 1] * _M2
        hb ^= hb >> _SHIFT
        h[s] = (ha * _M3) ^ (hb * _M3)
    return h


def _same_ends(a: np.ndarray, b: np.ndarray, i: int, j: int) -> bool:
    """Whether segments ``i`` and ``j`` join the same two points, either way round."""
    ai0, ai1, bi0, bi1 = a[i, 0], a[i, 1], b[i, 0], b[i, 1]
    aj0, aj1, bj0, bj1 = a[j, 0], a[j, 1], b[j, 0], b[j, 1]
    return ((ai0 == aj0 and ai1 == aj1 and bi0 == bj0 and bi1 == bj1)
            or (ai0 == bj0 and ai1 == bj1 and bi0 == aj0 and bi1 == aj1))


def pair_run_loop(order: np.ndarray, hs: np.ndarray, a: np.ndarray, b: np.ndarray, owner: np.ndarray,
                  inside_left: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The segments two polygons share to the bit, from the segments in order of their hash.

    ``order`` ``(m,)`` the segments sorted by hash, ``hs`` ``(m,)`` their
    sorted hashes; ``a``, ``b`` ``(m, 2)`` their ends; ``owner`` ``(m,)``;
    ``inside_left`` ``(m,)``, or empty when the sides are not known.  Returns
    ``(i, j, d, one_side, crowded)``: each run of exactly two equal hashes
    whose segments join the same two points and belong to two polygons, as
    the pair ``i, j`` with ``d`` ``(k, 2)`` = ``b - a`` of ``i`` and whether
    both polygons lie on one side of it; ``crowded`` counts the segments
    held three times over and the pairs on one side, as
    :func:`eidomap.model.topology.exact_pairs` does.
    """
    m = len(order)
    sided = len(inside_left) > 0
    cap = m // 2
    ii = np.empty(cap, np.int64)
    jj = np.empty(cap, np.int64)
    d = np.empty((cap, 2))
    one_side = np.empty(cap, np.bool_)
    crowded = 0
    k = 0
    p = 0
    while p < m - 1:
        q = p + 1  # the run of equal hashes from p is p .. q - 1
        while q < m and hs[q] == hs[p]:
            q += 1
        for t in range(p, q - 2):  # a third segment along one: the same segment thrice, not a hash collision
            if _same_ends(a, b, order[t], order[t + 1]) and _same_ends(a, b, order[t + 1], order[t + 2]):
                crowded += 1
        if q - p == 2:
            i, j = order[p], order[p + 1]
            if _same_ends(a, b, i, j) and owner[i] != owner[j]:
                dx, dy = b[i, 0] - a[i, 0], b[i, 1] - a[i, 1]
                straight = a[i, 0] == a[j, 0] and a[i, 1] == a[j, 1]  # j runs the same way as i (else against it)
                ex, ey = (dx, dy) if straight else (-dx, -dy)
                side = False
                if sided:
                    side = (dx * ex + dy * ey > 0) == (inside_left[i] == inside_left[j])
                ii[k], jj[k], d[k, 0], d[k, 1], one_side[k] = i, j, dx, dy, side
                crowded += side
                k += 1
        p = q
    return ii[:k], jj[:k], d[:k], one_side[:k], crowded


JIT_HELPERS = (_same_ends,)
