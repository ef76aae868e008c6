"""The one way in (`read_map`): a table map (GeoParquet, FlatGeobuf, GeoPackage) read through Arrow gives the GeoJSON
read's record and problems."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely
from conftest import DEMO, feature, pousa, road, square
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eidomap.base.errors import RequestError
from eidomap.base.modes import Lane
from eidomap.io import tables
from eidomap.io.fast import geojson as fastjson
from eidomap.io.geojson import read_geojson
from eidomap.io.readers import ReadOptions, read_map

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pyogrio = pytest.importorskip("pyogrio")


def wkb(geometry: dict | None) -> bytes | None:
    """GeoJSON geometry as little-endian WKB, written plainly: a ring left open or too short stays so (none: a
    null geometry)."""
    if geometry is None:
        return None

    def points(ps: list) -> bytes:
        return struct.pack("<I", len(ps)) + b"".join(struct.pack("<dd", *p[:2]) for p in ps)

    def polygon(rings: list) -> bytes:
        return struct.pack("<BII", 1, 3, len(rings)) + b"".join(map(points, rings))

    c = geometry["coordinates"]
    return {"Point": lambda: struct.pack("<BIdd", 1, 1, *c[:2]),
            "LineString": lambda: struct.pack("<BI", 1, 2) + points(c),
            "Polygon": lambda: polygon(c),
            "MultiPolygon": lambda: struct.pack("<BII", 1, 6, len(c)) + b"".join(map(polygon, c))}[geometry["type"]]()


def _eido(k: int, fid, terrain: str, coords, gtype: str = "Polygon") -> dict:
    return feature("eido", gtype, coords, fid, terrain=terrain)


#: Features at slot k (a unit cell at x = k): plain ones and every kind of problem a table can hold.
FEATURES = {
    "plain": lambda k, t: _eido(k, f"e{k}", t, square(k, 0)),
    "hole": lambda k, t: _eido(k, f"e{k}", t,
                               [*square(k, 0), [[k + .2, .2], [k + .2, .4], [k + .4, .4], [k + .2, .2]]]),
    "multi": lambda k, t: _eido(k, f"e{k}", t, [square(k, 0), square(k, 2, .5)], "MultiPolygon"),
    "bowtie": lambda k, t: _eido(k, f"e{k}", t, [[[k, 0], [k + 1, 1], [k + 1, 0], [k, 1], [k, 0]]]),
    "open ring": lambda k, t: _eido(k, f"e{k}", t, [[[k, 0], [k + 1, 0], [k + 1, 1], [k, 1]]]),
    "short ring": lambda k, t: _eido(k, f"e{k}", t, [[[k, 0], [k + 1, 0], [k, 0]]]),
    "far": lambda k, t: _eido(k, f"e{k}", t, [[[k, 0], [1e300, 0], [k + 1, 1], [k, 0]]]),
    "same id": lambda k, t: _eido(k, "twin", t, square(k, 0)),
    "no id": lambda k, t: _eido(k, None, t, square(k, 0)),
    "no geometry": lambda k, t: {**_eido(k, f"e{k}", t, square(k, 0)), "geometry": None},
    "pousa": lambda k, t: pousa("r", [k + .5, .5], f"p{k}"),
    "pousa, no id": lambda k, t: pousa("r", [k + .5, .5]),
    "pousa, same id": lambda k, t: pousa("r", [k + .5, .5], "twin"),
    "pousa, no road": lambda k, t: feature("pousa", "Point", [k + .5, .5], f"p{k}"),
    "road": lambda k, t: road(f"r{k}", [[k, .5], [k + 1, .5]]),
    "fountain": lambda k, t: feature("fountain", "Point", [k + .5, .7], f"f{k}"),
}
PLANAR = 'LOCAL_CS["planar"]'
TERRAINS = ["meadow", "forest", "sea", "lava"]  # (lava: not in the catalog)


@st.composite
def maps(draw) -> list[dict]:
    kinds = draw(st.lists(st.sampled_from(sorted(FEATURES)), min_size=1, max_size=30))
    terrains = draw(st.lists(st.sampled_from(TERRAINS), min_size=len(kinds), max_size=len(kinds)))
    runs = draw(st.integers(0, 60))  # a run of plain Eidos, as most of a map is
    feats = [road("r", [[-1, .5], [200, .5]])]
    feats += [FEATURES[k](i, t) for i, (k, t) in enumerate(zip(kinds, terrains, strict=True))]
    feats += [FEATURES["plain"](len(kinds) + i, "meadow") for i in range(runs)]
    return feats


def _columns(feats: list[dict]) -> dict[str, list]:
    props = [f["properties"] for f in feats]
    return {"id": [f.get("id") for f in feats], "kind": [p["kind"] for p in props],
            "terrain": [p.get("terrain") for p in props], "road": [p.get("road") for p in props]}


def write_table(feats: list[dict], path) -> None:
    geoms = [wkb(f["geometry"]) for f in feats]
    cols = _columns(feats)
    if path.suffix == ".parquet":
        table = pa.table({**cols, "geometry": pa.array(geoms, pa.binary())})
        geo = {"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "WKB"}}}
        pq.write_table(table.replace_schema_metadata({"geo": json.dumps(geo)}), path)
        return
    pyogrio.raw.write(path, np.array(geoms, dtype=object), [np.array(v, dtype=object) for v in cols.values()],
                      list(cols), layer="board", driver="FlatGeobuf" if path.suffix == ".fgb" else "GPKG",
                      geometry_type="Unknown",
                      layer_options={"SPATIAL_INDEX": "NO"} if path.suffix == ".fgb" else None, crs=PLANAR)


def same_read(a, b) -> None:
    """The same record -- ids, terrains, coordinates of every layer -- and the same problems."""
    (md0, p0), (md, p) = a, b
    r0, r = md0.record, md.record
    assert [(x.code, x.features, x.message, x.location) for x in p] == \
        [(x.code, x.features, x.message, x.location) for x in p0]
    assert r.eidos.ids == r0.eidos.ids and r.eidos.index.tolist() == r0.eidos.index.tolist()
    assert r.terrain.tolist() == r0.terrain.tolist() and r.regions == r0.regions
    for layer in ("eidos", "roads", "pousas", "fountains"):
        g0, g = getattr(r0, layer).geoms, getattr(r, layer).geoms
        assert getattr(r, layer).ids == getattr(r0, layer).ids
        assert shapely.get_type_id(g).tolist() == shapely.get_type_id(g0).tolist()
        assert np.array_equal(shapely.get_coordinates(g), shapely.get_coordinates(g0))
        assert all(shapely.equals_exact(g, g0, 0.0))
    assert r.pousa_road.tolist() == r0.pousa_road.tolist()


def _check(feats: list[dict], folder, suffix: str) -> None:
    src, out = folder / "board.geojson", folder / f"board{suffix}"
    src.write_text(json.dumps({"type": "FeatureCollection", "features": feats}))
    write_table(feats, out)
    same_read(read_geojson(src), read_map(out))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(feats=maps())
def test_a_geoparquet_map_reads_as_its_geojson(feats, tmp_path):
    _check(feats, tmp_path, ".parquet")


@pytest.mark.parametrize("suffix", [".fgb", ".gpkg"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(feats=maps())
def test_a_gdal_map_reads_as_its_geojson(feats, suffix, tmp_path):
    _check(feats, tmp_path, suffix)


@pytest.mark.parametrize("suffix", [".parquet", ".fgb", ".gpkg"])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(feats=maps(), rows=st.integers(1, 4))
def test_a_table_map_read_in_batches_reads_as_its_geojson(feats, rows, suffix, tmp_path):
    """Rows read a few at a time -- each batch decoded while the next is read -- make the map one batch makes."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(tables, "BATCH_ROWS", rows)
        _check(feats, tmp_path, suffix)


