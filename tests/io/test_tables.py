"""GeoPackage, Shapefile, FlatGeobuf and GeoParquet maps, eidomap convert, and GeoPandas in and out."""

from __future__ import annotations

import contextlib
import json
import shutil

import pytest
import shapely
from conftest import DEMO, collection, eido, feature, pousa, road, square, strip

import eidomap
from eidomap.answers.routing import Reach, reach, route
from eidomap.base.errors import MapError, RequestError
from eidomap.cli import main
from eidomap.io.tables import write_map, write_table_map
from eidomap.validate.checks import validate

pytest.importorskip("pyogrio", reason='table formats need pyogrio: pip install "eidomap[geo]"')
pytest.importorskip("pyarrow", reason='table formats need pyarrow: pip install "eidomap[geo]"')
gpd = pytest.importorskip("geopandas", reason='GeoPandas in and out needs geopandas: pip install "eidomap[geo]"')

CATALOG = DEMO.with_name("demo-catalog.toml")
TILED = DEMO.parent.parent / "tests" / "data" / "tiled" / "board.tmj"


def same_map(a: eidomap.Map, b: eidomap.Map) -> None:
    """Ids, terrains, regions, names, adjacency and the other layers all kept."""
    assert b.eido_ids == a.eido_ids and b.terrains == a.terrains and b.record.regions == a.record.regions
    assert b.pairs() == a.pairs() and b.display_names == a.display_names
    for layer in ("roads", "pousas", "fountains", "streams"):
        assert getattr(b.record, layer).ids == getattr(a.record, layer).ids
        assert all(shapely.equals_exact(getattr(b.record, layer).geoms, getattr(a.record, layer).geoms, 0.0))
    assert all(shapely.equals_exact(b.geometries, a.geometries, 0.0))


@pytest.fixture
def folder(tmp_path):
    shutil.copy(CATALOG, tmp_path)
    return tmp_path


@pytest.mark.parametrize("suffix", [".gpkg", ".fgb", ".parquet"])
def test_round_trip_through_each_format(demo, folder, suffix):
    path = folder / f"demo{suffix}"
    assert write_table_map(demo.data, path) == []
    m = eidomap.load(path)
    same_map(demo, m)
    assert m.meta == demo.meta and m.name == demo.name
    assert route(m, "bouza-vella", "porto-norte", "human", rolls=[3, 5, 2, 6]).arrival_turn == 2


@pytest.mark.parametrize("suffix", [".gpkg", ".fgb", ".parquet"])
def test_a_flag_some_eidos_leave_out_is_written_as_a_boolean(tmp_path, suffix):
    """``"poi": true`` on a few Eidos: a boolean column, empty where it is left out (not JSON text)."""
    from eidomap.pages.report import named_places

    source = tmp_path / "flags.geojson"
    source.write_text(json.dumps(collection([eido("a", "meadow", square(0, 0), poi=True),
                                             eido("b", "meadow", square(1, 0)),
                                             eido("c", "meadow", square(2, 0), poi=False)])))
    path = tmp_path / f"flags{suffix}"
    assert write_table_map(eidomap.load(source).data, path) == []
    m = eidomap.load(path)
    assert [f["properties"].get("poi") for f in m.data.document.features] == [True, None, False]
    assert named_places(m) == [("a", "a")]


def test_geojson_to_geopackage_to_geojson_keeps_the_map(demo, folder, capsys):
    gpkg, back = folder / "demo.gpkg", folder / "back.geojson"
    assert main(["convert", str(DEMO), str(gpkg)]) == 0
    assert main(["convert", str(gpkg), str(back)]) == 0
    assert "wrote" in capsys.readouterr().out
    same_map(demo, eidomap.load(back))
    import pyogrio

    assert sorted(pyogrio.list_layers(gpkg)[:, 0]) == ["eidos", "fountains", "pousas", "roads", "streams"]


def test_every_command_reads_a_table_map(folder, capsys):
    fgb = folder / "demo.fgb"
    assert main(["convert", str(DEMO), str(fgb)]) == 0
    assert main(["info", str(fgb)]) == 0
    assert main(["validate", str(fgb)]) == 0
    assert main(["route", str(fgb), "--from", "bouza-vella", "--to", "porto-norte", "--species", "human",
                 "--rolls", "3,5,2,6"]) == 0
    assert "arrives in turn 2" in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore:.crs. was not provided")
