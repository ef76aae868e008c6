"""The GeoJSON reader's fast lane, with msgspec (``pip install "eidomap[fast]"``).

msgspec finds the features in the file and decodes them a batch at a time,
leaving each geometry's coordinates as raw text.  The plain features of a
batch -- Eidos whose coordinates are arrays of positions of two numbers,
Pousas on a road named by text -- are checked and filed column-wise: their ids
at once, the Eidos' coordinate texts scanned in bulk with numpy (brackets give
the rings, parts and positions; the numbers are parsed in one call), or on a
big map in one compiled pass (:mod:`eidomap.io.fast.coordtext`) -- and handed to
the builder in columns (:meth:`~eidomap.io.builder.MapBuilder.add_eido_columns`).
Every other
feature, and every plain one whose id is used twice, goes through the
builder's own checks (:meth:`~eidomap.io.builder.MapBuilder.add_feature`), in
file order, as the standard lane hands every feature over, so both lanes give
the same map and the same problems.  Where msgspec refuses the file (not
JSON, not UTF-8, a number beyond its range...), :func:`read_features` returns
None and the plain reader reads the file, with its own error message.

:func:`read_geojson` is the lane's read, which the reader registry
(:func:`eidomap.io.readers.read_map`) calls: msgspec's features, a helper
process for a big map when asked, and the features' text let go before the
record is built when the caller will not write the map
(:class:`~eidomap.io.fast.letgo.LetGo`).
"""

from __future__ import annotations

import codecs
import os
import threading
from collections import Counter
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from eidomap.base import params, settings
from eidomap.base.errors import RequestError
from eidomap.base.modes import Lane
from eidomap.base.problems import Problem
from eidomap.io import geojson as plain
from eidomap.io.builder import MapBuilder
from eidomap.io.fast import coordtext
from eidomap.io.fast.helper import Pair, serve
from eidomap.io.fast.letgo import LetGo
from eidomap.io.features import MAX_FEATURES, as_id, feature_id, wrong_id
from eidomap.io.jsontext import FeatureList, check_unicode, loads_json, scan
from eidomap.record.catalog import Catalog

if TYPE_CHECKING:
    from eidomap.io.document import Features, MapData

try:
    import msgspec
except ImportError:  # the standard library's reader reads every map
    msgspec = None  # type: ignore[assignment]  # (available() says which)

#: Features decoded, checked and filed at a time.
BATCH = 16384
_POLYGONS = ("Polygon", "MultiPolygon")
_OTHER, _EIDO, _POUSA = 0, 1, 2


def available() -> bool:
    """Whether msgspec is installed (``eidomap[fast]``)."""
    return msgspec is not None


def read_geojson(path: str | os.PathLike | None, catalog: Catalog | str | os.PathLike | None = None,
                 data: bytes | None = None, *, reader: Lane | str = Lane.MSGSPEC, helper: bool = False,
                 keep_text: bool = True) -> tuple[MapData, list[Problem]]:
    """Read a GeoJSON map by the fast lane: the plain reader's map, problems and errors
    (:func:`eidomap.io.geojson.read_geojson`), in less time or less memory.

    Parameters
    ----------
    path : str, Path or None
        The file (None: ``data`` comes from no file).
    catalog : str, Path or Catalog, optional
        The terrains and species (default: the one the map names).
    data : bytes, optional
        The file's bytes, when already read.
    reader : {"msgspec", "json"}
        What finds and decodes the features: msgspec (``eidomap[fast]``), or the standard library's ``json``, as
        the plain reader does (to let the text go, below).
    helper : bool
        With msgspec, share a map of :data:`~eidomap.base.settings.HELPER_BYTES` or more with a helper process
        on a second core.  Off unless asked: a library call starts no process of its own.
    keep_text : bool
        Keep the features' text for the document (a lossless write).  False: let it go as soon as the features
        are filed, before the record is built -- about the file's size of memory less at the read's peak; the
        document then knows only how many features there were (:class:`~eidomap.io.fast.letgo.LetGo`; what
        :func:`~eidomap.io.readers.read_map` with ``document=False`` puts in its place reads them again).

    Returns
    -------
    md : MapData
        The record and the document.
    problems : list of Problem
        What was left out, and why.

    Raises
    ------
    MapError
        As the plain reader does.
    RequestError
        For ``reader="msgspec"`` without msgspec installed.

    See Also
    --------
    eidomap.io.readers.read_map : Reads a GeoJSON map by this lane when msgspec is installed.

    Examples
    --------
    >>> import eidomap
    >>> md, problems = read_geojson(eidomap.demo_map_path(), keep_text=False)
    >>> md.record.eidos.ids[:2], len(md.document.features), problems
    (('ceo-poente', 'ceo-gaivotas'), 105, [])
    """
    path, data = params.maybe(params.path, path, "path"), params.maybe(params.instance, data, "data", bytes, "bytes")
    Catalog.checked(catalog)
    reader = Lane.checked(reader, "reader")
    helper, keep_text = params.flag(helper, "helper"), params.flag(keep_text, "keep_text")
    if reader is Lane.MSGSPEC and not available():
        raise RequestError('reader="msgspec" needs msgspec: pip install "eidomap[fast]"')
    path = None if path is None else Path(path)
    b, found = MapBuilder(path), None
    if reader is Lane.MSGSPEC:
        raw = plain.map_bytes(path, data)
        check_unicode(path, raw)  # (msgspec would take an escaped lone surrogate, which no write can write)
        found = read_features(path, raw, b, helper=helper)
        if found is None:  # msgspec refuses the file: the plain reader reads it (and names what is wrong with it)
            b, data = MapBuilder(path), raw
        del raw
    features: Features  # (the lane's own list; let go, how many there were)
    members, features = plain.read_features(path, data, b) if found is None else found
    del found, data  # (unless the caller holds the file's bytes, the features alone hold them, or their text)
    if not keep_text:  # the last reference to the map's text, let go here, before the record is built
        features = LetGo(path, len(features))
    return b.finish(members, features, catalog)