def _geoarrow_polygons(feats: list[dict], path) -> tuple:
    """``feats`` (Polygons) written to GeoParquet ``path`` as GeoArrow polygons: the table and its 'geo' metadata."""
    polys = shapely.from_geojson([json.dumps(f["geometry"]) for f in feats])
    _, xy, (ring_off, poly_off) = shapely.to_ragged_array(polys)
    points = pa.StructArray.from_arrays([pa.array(xy[:, 0]), pa.array(xy[:, 1])], ["x", "y"])
    column = pa.ListArray.from_arrays(pa.array(poly_off.astype(np.int32)),
                                      pa.ListArray.from_arrays(pa.array(ring_off.astype(np.int32)), points))
    geo = {"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "polygon"}}}
    table = pa.table({**_columns(feats), "geometry": column}).replace_schema_metadata({"geo": json.dumps(geo)})
    pq.write_table(table, path)
    return table, geo


def test_geoarrow_geoparquet_reads_as_its_geojson(tmp_path):
    """A GeoParquet file of GeoArrow polygons (as GeoPandas and GDAL write them when asked): the list offsets
    are the ragged arrays, with no WKB at all."""
    feats = [FEATURES[k](i, "meadow") for i, k in enumerate(["plain", "hole", "plain", "bowtie", "same id", "plain"])]
    feats[2]["properties"]["terrain"] = "lava"
    src, out = tmp_path / "board.geojson", tmp_path / "board.parquet"
    table, geo = _geoarrow_polygons(feats, out)
    src.write_text(json.dumps({"type": "FeatureCollection", "features": feats}))
    same_read(read_geojson(src), read_map(out))
    table = table.replace_schema_metadata({"geo": json.dumps({**geo, "columns": {"geometry": {"encoding": "point"}}})})
    pq.write_table(table, out)
    with pytest.raises(Exception, match="is not GeoArrow point"):
        read_map(out)


def test_a_geoparquet_read_leaves_pandas_alone(tmp_path):
    """pyarrow imports pandas (a quarter of a second where it is installed) on ``to_numpy``, ``fill_null`` or
    ``pa.array``: a GeoParquet map, WKB with Pousas and a missing terrain or GeoArrow polygons, is read from the
    Arrow buffers without it."""
    pytest.importorskip("pandas")
    feats = [FEATURES[k](i, "meadow") for i, k in enumerate(["plain", "hole", "plain"])]
    feats[1]["properties"]["terrain"] = None
    _geoarrow_polygons(feats, tmp_path / "arrow.parquet")
    write_table([*feats, pousa("r1", [0.5, 0.5], "p1"), road("r1", [[0.5, 0.5], [2.5, 0.5]])], tmp_path / "wkb.parquet")
    code = ("import sys; from eidomap.io.readers import read_map; "
            f"r = [read_map(p)[0].record for p in {[str(tmp_path / n) for n in ('wkb.parquet', 'arrow.parquet')]!r}]; "
            "print(len(r[0].eidos), len(r[0].pousas), len(r[1].eidos), 'pandas' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout == "2 1 2 False\n"  # (the Eido of no terrain is reported)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, -0.0, 1.5, -1e15, 1e15, 1.0000001e15, np.nan, np.inf, -np.inf]),
                          st.floats(allow_nan=True)), max_size=40), st.integers(1, 7))
