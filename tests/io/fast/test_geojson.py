"""The fast lane (eidomap.io.fast.geojson: msgspec, eidomap[fast]) against the plain reader (eidomap.io.geojson: the
standard library's json): the same map, problems and errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely
from conftest import DEMO, collection, eido, feature, hang_guard, pousa, road, square, strip
from hypothesis import given, settings
from hypothesis import strategies as st

import eidomap
from eidomap.base import settings as tuning
from eidomap.base.errors import MapError, RequestError
from eidomap.io.fast import geojson as fastjson
from eidomap.io.fast import helper
from eidomap.io.geojson import read_geojson
from eidomap.io.readers import read_map

pytest.importorskip("msgspec")

BIG = "1" + "0" * 400


def _text(doc) -> bytes:
    return json.dumps(doc).encode()


def _with(coords) -> bytes:
    """A map whose second Eido has these coordinates (JSON text, so that any number can be written)."""
    doc = collection([*strip(["meadow"]), eido("x", "forest", "COORDS"), *strip(["sea"], y=3, prefix="s")])
    return _text(doc).replace(b'"COORDS"', coords.encode())


CASES = {
    "plain": _text(collection(strip(["meadow", "forest", "sea"]), name="m", rules="eido")),
    "roads and pousas": _text(collection([*strip(["meadow", "forest"]), road("r", [[0.5, 0.5], [1.5, 0.5]]),
                                          pousa("r", [0.5, 0.5]), pousa("r", [1.5, 0.5], "p2")])),
    "names": _text(collection([eido("a", "meadow", square(0, 0), name="Á Fraga"), eido("b", "sea", square(1, 0)),
                               eido("c", "forest", square(2, 0), name=" ")])),
    "multipolygon": _text(collection([feature("eido", "MultiPolygon", [square(0, 0), square(3, 0)], "m",
                                              terrain="meadow"), *strip(["sea"], y=5)])),
    "holes": _text(collection([eido("h", "meadow", [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]],
                                                    [[1, 1], [1, 2], [2, 2], [2, 1], [1, 1]]])])),
    "id in properties, numeric ids": _text(collection([feature("eido", "Polygon", square(0, 0), None, id="p",
                                                               terrain="sea"), eido(7, "meadow", square(1, 0))])),
    "duplicate and missing ids": _text(collection([*strip(["sea", "meadow"]), eido("e0", "forest", square(5, 5)),
                                                   feature("eido", "Polygon", square(7, 7), terrain="sea")])),
    "terrain not text": _text(collection([eido("a", ["x"], square(0, 0)), eido("b", {"a": 1}, square(1, 0)),
                                          eido("c", 3, square(2, 0)), eido("d", "sea", square(3, 0))])),
    "unknown kind and terrain": _text(collection([*strip(["sea"]), feature("castle", "Polygon", square(2, 2), "c"),
                                                  eido("z", "lava", square(4, 4))])),
    "odd features": _text(collection([5, None, {"type": "Feature"}, {"type": "Feature", "properties": [1]},
                                      {"type": "Feature", "id": "g", "properties": {"kind": "eido"},
                                       "geometry": [1, 2]}, *strip(["sea"])])),
    "3D positions": _with("[[[0,0,1],[1,0,1],[1,1,1],[0,1,1],[0,0,1]]]"),
    "empty ring": _with("[[]]"),
    "empty polygon": _with("[]"),
    "short ring": _with("[[[0,0],[1,0],[0,0]]]"),
    "open ring": _with("[[[0,0],[1,0],[1,1],[0,1]]]"),
    "one-number position": _with("[[[0],[1,0],[1,1],[0,1],[0]]]"),
    "booleans": _with("[[[true,0],[1,0],[1,1],[0,1],[true,0]]]"),
    "text": _with('[[["0",0],[1,0],[1,1],[0,1],["0",0]]]'),
    "null": _with("null"),
    "objects": _with('[[[{},0],[1,0],[1,1],[0,1],[{"a":[1,2]},0]]]'),
    "brackets and commas in text": _with('[[["]],[[,Y_",0],[1,0],[1,1],[0,1],["[",0]]]'),
    "a string of a position": _with('[["[0,0]",[1,0],[1,1],[0,1],[0,0]]]'),
    "too deep": _with("[[[[0,0],[1,0],[1,1],[0,1],[0,0]]]]"),
    "too shallow": _with("[[0,0],[1,0],[1,1],[0,1],[0,0]]"),
    "out of range": _with("[[[1e400,0],[1,0],[1,1],[0,1],[1e400,0]]]"),
    "huge integer": _with(f"[[[{BIG},0],[1,0],[1,1],[0,1],[{BIG},0]]]"),
    "NaN": _with("[[[NaN,0],[1,0],[1,1],[0,1],[NaN,0]]]"),
    "integers and exponents": _with("[[[0,-0],[1E0,0.0],[1,1e+0],[0,1],[0,0]]]"),
    "spaces": _with(" [ [ [0 , 0] ,\n[1,0],[1,1],[0,1],[0,0] ] ] "),
    "self-intersecting": _with("[[[0,0],[1,1],[1,0],[0,1],[0,0]]]"),
    "lone surrogate": _text(collection([eido("a", "sea", square(0, 0), name="\ud800")])),
    "BOM": b"\xef\xbb\xbf" + _text(collection(strip(["sea"]))),
    "not UTF-8": _text(collection(strip(["sea"]))).replace(b'"sea"', b'"s\xffa"'),
    "not JSON": b'{"type": "FeatureCollection", "features": [}',
    "trailing data": _text(collection(strip(["sea"]))) + b" []",
    "two features members": b'{"type": "FeatureCollection", "features": [], "features": []}',
    "two features members, both with features": b'{"type": "FeatureCollection", "features": [{"type": "Feature"}],'
                                                b' "features": [{"type": "Feature"}]}',
    "spaces around the features": b'{"type": "FeatureCollection", "features" : \n [ \t'
                                  b'{"type": "Feature"} \r\n ] }',
    "features not a list": b'{"type": "FeatureCollection", "features": {}}',
    "not a collection": _text({"type": "Feature", "features": []}),
    "no features": _text({"type": "FeatureCollection"}),
    "a list": b"[1, 2]",
    "bad eidomap member": _text({"type": "FeatureCollection", "eidomap": {"format": 9}, "features": []}),
    "nested too deeply": b'{"type": "FeatureCollection", "features": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}",
    "demo map": DEMO.read_bytes(),
}


def _read(data: bytes, fast: bool):
    """The map read by the fast lane (with a helper process for a big one) or by the plain reader; or the error."""
    try:
        return fastjson.read_geojson(None, data=data, helper=True) if fast else read_geojson(None, data=data)
    except MapError as exc:
        return str(exc)


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy scan", "compiled scan"])
@pytest.mark.parametrize("name", list(CASES))
def test_both_readers_give_the_same_map_problems_and_errors(name, compiled, monkeypatch):
    """Each case, with the coordinates read by the numpy scan or (as on a big map) the compiled pass."""
    monkeypatch.setattr(tuning, "COMPILED_BYTES", 0 if compiled else 1 << 62)
    slow, fast = _read(CASES[name], False), _read(CASES[name], True)
    if isinstance(slow, str) or isinstance(fast, str):
        assert fast == slow
        return
    _assert_same(slow, fast)


def _assert_same(slow, fast) -> None:
    (da, pa), (db, pb) = slow, fast
    a, b = da.record, db.record
    assert pb == pa and db.document.left_out == da.document.left_out and db.document.members == da.document.members
    assert b.meta == a.meta
    for layer in ("eidos", "roads", "pousas", "fountains", "streams", "rivers"):
        la, lb = getattr(a, layer), getattr(b, layer)
        assert lb.ids == la.ids and np.array_equal(lb.index, la.index)
        assert shapely.equals_exact(lb.geoms, la.geoms, 0.0).all()
    assert np.array_equal(b.terrain, a.terrain) and b.regions == a.regions and b.eido_names == a.eido_names
    assert np.array_equal(b.pousa_road, a.pousa_road)
    features_a, features_b = da.document.features, db.document.features
    assert len(features_b) == len(features_a)
    assert all(features_b.raw(i) == features_a.raw(i) for i in range(len(features_a)))


HOSTILE = sorted((Path(__file__).parents[2] / "bad_inputs").glob("*.geojson"))


@pytest.mark.parametrize("path", HOSTILE, ids=[p.stem for p in HOSTILE])
def test_both_readers_refuse_the_hostile_maps_alike(path):
    """Every GeoJSON file of the hostile corpus: the same problems or the same one-line error from both lanes."""
    data = path.read_bytes()
    slow, fast = _read(data, False), _read(data, True)
    if isinstance(slow, str) or isinstance(fast, str):
        assert fast == slow
    else:
        assert fast[1] == slow[1]


def test_the_fast_reader_is_used_when_installed_unless_told_otherwise(monkeypatch):
    calls = []
    real = fastjson.read_features
    monkeypatch.setattr(fastjson, "read_features", lambda *a, **k: calls.append(1) or real(*a, **k))
    read_map(DEMO)
    assert calls == [1]
    read_map(DEMO, reader="json")
    read_geojson(DEMO)  # (the plain reader: the standard library's json, always)
    assert calls == [1]
    with pytest.raises(RequestError, match="reader must be 'json' or 'msgspec', got 'ujson'"):
        read_map(DEMO, reader="ujson")


@pytest.mark.parametrize("document", [True, False])
@pytest.mark.parametrize("reader", ["json", "msgspec"])
def test_the_registry_reads_a_map_by_the_lane_asked_and_lets_its_text_go_only_to_read_it_again(
        monkeypatch, tmp_path, reader, document):
    """read_map picks the lane; under document=False, either lane lets the features' text go before the record is
    built, and the document reads it again from the file when asked."""
    from eidomap.io import geojson as plain
    from eidomap.io.fast import letgo

    lanes, let_go = [], []
    for module, lane in ((fastjson, "msgspec"), (plain, "json")):
        real = module.read_features
        monkeypatch.setattr(module, "read_features", lambda *a, real=real, lane=lane, **k: lanes.append(lane)
                            or real(*a, **k))
    monkeypatch.setattr(fastjson, "LetGo", lambda path, n: let_go.append(n) or letgo.LetGo(path, n))
    path = tmp_path / "demo.geojson"
    path.write_bytes(DEMO.read_bytes())
    md, _ = read_map(path, reader=reader, document=document, catalog=DEMO.with_name("demo-catalog.toml"))
    assert lanes == [reader] and let_go == ([] if document else [len(md.document.features)])
    assert isinstance(md.document.features, letgo.FileFeatures) is not document
    assert md.document.features.raw(3) == read_geojson(DEMO)[0].document.features.raw(3)


def test_the_library_reads_no_environment_variable_and_the_command_line_does(monkeypatch):
    """EIDOMAP_READER and EIDOMAP_HELPER set how the command line reads; a library call is told by its keywords."""
    from eidomap.cli import read_options

    calls = []
    real = fastjson.read_features
    monkeypatch.setattr(fastjson, "read_features", lambda *a, **k: calls.append(k["helper"]) or real(*a, **k))
    monkeypatch.setenv("EIDOMAP_READER", "json")
    monkeypatch.setenv("EIDOMAP_HELPER", "1")
    eidomap.load(DEMO)
    assert calls == [False]  # the fast lane, no helper asked: the environment is the command line's
    assert read_options() == {"reader": "json", "helper": True, "pause_gc": True}
    monkeypatch.setenv("EIDOMAP_READER", "msgspec")
    monkeypatch.setenv("EIDOMAP_HELPER", "0")
    assert read_options() == {"reader": None, "helper": False, "pause_gc": True}


def test_many_eidos_in_batches_with_odd_ones_between(monkeypatch):
    monkeypatch.setattr(fastjson, "BATCH", 7)
    feats = strip(["meadow", "forest", "sea"] * 20)
    feats[9]["geometry"]["coordinates"] = [[[0, 0, 5], [1, 0, 5], [1, 1, 5], [0, 0, 5]]]
    feats[20] = road("r", [[0.5, 0.5], [1.5, 0.5]])
    feats[33]["geometry"]["coordinates"] = []
    data = _text(collection(feats))
    _assert_same(_read(data, False), _read(data, True))


_ODD = {
    "plain": lambda k: eido(f"e{k}", "meadow", square(k, 0)),
    "multipolygon": lambda k: feature("eido", "MultiPolygon", [square(k, 0)], f"e{k}", terrain="sea"),
    "3D": lambda k: eido(f"e{k}", "forest", [[[k, 0, 1], [k + 1, 0, 1], [k + 1, 1, 1], [k, 1, 1], [k, 0, 1]]]),
    "empty": lambda k: eido(f"e{k}", "meadow", []),
    "same id": lambda k: eido("twin", "meadow", square(k, 0)),
    "no id": lambda k: feature("eido", "Polygon", square(k, 0), terrain="meadow"),
    "numeric id": lambda k: eido(k, "meadow", square(k, 0)),
    "pousa": lambda k: pousa("r", [0.5 + k, 0.5], f"p{k}"),
    "pousa, no id": lambda k: pousa("r", [0.5 + k, 0.5]),
    "pousa, same id": lambda k: pousa("r", [0.5 + k, 0.5], "twin"),
    "pousa, 3D": lambda k: pousa("r", [0.5 + k, 0.5, 2], f"p{k}"),
    "pousa, numeric road": lambda k: feature("pousa", "Point", [0.5 + k, 0.5], f"p{k}", road=7),
    "pousa, text": lambda k: pousa("r", ["0", 0.5], f"p{k}"),
    "road": lambda k: road(f"r{k}", [[k, 0.5], [k + 1, 0.5]]),
    "not a feature": lambda k: [k],
}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(sorted(_ODD)), min_size=1, max_size=40), st.integers(1, 9), st.booleans())
def test_both_lanes_agree_on_any_mix_of_plain_and_odd_features(kinds, batch, compiled):
    """Plain Eidos and Pousas are filed column-wise between odd ones, in batches of any size, their coordinates
    read by either scan: the standard reader's map and problems, in its order."""
    feats = [road("r", [[0, 0.5], [99, 0.5]]), *(_ODD[k](i) for i, k in enumerate(kinds))]
    data = _text(collection(feats))
    _assert_same(_read(data, False), _read_batched(data, batch, compiled))


