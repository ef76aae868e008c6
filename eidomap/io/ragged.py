"""The geometries of a table's rows, polygons as ragged coordinate arrays (the builder's flat columns).

A table reader hands over one :class:`Shapes` per layer: each row's geometry
type, and the coordinates of its Polygon and MultiPolygon rows laid end to end
(every position; each ring's length, each polygon's rings, each row's rings
and polygons), as the GeoJSON reader's fast lane parses them -- so the Eidos of
every format go through the same checks and the same ``from_ragged_array``
build in :class:`~eidomap.io.builder.MapBuilder`.  Rows of other types (a few
roads, Pousas, fountains) keep Shapely geometries.

They come from

* WKB, as GDAL's Arrow reader gives GeoPackage and FlatGeobuf rows and
  GeoParquet stores them by default (:meth:`Shapes.from_wkb`): little-endian
  2-D Polygons and MultiPolygons are walked a row at a time by compiled code
  (:mod:`eidomap.io.wkb`; its plain-Python twin up to
  :data:`~eidomap.base.settings.WKB_ABOVE` bytes) and their coordinates copied
  straight from the Arrow buffer, with no Shapely object made; plain 2-D points
  are read in columns;
  every other row (lines, Z or M values, big-endian, malformed) is decoded by
  ``shapely.from_wkb`` in one call;
* GeoArrow's native encodings of GeoParquet (:meth:`Shapes.from_geoarrow`):
  the list offsets *are* the ragged arrays;
* Shapely geometries, from a GeoDataFrame (:meth:`Shapes.of`).

Every read of the WKB walk is bounds-checked against its row's bytes, so a
damaged row costs its own decode by Shapely (which refuses it), never a read
outside the buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import pairwise

import numpy as np
import shapely

from eidomap.base import settings
from eidomap.base.arrays import group_ranks, nested_take
from eidomap.base.settings import twin
from eidomap.io.wkb import count_rows, fill_rows

_POLYGON, _MULTIPOLYGON = int(shapely.GeometryType.POLYGON), int(shapely.GeometryType.MULTIPOLYGON)
#: A 2D point's WKB: its type code (1: Shapely's own code is 0), and its size (the byte order, the type, two doubles).
_WKB_POINT, _POINT_BYTES = 1, 21
_ENCODINGS = {"point": shapely.GeometryType.POINT, "linestring": shapely.GeometryType.LINESTRING,
              "polygon": shapely.GeometryType.POLYGON, "multipoint": shapely.GeometryType.MULTIPOINT,
              "multilinestring": shapely.GeometryType.MULTILINESTRING,
              "multipolygon": shapely.GeometryType.MULTIPOLYGON}
#: GeoArrow's native encodings (GeoParquet's ``encoding``), by name.
ENCODINGS = tuple(_ENCODINGS)


@dataclass
class Shapes:
    """The geometries of a layer's rows.

    ``codes``: each row's ``shapely.GeometryType``, -1 for none or an empty
    one (but an empty polygon: a polygon row of no ring).  ``rows``: the
    Polygon and MultiPolygon rows, in order; for them
    ``xy`` (every position, ``(n, 2)`` floats), ``ring_len`` (each ring's
    positions), ``part_rings`` (each polygon's rings), ``row_rings`` and
    ``row_parts`` (each row's rings and polygons).  ``made``: the Shapely
    geometry of every other row, but ``point_rows``, plain 2-D points kept as
    their ``point_xy`` (``(m, 2)`` floats) -- a map's Pousas go to the builder
    as coordinates, with no Shapely object made for them twice.
    """

    codes: np.ndarray
    rows: np.ndarray
    xy: np.ndarray
    ring_len: np.ndarray
    part_rings: np.ndarray
    row_rings: np.ndarray
    row_parts: np.ndarray
    made: np.ndarray
    point_rows: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    point_xy: np.ndarray = field(default_factory=lambda: np.empty((0, 2)))

    def __len__(self) -> int:
        return len(self.codes)

    @cached_property
    def others(self) -> np.ndarray:
        """The Shapely geometry of every row but the polygon rows (None there, and for none)."""
        return self.geoms_at(np.arange(len(self)))

    def geoms_at(self, rows: np.ndarray | list[int]) -> np.ndarray:
        """:attr:`others` at ``rows``: the points among them made, and no other."""
        out = self.made[rows]
        k = np.searchsorted(self.point_rows, rows)
        point = k < len(self.point_rows)
        point[point] = self.point_rows[k[point]] == np.asarray(rows)[point]
        if point.any():
            out[point] = shapely.points(self.point_xy[k[point]])
        return out

    def point_coordinates(self, a: int, b: int) -> np.ndarray:
        """The ``(x, y)`` of rows ``a:b``, every one a point (``(b - a, 2)`` floats)."""
        k = int(np.searchsorted(self.point_rows, a))  # (rows a:b all kept as coordinates: the first and the last)
        if b > a and k + b - a <= len(self.point_rows) and self.point_rows[k] == a and \
                self.point_rows[k + b - a - 1] == b - 1:
            return self.point_xy[k : k + b - a]
        return shapely.get_coordinates(self.others[a:b])

    def run(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Polygons ``a:b`` (positions in :attr:`rows`): their positions, ring lengths, polygons' rings, and the
        rings and polygons of each (slices, no copy)."""
        ring, part, at = self._firsts
        r0, r1 = int(ring[a]), int(ring[b])
        return (self.xy[at[r0] : at[r1]], self.ring_len[r0:r1], self.part_rings[part[a] : part[b]],
                self.row_rings[a:b], self.row_parts[a:b])

    @cached_property
    def _firsts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where each polygon's rings and parts, and each ring's positions, start (one more: the end)."""
        return _offsets(self.row_rings), _offsets(self.row_parts), _offsets(self.ring_len)

    def nested(self, k: int) -> list:
        """Polygon ``k``'s coordinates as GeoJSON nests a MultiPolygon's (lists)."""
        xy, ring_len, part_rings, _, _ = self.run(k, k + 1)
        rings = [r.tolist() for r in np.split(xy, np.cumsum(ring_len)[:-1])] if len(ring_len) else []
        cuts = np.r_[0, np.cumsum(part_rings)].tolist()
        return [rings[i:j] for i, j in pairwise(cuts)]

    def whole(self) -> np.ndarray:
        """Whether each polygon has polygons of rings and rings of positions, none empty: only those may go to
        the builder in columns (a nested reading refuses the others as GeoJSON's reader does)."""
        whole = self.row_parts > 0
        whole &= _none_in(self.ring_len == 0, self.row_rings)
        return whole & _none_in(self.part_rings == 0, self.row_parts)

    @classmethod
    def of(cls, geoms: np.ndarray) -> Shapes:
        """The shapes of Shapely geometries (None for none); Z and M values left out."""
        geoms = np.asarray(geoms, dtype=object).reshape(-1)
        codes = shapely.get_type_id(geoms).astype(np.int64)
        polygonal = (codes == _POLYGON) | (codes == _MULTIPOLYGON)
        # an empty polygon stays a polygon row, of no ring: read as GeoJSON's ``"coordinates": []``, the builder
        # refuses it as malformed, as it does that GeoJSON
        codes[shapely.is_empty(geoms) & ~polygonal] = -1
        rows = np.flatnonzero(polygonal)
        others = geoms.copy()
        others[rows] = None
        if not len(rows):
            none = np.empty(0, np.int64)
            return cls(codes, rows, np.empty((0, 2)), none, none, none, none, others)
        _, xy, offsets = shapely.to_ragged_array(geoms[rows], include_z=False)
        ring_off, part_off = (np.asarray(o, dtype=np.int64) for o in offsets[:2])
        row_off = np.asarray(offsets[2], dtype=np.int64) if len(offsets) == 3 else np.arange(len(part_off))
        return cls(codes, rows, np.ascontiguousarray(xy, dtype=np.float64), np.diff(ring_off), np.diff(part_off),
                   np.diff(part_off[row_off]), np.diff(row_off), others)

    @classmethod
    def from_wkb(cls, column) -> Shapes:
        """The shapes of an Arrow binary column of WKB (null: none)."""
        import pyarrow as pa

        arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        n = len(arr)
        if pa.types.is_null(arr.type) or n == 0:
            return cls.of(np.full(n, None, dtype=object))
        bounds, data = _binary(arr)
        if not _sound(bounds, data):
            raise DamagedColumn("its offsets go back or past its bytes")
        start, end = bounds[:-1], bounds[1:]
        present = ~arrow_nulls(arr)
        rows = np.flatnonzero(present & (end - start >= 9))
        little, gtype = data[start[rows]] == 1, _u32(data, start[rows] + 1)
        polygons = rows[little & ((gtype == _POLYGON) | (gtype == _MULTIPOLYGON))]
        fast = cls._walked(n, polygons, data, start[polygons], end[polygons])
        slow = present.copy()
        slow[fast.rows] = False
        geoms = np.full(n, None, dtype=object)
        points = rows[little & (gtype == _WKB_POINT) & (end[rows] - start[rows] == _POINT_BYTES)]
        xy = _at_bytes(data, "<f8")[start[points, None] + [5, 13]]
        ok = ~np.isnan(xy).any(axis=1)  # (NaN, NaN) is WKB's empty point: GEOS's decoding says what a NaN is
        points = points[ok]
        slow[points] = False
        if slow.any():  # every other row, in one call
            slow_rows = np.flatnonzero(slow)
            wkb = np.fromiter((data[a:b].tobytes() for a, b in zip(start[slow_rows].tolist(), end[slow_rows].tolist(),
                                                                  strict=True)), object, len(slow_rows))
            decoded = shapely.from_wkb(wkb, on_invalid="ignore")
            if (shapely.has_z(decoded) | shapely.has_m(decoded)).any():
                decoded = shapely.force_2d(decoded)
            geoms[slow_rows] = decoded
        shapes = cls.of(geoms)
        shapes.codes[points] = int(shapely.GeometryType.POINT)
        shapes = replace(shapes, point_rows=points, point_xy=xy[ok])
        return shapes.merged(fast) if len(fast.rows) else shapes

    @classmethod
    def _walked(cls, n: int, rows: np.ndarray, data: np.ndarray, start: np.ndarray, end: np.ndarray) -> Shapes:
        """The whole polygons of rows ``rows`` (of ``n``; their bytes ``data[start:end]``), read by the WKB walk."""
        # the bytes as a read-only view whatever buffer they came from (Arrow's is read-only, a copy is not): a
        # writable array is another signature, which numba compiles again (a second or two)
        data = data.view()
        data.flags.writeable = False
        # compiled past WKB_ABOVE bytes: below, the plain twin is through before numba would be imported
        jit = int((end - start).sum()) > settings.WKB_ABOVE
        ok, multi, rings, parts, positions = twin(count_rows, 0, compiled=jit)(data, start, end)
        rows, start, multi, rings, parts = rows[ok], start[ok], multi[ok], rings[ok], parts[ok]
        ring_len, part_rings = np.empty(int(rings.sum()), np.int64), np.empty(int(parts.sum()), np.int64)
        xy = np.empty(16 * int(positions.sum()), np.uint8)
        twin(fill_rows, 0, compiled=jit)(data, start, multi, ring_len, part_rings, xy)
        codes = np.full(n, -1, np.int64)
        codes[rows] = np.where(multi, _MULTIPOLYGON, _POLYGON)
        return cls(codes, rows, xy.view("<f8").astype(np.float64, copy=False).reshape(-1, 2), ring_len, part_rings,
                   rings, parts, np.full(n, None, dtype=object))

    def merged(self, other: Shapes) -> Shapes:
        """These shapes with the polygon rows of ``other`` (rows that are none here) put in."""
        codes = self.codes.copy()
        codes[other.rows] = other.codes[other.rows]
        if not len(self.rows):
            return replace(self, codes=codes, rows=other.rows, xy=other.xy, ring_len=other.ring_len,
                           part_rings=other.part_rings, row_rings=other.row_rings, row_parts=other.row_parts)
        rows = np.r_[self.rows, other.rows]
        order = np.argsort(rows, kind="stable")
        row_rings, row_parts = np.r_[self.row_rings, other.row_rings], np.r_[self.row_parts, other.row_parts]
        rings = _take(row_rings, order)
        ring_len = np.r_[self.ring_len, other.ring_len]
        return replace(self, codes=codes, rows=rows[order],
                       xy=np.concatenate([self.xy, other.xy])[_take(ring_len, rings)], ring_len=ring_len[rings],
                       part_rings=np.r_[self.part_rings, other.part_rings][_take(row_parts, order)],
                       row_rings=row_rings[order], row_parts=row_parts[order])

    @classmethod
    def from_geoarrow(cls, column, encoding: str) -> Shapes:
        """The shapes of an Arrow column in one of GeoArrow's native encodings (:data:`ENCODINGS`; null: none)."""
        import pyarrow as pa

        arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        gtype = _ENCODINGS[encoding]
        offsets, inner = [], arr
        for _ in range(_DEPTH[encoding]):
            if not (pa.types.is_list(inner.type) or pa.types.is_large_list(inner.type)):
                raise TypeError(f"a GeoArrow {encoding} column nests {_DEPTH[encoding]} lists, not {arr.type}")
            offsets.append(arrow_numbers(inner.offsets).astype(np.int64))
            inner = inner.values
        rows = np.flatnonzero(~arrow_nulls(arr))
        counts, leaves = nested_take(offsets, rows)
        if counts and not counts[-1].all():  # leave out the rows of no position: empty geometries
            sizes = np.bincount(_per_row(counts), counts[-1], minlength=len(rows))
            rows = rows[sizes > 0]
            counts, leaves = nested_take(offsets, rows)
        xy = _positions(inner)[leaves]
        n = len(arr)
        if gtype in (shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON):
            row_rings, ring_len = counts[-2], counts[-1]
            if gtype == shapely.GeometryType.POLYGON:
                row_parts, part_rings = np.ones(len(rows), np.int64), row_rings
            else:
                row_parts, part_rings = counts[0], counts[1]
                row_rings = np.bincount(np.repeat(np.arange(len(rows)), row_parts), part_rings,
                                        minlength=len(rows)).astype(np.int64)
            codes = np.full(n, -1, np.int64)
            codes[rows] = int(gtype)
            return cls(codes, rows, xy, ring_len, part_rings, row_rings, row_parts, np.full(n, None, dtype=object))
        geoms = np.full(n, None, dtype=object)
        geoms[rows] = shapely.from_ragged_array(gtype, xy, tuple(_offsets(c) for c in reversed(counts)) or None)
        return cls.of(geoms)


#: Lists a GeoArrow native encoding nests around its positions.
_DEPTH = {"point": 0, "linestring": 1, "multipoint": 1, "polygon": 2, "multilinestring": 2, "multipolygon": 3}


def _offsets(counts: np.ndarray) -> np.ndarray:
    return np.r_[0, np.cumsum(counts)]


def _none_in(flags: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Whether no flag of each group holds (groups of sizes ``counts`` laid end to end over ``flags``)."""
    if not flags.any():
        return np.ones(len(counts), bool)
    return np.bincount(np.repeat(np.arange(len(counts)), counts), flags, minlength=len(counts)) == 0


def _take(counts: np.ndarray, which: np.ndarray) -> np.ndarray:
    """The positions of the items of groups ``which`` (groups of sizes ``counts`` laid end to end), in turn."""
    starts = np.cumsum(counts) - counts
    picked = counts[which]
    return np.repeat(starts[which], picked) + group_ranks(picked)


def _positions(points) -> np.ndarray:
    """A GeoArrow array of positions as ``(n, 2)`` floats: a ``struct<x, y, ...>`` read by its fields' names (x, y
    and optionally z, m, in any order: a struct naming anything else is refused), or a ``fixed_size_list<double>[d]``
    (x, y first).  A null position or coordinate, of any number type, is NaN: the builder refuses its feature."""
    import pyarrow as pa

    t = points.type
    if pa.types.is_struct(t):
        names = [t.field(k).name for k in range(t.num_fields)]
        if not {"x", "y"} <= set(names) <= set(_DIMENSIONS) or len(set(names)) != len(names):
            raise TypeError(f"GeoArrow positions of a struct name their fields x, y and optionally z, m, not {t}")
        xy = np.column_stack([_coordinates(points.field(name)) for name in ("x", "y")])
    elif pa.types.is_fixed_size_list(t) and t.list_size >= 2:
        d = t.list_size  # (values: every slot, a null one too, from the array's first)
        xy = _coordinates(points.values[points.offset * d : (points.offset + len(points)) * d]).reshape(-1, d)[:, :2]
    else:
        raise TypeError(f"GeoArrow positions are a struct or a fixed-size list of coordinates, not {t}")
    if points.null_count:
        xy[arrow_nulls(points)] = np.nan
    return xy


#: The fields of a GeoArrow position struct.
_DIMENSIONS = ("x", "y", "z", "m")


def _coordinates(arr) -> np.ndarray:
    """An Arrow array of numbers as floats, NaN where null (an integer column's null slot holds any number)."""
    values = arrow_numbers(arr).astype(np.float64)
    if arr.null_count:
        values[arrow_nulls(arr)] = np.nan
    return values


class DamagedColumn(ValueError):
    """An Arrow binary column whose offsets cannot be read: each row's bytes would not be its own."""


def _binary(arr) -> tuple[np.ndarray, np.ndarray]:
    """An Arrow binary array's ``n + 1`` offsets (int64) and its bytes (``uint8``), from its buffers."""
    import pyarrow as pa

    _, offs, buf = arr.buffers()
    wide = pa.types.is_large_binary(arr.type)
    n = len(arr)
    bounds = np.frombuffer(offs, np.int64 if wide else np.int32)[arr.offset : arr.offset + n + 1].astype(np.int64)
    return bounds, np.frombuffer(buf, np.uint8) if buf is not None else np.empty(0, np.uint8)


def _sound(bounds: np.ndarray, data: np.ndarray) -> bool:
    """Whether offsets never go back and stay within the bytes."""
    return len(bounds) == 0 or bool(bounds[0] >= 0 and bounds[-1] <= len(data) and (bounds[1:] >= bounds[:-1]).all())


def sound_binary(column) -> bool:
    """Whether an Arrow binary column's offsets (every chunk's) never go back and stay within its bytes.

    GDAL 3.12's FlatGeobuf driver breaks this in its Arrow stream: after a null
    geometry it starts the offsets again from 0 and marks no row null, so the
    rows after it would read another row's bytes.
    """
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    return all(len(c) == 0 or pa.types.is_null(c.type) or _sound(*_binary(c)) for c in chunks)


def arrow_nulls(arr) -> np.ndarray:
    """Which slots of an Arrow array are null, read from its validity bitmap (pyarrow's ``to_numpy`` of
    ``is_null()`` imports pandas, a quarter of a second, where pandas is installed)."""
    import pyarrow as pa

    n = len(arr)
    if pa.types.is_null(arr.type):
        return np.ones(n, bool)
    validity = arr.buffers()[0]
    if validity is None or arr.null_count == 0:
        return np.zeros(n, bool)
    return np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")[arr.offset : arr.offset + n] == 0


def arrow_numbers(arr) -> np.ndarray:
    """An Arrow array of integers or floats as a NumPy array, read from its buffers (null: NaN, for floats).

    pyarrow's ``to_numpy(zero_copy_only=False)`` imports pandas where it is installed; a type of no fixed-width
    number is refused with ``TypeError``."""
    import pyarrow as pa

    t = arr.type
    kind = "f" if pa.types.is_floating(t) else "i" if pa.types.is_signed_integer(t) else \
        "u" if pa.types.is_unsigned_integer(t) else None
    if kind is None:
        raise TypeError(f"GeoArrow coordinates and offsets are numbers, not {t}")
    dtype = np.dtype(f"<{kind}{t.bit_width // 8}")
    if len(arr) == 0:
        return np.empty(0, dtype)
    values = np.frombuffer(arr.buffers()[1], dtype)[arr.offset : arr.offset + len(arr)]
    if kind == "f" and arr.null_count:
        return np.where(arrow_nulls(arr), np.nan, values)
    return values


def _per_row(counts: list[np.ndarray]) -> np.ndarray:
    """For the lengths at each level of nested lists (:func:`~eidomap.base.arrays.nested_take`), each leaf list's row
    (as a position among the rows)."""
    row = np.arange(len(counts[0]))
    for c in counts[:-1]:
        row = np.repeat(row, c)
    return row


def _u32(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The little-endian unsigned 32-bit integers at byte positions ``at`` of ``data``."""
    return _at_bytes(data, "<u4")[at].astype(np.int64)


def _at_bytes(data: np.ndarray, dtype: str) -> np.ndarray:
    """``data`` seen as items of ``dtype`` starting at every byte (item ``k`` is the one at byte ``k``): one
    gather reads items at any byte positions, aligned or not."""
    size = np.dtype(dtype).itemsize
    return np.ndarray((max(len(data) - size + 1, 0),), dtype, buffer=data, strides=(1,))
