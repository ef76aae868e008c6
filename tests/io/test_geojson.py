"""The map format: strict reads, bad input, lossless writes, files beside the map."""

from __future__ import annotations

import json

import numpy as np
import pytest
import shapely
from conftest import DEMO, collection, eido, feature, pousa, rewrite_cache, road, square, strip
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eidomap
from eidomap.base.errors import MapError
from eidomap.cli import main
from eidomap.io.geojson import dumps_geojson, read_geojson
from eidomap.io.readers import read_map


def run_cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def good() -> list[dict]:
    return [*strip(["meadow", "forest"]), road("r", [[0.5, 0.5], [1.5, 0.5]]), pousa("r", [0.5, 0.5])]


BAD_INPUTS = {
    "not-json": ("{not json", "is not valid JSON"),
    "not-geojson": ('{"type": "Feature"}', "is not a GeoJSON FeatureCollection"),
    "unknown-kind": (collection([feature("castle", "Point", [0, 0], "c1")]), "feature 'c1': has unknown kind 'castle'"),
    "bad-polygon": (collection([eido("bow", "meadow", [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]])]),
                    "feature 'bow': is not a valid polygon (Self-intersection"),
    "wrong-type": (collection([feature("eido", "Point", [0, 0], "p", terrain="sea")]),
                   "feature 'p': is an eido whose geometry must be a Polygon or MultiPolygon, got 'Point'"),
    "unclosed-ring": (collection([eido("u", "sea", [[[0, 0], [1, 0], [1, 1], [0, 1]]])]),
                      "feature 'u': has a polygon ring that is not closed"),
    "duplicate-id": (collection([eido("a", "sea", square(0, 0)), eido("a", "sea", square(1, 0))]),
                     "feature 'a': has id 'a', already used by feature #0"),
    "unknown-terrain": (collection([eido("a", "lava", square(0, 0))]), "feature 'a': has terrain 'lava'"),
    "nan": ('{"type":"FeatureCollection","features":[{"type":"Feature","id":"n","properties":'
            '{"kind":"eido","terrain":"sea"},"geometry":{"type":"Polygon","coordinates":'
            '[[[0,0],[NaN,0],[1,1],[0,0]]]}}]}', "feature 'n': has a NaN or infinite coordinate"),
    "infinite": ('{"type":"FeatureCollection","features":[{"type":"Feature","id":"n","properties":'
                 '{"kind":"eido","terrain":"sea"},"geometry":{"type":"Polygon","coordinates":'
                 '[[[0,0],[Infinity,0],[1,1],[0,0]]]}}]}', "feature 'n': has a NaN or infinite coordinate"),
    "pousa-no-road": (collection([*strip(["meadow"]), pousa("nowhere", [0.5, 0.5], "p1")]),
                      "feature 'p1': is a pousa on road 'nowhere', which is not a road of this map"),
    "missing-id": (collection([feature("eido", "Polygon", square(0, 0), terrain="sea")]),
                   "feature #0: is an eido without an id"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_and_exit_2(case, tmp_path, capsys):
    doc, expected = BAD_INPUTS[case]
    p = tmp_path / f"{case}.geojson"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    code, out, err = run_cli(["info", p], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(p) in err and expected in err
    with pytest.raises(eidomap.MapError) as info:
        eidomap.load(p)
    assert expected in str(info.value)
    assert err.strip() == f"eidomap: {info.value}"


def test_missing_file_is_one_line(tmp_path, capsys):
    code, _, err = run_cli(["info", tmp_path / "nope.geojson"], capsys)
    assert code == 2 and "cannot be read" in err and err.count("\n") == 1


def test_feature_ids_from_properties_and_numbers(make_map):
    m = make_map([feature("eido", "Polygon", square(0, 0), 7, terrain="sea"),
                  feature("eido", "Polygon", square(1, 0), terrain="sea", id="b")])
    assert m.eido_ids == ["7", "b"]
    assert m.neighbors("7") == ["b"]


def test_round_trip_keeps_unknown_properties_and_foreign_members(tmp_path):
    doc = collection(good(), rules="eido", name="trip", extra={"nested": [1, 2.5, None]})
    doc["crs_note"] = "planar units"
    doc["features"][0]["properties"]["colour"] = {"fill": "#00ff00", "alpha": 0.5}
    doc["features"][0]["story"] = "a foreign member on a feature"
    doc["features"][1]["geometry"]["bbox"] = [1, 0, 2, 1]
    doc["features"][2]["properties"]["name"] = "Camiño"
    src = tmp_path / "in.geojson"
    src.write_text(json.dumps(doc))
    m = eidomap.load(src)
    out = tmp_path / "out.geojson"
    m.save(out)
    assert json.loads(out.read_text()) == doc


def test_round_trip_keeps_invalid_features_when_read_leniently(tmp_path):
    from eidomap.io.geojson import dumps_geojson

    doc = collection([*strip(["sea"]), feature("dragon", "Point", [0, 0], "d", wings=2)])
    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(doc))
    md, problems = read_geojson(p)
    assert [q.code for q in problems] == ["unknown-kind"]
    assert json.loads(dumps_geojson(md)) == doc


def test_multipolygon_eido_is_one_node(make_map):
    islets = feature("eido", "MultiPolygon", [square(0, 0), square(3, 0)], "islets", terrain="rocks")
    m = make_map([islets, eido("left", "sea", square(-1, 0)), eido("right", "sea", square(4, 0)),
                  eido("middle", "sea", [[[1, 0], [3, 0], [3, 1], [1, 1], [1, 0]]])])
    assert m.neighbors("islets") == ["left", "middle", "right"]


def test_lake_in_a_hole_is_adjacent_to_its_shore(make_map):
    shore = [[[0, 0], [3, 0], [3, 3], [0, 3], [0, 0]], [[1, 1], [2, 1], [2, 2], [1, 2], [1, 1]]]
    m = make_map([eido("shore", "meadow", shore), eido("lake", "lake", square(1, 1))])
    assert m.neighbors("lake") == ["shore"]


def test_catalog_named_by_the_map_is_read_beside_it(make_map):
    cat = '[terrains]\nlava = { medium = "land" }\n[species.salamander]\nvmv = 1\ncosts = { lava = 1 }\n'
    m = make_map(strip(["lava", "lava"]), catalog=cat)
    assert "salamander" in m.catalog.species and m.terrains == ["lava", "lava"]


@pytest.mark.parametrize("name", ["../outside.toml", "/etc/passwd", "sub/../../x.toml"])
def test_catalog_outside_the_maps_folder_is_refused(name, tmp_path):
    p = tmp_path / "m.geojson"
    doc = collection(strip(["sea"]))
    doc["eidomap"] = {"format": 1, "catalog": name}
    p.write_text(json.dumps(doc))
    with pytest.raises(eidomap.MapError, match=r"beside the map|outside the map's folder"):
        eidomap.load(p)


def test_catalog_symlink_escaping_the_folder_is_refused(tmp_path):
    outside = tmp_path / "outside.toml"
    outside.write_text("[terrains]\n")
    folder = tmp_path / "maps"
    folder.mkdir()
    (folder / "cat.toml").symlink_to(outside)
    p = folder / "m.geojson"
    doc = collection(strip(["sea"]))
    doc["eidomap"] = {"format": 1, "catalog": "cat.toml"}
    p.write_text(json.dumps(doc))
    with pytest.raises(eidomap.MapError, match="outside the map's folder"):
        eidomap.load(p)


def test_oversized_map_is_refused(tmp_path, monkeypatch):
    import eidomap.io.geojson

    monkeypatch.setattr(eidomap.io.geojson, "MAX_MAP_BYTES", 100)
    p = tmp_path / "big.geojson"
    p.write_text(json.dumps(collection(strip(["sea"] * 5))))
    with pytest.raises(eidomap.MapError, match="larger than the 100-byte limit"):
        eidomap.load(p)


def test_meta_is_checked(tmp_path):
    p = tmp_path / "m.geojson"
    for meta, msg in [({"format": 2}, "map format 2 is not supported"), ({"rules": "chess"}, "'rules' must be"),
                      ({"units_per_mile": -1}, "'units_per_mile' must be a positive number")]:
        doc = collection(strip(["sea"]))
        doc["eidomap"] = meta
        p.write_text(json.dumps(doc))
        with pytest.raises(eidomap.MapError, match=msg):
            eidomap.load(p)


def test_d20_map_with_road_classes_loads(make_map):
    r = road("king", [[0.5, 0.5], [1.5, 0.5]])
    r["properties"]["class"] = "highway"
    m = make_map([*strip(["plains", "hills"]), r])
    assert m.terrains == ["plains", "hills"]


def test_cache_is_used_and_a_tampered_cache_is_ignored(tmp_path):
    from eidomap.model import cache

    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(good())))
    first = eidomap.load(p, cache=True).network
    cpath = cache.path_for(p)
    assert cpath.is_file() and cpath.parent == p.parent
    second = eidomap.load(p, cache=True)
    second.__dict__["adjacency"] = None  # a cache hit never needs the topology
    assert np.array_equal(second.network.dst, first.dst)
    assert second.network.pair_codes is second.network.offered["pair_codes"]  # the cache's, not computed again
    assert np.array_equal(second.network.pair_codes, first.codes[first.pair_start])
    rewrite_cache(cpath, dst=first.dst + 1000)  # out of range: must be rejected
    third = eidomap.load(p, cache=True)
    assert np.array_equal(third.network.dst, first.dst)


