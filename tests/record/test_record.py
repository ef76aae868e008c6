"""The map record, the one way in (a registry of readers feeding one builder) and the Map over its source."""

from __future__ import annotations

import dataclasses
import gc
import json
import threading

import numpy as np
import pytest
import shapely
from conftest import DEMO, collection, pousa, road, strip

import eidomap
from eidomap.base.errors import EidomapWarning, RequestError
from eidomap.io import readers
from eidomap.io.builder import MapBuilder
from eidomap.io.fast import geojson as fastjson
from eidomap.io.fast.letgo import FileFeatures
from eidomap.io.geojson import read_geojson
from eidomap.io.jsontext import FeatureList
from eidomap.model import cache
from eidomap.record.record import MapRecord
from eidomap.validate.checks import validate


def _toy(path, data, options):
    """A toy format: one Eido a line, ``id terrain x0 y0 x1 y1`` (a box)."""
    text = (path.read_bytes() if data is None else data).decode()
    features = []
    for line in text.splitlines():
        fid, terrain, *box = line.split()
        x0, y0, x1, y1 = map(float, box)
        ring = [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]
        features.append({"type": "Feature", "id": fid, "properties": {"kind": "eido", "terrain": terrain},
                         "geometry": {"type": "Polygon", "coordinates": [ring]}})
    builder = MapBuilder(path)
    for i, f in enumerate(features):
        builder.add_feature(i, f)
    return builder.finish({"type": "FeatureCollection", "eidomap": {"name": path.stem}}, FeatureList.of(features),
                          options.catalog)


@pytest.fixture
def toy_format(monkeypatch):
    monkeypatch.setattr(readers, "_FORMATS", dict(readers._FORMATS))  # (the registry as it was, afterwards)
    return readers.register("toy", (".toy",), _toy)


def test_a_new_format_is_one_registered_reader(toy_format, tmp_path):
    p = tmp_path / "boxes.toy"
    p.write_text("a meadow 0 0 1 1\nb forest 1 0 2 1\nc sea 2 0 3 1\nd lava 5 5 6 6\n")
    record, problems = readers.read(p)
    assert record.eidos.ids == ("a", "b", "c") and [q.code for q in problems] == ["unknown-terrain"]
    assert [q.code for q in validate(p).errors] == ["unknown-terrain"]
    p.write_text("a meadow 0 0 1 1\nb forest 1 0 2 1\nc sea 2 0 3 1\n")
    m = eidomap.load(p, cache=True)  # (a format read from bytes may have a cache)
    assert m.pairs() == [("a", "b"), ("b", "c")] and m.name == "boxes"
    assert eidomap.load(p, cache=True).pairs() == m.pairs() and "data" not in eidomap.load(p, cache=True).__dict__
    m.save(tmp_path / "boxes.geojson")  # written as GeoJSON, losslessly
    assert eidomap.load(tmp_path / "boxes.geojson").terrains == ["meadow", "forest", "sea"]
    with pytest.raises(ValueError, match=r"\.toy is already the suffix of the 'toy' format"):
        readers.register("other", (".toy",), _toy)


def test_the_record_is_immutable_and_holds_no_file_text():
    record = eidomap.load(DEMO).record
    assert isinstance(record, MapRecord) and isinstance(record.eidos.ids, tuple)
    for a in (record.terrain, record.pousa_road, record.eidos.geoms, record.eidos.index, record.pousa_places.position):
        with pytest.raises(ValueError, match="read-only"):
            a[:1] = a[:1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.terrain = record.terrain
    names = {f.name for f in dataclasses.fields(MapRecord)}
    assert not names & {"doc", "features", "left_out"}  # beside the record, in its document


def test_a_record_built_from_changed_fields_leaves_the_callers_arrays_writeable():
    record = eidomap.load(DEMO).record
    geoms = record.eidos.geoms.copy()
    changed = dataclasses.replace(record, eidos=dataclasses.replace(record.eidos, geoms=geoms))
    geoms[0] = geoms[1]  # (fix keeps working on its own array)
    assert not changed.eidos.geoms.flags.writeable


def test_a_library_load_never_pauses_the_garbage_collector(monkeypatch, tmp_path):
    """The collector is the host program's: a library call leaves it alone unless asked (pause_gc=True)."""
    paused = []
    real = gc.disable
    monkeypatch.setattr(gc, "disable", lambda: paused.append(1) or real())
    m = eidomap.load(DEMO)
    m.network  # noqa: B018
    validate(DEMO)
    assert paused == [] and gc.isenabled()
    asked = eidomap.load(DEMO, pause_gc=True)
    asked.network  # noqa: B018
    assert paused and gc.isenabled()


def test_pauses_of_the_garbage_collector_nest_across_threads():
    from eidomap.io.fast.collector import paused_gc

    inside, release = threading.Event(), threading.Event()

    def other():
        with paused_gc(True):
            inside.set()
            release.wait(10)

    t = threading.Thread(target=other)
    with paused_gc(True):
        t.start()
        inside.wait(10)
    assert not gc.isenabled()  # the other thread's pause still holds
    release.set()
    t.join()
    assert gc.isenabled()


def test_the_cache_is_written_by_load_never_by_a_getter(tmp_path, monkeypatch):
    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(strip(["meadow", "forest", "sea"]))))
    eidomap.load(p, cache=True)
    assert cache.path_for(p).is_file()  # written when asked for, before anything is asked of the map
    cache.path_for(p).unlink()
    m = eidomap.load(p)
    m.network  # noqa: B018
    assert not cache.path_for(p).exists()