def test_a_layer_drawn_in_qgis_with_its_own_columns(tmp_path):
    """One layer of polygons, no kind column, the terrain and id under other names."""
    gdf = gpd.GeoDataFrame({"code": ["a", "b", "c"], "landcover": ["meadow", "forest", "sea"]},
                           geometry=[shapely.box(k, 0, k + 1, 1) for k in range(3)])
    path = tmp_path / "board.shp"
    gdf.to_file(path, engine="pyogrio")
    with pytest.raises(MapError, match="without an id"):
        eidomap.load(path)
    m = eidomap.load(path, terrain_field="landcover", id_field="code")
    assert m.eido_ids == ["a", "b", "c"] and m.terrains == ["meadow", "forest", "sea"]
    assert m.pairs() == [("a", "b"), ("b", "c")]
    assert main(["info", str(path), "--terrain-field", "landcover", "--id-field", "code"]) == 0


def test_table_maps_get_the_geojson_readers_checks(tmp_path):
    doc = collection([*strip(["meadow", "lava"]), eido("e0", "sea", square(5, 5))])
    src = tmp_path / "bad.geojson"
    src.write_text(json.dumps(doc))
    from eidomap.io.geojson import read_geojson

    _, problems = read_geojson(src)
    gdf = gpd.read_file(src, engine="pyogrio")
    out = tmp_path / "bad.gpkg"
    gdf.to_file(out, layer="eidos", engine="pyogrio")
    codes = [(p.code, p.features) for p in validate(out).problems if p.code in ("unknown-terrain", "duplicate-id")]
    assert codes == [(p.code, p.features) for p in problems]


@pytest.mark.parametrize("suffix", [".fgb", ".parquet"])
def test_pousas_filed_together_read_as_the_geojson_reader_reads_them(tmp_path, suffix):
    """Runs of plain Pousas are filed at once; an id used before or twice in the run, or a Pousa without a road,
    sends its run through the one-by-one checks, and the map and problems stay the GeoJSON read's."""
    line = [[0.5, 0.5], [2.5, 0.5]]
    doc = collection([*strip(["meadow", "meadow", "forest"]), road("r1", line),
                      pousa("r1", (0.5, 0.5), "p1"), pousa("r1", (1.0, 0.5)), pousa("r1", (1.5, 0.5), "p3"),
                      eido("e9", "sea", square(5, 5)), pousa("r1", (2.0, 0.5), "p3"), pousa("r1", (2.5, 0.5), "e0"),
                      pousa("r1", (2.2, 0.5), "p6"), pousa("r1", (2.3, 0.5), "p7")])
    del doc["features"][-1]["properties"]["road"]
    src = tmp_path / "board.geojson"
    src.write_text(json.dumps(doc))
    from eidomap.io.geojson import read_geojson
    from eidomap.io.readers import read_map

    md0, problems0 = read_geojson(src)
    out = tmp_path / f"board{suffix}"
    gdf = gpd.read_file(src, engine="pyogrio")
    gdf.to_parquet(out) if suffix == ".parquet" else gdf.to_file(out, engine="pyogrio", SPATIAL_INDEX="NO")  # in order
    md, problems = read_map(out)
    assert [(p.code, p.features) for p in problems] == [(p.code, p.features) for p in problems0]
    assert [p.features[0] for p in problems if p.code == "duplicate-id"] == ["p3", "e0"]
    a, b = md0.record, md.record
    assert b.pousas.ids == a.pousas.ids and b.eidos.ids == a.eidos.ids
    assert all(shapely.equals_exact(b.pousas.geoms, a.pousas.geoms, 0.0))
    assert b.pousa_road.tolist() == a.pousa_road.tolist()


def test_files_that_are_not_what_their_suffix_says_are_refused(tmp_path):
    vrt = tmp_path / "trap.gpkg"
    vrt.write_text('<OGRVRTDataSource><OGRVRTLayer name="x"><SrcDataSource>/etc/passwd</SrcDataSource>'
                   "</OGRVRTLayer></OGRVRTDataSource>")
    with pytest.raises(MapError, match="not a GPKG file"):
        eidomap.load(vrt)
    with pytest.raises(MapError, match="missing"):
        eidomap.load(tmp_path / "absent.fgb")