def _strip_map(tmp_path, terrains=("meadow", "forest", "meadow")):
    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(strip(list(terrains)))))
    return p


def test_the_cache_is_keyed_by_the_bytes_parsed_not_by_a_file_hashed_before_the_read(tmp_path, monkeypatch):
    """A map replaced while it is read: the cache must hold the key of the version it was built from."""
    import builtins
    import os

    import eidomap.base.files
    from eidomap.model import cache

    p = _strip_map(tmp_path)
    first = p.read_bytes()
    other = first.replace(b'"forest"', b'"marsh"')
    real = builtins.open
    swapped = []

    def replaced_as_it_is_opened(file, *args, **kwargs):
        if not swapped and os.fspath(file) == os.fspath(p):  # an editor saves another version just then
            swapped.append(True)
            (tmp_path / "saving").write_bytes(other)
            os.replace(tmp_path / "saving", p)
        return real(file, *args, **kwargs)

    monkeypatch.setattr(eidomap.base.files, "open", replaced_as_it_is_opened, raising=False)
    read = eidomap.load(p, cache=True)
    assert read.network.n_nodes and read.terrains == ["meadow", "marsh", "meadow"]  # what was read, and cached
    monkeypatch.undo()
    assert swapped and cache.path_for(p).is_file()
    p.write_bytes(first)  # the first version back: the cache (of the other) must not answer for it
    assert eidomap.load(p, cache=True).terrains == ["meadow", "forest", "meadow"]