if msgspec is not None:
    class _Geometry(msgspec.Struct, gc=False):
        type: Any = None
        coordinates: msgspec.Raw = msgspec.Raw(b"null")

    class _Properties(msgspec.Struct, gc=False):  # what the reader reads of an Eido or a Pousa
        kind: Any = None
        terrain: Any = None
        region: Any = None
        name: Any = None
        id: Any = None
        road: Any = None

    class _Collection(msgspec.Struct):  # its other members are read from the text around the features
        features: list[msgspec.Raw]

    class _Feature(msgspec.Struct, gc=False):
        type: Any = None
        id: Any = None
        properties: _Properties | None = None
        geometry: _Geometry | None = None

    class _EidoProperties(msgspec.Struct, gc=False):
        kind: Literal["eido"]
        terrain: Any = None
        region: Any = None
        name: Any = None

    class _EidoGeometry(msgspec.Struct, gc=False):
        type: Literal["Polygon", "MultiPolygon"]
        coordinates: msgspec.Raw

    class _Eido(msgspec.Struct, gc=False):  # what most features of a big map are: decoded as this, none sorted out
        type: Literal["Feature"]
        id: str
        properties: _EidoProperties
        geometry: _EidoGeometry

    _ERRORS = (msgspec.MsgspecError, RecursionError)
    _EIDOS = msgspec.json.Decoder(list[_Eido])
    _FEATURES = msgspec.json.Decoder(list[_Feature])
    _ANSWER = msgspec.msgpack.Decoder(tuple[bytes, list[str], list, list, list, list[bool], bytes, bytes, bytes, bytes,
                                            bytes, list[str | None], list[str], bytes])
    _NOT_A_FEATURE = _Feature()
    _NUMBERS = msgspec.json.Decoder(list[float])
    _POINTS = msgspec.json.Decoder(list[tuple[float, float]])
    _POINT = msgspec.json.Decoder(tuple[float, float])
    _MULTIPOLYGON = msgspec.json.Decoder(list[list[list[tuple[float, float]]]])


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


def _span(view: memoryview, raws: list) -> tuple[int, int] | None:
    """Where the features' array lies in the file, from its ``[`` to past its ``]``; None if not found."""
    if not raws:
        try:
            features = msgspec.json.decode(view, type=dict[str, msgspec.Raw])["features"]
        except (*_ERRORS, KeyError):
            return None
        start = _offset(view, features)
        return (start, start + len(features)) if 0 <= start <= start + len(features) <= len(view) else None
    start, end = _offset(view, raws[0]) - 1, _offset(view, raws[-1]) + len(raws[-1])
    while 0 <= start < len(view) and view[start] in b" \t\n\r":
        start -= 1
    while 0 <= end < len(view) and view[end] in b" \t\n\r":
        end += 1
    if not (0 <= start < end < len(view) and view[start] == 0x5B and view[end] == 0x5D):  # not views into the file
        return None
    return start, end + 1