def test_usable_rows_are_the_same_a_part_at_a_time(rows, part):
    from eidomap.io import features

    xy = np.array(rows, dtype=float).reshape(-1, 2)
    plain = np.array([bool(np.all(np.abs(r) <= features.MAX_COORDINATE)) for r in xy], dtype=bool)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(features, "_ROWS", part)
        assert features.usable(xy).tolist() == plain.tolist()


def test_a_flatgeobuf_map_with_a_null_geometry_reads_every_other_row_as_written(tmp_path):
    """GDAL's Arrow stream of such a file gives offsets the rows after the null one cannot be read by: their
    geometries are read again without Arrow."""
    feats = [_eido(k, f"e{k}", "meadow", square(k, 0)) for k in range(5)]
    feats[1]["geometry"] = None
    _check(feats, tmp_path, ".fgb")
    md, problems = read_map(tmp_path / "board.fgb")
    assert md.record.eidos.ids == ("e0", "e2", "e3", "e4") and [p.features for p in problems] == [("e1",)]
    assert shapely.get_coordinates(md.record.eidos.geoms)[:, 0].min(initial=0) == 0
    assert sorted({int(x) for x in shapely.bounds(md.record.eidos.geoms)[:, 0]}) == [0, 2, 3, 4]


# -- ReadOptions: each field typed and checked once, where the options come in ---------------------------------

