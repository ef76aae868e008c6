"""The hostile-input corpus (tests/bad_inputs/cases.toml): every case one clean error, or a clean acceptance,
each within a memory bound.

A file case is read through the Python API (the expected error class, the
phrase, and the file named in the message) and through the command line (exit
2, one line on stderr, no traceback: the same message).  An argument set runs
the command line twice: as given (its exit code and its one line) and with
``--debug`` (the traceback ends with the expected error class).

**Memory guard.**  Every case runs in a worker process -- one for the whole
corpus, started once, as a process per case would pay a second of imports
each -- that lowers its address-space limit (``RLIMIT_AS``) to what it has
mapped at rest plus :data:`GUARD_BYTES` before each case and lifts it after.
A case that needs more fails (a ``MemoryError``, or the worker dies and a new
one takes the next case), as does one running past :data:`CASE_SECONDS`.
Output is captured at the file descriptors, so what a C library prints counts
too, and every warning is shown: a warning line breaks the one-line promise.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import functools
import importlib
import json
import os
import resource
import select
import shutil
import subprocess
import sys
import tempfile
import tomllib
import traceback
import warnings
from pathlib import Path
from unittest import mock

import pyarrow.parquet as pq
import pytest
from conftest import DEMO, PROFILE, ROOT, hang_guard

import eidomap
import eidomap.base.files
import eidomap.io.svg
from eidomap.answers import grid as d20
from eidomap.answers.analysis import load_batch
from eidomap.base import errors
from eidomap.cli import main
from eidomap.io.tiled import import_tiled, import_tiled_grid
from eidomap.record.catalog import load_catalog

HERE = Path(__file__).resolve().parent / "bad_inputs"
CASES = tomllib.loads((HERE / "cases.toml").read_text())["case"]
BY_NAME = {c["name"]: c for c in CASES}
#: Address space a case may map beyond what the worker holds at rest.
GUARD_BYTES = 1 << 30
#: Longest a case may run: a hang guard (the slowest case takes a few seconds alone).
CASE_SECONDS = hang_guard(5)
#: Each reader: its Python call (path, scratch folder) and its command line.
READERS = {
    "map": (lambda p, tmp: eidomap.load(p), lambda p, tmp: ["info", p]),
    "catalog": (lambda p, tmp: load_catalog(p), lambda p, tmp: ["species", "--catalog", p]),
    "tiled": (lambda p, tmp: import_tiled(p, tmp / "out.geojson"),
              lambda p, tmp: ["import-tiled", p, "-o", tmp / "o.geojson"]),
    "tiled-grid": (lambda p, tmp: import_tiled_grid(p, tmp / "out.txt"),
                   lambda p, tmp: ["import-tiled", p, "--grid", "-o", tmp / "o.txt"]),
    "svg": (lambda p, tmp: eidomap.io.svg.import_svg(p, tmp / "out.geojson"),
            lambda p, tmp: ["import-svg", p, "-o", tmp / "o.geojson"]),
    "grid": (lambda p, tmp: d20.load_grid(p), lambda p, tmp: ["d20", "reach", p, "--at", "0,0", "--speed", "30"]),
    "batch": (lambda p, tmp: load_batch(p).table, lambda p, tmp: ["report", DEMO, "--batch", p, "-o", tmp / "r.html"]),
}


def _refuse_open(error: int):
    """An ``open`` that fails on the corpus file as if it vanished or lost its permissions after ``stat``."""
    real = builtins.open

    def fake(file, *args, **kwargs):
        if Path(str(file)).parent == HERE:
            raise OSError(error, os.strerror(error), str(file))
        return real(file, *args, **kwargs)

    return fake


def _vertices_past_the_limit(p: Path) -> None:
    """An Eido of 200,001 positions, twice the 100,000 one may have (written as text: json.dumps is slow over
    lists; a million positions, as first probed, took five times as long to refuse in the same way)."""
    ring = ",".join(f"[{i},0]" for i in range(199_999)) + ",[500,10],[0,0]"
    head = ('{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "big", "properties":'
            ' {"kind": "eido", "terrain": "meadow"}, "geometry": {"type": "Polygon", "coordinates": [[')
    p.write_text(head + ring + "]]}}]}")


def _record(edit):
    """A spoiler that rewrites the folder's ``_batch.json`` as ``edit(record)`` leaves it."""

    def spoil(folder: Path) -> None:
        record = json.loads((folder / "_batch.json").read_text())
        edit(record)
        (folder / "_batch.json").write_text(json.dumps(record))

    return spoil


