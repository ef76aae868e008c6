"""Edge-sharing adjacency between Eidos, and which Eidos hold a point.

Two Eidos are adjacent when their boundaries share a segment of positive
length; touching at a corner does not count.  The computation works on the
boundary segments of all Eidos at once, with numpy:

1. an *exact* pass hashes every segment (endpoints in canonical order) and
   pairs the segments that two Eidos have in common to the last bit, which is
   what most borders of a well-drawn map are;
2. a *tolerant* pass takes the segments left over (T-junctions, borders whose
   vertices differ by rounding, the board's outline) and finds, through a
   uniform grid, every pair of segments of two Eidos that run within the
   drawing ``tolerance`` of each other; it measures that shared length.

A pair of Eidos is adjacent when they share an exact segment, or when the
length they share within the tolerance is longer than the tolerance.

>>> import shapely
>>> a, b, c = shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1), shapely.box(1, 1, 2, 2)
>>> pairs = adjacency([a, b, c])
>>> sorted(zip(pairs.i.tolist(), pairs.j.tolist()))  # a and c touch only at a corner
[(0, 1), (1, 2)]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import shapely

from eidomap.base import settings
from eidomap.base.arrays import group_ranks, points, rows, stable_argsort, unique
from eidomap.base.errors import MapError
from eidomap.base.settings import twin
from eidomap.model.borders import pair_run_loop, ring_segment_loop, segment_hash_loop
from eidomap.record.geometry import default_tolerance, query

_CHUNK = 4_000_000  # grid entries, or pairs of segments found in their cells, handled at once by the tolerant pass
#: Pairs of segments measured at once (:func:`_overlap` makes some 30 arrays of them: about 240 MB).
_PAIR_CHUNK = 1_000_000
#: The pairs of segments the tolerant pass may compare (those in one grid cell): this many a segment, and
#: :data:`NEAR_PAIRS_FLOOR` whatever the map.  A drawn map has some 16 a segment; a pile of Eidos drawn over one
#: another (200,001 identical squares: 3.2e11 pairs, 2.3 TiB) is refused before they are listed.
NEAR_PAIRS_PER_SEGMENT = 64
#: See :data:`NEAR_PAIRS_PER_SEGMENT` (a dense curve's short segments share a few cells: an arc of 1,000 points is
#: 500,000 pairs).
NEAR_PAIRS_FLOOR = 10_000_000


@dataclass(frozen=True)
class Segments:
    """Boundary segments ``a -> b`` of a set of polygons, with their owner.

    From :func:`boundary_segments` they also know their ring (in ring order)
    and on which side their polygon lies (``inside_left``).
    """

    a: np.ndarray
    b: np.ndarray
    owner: np.ndarray
    ring: np.ndarray | None = None
    inside_left: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.owner)

    def take(self, mask: np.ndarray) -> Segments:
        ring = None if self.ring is None else self.ring[mask]
        left = None if self.inside_left is None else self.inside_left[mask]
        return Segments(rows(self.a, mask), rows(self.b, mask), self.owner[mask], ring, left)

    def __add__(self, other: Segments) -> Segments:
        return Segments(np.r_[self.a, other.a], np.r_[self.b, other.b], np.r_[self.owner, other.owner])


@dataclass(frozen=True)
class Adjacency:
    """Adjacent pairs ``i < j`` (indices into the polygons) and the length they share.

    ``overlaps`` counts the places found on the way where Eidos overlap
    (borders that cross, borders run together with both Eidos on the same
    side, a segment held by three Eidos): a cheap sign, not a full check
    (``eidomap validate`` finds every overlap).
    """

    i: np.ndarray
    j: np.ndarray
    length: np.ndarray
    overlaps: int = 0

    def __len__(self) -> int:
        return len(self.i)


def boundary_segments(geoms: npt.ArrayLike) -> Segments:
    """Every boundary segment (exterior and hole rings) of every polygon."""
    geoms = np.asarray(geoms, dtype=object)
    if len(geoms) == 0:
        empty = np.empty((0, 2))
        return Segments(empty, empty, np.empty(0, np.int64))
    if np.all(shapely.get_type_id(geoms) == shapely.GeometryType.POLYGON) and not shapely.get_num_interior_rings(
            geoms).any():  # one ring each (most maps): the ragged arrays without making every ring a geometry
        ring_off = np.zeros(len(geoms) + 1, np.int64)
        np.cumsum(shapely.get_num_coordinates(geoms), out=ring_off[1:])
        return ring_segments(shapely.get_coordinates(geoms), (ring_off, np.arange(len(geoms) + 1)))
    _, coords, offsets = shapely.to_ragged_array(geoms)
    return ring_segments(coords, offsets)


def ring_segments(coords: np.ndarray, offsets: tuple[np.ndarray, ...]) -> Segments:
    """:func:`boundary_segments` of polygons given as ``shapely.to_ragged_array`` gives them."""
    coords = coords[:, :2]
    ring_off = offsets[0]
    # owner of each ring: polygons -> features (multipolygons have one more level)
    owner_of = np.arange(len(offsets[-1]) - 1)
    for off in offsets[:0:-1]:
        owner_of = np.repeat(owner_of, np.diff(off))
    n_rings = len(ring_off) - 1
    exterior = np.zeros(n_rings, bool)
    exterior[offsets[1][:-1]] = True
    if _loops(len(coords)):
        a, b, ring, inside_left = twin(ring_segment_loop, len(coords), True)(
            np.ascontiguousarray(coords, dtype=np.float64), np.asarray(ring_off, dtype=np.int64), exterior)
    else:
        a, b, ring, inside_left = _ring_segments(coords, ring_off, exterior)
    owner = ring if len(offsets[-1]) - 1 == n_rings else owner_of[ring]  # (a ring each: its index is its owner's)
    return Segments(a, b, owner, ring, inside_left)


def _ring_segments(coords: np.ndarray, ring_off: np.ndarray,
                   exterior: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~eidomap.model.borders.ring_segment_loop` with numpy (a pass per step, no compiling)."""
    # a segment starts at every coordinate but the last of its ring, unless the next one is the same point
    pts = points(coords)
    starts = pts[:-1] != pts[1:]
    ends = ring_off[1:-1]
    starts[ends[(ends > 0) & (ends < len(pts))] - 1] = False  # (empty rings: where the one before ends)
    start = np.flatnonzero(starts)
    del starts
    n_rings = len(ring_off) - 1
    ring = np.repeat(np.arange(n_rings, dtype=np.int64), np.diff(ring_off))[start]
    a, b = pts[start], pts[start + 1]
    # the polygon lies left of an exterior ring drawn counter-clockwise, or of a hole drawn clockwise
    area2 = np.bincount(ring, a.real * b.imag - b.real * a.imag, minlength=n_rings)  # (a point adds 0 to it)
    inside_left = ((area2 > 0) == exterior)[ring]
    return a.view(np.float64).reshape(-1, 2), b.view(np.float64).reshape(-1, 2), ring, inside_left