def _read_batched(data: bytes, batch: int, compiled: bool = False):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fastjson, "BATCH", batch)
        mp.setattr(tuning, "COMPILED_BYTES", 0 if compiled else 1 << 62)
        return _read(data, True)


def test_the_reader_reads_coordinates_compiled_on_a_big_map_helper_or_not(monkeypatch):
    """From COMPILED_BYTES of map, with a helper process or without: the compiled pass."""
    calls = []
    scan = fastjson.coordtext.scan
    monkeypatch.setattr(fastjson.coordtext, "scan", lambda texts, deep: calls.append(deep) or scan(texts, deep))
    monkeypatch.setattr(helper, "available", lambda: True)
    monkeypatch.setattr(helper, "_command", lambda: [sys.executable, "-c", "pass"])  # a helper that does nothing
    data = CASES["multipolygon"]
    for limit, helped, expected in [(len(data), False, [5]), (len(data) + 1, False, []), (0, True, [5]),
                                    (len(data) + 1, True, [])]:
        monkeypatch.setattr(tuning, "COMPILED_BYTES", limit)
        monkeypatch.setattr(tuning, "HELPER_BYTES", 0 if helped else 1 << 62)
        calls.clear()
        _assert_same(_read(data, False), _read(data, True))
        assert calls == expected


