"""Reading and writing eidomap GeoJSON maps.

:func:`read_geojson` is lenient: it returns every feature it could use plus a
list of :class:`~eidomap.problems.Problem` for the rest, so that validation
can report everything at once.  :func:`eidomap.load` is the strict reader
built on it: it raises the first error as a :class:`~eidomap.errors.MapError`.

The file is read one feature at a time (the C decoder's ``raw_decode``, so a
million-Eido map never exists as one tree of Python objects): each feature is
checked, the Eido coordinates go straight into one flat float64 buffer, and
only the feature's place in the text is kept.  Writing is lossless to the
byte: a feature that did not change is copied from the original text; one
whose geometry changed (``fix``) is written back with every property and
foreign member it had.
"""

from __future__ import annotations

import json
import math
import os
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

import numpy as np
import shapely

from .._arrays import in_threads, paused_gc, unique, unique_inverse
from ..catalog import Catalog, load_catalog
from ..errors import MapError
from ..geometry import MIN_SIDE, default_tolerance, larger_side, places_along
from ..names import did_you_mean
from ..problems import ERROR, Problem
from .files import MAX_MAP_BYTES, beside, read_bounded, write_atomic

__all__ = [
    "KINDS",
    "MAX_FEATURES",
    "Coords",
    "FeatureList",
    "Layer",
    "MapData",
    "Reader",
    "as_bytes",
    "as_id",
    "assemble",
    "dumps_geojson",
    "feature_id",
    "geometry_coords",
    "id_text",
    "name_of",
    "parse_meta",
    "read_geojson",
    "resolve_catalog",
    "rules_of",
    "scan",
    "write_geojson",
]

KINDS = ("eido", "road", "pousa", "fountain", "stream", "river")
GEOMETRY_TYPES = {
    "eido": ("Polygon", "MultiPolygon"),
    "road": ("LineString",),
    "pousa": ("Point",),
    "fountain": ("Point",),
    "stream": ("LineString",),
    "river": ("LineString",),
}
#: Road classes of d20 overland maps (``properties.class`` of a road).
ROAD_CLASSES = ("highway", "road", "trail")
#: A river's current (mph) when it gives none.
DEFAULT_CURRENT = 3.0
RULE_SETS = ("eido", "d20")
FORMAT_VERSION = 1
#: Most features a map may hold.
MAX_FEATURES = 5_000_000
#: Most positions one Eido may have, across its rings.
MAX_EIDO_VERTICES = 100_000
#: Largest coordinate magnitude: beyond it, sums of two coordinates lose whole units (2**53 ~ 9e15) and
#: products overflow long before float64 does.
MAX_COORDINATE = 1e15


class Coords:
    """Coordinates of one geometry, parsed into numpy arrays (one per ring).

    ``rings`` holds one ``(n, d)`` array per ring (per line, per point);
    ``parts`` the number of rings of each polygon of a MultiPolygon.
    """

    __slots__ = ("parts", "rings", "type")

    def __init__(self, type_: str, rings: list[np.ndarray], parts: list[int] | None = None):
        self.type = type_
        self.rings = rings
        self.parts = parts

    def tolist(self):
        """The GeoJSON ``coordinates`` member, exactly as parsed."""
        rings = [r.tolist() for r in self.rings]
        if self.type == "Point":
            return rings[0][0]
        if self.type == "LineString":
            return rings[0]
        if self.type == "Polygon":
            return rings
        out, k = [], 0
        for n in self.parts:
            out.append(rings[k : k + n])
            k += n
        return out


def _array(obj) -> np.ndarray | None:
    try:
        arr = np.asarray(obj)
    except ValueError:
        return None
    if arr.ndim != 2 or arr.shape[1] < 2 or arr.dtype.kind not in "if":
        return None
    return arr


def as_bytes(a: np.ndarray) -> memoryview:
    """``a``'s values as raw bytes (C order), for an ``array.array`` of the same item type to take."""
    return memoryview(np.ascontiguousarray(a)).cast("B")


def _compact(type_: str, coords) -> Coords | None:
    """Parse a geometry's coordinates; None when they are malformed."""
    if not isinstance(coords, list):
        return None
    if type_ == "Point":
        arr = _array([coords])
        return None if arr is None else Coords(type_, [arr])
    if type_ == "LineString":
        arr = _array(coords)
        return None if arr is None else Coords(type_, [arr])
    if type_ == "Polygon":
        rings = [_array(r) for r in coords]
        return None if not rings or any(r is None for r in rings) else Coords(type_, rings)
    if type_ == "MultiPolygon":
        rings, parts = [], []
        for poly in coords:
            if not isinstance(poly, list) or not poly:
                return None
            rings.extend(_array(r) for r in poly)
            parts.append(len(poly))
        if not parts or any(r is None for r in rings):
            return None
        return Coords(type_, rings, parts)
    return None


