"""Reading and writing eidomap GeoJSON maps.

:func:`read_geojson` is lenient: it returns every feature it could use plus a
list of :class:`~eidomap.problems.Problem` for the rest, so that validation
can report everything at once.  :func:`eidomap.load` is the strict reader
built on it: it raises the first error as a :class:`~eidomap.errors.MapError`.

Coordinates are compacted while the JSON is parsed (one small numpy array per
ring instead of nested lists), which keeps the peak memory of reading a
million-Eido map low.  Writing is lossless: every property and foreign member
is written back as it was read, and coordinates are written from the same
float64 values.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import shapely

from ..catalog import Catalog, load_catalog
from ..errors import MapError
from ..problems import ERROR, Problem
from .files import MAX_MAP_BYTES, beside, read_bounded, write_atomic

__all__ = ["KINDS", "Coords", "Layer", "MapData", "read_geojson", "write_geojson", "dumps_geojson"]

KINDS = ("eido", "road", "pousa", "fountain", "stream")
GEOMETRY_TYPES = {
    "eido": ("Polygon", "MultiPolygon"),
    "road": ("LineString",),
    "pousa": ("Point",),
    "fountain": ("Point",),
    "stream": ("LineString",),
}
RULE_SETS = ("eido", "d20")
FORMAT_VERSION = 1
#: Most features a map may hold.
MAX_FEATURES = 5_000_000


class Coords:
    """Coordinates of one geometry, parsed into numpy arrays (one per ring).

    ``rings`` holds one ``(n, d)`` array per ring (per line, per point);
    ``parts`` the number of rings of each polygon of a MultiPolygon.
    """

    __slots__ = ("type", "rings", "parts")

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


def _hook(obj: dict) -> dict:
    type_ = obj.get("type")
    if isinstance(type_, str) and "coordinates" in obj:
        compact = _compact(type_, obj["coordinates"])
        if compact is not None:
            obj["coordinates"] = compact
    return obj


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
    Eido, ``regions`` its region (or None), ``pousa_road`` the road index of
    each Pousa.
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

    @property
    def rules(self) -> str:
        return self.meta.get("rules", "eido")

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or (self.path.stem if self.path else "map"))

    def label(self, index: int) -> str:
        """How messages name feature number ``index``: its id, or ``#index``."""
        return _label(self.features[index], index)


def _label(feature, index: int) -> str:
    fid = _feature_id(feature) if isinstance(feature, dict) else None
    return repr(fid) if fid is not None else f"#{index}"


def _feature_id(feature: dict) -> str | None:
    fid = feature.get("id")
    if fid is None and isinstance(feature.get("properties"), dict):
        fid = feature["properties"].get("id")
    if isinstance(fid, bool) or not isinstance(fid, str | int | float):
        return None
    return str(fid)