def _busy_map() -> bytes:
    """Batches of plain Eidos, one whose ids clash with an earlier batch's, odd ones, Pousas, names of any JSON."""
    feats = strip(["meadow", "forest", "sea"] * 12)
    feats[5]["properties"]["name"] = {"gl": "Á Fraga", "n": [1, 2.5, None, True]}
    feats[13]["properties"]["region"] = -0.0
    feats[22]["geometry"]["coordinates"] = []
    feats += [road("r", [[0.5, 0.5], [1.5, 0.5]]), pousa("r", [0.5, 0.5]), *strip(["sea"] * 9, y=4, prefix="s"),
              eido("e1", "sea", square(30, 9))]  # the id of feature 1, in the last batch
    feats[-2]["properties"]["region"] = "north"
    return _text(collection(feats))


@pytest.fixture
def helped(monkeypatch):
    """The fast lane with a helper process for any map, in batches of 4; the batches the helper answered."""
    monkeypatch.setattr(fastjson, "BATCH", 4)
    monkeypatch.setattr(tuning, "HELPER_BYTES", 0)
    monkeypatch.setattr(helper, "available", lambda: True)
    answered = []
    take = helper.Pair.take
    monkeypatch.setattr(helper.Pair, "take", lambda pair, k: answered.append(k) or take(pair, k))
    return answered