def _without_proof(path: Path) -> None:
    t = pq.read_table(path)
    pq.write_table(t.replace_schema_metadata({k: v for k, v in t.schema.metadata.items() if k != b"eidomap_part"}),
                   path)


#: How a real batch folder (``make = "batch:NAME"``; ``batch-csv:`` for CSV parts) is spoilt, by name.
BATCH_SPOILS = {
    "part-missing": lambda f: (f / "part-000001.parquet").unlink(),
    "part-garbage": lambda f: (f / "part-000000.parquet").write_bytes(b"PAR1 this is not a parquet file PAR1"),
    "part-copied-over-another": lambda f: shutil.copy(f / "part-000000.parquet", f / "part-000001.parquet"),
    "part-without-proof": lambda f: _without_proof(f / "part-000000.parquet"),
    "turns-changed": _record(lambda r: r["query"].update(turns=3)),
    "dice-changed": _record(lambda r: r["query"].update(dice="2d4")),
    "turns-a-billion": _record(lambda r: r["query"].update(turns=10**9)),
    "actors-a-number": _record(lambda r: r["query"].update(actors=5)),
    "dice-a-number": _record(lambda r: r["query"].update(dice=6)),
    "maps-a-string": _record(lambda r: r.update(maps="demo.geojson")),
    "map-a-list": _record(lambda r: r.update(maps=[["demo.geojson"]])),
    "map-sha256-a-number": _record(lambda r: r["maps"][0].update(sha256=1)),
    "record-200000-deep": lambda f: (f / "_batch.json").write_text("[" * 200_000 + "]" * 200_000),
    "csv-part-cut-short": lambda f: (f / "part-000001.csv").write_text(
        "".join((f / "part-000001.csv").read_text().splitlines(keepends=True)[:2])),
    "csv-id-changed": lambda f: (f / "part-000000.csv").write_text(
        (f / "part-000000.csv").read_text().replace('"porto-norte"', '"porto-nortf"')),
}


@functools.cache
def _scratch() -> tempfile.TemporaryDirectory:
    """The worker's folder for what several cases share (the demo batches), removed when it ends."""
    return tempfile.TemporaryDirectory(prefix="eidomap-bad-inputs-")


@functools.cache
def _demo_batch(fmt: str) -> Path:
    """A real batch of the demo map (``parquet`` or ``csv``): a human, from two places to every Eido, one chunk
    each; made once by the worker (in a folder removed when it ends)."""
    from eidomap.answers.batch import Query
    from eidomap.answers.batch.job import prepare, run_chunk
    from eidomap.answers.batch.store import open_folder

    folder = Path(_scratch().name) / fmt
    job, chunks, record = prepare(Query((DEMO,), actors=("human",), starts=("porto-norte", "porto-sur"), turns=2,
                                        chunk=1, format=fmt), folder)
    with open_folder(folder, record):
        for c in chunks:
            run_chunk(job, c)
    return folder


def _squares(p: Path, n: int = 20_000, width: int = 200) -> None:
    """A map of ``n`` unit squares of meadow in rows of ``width``, ids ``e0``, ``e1``..."""
    feats = ",".join(
        f'{{"type":"Feature","id":"e{k}","properties":{{"kind":"eido","terrain":"meadow"}},"geometry":'
        f'{{"type":"Polygon","coordinates":[[[{x},{y}],[{x + 1},{y}],[{x + 1},{y + 1}],[{x},{y + 1}],[{x},{y}]]]}}}}'
        for k, (y, x) in enumerate(divmod(k, width) for k in range(n)))
    p.write_text('{"type":"FeatureCollection","features":[' + feats + "]}")


def _svg(p: Path, body: str) -> None:
    p.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">{body}</svg>')


def _parquet(p: Path, columns: dict, metadata: dict | None = None) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(columns).replace_schema_metadata(metadata), p)


def _null_geometries(p: Path) -> None:
    """20,000,000 rows without a geometry: 46 KB."""
    import pyarrow as pa

    _parquet(p, {"geometry": pa.nulls(20_000_000, pa.binary())})