def _loops(n: int) -> bool:
    """Whether the compiled loops of :mod:`eidomap.model.borders` work on ``n`` coordinates or segments."""
    return n > settings.LOOPS_ABOVE


@dataclass(frozen=True)
class ExactPairs:
    """The segments that two polygons have in common to the bit (:func:`exact_pairs`).

    ``i``, ``j`` and ``length``: the two owners and the length of each shared
    segment; ``matched``: the segments so paired (the rest go to the tolerant
    pass); ``crowded``: how many segments are held by three polygons or more,
    or by two on the same side (overlapping ones); ``paired``: the matched
    segments whose twin lies on the other side -- as boundaries with the
    inside on their left, the two run opposite ways and cancel out.
    """

    i: np.ndarray
    j: np.ndarray
    length: np.ndarray
    matched: np.ndarray
    crowded: int
    paired: np.ndarray


def exact_pairs(seg: Segments) -> ExactPairs:
    """Segments that two polygons have in common to the bit (see :class:`ExactPairs`)."""
    if _loops(len(seg)):
        sa, sb = np.ascontiguousarray(seg.a, dtype=np.float64), np.ascontiguousarray(seg.b, dtype=np.float64)
        order, hs = _hash_order(twin(segment_hash_loop, len(seg), True)(sa.view(np.uint64), sb.view(np.uint64)))
        left = np.empty(0, bool) if seg.inside_left is None else seg.inside_left
        i, j, d, one_side, crowded = twin(pair_run_loop, len(seg), True)(order, hs, sa, sb, seg.owner, left)
        del order, hs
        di = points(d)
    else:
        i, j, di, one_side, crowded = _exact_pairs(seg)
    matched = np.zeros(len(seg), bool)
    matched[i] = True
    matched[j] = True
    paired = matched.copy()
    paired[i[one_side]] = False
    paired[j[one_side]] = False
    return ExactPairs(seg.owner[i], seg.owner[j], np.hypot(di.real, di.imag), matched, crowded, paired)