def _decode(raw) -> object:
    """One feature as plain Python values, exactly as the standard library decodes it."""
    try:
        return msgspec.json.decode(raw)
    except _ERRORS:  # a number beyond msgspec's range, a lone surrogate...: the standard library's value
        return loads_json(bytes(raw).decode("utf-8"))


def read_features(path: str | os.PathLike | None, data: bytes, b: MapBuilder, *,
                  helper: bool = False) -> tuple[dict, FeatureList] | None:
    """:func:`~eidomap.io.jsontext.scan` with msgspec: the collection's other members and its features, each
    handed to the builder ``b``.

    None when msgspec refuses the file: the standard reader then reads it
    (and names what is wrong with it).  ``helper``: share a map of
    :data:`~eidomap.base.settings.HELPER_BYTES` or more with a helper process.
    """
    if not _utf8(data):
        return None
    # (the helper starts while msgspec finds the features)
    with Pair(start=helper and len(data) >= settings.HELPER_BYTES) as pair:
        return _read(path, data, b, pair)


def _read(path: str | os.PathLike | None, data: bytes, b: MapBuilder, pair: Pair) -> tuple[dict, FeatureList] | None:
    view = memoryview(data)
    if data.startswith(codecs.BOM_UTF8):
        view = view[3:]
    try:
        raws = msgspec.json.decode(view, type=_Collection).features  # one pass: the file is JSON, its features
    except _ERRORS:
        return None
    if len(raws) > MAX_FEATURES:
        return None
    span = _span(view, raws)
    if span is None:
        return None
    start, end = span
    # the members around the features, by the standard reader: the same checks, the same errors
    body, _ = scan(path, bytes(view[:start]).decode("utf-8") + "[]" + bytes(view[end:]).decode("utf-8"),
                   lambda i, f: None)
    lane = _Lane(b, view, compiled=len(view) >= settings.COMPILED_BYTES)
    firsts = range(0, len(raws), BATCH)
    pair.share(len(firsts), lambda k: lane.text(raws[firsts[k] : firsts[k] + BATCH]))
    for k, first in enumerate(firsts):
        lane.visit(first, raws[first : first + BATCH], pair.take(k))
    return body, RawFeatures(raws)


