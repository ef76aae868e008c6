"""GeoPackage, Shapefile, FlatGeobuf and GeoParquet maps, eidomap convert, and GeoPandas in and out."""

from __future__ import annotations

import json
import shutil

import pytest
import shapely
from conftest import DEMO, collection, eido, feature, pousa, road, square, strip

import eidomap
from eidomap.cli import main
from eidomap.errors import MapError, RequestError
from eidomap.io.tables import write_map, write_table_map
from eidomap.routing import Reach, reach, route
from eidomap.validate import validate

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
    gives it)."""
    from eidomap.io import tables

    md = eidomap.load(DEMO).data
    path = tmp_path / f"demo{suffix}"
    write_table_map(md, path)
    limit = len(md.record.eidos) // 2
    monkeypatch.setattr(tables, "MAX_FEATURES", limit)
    monkeypatch.setattr(tables, "BATCH_ROWS", 3)
    if not count_known:
        import pyogrio

        info = pyogrio.read_info
        monkeypatch.setattr(pyogrio, "read_info", lambda *a, **k: {**info(*a, **k), "features": -1})
    with pytest.raises(MapError, match=rf"rows, more than the {limit:,}-feature limit"):
        eidomap.load(path)


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