def _exact_pairs(seg: Segments) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """:func:`~eidomap.model.borders.pair_run_loop` with numpy, from the segments: ``(i, j, b - a of i as complex
    numbers, one_side, crowded)``."""
    a, b = points(seg.a), points(seg.b)
    h = _point_hash(seg.a)
    h ^= _point_hash(seg.b)
    order, hs = _hash_order(h)
    del h
    same = hs[1:] == hs[:-1]
    del hs  # (each array goes as soon as it is spent: this pass sets the peak of segment_adjacency)
    # only runs of exactly two equal hashes: a larger run (overlapping
    # duplicates, or a hash collision) is left to the tolerant pass
    alone_before = np.r_[True, ~same[:-1]]
    alone_after = np.r_[~same[1:], True]
    k = np.flatnonzero(same & alone_before & alone_after)
    # a third Eido along one segment (the same segment, not a hash collision): an overlap
    run3 = np.flatnonzero(same[1:] & same[:-1])
    a3, b3, c3 = order[run3], order[run3 + 1], order[run3 + 2]
    crowded = int(np.count_nonzero(_same_ends(a, b, a3, b3) & _same_ends(a, b, b3, c3)))
    i, j = order[k], order[k + 1]
    del order, same, alone_before, alone_after, k
    # j runs the same way as i (a to a, b to b) or the other way; two of its ends held at a time
    ai, bi = a[i], b[i]
    aj = a[j]
    straight, crossed = aj == ai, aj == bi
    del aj
    bj = b[j]
    ok = ((straight & (bj == bi)) | (crossed & (bj == ai))) & (seg.owner[i] != seg.owner[j])
    del bj
    i, j, di, straight = i[ok], j[ok], (bi - ai)[ok], straight[ok]
    dj = np.where(straight, di, -di)  # b - a of j: exactly i's, or its negation
    one_side = _same_side(seg, i, j, di, dj)
    return i, j, di, one_side, crowded + int(np.count_nonzero(one_side))