class _Lane:
    """Hands the plain Eidos and Pousas of each batch to the builder column-wise, everything else one by one."""

    def __init__(self, b: MapBuilder, view: memoryview, compiled: bool):
        self.b = b
        self.view = view
        self.compiled = compiled  # the coordinates read by the compiled pass
        self.one = msgspec.json.Decoder(_Feature)

    def visit(self, first: int, raws: list, answer: bytes | None = None) -> None:
        """Check and file features ``first, first + 1, ...`` (``raws``, their texts), in file order.

        ``answer``: what the helper process made of the batch (:func:`worked`),
        if it worked on it.
        """
        text = None
        if answer is None:
            text = self.text(raws)
            got = _eido_batch(text, self.compiled)
        else:
            got = _unpacked(answer, len(raws))
        if got is None or not self.b.used_ids.isdisjoint(got.plain_ids()):  # (ids used before: sorted out)
            got = _sort_out(self._features(text or self.text(raws), raws), self.b.used_ids, self.compiled)
        eidos, pousas = got.eidos, got.pousas
        if len(eidos) == len(raws):  # a batch of plain Eidos only (most of a big map): filed in one step
            self._file_eidos(first, range(len(raws)), got.batch, 0, len(raws))
            return
        plain = np.zeros(len(raws), dtype=bool)
        plain[eidos] = plain[pousas] = True
        others = np.flatnonzero(~plain).tolist()
        # in file order: the plain ones before each other one at once, then that one by the reader
        e_cut = [*np.searchsorted(eidos, others).tolist(), len(eidos)]
        p_cut = [*np.searchsorted(pousas, others).tolist(), len(pousas)]
        e0 = p0 = 0
        for o, e1, p1 in zip([*others, None], e_cut, p_cut, strict=True):
            if e0 < e1:
                self._file_eidos(first, eidos[e0:e1].tolist(), got.batch, e0, e1)
            if p0 < p1:
                self.b.add_pousas([first + k for k in pousas[p0:p1].tolist()], got.pousa_ids[p0:p1],
                                  got.pousa_roads[p0:p1], got.pousa_xy[p0:p1])
            if o is not None:
                self.b.add_feature(first + o, _decode(raws[o]))
            e0, p0 = e1, p1

    def _features(self, text, raws: list) -> list:
        """The batch's features, typed (a feature msgspec cannot type keeps only its id)."""
        try:
            return _FEATURES.decode(text)
        except _ERRORS:  # some feature is no object, or its properties or geometry are none: one by one
            return [self._typed(raw) for raw in raws]

    def text(self, raws: list) -> bytes | bytearray:
        """The batch as one JSON array: its span of the file, copied once, else its features joined."""
        a = _offset(self.view, raws[0])
        b = _offset(self.view, raws[-1]) + len(raws[-1])
        if 0 <= a <= b <= len(self.view) and self.view[a : a + len(raws[0])] == bytes(raws[0]) \
                and self.view[b - len(raws[-1]) : b] == bytes(raws[-1]):
            text = bytearray(b"[")
            text += self.view[a:b]
            text += b"]"
            return text
        return b"[" + b",".join(raws) + b"]"

    def _typed(self, raw):
        try:
            return self.one.decode(raw)
        except _ERRORS:
            f = _decode(raw)
            return _Feature(id=feature_id(f)) if isinstance(f, dict) else _NOT_A_FEATURE

    def _file_eidos(self, first: int, rows, batch: _Batch, lo: int, hi: int) -> None:
        """Hand Eidos ``lo:hi`` of ``batch`` (the batch's features ``rows``) to the builder in columns."""
        parsed = batch.parsed
        self.b.add_eido_columns([first + k for k in rows], batch.ids[lo:hi],
                                parsed.xy[parsed.num_off[lo] : parsed.num_off[hi]],
                                parsed.ring_len[parsed.ring_off[lo] : parsed.ring_off[hi]],
                                parsed.part_rings[parsed.part_off[lo] : parsed.part_off[hi]],
                                np.diff(parsed.ring_off[lo : hi + 1]), np.diff(parsed.part_off[lo : hi + 1]),
                                batch.multi[lo:hi], batch.terrains[lo:hi], batch.regions[lo:hi], batch.names[lo:hi])


class _Batch:
    """Plain Eidos column-wise: their ids, properties, polygon types (``multi``) and coordinates."""

    __slots__ = ("ids", "multi", "names", "parsed", "regions", "terrains")

    def __init__(self, ids: list, terrains: list, regions: list, names: list, multi: list, parsed: _Parsed):
        self.ids, self.terrains, self.regions, self.names, self.multi = ids, terrains, regions, names, multi
        self.parsed = parsed

    @classmethod
    def of(cls, feats: list, ids: list, parsed: _Parsed) -> _Batch:
        props = [f.properties for f in feats]
        return cls(ids, [p.terrain for p in props], [p.region for p in props], [p.name for p in props],
                   [f.geometry.type == "MultiPolygon" for f in feats], parsed)


class _Sorted:
    """A batch's features sorted out: its plain Eidos (their positions in the batch, their columns), its plain
    Pousas (positions, ids, roads, coordinates); the others are for the builder's own checks."""

    __slots__ = ("batch", "eidos", "pousa_ids", "pousa_roads", "pousa_xy", "pousas")

    def __init__(self, eidos: np.ndarray, batch: _Batch, pousas: np.ndarray, pousa_ids: list, pousa_roads: list,
                 pousa_xy: np.ndarray):
        self.eidos, self.batch = eidos, batch
        self.pousas, self.pousa_ids, self.pousa_roads, self.pousa_xy = pousas, pousa_ids, pousa_roads, pousa_xy

    def plain_ids(self) -> list[str]:
        return [*self.batch.ids, *(fid for fid in self.pousa_ids if fid is not None)]

    def packed(self) -> bytes:
        """As msgpack (texts and arrays), for :func:`_unpacked`."""
        b, p = self.batch, self.batch.parsed
        return msgspec.msgpack.encode([self.eidos.tobytes(), b.ids, b.terrains, b.regions, b.names, b.multi,
                                       np.diff(p.part_off).tobytes(), p.part_rings.tobytes(), p.ring_len.tobytes(),
                                       p.xy.tobytes(), self.pousas.tobytes(), self.pousa_ids, self.pousa_roads,
                                       self.pousa_xy.tobytes()])