class FeatureList(Sequence):
    """The features of a map file, decoded on demand from the file's text.

    ``features[i]`` is the i-th feature as a fresh dict, its geometry's
    coordinates parsed into :class:`Coords` when they are well formed;
    :meth:`raw` is its text exactly as in the file.
    """

    def __init__(self, text: str, starts, ends):
        self.text = text
        self.starts = np.asarray(starts, dtype=np.int64)
        self.ends = np.asarray(ends, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.starts)

    def raw(self, i: int) -> str:
        return self.text[int(self.starts[i]) : int(self.ends[i])]

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        f = loads_json(self.raw(i))
        geom = f.get("geometry") if isinstance(f, dict) else None
        if isinstance(geom, dict) and "coordinates" in geom:
            c = _compact(geom.get("type"), geom["coordinates"])
            geom["coordinates"] = geom["coordinates"] if c is None else c
        return f


@dataclass
class Layer:
    """Features of one kind: ids, positions in the file and geometries."""

    ids: list[str] = field(default_factory=list)
    index: list[int] = field(default_factory=list)
    geoms: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=object))

    def __len__(self) -> int:
        return len(self.ids)


@dataclass
class MapData:
    """Everything read from a map file.

    ``features`` are the file's features as parsed (coordinates compacted);
    the layers index into them.  ``terrain`` holds the catalog code of each
    Eido, ``regions`` its region (or None), ``eido_names`` its ``name``
    property (or None), ``pousa_road`` the road index of each Pousa.  On d20
    maps, ``road_class`` holds each road's class and
    ``river_current`` each river's current in miles an hour.  ``left_out``
    holds, for each problem the reader returned, the position in ``features``
    of the feature it is about.  ``pousa_places``: the tolerance the reader
    placed the Pousas along their roads with, and :func:`~eidomap.geometry.places_along`'s
    answer (the network build takes it at that tolerance, instead of asking again).
    """

    path: Path | None
    doc: dict
    features: list
    meta: dict
    catalog: Catalog
    eidos: Layer
    terrain: np.ndarray
    regions: list
    roads: Layer
    pousas: Layer
    pousa_road: np.ndarray
    fountains: Layer
    streams: Layer
    rivers: Layer = field(default_factory=Layer)
    river_current: np.ndarray = field(default_factory=lambda: np.empty(0))
    road_class: list = field(default_factory=list)
    left_out: tuple[int, ...] = ()
    eido_names: list = field(default_factory=list)
    pousa_places: tuple | None = None

    @property
    def rules(self) -> str:
        return rules_of(self.meta)

    @property
    def name(self) -> str:
        return name_of(self.meta, self.path)

    def label(self, index: int) -> str:
        """Feature number ``index`` by its id, or ``#index`` when it has none."""
        feature = self.features[index]
        return (feature_id(feature) if isinstance(feature, dict) else None) or f"#{index}"


def rules_of(meta: dict) -> str:
    """The rule set a map's ``eidomap`` member names (default ``"eido"``)."""
    return meta.get("rules", "eido")


def name_of(meta: dict, path: Path | None) -> str:
    """A map's name: the one its ``eidomap`` member gives, else its file's stem."""
    return str(meta.get("name") or (path.stem if path else "map"))


def _usable(xy: np.ndarray) -> np.ndarray:
    """Rows of ``xy`` whose coordinates are finite and within :data:`MAX_COORDINATE`."""
    with np.errstate(invalid="ignore"):
        return (np.abs(xy) <= MAX_COORDINATE).all(axis=1)


def wrong_id(fid) -> bool:
    """An id member that is there but is neither a string nor a whole number."""
    whole = isinstance(fid, float) and fid.is_integer()
    return fid is not None and (isinstance(fid, bool) or (not isinstance(fid, str | int) and not whole))


def _wrong_id(feature: dict) -> bool:
    """The feature has an id (``id`` or ``properties.id``) that :func:`wrong_id` refuses."""
    fid = feature.get("id")
    if fid is None and isinstance(feature.get("properties"), dict):
        fid = feature["properties"].get("id")
    return wrong_id(fid)


def feature_id(feature: dict) -> str | None:
    """A feature's id as text: its ``id``, else ``properties.id``; None when it has neither."""
    return id_text(feature.get("id"), feature.get("properties"))


def id_text(fid, props) -> str | None:
    """The id of a feature whose ``id`` member is ``fid`` and ``properties`` member ``props``, as text."""
    if fid is None and isinstance(props, dict):
        fid = props.get("id")
    return as_id(fid)