def test_a_helper_process_works_on_batches_from_the_back_and_the_map_is_the_same(helped, monkeypatch):
    """The helper takes the last batches (two at once, as soon as it may); the reader, held back here until the
    helper has taken them (not slowed by a sleep, which a loaded machine outruns), the first; the last batch's ids
    clash with the first's: the reader sorts that out as without a helper."""
    data = _busy_map()
    answers, pairs = [], []
    unpacked, mine, share = fastjson._unpacked, fastjson._eido_batch, helper.Pair.share
    monkeypatch.setattr(fastjson, "_unpacked", lambda a, n: answers.append(a) or unpacked(a, n))
    monkeypatch.setattr(helper.Pair, "share", lambda pair, n, texts: pairs.append((pair, n)) or share(pair, n, texts))

    def held_back(text, compiled):
        pair, n = pairs[-1]
        with pair.cond:  # (told when an answer comes, or the helper fails; the read without a helper: at once)
            taken = pair.cond.wait_for(lambda: pair.proc is None or pair.back <= n - helper.IN_FLIGHT or pair.failed,
                                       hang_guard(2))
        assert taken, "the helper took no batch"
        return mine(text, compiled)

    monkeypatch.setattr(fastjson, "_eido_batch", held_back)
    _assert_same(_read(data, False), _read(data, True))
    assert helped == list(range(12))
    assert len(answers) >= 2 and all(answers[-2:])  # the last two batches, plain Eidos, from the helper