def test_a_flipped_bit_in_a_cache_is_caught_by_its_checksum_and_the_cache_rebuilt(tmp_path, capsys):
    """One bit of an edge's terrain: every array in range, so only the checksum can tell (issue 28)."""
    from eidomap.base.errors import EidomapWarning
    from eidomap.io import arrays
    from eidomap.model import cache

    p = _strip_map(tmp_path)
    fresh = eidomap.load(p).network
    eidomap.load(p, cache=True).network  # noqa: B018  (writes the cache)
    cpath = cache.path_for(p)
    with open(cpath, "rb") as fh:
        header = arrays.read_header(fh)
    dtype, _, offset = header["arrays"]["terrain"]
    k = next(k for k, t in enumerate(fresh.terrain) if 0 <= t ^ 1 < len(fresh.terrain_names))  # stays in range
    data = bytearray(cpath.read_bytes())
    data[header["data_start"] + offset + k * dtype.itemsize] ^= 1
    cpath.write_bytes(bytes(data))
    with pytest.warns(EidomapWarning, match=r"eidomap-cache: is damaged \(its checksum does not match"):
        loaded = eidomap.load(p, cache=True)
        assert np.array_equal(loaded.network.terrain, fresh.terrain)
    assert np.array_equal(eidomap.load(p, cache=True).network.terrain, fresh.terrain)  # written again, whole
    cpath.write_bytes(bytes(data))
    code, _, err = run_cli(["route", p, "--from", "e0", "--to", "e2", "--species", "human", "--cache"], capsys)
    assert code == 0 and err == f"eidomap: warning: {cpath}: is damaged (its checksum does not match its contents):" \
                                " ignored, and written again\n"