def as_id(value) -> str | None:
    """An id member as text: a string, or a number written as text; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    return str(value)


_SPACE = re.compile(r"[ \t\n\r]*")


def _int(text: str) -> int | float:
    """A JSON integer; one of more digits than Python converts is read as a float (an infinity, as 1e400 is)."""
    try:
        return int(text)
    except ValueError:
        return float(text)


#: The standard decoder with :func:`_int`: slower on integers, used only when the standard one refused a long one.
_LONG_NUMBERS = json.JSONDecoder(parse_int=_int)


def loads_json(text: str):
    """``json.loads``; a number of more digits than Python converts to int (a ``ValueError`` there) is read as a
    float, so a coordinate of 100,000 digits is "beyond ±1e15" as 1e400 is, never a traceback."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:
        return _LONG_NUMBERS.decode(text)


def _raw_decode(dec: json.JSONDecoder, text: str, i: int):
    """``dec.raw_decode`` with :func:`loads_json`'s reading of long numbers."""
    try:
        return dec.raw_decode(text, i)
    except json.JSONDecodeError:
        raise
    except ValueError:
        return _LONG_NUMBERS.raw_decode(text, i)


def _bad_json(path, exc: json.JSONDecodeError) -> MapError:
    return MapError(path, None, f"is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")


def scan(path, text: str, visit) -> tuple[dict, FeatureList]:
    """Walk the top-level object, decoding each feature and handing it to ``visit``.

    Returns the collection's other members and the list of feature spans.
    """
    dec = json.JSONDecoder()
    body: dict = {}
    starts: list[int] = []
    ends: list[int] = []

    def space(i: int) -> int:
        return _SPACE.match(text, i).end()

    def expect(i: int, char: str) -> int:
        if text[i : i + 1] != char:
            loads_json(text)  # raises the JSON error with its position, if any
            raise MapError(path, None, "is not a GeoJSON FeatureCollection")
        return space(i + 1)

    try:
        i = expect(space(0), "{")
        members = 0
        while text[i : i + 1] != "}":
            if members:
                i = expect(i, ",")
            members += 1
            key, i = _raw_decode(dec, text, i)
            if not isinstance(key, str):  # a member name must be a string: the decoder says where it is not
                loads_json(text)
            i = expect(space(i), ":")
            if key == "features":
                if "features" in body:
                    raise MapError(path, None, "has two 'features' members")
                if text[i : i + 1] != "[":
                    raise MapError(path, None, "has a 'features' member that is not a list")
                i = space(i + 1)
                while text[i : i + 1] != "]":
                    if starts:
                        i = expect(i, ",")
                    start = i
                    feature, i = _raw_decode(dec, text, i)
                    if len(starts) >= MAX_FEATURES:
                        raise MapError(path, None, f"has more than the {MAX_FEATURES:,}-feature limit")
                    starts.append(start)
                    ends.append(i)
                    visit(len(starts) - 1, feature)
                    i = space(i)
                body["features"] = None
                i = space(i + 1)
            else:
                body[key], i = _raw_decode(dec, text, i)
                i = space(i)
        if text[space(i + 1) :]:
            loads_json(text)  # trailing data: the decoder names it
    except json.JSONDecodeError as exc:
        raise _bad_json(path, exc) from None
    except RecursionError:
        raise MapError(path, None, "is nested too deeply to be a map") from None
    if body.get("type") != "FeatureCollection":
        raise MapError(path, None, "is not a GeoJSON FeatureCollection")
    if "features" not in body:
        raise MapError(path, None, "has no 'features' list")
    del body["features"]
    return body, FeatureList(text, starts, ends)


def parse_meta(path, doc: dict) -> dict:
    meta = doc.get("eidomap", {})
    if not isinstance(meta, dict):
        raise MapError(path, None, "the 'eidomap' member must be an object")
    fmt = meta.get("format", FORMAT_VERSION)
    if fmt != FORMAT_VERSION:
        raise MapError(path, None, f"map format {fmt!r} is not supported (this eidomap reads format {FORMAT_VERSION})")
    if not isinstance(meta.get("name", ""), str):
        raise MapError(path, None, f"'name' must be text, got {meta['name']!r}")
    if meta.get("rules", "eido") not in RULE_SETS:
        raise MapError(path, None, f"'rules' must be one of {', '.join(RULE_SETS)}, got {meta.get('rules')!r}")
    upm = meta.get("units_per_mile")
    if upm is not None and (isinstance(upm, bool) or not isinstance(upm, int | float) or not upm > 0
                            or not math.isfinite(upm)):
        raise MapError(path, None, f"'units_per_mile' must be a positive number, got {upm!r}")
    return meta


