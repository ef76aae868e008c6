"""eidomap's features, as every format's are checked: kinds, geometry types, limits, ids, the ``eidomap`` member.

A feature is read as a GeoJSON-like dict (``type``, ``id``, ``properties``,
``geometry``) whatever file it came from: a GeoJSON feature as decoded, a
table's row, a Tiled object or an SVG shape made into one.  Its coordinates
are parsed into :class:`Coords` (numpy arrays, one per ring) or, from a
table, kept as the Shapely geometry GDAL gave.
"""

from __future__ import annotations

import math
import os

import numpy as np
import shapely

from eidomap.base.errors import MapError
from eidomap.base.files import beside
from eidomap.record import rulesets
from eidomap.record.catalog import Catalog, load_catalog

KINDS = ("eido", "road", "pousa", "fountain", "stream", "river")
GEOMETRY_TYPES = {
    "eido": ("Polygon", "MultiPolygon"),
    "road": ("LineString",),
    "pousa": ("Point",),
    "fountain": ("Point",),
    "stream": ("LineString",),
    "river": ("LineString",),
}
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

    def tolist(self) -> list:
        """The GeoJSON ``coordinates`` member, exactly as parsed."""
        rings = [r.tolist() for r in self.rings]
        if self.type == "Point":
            return rings[0][0]
        if self.type == "LineString":
            return rings[0]
        if self.type == "Polygon":
            return rings
        out, k = [], 0
        for n in self.parts or ():
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
    return np.ascontiguousarray(a).data.cast("B")


def compact(type_: str, coords: object) -> Coords | None:
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
        if not rings or any(r is None for r in rings):
            return None
        return Coords(type_, rings)  # type: ignore[arg-type]  # (none is None: checked above)
    if type_ == "MultiPolygon":
        rings, parts = [], []
        for poly in coords:
            if not isinstance(poly, list) or not poly:
                return None
            rings.extend(_array(r) for r in poly)
            parts.append(len(poly))
        if not parts or any(r is None for r in rings):
            return None
        return Coords(type_, rings, parts)  # type: ignore[arg-type]  # (none is None: checked above)
    return None


def geometry_coords(geom: shapely.Geometry) -> Coords:
    """Coords for a (possibly edited) Shapely polygon or multipolygon."""
    polys = shapely.get_parts(geom)
    rings: list[np.ndarray] = []
    parts: list[int] = []
    for p in polys:
        rs = [shapely.get_exterior_ring(p), *shapely.get_interior_ring(p, range(shapely.get_num_interior_rings(p)))]
        rings.extend(shapely.get_coordinates(r) for r in rs)
        parts.append(len(rs))
    if shapely.get_type_id(geom) == shapely.GeometryType.POLYGON:
        return Coords("Polygon", rings)
    return Coords("MultiPolygon", rings, parts)


def encode(obj: object) -> list:
    """``json.dumps``'s ``default``: parsed coordinates as lists."""
    if isinstance(obj, Coords):
        return obj.tolist()
    raise TypeError(f"cannot write {type(obj).__name__} to GeoJSON")


def usable(xy: np.ndarray) -> np.ndarray:
    """Rows of ``xy`` (``(n, 2)``) whose coordinates are finite and within :data:`MAX_COORDINATE`.

    Half a million rows at a time: temporaries the size of millions of
    coordinates are fresh memory the system hands over page by page (a
    million-Eido map's three calls took 0.4 s of a cold read; 0.05 s so).
    """
    out = np.empty(len(xy), bool)
    with np.errstate(invalid="ignore"):  # (the larger of the two: NaN if either is, and NaN <= anything is False)
        for k in range(0, len(xy), _ROWS):
            a = np.abs(xy[k : k + _ROWS])
            np.less_equal(np.maximum(a[:, 0], a[:, 1]), MAX_COORDINATE, out=out[k : k + _ROWS])
    return out


_ROWS = 1 << 19


def wrong_id(fid: object) -> bool:
    """An id member that is there but is neither a string nor a whole number."""
    whole = isinstance(fid, float) and fid.is_integer()
    return fid is not None and (isinstance(fid, bool) or (not isinstance(fid, str | int) and not whole))


def feature_id(feature: dict) -> str | None:
    """A feature's id as text: its ``id``, else ``properties.id``; None when it has neither."""
    return id_text(feature.get("id"), feature.get("properties"))


def id_text(fid: object, props: object) -> str | None:
    """The id of a feature whose ``id`` member is ``fid`` and ``properties`` member ``props``, as text."""
    if fid is None and isinstance(props, dict):
        fid = props.get("id")
    return as_id(fid)


def as_id(value: object) -> str | None:
    """An id member as text: a string, or a number written as text; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    return str(value)


def parse_meta(path: str | os.PathLike | None, doc: dict) -> dict:
    """The ``eidomap`` member of a map's document, checked; :class:`MapError` naming ``path`` if it is wrong."""
    meta = doc.get("eidomap", {})
    if not isinstance(meta, dict):
        raise MapError(path, None, "the 'eidomap' member must be an object")
    fmt = meta.get("format", FORMAT_VERSION)
    if fmt != FORMAT_VERSION:
        raise MapError(path, None, f"map format {fmt!r} is not supported (this eidomap reads format {FORMAT_VERSION})")
    if not isinstance(meta.get("name", ""), str):
        raise MapError(path, None, f"'name' must be text, got {meta['name']!r}")
    rules = meta.get("rules", "eido")
    if not isinstance(rules, str) or rules not in rulesets.names():
        raise MapError(path, None, f"'rules' must be one of {', '.join(rulesets.names())}, got {rules!r}")
    upm = meta.get("units_per_mile")
    if upm is not None and (isinstance(upm, bool) or not isinstance(upm, int | float) or not upm > 0
                            or not math.isfinite(upm)):
        raise MapError(path, None, f"'units_per_mile' must be a positive number, got {upm!r}")
    return meta


def resolve_catalog(path: str | os.PathLike | None, meta: dict, catalog: Catalog | str | os.PathLike | None) -> Catalog:
    """The catalog given (a :class:`Catalog` or a file), else the one the map names beside it, else the default."""
    if isinstance(catalog, Catalog):
        return catalog
    if catalog is not None:
        return load_catalog(catalog)
    if "catalog" in meta and path is not None:
        return load_catalog(beside(path, meta["catalog"], "catalog"))
    return load_catalog()