def _eido_batch(text, compiled: bool = False) -> _Sorted | None:
    """A batch (its text) of Eidos only, with text ids each used once and plain coordinates; else None.

    ``compiled``: read the coordinates with the compiled pass (:func:`_parse`).
    """
    try:
        feats = _EIDOS.decode(text)
    except _ERRORS:
        return None
    ids = [f.id for f in feats]
    if len(set(ids)) != len(ids):
        return None
    parsed = _parse([f.geometry.coordinates for f in feats], [f.geometry.type == "MultiPolygon" for f in feats],
                    compiled)
    if not parsed.good.all():
        return None
    return _Sorted(np.arange(len(feats), dtype=np.int64), _Batch.of(feats, ids, parsed), np.empty(0, np.int64), [], [],
                   np.empty((0, 2)))


def _sort_out(feats: list, seen, compiled: bool = False) -> _Sorted:
    """A batch's typed features sorted out, ids in ``seen`` (a set of ids used before), used twice or wrong
    left to the builder's own checks; ``compiled`` as for :func:`_parse`."""
    ids = [_id(f) for f in feats]
    tags = _single_out_reused(ids, [_tag(f) for f in feats], seen)
    eidos = [k for k, t in enumerate(tags) if t == _EIDO]
    pousas = [k for k, t in enumerate(tags) if t == _POUSA]
    parsed = _parse([feats[k].geometry.coordinates for k in eidos],
                    [feats[k].geometry.type == "MultiPolygon" for k in eidos], compiled)
    eidos = np.asarray(eidos, dtype=np.int64)[parsed.good].tolist()
    xy = _points([feats[k].geometry.coordinates for k in pousas])
    pousa_ok = ~np.isnan(xy[:, 0])
    pousas = np.asarray(pousas, dtype=np.int64)[pousa_ok].tolist()
    return _Sorted(np.asarray(eidos, dtype=np.int64), _Batch.of([feats[k] for k in eidos], [ids[k] for k in eidos],
                                                                parsed),
                   np.asarray(pousas, dtype=np.int64), [ids[k] for k in pousas],
                   [feats[k].properties.road for k in pousas], np.ascontiguousarray(xy[pousa_ok]))


def worked(text, compiled: bool = False) -> bytes:
    """What the helper process (:mod:`eidomap.io.fast.helper`) makes of a batch: its features sorted out, as
    msgpack; nothing if msgspec cannot type them all, or a value is one msgpack cannot carry.  ``compiled`` as
    for :func:`_parse`."""
    got = _eido_batch(text, compiled)
    try:
        return (got or _sort_out(_FEATURES.decode(text), frozenset(), compiled)).packed()
    except (*_ERRORS, OverflowError, TypeError, ValueError):
        return b""


def _unpacked(answer: bytes, n: int) -> _Sorted | None:
    """The sorted-out batch (of ``n`` features) :func:`worked` sent; None if it sent nothing, or anything else."""
    try:
        decoded: tuple[Any, ...] = _ANSWER.decode(answer)  # (bytes, turned into arrays below)
        (eidos, ids, terrains, regions, names, multi, parts, part_rings, ring_len, xy, pousas, pousa_ids, pousa_roads,
         pousa_xy) = decoded
        eidos, parts, part_rings, ring_len, pousas = (np.frombuffer(a, np.int64)
                                                      for a in (eidos, parts, part_rings, ring_len, pousas))
        xy, pousa_xy = np.frombuffer(xy, np.float64), np.frombuffer(pousa_xy, np.float64).reshape(-1, 2)
    except (*_ERRORS, ValueError):
        return None
    k = len(eidos)
    rows = np.r_[eidos, pousas]
    if not (len(ids) == len(terrains) == len(regions) == len(names) == len(multi) == len(parts) == k
            and len(pousa_ids) == len(pousa_roads) == len(pousa_xy) == len(pousas)
            and np.all(np.diff(eidos) > 0) and np.all(np.diff(pousas) > 0) and len(np.unique(rows)) == len(rows)
            and rows.min(initial=0) >= 0 and rows.max(initial=0) < max(n, 1)
            and min(parts.min(initial=1), part_rings.min(initial=1), ring_len.min(initial=1)) > 0
            and parts.sum() == len(part_rings) and part_rings.sum() == len(ring_len) and 2 * ring_len.sum() == len(xy)):
        return None
    parsed = _Parsed(np.ones(k, dtype=bool), parts, part_rings, ring_len, xy)
    return _Sorted(eidos, _Batch(ids, terrains, regions, names, multi, parsed), pousas, pousa_ids, pousa_roads,
                   pousa_xy)