def resolve_catalog(path, meta: dict, catalog) -> Catalog:
    if isinstance(catalog, Catalog):
        return catalog
    if catalog is not None:
        return load_catalog(catalog)
    if "catalog" in meta and path is not None:
        return load_catalog(beside(path, meta["catalog"], "catalog"))
    return load_catalog()


class Reader:
    """Sorts features into layers as they are decoded, and collects problems.

    Eido coordinates go into flat buffers (``xy``, ring lengths, parts); the
    other kinds (a few roads, Pousas, fountains, streams) keep small arrays.
    Other sources (:mod:`eidomap.io.tables`) feed it GeoJSON-like feature dicts
    through :meth:`visit` too, overriding :meth:`eido` to take their geometries.
    """

    def __init__(self, path):
        self.path = path
        self.problems: list[tuple[int, Problem]] = []  # with the feature's position, to sort
        self.seen: dict[str, int] = {}
        self.fid: dict[int, str] = {}
        self.by_kind: dict[str, list[int]] = {k: [] for k in KINDS}
        self.coords: dict[int, Coords] = {}  # lines
        self.props: dict[int, dict] = {}  # lines
        self.point_xy = {"pousa": array("d"), "fountain": array("d")}  # (x, y) of each, flat, in by_kind order
        self.pousa_roads: list = []  # each Pousa's 'road' property
        self.xy = array("d")
        self.ring_len = array("q")
        self.part_rings = array("q")
        self.eido_rings = array("q")
        self.eido_parts = array("q")
        self.is_multi: list[bool] = []
        self.terrain_names: list = []
        self.regions: list = []
        self.eido_names: list = []
        self.names: dict[str, str] = {}

    def problem(self, code: str, index: int, message: str, location=None, others=()) -> None:
        self.problems.append((index, Problem(code, ERROR, (self.label(index), *others), location, message)))

    def label(self, index: int) -> str:
        """A feature's id, or ``#index`` when it has none."""
        return self.fid.get(index) or f"#{index}"

    def visit(self, i: int, f) -> None:
        """Check one feature and file it under its kind."""
        if not isinstance(f, dict) or f.get("type") != "Feature":
            self.problem("not-a-feature", i, "is not a GeoJSON Feature")
            return
        if _wrong_id(f):
            self.problem("bad-id", i, f"has an id that is not a string or an integer: {f.get('id')!r}")
            return
        fid = feature_id(f)
        if fid is not None:
            self.fid[i] = fid
        props = f.get("properties")
        if props is None:
            props = {}
        if not isinstance(props, dict):
            self.problem("not-a-feature", i, "has 'properties' that is not an object")
            return
        kind = props.get("kind")
        if kind not in KINDS:
            what = "has no 'kind' property" if kind is None else f"has unknown kind {kind!r}{did_you_mean(kind, KINDS)}"
            self.problem("unknown-kind", i, f"{what} (expected one of {', '.join(KINDS)})")
            return
        if fid is None and kind in ("eido", "road"):
            self.problem("missing-id", i, f"is an {kind} without an id")
            return
        if fid is not None:
            if fid in self.seen:
                j = self.seen[fid]
                self.problem("duplicate-id", i, f"has id {fid!r}, already used by feature #{j}", others=(f"#{j}",))
                return
            self.seen[fid] = i
        geom = f.get("geometry")
        if not isinstance(geom, dict) or geom.get("type") not in GEOMETRY_TYPES[kind]:
            got = geom.get("type") if isinstance(geom, dict) else geom
            want = " or ".join(GEOMETRY_TYPES[kind])
            self.problem("invalid-geometry", i, f"is an {kind} whose geometry must be a {want}, got {got!r}")
            return
        if kind == "eido":
            if not self.add_eido(i, geom["type"], geom.get("coordinates"), props.get("terrain"), props.get("region"),
                                 props.get("name")):
                self.malformed(i, geom["type"])
            return
        c = _compact(geom["type"], geom.get("coordinates"))
        if c is None:
            self.malformed(i, geom["type"])
            return
        if kind in self.point_xy:
            self.point_xy[kind].extend(c.rings[0][0, :2].astype(float).tolist())
            if kind == "pousa":
                self.pousa_roads.append(props.get("road"))
        else:
            self.coords[i] = c
            self.props[i] = props
        self.by_kind[kind].append(i)

    def add_plain_pousas(self, index: list[int], fids: list, roads: list, xy: np.ndarray) -> None:
        """File Pousas ``index`` at once, as :meth:`visit` would: their ids (text, used nowhere before, or None),
        their roads (texts) and their points ``xy`` (``(n, 2)`` floats)."""
        named = [(i, fid) for i, fid in zip(index, fids, strict=True) if fid is not None]
        self.fid.update(named)
        self.seen.update((fid, i) for i, fid in named)
        self.point_xy["pousa"].frombytes(as_bytes(np.asarray(xy, dtype=np.float64)))
        self.pousa_roads.extend(roads)
        self.by_kind["pousa"].extend(index)

    def malformed(self, i: int, gtype: str) -> None:
        self.problem("invalid-geometry", i, f"has malformed {gtype} coordinates")

    def add_eido(self, i: int, gtype: str, coords, terrain, region, name=None) -> bool:
        """File Eido ``i``, whose id and geometry type are checked; False (nothing kept) if its coordinates are not."""
        if not self.eido(gtype, coords):
            return False
        self.file_eido(i, terrain, region, name)
        return True

    def file_eido(self, i: int, terrain, region, name) -> None:
        """Note Eido ``i``'s properties, its coordinates filed."""
        self.terrain_names.append(self.intern(terrain))
        self.regions.append(self.intern(region))
        self.eido_names.append(name)
        self.by_kind["eido"].append(i)

    def intern(self, value):
        """One shared string per terrain or region name, not one per Eido."""
        return self.names.setdefault(value, value) if isinstance(value, str) else value

    def eido(self, gtype: str, coords) -> bool:
        """Append an Eido's rings to the flat buffers; False (nothing kept) if malformed."""
        if not isinstance(coords, list) or not coords:
            return False
        polys = [coords] if gtype == "Polygon" else coords
        n_xy, n_ring = len(self.xy), len(self.ring_len)
        try:
            for poly in polys:
                if not isinstance(poly, list) or not poly:
                    raise ValueError
                for ring in poly:
                    if set(map(len, ring)) != {2}:
                        if not isinstance(ring, list) or min(map(len, ring)) < 2:
                            raise ValueError
                        ring = [p[:2] for p in ring]
                    self.xy.extend(chain.from_iterable(ring))
                    self.ring_len.append(len(ring))
        except (TypeError, ValueError, OverflowError):
            del self.xy[n_xy:]
            del self.ring_len[n_ring:]
            return False
        self.part_rings.extend(len(p) for p in polys)
        self.eido_rings.append(len(self.ring_len) - n_ring)
        self.eido_parts.append(len(polys))
        self.is_multi.append(gtype == "MultiPolygon")
        return True

    def ids(self, indices) -> list[str]:
        try:  # every one has an id (as every Eido and road kept): one lookup each, in C
            return list(map(self.fid.__getitem__, indices))
        except KeyError:
            return [self.fid.get(i) or f"#{i}" for i in indices]

    def not_finite(self, i: int) -> None:
        limit = f"{MAX_COORDINATE:.0e}".replace("e+", "e")
        self.problem("invalid-geometry", i, f"has a NaN or infinite coordinate, or one beyond ±{limit}")

    def points(self, kind: str, wanted: np.ndarray | None = None) -> Layer:
        """The layer of the points of ``kind`` (those at positions ``wanted`` of ``by_kind[kind]``, or all)."""
        indices = self.by_kind[kind]
        xy = np.frombuffer(self.point_xy[kind], dtype=np.float64).reshape(-1, 2)
        if wanted is not None:
            indices, xy = [indices[k] for k in wanted.tolist()], xy[wanted]
        ok = _usable(xy)
        for k in np.flatnonzero(~ok):
            self.not_finite(indices[k])
        keep = [i for i, good in zip(indices, ok, strict=True) if good]
        return Layer(self.ids(keep), keep, shapely.points(xy[ok]))

    def lines(self, indices) -> Layer:
        keep = []
        for i in indices:
            xy = self.coords[i].rings[0][:, :2]
            if not _usable(xy).all():
                self.not_finite(i)
            elif not np.any(xy != xy[0]):
                self.problem("invalid-geometry", i, "is a LineString with fewer than two distinct points")
            else:
                keep.append(i)
        geoms = np.array([shapely.linestrings(self.coords[i].rings[0][:, :2]) for i in keep], dtype=object)
        return Layer(self.ids(keep), keep, geoms.reshape(len(keep)))

    def polygons(self, keep: np.ndarray) -> tuple[Layer, np.ndarray]:
        """Build the Eido polygons in one vectorised pass (``shapely.from_ragged_array``).

        ``keep`` marks the Eidos (in file order) still wanted; returns the layer
        and the positions (in that order) of the Eidos it holds.
        """
        index = np.asarray(self.by_kind["eido"], dtype=np.int64)
        if len(index) == 0:
            return Layer(), np.empty(0, np.int64)
        lengths = np.frombuffer(self.ring_len, dtype=np.int64)
        xy = np.frombuffer(self.xy, dtype=np.float64).reshape(-1, 2)
        ring_eido = np.repeat(np.arange(len(index)), np.frombuffer(self.eido_rings, dtype=np.int64))
        part_eido = np.repeat(np.arange(len(index)), np.frombuffer(self.eido_parts, dtype=np.int64))
        starts = np.cumsum(lengths) - lengths
        unusable = ~_usable(xy)
        nan_ring = np.logical_or.reduceat(unusable, starts) if unusable.any() else np.zeros(len(starts), bool)
        closed = np.all(xy[starts] == xy[starts + lengths - 1], axis=1)
        vertices = np.bincount(ring_eido, lengths, minlength=len(index))
        nan = unique(ring_eido[nan_ring])
        big = np.setdiff1d(np.flatnonzero(vertices > MAX_EIDO_VERTICES), nan)
        shape = np.setdiff1d(ring_eido[(lengths < 4) | ~closed], np.r_[nan, big])
        for k in nan:
            self.not_finite(int(index[k]))
        for k in big:
            self.problem("invalid-geometry", int(index[k]), f"has {int(vertices[k]):,} positions, more than the"
                         f" {MAX_EIDO_VERTICES:,} one Eido may have")
        for k in shape:
            first = starts[np.searchsorted(ring_eido, k)]
            self.problem("invalid-geometry", int(index[k]),
                         "has a polygon ring that is not closed or has fewer than 4 positions",
                         location=(float(xy[first, 0]), float(xy[first, 1])))
        keep = keep.copy()
        keep[nan] = False
        keep[big] = False
        keep[shape] = False
        if not keep.any():
            return Layer(), np.empty(0, np.int64)
        pos, geoms = self.shapes_of(keep, xy, lengths, ring_eido, part_eido)
        valid = in_threads(shapely.is_valid, geoms)
        for k in np.flatnonzero(~valid):
            reason = shapely.is_valid_reason(geoms[k])
            self.problem("invalid-geometry", int(index[pos[k]]), f"is not a valid polygon ({reason})",
                         location=_reason_location(reason, geoms[k]))
        pos, geoms = pos[valid], geoms[valid]
        feats = index[pos].tolist()
        return Layer(self.ids(feats), feats, geoms), pos


    def shapes_of(self, keep, xy, lengths, ring_eido, part_eido) -> tuple[np.ndarray, np.ndarray]:
        """The positions of the Eidos ``keep`` marks and their polygons, built from the flat buffers."""
        part_rings = np.frombuffer(self.part_rings, dtype=np.int64)
        if not keep.all():  # (a copy of every kept position: not when all are kept)
            keep_ring = keep[ring_eido]
            xy, lengths = xy[np.repeat(keep_ring, lengths)], lengths[keep_ring]
            part_rings, part_eido = part_rings[keep[part_eido]], part_eido[keep[part_eido]]
        polys = shapely.from_ragged_array(shapely.GeometryType.POLYGON, xy,
                                          (np.r_[0, np.cumsum(lengths)], np.r_[0, np.cumsum(part_rings)]))
        first = np.flatnonzero(np.r_[True, part_eido[1:] != part_eido[:-1]])
        pos = part_eido[first]
        multi = np.asarray(self.is_multi, dtype=bool)[pos]
        geoms = np.empty(len(pos), dtype=object)
        geoms[~multi] = polys[first[~multi]]
        if multi.any():
            group = np.repeat(np.arange(len(pos)), np.diff(np.r_[first, len(part_eido)]))
            member = multi[group]
            geoms[multi] = shapely.multipolygons(polys[member], indices=unique_inverse(group[member])[1])
        return pos, geoms