@pytest.mark.parametrize("kind", ["fifo", "directory", "symlink-to-a-device"])
def test_anything_but_a_regular_file_where_the_cache_would_be_is_never_opened_nor_replaced(tmp_path, kind):
    """A FIFO blocked ``route --cache`` for ever (issue 28); a symbolic link to a device was replaced."""
    import os
    import threading
    import warnings

    from eidomap.model import cache

    p = _strip_map(tmp_path)
    fresh = eidomap.load(p).network
    cpath = cache.path_for(p)
    {"fifo": lambda: os.mkfifo(cpath), "directory": cpath.mkdir,
     "symlink-to-a-device": lambda: cpath.symlink_to(os.devnull)}[kind]()
    got = {}

    def load():
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            got["network"] = eidomap.load(p, cache=True).network
        got["said"] = [str(w.message) for w in said]

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # blocked opening the FIFO: give it a writer so that the thread ends
        os.close(os.open(cpath, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(10)
        pytest.fail("the load blocked on what stands where the cache would be")
    assert np.array_equal(got["network"].dst, fresh.dst)
    what = {"fifo": "a FIFO", "directory": "a directory", "symlink-to-a-device": "a symbolic link"}[kind]
    assert got["said"] == [f"{cpath}: is {what}, not a cache file: left alone, and the map read without its cache"]
    kept = {"fifo": lambda: cpath.is_fifo(), "directory": lambda: cpath.is_dir() and not any(cpath.iterdir()),
            "symlink-to-a-device": lambda: cpath.is_symlink() and os.readlink(cpath) == os.devnull}[kind]
    assert kept()


def test_geometries_are_shapely_polygons(make_map):
    m = make_map(strip(["sea", "meadow"]))
    assert all(shapely.get_type_id(g) == 3 for g in m.geometries)


def test_written_maps_get_ordinary_permissions(tmp_path):
    import os

    src = tmp_path / "in.geojson"
    src.write_text(json.dumps(collection(good())))
    out = tmp_path / "out.geojson"
    old = os.umask(0o022)
    try:
        eidomap.load(src).save(out)
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644


#: st.text's own alphabet (its codec="utf-8": every character but the surrogates, category Cs), named without the
#: codec: for a codec, hypothesis tries all 1.1 M characters one by one (~1.3 CPU-s) in each process that finds no
#: table in its .hypothesis folder -- every xdist worker of a fresh clone.
CHARS = st.characters(exclude_categories=["Cs"])
_STORED = st.sampled_from(["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f8"])


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(CHARS, min_size=1, max_size=8),
                       st.tuples(_STORED, st.lists(st.integers(0, 5), max_size=2)),
                       max_size=5),
       st.lists(st.text(CHARS, max_size=6), max_size=5))
def test_array_files_read_back_what_was_written(tmp_path_factory, spec, words):
    from eidomap.io import arrays

    rng = np.random.default_rng(0)
    stored = {name: rng.integers(0, 100, size=shape).astype(dtype) for name, (dtype, shape) in spec.items()}
    stored["words"] = np.array(words, dtype=str)
    p = tmp_path_factory.mktemp("arrays") / "a.bin"
    with open(p, "wb") as fh:
        arrays.write(fh, {"note": "kept"}, stored)
    header, back = arrays.read(p, 1 << 20)
    assert header == {"note": "kept"} and back.keys() == stored.keys()
    for name, a in stored.items():
        assert back[name].dtype == a.dtype.newbyteorder("<") and np.array_equal(back[name], a)


def test_array_files_store_no_python_objects(tmp_path):
    from eidomap.io import arrays

    with open(tmp_path / "a.bin", "wb") as fh, pytest.raises(TypeError, match="cannot be stored"):
        arrays.write(fh, {}, {"o": np.array([{"a": 1}], dtype=object)})


