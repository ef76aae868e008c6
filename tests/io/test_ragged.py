"""Table rows' geometries as ragged arrays: the WKB walk and the GeoArrow lane against Shapely's own decoding."""

from __future__ import annotations

import itertools
import struct

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from eidomap.base import settings as tuning
from eidomap.base.settings import twin
from eidomap.io import wkb
from eidomap.io.ragged import DamagedColumn, Shapes, sound_binary

pa = pytest.importorskip("pyarrow")

FIELDS = ("codes", "rows", "xy", "ring_len", "part_rings", "row_rings", "row_parts")


def same(a: Shapes, b: Shapes) -> None:
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape and np.array_equal(x, y, equal_nan=True), name
        assert x.dtype.kind == y.dtype.kind, name
    assert shapely.to_wkb(a.others).tolist() == shapely.to_wkb(b.others).tolist()  # (a NaN the same as itself)


COORD = st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 3))


@st.composite
def rings(draw, least: int = 4) -> list:
    n = draw(st.integers(least - 1, 9))
    pts = draw(st.lists(st.tuples(COORD, COORD), min_size=n, max_size=n))
    return [*pts, pts[0]]


@st.composite
def geometries(draw):
    kind = draw(st.sampled_from(["polygon", "holes", "multi", "point", "odd point", "line", "none", "empty", "3d",
                                 "many holes"]))
    if kind == "polygon":
        return shapely.Polygon(draw(rings()))
    if kind == "holes":
        return shapely.Polygon(draw(rings()), draw(st.lists(rings(), max_size=3)))
    if kind == "multi":
        return shapely.MultiPolygon([shapely.Polygon(draw(rings()), draw(st.lists(rings(), max_size=2)))
                                     for _ in range(draw(st.integers(1, 3)))])
    if kind == "point":
        return shapely.Point(draw(COORD), draw(COORD))
    if kind == "odd point":  # WKB's empty point is (NaN, NaN); one NaN; a third coordinate: Shapely's to decode
        return draw(st.sampled_from([shapely.Point(), shapely.Point(np.nan, 2.0), shapely.Point(1.0, 2.0, 3.0)]))
    if kind == "line":
        return shapely.LineString(draw(rings(3))[:-1])
    if kind == "empty":
        return shapely.Polygon()
    if kind == "3d":
        return shapely.Polygon([(x, y, 7.0) for x, y in draw(rings())])
    if kind == "many holes":  # (the walk once left a row of more than 64 rings to Shapely)
        return shapely.Polygon(draw(rings()), [draw(rings())] * draw(st.integers(60, 80)))
    return None


def wkb_column(geoms: list, big_endian: bool, large: bool, offset: int):
    data = [None if g is None else shapely.to_wkb(g, byte_order=0 if big_endian else 1, output_dimension=3)
            for g in geoms]
    arr = pa.array([b"\x01\x03"] * offset + data, pa.large_binary() if large else pa.binary())
    return arr.slice(offset)  # (offsets that do not start at 0)


@settings(max_examples=80, deadline=None)
@given(st.lists(geometries(), max_size=12), st.booleans(), st.booleans(), st.integers(0, 2))
def test_wkb_gives_what_shapely_decodes(geoms, big_endian, large, offset):
    arr = wkb_column(geoms, big_endian, large, offset)
    expected = Shapes.of(shapely.force_2d(np.array(geoms, dtype=object)))
    got = Shapes.from_wkb(arr)
    same(got, expected)
    same(Shapes.from_wkb(pa.chunked_array([arr[:3], arr[3:]], arr.type)), expected)
    for a, b in itertools.combinations(range(len(geoms) + 1), 2):
        if (got.codes[a:b] == shapely.GeometryType.POINT).all():  # (what a run of Pousas hands the builder)
            assert np.array_equal(got.point_coordinates(a, b), shapely.get_coordinates(expected.others[a:b]),
                                  equal_nan=True)