def _reason_location(reason: str, geom) -> tuple[float, float]:
    """The point GEOS names in an invalidity reason such as 'Self-intersection[3 4]'."""
    if "[" in reason and reason.endswith("]"):
        try:
            x, y = (float(v) for v in reason[reason.rindex("[") + 1 : -1].split()[:2])
            return (x, y)
        except ValueError:
            pass
    p = shapely.get_point(shapely.get_exterior_ring(shapely.get_geometry(geom, 0)), 0)
    return (shapely.get_x(p), shapely.get_y(p))


def read_geojson(path, catalog=None, data: bytes | None = None, *,
                 fast: bool | None = None) -> tuple[MapData, list[Problem]]:
    """Read a map leniently: what can be used, and a problem for everything else.

    Raises :class:`~eidomap.errors.MapError` only when the file cannot be read
    as a map at all (not JSON, not a FeatureCollection, too large, bad
    ``eidomap`` member, bad catalog).  ``fast``: read with msgspec
    (:mod:`eidomap.io.fastjson`; the same map, problems and errors, faster);
    by default when it is installed and the ``EIDOMAP_READER`` environment
    variable is not ``json``.
    """
    from . import fastjson

    path = None if path is None else Path(path)
    raw = read_bounded(path, MAX_MAP_BYTES) if data is None else data
    if fast is None:
        fast = fastjson.available() and os.environ.get("EIDOMAP_READER", "").lower() != "json"
    with paused_gc():
        if fast:
            r = Reader(path)
            found = fastjson.read_features(path, raw, r)
            if found is not None:
                return assemble(path, r, *found, catalog)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise MapError(path, None, "is not UTF-8 text") from None
        del raw  # the bytes are dropped as soon as they are decoded (unless the caller holds them)
        r = Reader(path)
        return assemble(path, r, *scan(path, text, r.visit), catalog)