def test_a_cache_that_cannot_be_written_is_said_in_a_warning(tmp_path, monkeypatch):
    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(strip(["meadow", "forest"]))))

    def refuse(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(cache, "open_atomic", refuse)
    with pytest.warns(EidomapWarning, match=r"eidomap-cache: cannot be written \(Permission denied\)"):
        m = eidomap.load(p, cache=True)
    assert m.pairs() == [("e0", "e1")]


def test_a_network_from_a_cache_is_offered_its_derived_arrays_not_written_into(tmp_path):
    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(strip(["meadow", "forest", "sea"]))))
    built = eidomap.load(p, cache=True).network
    net = eidomap.load(p, cache=True).network
    assert set(net.offered) == {"pair_codes", "in_order"} and not {"pair_codes", "in_order"} & set(vars(net))
    assert net.pair_codes is net.offered["pair_codes"] and np.array_equal(net.in_order, built.in_order)
    assert net.in_order is net.offered["in_order"]  # checked, then trusted: not sorted again


def test_a_map_finds_its_nodes_by_id_in_public(tmp_path):
    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection([*strip(["meadow", "forest"]), road("r", [[0.5, 0.5], [1.5, 0.5]]),
                                        pousa("r", [0.5, 0.5]), pousa("r", [1.5, 0.5])])))
    for m in (eidomap.load(p, cache=True), eidomap.load(p, cache=True), eidomap.load(p)):  # built, cached, read
        assert (m.find("e1"), m.find("r@2"), m.find("r@2", pousas=True), m.find("x")) == (1, None, 3, None)
        for _ in range(12):  # past the first scans: the index answers the same
            assert (m.find("e1"), m.find("r@1", pousas=True)) == (1, 2)


def _demo_copy(folder):
    for name in (DEMO.name, "demo-catalog.toml"):
        (folder / name).write_bytes((DEMO.parent / name).read_bytes())
    return folder / DEMO.name


@pytest.mark.parametrize("reader", ["msgspec", "json"])
def test_a_map_read_without_its_document_reads_its_features_again_when_asked(tmp_path, reader):
    if reader == "msgspec":
        pytest.importorskip("msgspec")
    path = _demo_copy(tmp_path)
    kept = eidomap.load(path, reader=reader)
    m = eidomap.load(path, reader=reader, document=False)
    features = m.data.document.features
    assert isinstance(features, FileFeatures)
    assert len(features) == len(kept.data.document.features)
    assert m.pairs() == kept.pairs() and m.network.indptr.tolist() == kept.network.indptr.tolist()
    last = len(features) - 1
    assert features.raw(last) == kept.data.document.features.raw(last)
    assert features[0]["properties"] == kept.data.document.features[0]["properties"]


def test_features_let_go_are_not_read_again_from_a_file_changed_since(tmp_path):
    path = _demo_copy(tmp_path)
    m = eidomap.load(path, document=False)
    path.write_bytes(DEMO.read_bytes().replace(b"bouza-vella", b"bouza-nova"))
    with pytest.raises(eidomap.MapError, match="changed since it was read; load it again"):
        m.data.document.features.raw(0)


def test_bytes_given_keep_their_document_as_nothing_could_read_them_again():
    md, _ = readers.read_map(None, data=DEMO.read_bytes(), document=False)
    assert not isinstance(md.document.features, FileFeatures)


@pytest.mark.parametrize("reader", ["msgspec", "json"])
def test_a_reader_that_lets_the_text_go_builds_the_same_record_and_says_so_when_a_feature_is_asked(reader):
    if reader == "msgspec":
        pytest.importorskip("msgspec")
    kept, problems = read_geojson(DEMO)
    let_go, problems_let_go = fastjson.read_geojson(DEMO, reader=reader, keep_text=False)
    assert problems_let_go == problems
    assert let_go.record.eidos.ids == kept.record.eidos.ids and let_go.record.pousas.ids == kept.record.pousas.ids
    assert shapely.equals_exact(let_go.record.eidos.geoms, kept.record.eidos.geoms, 0).all()
    features = let_go.document.features
    assert len(features) == len(kept.document.features)
    with pytest.raises(RequestError, match="let go once read"):
        features.raw(0)