def test_the_wkb_walk_reads_any_column_through_one_compiled_signature(monkeypatch):
    """A column read whole hands the walk Arrow's read-only bytes, chunks joined hand it a writable copy: each
    dtype or flag of an argument is a signature numba compiles again (a second or two the first time), so the walk
    is given a read-only view of either.  (The compiled walk runs past ``WKB_ABOVE`` bytes: here, on any.)"""
    monkeypatch.setattr(tuning, "WKB_ABOVE", 0)
    geoms = [shapely.Polygon([(0, 0), (1, 0), (1, 1)]), shapely.MultiPolygon([shapely.box(2, 2, 3, 3)])] * 8
    arr = wkb_column(geoms, False, False, 0)
    for column in (arr, pa.chunked_array([arr[:3], arr[3:]], arr.type)):
        same(Shapes.from_wkb(column), Shapes.of(np.array(geoms, dtype=object)))
    for fn in (wkb.count_rows, wkb.fill_rows):
        signatures = twin(fn, 0, compiled=True).signatures
        assert signatures and all(not sig[0].mutable for sig in signatures), signatures


def test_plain_points_and_polygons_are_read_without_geos(monkeypatch):
    """A map's Pousas (2-D little-endian points) and Eidos are decoded by the walk, not handed to Shapely one by one
    (WKB's point type is 1, Shapely's own code for a point 0)."""
    geoms = [shapely.Point(1.5, -2.0), shapely.box(0, 0, 1, 1), None, shapely.Point(-0.0, 1e300)]
    arr = pa.array([None if g is None else shapely.to_wkb(g) for g in geoms], pa.binary())
    monkeypatch.setattr(shapely, "from_wkb", lambda *a, **k: pytest.fail("a plain row was left to Shapely"))
    got = Shapes.from_wkb(arr)
    assert shapely.to_wkb(got.others[[0, 3]]).tolist() == shapely.to_wkb(np.array(geoms)[[0, 3]]).tolist()
    assert got.rows.tolist() == [1] and got.others[2] is None


def _reference(b: bytes) -> list | None:
    """A little-endian 2-D (Multi)Polygon's nested coordinates, read plainly; None for anything else."""
    try:
        order, gtype = struct.unpack_from("<BI", b, 0)
        if order != 1 or gtype not in (3, 6):
            return None
        at = 5

        def polygon(at: int) -> tuple[list, int]:
            (nr,) = struct.unpack_from("<I", b, at)
            at += 4
            out = []
            if nr == 0:
                raise ValueError
            for _ in range(nr):
                (npts,) = struct.unpack_from("<I", b, at)
                if npts == 0:
                    raise ValueError
                out.append([list(p) for p in struct.iter_unpack("<dd", b[at + 4 : at + 4 + 16 * npts])])
                if len(out[-1]) != npts:
                    raise ValueError
                at += 4 + 16 * npts
            return out, at

        if gtype == 3:
            poly, at = polygon(at)
            polys = [poly]
        else:
            (np_,) = struct.unpack_from("<I", b, at)
            at += 4
            if np_ == 0:
                return None
            polys = []
            for _ in range(np_):
                o, t = struct.unpack_from("<BI", b, at)
                if o != 1 or t != 3:
                    return None
                poly, at = polygon(at + 5)
                polys.append(poly)
        if at != len(b):
            return None
        return polys
    except (struct.error, ValueError):
        return None


