"""The GeoJSON reader's fast lane, with msgspec (``pip install "eidomap[fast]"``).

msgspec finds the features in the file and decodes them a batch at a time,
leaving each Eido's coordinates as raw text; the coordinates of a batch's
plain Eidos (positions of two numbers) are then checked and parsed in bulk,
straight into the reader's flat buffers.  Every feature that is not a plain
Eido, and every Eido whose coordinates are not plain, goes through the
standard reader's own checks (:meth:`~eidomap.io.geojson.Reader.visit`,
:meth:`~eidomap.io.geojson.Reader.add_eido`), so both lanes give the same
map and the same problems.  Where msgspec refuses the file (not JSON, not
UTF-8, a number beyond its range...), :func:`read_features` returns None and
the standard reader reads the file, with its own error message.
"""

from __future__ import annotations

import codecs
import json
from itertools import chain
from typing import Any

import numpy as np

from .geojson import MAX_FEATURES, FeatureList, Reader, as_id, scan, wrong_id

try:
    import msgspec
except ImportError:  # the standard library's reader reads every map
    msgspec = None

__all__ = ["available", "read_features"]

#: Features decoded, and Eido coordinates parsed, at a time.
BATCH = 4096
_POLYGONS = ("Polygon", "MultiPolygon")


def available() -> bool:
    """Whether msgspec is installed (``eidomap[fast]``)."""
    return msgspec is not None


if msgspec is not None:
    class _Geometry(msgspec.Struct):
        type: Any = None
        coordinates: msgspec.Raw = msgspec.Raw(b"null")

    class _Properties(msgspec.Struct):  # those the reader reads of an Eido; the others stay in the file's text
        kind: Any = None
        terrain: Any = None
        region: Any = None
        name: Any = None
        id: Any = None

    class _Feature(msgspec.Struct):
        type: Any = None
        id: Any = None
        properties: _Properties | None = None
        geometry: _Geometry | None = None

    _ERRORS = (msgspec.MsgspecError, RecursionError)
    _MULTIPOLYGON = msgspec.json.Decoder(list[list[list[tuple[float, float]]]])
    _MULTIPOLYGONS = msgspec.json.Decoder(list[list[list[list[tuple[float, float]]]]])


class RawFeatures(FeatureList):
    """The features of a map file as msgspec found them: each one's text in the file, decoded on demand."""

    def __init__(self, raws: list):
        self.raws = raws

    def __len__(self) -> int:
        return len(self.raws)

    def raw(self, i: int) -> str:
        return bytes(self.raws[i]).decode("utf-8")