def test_a_shapefile_holds_eidos_alone(demo, tmp_path, capsys):
    assert main(["convert", str(DEMO), str(tmp_path / "demo.shp")]) == 2
    assert "GeoPackage" in capsys.readouterr().err
    with pytest.raises(RequestError, match="Eidos alone"):
        write_table_map(demo.data, tmp_path / "demo.shp")


def test_geodataframe_round_trip(demo):
    eidos = demo.to_geodataframe()
    assert list(eidos.columns) == ["id", "terrain", "region", "name", "geometry"]
    layers = {name: demo.to_geodataframe(name) for name in ("roads", "pousas", "fountains", "streams")}
    m = eidomap.from_geodataframe(eidos, **layers, catalog=demo.catalog, meta=demo.meta)
    same_map(demo, m)


def test_from_geodataframe_runs_the_readers_checks(demo):
    eidos = demo.to_geodataframe()
    eidos.loc[3, "terrain"] = "lava"
    with pytest.raises(MapError, match="'lava', which is not in the catalog"):
        eidomap.from_geodataframe(eidos, catalog=demo.catalog)
    eidos = demo.to_geodataframe().set_index("id").drop(columns="name")
    assert eidomap.from_geodataframe(eidos, catalog=demo.catalog).eido_ids == demo.eido_ids


def test_result_tables_join_the_eidos(demo):
    r = route(demo, "bouza-vella", "porto-norte", "human", rolls=[3, 5, 2, 6])
    steps = r.to_frame()
    assert list(steps.columns) == ["step", "id", "kind", "cost", "total", "turn"]
    assert list(steps["id"]) == [s.node for s in r.path] and steps["turn"].tolist()[-1] == 2
    assert steps["turn"].iloc[0] == 0 and steps["turn"].iloc[1] == 1 and steps["turn"].is_monotonic_increasing
    assert steps["total"].iloc[-1] == r.total_cost
    p = reach(demo, "porto-sur", "human", turns=3).to_frame()
    heat = demo.to_geodataframe().merge(p, on="id")
    assert len(heat) == len(demo.eido_ids) and heat["p_within"].between(0, 1).all()
    assert list(reach(demo, "porto-sur", "human", roll=4).to_frame().columns) == ["id", "debt"]
    assert list(Reach("porto-sur", "human", "carry").to_frame().columns) == ["id", "p_within"]  # nothing held


def test_fix_reads_a_table_map_and_writes_geojson(folder, capsys):
    gpkg = folder / "demo.gpkg"
    assert main(["convert", str(DEMO), str(gpkg)]) == 0
    assert main(["fix", str(gpkg), "-o", str(folder / "fixed.geojson")]) == 0
    assert main(["fix", str(gpkg), "--in-place"]) == 2
    assert "fix writes GeoJSON" in capsys.readouterr().err


