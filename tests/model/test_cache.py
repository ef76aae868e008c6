"""The map's cache: every bad cache ignored and rebuilt, what a cache hit reads, when a map is hashed again."""

from __future__ import annotations

import contextlib
import json
import os

import numpy as np
import pytest
from conftest import collection, rewrite_cache, strip

import eidomap
from eidomap.answers.routing import route
from eidomap.base.errors import EidomapWarning, MapError
from eidomap.cli import main
from eidomap.io import arrays
from eidomap.model import cache


def _cached_map(tmp_path):
    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(strip(["meadow", "forest", "meadow"]))))
    assert eidomap.load(p, cache=True).network.n_nodes  # builds the network and writes the cache
    return p, cache.path_for(p)


def _rewrite(cpath, **changes):
    rewrite_cache(cpath, **changes)


def _edit_header(cpath, edit):
    """Rewrite the cache's header as ``edit(raw header dict)`` leaves it; the arrays' bytes stay."""
    data = cpath.read_bytes()
    at = len(arrays.MAGIC) + 8
    size = int.from_bytes(data[len(arrays.MAGIC): at], "little")
    header = json.loads(data[at: at + size])
    edit(header)
    text = json.dumps(header).encode()
    head = arrays.MAGIC + len(text).to_bytes(8, "little") + text
    head += bytes(-len(head) % arrays.ALIGN)
    _seal(cpath, head + data[at + size + (-(at + size) % arrays.ALIGN): -arrays.CHECKSUM])


def _seal(cpath, body: bytes) -> None:
    """Write ``body`` with its checksum: a cache whose header, not its bytes, is what is tested."""
    cpath.write_bytes(body + arrays.checksum(body).to_bytes(arrays.CHECKSUM, "little"))


def _array_entry(name, field, value):
    def edit(header):
        entry = next(e for e in header["arrays"] if e[0] == name)
        entry[field] = value
    return edit


def _surrogate(cpath):
    """Node ids holding a lone surrogate: no Unicode text."""
    _, found = arrays.read(cpath, 1 << 30)
    ids = found["node_ids"].copy()
    ids.view("<u4")[0] = 0xD800
    _rewrite(cpath, node_ids=ids)