def _utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 text (checked a slice at a time: never a second copy of a big file)."""
    if data.isascii():
        return True
    dec, view = codecs.getincrementaldecoder("utf-8")(), memoryview(data)
    try:
        for k in range(0, len(view), 1 << 24):
            dec.decode(view[k : k + (1 << 24)])
        dec.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _offset(whole: memoryview, part) -> int:
    """Where ``part`` (a zero-copy view msgspec returned) starts in ``whole``."""
    return np.frombuffer(part, np.uint8).ctypes.data - np.frombuffer(whole, np.uint8).ctypes.data


def _decode(raw) -> object:
    """One feature as plain Python values, exactly as the standard library decodes it."""
    try:
        return msgspec.json.decode(raw)
    except _ERRORS:  # a number beyond msgspec's range, a lone surrogate...: the standard library's value
        return json.loads(bytes(raw))


def read_features(path, data: bytes, r: Reader) -> tuple[dict, FeatureList] | None:
    """:func:`~eidomap.io.geojson.scan` with msgspec: the collection's other members and its features, each visited.

    None when msgspec refuses the file: the standard reader then reads it
    (and names what is wrong with it).
    """
    if not _utf8(data):
        return None
    view = memoryview(data)
    if data.startswith(codecs.BOM_UTF8):
        view = view[3:]
    try:
        top = msgspec.json.decode(view, type=dict[str, msgspec.Raw])
        raws = msgspec.json.decode(top["features"], type=list[msgspec.Raw])
    except (*_ERRORS, KeyError):
        return None
    if len(raws) > MAX_FEATURES:
        return None
    start = _offset(view, top["features"])
    end = start + len(top["features"])
    if not 0 <= start <= end <= len(view):  # not a view into the file after all
        return None
    # the members around the features, by the standard reader: the same checks, the same errors
    body, _ = scan(path, bytes(view[:start]).decode("utf-8") + "[]" + bytes(view[end:]).decode("utf-8"),
                   lambda i, f: None)
    lane = _Lane(r)
    for k in range(0, len(raws), BATCH):
        lane.visit(k, raws[k : k + BATCH])
    lane.flush()
    return body, RawFeatures(raws)


class _Lane:
    """Files the plain Eidos of each batch in bulk, everything else through the reader's ``visit``."""

    def __init__(self, r: Reader):
        self.r = r
        self.pending: list[tuple] = []  # plain Eidos whose coordinates wait for the bulk parse, in file order
        self.decoder = msgspec.json.Decoder(list[_Feature])
        self.one = msgspec.json.Decoder(_Feature)

    def visit(self, first: int, raws: list) -> None:
        try:
            feats = self.decoder.decode(b"[" + b",".join(raws) + b"]")
        except _ERRORS:  # some feature is no object, or its properties or geometry are none: one by one
            feats = [self._typed(raw) for raw in raws]
        rows = range(first, first + len(raws))
        if all(_is_eido(f) for f in feats) and self._file_batch(rows, feats):
            return
        for i, f, raw in zip(rows, feats, raws, strict=True):
            if not (_is_eido(f) and self._plain(i, f)):
                self.flush()
                self.r.visit(i, _decode(raw))

    def _typed(self, raw):
        try:
            return self.one.decode(raw)
        except _ERRORS:
            return None

    def _file_batch(self, rows: range, feats: list) -> bool:
        """File a batch of Eidos at once if their ids are text, new and distinct; False (nothing filed) if not."""
        fids = [_fid(f) for f in feats]
        r = self.r
        if None in fids or len(set(fids)) != len(fids) or not r.seen.keys().isdisjoint(fids):
            return False
        r.fid.update(zip(rows, fids, strict=True))
        r.seen.update(zip(fids, rows, strict=True))
        self.pending.extend((i, f.geometry.type, f.geometry.coordinates, f.properties.terrain, f.properties.region,
                             f.properties.name) for i, f in zip(rows, feats, strict=True))
        if len(self.pending) >= BATCH:
            self.flush()
        return True

    def _plain(self, i: int, f) -> bool:
        """File Eido ``f`` if its id is text and new (what ``visit`` would check and keep)."""
        r = self.r
        fid = _fid(f)
        if fid is None or fid in r.seen:
            return False
        r.fid[i] = fid
        r.seen[fid] = i
        p, g = f.properties, f.geometry
        self.pending.append((i, g.type, g.coordinates, p.terrain, p.region, p.name))
        if len(self.pending) >= BATCH:
            self.flush()
        return True

    def flush(self) -> None:
        """Parse the waiting Eidos' coordinates in bulk and file them, in file order."""
        if not self.pending:
            return
        pending, self.pending = self.pending, []
        parsed = _parse([p[2] for p in pending], [p[1] == "MultiPolygon" for p in pending])
        bad = np.flatnonzero(~parsed.good).tolist()
        a = 0
        for b in [*bad, len(pending)]:
            if a < b:
                self._file(pending[a:b], parsed, a, b)
            if b < len(pending):
                i, gtype, coords, terrain, region, name = pending[b]
                if not self.r.add_eido(i, gtype, _decode(coords), terrain, region, name):
                    self.r.malformed(i, gtype)
            a = b + 1

    def _file(self, run: list[tuple], parsed: _Parsed, a: int, b: int) -> None:
        """File good Eidos ``a:b`` of the parsed batch (``run``), as ``add_eido`` would one by one."""
        r = self.r
        k = parsed.index[a:b]  # their places among the good ones
        lo, hi = k[0], k[-1] + 1
        r.xy.frombytes(_bytes(parsed.xy[parsed.num_off[lo] : parsed.num_off[hi]]))
        r.ring_len.frombytes(_bytes(parsed.ring_len[parsed.ring_off[lo] : parsed.ring_off[hi]]))
        r.part_rings.frombytes(_bytes(parsed.part_rings[parsed.part_off[lo] : parsed.part_off[hi]]))
        r.eido_rings.frombytes(_bytes(np.diff(parsed.ring_off[lo : hi + 1])))
        r.eido_parts.frombytes(_bytes(np.diff(parsed.part_off[lo : hi + 1])))
        index, types, _, terrains, regions, names = zip(*run, strict=True)
        shared = r.names
        r.is_multi.extend(t == "MultiPolygon" for t in types)
        r.terrain_names.extend(shared.setdefault(v, v) if type(v) is str else v for v in terrains)
        r.regions.extend(shared.setdefault(v, v) if type(v) is str else v for v in regions)
        r.eido_names.extend(names)
        r.by_kind["eido"].extend(index)