@pytest.mark.parametrize(("field", "value", "says"), [
    ("helper", "yes", "helper must be True or False, got 'yes'"),
    ("pause_gc", 1, "pause_gc must be True or False, got 1"),
    ("document", None, "document must be True or False, got None"),
    ("reader", "ujson", "reader must be 'json' or 'msgspec', got 'ujson'"),
    ("reader", 3, "reader must be 'json' or 'msgspec', got 3"),
    ("terrain_field", 3, "terrain_field must be text"),
    ("id_field", b"id", "id_field must be text"),
    ("catalog", 3, "catalog must be a Catalog or a file path"),
])
def test_each_read_option_is_refused_naming_its_field_and_what_it_takes(field, value, says):
    with pytest.raises(RequestError, match=f"^{re.escape(says)}") as caught:
        ReadOptions(**{field: value})
    assert caught.value.param == field
    with pytest.raises(RequestError, match=f"^{re.escape(says)}"):  # (before the map is read: the path is no map)
        read_map("no-such-map.geojson", **{field: value})


def test_an_unknown_read_option_is_refused_naming_it():
    with pytest.raises(RequestError, match=r"^helpers is not an option of a read"):
        ReadOptions.of({"helpers": True})


@pytest.mark.parametrize("reader", ["json", Lane.JSON, *(["msgspec", Lane.MSGSPEC] if fastjson.available() else [])])
def test_the_reader_is_its_lane_whether_given_as_a_lane_or_its_word(reader):
    options = ReadOptions(reader=reader)
    assert type(options.reader) is Lane and options.reader == reader
    assert read_map(DEMO, reader=reader)[0].record.eidos.ids[:1] == ("ceo-poente",)



def test_read_options_hold_what_was_checked():
    options = ReadOptions(terrain_field="kind", id_field="name", helper=True, pause_gc=True, document=False)
    assert (options.reader, options.terrain_field, options.id_field, options.helper, options.pause_gc,
            options.document) == (None, "kind", "name", True, True, False)


@pytest.mark.parametrize("source", ["tiled/board.tmj", "tiled/board.tmx", "svg"])
def test_a_tiled_or_svg_map_reads_as_the_geojson_its_import_writes(source, tmp_path):
    """``read_map`` opens a Tiled or SVG board itself: the record and problems of the map its import writes."""
    from eidomap.io.svg import import_svg
    from eidomap.io.tiled import import_tiled

    if source == "svg":
        src = tmp_path / "board.svg"
        src.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10">'
                       '<rect id="a" data-terrain="meadow" width="10" height="10"/>'
                       '<rect id="b" data-terrain="forest" x="10" width="10" height="10"/></svg>')
    else:
        src = Path(__file__).resolve().parents[1] / "data" / source
    out = tmp_path / "board.geojson"
    (import_svg if src.suffix == ".svg" else import_tiled)(src, out)
    same_read(read_geojson(out), read_map(src))
    same_read(read_geojson(out), read_map(None, format="svg" if source == "svg" else "tiled", data=src.read_bytes()))