@pytest.mark.parametrize("program", ["pass", "import sys; sys.stdout.write('nonsense' * 9)",
                                     "import sys, struct; sys.stdout.buffer.write(struct.pack('<qq', 11, 3) + b'abc')",
                                     "import sys, struct; sys.stdout.buffer.write(struct.pack('<qq', 99, 0))",
                                     "import sys, struct; sys.stdout.buffer.write(struct.pack('<qq', 11, -5))"],
                         ids=["exits", "writes nonsense", "answers nonsense", "answers what was not asked",
                              "bad frame"])
def test_a_helper_that_fails_leaves_every_batch_to_the_reader(helped, monkeypatch, program):
    monkeypatch.setattr(helper, "_command", lambda: [sys.executable, "-c", program])
    data = _busy_map()
    _assert_same(_read(data, False), _read(data, True))


def test_a_helper_that_cannot_start_leaves_every_batch_to_the_reader(helped, monkeypatch):
    monkeypatch.setattr(helper, "_command", lambda: ["/nonexistent/python"])
    data = _busy_map()
    _assert_same(_read(data, False), _read(data, True))


def test_the_pipes_to_the_helper_are_widened_where_the_system_lets_them():
    fcntl = pytest.importorskip("fcntl")
    if not hasattr(fcntl, "F_GETPIPE_SZ") or int(Path("/proc/sys/fs/pipe-max-size").read_text()) < helper.PIPE_BYTES:
        pytest.skip("pipes are not widened here")
    with helper.Pair() as pair:
        assert pair.proc is not None
        assert [fcntl.fcntl(p.fileno(), fcntl.F_GETPIPE_SZ) for p in (pair.proc.stdin, pair.proc.stdout)] \
            == [helper.PIPE_BYTES] * 2