def _is_eido(f) -> bool:
    """A feature of kind eido whose geometry is a polygon or a multipolygon (its id not yet checked)."""
    return (f is not None and f.type == "Feature" and f.properties is not None and f.properties.kind == "eido"
            and f.geometry is not None and f.geometry.type in _POLYGONS)


def _fid(f) -> str | None:
    """An Eido's id as text (its ``id``, else ``properties.id``), as the reader's ``id_text`` gives it;
    None for an id that is neither text nor a whole number (the reader's ``visit`` names it)."""
    fid = f.id if f.id is not None else f.properties.id
    if wrong_id(fid):
        return None
    return fid if type(fid) is str else as_id(fid)


class _Parsed:
    """The coordinates of a batch of Eidos, flat, with offsets per good Eido (``*_off``) into each array.

    ``plain`` holds each Eido's polygons (lists of rings of ``(x, y)``), or None when they are not plain.
    """

    def __init__(self, plain: list):
        self.good = np.array([c is not None for c in plain], dtype=bool)
        self.index = np.cumsum(self.good) - 1  # place of each Eido among the good ones
        polys = [c for c in plain if c is not None]
        parts = list(chain.from_iterable(polys))
        rings = list(chain.from_iterable(parts))
        self.part_rings = np.fromiter(map(len, parts), np.int64, len(parts))
        self.ring_len = np.fromiter(map(len, rings), np.int64, len(rings))
        self.part_off = _offsets(np.fromiter(map(len, polys), np.int64, len(polys)))
        self.ring_off = _offsets(self.part_rings)[self.part_off]
        self.num_off = 2 * _offsets(self.ring_len)[self.ring_off]
        positions = chain.from_iterable(rings)
        self.xy = np.fromiter(chain.from_iterable(positions), np.float64, 2 * int(self.ring_len.sum()))


def _offsets(counts: np.ndarray) -> np.ndarray:
    return np.r_[0, np.cumsum(counts)].astype(np.int64)


def _bytes(a: np.ndarray) -> memoryview:
    return memoryview(np.ascontiguousarray(a)).cast("B")


def _parse(blobs: list, multi: list[bool]) -> _Parsed:
    """Check and parse the ``coordinates`` texts of a batch of Eidos (polygons, or multipolygons where ``multi``).

    An Eido's coordinates are plain when they are arrays of the depth its type
    needs, none empty, each position two numbers (what msgspec decodes as
    floats: not a boolean, nor a number beyond a float's range).
    """
    texts = [b if m else b"[" + b + b"]" for b, m in zip(blobs, multi, strict=True)]  # a polygon: one part
    try:
        decoded = _MULTIPOLYGONS.decode(b"[" + b",".join(texts) + b"]")
    except _ERRORS:  # some Eido is not plain: one by one
        decoded = [_multipolygon(t) for t in texts]
    return _Parsed([c if c and all(p and all(p) for p in c) else None for c in decoded])


def _multipolygon(text: bytes) -> list | None:
    try:
        return _MULTIPOLYGON.decode(text)
    except _ERRORS:
        return None