#: The id of a feature :func:`~eidomap.io.features.wrong_id` refuses.
_WRONG = object()


def _tag(f) -> int:
    """Whether ``f`` may be a plain Eido or a plain Pousa (its id and coordinates not yet checked)."""
    p, g = f.properties, f.geometry
    if f.type != "Feature" or p is None or g is None:
        return _OTHER
    if p.kind == "eido" and g.type in _POLYGONS:
        return _EIDO
    if p.kind == "pousa" and g.type == "Point" and type(p.road) is str:
        return _POUSA
    return _OTHER


def _id(f) -> str | object | None:
    """A feature's id as text (its ``id``, else ``properties.id``), as :func:`~eidomap.io.features.id_text` gives it;
    None when it has none, :data:`_WRONG` when it is neither text nor a whole number."""
    fid = f.id if f.id is not None or f.properties is None else f.properties.id
    if type(fid) is str or fid is None:
        return fid
    return _WRONG if wrong_id(fid) else as_id(fid)


def _single_out_reused(ids: list, tags: list, seen) -> list:
    """``tags``, with every feature whose id is wrong, missing (an Eido), used twice in the batch or
    used before (in ``seen``) left to the builder's own checks."""
    texts = [t for t in ids if type(t) is str]
    unusable = {_WRONG}
    if len(set(texts)) != len(texts) or not seen.isdisjoint(texts):
        counts = Counter(texts)
        unusable.update(t for t in texts if counts[t] > 1 or t in seen)
    return [t if fid not in unusable and (fid is not None or t != _EIDO) else _OTHER
            for t, fid in zip(tags, ids, strict=True)]


def _points(texts: list) -> np.ndarray:
    """The Pousas' ``coordinates`` as ``(x, y)`` rows; NaN where they are not two numbers."""
    if not texts:
        return np.empty((0, 2))
    try:
        return np.array(_POINTS.decode(b"[" + b",".join(texts) + b"]"), dtype=float).reshape(-1, 2)
    except _ERRORS:
        return np.array([_point(t) for t in texts], dtype=float).reshape(-1, 2)


def _point(text) -> tuple[float, float]:
    try:
        return _POINT.decode(text)
    except _ERRORS:
        return (np.nan, np.nan)


class _Parsed:
    """The coordinates of a batch of Eidos, flat, with offsets per plain Eido (``*_off``) into each array.

    ``good`` marks the Eidos whose coordinates are plain; the arrays hold theirs only.
    """

    def __init__(self, good: np.ndarray, eido_parts: np.ndarray, part_rings: np.ndarray, ring_len: np.ndarray,
                 xy: np.ndarray):
        self.good = good
        self.part_rings = part_rings
        self.ring_len = ring_len
        self.part_off = _offsets(eido_parts)
        self.ring_off = _offsets(part_rings)[self.part_off]
        self.num_off = 2 * _offsets(ring_len)[self.ring_off]
        self.xy = xy

    @classmethod
    def of(cls, plain: list) -> _Parsed:
        """From each Eido's polygons (lists of rings of ``(x, y)``), or None where they are not plain."""
        polys = [c for c in plain if c is not None]
        parts = list(chain.from_iterable(polys))
        rings = list(chain.from_iterable(parts))
        ring_len = np.fromiter(map(len, rings), np.int64, len(rings))
        xy = np.fromiter(chain.from_iterable(chain.from_iterable(rings)), np.float64, 2 * int(ring_len.sum()))
        return cls(np.array([c is not None for c in plain], dtype=bool),
                   np.fromiter(map(len, polys), np.int64, len(polys)),
                   np.fromiter(map(len, parts), np.int64, len(parts)), ring_len, xy)


def _offsets(counts: np.ndarray) -> np.ndarray:
    return np.r_[0, np.cumsum(counts)].astype(np.int64)