def _same_sorted(sent, mine) -> None:
    for column in ("eidos", "pousas", "pousa_ids", "pousa_roads", "pousa_xy"):
        assert np.array_equal(getattr(sent, column), getattr(mine, column))
    for column in ("ids", "terrains", "regions", "names", "multi"):
        assert getattr(sent.batch, column) == getattr(mine.batch, column)
    for array in ("part_off", "ring_off", "num_off", "part_rings", "ring_len", "xy"):
        assert np.array_equal(getattr(sent.batch.parsed, array), getattr(mine.batch.parsed, array))


def test_what_the_helper_sends_is_the_batch_it_worked_on():
    feats = [eido("a", "meadow", square(0, 0), name={"x": [1, None]}, region="north"),
             eido("b", None, square(1, 0), region=7),
             feature("eido", "MultiPolygon", [square(3, 0), square(5, 0)], "m", terrain="sea")]
    text = _text(feats)
    _same_sorted(fastjson._unpacked(fastjson.worked(text), 3), fastjson._eido_batch(text))
    mixed = _text([road("r", [[0, 0], [1, 1]]), *feats, pousa("r", [0.5, 0.5]), pousa("r", [1, 1], "p"),
                   eido("a", "sea", square(7, 0)), pousa("r", ["x", 1], "q")])
    sent = fastjson._unpacked(fastjson.worked(mixed), 8)
    _same_sorted(sent, fastjson._sort_out(fastjson._FEATURES.decode(mixed), {}))
    assert sent.eidos.tolist() == [2, 3] and sent.pousas.tolist() == [4, 5]  # "a" used twice: the reader's
    assert fastjson._unpacked(fastjson.worked(mixed), 5) is None  # rows beyond the batch
    assert fastjson._unpacked(fastjson.worked(text)[:-3], 3) is None
    assert fastjson.worked(_text([5, *feats])) == b""  # not every feature an object: the reader's
    assert fastjson.worked(_text([eido("a", "sea", square(0, 0), name=10**30)])) == b""  # beyond msgpack


def test_a_library_read_starts_no_helper_process_unless_asked(helped, monkeypatch):
    """eidomap.load of a big map (here: any map, HELPER_BYTES 0) starts no process of its own unless asked."""
    started = []
    monkeypatch.setattr(helper.subprocess, "Popen", lambda *a, **k: started.append(a) or (_ for _ in ()).throw(
        OSError("not started")))
    data = _busy_map()
    read_map(None, data=data)
    fastjson.read_geojson(None, data=data)
    assert started == []
    read_map(None, data=data, helper=True)
    assert len(started) == 1  # asked: started (and, failing here, every batch left to the reader)


def test_a_file_with_a_byte_order_mark_is_read_by_msgspec_itself():
    """A UTF-8 byte order mark before the JSON is no reason to hand the file to the standard reader: msgspec
    reads past it (three bytes, no more), and its features are the file's."""
    from eidomap.io.builder import MapBuilder

    data = CASES["BOM"]
    found = fastjson.read_features(None, data, MapBuilder(None))
    assert found is not None and len(found[1]) == len(fastjson.read_features(None, data[3:], MapBuilder(None))[1]) > 0