@settings(max_examples=100, deadline=None)
@given(st.lists(geometries(), min_size=1, max_size=6), st.data())
def test_damaged_wkb_is_read_as_written_or_left_to_shapely(geoms, data):
    """Bytes cut, changed or added: a row the walk takes holds just the coordinates its bytes say (a ring left
    open stays open, for the builder's checks to report as GeoJSON's are); any other is Shapely's to decode or
    refuse; nothing is read outside the row."""
    blobs = [shapely.to_wkb(g) if g is not None else b"" for g in geoms]
    k = data.draw(st.integers(0, len(blobs) - 1))
    b = bytearray(blobs[k])
    how = data.draw(st.sampled_from(["cut", "change", "add"]))
    at = data.draw(st.integers(0, max(len(b) - 1, 0)))
    if how == "cut":
        del b[at:]
    elif how == "change" and b:
        b[at] = data.draw(st.integers(0, 255))
    else:
        b[at:at] = data.draw(st.binary(min_size=1, max_size=20))
    blobs[k] = bytes(b)
    arr = pa.array(blobs, pa.binary())
    try:
        decoded = shapely.from_wkb(np.array(blobs, dtype=object), on_invalid="ignore")
    except NotImplementedError:  # a byte changed into a curve's type code, which Shapely refuses outright
        with pytest.raises(NotImplementedError):
            Shapes.from_wkb(arr)
        return
    got = Shapes.from_wkb(arr)
    oracle = Shapes.of(shapely.force_2d(decoded))
    walked = {int(r): p for r, p in enumerate(map(_reference, blobs)) if p is not None}
    at_poly = {int(r): i for i, r in enumerate(got.rows.tolist())}
    for row, blob in enumerate(blobs):
        if row in walked:
            assert _same_nest(got.nested(at_poly[row]), walked[row])
            assert got.codes[row] == (6 if blob[1] == 6 else 3)
        else:
            assert got.codes[row] == oracle.codes[row]
            if row in at_poly:
                assert _same_nest(got.nested(at_poly[row]), oracle.nested(oracle.rows.tolist().index(row)))


def _same_nest(a: list, b: list) -> bool:
    """The same polygons of the same rings of the same positions (a NaN a changed byte made equal to itself)."""
    return [list(map(len, p)) for p in a] == [list(map(len, p)) for p in b] and all(
        np.array_equal(np.array(r, float).reshape(-1, 2), np.array(s, float).reshape(-1, 2), equal_nan=True)
        for p, q in zip(a, b, strict=True) for r, s in zip(p, q, strict=True))


def _geoarrow(geoms: list, encoding: str, interleaved: bool):
    """``geoms`` (of one type, None for none) as a GeoArrow column of ``encoding``; a row of none holds a
    geometry all the same, which the reader must not see."""
    mask = pa.array([g is None for g in geoms])
    full = np.array([shapely.from_wkt(STAND_IN[encoding]) if g is None else g for g in geoms], dtype=object)
    if encoding == "point":
        xy, offsets = shapely.get_coordinates(full), []
    else:
        _, xy, offsets = shapely.to_ragged_array(full)
    flat = pa.array(xy.ravel(), pa.float64())
    last = not offsets
    if interleaved:
        values = pa.FixedSizeListArray.from_arrays(flat, 2, mask=mask if last else None)
    else:
        values = pa.StructArray.from_arrays([pa.array(xy[:, 0]), pa.array(xy[:, 1])], ["x", "y"],
                                            mask=mask if last else None)
    for k, off in enumerate(offsets):  # (Shapely gives the innermost offsets first)
        values = pa.ListArray.from_arrays(pa.array(np.asarray(off, np.int32)), values,
                                          mask=mask if k == len(offsets) - 1 else None)
    return values


STAND_IN = {"point": "POINT (5 5)", "linestring": "LINESTRING (0 0, 1 1)",
            "polygon": "POLYGON ((0 0, 1 0, 1 1, 0 0))", "multipolygon": "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)))"}
GEOARROW = {
    "point": st.builds(shapely.Point, COORD, COORD),
    "linestring": rings(3).map(lambda r: shapely.LineString(r[:-1])),
    "polygon": st.builds(shapely.Polygon, rings(), st.lists(rings(), max_size=2)),
    "multipolygon": st.lists(st.builds(shapely.Polygon, rings(), st.lists(rings(), max_size=2)), min_size=1,
                             max_size=3).map(shapely.MultiPolygon),
}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(GEOARROW)).flatmap(
    lambda enc: st.tuples(st.just(enc), st.lists(GEOARROW[enc] | st.none(), min_size=1, max_size=8))),
       st.booleans())
def test_geoarrow_gives_what_shapely_makes(encoded, interleaved):
    encoding, geoms = encoded
    col = _geoarrow(geoms, encoding, interleaved)
    same(Shapes.from_geoarrow(col, encoding), Shapes.of(np.array(geoms, dtype=object)))