@pytest.mark.parametrize("out", ["demo.kml", "demo.csv", "demo.txt", "demo"])
def test_convert_refuses_a_suffix_it_does_not_write(tmp_path, capsys, out):
    assert main(["convert", str(DEMO), str(tmp_path / out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "eidomap writes maps as .geojson, .json, .gpkg, .shp, .fgb, .parquet or" in err
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RequestError, match="eidomap writes maps as"):
        write_map(eidomap.load(DEMO).data, tmp_path / out)


@pytest.mark.parametrize("argv", [
    ["generate", "--eidos", "5", "OUT"],
    ["fix", str(DEMO), "-o", "OUT"],
    ["import-tiled", str(TILED), "-o", "OUT"],
])
def test_commands_that_write_geojson_refuse_another_formats_suffix(tmp_path, capsys, argv):
    for name, then in (("board.gpkg", True), ("board.kml", False)):
        assert main([str(tmp_path / name) if a == "OUT" else a for a in argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "eidomap writes maps as .geojson or .json, not" in err
        assert ("write GeoJSON, then 'eidomap convert' it" in err) == then
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".gpkg", ".fgb", ".parquet", ".geojson"])
def test_convert_carries_the_catalog_so_the_map_reads_at_once(tmp_path, capsys, suffix):
    out = tmp_path / f"demo{suffix}"
    assert main(["convert", str(DEMO), str(out)]) == 0
    assert "demo-catalog.toml, the catalog it names" in capsys.readouterr().out
    assert (tmp_path / "demo-catalog.toml").read_bytes() == CATALOG.read_bytes()
    assert main(["info", str(out)]) == 0 and "76 Eidos" in capsys.readouterr().out
    assert eidomap.load(out).catalog.get_species("marino")  # the demo's own species, from the copy


def test_convert_keeps_a_catalog_already_beside_the_output(tmp_path, capsys):
    shutil.copy(CATALOG, tmp_path)
    assert main(["convert", str(DEMO), str(tmp_path / "demo.gpkg")]) == 0  # the same catalog: nothing to replace
    mine = tmp_path / "demo-catalog.toml"
    mine.write_text("# my own\n")
    capsys.readouterr()
    assert main(["convert", str(DEMO), str(tmp_path / "other.fgb")]) == 2
    assert "demo-catalog.toml: exists" in capsys.readouterr().err
    assert mine.read_text() == "# my own\n" and not (tmp_path / "other.fgb").exists()
    assert main(["convert", str(DEMO), str(tmp_path / "other.fgb"), "--force"]) == 0
    assert mine.read_bytes() == CATALOG.read_bytes()


@pytest.mark.parametrize(("suffix", "count_known"), [(".gpkg", True), (".gpkg", False), (".fgb", True),
                                                      (".fgb", False), (".parquet", True)])
def test_a_table_map_of_more_rows_than_the_feature_limit_is_refused(suffix, count_known, tmp_path, monkeypatch):
    """The limit holds whether the file's metadata gives its row count (refused before a row of the layer is
    read) or not (refused as its batches come, one batch past the limit at most; a Parquet footer always
    gives it).  Only a Parquet footer's count is stated: GDAL's is the file's cache, and a count as rows come
    stops at the limit."""
    import pyogrio

    from eidomap.io import tables

    md = eidomap.load(DEMO).data
    path = tmp_path / f"demo{suffix}"
    write_table_map(md, path)
    limit = len(md.record.eidos) // 2
    monkeypatch.setattr(tables, "MAX_FEATURES", limit)
    monkeypatch.setattr(tables, "BATCH_ROWS", 3)
    if not count_known:
        info = pyogrio.read_info
        monkeypatch.setattr(pyogrio, "read_info", lambda *a, **k: {**info(*a, **k), "features": -1})
    else:
        monkeypatch.setattr(pyogrio.raw, "open_arrow", lambda *a, **k: pytest.fail("a row was read"))
    said = f"has {len(md.document.features)} rows, more than" if suffix == ".parquet" else "has more rows than"
    with pytest.raises(MapError, match=rf"{said} the {limit:,}-feature limit"):
        eidomap.load(path)


def _cached_count(path, count: int) -> None:
    """Make the row count a GeoPackage caches, or a FlatGeobuf's header gives, ``count`` (the rows stay)."""
    import sqlite3
    import struct

    if path.suffix == ".gpkg":
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE gpkg_ogr_contents SET feature_count = ?", (count,))
        return
    data = bytearray(path.read_bytes())
    rows = len(eidomap.io.readers.read_map(path)[0].document.features)
    at = data.index(struct.pack("<Q", rows), 12)  # (the header's features_count: the first such bytes)
    data[at : at + 8] = struct.pack("<Q", count)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("suffix", [".gpkg", ".fgb"])
@pytest.mark.parametrize("count", [9_999_999_999, 2**31 + 7, 5_000_001])
def test_a_row_count_a_file_gives_wrongly_is_no_count(tmp_path, monkeypatch, suffix, count):
    """A cached count (a GeoPackage's, a FlatGeobuf header's) past the feature limit is the file's word, and
    pyogrio wraps one past 2**31 (9,999,999,999 read as 1,410,065,407): the rows are counted, and a map of 76
    Eidos reads; where there are more rows than the limit, the refusal states the limit, not the count."""
    from eidomap.io import tables

    shutil.copy(CATALOG, tmp_path)
    path = tmp_path / f"demo{suffix}"
    write_table_map(eidomap.load(DEMO).data, path)
    _cached_count(path, count)
    assert eidomap.load(path).eido_ids == eidomap.load(DEMO).eido_ids
    monkeypatch.setattr(tables, "MAX_FEATURES", 40)
    with pytest.raises(MapError) as caught:
        eidomap.load(path)
    assert str(caught.value) == f"{path}: has more rows than the 40-feature limit"


def _flawed(tmp_path, *extra: dict) -> tuple:
    """A map whose read leaves features out: a bowtie, an unknown terrain, a null geometry, and ``extra``."""
    feats = [eido(f"e{k}", "meadow", square(k, 0)) for k in range(4)]
    feats[1]["geometry"]["coordinates"] = [[[1, 0], [2, 1], [2, 0], [1, 1], [1, 0]]]
    feats[2]["properties"]["terrain"] = "lava"
    feats[3]["geometry"] = None
    src = tmp_path / "flawed.geojson"
    src.write_text(json.dumps(collection([*feats, *extra])))
    return eidomap.io.readers.read_map(src)


@pytest.mark.parametrize("suffix", [".gpkg", ".fgb", ".parquet"])
def test_a_map_with_errors_is_written_whole_and_reads_back_with_the_same_problems(tmp_path, suffix):
    md, problems = _flawed(tmp_path)
    assert len(md.record.eidos) == 1 and len(problems) == 3
    out = tmp_path / f"flawed{suffix}"
    write_table_map(md, out)
    md2, problems2 = eidomap.io.readers.read_map(out)
    assert [(p.code, p.features, p.message) for p in problems2] == [(p.code, p.features, p.message) for p in problems]
    assert md2.record.eidos.ids == md.record.eidos.ids


@pytest.mark.parametrize("suffix", [".gpkg", ".parquet", ".fgb"])
def test_an_empty_polygon_reads_as_in_geojson_where_the_format_keeps_it(tmp_path, suffix):
    """An empty Polygon and MultiPolygon are refused as malformed, as GeoJSON's ``"coordinates": []`` is: a
    GeoPackage and a GeoParquet keep the empty geometry; FlatGeobuf writes none (GDAL), read as none."""
    empty = [eido("p", "meadow", []), {**eido("m", "meadow", []), "geometry": {"type": "MultiPolygon",
                                                                             "coordinates": []}}]
    md, problems = _flawed(tmp_path, *empty)
    out = tmp_path / f"flawed{suffix}"
    write_table_map(md, out)
    _, problems2 = eidomap.io.readers.read_map(out)
    said = {p.features: p.message for p in problems2 if p.features in (("p",), ("m",))}
    if suffix == ".fgb":
        assert set(said.values()) == {"is an eido whose geometry must be a Polygon or MultiPolygon, got None"}
    else:
        assert said == {("p",): "has malformed Polygon coordinates", ("m",): "has malformed MultiPolygon coordinates"}
        assert [(p.code, p.features, p.message) for p in problems2] == \
            [(p.code, p.features, p.message) for p in problems]


def test_a_geometry_no_table_can_hold_is_refused_and_nothing_is_written(tmp_path):
    md, _ = _flawed(tmp_path, eido("open", "meadow", [[[5, 0], [6, 0], [6, 1], [5, 1]]]))
    out = tmp_path / "flawed.gpkg"
    with pytest.raises(RequestError, match=r"flawed\.gpkg: feature 'open' has a geometry no table can hold"):
        write_table_map(md, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flawed.geojson"]


#: Properties of each type a table column holds, as every table format keeps them (a Shapefile's numbers are
#: text of at most 15 decimals, and it has no empty text): floats, whole numbers, booleans, text, a float column
#: some rows leave empty.
_TYPED = [{"width": 1.5, "count": 3, "open": True, "label": "Camiño", "depth": 0.25},
          {"width": -2.25, "count": -7, "open": False, "label": "b"},
          {"width": 1234.0625, "count": 0, "open": True, "label": "c d", "depth": -1e-3},
          {"width": 3.0, "count": 2**40, "open": False, "label": "x"}]


@pytest.mark.parametrize("suffix", [".gpkg", ".fgb", ".parquet", ".shp"])
def test_every_property_type_reads_back_as_written_through_every_table_format(tmp_path, suffix):
    """Floats, whole numbers, booleans and text keep their values and types, and a float a row leaves out stays
    left out (found by mutation: every float read as None went unnoticed)."""
    feats = strip(["meadow"] * len(_TYPED))
    for f, props in zip(feats, _TYPED, strict=True):
        f["properties"].update(props)
    src = tmp_path / "typed.geojson"
    src.write_text(json.dumps(collection(feats)))
    md, _ = eidomap.io.readers.read_map(src)
    out = tmp_path / f"typed{suffix}"
    assert write_table_map(md, out) == []
    back, problems = eidomap.io.readers.read_map(out)
    assert problems == []
    got = [back.document.features[k]["properties"] for k in range(len(_TYPED))]
    want = [{"kind": "eido", "terrain": "meadow", **props} for props in _TYPED]
    assert got == want
    assert [[type(v) for v in p.values()] for p in got] == [[type(v) for v in p.values()] for p in want]


@pytest.mark.parametrize("suffix", [".gpkg", ".shp", ".fgb", ".parquet"])
def test_a_table_map_under_a_regular_file_is_refused_naming_the_file_and_no_feature(tmp_path, capsys, suffix):
    """A path through a regular file (``map.txt/board.gpkg``) cannot be read: the error is the file's, with the
    operating system's reason, never a feature's."""
    (tmp_path / "map.txt").write_text("not a folder")
    path = tmp_path / "map.txt" / f"board{suffix}"
    with pytest.raises(MapError) as caught:
        eidomap.load(path)
    exc = caught.value
    assert (exc.path, exc.feature, exc.reason) == (str(path), None, "cannot be read (Not a directory)")
    assert main(["info", str(path)]) == 2
    assert capsys.readouterr().err == f"eidomap: {path}: cannot be read (Not a directory)\n"


def _latin1(path, old: bytes, new: bytes) -> None:
    """Three meadows and a road written as a table map, then the bytes ``old`` put as ``new`` (as long: Latin-1 in
    place of text)."""
    feats = [eido(f"e{k}", "meadow", square(k, 0), colour="rojo") for k in range(3)]
    if path.suffix != ".shp":  # (a Shapefile holds Eidos alone, and no metadata)
        feats.append({**road("r1", [[0.5, 0.5], [2.5, 0.5]]), "properties": {"kind": "road", "name": "Camino"}})
    meta = {} if path.suffix == ".shp" else {"name": "Mapa"}
    md, _ = eidomap.io.readers.read_map(None, data=json.dumps(collection(feats, **meta)).encode())
    write_table_map(md, path)
    p = path.with_suffix(".dbf") if path.suffix == ".shp" else path  # (a Shapefile's text: its .dbf)
    data = p.read_bytes()
    assert old in data
    p.write_bytes(data.replace(old, new))


_NOT_UTF8 = {  # what is Latin-1, the bytes, and what the refusal says after the file's name
    "a value": (b"rojo", b"roj\xf3", "feature 'e0': its 'colour' is not UTF-8 text (b'roj\\xf3')"),
    "a terrain": (b"meadow", b"mead\xf6w", "feature 'e0': its 'terrain' is not UTF-8 text (b'mead\\xf6w')"),
    "an id": (b"e1", b"\xe91", "feature #1: its 'id' is not UTF-8 text (b'\\xe91')"),
    "a road's name": (b"Camino", b"Cami\xf1o", "feature 'r1': its 'name' is not UTF-8 text (b'Cami\\xf1o')"),
    "a column name": (b"colour", b"col\xf6ur",
                      "its layer 'eidos' has a column name or a metadata item that is not UTF-8 text (b'col\\xf6ur')"),
    "a layer name": (b"eidos", b"eid\xf3s", "has a layer name that is not UTF-8 text (b'eid\\xf3s')"),
    "the metadata": (b"Mapa", b"Map\xe1", "its layer 'eidos' has 'eidomap' metadata that is not UTF-8 text"
                                          " (b' 1, \"name\": \"Map\\xe1\"}')"),
}


#: What a Shapefile holds: Eidos alone, no metadata, its layer its file's name.
_IN_A_SHAPEFILE = ("a value", "a terrain", "an id", "a column name")


@pytest.mark.parametrize(("suffix", "what"), [(s, w) for s in (".gpkg", ".fgb", ".shp") for w in _NOT_UTF8
                                              if s != ".shp" or w in _IN_A_SHAPEFILE])
def test_text_that_is_not_utf8_in_a_gdal_table_is_refused_naming_where(tmp_path, capsys, suffix, what):
    """GDAL gives a table's text as its bytes are: Latin-1 in a value, a column or layer name or the metadata is
    refused in one line naming the feature (its id, else its place) or the layer, and the bytes (a UnicodeDecodeError,
    exit 3, before).  A Shapefile holds Eidos alone, named by its file, without metadata."""
    old, new, said = _NOT_UTF8[what]
    path = tmp_path / f"latin{suffix}"
    _latin1(path, old, new)
    said = said.replace("layer 'eidos'", "layer 'latin'") if suffix == ".shp" else said
    with pytest.raises(MapError) as caught:
        eidomap.load(path)
    assert str(caught.value) == f"{path}: {said}"
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err == f"eidomap: {path}: {said}\n"


def _text_column(texts: list[bytes]):
    """An Arrow string column of ``texts`` as they are (pyarrow checks no UTF-8 on buffers it is given)."""
    import numpy as np
    import pyarrow as pa

    offsets = np.r_[0, np.cumsum([len(t) for t in texts])].astype(np.int32)
    return pa.Array.from_buffers(pa.string(), len(texts), [None, pa.py_buffer(offsets.tobytes()),
                                                           pa.py_buffer(b"".join(texts))])


@pytest.mark.parametrize(("columns", "metadata", "said"), [
    ({"id": [b"a", b"b", b"c"], "terrain": [b"meadow", b"mead\xf6w", b"meadow"]}, {},
     "feature 'b': its 'terrain' is not UTF-8 text (b'mead\\xf6w')"),
    ({"id": [b"a", b"\xe9", b"c"], "terrain": [b"meadow"] * 3}, {},
     "feature #1: its 'id' is not UTF-8 text (b'\\xe9')"),
    ({"id": [b"a", b"b", b"c"], "terrain": [b"meadow"] * 3}, {b"eidomap": b'{"format": 1, "name": "Map\xe1"}'},
     "its 'eidomap' metadata is not UTF-8 text (b' 1, \"name\": \"Map\\xe1\"}')"),
    ({"id": [b"a", b"b", b"c"], "terrain": [b"meadow"] * 3}, {b"eidomap": b'{"format": 1, "name": "Map\\udc00"}'},
     "its 'eidomap' metadata is not Unicode text (a lone surrogate, \\udc00, at line 1 column 27)"),
])
def test_text_that_is_not_unicode_in_a_geoparquet_map_is_refused_naming_where(tmp_path, columns, metadata, said):
    """A GeoParquet value is refused naming its feature (it was "cannot be read as GeoParquet" and pyarrow's words);
    its metadata was read with every byte that is not UTF-8 replaced, and a lone surrogate its JSON escapes kept."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    geo = {"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "WKB"}}}
    table = pa.table({**{k: _text_column(v) for k, v in columns.items()},
                      "geometry": [shapely.to_wkb(shapely.box(k, 0, k + 1, 1)) for k in range(3)]})
    path = tmp_path / "latin.parquet"
    pq.write_table(table.replace_schema_metadata({b"geo": json.dumps(geo).encode(), **metadata}), path)
    with pytest.raises(MapError) as caught:
        eidomap.load(path)
    assert str(caught.value) == f"{path}: {said}"


@pytest.mark.parametrize("binary", ["binary", "large_binary"])
def test_a_text_column_stored_as_bytes_is_read_as_utf8_text_or_refused_naming_where(tmp_path, binary):
    """Parquet text written without its UTF-8 mark (an Arrow binary column) is the text it holds: its ids,
    terrains and names were read as Python writes bytes ("b'meadow'"), and bytes that are not UTF-8 passed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    geo = {"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "WKB"}}}
    kind = getattr(pa, binary)()

    def write(ids, names):
        table = pa.table({"id": pa.array(ids, kind), "terrain": pa.array([b"meadow", b"forest"], kind),
                          "name": pa.array(names, kind),
                          "geometry": [shapely.to_wkb(shapely.box(k, 0, k + 1, 1)) for k in range(2)]})
        path = tmp_path / f"{binary}.parquet"
        pq.write_table(table.replace_schema_metadata({b"geo": json.dumps(geo).encode()}), path)
        return path

    m = eidomap.load(write([b"a", "\u00f1".encode()], [b"Prado", None]))
    assert list(m.eido_ids) == ["a", "\u00f1"] and m.terrains == ["meadow", "forest"]
    assert m.display_names["a"] == "Prado"
    for ids, names, said in [([b"a", b"\xe9"], [None, None], "feature #1: its 'id' is not UTF-8 text (b'\\xe9')"),
                             ([b"a", b"b"], [b"Cami\xf1o", None],
                              "feature 'a': its 'name' is not UTF-8 text (b'Cami\\xf1o')")]:
        path = write(ids, names)
        with pytest.raises(MapError) as caught:
            eidomap.load(path)
        assert str(caught.value) == f"{path}: {said}"


def test_a_lone_surrogate_in_a_table_s_metadata_is_refused(tmp_path):
    """The ``eidomap`` metadata is JSON: an escaped lone surrogate there would be the map's name, which no write
    can write (GeoPackage and FlatGeobuf give the metadata as text)."""
    path = tmp_path / "named.gpkg"
    _latin1(path, b'1, "name": "Mapa"', b'1,"name":"\\ud800"')  # (as long: the SQLite file stays whole)
    with pytest.raises(MapError) as caught:
        eidomap.load(path)
    assert str(caught.value).startswith(f"{path}: its 'eidomap' metadata is not Unicode text (a lone surrogate,"
                                        " \\ud800, at line 1 column ")


def test_a_geodataframe_holding_a_lone_surrogate_is_refused_naming_its_feature():
    """A GeoDataFrame's text is Python's: a column of objects may hold a lone surrogate, which no write of the map
    could write (the map was made, then failed where it was written)."""
    import pandas as pd

    squares = [shapely.box(k, 0, k + 1, 1) for k in range(2)]
    ids = gpd.GeoDataFrame({"id": pd.Series(["a", "b\ud800"], dtype=object), "terrain": ["meadow"] * 2},
                           geometry=squares)
    with pytest.raises(MapError, match=r"^GeoDataFrame: feature 'b\\ud800': its 'id' is not Unicode text"):
        eidomap.from_geodataframe(ids)
    terrains = gpd.GeoDataFrame({"id": ["a", "b"], "terrain": pd.Series(["meadow", "me\udc00"], dtype=object)},
                                geometry=squares)
    with pytest.raises(MapError, match=r"^GeoDataFrame: feature 'b': its 'terrain' is not Unicode text"):
        eidomap.from_geodataframe(terrains)


def test_a_row_is_of_the_kind_it_says_else_of_its_layer_whatever_the_layers_case(tmp_path):
    """A row's kind is its kind column's, else (no column, or none there) its layer's: a polygon said to be a road,
    or in a layer named Roads, is a road drawn wrong -- the problem GeoJSON's reader finds -- never an Eido."""
    from eidomap.io.geojson import read_geojson
    from eidomap.io.readers import read_map

    doc = collection([*strip(["meadow", "forest", "meadow"]), feature("road", "Polygon", square(5, 5), "r1"),
                      feature("road", "Polygon", square(7, 7), "r2")])
    src = tmp_path / "board.geojson"
    src.write_text(json.dumps(doc))
    _, problems0 = read_geojson(src)
    assert [p.features for p in problems0] == [("r1",), ("r2",)]
    out = tmp_path / "board.gpkg"
    gpd.GeoDataFrame({"id": ["e0", "e1", "e2", "r1"], "kind": ["eido", "eido", "eido", "road"],
                      "terrain": ["meadow", "forest", "meadow", None]},
                     geometry=[shapely.box(k, 0, k + 1, 1) for k in range(3)] + [shapely.box(5, 5, 6, 6)]).to_file(
        out, layer="eidos", engine="pyogrio")
    gpd.GeoDataFrame({"id": ["r2"]}, geometry=[shapely.box(7, 7, 8, 8)]).to_file(out, layer="Roads", engine="pyogrio")
    md, problems = read_map(out)
    assert [(p.code, p.features) for p in problems] == [(p.code, p.features) for p in problems0]
    assert list(md.record.eidos.ids) == ["e0", "e1", "e2"]


def test_a_table_maps_ids_are_its_id_column_unless_id_field_names_another(tmp_path, capsys):
    """The command line reads a table map's ids from its ``id`` column (the default, as the column is spelt: a
    GeoParquet column ``ID`` is another), from another with ``--id-field``."""
    gpd = pytest.importorskip("geopandas")
    path = tmp_path / "board.parquet"
    gpd.GeoDataFrame({"ID": ["a", "b"], "id": ["x", "y"], "terrain": ["meadow", "forest"]},
                     geometry=[shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1)]).to_parquet(path)
    assert main(["neighbors", str(path), "x"]) == 0 and capsys.readouterr().out.split() == ["y"]
    assert main(["neighbors", str(path), "a", "--id-field", "ID"]) == 0 and capsys.readouterr().out.split() == ["b"]