def assemble(path, r: Reader, body: dict, features, catalog) -> tuple[MapData, list[Problem]]:
    """The map from features ``r`` has visited: layers, catalog codes, Pousa roads, and every problem found.

    ``body`` holds the collection's members other than its features (the
    ``eidomap`` member among them); ``features`` the features as a sequence.
    """
    meta = parse_meta(path, body)
    cat = resolve_catalog(path, meta, catalog)
    codes = cat.codes
    code = _codes_of(r.terrain_names, codes)
    known = code >= 0
    for k in np.flatnonzero(~known):
        i = r.by_kind["eido"][k]
        name = r.terrain_names[k]
        r.problem("unknown-terrain", i, "has no 'terrain' property (expected a terrain of the catalog)" if name is None
                  else f"has terrain {name!r}, which is not in the catalog{did_you_mean(name, codes)}")
    eidos, pos = r.polygons(known)
    if 0 < (side := larger_side(eidos.geoms)) < MIN_SIDE:  # its tolerance, squared, would leave the doubles
        raise MapError(path, None, f"is {side:g} units across, smaller than any map eidomap draws (at least"
                                   f" {MIN_SIDE:g})")
    roads = r.lines(r.by_kind["road"])
    road_index = {rid: k for k, rid in enumerate(roads.ids)}
    refs = [ref if type(ref) is str else None if ref is None or isinstance(ref, bool) else str(ref)
            for ref in r.pousa_roads]
    on = np.array([road_index.get(ref, -1) for ref in refs], dtype=np.int64).reshape(-1)
    for k in np.flatnonzero(on < 0).tolist():
        r.problem("unknown-road", r.by_kind["pousa"][k], f"is a pousa on road {refs[k]!r}, which is not a road of"
                                                        f" this map{did_you_mean(refs[k], roads.ids)}")
    wanted = np.flatnonzero(on >= 0)
    pousas = r.points("pousa", wanted)
    placed = np.isin(np.asarray(r.by_kind["pousa"], dtype=np.int64)[wanted], pousas.index)
    pousa_road = on[wanted][placed]
    pousas.ids = [r.fid.get(i, "") for i in pousas.index]
    fountains = r.points("fountain")
    streams = r.lines(r.by_kind["stream"])
    terrain = code[pos]
    regions = [r.regions[k] for k in pos]
    eido_names = [r.eido_names[k] for k in pos]
    currents = {i: _current(r, i) for i in r.by_kind["river"]}
    rivers = r.lines([i for i, c in currents.items() if c is not None])
    md = MapData(path, body, features, meta, cat, eidos, terrain, regions, roads, pousas,
                 np.asarray(pousa_road, dtype=np.int32), fountains, streams, rivers,
                 np.array([currents[i] for i in rivers.index], dtype=float),
                 [_road_class(r, i, meta.get("rules") == "d20") for i in roads.index], eido_names=eido_names)
    _name_pousas(md, r)
    found = sorted(r.problems, key=lambda item: item[0])
    md.left_out = tuple(i for i, _ in found)
    return md, [p for _, p in found]