def test_a_geoarrow_column_of_another_shape_is_refused():
    with pytest.raises(TypeError, match="nests 2 lists"):
        Shapes.from_geoarrow(pa.array([1.0, 2.0]), "polygon")


def test_a_polygon_of_many_rings_is_walked_and_a_count_past_its_bytes_refused(monkeypatch):
    """The walk takes any number of rings (it reads a row at a time), and a count no bytes back -- a ring count
    of 2**32 - 1 in a row of 13 bytes -- costs the bytes there are, then is Shapely's to refuse."""
    g = shapely.Polygon([(0, 0), (9, 0), (9, 9), (0, 0)], [[(1, 1), (2, 1), (2, 2), (1, 1)]] * 5_000)
    with monkeypatch.context() as m:
        m.setattr(shapely, "from_wkb", lambda *a, **k: pytest.fail("a plain row was left to Shapely"))
        same(Shapes.from_wkb(pa.array([shapely.to_wkb(g)])), Shapes.of(np.array([g], dtype=object)))
    claim = b"\x01" + struct.pack("<II", 3, 2**32 - 1) + b"\x05\x00\x00\x00"
    got = Shapes.from_wkb(pa.array([claim, b"\x01" + struct.pack("<II", 6, 2**32 - 1)]))
    assert got.codes.tolist() == [-1, -1] and not len(got.rows)


@settings(max_examples=100, deadline=None)
@given(st.lists(geometries(), min_size=1, max_size=6), st.binary(max_size=40), st.integers(0, 5))
def test_the_compiled_wkb_walk_is_the_plain_one(geoms, junk, at):
    """:mod:`eidomap.io.wkb` runs compiled; its plain-Python source gives the same counts and coordinates, on
    whole rows and on rows with bytes put in."""
    blobs = [shapely.to_wkb(g, byte_order=1) if g is not None else b"" for g in geoms]
    blobs[at % len(blobs)] = blobs[at % len(blobs)][: 2 * len(junk)] + junk
    data = np.frombuffer(b"".join(blobs), np.uint8)
    end = np.cumsum([len(b) for b in blobs]).astype(np.int64)
    start = end - [len(b) for b in blobs]
    answers = []
    for fn in (wkb.count_rows, twin(wkb.count_rows, 0, compiled=True)):
        answers.append(fn(data, start, end))
    for a, b in zip(*answers, strict=True):
        assert np.array_equal(a, b)
    ok, multi, rings, parts, positions = answers[0]
    filled = []
    for fn in (wkb.fill_rows, twin(wkb.fill_rows, 0, compiled=True)):
        out = (np.empty(rings.sum(), np.int64), np.empty(parts.sum(), np.int64),
               np.empty(16 * positions.sum(), np.uint8))
        fn(data, start[ok], multi[ok], *out)
        filled.append(out)
    for a, b in zip(*filled, strict=True):
        assert np.array_equal(a, b)


def test_a_column_whose_offsets_go_back_is_refused_not_misread():
    """GDAL 3.12's FlatGeobuf Arrow stream starts its offsets again from 0 after a null geometry and marks no row
    null: read as they are, the rows after it would take the first rows' bytes."""
    blobs = [shapely.to_wkb(shapely.box(k, 0, k + 1, 1), byte_order=1) for k in range(2)]
    data = pa.py_buffer(b"".join(blobs))
    ends = np.cumsum([len(b) for b in blobs]).tolist()
    gone_back = pa.Array.from_buffers(pa.binary(), 3, [None, pa.py_buffer(np.array([0, ends[0], 0, ends[0]],
                                                                                     np.int32).tobytes()), data])
    whole = pa.array(blobs, pa.binary())
    assert sound_binary(whole) and sound_binary(pa.chunked_array([whole, whole]))
    for bad in (gone_back, pa.chunked_array([whole, gone_back])):
        assert not sound_binary(bad)
        with pytest.raises(DamagedColumn):
            Shapes.from_wkb(bad)


def _square_of(points) -> object:
    """A GeoArrow polygon column of one row: a ring of the 5 ``points`` (an Arrow array of positions)."""
    ring = pa.ListArray.from_arrays(pa.array([0, 5], pa.int32()), points)
    return pa.ListArray.from_arrays(pa.array([0, 1], pa.int32()), ring)