def _parse_document(path, data: bytes) -> dict:
    try:
        doc = json.loads(data, object_hook=_hook)
    except UnicodeDecodeError:
        raise MapError(path, None, "is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise MapError(path, None, f"is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise MapError(path, None, "is nested too deeply to be a map") from None
    if not isinstance(doc, dict) or doc.get("type") != "FeatureCollection":
        raise MapError(path, None, "is not a GeoJSON FeatureCollection")
    features = doc.get("features")
    if not isinstance(features, list):
        raise MapError(path, None, "has no 'features' list")
    if len(features) > MAX_FEATURES:
        raise MapError(path, None, f"has {len(features):,} features, more than the {MAX_FEATURES:,} limit")
    return doc


def _parse_meta(path, doc: dict) -> dict:
    meta = doc.get("eidomap", {})
    if not isinstance(meta, dict):
        raise MapError(path, None, "the 'eidomap' member must be an object")
    fmt = meta.get("format", FORMAT_VERSION)
    if fmt != FORMAT_VERSION:
        raise MapError(path, None, f"map format {fmt!r} is not supported (this eidomap reads format {FORMAT_VERSION})")
    if meta.get("rules", "eido") not in RULE_SETS:
        raise MapError(path, None, f"'rules' must be one of {', '.join(RULE_SETS)}, got {meta.get('rules')!r}")
    upm = meta.get("units_per_mile")
    if upm is not None and (isinstance(upm, bool) or not isinstance(upm, int | float) or not upm > 0
                            or not math.isfinite(upm)):
        raise MapError(path, None, f"'units_per_mile' must be a positive number, got {upm!r}")
    return meta


def _resolve_catalog(path, meta: dict, catalog) -> Catalog:
    if isinstance(catalog, Catalog):
        return catalog
    if catalog is not None:
        return load_catalog(catalog)
    if "catalog" in meta and path is not None:
        return load_catalog(beside(path, meta["catalog"], "catalog"))
    return load_catalog()


class _Reader:
    """One pass over the features, sorting them into layers and problems."""

    def __init__(self, path, doc: dict, catalog: Catalog):
        self.path = path
        self.features = doc["features"]
        self.catalog = catalog
        self.problems: list[Problem] = []
        self.seen: dict[str, int] = {}
        self.by_kind: dict[str, list[int]] = {k: [] for k in KINDS}

    def problem(self, code: str, index: int, message: str, location=None, others=()) -> None:
        labels = (self.label(index), *others)
        self.problems.append(Problem(code, ERROR, labels, location, message))

    def label(self, index: int) -> str:
        return _label(self.features[index], index)

    def sort(self) -> None:
        for i, f in enumerate(self.features):
            if not isinstance(f, dict) or f.get("type") != "Feature":
                self.problem("not-a-feature", i, "is not a GeoJSON Feature")
                continue
            props = f.get("properties")
            if props is None:
                props = {}
            if not isinstance(props, dict):
                self.problem("not-a-feature", i, "has 'properties' that is not an object")
                continue
            kind = props.get("kind")
            if kind not in KINDS:
                self.problem("unknown-kind", i, f"has unknown kind {kind!r} (expected one of {', '.join(KINDS)})")
                continue
            fid = _feature_id(f)
            if fid is None and kind in ("eido", "road"):
                self.problem("missing-id", i, f"is an {kind} without an id")
                continue
            if fid is not None:
                if fid in self.seen:
                    j = self.seen[fid]
                    self.problem("duplicate-id", i, f"has id {fid!r}, already used by feature #{j}",
                                 others=(f"#{j}",))
                    continue
                self.seen[fid] = i
            geom = f.get("geometry")
            if not isinstance(geom, dict) or geom.get("type") not in GEOMETRY_TYPES[kind]:
                got = geom.get("type") if isinstance(geom, dict) else geom
                want = " or ".join(GEOMETRY_TYPES[kind])
                self.problem("invalid-geometry", i, f"is an {kind} whose geometry must be a {want}, got {got!r}")
                continue
            if not isinstance(geom.get("coordinates"), Coords):
                self.problem("invalid-geometry", i, f"has malformed {geom['type']} coordinates")
                continue
            if any(not np.isfinite(r[:, :2]).all() for r in geom["coordinates"].rings):
                self.problem("invalid-geometry", i, "has a NaN or infinite coordinate")
                continue
            if kind == "eido" and props.get("terrain") not in self.catalog.terrain_names:
                self.problem("unknown-terrain", i, f"has terrain {props.get('terrain')!r}, which is not in the catalog")
                continue
            self.by_kind[kind].append(i)

    def ids(self, indices) -> list[str]:
        return [_feature_id(self.features[i]) or self.label(i) for i in indices]

    def coords(self, i: int) -> Coords:
        return self.features[i]["geometry"]["coordinates"]

    def points(self, indices) -> np.ndarray:
        xy = np.array([self.coords(i).rings[0][0, :2] for i in indices], dtype=float).reshape(-1, 2)
        return shapely.points(xy)

    def lines(self, indices) -> Layer:
        keep = []
        for i in indices:
            n = len(np.unique(self.coords(i).rings[0][:, :2], axis=0))
            if n < 2:
                self.problem("invalid-geometry", i, "is a LineString with fewer than two distinct points")
            else:
                keep.append(i)
        geoms = np.array([shapely.linestrings(self.coords(i).rings[0][:, :2]) for i in keep], dtype=object)
        return Layer(self.ids(keep), keep, geoms.reshape(len(keep)))

    def polygons(self, indices) -> Layer:
        """Build every Eido polygon in one vectorised pass."""
        ring_arrays, ring_feature, ring_part, part_feature = [], [], [], []
        for i in indices:
            c = self.coords(i)
            parts = c.parts or [len(c.rings)]
            ring_arrays.extend(c.rings)
            ring_feature.extend([i] * len(c.rings))
            for n in parts:
                ring_part.extend([len(part_feature)] * n)
                part_feature.append(i)
        if not ring_arrays:
            return Layer()
        lengths = np.fromiter((len(r) for r in ring_arrays), dtype=np.int64, count=len(ring_arrays))
        xy = np.concatenate([r[:, :2] for r in ring_arrays]).astype(float, copy=False)
        starts = np.cumsum(lengths) - lengths
        ring_feature = np.asarray(ring_feature)
        closed = np.all(xy[starts] == xy[starts + np.maximum(lengths - 1, 0)], axis=1)
        bad_ring = (lengths < 4) | ~closed
        bad = set(ring_feature[bad_ring].tolist())
        for i in sorted(bad):
            self.problem("invalid-geometry", i, "has a polygon ring that is not closed or has fewer than 4 positions",
                         location=tuple(self.coords(i).rings[0][0, :2]))
        keep_ring = ~np.isin(ring_feature, list(bad)) if bad else np.ones(len(lengths), bool)
        coord_ring = np.repeat(np.arange(len(lengths)), lengths)
        keep_coord = keep_ring[coord_ring]
        rings = shapely.linearrings(xy[keep_coord], indices=coord_ring[keep_coord])
        ring_part = np.asarray(ring_part)[keep_ring]
        polys = shapely.polygons(rings, indices=ring_part)
        part_ids = np.unique(ring_part)
        part_feature = np.asarray(part_feature)[part_ids]
        feats, first = np.unique(part_feature, return_index=True)
        multi = np.array([self.coords(i).type == "MultiPolygon" for i in feats], dtype=bool)
        geoms = np.empty(len(feats), dtype=object)
        order = np.argsort(first)
        feats, first, multi = feats[order], first[order], multi[order]
        single = ~multi
        geoms[single] = polys[first[single]]
        if multi.any():
            member = np.isin(part_feature, feats[multi])
            geoms[multi] = shapely.multipolygons(polys[member], indices=np.searchsorted(feats[multi], part_feature[member]))
        valid = shapely.is_valid(geoms)
        for k in np.flatnonzero(~valid):
            reason = shapely.is_valid_reason(geoms[k])
            self.problem("invalid-geometry", int(feats[k]), f"is not a valid polygon ({reason})",
                         location=_reason_location(reason, geoms[k]))
        feats, geoms = feats[valid], geoms[valid]
        return Layer(self.ids(feats.tolist()), feats.tolist(), geoms)


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


def read_geojson(path, catalog=None, data: bytes | None = None) -> tuple[MapData, list[Problem]]:
    """Read a map leniently: what can be used, and a problem for everything else.

    Raises :class:`~eidomap.errors.MapError` only when the file cannot be read
    as a map at all (not JSON, not a FeatureCollection, too large, bad
    ``eidomap`` member, bad catalog).
    """
    path = None if path is None else Path(path)
    if data is None:
        data = read_bounded(path, MAX_MAP_BYTES)
    doc = _parse_document(path, data)
    meta = _parse_meta(path, doc)
    cat = _resolve_catalog(path, meta, catalog)
    r = _Reader(path, doc, cat)
    r.sort()
    eidos = r.polygons(r.by_kind["eido"])
    roads = r.lines(r.by_kind["road"])
    road_index = {rid: k for k, rid in enumerate(roads.ids)}
    pousa_idx, pousa_road = [], []
    for i in r.by_kind["pousa"]:
        ref = r.features[i]["properties"].get("road")
        ref = None if ref is None or isinstance(ref, bool) else str(ref)
        if ref not in road_index:
            r.problem("unknown-road", i, f"is a pousa on road {ref!r}, which is not a road of this map")
            continue
        pousa_idx.append(i)
        pousa_road.append(road_index[ref])
    pousas = Layer([_feature_id(r.features[i]) or "" for i in pousa_idx], pousa_idx, r.points(pousa_idx))
    fountains = Layer(r.ids(r.by_kind["fountain"]), r.by_kind["fountain"], r.points(r.by_kind["fountain"]))
    streams = r.lines(r.by_kind["stream"])
    props = [r.features[i]["properties"] for i in eidos.index]
    terrain = np.array([cat.terrain_code(p["terrain"]) for p in props], dtype=np.int32)
    regions = [p.get("region") for p in props]
    body = {k: v for k, v in doc.items() if k != "features"}
    md = MapData(path, body, r.features, meta, cat, eidos, terrain, regions, roads, pousas,
                 np.asarray(pousa_road, dtype=np.int32), fountains, streams)
    _name_pousas(md, r)
    return md, r.problems


def _name_pousas(md: MapData, r: _Reader) -> None:
    """Give each Pousa without an id the name ``<road>@<k>`` (k-th along its road)."""
    if not len(md.pousas):
        return
    lines = md.roads.geoms[md.pousa_road]
    pos = shapely.line_locate_point(lines, md.pousas.geoms)
    order = np.lexsort((pos, md.pousa_road))
    rank = np.empty(len(order), dtype=np.int64)
    road_sorted = md.pousa_road[order]
    starts = np.searchsorted(road_sorted, road_sorted)
    rank[order] = np.arange(len(order)) - starts
    for k, pid in enumerate(md.pousas.ids):
        if not pid:
            name = f"{md.roads.ids[md.pousa_road[k]]}@{rank[k] + 1}"
            if name in r.seen:
                r.problem("duplicate-id", md.pousas.index[k], f"gets the automatic id {name!r}, already used")
            md.pousas.ids[k] = name
            r.seen[name] = md.pousas.index[k]


def _encode(obj):
    if isinstance(obj, Coords):
        return obj.tolist()
    raise TypeError(f"cannot write {type(obj).__name__} to GeoJSON")


def _geometry_coords(geom) -> Coords:
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


def dumps_geojson(md: MapData, eido_geoms: np.ndarray | None = None, indent: int | None = None) -> str:
    """Serialise a map, optionally with new Eido geometries (as ``fix`` does).

    Every property and foreign member is written back unchanged.
    """
    features = md.features
    if eido_geoms is not None:
        features = list(features)
        for i, g in zip(md.eidos.index, eido_geoms, strict=True):
            f = dict(features[i])
            geom = dict(f["geometry"])
            geom["coordinates"] = _geometry_coords(g)
            geom["type"] = geom["coordinates"].type
            f["geometry"] = geom
            features[i] = f
    doc = dict(md.doc)
    doc["features"] = features
    return json.dumps(doc, default=_encode, indent=indent, ensure_ascii=False, allow_nan=False)


def write_geojson(md: MapData, path, eido_geoms: np.ndarray | None = None) -> None:
    """Write a map atomically (see :func:`dumps_geojson`)."""
    write_atomic(path, dumps_geojson(md, eido_geoms).encode("utf-8"))
