"""The WKB walk: little-endian 2-D Polygons and MultiPolygons read into ragged arrays, a row at a time.

Written as plain Python over a ``uint8`` array of the rows' bytes and
compiled with numba (:func:`eidomap.base.settings.twin`; the reader runs the
plain twin up to :data:`~eidomap.base.settings.WKB_ABOVE` bytes), as the searches are: one
pass counts and checks every row (:func:`count_rows`), a second copies the
coordinates of the rows the first took (:func:`fill_rows`).  Every read is
bounds-checked against the row's own bytes, so a damaged row is refused --
left to Shapely's decoding by :meth:`eidomap.io.ragged.Shapes.from_wkb` --
and never read past; the work grows with the bytes, whatever counts a row
claims.

>>> import shapely, numpy as np
>>> blob = np.frombuffer(shapely.to_wkb(shapely.box(0, 0, 1, 1), byte_order=1), np.uint8)
>>> ok, multi, rings, parts, positions = count_rows(blob, np.array([0]), np.array([len(blob)]))
>>> ok.tolist(), multi.tolist(), rings.tolist(), parts.tolist(), positions.tolist()
([True], [False], [1], [1], [5])
"""

from __future__ import annotations

import numpy as np

#: WKB's geometry codes of a Polygon and a MultiPolygon (2-D: a Z or M code is another number).
POLYGON, MULTIPOLYGON = 3, 6


def _u32(data: np.ndarray, at: int) -> int:
    """The little-endian unsigned 32-bit integer at byte ``at`` of ``data``."""
    return int(data[at]) | (int(data[at + 1]) << 8) | (int(data[at + 2]) << 16) | (int(data[at + 3]) << 24)


def _polygon_end(data: np.ndarray, at: int, end: int) -> tuple[int, int, int]:
    """A polygon's body (its ring count, then each ring's position count and positions) from byte ``at``: the byte
    after it, its rings and its positions; an end of -1 where a count is 0 or a ring runs past byte ``end``."""
    if at + 4 > end:
        return -1, 0, 0
    n_rings = _u32(data, at)
    at += 4
    positions = 0
    if n_rings == 0:
        return -1, 0, 0
    for _ in range(n_rings):
        if at + 4 > end:
            return -1, 0, 0
        n = _u32(data, at)
        if n == 0 or at + 4 + 16 * n > end:
            return -1, 0, 0
        positions += n
        at += 4 + 16 * n
    return at, n_rings, positions


def count_rows(data: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                               np.ndarray, np.ndarray]:
    """Which rows ``data[start[k]:end[k]]`` are whole little-endian 2-D Polygons or MultiPolygons (every polygon,
    ring and count there, no byte left over), shape ``(m,)`` each: ``ok``, ``multi``, and each row's rings,
    polygons and positions (0 where not ``ok``)."""
    m = len(start)
    ok = np.zeros(m, np.bool_)
    multi = np.zeros(m, np.bool_)
    rings = np.zeros(m, np.int64)
    parts = np.zeros(m, np.int64)
    positions = np.zeros(m, np.int64)
    for k in range(m):
        a, b = start[k], end[k]
        if b - a < 9 or data[a] != 1:
            continue
        code = _u32(data, a + 1)
        if code == POLYGON:
            at, nr, npos = _polygon_end(data, a + 5, b)
            n_parts = 1
        elif code == MULTIPOLYGON:
            n_parts = _u32(data, a + 5)
            at, nr, npos = a + 9, 0, 0
            if n_parts == 0:
                at = -1
            for _ in range(n_parts):
                if at < 0 or at + 5 > b or data[at] != 1 or _u32(data, at + 1) != POLYGON:
                    at = -1
                    break
                at, r, p = _polygon_end(data, at + 5, b)
                nr += r
                npos += p
        else:
            continue
        if at == b:
            ok[k], multi[k] = True, code == MULTIPOLYGON
            rings[k], parts[k], positions[k] = nr, n_parts, npos
    return ok, multi, rings, parts, positions


def fill_rows(data: np.ndarray, start: np.ndarray, multi: np.ndarray, ring_len: np.ndarray, part_rings: np.ndarray,
              xy: np.ndarray) -> None:
    """Copy the rows :func:`count_rows` took (``start``, ``multi``: theirs alone, in order) into ragged arrays
    laid end to end: each ring's positions ``ring_len``, each polygon's rings ``part_rings`` and every position's
    16 bytes (x, y little-endian doubles) into ``xy`` (``uint8``, 16 a position)."""
    ring = part = 0
    out = 0
    for k in range(len(start)):
        at = start[k] + 5
        n_parts = 1
        if multi[k]:
            n_parts = _u32(data, at)
            at += 4
        for _ in range(n_parts):
            if multi[k]:
                at += 5  # (the polygon's byte order and type, checked by the count)
            n_rings = _u32(data, at)
            at += 4
            part_rings[part] = n_rings
            part += 1
            for _ in range(n_rings):
                n = _u32(data, at)
                ring_len[ring] = n
                ring += 1
                into, src = xy[out : out + 16 * n], data[at + 4 : at + 4 + 16 * n]
                for j in range(len(src)):  # (no slice assigned -- see eidomap.base.compiled --: LLVM makes it a memcpy)
                    into[j] = src[j]
                out += 16 * n
                at += 4 + 16 * n


JIT_HELPERS = (_u32, _polygon_end)