def _truncated_fgb(p: Path) -> None:
    """The demo as FlatGeobuf, cut in the middle of its first feature (found from the file's own layout: its
    header's length, then each feature's; no spatial index), whatever the demo's bytes."""
    from eidomap.io.tables import write_table_map

    write_table_map(eidomap.load(DEMO).data, p)
    data = p.read_bytes()
    first = 12 + int.from_bytes(data[8:12], "little")  # magic (8 bytes), the header's length, the header
    p.write_bytes(data[: first + 4 + int.from_bytes(data[first:first + 4], "little") // 2])


def _polygon_m_gpkg(p: Path) -> None:
    """Two meadows side by side drawn as POLYGON M (a measure at each vertex)."""
    import numpy as np
    import pyogrio
    import shapely

    rings = [f"POLYGON M (({x} 0 1, {x + 10} 0 2, {x + 10} 10 3, {x} 10 4, {x} 0 5))" for x in (0, 10)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (no CRS)
        pyogrio.raw.write(p, shapely.to_wkb(shapely.from_wkt(rings), flavor="iso"),
                          [np.array(["a", "b"], dtype=object), np.array(["meadow"] * 2, dtype=object)],
                          ["id", "terrain"], layer="eidos", driver="GPKG", geometry_type="Unknown")


#: Files too big to keep, made by the test: ``make = NAME`` in the case.
MAKERS = {
    "coordinate-100000-digits": lambda p: p.write_text(
        '{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "a", "properties": {"kind": "eido",'
        ' "terrain": "meadow"}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], ['
        + "1" * 100_000 + ", 0], [0, 0]]]}}]}"),
    "gpkg-junk-after-its-header": lambda p: p.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 8),
    "fgb-truncated": _truncated_fgb,
    "gpkg-polygon-m": _polygon_m_gpkg,
    "parquet-20000000-null-geometries": _null_geometries,
    "parquet-geo-100000-deep": lambda p: _parquet(p, {"id": ["a"], "geometry": [b""]},
                                                  {"geo": "[" * 100_000 + "]" * 100_000}),
    "parquet-integer-geometry": lambda p: _parquet(p, {"id": ["a"], "geometry": [1]},
                                                   {"geo": '{"primary_column": "geometry"}'}),
    "eido-200001-positions": _vertices_past_the_limit,
    "directory": Path.mkdir,
    "20000-eidos": _squares,
    "8000-eidos": lambda p: _squares(p, 8_000, 100),
    # a path of 10,000 curves reaching far out, each drawn with up to 1,000 points
    "svg-10000-curves": lambda p: _svg(p, '<path id="a" data-terrain="meadow" d="M0 0 '
                                          + " C1e6 1e6 -1e6 1e6 0 0" * 10_000 + ' Z"/>'),
    "svg-1000000-vertices": lambda p: _svg(p, '<path id="a" data-terrain="meadow" d="M0 0 '
                                              + " ".join(f"L{k % 97} {k % 89}" for k in range(1_000_000)) + ' Z"/>'),
    # an Eido, and 10,000 roads of one id (each made unique)
    "svg-10000-shapes-one-id": lambda p: _svg(p, '<rect id="x" data-terrain="meadow" width="10" height="10"/>'
                                                 '<g id="roads">' + '<path id="x" d="M0 0 L5 5"/>' * 10_000 + "</g>"),
    # an Eido, and 10,000 fountains without ids or names
    "tiled-10000-objects-without-ids": lambda p: p.write_text(json.dumps(
        {"type": "map", "height": 10, "tileheight": 10, "layers": [{"type": "objectgroup", "name": "E", "objects": [
            {"id": 1, "name": "a", "type": "meadow", "x": 0, "y": 0, "width": 10, "height": 10},
            *({"type": "fountain", "point": True, "x": 5, "y": 5} for _ in range(10_000))]}]})),
}


# -- issue 45 (3, 4, 5, 8, 9, 14): table maps holding text that is not Unicode, GeoArrow positions by name and with
# nulls, a pile of identical Eidos, a GeoPackage's row count
def _geoarrow_square(p: Path, points) -> None:
    """A GeoParquet map of GeoArrow polygons: one meadow 'a', its ring the 5 ``points`` (an Arrow array)."""
    import pyarrow as pa

    ring = pa.ListArray.from_arrays(pa.array([0, 5], pa.int32()), points)
    geo = {"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "polygon"}}}
    polygons = pa.ListArray.from_arrays(pa.array([0, 1], pa.int32()), ring)
    _parquet(p, {"id": ["a"], "terrain": ["meadow"], "geometry": polygons}, {"geo": json.dumps(geo)})


def _struct(**fields) -> object:
    import pyarrow as pa

    return pa.StructArray.from_arrays([pa.array(v) for v in fields.values()], list(fields))


def _small_table(p: Path, meta: dict | None = None, **props) -> None:
    """Three meadows in a row as a table map (by ``p``'s suffix), the first with ``props`` among its properties,
    its ``eidomap`` member ``meta``."""
    from eidomap.io.readers import read_map
    from eidomap.io.tables import write_table_map

    feats = [{"type": "Feature", "id": f"e{k}", "properties": {"kind": "eido", "terrain": "meadow", **(
        props if k == 0 else {})}, "geometry": {"type": "Polygon", "coordinates": [[[k, 0], [k + 1, 0], [k + 1, 1],
                                                                                   [k, 1], [k, 0]]]}} for k in range(3)]
    doc = {"type": "FeatureCollection", **({"eidomap": meta} if meta else {}), "features": feats}
    write_table_map(read_map(None, data=json.dumps(doc).encode())[0], p)


def _cached_count(p: Path, count: int = 9_999_999_999) -> None:
    """:func:`_small_table`, its cached row count (a GeoPackage's gpkg_ogr_contents, a FlatGeobuf header's) made
    ``count``: pyogrio reads 9,999,999,999 as 1,410,065,407."""
    import sqlite3
    import struct

    _small_table(p)
    if p.suffix == ".gpkg":
        with contextlib.closing(sqlite3.connect(p)) as db, db:
            db.execute("UPDATE gpkg_ogr_contents SET feature_count = ?", (count,))
        return
    data = bytearray(p.read_bytes())
    at = data.index(struct.pack("<Q", 3), 12)  # (the header's features_count: the first such bytes)
    p.write_bytes(bytes(data[:at]) + struct.pack("<Q", count) + bytes(data[at + 8 :]))


def _latin1_table(old: bytes, new: bytes):
    """A maker: :func:`_small_table` (its first meadow named "Camino" and coloured "rojo", the map named "Mapa"),
    the bytes ``old`` then put as ``new`` (as long: the file stays whole) -- in a Shapefile's ``.dbf``."""
    def make(p: Path) -> None:
        shp = p.suffix == ".shp"
        _small_table(p, None if shp else {"format": 1, "name": "Mapa"}, name="Camino", colour="rojo")
        text = p.with_suffix(".dbf") if shp else p
        text.write_bytes(text.read_bytes().replace(old, new))

    return make


def _latin1_parquet(p: Path, terrain: bytes = b"meadow", meta: bytes = b'{"format": 1}') -> None:
    """Three meadows as GeoParquet, the second one's terrain and the map's metadata the bytes given."""
    import numpy as np
    import pyarrow as pa
    import shapely

    texts = [b"meadow", terrain, b"meadow"]
    offsets = np.r_[0, np.cumsum([len(t) for t in texts])].astype(np.int32)
    column = pa.Array.from_buffers(pa.string(), 3, [None, pa.py_buffer(offsets.tobytes()),
                                                    pa.py_buffer(b"".join(texts))])
    geo = {"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "WKB"}}}
    _parquet(p, {"id": ["e0", "e1", "e2"], "terrain": column,
                 "geometry": [shapely.to_wkb(shapely.box(k, 0, k + 1, 1)) for k in range(3)]},
             {b"geo": json.dumps(geo).encode(), b"eidomap": meta})


def _identical_squares(p: Path, n: int) -> None:
    """``n`` unit squares of meadow, one on top of another, as GeoParquet."""
    import pyarrow as pa
    import shapely

    geo = {"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "WKB"}}}
    _parquet(p, {"id": [f"e{k}" for k in range(n)], "terrain": pa.array(["meadow"] * n).dictionary_encode(),
                 "geometry": pa.array([shapely.to_wkb(shapely.box(0, 0, 1, 1))] * n, pa.binary())},
             {"geo": json.dumps(geo)})


_RING_X, _RING_Y = [0, 2, 2, 0, 0], [0, 0, 1, 1, 0]
MAKERS.update({
    # (for a command line: the map is squares.parquet beside {made}, as its suffix names its format)
    "parquet-20001-identical-squares": lambda p: _identical_squares(p.with_name("squares.parquet"), 20_001),
    "gpkg-terrain-latin-1": _latin1_table(b"meadow", b"mead\xf6w"),
    "gpkg-layer-name-latin-1": _latin1_table(b"eidos", b"eid\xf3s"),
    "gpkg-column-name-latin-1": _latin1_table(b"colour", b"col\xf6ur"),
    "gpkg-metadata-latin-1": _latin1_table(b"Mapa", b"Map\xe1"),
    "gpkg-metadata-lone-surrogate": _latin1_table(b'1, "name": "Mapa"', b'1,"name":"\\ud800"'),
    "fgb-id-latin-1": _latin1_table(b"e1", b"\xe91"),
    "fgb-name-latin-1": _latin1_table(b"Camino", b"Cami\xf1o"),
    "fgb-layer-name-latin-1": _latin1_table(b"eidos", b"eid\xf3s"),
    "shp-value-latin-1": _latin1_table(b"rojo", b"roj\xf3"),
    "parquet-terrain-latin-1": lambda p: _latin1_parquet(p, terrain=b"mead\xf6w"),
    "parquet-metadata-latin-1": lambda p: _latin1_parquet(p, meta=b'{"format": 1, "name": "Map\xe1"}'),
    "gpkg-cached-count-9999999999": _cached_count,
    "fgb-header-count-9999999999": _cached_count,
    # z first: read by position, (z, x) made every point's x 0, a polygon of no area
    "parquet-geoarrow-struct-z-x-y": lambda p: _geoarrow_square(p, _struct(z=[0.0] * 5, x=_RING_X, y=_RING_Y)),
    "parquet-geoarrow-struct-a-b": lambda p: _geoarrow_square(p, _struct(a=_RING_X, b=_RING_Y)),
    "parquet-geoarrow-integer-null": lambda p: _geoarrow_square(p, _struct(x=[0, 2, None, 0, 0], y=_RING_Y)),
})


@contextlib.contextmanager
def _made(case: dict, tmp: Path):
    """The case's file, made as ``make`` says (and the file system's state it asks for, while it is read)."""
    make = case.get("make")
    if make and make.startswith("batch"):  # a real batch folder, spoilt
        p = tmp / case["file"]
        shutil.copytree(_demo_batch("csv" if make.startswith("batch-csv") else "parquet"), p)
        BATCH_SPOILS[make.partition(":")[2]](p)
        yield p
        return
    if make in (None, "vanish", "unreadable"):
        error = {"vanish": errno.ENOENT, "unreadable": errno.EACCES}.get(make)
        with mock.patch.object(eidomap.base.files, "open", _refuse_open(error), create=True) if error \
                else contextlib.nullcontext():
            yield HERE / case["file"]
        return
    p = tmp / case["file"]
    if make == "dangling":
        p.symlink_to(tmp / "nowhere")
    elif make != "missing":
        MAKERS[make](p)
    yield p


def _run(argv) -> tuple[int, str, str]:
    """The command line on ``argv``: its exit code, and what reached file descriptors 1 and 2."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("always")  # shown every time, as to a user running the command once
                try:
                    code = main([str(a) for a in argv])
                except SystemExit as exc:  # argparse
                    code = exc.code
                sys.stdout.flush()
                sys.stderr.flush()
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        return code, *(f.seek(0) or f.read().decode("utf-8", "replace") for f in (out, err))


def _check_file(case: dict, tmp: Path) -> None:
    call, argv = READERS[case["read"]]
    with _made(case, tmp) as p:
        code, out, err = _run(argv(p, tmp))
        said = f"exit {code}, stdout {out[-500:]!r}, stderr {err[-2000:]!r}"
        if not case["error"]:  # accepted (with warnings, maybe); an import writes a map every command reads
            call(p, tmp)
            assert code == 0 and "Traceback" not in err, said
            if case["read"] in ("tiled", "svg"):
                meta = eidomap.load(tmp / "out.geojson").data.meta  # (name, rules and catalog are text)
                assert all(isinstance(v, str) for k, v in meta.items() if k not in ("format", "units_per_mile")), meta
            return
        try:
            call(p, tmp)
        except getattr(errors, case["error"]) as exc:
            message = str(exc)
        else:
            raise AssertionError(f"the Python call raised no {case['error']}")
        assert case["says"] in message and str(p) in message and "\n" not in message, message
        assert code == 2 and out == "" and err == f"eidomap: {message}\n", said


def _make_output(kind: str, p: Path) -> None:
    """Something other than a new path or a regular file where a command writes: never a real device touched
    (``/dev/null`` only as a link's target)."""
    if kind == "directory":
        p.mkdir()
    elif kind == "fifo":
        os.mkfifo(p)
    elif kind == "file":
        p.write_bytes(b"ORIGINAL")
    else:  # link-to-fifo, link-to-dev-null, link-to-file, dangling-link
        target = {"link-to-dev-null": Path(os.devnull), "dangling-link": p.with_name("nowhere")}.get(
            kind, p.with_name("target"))
        if kind == "link-to-fifo":
            os.mkfifo(target)
        elif kind == "link-to-file":
            target.write_bytes(b"ORIGINAL")
        p.symlink_to(target)


def _state(p: Path) -> tuple:
    """What is at ``p``, without following a link or opening a FIFO: its kind, the link's target, a file's bytes."""
    st = os.lstat(p)
    link = os.readlink(p) if os.path.islink(p) else None
    return st.st_mode, link, p.read_bytes() if p.is_file() and link is None else None


def _check_arguments(case: dict, tmp: Path) -> None:
    """``make`` is the file a ``{made}`` argument names, or -- with ``output`` -- what lies where the command writes."""
    made = tmp / "made"
    names = {"demo": DEMO, "battle": ROOT / "maps" / "d20-battle.txt", "here": HERE, "tmp": tmp, "made": made}
    if any("{demo_in_tmp}" in a for a in case["args"]):  # the demo map (and its catalog) in a folder of the test's
        for src in (DEMO, DEMO.with_name("demo-catalog.toml")):
            shutil.copy(src, tmp / src.name)
        names["demo_in_tmp"] = tmp / DEMO.name
    argv = [a.format(**{k: str(v) for k, v in names.items()}) for a in case["args"]]
    if "output" in case:  # a path the command writes, made as `make` says: left as it was
        _make_output(case["make"], tmp / case["output"])
        before = _state(tmp / case["output"])
    elif "make" in case:
        MAKERS[case["make"]](made)
    code, out, err = _run(argv)
    said = f"exit {code}, stdout {out[-500:]!r}, stderr {err[-2000:]!r}"
    assert code == case["exit"] and case["says"] in out + err and "Traceback" not in err, said
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("eidomap"), said
    if "output" in case:
        assert _state(tmp / case["output"]) == before
        assert not [q.name for q in tmp.iterdir() if q.name.endswith(".tmp")]  # no temporary file left
    if case["error"] not in ("", "usage"):
        code, _, err = _run(["--debug", *argv])
        where = "" if hasattr(builtins, case["error"]) else "eidomap.base.errors."
        assert code == 2 and err.startswith("Traceback") and f"\n{where}{case['error']}: " in err, err[-2000:]


def _status(key: str) -> int:
    """A size of this process from /proc/self/status (``VmSize``, ``VmHWM``), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def _guarded(case: dict) -> dict:
    """Run one case under the memory guard: its failure (None when it passed) and its peak resident size."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    tmp = Path(tempfile.mkdtemp(prefix="eidomap-bad-"))
    with contextlib.suppress(OSError), open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # the peak resident size starts again from here
    failure = None
    make = case.get("make", "")
    if make.startswith("batch"):  # the real batch it spoils is the test's setup, made once, outside the limit
        _demo_batch("csv" if make.startswith("batch-csv") else "parquet")
    try:
        resource.setrlimit(resource.RLIMIT_AS, (_status("VmSize") + GUARD_BYTES, hard))
        try:
            (_check_file if "file" in case else _check_arguments)(case, tmp)
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except MemoryError:
        failure = f"needed more than {GUARD_BYTES >> 20} MiB of address space beyond the worker's own"
    except Exception:
        failure = traceback.format_exc()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"failure": failure, "peak": _status("VmHWM")}


def _ready() -> None:
    """Map what the readers import before any limit is set."""
    for module in ("pyarrow.parquet", "pyogrio", "scipy.sparse.csgraph", "eidomap.io.tables"):
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    if "pyarrow" in sys.modules:  # and Arrow's memory pool, which reserves its arenas on its first allocation
        sys.modules["pyarrow"].allocate_buffer(1 << 20)


def _serve() -> None:
    """The worker: one case name a line in, one JSON answer a line out (on its own copy of stdout)."""
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    _ready()
    for line in sys.stdin:
        answers.write(json.dumps(_guarded(BY_NAME[json.loads(line)])) + "\n")


class Worker:
    """The parent's end: starts the worker, hands it one case at a time, starts a new one after a failure."""

    def __init__(self):
        self.proc: subprocess.Popen | None = None
        self.log = tempfile.TemporaryFile()

    def run(self, name: str) -> str | None:
        if self.proc is None:
            # (two malloc arenas: each thread's own would reserve 64 MB of address space, counted by the limit)
            self.proc = subprocess.Popen([sys.executable, __file__, "--serve"], cwd=ROOT, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                         env={**os.environ, "MALLOC_ARENA_MAX": "2"})
        self.proc.stdin.write(json.dumps(name) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], CASE_SECONDS)
        line = self.proc.stdout.readline() if ready else ""
        answer = json.loads(line) if line else None
        if answer is None or answer["failure"]:  # a new worker for the next case: none of this one's state
            self.close()
        if answer is not None:
            return answer["failure"]
        if not ready:
            return f"ran longer than {CASE_SECONDS} s"
        self.log.seek(0)
        return f"the worker died; its last words: {self.log.read()[-2000:].decode('utf-8', 'replace')}"

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()  # the worker ends its loop and removes its scratch folder
            try:
                self.proc.wait(timeout=hang_guard(1))
            except subprocess.TimeoutExpired:  # stuck in a case
                self.proc.kill()
                self.proc.wait()
            self.proc = None


class InProcess:
    """The cases run in this process, under the same memory guard (this process's own limit), for mutation
    testing (``PROFILE == "mutation"``): mutmut ties a mutant to the tests that call its function in the test
    process, and would never see a worker's calls.  A case stuck in a loop is stopped by mutmut's CPU limit."""

    def __init__(self):
        _ready()

    def run(self, name: str) -> str | None:
        # the cases read what reached file descriptors 1 and 2: Python's own streams write there, pytest's not
        with mock.patch.multiple(sys, stdout=sys.__stdout__, stderr=sys.__stderr__):
            return _guarded(BY_NAME[name])["failure"]

    def close(self) -> None:
        _scratch.cache_clear()  # the batches made for the cases, removed with their folder
        _demo_batch.cache_clear()


@pytest.fixture(scope="module")
def worker():
    w = InProcess() if PROFILE == "mutation" else Worker()
    yield w
    w.close()


FILES = [c for c in CASES if "file" in c]
ARGS = [c for c in CASES if "args" in c]


def test_the_corpus_is_big_and_every_file_is_used():
    assert len(CASES) >= 50 and len({c["name"] for c in CASES}) == len(CASES)
    named = {c["file"] for c in FILES} | {Path(a).name for c in ARGS for a in c["args"] if a.startswith("{here}")}
    assert {p.name for p in HERE.iterdir()} - {"cases.toml"} <= named
    makes = {c["make"] for c in CASES if "make" in c and "output" not in c}
    assert makes <= {*MAKERS, "vanish", "unreadable", "dangling", "missing", *(f"batch:{k}" for k in BATCH_SPOILS),
                     *(f"batch-csv:{k}" for k in BATCH_SPOILS)}


@pytest.mark.parametrize("case", FILES, ids=[c["name"] for c in FILES])
def test_hostile_file(case, worker):
    failure = worker.run(case["name"])
    assert failure is None, failure


@pytest.mark.parametrize("case", ARGS, ids=[c["name"] for c in ARGS])
def test_hostile_arguments(case, worker):
    failure = worker.run(case["name"])
    assert failure is None, failure


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:
    _serve()