@pytest.mark.parametrize("eidos", [0, 300])
def test_the_cache_takes_every_network_a_build_makes(tmp_path, eidos):
    """A cache refused by its own checks would be rebuilt every time, silently: the demo and a generated map pass."""
    from eidomap.model import cache
    from eidomap.model.generate import write_generated

    p = tmp_path / "m.geojson"
    if eidos:
        write_generated(p, eidos, seed=3, show=False)
    else:
        p.write_bytes(DEMO.read_bytes())
        (tmp_path / "demo-catalog.toml").write_bytes((DEMO.parent / "demo-catalog.toml").read_bytes())
    m = eidomap.load(p, cache=True)
    assert cache._consistent(m.network) and cache._pairs_match_edges(m.network)
    assert "data" not in eidomap.load(p, cache=True).__dict__  # taken: the map file not read


def test_pousas_without_ids_are_named_along_their_road_and_a_taken_name_is_a_problem():
    doc = collection([*strip(["meadow", "forest", "sea"]), road("r", [[0.5, 0.5], [2.5, 0.5]]),
                      pousa("r", [2.5, 0.5]), pousa("r", [0.5, 0.5]), pousa("r", [1.5, 0.5]),
                      feature("fountain", "Point", [1.2, 0.2], "r@3")])
    md, problems = read_geojson(None, data=json.dumps(doc).encode())
    assert md.record.pousas.ids == ("r@3", "r@1", "r@2")  # ranked by their distance along the road
    assert [(p.code, p.features[0], p.message) for p in problems] == [
        ("duplicate-id", "#4", "gets the automatic id 'r@3', already used")]


def test_a_terrain_that_is_not_text_is_a_problem_not_a_crash():
    doc = collection([eido("a", ["x"], square(0, 0)), eido("b", {"a": 1}, square(1, 0)),
                      eido("c", "sea", square(2, 0))])
    for lane in ("json", "msgspec"):
        md, problems = read_map(None, data=json.dumps(doc).encode(), reader=lane)
        assert md.record.eidos.ids == ("c",)
        assert [(p.code, p.message) for p in problems] == [
            ("unknown-terrain", "has terrain ['x'], which is not in the catalog"),
            ("unknown-terrain", "has terrain {'a': 1}, which is not in the catalog")]


def test_a_reader_given_neither_path_nor_bytes_says_so():
    """The path is optional (a map's bytes may be given as data): without both, a sentence, not a TypeError."""
    from eidomap.base.errors import RequestError

    for read in (read_geojson, read_map):
        with pytest.raises(RequestError, match="give the map's path, or its bytes as data"):
            read(None)


@pytest.mark.parametrize(("doc", "said"), [
    ([1, 2], "not a GeoJSON FeatureCollection"),
    ({"type": "FeatureCollection", "features": [7]}, "not a GeoJSON Feature"),
    ({"type": "FeatureCollection", "features": [feature("eido", "Point", [0, 0], "p", terrain="meadow")]},
     "Polygon"),
    ({"type": "FeatureCollection", "features": [feature("eido", "Polygon", [[[0, 0], [1, 0], [1, 1], [0, 0]]],
                                                        "e", terrain="forrest")]}, "did you mean 'forest'"),
    ({"type": "FeatureCollection", "features": [feature(None, "Polygon", [[[0, 0], [1, 0], [1, 1], [0, 0]]],
                                                        "e")]}, "has no 'kind' property"),
])
def test_reader_error_branches_are_one_clear_error(tmp_path, doc, said):
    p = tmp_path / "bad.geojson"
    p.write_text(json.dumps(doc))
    with pytest.raises(MapError) as exc:
        eidomap.load(p)
    assert said in str(exc.value) and str(p) in str(exc.value)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False)
                    | st.text(CHARS, max_size=8), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(CHARS, max_size=5), inner, max_size=3), max_leaves=8)


MEMBERS = st.dictionaries(st.text(CHARS, min_size=1, max_size=6).filter(
    lambda k: k not in ("type", "id", "properties", "geometry", "features", "coordinates", "eidomap", "bbox")),
    JSON, max_size=3)