def _codes_of(names: list, codes: dict[str, int]) -> np.ndarray:
    """The catalog code of each terrain name; -1 where it is not one (not text, or not in the catalog)."""
    try:  # hashable names, a catalog of texts: only a text can be found (one lookup each, in C)
        found = list(map(codes.get, names))
    except TypeError:  # a list or an object among them
        found = [codes.get(t) if type(t) is str else None for t in names]
    out = np.fromiter(found, object, len(found))
    missing = out == None  # noqa: E711 (elementwise)
    out[missing] = -1
    return out.astype(np.int32)


def _current(r: Reader, i: int) -> float | None:
    """A river's ``current`` (mph, default 3); None, with a problem, if it is not a number >= 0."""
    c = r.props[i].get("current", DEFAULT_CURRENT)
    if isinstance(c, bool) or not isinstance(c, int | float) or not (math.isfinite(c) and c >= 0):
        r.problem("bad-property", i, f"is a river whose 'current' must be a number of miles an hour >= 0, got {c!r}")
        return None
    return float(c)


def _road_class(r: Reader, i: int, d20: bool) -> str | None:
    """A road's ``class``: required on d20 maps (highway, road or trail)."""
    cls = r.props[i].get("class")
    if d20 and cls not in ROAD_CLASSES:
        r.problem("bad-property", i, f"is a road whose 'class' must be one of {', '.join(ROAD_CLASSES)}"
                  f" on a d20 map, got {cls!r}")
        return None
    return cls if isinstance(cls, str) else None