_X, _Y = [0.0, 2.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize("names", [("x", "y"), ("y", "x"), ("x", "y", "z"), ("z", "x", "y"), ("m", "y", "z", "x")])
def test_a_geoarrow_position_struct_is_read_by_its_field_names(names):
    """GeoArrow names a position's fields x, y, z and m: a struct ``<y, x>`` is the same map, not its mirror."""
    values = {"x": _X, "y": _Y, "z": [7.0] * 5, "m": [9.0] * 5}
    points = pa.StructArray.from_arrays([pa.array(values[n]) for n in names], list(names))
    got = Shapes.from_geoarrow(_square_of(points), "polygon")
    assert got.xy.tolist() == [[x, y] for x, y in zip(_X, _Y, strict=True)]


@pytest.mark.parametrize("names", [("a", "b"), ("x", "x", "y"), ("x", "y", "t"), ("X", "Y"), ("x", "z")])
def test_a_geoarrow_position_struct_not_naming_x_and_y_alone_is_refused(names):
    points = pa.StructArray.from_arrays([pa.array(_X)] * len(names), list(names))
    with pytest.raises(TypeError, match="name their fields x, y and optionally z, m"):
        Shapes.from_geoarrow(_square_of(points), "polygon")


@pytest.mark.parametrize("number", ["int8", "int32", "int64", "uint16", "float32", "float64"])
@pytest.mark.parametrize("interleaved", [False, True])
def test_a_null_geoarrow_coordinate_of_any_number_type_is_nan(number, interleaved):
    """A null coordinate is NaN, which the builder refuses, whatever its type: an integer column's null slot holds
    a number (0 as pyarrow writes it), never to be read as one."""
    x = pa.array([0, 2, None, 0, 0], number)
    y = pa.array([0, 0, 1, 1, 0], number)
    if interleaved:
        flat = pa.array([v for pair in zip(x.to_pylist(), y.to_pylist(), strict=True) for v in pair], number)
        points = pa.FixedSizeListArray.from_arrays(flat, 2)
    else:
        points = pa.StructArray.from_arrays([x, y], ["x", "y"])
    xy = Shapes.from_geoarrow(_square_of(points), "polygon").xy
    assert np.isnan(xy[2, 0]) and not np.isnan(np.delete(xy.ravel(), 4)).any()


@pytest.mark.parametrize("interleaved", [False, True])
def test_a_null_geoarrow_position_is_nan(interleaved):
    """A position that is itself null (the struct or list slot, its numbers there all the same) is NaN."""
    mask = pa.array([False, False, True, False, False])
    if interleaved:
        points = pa.FixedSizeListArray.from_arrays(pa.array([0, 0, 2, 0, 2, 1, 0, 1, 0, 0], pa.int32()), 2, mask=mask)
    else:
        points = pa.StructArray.from_arrays([pa.array(_X), pa.array(_Y)], ["x", "y"], mask=mask)
    xy = Shapes.from_geoarrow(_square_of(points), "polygon").xy
    assert np.isnan(xy[2]).all() and not np.isnan(np.delete(xy, 2, axis=0)).any()


def test_a_geoarrow_polygon_whose_rings_hold_no_position_is_a_row_of_none():
    """A polygon of one ring of no position (GeoArrow's offsets allow it; WKB's empty polygon is another thing) is no
    shape: the reader leaves its row out, as it leaves out a null."""
    a, b = shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1)
    xy = np.r_[shapely.get_coordinates(a), shapely.get_coordinates(b)]
    rings = pa.ListArray.from_arrays(pa.array([0, 5, 5, 10], pa.int32()),
                                     pa.FixedSizeListArray.from_arrays(pa.array(xy.ravel()), 2))
    col = pa.ListArray.from_arrays(pa.array([0, 1, 2, 3], pa.int32()), rings)
    got = Shapes.from_geoarrow(col, "polygon")
    same(got, Shapes.of(np.array([a, None, b], dtype=object)))
    assert got.rows.tolist() == [0, 2]