def _parse(blobs: list, multi: list[bool], compiled: bool = False) -> _Parsed:
    """Check and parse the ``coordinates`` texts of a batch of Eidos (polygons, or multipolygons where ``multi``).

    An Eido's coordinates are plain when they are arrays of the depth its type
    needs, none empty, each position two numbers (what msgspec decodes as
    floats: not a boolean, nor a number beyond a float's range).  All the
    batch's texts are scanned at once: by the compiled pass
    (:func:`eidomap.io.fast.coordtext.scan`) when ``compiled``, else -- or where
    that pass finds them not plain or is not sure of a number -- by numpy
    and msgspec (:func:`_scan`); where some are not plain, each is decoded
    alone.
    """
    if any(multi) and not all(multi):  # a polygon is a multipolygon of one part
        blobs = [b if m else b"[" + b + b"]" for b, m in zip(blobs, multi, strict=True)]
    polygons = not any(multi)
    got = coordtext.scan(blobs, 4 if polygons else 5) if compiled and blobs else None
    return (_Parsed(np.ones(len(blobs), dtype=bool), *got) if got is not None else _scan(blobs, polygons)) \
        or _Parsed.of(_each([b"[" + b + b"]" for b in blobs] if polygons else blobs))


def _scan(texts: list, polygons: bool) -> _Parsed | None:
    """Polygon (or multipolygon) ``coordinates`` texts, parsed by their brackets and commas and one call for
    all their numbers; None unless every one is plain.

    The file is JSON (msgspec checked it): with no string in it, its brackets
    and commas are the arrays', and with nothing but numbers between them
    (what the one parse of the numbers checks), an array of the batch (depth
    1) opened at depth 2 is an Eido, then a polygon (multipolygons only), a
    ring, and a position: exactly ``[``, ``,``, ``]`` -- two values.
    """
    text = b"[" + b",".join(texts) + b"]"
    if b'"' in text:  # a string (and every bracket and comma outside one is the JSON's own)
        return None
    u = np.frombuffer(text, np.uint8)
    # "[" 0x5B, "]" 0x5D, "," 0x2C (and "Y", "_": outside strings, not in JSON)
    marks = u[np.flatnonzero(((u & 0xF9) == 0x59) | (u == 0x2C))]
    step = (marks == 0x5B).astype(np.int8) - (marks == 0x5D)
    depth = np.cumsum(step, dtype=np.int32)  # after each mark
    deepest = 4 if polygons else 5
    opens = step == 1
    at = np.flatnonzero(opens & (depth == deepest))  # the positions
    if depth.max() > deepest or (opens[:-1] & (step[1:] == -1)).any():  # too deep, or an empty array
        return None
    if len(at) and not ((marks[at + 1] == 0x2C) & (marks[at + 2] == 0x5D)).all():  # not two values
        return None
    try:
        xy = np.array(_NUMBERS.decode(b"[" + text.translate(None, b"[]") + b"]"), dtype=np.float64)
    except _ERRORS:  # true, false, null, an object; a number beyond a float's range
        return None
    level = depth[opens]  # the depth of each array, in order of opening
    if len(xy) != 2 * len(at) or np.count_nonzero(level == 2) != len(texts):  # numbers outside positions
        return None

    def children(parent: int) -> np.ndarray:  # how many arrays each array at depth ``parent`` holds
        return np.bincount(np.cumsum(level == parent)[level == parent + 1] - 1,
                           minlength=int(np.count_nonzero(level == parent)))

    parts = np.ones(len(texts), dtype=np.int64) if polygons else children(2)
    return _Parsed(np.ones(len(texts), dtype=bool), parts, children(deepest - 2), children(deepest - 1), xy)


def _each(texts: list) -> list:
    """Each multipolygon text decoded alone: its polygons, or None where it is not plain."""
    decoded = [_multipolygon(t) for t in texts]
    return [c if c and all(p and all(p) for p in c) else None for c in decoded]


def _multipolygon(text: bytes) -> list | None:
    try:
        return _MULTIPOLYGON.decode(text)
    except _ERRORS:
        return None


def _serve() -> None:
    """The helper process (:mod:`eidomap.io.fast.helper`), which runs for big maps only: its batches' coordinates read
    by the compiled pass once numba is imported and its machine code loaded, on a thread, while the reader finds
    the features (before, by numpy and msgspec: a first batch is not kept waiting)."""
    loaded = threading.Event()

    def load() -> None:
        coordtext.load()
        loaded.set()

    threading.Thread(target=load, daemon=True).start()
    serve(lambda text: worked(text, loaded.is_set()))


if __name__ == "__main__":
    _serve()