@st.composite
def maps(draw) -> dict:
    """A strip of Eidos whose ids are integers or text, with random properties and foreign members."""
    n = draw(st.integers(1, 4))
    ids = draw(st.lists(st.integers(0, 99) | st.text("abc-", min_size=1, max_size=4), min_size=n, max_size=n,
                        unique_by=str))
    feats = []
    for k, fid in enumerate(ids):
        f = eido(fid, "meadow", square(k, 0), **draw(st.dictionaries(st.sampled_from(["name", "note", "x-y", "region"]),
                                                                       JSON, max_size=3)))
        f.update(draw(MEMBERS))
        f["geometry"].update(draw(st.dictionaries(st.sampled_from(["crs_note", "extra"]), JSON, max_size=1)))
        feats.append(f)
    doc = collection(feats)
    doc.update(draw(MEMBERS))
    return doc


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=maps())
def test_round_trip_keeps_every_feature_property_id_type_and_foreign_member(doc, tmp_path):
    src, out = tmp_path / "in.geojson", tmp_path / "out.geojson"
    src.write_text(json.dumps(doc))
    eidomap.load(src).save(out)
    assert json.loads(out.read_text()) == doc
    md, _ = read_geojson(src)  # a changed geometry (as fix writes it) keeps all the rest too
    geoms = md.record.eidos.geoms.copy()
    geoms[0] = shapely.box(0, 0, 1, 1.5)
    back = json.loads(dumps_geojson(md, geoms))
    ring = back["features"][0]["geometry"].pop("coordinates")
    assert shapely.Polygon(ring[0]).equals(geoms[0])
    del doc["features"][0]["geometry"]["coordinates"]
    assert back == doc


_SURROGATES = {  # where the escape is (json.dumps writes a lone surrogate as its escape), and what it is
    "an id": lambda d: d["features"][1].update(id="\ud800x"),
    "a terrain": lambda d: d["features"][0]["properties"].update(terrain="meadow\udfff"),
    "a name": lambda d: d["features"][0]["properties"].update(name="\udc80"),
    "a property": lambda d: d["features"][1]["properties"].update(colour="roj\ud83d"),
    "a property's name": lambda d: d["features"][1]["properties"].update({"\ud800": 1}),
    "the map's name": lambda d: d.update(eidomap={"format": 1, "name": "Mapa \ud800"}),
    "a foreign member": lambda d: d.update(note=["\udbff"]),
}


@pytest.mark.parametrize("where", list(_SURROGATES))
@pytest.mark.parametrize("lane", ["json", "msgspec"])
def test_a_lone_surrogate_anywhere_in_a_geojson_map_is_refused_by_both_lanes(tmp_path, capsys, where, lane):
    """An escape of half a surrogate pair (``"\\ud800x"``) is no Unicode text, which no file can hold: both lanes took
    it, and the planner, neighbors, convert and save then failed (UnicodeEncodeError, exit 3).  A surrogate pair is
    a character, and an escaped backslash before ``ud800`` no escape."""
    doc = collection(strip(["meadow", "forest"]))
    _SURROGATES[where](doc)
    path = tmp_path / "map.geojson"
    path.write_text(json.dumps(doc))  # (ASCII: the surrogate as its escape)
    at = path.read_text().index("\\u")
    said = f"{path}: is not Unicode text (a lone surrogate, {path.read_text()[at : at + 6]}, at line 1 column {at + 1})"
    with pytest.raises(MapError) as caught:
        read_map(path, reader=lane)
    assert str(caught.value) == said
    assert run_cli(["neighbors", path, "e0"], capsys) == (2, "", f"eidomap: {said}\n")


def test_surrogate_pairs_and_escaped_backslashes_are_text(tmp_path):
    doc = collection(strip(["meadow", "forest"]))
    doc["features"][0]["properties"]["name"] = "\U0001f600 \\ud800"  # (an emoji, a backslash and 'ud800')
    path = tmp_path / "map.geojson"
    path.write_text(json.dumps(doc))
    assert "\\ud83d\\ude00 \\\\ud800" in path.read_text()
    for lane in ("json", "msgspec"):
        assert read_map(path, reader=lane)[0].record.eido_names == ("\U0001f600 \\ud800", None)