def _name_pousas(md: MapData, r: Reader) -> None:
    """Give each Pousa without an id the name ``<road>@<k>`` (k-th along its road)."""
    if not len(md.pousas):
        return
    tol = default_tolerance(md.eidos.geoms)
    pos, near = places_along(md.roads.geoms, md.pousa_road, md.pousas.geoms, tol)
    md.pousa_places = (tol, pos, near)
    order = np.lexsort((pos, md.pousa_road))
    rank = np.empty(len(order), dtype=np.int64)
    road_sorted = md.pousa_road[order]
    starts = np.searchsorted(road_sorted, road_sorted)
    rank[order] = np.arange(len(order)) - starts
    unnamed = [k for k, pid in enumerate(md.pousas.ids) if not pid]
    roads = md.roads.ids
    # distinct from one another (a name splits at its last "@" into one road and one rank), not from the ids read
    names = [f"{roads[road]}@{n + 1}" for road, n in zip(md.pousa_road[unnamed].tolist(), rank[unnamed].tolist(),
                                                          strict=True)]
    index = [md.pousas.index[k] for k in unnamed]
    for i, name in zip(index, names, strict=True):
        if name in r.seen:
            r.problem("duplicate-id", i, f"gets the automatic id {name!r}, already used")
    for k, name in zip(unnamed, names, strict=True):
        md.pousas.ids[k] = name
    r.seen.update(zip(names, index, strict=True))


def _encode(obj):
    if isinstance(obj, Coords):
        return obj.tolist()
    raise TypeError(f"cannot write {type(obj).__name__} to GeoJSON")


def geometry_coords(geom) -> Coords:
    """Coords for a (possibly edited) Shapely polygon or multipolygon."""
    polys = shapely.get_parts(geom)
    rings, parts = [], []
    for p in polys:
        rs = [shapely.get_exterior_ring(p), *shapely.get_interior_ring(p, range(shapely.get_num_interior_rings(p)))]
        rings.extend(shapely.get_coordinates(r) for r in rs)
        parts.append(len(rs))
    if shapely.get_type_id(geom) == shapely.GeometryType.POLYGON:
        return Coords("Polygon", rings)
    return Coords("MultiPolygon", rings, parts)


def dumps_geojson(md: MapData, eido_geoms: np.ndarray | None = None) -> str:
    """Serialise a map, optionally with new Eido geometries (as ``fix`` does).

    A feature whose geometry is unchanged is copied from the original text;
    a changed one keeps every property and foreign member it had.
    """
    changed: dict[int, object] = {}
    if eido_geoms is not None:
        eido_geoms = np.asarray(eido_geoms, dtype=object)
        differ = ~shapely.equals_exact(md.eidos.geoms, eido_geoms, 0.0)
        changed = {md.eidos.index[k]: eido_geoms[k] for k in np.flatnonzero(differ)}
    parts = []
    for i in range(len(md.features)):
        if i not in changed:
            parts.append(md.features.raw(i))
            continue
        f = md.features[i]
        coords = geometry_coords(changed[i])
        f["geometry"] = {**f["geometry"], "type": coords.type, "coordinates": coords}
        parts.append(json.dumps(f, default=_encode, ensure_ascii=False))
    head = json.dumps({**md.doc, "features": []}, ensure_ascii=False)  # ends with '"features": []}'
    return head[:-3] + "[" + ",\n".join(parts) + "]}"


def write_geojson(md: MapData, path, eido_geoms: np.ndarray | None = None) -> None:
    """Write a map atomically (see :func:`dumps_geojson`)."""
    write_atomic(path, dumps_geojson(md, eido_geoms).encode("utf-8"))