@pytest.mark.parametrize("spoil", [
    lambda p, c: c.write_bytes(c.read_bytes()[: len(c.read_bytes()) // 2]),  # truncated
    lambda p, c: c.write_bytes(b"not a cache at all"),  # garbage
    lambda p, c: _rewrite(c, digest="0" * 64),  # another map's
    lambda p, c: _rewrite(c, size=1),  # another size
    lambda p, c: _rewrite(c, version=2),  # another version of the cache
    lambda p, c: _rewrite(c, asked=0.5),  # asked for another tolerance
    lambda p, c: _rewrite(c, tolerance=float("inf")),  # not a tolerance
    lambda p, c: _rewrite(c, tolerance=True),  # not a number
    lambda p, c: _rewrite(c, indptr=np.array([0, 5])),  # inconsistent arrays
    lambda p, c: _rewrite(c, dst=np.zeros(1, np.float64)),  # an index array of floats
    lambda p, c: _rewrite(c, kind=np.full(1, 99, np.uint8)),  # no such edge kind
    lambda p, c: _rewrite(c, node_ids=np.arange(4)),  # ids that are not text
    lambda p, c: _rewrite(c, node_layer=np.array([2, 0, 0, 1], np.uint8)),  # layers out of order
    lambda p, c: _rewrite(c, terrain_names=np.array(["sea", "meadow"])),  # another catalog's terrains
    lambda p, c: _rewrite(c, meta=[1, 2]),  # an 'eidomap' member that is no object
    lambda p, c: _rewrite(c, meta={"rules": "chess"}),  # one the reader would refuse
    lambda p, c: _rewrite(c, meta="{"),  # text, not an object
    lambda p, c: _seal(c, c.read_bytes()[:-arrays.CHECKSUM].replace(b'"version":', b'"version"!', 1)),  # not JSON
    lambda p, c: _edit_header(c, _array_entry("kind", 1, "|O")),  # an array of Python objects
    lambda p, c: _edit_header(c, _array_entry("dst", 2, [1 << 30])),  # an array longer than the file
    lambda p, c: _edit_header(c, _array_entry("dst", 3, 3)),  # an array at a misaligned offset
    lambda p, c: _edit_header(c, lambda h: h["arrays"].append(h["arrays"][0])),  # an array twice
    lambda p, c: _surrogate(c),  # ids that are no Unicode text
    lambda p, c: _rewrite(c, names_at=np.array([7]), names=np.array(["x"])),  # a name of no Eido
    lambda p, c: _rewrite(c, names=np.array(["x", "y"])),  # names without their Eidos
    lambda p, c: _rewrite(c, pair_dst=lambda a: np.roll(a, 1)),  # pairs that are no edges (found by fuzzing)
    lambda p, c: _rewrite(c, pair_start=lambda a: a[::-1].copy()),  # pairs out of order
    lambda p, c: _rewrite(c, pair_codes=lambda a: np.full_like(a, 255)),  # codes out of range: recomputed
    lambda p, c: _rewrite(c, pair_codes=lambda a: a[:-1]),  # a code short: recomputed
    lambda p, c: _rewrite(c, in_order=np.zeros(3, np.int64)),  # a wrong edge order: recomputed, not trusted
    lambda p, c: p.write_text(p.read_text().replace('"forest"', '"marsh"')),  # the map changed under it
], ids=["truncated", "garbage", "digest", "size", "version", "asked", "tolerance", "tolerance-bool", "arrays",
        "float-index", "kind", "ids", "layers", "terrains", "meta-list", "meta-rules", "meta-text", "header-json",
        "object-dtype", "past-the-end", "misaligned", "twice", "surrogate", "names-at", "names", "pairs-no-edges",
        "pairs-order", "codes", "codes-short",
        "order",
        "map-changed"])
def test_every_bad_cache_is_ignored_and_rebuilt(tmp_path, spoil, request):
    """A damaged cache (its checksum) is said in a warning; the others are ignored quietly."""
    p, cpath = _cached_map(tmp_path)
    spoil(p, cpath)
    fresh = eidomap.load(p)
    damaged = request.node.callspec.id == "truncated"
    with pytest.warns(EidomapWarning, match="is damaged") if damaged else contextlib.nullcontext():
        cached = eidomap.load(p, cache=True)
    # the file was read: the cache refused (a derived array that is wrong is computed again instead)
    assert ("data" in cached.__dict__) == (request.node.callspec.id not in ("order", "codes", "codes-short"))
    assert np.array_equal(cached.network.dst, fresh.network.dst)
    assert np.array_equal(cached.network.in_order, fresh.network.in_order)
    assert np.array_equal(cached.network.pair_codes, fresh.network.pair_codes)
    assert route(cached, "e0", "e2", "human").total_cost == route(fresh, "e0", "e2", "human").total_cost
    assert cached.tolerance == fresh.tolerance and cached.terrains == fresh.terrains


def test_a_cache_hit_reads_no_geojson_until_the_geometry_is_asked_for(tmp_path, monkeypatch):
    from eidomap.model import cache
    from eidomap.model import map as model

    p, _ = _cached_map(tmp_path)
    fresh = eidomap.load(p)
    calls = []
    real = cache.read_map
    monkeypatch.setattr(model, "read_map", lambda *a, **k: calls.append("load read the map"))
    monkeypatch.setattr(cache, "read_map", lambda *a, **k: calls.append("read") or real(*a, **k))
    cached = eidomap.load(p, cache=True)
    answer = route(cached, "e0", "e2", "human", rolls=[3, 3, 3]).as_dict()
    assert answer == route(fresh, "e0", "e2", "human", rolls=[3, 3, 3]).as_dict()
    assert (cached.eido_ids, cached.pousa_ids, cached.terrains, cached.display_names, cached.name, cached.rules) == (
        fresh.eido_ids, fresh.pousa_ids, fresh.terrains, fresh.display_names, fresh.name, fresh.rules)
    assert calls == [] and "data" not in cached.__dict__
    assert cached.pairs() == fresh.pairs()  # the geometry, read now, checked against the key
    assert calls == ["read"]


def test_a_map_changed_after_its_cache_was_read_is_refused_when_its_geometry_is_needed(tmp_path):
    p, _ = _cached_map(tmp_path)
    cached = eidomap.load(p, cache=True)
    p.write_text(p.read_text().replace('"forest"', '"marsh"'))
    with pytest.raises(MapError, match="changed since its cache was read"):
        cached.geometries  # noqa: B018


def test_the_route_command_with_a_cache_prints_what_it_prints_without(tmp_path, capsys):
    p, _ = _cached_map(tmp_path)
    argv = ["route", str(p), "--from", "e0", "--to", "e2", "--species", "human", "--json"]
    assert main(argv) == 0
    plain = capsys.readouterr().out
    assert main([*argv, "--cache"]) == 0
    assert capsys.readouterr().out == plain


def test_a_settled_map_is_not_hashed_again_while_its_stamp_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "SETTLE_NS", -1)  # the map counts as settled at once
    p, cpath = _cached_map(tmp_path)
    cpath.unlink()
    eidomap.load(p, cache=True).network  # noqa: B018  (hashes the map and records its stamp)
    hashed = []
    real = cache._sha256
    monkeypatch.setattr(cache, "_sha256", lambda data: hashed.append(data) or real(data))
    warm = eidomap.load(p, cache=True)
    assert hashed == [] and "data" not in warm.__dict__
    p.write_text(p.read_text().replace('"forest"', '"meadow"'))  # the same size, another map
    again = eidomap.load(p, cache=True)
    assert hashed == [p.read_bytes()] and "data" in again.__dict__
    assert again.terrains == ["meadow", "meadow", "meadow"]


def test_a_map_changed_just_before_it_was_hashed_gets_no_stamp(tmp_path):
    _, cpath = _cached_map(tmp_path)  # written and cached within the second
    with open(cpath, "rb") as fh:
        assert arrays.read_header(fh)["stamp"] is None


def test_a_map_from_its_cache_finds_ids_by_scanning_then_by_index(tmp_path):
    from eidomap.base.errors import RequestError
    from eidomap.base.settings import SCANS

    p, _ = _cached_map(tmp_path)
    fresh, cached = eidomap.load(p), eidomap.load(p, cache=True)
    names = ["e0", "e1", "e2"] * SCANS
    assert [cached.node_index(e) for e in names] == [fresh.node_index(e) for e in names]
    assert [cached.index(e) for e in names] == [fresh.index(e) for e in names]
    for m in (eidomap.load(p, cache=True), cached):  # scanning, indexed
        with pytest.raises(RequestError) as err:
            m.node_index("e9")
        with pytest.raises(RequestError) as fresh_err:
            fresh.node_index("e9")
        assert str(err.value) == str(fresh_err.value)


def test_a_cache_of_a_map_read_at_tolerance_zero_is_read_again(tmp_path, monkeypatch):
    """0 is a tolerance (geometry.check_tolerance): its cache is the map's, never refused as out of range."""
    from eidomap.model import map as model

    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(strip(["meadow", "forest", "meadow"]))))
    fresh = eidomap.load(p, tolerance=0, cache=True)
    assert fresh.network.n_nodes and fresh.tolerance == 0  # (the cache written)
    monkeypatch.setattr(model, "read_map", lambda *a, **k: pytest.fail("the map was read: its cache refused"))
    cached = eidomap.load(p, tolerance=0, cache=True)
    assert cached.tolerance == 0 and cached.eido_ids == fresh.eido_ids and cached.network.n_nodes


@pytest.mark.parametrize("flags", [(), ("O_CLOEXEC",), ("O_NONBLOCK",), ("O_CLOEXEC", "O_NONBLOCK")])
def test_an_array_file_opens_where_the_platform_lacks_the_flags_it_is_opened_with(tmp_path, monkeypatch, flags):
    """The cache's array files open without blocking and closed on exec where the platform can (O_NONBLOCK and
    O_CLOEXEC are POSIX's; Windows has neither): where ``os`` lacks them, the file opens without them."""
    path = tmp_path / "a.bin"
    path.write_bytes(b"eidomap")
    for flag in flags:
        monkeypatch.delattr(os, flag, raising=False)
    with arrays.open_regular(path) as fh:
        assert fh.read() == b"eidomap"
    with pytest.raises(ValueError, match=r"^not a regular file$"):
        arrays.open_regular(tmp_path)