def _point_hash(xy: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of an ``(n, 2)`` float array, from its bits (so -0.0 is not 0.0)."""
    bits = np.ascontiguousarray(xy, dtype=np.float64).view(np.uint64)
    with np.errstate(over="ignore"):
        h = bits[:, 0] * np.uint64(0x9E3779B97F4A7C15)
        h ^= bits[:, 1] * np.uint64(0xC2B2AE3D27D4EB4F)
        h ^= h >> np.uint64(29)
        h *= np.uint64(0x165667B19E3779F9)
    return h


def _same_ends(a: np.ndarray, b: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Whether segments ``i`` and ``j`` (ends ``a -> b``, complex) join the same two points, either way round."""
    ai, bi, aj, bj = a[i], b[i], a[j], b[j]
    return ((ai == aj) & (bi == bj)) | ((ai == bj) & (bi == aj))


def _hash_order(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An order sorting 64-bit hashes (ties by position), and the sorted hashes.

    One ``np.sort`` of the hashes' top bits packed with the positions (ten
    times faster than an argsort); then the few runs whose top bits agree but
    whose hashes do not are put in order of the whole hash.
    """
    n = len(h)
    low = np.uint64((1 << max(n - 1, 1).bit_length()) - 1)
    top = h & ~low  # (in place from here: these arrays are the size of every segment of the map)
    top |= np.arange(n, dtype=np.uint64)
    top.sort()
    order = (top & low).view(np.intp)  # (positions: below 2**63)
    top &= ~low
    hs = h[order]
    clash = np.flatnonzero((top[1:] == top[:-1]) & (hs[1:] != hs[:-1]))
    if len(clash):
        lo = unique(np.searchsorted(top, top[clash]))  # where each run with a clash starts
        size = np.searchsorted(top, top[lo], "right") - lo
        redo = np.repeat(lo, size) + group_ranks(size)
        order[redo] = order[redo][np.lexsort((order[redo], hs[redo]))]
        hs[redo] = h[order[redo]]
    return order, hs


def _straight_runs(seg: Segments, tol: float) -> tuple[Segments, np.ndarray, np.ndarray]:
    """Runs of consecutive segments of a ring that form one straight stretch.

    ``seg`` are the segments the exact pass left over, in ring order.  A
    border split by extra vertices on one side only (an editor's export, a
    ``segmentize``) does not match the other side segment by segment; as one
    chord from its first to its last vertex, it does exactly.  Two segments
    join a run when they follow each other in a ring, both are longer than the
    tolerance, they go on in the same direction and their shared vertex lies
    within the tolerance of the line joining their far ends; a run is kept
    only if every inner vertex is within the tolerance of its chord.

    Returns the chords (one per kept run of two or more segments), the run of
    every segment and the run of each chord.
    """
    assert seg.ring is not None  # (from boundary_segments, which gives the rings)
    n = len(seg)
    idx = np.arange(n)
    starts = np.flatnonzero(np.r_[True, seg.ring[1:] != seg.ring[:-1]])
    ends = np.r_[starts[1:], n] - 1
    nxt = np.r_[idx[1:], 0]
    nxt[ends] = starts  # a ring's last segment goes on into its first
    follows = points(seg.b) == points(seg.a)[nxt]  # not where the exact pass took segments out between
    d = seg.b - seg.a
    length = np.sqrt(_dot(d, d))
    chord = rows(seg.b, nxt) - seg.a
    off = np.abs(chord[:, 0] * d[:, 1] - chord[:, 1] * d[:, 0]) / np.maximum(np.sqrt(_dot(chord, chord)),
                                                                              1e-300)
    link = follows & (nxt != idx) & (length > tol) & (length[nxt] > tol) & (_dot(d, rows(d, nxt)) > 0) & (off <= tol)
    prev = np.full(n, -1, np.int64)
    prev[nxt[follows]] = idx[follows]
    head = ~((prev >= 0) & link[np.maximum(prev, 0)])
    ring_pos = np.repeat(np.arange(len(starts)), ends - starts + 1)
    closed = np.add.reduceat(head.astype(np.int64), starts) == 0  # a ring all one line: leave it
    link &= ~closed[ring_pos]
    head = ~((prev >= 0) & link[np.maximum(prev, 0)])
    count = np.cumsum(head)
    before = np.r_[0, count][starts][ring_pos]
    run = np.where(count - before > 0, count, count[ends[ring_pos]]) - 1  # leading segments close the last run
    n_runs = int(count[-1]) if n else 0
    run_head = np.empty(n_runs, np.int64)
    run_head[run[head]] = idx[head]
    run_tail = np.empty(n_runs, np.int64)
    run_tail[run[~link]] = idx[~link]
    ca, cb = rows(seg.a, run_head), rows(seg.b, run_tail)
    c = rows(cb - ca, run)
    inner = seg.b - rows(ca, run)  # every vertex but a run's last must lie on the chord
    bent = link & (np.abs(c[:, 0] * inner[:, 1] - c[:, 1] * inner[:, 0])
                   > tol * np.maximum(np.sqrt(_dot(c, c)), 1e-300))
    runs = np.flatnonzero((np.bincount(run, minlength=n_runs) > 1) & (np.bincount(run, bent, minlength=n_runs) == 0))
    return Segments(rows(ca, runs), rows(cb, runs), seg.owner[run_head[runs]]), run, runs


def _grid_entries(seg: Segments, tol: float, h: float, origin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cell, segment) for every grid cell that a segment passes within ``tol`` of.

    Each segment is cut into pieces no longer than the cell size ``h``; a
    piece's box, widened by ``tol``, covers at most a few cells.
    """
    d = seg.b - seg.a
    length = np.hypot(d[:, 0], d[:, 1])
    npiece = np.maximum(1, np.ceil(length / h).astype(np.int64))
    sid = np.repeat(np.arange(len(seg)), npiece)
    k = group_ranks(npiece)
    t0 = (k / npiece[sid])[:, None]
    t1 = ((k + 1) / npiece[sid])[:, None]
    p0 = seg.a[sid] + d[sid] * t0
    p1 = seg.a[sid] + d[sid] * t1
    c0 = np.floor((np.minimum(p0, p1) - tol - origin) / h).astype(np.int64)
    c1 = np.floor((np.maximum(p0, p1) + tol - origin) / h).astype(np.int64)
    span = c1 - c0 + 1
    cnt = span[:, 0] * span[:, 1]
    rep = np.repeat(np.arange(len(sid)), cnt)
    k = group_ranks(cnt)
    ix = c0[rep, 0] + k % span[rep, 0]
    iy = c0[rep, 1] + k // span[rep, 0]
    ny = int(c1[:, 1].max()) + 2
    key = unique((ix * ny + iy) * len(seg) + sid[rep])  # (cell, segment), sorted, each once
    return np.divmod(key, len(seg))


def _overlap(seg: Segments, si: np.ndarray, sj: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """How segments ``si`` and ``sj`` run together: ``(common, near)``.

    ``common`` is the length of the part of ``si`` that ``sj`` runs beside (the
    overlap of their projections on ``si``'s line) when ``sj`` is within
    ``tol`` of ``si`` at both ends of that part -- the two run together all
    along it; 0 otherwise.  ``near`` is the length of the part of ``si`` along
    which ``sj`` is within ``tol``, whether or not they diverge at its ends (as
    where two borders cross or meet at an angle).  ``sj``'s distance to
    ``si``'s line is linear along ``si``, so both are intervals.
    """
    a = seg.a[si]
    d = seg.b[si] - a
    la = np.hypot(d[:, 0], d[:, 1])
    u = d / la[:, None]
    b0 = seg.a[sj] - a
    b1 = seg.b[sj] - a
    s0 = b0[:, 0] * u[:, 0] + b0[:, 1] * u[:, 1]
    s1 = b1[:, 0] * u[:, 0] + b1[:, 1] * u[:, 1]
    d0 = u[:, 0] * b0[:, 1] - u[:, 1] * b0[:, 0]
    d1 = u[:, 0] * b1[:, 1] - u[:, 1] * b1[:, 0]
    flip = s1 < s0
    s0, s1 = np.where(flip, s1, s0), np.where(flip, s0, s1)
    d0, d1 = np.where(flip, d1, d0), np.where(flip, d0, d1)
    lo, hi = np.maximum(s0, 0.0), np.minimum(s1, la)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        slope = (d1 - d0) / (s1 - s0)
        ta = s0 + (-tol - d0) / slope
        tb = s0 + (tol - d0) / slope
        end_lo = np.where(lo > s0, d0 + slope * (lo - s0), d0)
        end_hi = np.where(hi < s1, d1 - slope * (s1 - hi), d1)
    flat = ~np.isfinite(slope) | (slope == 0)
    together = (hi > lo) & (np.abs(end_lo) <= tol) & (np.abs(end_hi) <= tol)
    common = np.where(together, hi - lo, 0.0)
    close = np.abs(d0) <= tol
    near_lo = np.maximum(np.where(flat, np.where(close, lo, np.inf), np.minimum(ta, tb)), lo)
    near_hi = np.minimum(np.where(flat, np.where(close, hi, -np.inf), np.maximum(ta, tb)), hi)
    return common, np.clip(near_hi - near_lo, 0.0, None)


def shared_lengths(seg: Segments, tol: float,
                   min_converging: float = np.inf) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of segments of different owners that run together within ``tol``.

    Two segments run together along the stretch where they lie beside each
    other when one is within ``tol`` of the other at both ends of that stretch
    (:func:`_overlap`).  Where they only come within ``tol`` of each other
    somewhere between -- they cross, or meet at an angle -- that stretch is
    about ``tol / sin(angle)`` long and does not count: a corner is a corner at
    any angle.  Unless that stretch is at least ``min_converging`` long:
    validation's near-miss search counts borders that converge very slowly.

    Returns ``(owner_i, owner_j, length)`` per pair of segments (owners not
    ordered, each pair of segments once); only pairs with a positive length.
    """
    out = []
    for si, sj in _candidates(seg, tol):
        common, near = _overlap(seg, si, sj, tol)
        ov = np.where(near >= min_converging, np.maximum(common, near), common)
        good = ov > 0
        out.append((seg.owner[si[good]], seg.owner[sj[good]], ov[good]))
    if not out:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
    oi, oj, length = zip(*out, strict=True)
    return np.concatenate(oi), np.concatenate(oj), np.concatenate(length)


class PileUp(MapError):
    """Segments that pile up in the tolerant pass's grid: comparing them would take more pairs than
    :data:`NEAR_PAIRS_PER_SEGMENT` allows.  A :class:`~eidomap.base.errors.MapError` of no file: who knows the map's
    file names it (:meth:`of`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(None, None, reason)

    def of(self, path: object) -> MapError:
        """The same refusal, of the map file ``path`` (None: as it is)."""
        return self if path is None else MapError(path, None, self.reason)


def _candidates(seg: Segments, tol: float) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Pairs of segments of different owners that come within ``tol`` of the same grid cell, each pair once, in
    chunks of at most :data:`_PAIR_CHUNK` pairs (with the chunks of pairs found in one cell, at most about
    16 bytes a pair is held: the work of the callers, a chunk at a time, stays bounded too).

    Raises :class:`PileUp`, before the pairs are listed, when they would be more than
    :data:`NEAR_PAIRS_PER_SEGMENT` a segment (and :data:`NEAR_PAIRS_FLOOR`).
    """
    if len(seg) < 2:
        return
    length = np.hypot(*(seg.b - seg.a).T)
    origin = np.minimum(seg.a, seg.b).min(axis=0) - 2 * tol
    extent = float(np.max(np.maximum(seg.a, seg.b).max(axis=0) - origin))
    # at most 1e5 cells a side, so that (cell, segment) keys fit in int64
    h = max(float(np.median(length)) * 2.0, tol * 8.0, extent * 1e-5, 1e-300)
    cell, sid = _grid_entries(seg, tol, h, origin)
    brk = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    size = np.diff(np.r_[brk, len(cell)])
    npair = np.repeat(size, size) - 1 - group_ranks(size)  # (each entry: the entries after it in its cell)
    total = int(npair.sum())
    limit = NEAR_PAIRS_PER_SEGMENT * len(seg) + NEAR_PAIRS_FLOOR
    if total > limit:
        raise _pile_up(seg, sid, brk, size, total, limit)
    keys = []
    ends = np.cumsum(npair)
    cuts = np.searchsorted(ends, np.arange(_CHUNK, total, _CHUNK))  # (the entries whose pairs a chunk lists)
    for lo, hi in zip(np.r_[0, cuts].tolist(), np.r_[cuts, len(cell)].tolist(), strict=True):
        left = np.repeat(np.arange(lo, hi), npair[lo:hi])
        right = left + 1 + group_ranks(npair[lo:hi])
        si, sj = sid[left], sid[right]
        keep = seg.owner[si] != seg.owner[sj]
        si, sj = si[keep], sj[keep]
        keys.append(np.minimum(si, sj) * len(seg) + np.maximum(si, sj))
    key = unique(np.concatenate(keys)) if keys else np.empty(0, np.int64)  # a pair of segments can share cells
    for lo in range(0, len(key), _PAIR_CHUNK):
        yield np.divmod(key[lo : lo + _PAIR_CHUNK], len(seg))


def _pile_up(seg: Segments, sid: np.ndarray, brk: np.ndarray, size: np.ndarray, total: int, limit: int) -> PileUp:
    """The refusal of segments that pile up: where most of them lie, how many, and the pairs they would take."""
    k = int(np.argmax(size))
    there = sid[brk[k] : brk[k] + size[k]]
    x, y = ((seg.a[there] + seg.b[there]) / 2).mean(axis=0)
    return PileUp(f"its Eidos pile up around ({x:.6g}, {y:.6g}): {size[k]:,} border segments lie there within the"
                  f" drawing tolerance of one another, and comparing every segment with those near it would take"
                  f" {total:,} pairs, more than the {limit:,} allowed to a map of {len(seg):,} segments"
                  f" ({NEAR_PAIRS_PER_SEGMENT} a segment); Eidos drawn over one another?")


def _same_side(seg: Segments, i: np.ndarray, j: np.ndarray, di: np.ndarray, dj: np.ndarray) -> np.ndarray:
    """Whether the polygons of segments ``i`` and ``j``, which run together, lie on the same side of them.

    ``di`` and ``dj`` are the segments' directions ``b - a`` as complex numbers
    (the callers have them).  Two Eidos sharing a border lie on either side of
    it; on the same side, they overlap.
    """
    if seg.inside_left is None:
        return np.zeros(len(i), bool)
    forward = di.real * dj.real + di.imag * dj.imag > 0
    return forward == (seg.inside_left[i] == seg.inside_left[j])


def _crossing(seg: Segments, si: np.ndarray, sj: np.ndarray, tol: float) -> np.ndarray:
    """Whether segments ``si`` and ``sj`` cross: the ends of each lie on both sides of the other, beyond ``tol``.

    Borders of a partition never cross: where they do, two Eidos overlap.
    """
    def sides(p: np.ndarray, q: np.ndarray, r0: np.ndarray, r1: np.ndarray) -> np.ndarray:
        d = q - p
        n = np.hypot(d[:, 0], d[:, 1])
        with np.errstate(divide="ignore", invalid="ignore"):
            s0 = (d[:, 0] * (r0[:, 1] - p[:, 1]) - d[:, 1] * (r0[:, 0] - p[:, 0])) / n
            s1 = (d[:, 0] * (r1[:, 1] - p[:, 1]) - d[:, 1] * (r1[:, 0] - p[:, 0])) / n
        return (s0 * s1 < 0) & (np.minimum(np.abs(s0), np.abs(s1)) > tol)

    a, b = seg.a, seg.b
    return sides(a[si], b[si], a[sj], b[sj]) & sides(a[sj], b[sj], a[si], b[si])


#: Cells a side of the coarse grid that finds the paired segments near an unpaired one (4 MB of flags at most).
_COARSE = 2048


def _paired_crossed(seg: Segments, matched: np.ndarray, left: Segments, tol: float) -> int:
    """How many crossings there are of a segment paired to the bit by one left unpaired (``left``).

    A border two Eidos share to the bit is left out of the tolerant pass;
    an Eido drawn over them crosses it with its own borders, which pair
    with nothing.  The paired segments that can meet an unpaired one are
    found on a coarse grid (cells of four typical segments, at most
    ``_COARSE`` a side over the map): those whose box, widened by ``tol``,
    has a corner in a cell an unpaired segment's box covers -- or that span
    more than two cells a way (few).  (The caller asks only where
    :func:`exact_union` proves nothing: on a partition it proves that no
    Eido overlaps another.)
    """
    paired = np.flatnonzero(matched)
    if not len(left) or not len(paired):
        return 0
    lo = np.minimum(seg.a, seg.b).min(axis=0) - 2 * tol
    every = max(1, len(seg) // 10_000)
    sample = seg.b[::every] - seg.a[::every]
    typical = float(np.median(np.hypot(sample[:, 0], sample[:, 1])))  # (cells of a few segments' length)
    extent = float(np.max(np.maximum(seg.a, seg.b).max(axis=0) - lo))
    side = max(extent / _COARSE, 4 * typical, 1e-300)

    def cells(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c0 = np.floor((np.minimum(a, b) - tol - lo) / side).astype(np.int64)
        c1 = np.floor((np.maximum(a, b) + tol - lo) / side).astype(np.int64)
        return np.clip(c0, 0, _COARSE - 1), np.clip(c1, 0, _COARSE - 1)

    c0, c1 = cells(left.a, left.b)
    span = c1 - c0 + 1
    cnt = span[:, 0] * span[:, 1]  # (an unpaired segment covers the cells of its box: a few, unless long)
    rep = np.repeat(np.arange(len(left)), cnt)
    k = group_ranks(cnt)
    taken = np.zeros((_COARSE, _COARSE), bool)
    taken[c0[rep, 0] + k % span[rep, 0], c0[rep, 1] + k // span[rep, 0]] = True
    p0, p1 = cells(seg.a[paired], seg.b[paired])
    near = ((p1 - p0) > 1).any(axis=1)
    for x, y in ((p0[:, 0], p0[:, 1]), (p1[:, 0], p0[:, 1]), (p0[:, 0], p1[:, 1]), (p1[:, 0], p1[:, 1])):
        near |= taken[x, y]
    pool = left + seg.take(paired[near])
    crossed = 0
    for si, sj in _candidates(pool, tol):
        one = (si < len(left)) != (sj < len(left))  # (two unpaired ones: counted by the caller)
        crossed += int(np.count_nonzero(_crossing(pool, si[one], sj[one], tol)))
    return crossed


def _dot(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise dot product of two ``(n, 2)`` arrays (a sum over a 2-long axis costs a reduction per row)."""
    return u[:, 0] * v[:, 0] + u[:, 1] * v[:, 1]


def _sum_by_pair(i: np.ndarray, j: np.ndarray, length: np.ndarray, n: int, exact: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Total ``length`` per unordered pair, and whether one of the first ``exact`` items adds to it.

    Returns pairs ``a < b`` sorted, their totals and that flag.
    """
    key = np.minimum(i, j)
    key *= n
    key += np.maximum(i, j)
    order = stable_argsort(key)
    key = key[order]
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.empty(0, np.int64)
    total = np.add.reduceat(np.asarray(length, float)[order], start) if len(key) else np.empty(0)
    has_exact = np.logical_or.reduceat(order < exact, start) if len(key) else np.empty(0, bool)
    a = key[start] // n
    return a, key[start] - a * n, total, has_exact


def adjacency(geoms: npt.ArrayLike, tolerance: float | None = None) -> Adjacency:
    """Adjacent pairs of polygons: boundaries sharing a segment of positive length.

    Parameters
    ----------
    geoms : array_like of Polygon or MultiPolygon
        The Eidos, one partition (sea, land and air together).
    tolerance : float, optional
        Drawing tolerance: borders closer than this are the same border.
        Defaults to :func:`default_tolerance` (1e-9 of the map's larger side).
    """
    geoms = np.asarray(geoms, dtype=object)
    tol = default_tolerance(geoms) if tolerance is None else float(tolerance)
    return segment_adjacency(boundary_segments(geoms), len(geoms), tol)


def segment_adjacency(seg: Segments, n: int, tol: float, exact: ExactPairs | None = None,
                      proven: bool | None = None) -> Adjacency:
    """:func:`adjacency` of ``n`` polygons given by their :func:`boundary_segments`, at the tolerance ``tol``.

    ``exact`` is :func:`exact_pairs` of ``seg``, and ``proven`` whether
    :func:`exact_union` of it proves that no polygon overlaps another, when
    the caller has them already (None: found here).
    """
    first = exact_pairs(seg) if exact is None else exact
    ei, ej, elen, crowded = first.i, first.j, first.length, first.crowded
    matched = first.matched.copy()  # (the segments the chords pair too are added to it)
    if not matched.all():  # borders split on one side only: match them as straight chords
        where = np.flatnonzero(~matched)
        left = seg.take(where)
        chords, run, runs = _straight_runs(left, tol)
        in_chord = np.zeros(len(run) and run.max() + 1, bool)
        in_chord[runs] = True
        single = ~in_chord[run]
        again = exact_pairs(chords + left.take(single))
        ci, cj, clen, hit = again.i, again.j, again.length, again.matched
        joined = np.zeros_like(in_chord)
        joined[runs[hit[: len(runs)]]] = True
        matched[where[joined[run]]] = True
        matched[where[np.flatnonzero(single)[hit[len(runs) :]]]] = True
        ei, ej, elen = np.r_[ei, ci], np.r_[ej, cj], np.r_[elen, clen]
    left = seg.take(~matched)
    crossed = 0
    shared: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (the pairs that run together, a chunk at a time)
    for si, sj in _candidates(left, tol):
        common, _ = _overlap(left, si, sj, tol)
        crossed += int(np.count_nonzero(_crossing(left, si, sj, tol)))
        run = common > 0
        shared.append((si[run], sj[run], common[run]))
    if proven is None:
        proven = seg.inside_left is not None and exact_union(seg, first.paired) is not None
    if not proven:  # (proven: no Eido overlaps another, so no unpaired border crosses a paired one)
        crossed += _paired_crossed(seg, matched, left, tol)
    si, sj, rlen = (np.concatenate(c) for c in zip(*shared, strict=True)) if shared else (
        np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0))
    ri, rj = left.owner[si], left.owner[sj]
    d = points(left.b) - points(left.a)
    crossed += int(np.count_nonzero(_same_side(left, si, sj, d[si], d[sj])))
    i, j, total, is_exact = _sum_by_pair(np.r_[ei, ri], np.r_[ej, rj], np.r_[elen, rlen], n, len(ei))
    keep = is_exact | (total > tol)
    return Adjacency(i[keep], j[keep], total[keep], overlaps=crowded + crossed)


#: The unpaired segments are tried as a boundary when they are at most this share of all segments, or at
#: most :data:`UNION_FEW` of them.  A partition leaves its outline and the rims of its gaps (at 200,000 Eidos, 1,589
#: of 1.2 million segments); ``build_area`` takes about 20 µs a segment, so on borders split on one side
#: (half of them left unpaired) the attempt would cost several times the general way it then falls back to.
UNION_MOST = 1 / 8
UNION_FEW = 10_000


def _directed(seg: Segments) -> np.ndarray:
    """Segments as rows ``(x0, y0, x1, y1)``, each running with the inside of its polygon on its left, sorted."""
    assert seg.inside_left is not None  # (from boundary_segments, which tells it)
    left = seg.inside_left[:, None]
    rows = np.hstack([np.where(left, seg.a, seg.b), np.where(left, seg.b, seg.a)])
    return rows[np.lexsort(rows.T[::-1])]


def exact_union(seg: Segments, paired: np.ndarray) -> shapely.Geometry | None:
    """The union of valid polygons when their unpaired borders bound it exactly; None when they do not.

    Give each polygon's boundary the direction that keeps its inside on the
    left: around any point off the borders, the sum over the polygons of
    their boundaries' winding numbers counts the polygons that cover it.  A
    border two polygons share to the bit, each on its own side, runs once
    each way: the two cancel out of that sum.  So what covers a point is told
    by the borders left over alone; and when those are, segment for segment
    and way for way, the boundary of one valid (multi)polygon ``U``, every
    point of ``U`` is covered exactly once and no other point at all.  Then
    the polygons do not overlap anywhere (not even by a hair) and ``U`` is
    their union -- found without an overlay, from a few segments: the
    board's outline and the rims of its gaps.  Where the check fails
    (borders that cross or run together on one side, T-junctions, vertices
    off by rounding) nothing is concluded.

    Parameters
    ----------
    seg : Segments
        The polygons' :func:`~eidomap.model.topology.boundary_segments`; the polygons must be valid (the caller checks).
    paired : numpy.ndarray of bool
        The segments shared to the bit with a polygon on the other side (:attr:`ExactPairs.paired`).

    Returns
    -------
    shapely.Geometry or None
        The union, a valid Polygon or MultiPolygon whose boundary is exactly the unpaired segments (so the
        polygons overlap nowhere); None when those segments are no such boundary, or too many of them to try
        (:data:`UNION_MOST`).

    Examples
    --------
    >>> seg = boundary_segments([shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1)])
    >>> exact_union(seg, exact_pairs(seg).paired).normalize().wkt
    'POLYGON ((0 0, 0 1, 1 1, 2 1, 2 0, 1 0, 0 0))'
    """
    unpaired = np.flatnonzero(~paired)
    if not len(unpaired) or len(unpaired) > max(UNION_MOST * len(seg), UNION_FEW):
        return None
    rest = seg.take(unpaired)
    lines = _directed(rest)
    try:  # (linework that bounds no area cleanly -- borders crossing -- may raise, or make a NaN on the way:
        # either way what comes out is checked below, and nothing is concluded from it but a proof)
        with np.errstate(invalid="ignore"):
            union = shapely.build_area(shapely.multilinestrings(shapely.linestrings(lines.reshape(-1, 2, 2))))
    except shapely.errors.GEOSException:
        return None
    if shapely.get_type_id(union) not in (shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON) \
            or not shapely.is_valid(union):
        return None
    edge = _directed(boundary_segments([union]))
    return union if edge.shape == lines.shape and np.array_equal(edge, lines) else None


def points_in_polygons(points: np.ndarray, geoms: np.ndarray, tolerance: float,
                       tree: shapely.STRtree | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (point index, polygon index) where the point lies in or on the polygon.

    A point on a border, within ``tolerance``, belongs to every polygon there.
    """
    points = np.asarray(points, dtype=object)
    if len(points) == 0 or len(geoms) == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    tree = tree if tree is not None else shapely.STRtree(geoms)
    pi, gi = query(tree, points, predicate="dwithin", distance=tolerance)
    order = np.lexsort((gi, pi))
    return pi[order], gi[order]
