"""Import maps drawn in the Tiled map editor (JSON ``.tmj``/``.json`` or XML ``.tmx``).

Only object layers are read (inside group layers too); what cannot be mapped
becomes a warning, never a crash:

* polygon and rectangle objects become Eidos; the terrain is the object's
  ``terrain`` custom property, else its class (Tiled >= 1.9; ``type`` before);
* polyline objects of class ``road`` (or with a ``road`` custom property)
  become roads, of class ``stream`` streams (first point = source);
* point objects of class ``pousa`` become Pousas of the road their ``road``
  property names (an object reference, or the road's id), else of the road
  whose line they lie on; point objects of class ``fountain`` become fountains;
* a feature's id is the object's name when that name is unique among the
  imported objects, else ``t<object id>``;
* other custom properties of plain types are copied into the feature's
  properties.

Geometry: an object's points are relative to its ``x``, ``y``, rotated by its
``rotation`` (degrees, clockwise in Tiled's y-down pixels) about that point,
shifted by the offsets of its layers, then the y axis is flipped with the map's
pixel height, so that the imported map is upright (y up) in pixel units.  An
object placed beyond ±1e15 (the map reader's bound) is skipped with a warning,
a map higher than that refused; map properties are checked as the map reader
checks the ``eidomap`` member, tile ids as Tiled's 32 bits, and a map with no
object that becomes an Eido is not written.

TMX is parsed safely: the file must be UTF-8, and one holding any DOCTYPE or
ENTITY declaration is refused before parsing, so no entity is ever expanded.

>>> doc, warnings = read_tiled(b'{"type": "map", "height": 2, "tileheight": 10, "layers": [{"type":'
...     b' "objectgroup", "name": "E", "objects": [{"id": 1, "name": "a", "type": "meadow", "x": 0,'
...     b' "y": 0, "width": 10, "height": 5}]}]}')
>>> doc["features"][0]["geometry"]["coordinates"]
[[[0.0, 20.0], [10.0, 20.0], [10.0, 15.0], [0.0, 15.0], [0.0, 20.0]]]
"""

from __future__ import annotations

import json
import math
import os
import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import shapely

from eidomap.base import params
from eidomap.base.errors import MapError, RequestError
from eidomap.base.files import read_bounded, write_atomic
from eidomap.base.names import shown, unique
from eidomap.io.features import MAX_COORDINATE, parse_meta, resolve_catalog
from eidomap.io.grid import MAP_READERS, grid_instead
from eidomap.io.jsontext import check_unicode, loads_json
from eidomap.record.catalog import Catalog

if TYPE_CHECKING:
    from eidomap.record.grid import Grid

__all__ = ["import_tiled", "import_tiled_grid", "read_tiled", "read_tiled_grid"]

#: Largest Tiled file read (bytes).
MAX_TILED_BYTES = 256 * 1024**2
#: Deepest nesting of group layers.
MAX_DEPTH = 64
#: Plain custom property types, copied into the feature's properties.
PLAIN = ("string", "int", "float", "bool", "color", "file")
#: Map custom properties that go to the ``eidomap`` member.
MAP_KEYS = ("name", "rules", "catalog", "units_per_mile")
_DECLARATION = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_ENCODING = re.compile(r"""^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']""")


class _Skip(Exception):
    """An object that cannot be imported (the message says why)."""


@dataclass
class _Obj:
    """One Tiled object, reduced to what the import needs (its points with every offset applied)."""

    tid: int
    name: str
    cls: str
    shape: str
    points: np.ndarray  # (n, 2) in map pixels, y down, offsets and rotation applied
    props: dict
    layer: str

    def label(self) -> str:
        name = f" {self.name!r}" if self.name else ""
        return f"object {self.tid}{name} (layer {self.layer!r})"


@dataclass
class _Import:
    """What is collected while walking the layers."""

    objects: list[_Obj] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# -- reading the two formats into one JSON-like structure ------------------------
def _tmx_value(prop: ET.Element):
    value = prop.get("value", prop.text or "")
    kind = prop.get("type", "string")
    if kind == "class":
        inner = prop.find("properties")
        return {p.get("name", ""): _tmx_value(p) for p in (inner if inner is not None else [])}
    if kind in ("int", "object"):
        return int(value or 0)
    if kind == "float":
        return float(value or 0)
    if kind == "bool":
        return value == "true"
    return value


def _tmx_props(elem: ET.Element) -> list[dict]:
    props = elem.find("properties")
    if props is None:
        return []
    return [{"name": p.get("name", ""), "type": p.get("type", "string"), "value": _tmx_value(p)}
            for p in props.findall("property")]


def _tmx_points(text: str | None) -> list[dict]:
    pts = []
    for pair in (text or "").split():
        x, y = pair.split(",")
        pts.append({"x": float(x), "y": float(y)})
    return pts


_NUMBERS = ("x", "y", "width", "height", "rotation", "offsetx", "offsety", "tilewidth", "tileheight")


def _tmx_attrs(elem: ET.Element) -> dict:
    out = {}
    for k, v in elem.attrib.items():
        out[k] = float(v) if k in _NUMBERS else int(v) if k in ("id", "gid") else v
    return out


def _tmx_object(elem: ET.Element) -> dict:
    obj = _tmx_attrs(elem)
    obj["properties"] = _tmx_props(elem)
    for child in elem:
        if child.tag in ("polygon", "polyline"):
            obj[child.tag] = _tmx_points(child.get("points"))
        elif child.tag in ("point", "ellipse"):
            obj[child.tag] = True
        elif child.tag == "text":
            obj["text"] = {"text": child.text or ""}
    return obj


def _tmx_layer(elem: ET.Element) -> dict:
    kinds = {"layer": "tilelayer", "objectgroup": "objectgroup", "imagelayer": "imagelayer", "group": "group"}
    layer = _tmx_attrs(elem)
    layer["type"] = kinds[elem.tag]
    layer["properties"] = _tmx_props(elem)
    if elem.tag == "objectgroup":
        layer["objects"] = [_tmx_object(o) for o in elem.findall("object")]
    if elem.tag == "group":
        layer["layers"] = [_tmx_layer(c) for c in elem if c.tag in kinds]
    data = elem.find("data") if elem.tag == "layer" else None
    if data is not None:
        layer["encoding"], layer["compression"] = data.get("encoding", ""), data.get("compression", "")
        layer["chunks"] = data.find("chunk") is not None
        tiles = data.findall("tile")
        layer["data"] = [int(t.get("gid", 0)) for t in tiles] if tiles else (data.text or "")
    return layer


def _tmx_tileset(elem: ET.Element) -> dict:
    return {"firstgid": int(elem.get("firstgid", 1)), "source": elem.get("source"), "name": elem.get("name", ""),
            "tiles": [{"id": int(t.get("id", 0)), "properties": _tmx_props(t)} for t in elem.findall("tile")]}


def parse_xml(path: str | os.PathLike | None, data: bytes, what: str) -> ET.Element:
    """The root of an XML document (``what``: "TMX", "SVG"); refuses non-UTF-8, DTDs and entities before parsing."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MapError(path, None, "is not UTF-8 text") from None
    if _DECLARATION.search(data):
        raise MapError(path, None, "holds a DOCTYPE or ENTITY declaration, which eidomap refuses to parse")
    enc = _ENCODING.match(text)
    if enc and enc.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise MapError(path, None, f"declares the encoding {enc.group(1)!r}; eidomap reads UTF-8 {what} only")
    try:
        return ET.fromstring(data)
    except ET.ParseError as exc:
        raise MapError(path, None, _instead(path, data, _DRAWINGS.get(what, what))
                       or f"is not well-formed XML ({exc})") from None


#: What a file read as XML was meant to be, by what :func:`parse_xml` is told it reads.
_DRAWINGS = {"TMX": "a Tiled map", "SVG": "an SVG drawing"}


def _geojson_map(drawing: str) -> str:
    return f"is a GeoJSON map, not {drawing}: {MAP_READERS}"


def _instead(path: str | os.PathLike | None, data: bytes, drawing: str) -> str | None:
    """What to say of a file that is not ``drawing`` when it is a GeoJSON map or a battle grid (as the map and
    grid commands say it), else None."""
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        doc = None
    if isinstance(doc, dict) and doc.get("type") == "FeatureCollection":
        return _geojson_map(drawing)
    return None if path is None else grid_instead(path, data)


def _parse_tmx(path: str | os.PathLike | None, data: bytes) -> dict:
    """A TMX document as the JSON map structure; refuses DTDs and entities before parsing."""
    root = parse_xml(path, data, "TMX")
    if root.tag != "map":
        raise MapError(path, None, f"is not a Tiled map (its root element is <{root.tag}>, not <map>)")
    if _depth(root) > 2 * MAX_DEPTH + 8:
        raise MapError(path, None, f"nests layers more than {MAX_DEPTH} groups deep")
    try:
        doc = _tmx_attrs(root)
        for k in ("width", "height"):
            doc[k] = float(root.get(k, 0))
        doc["type"] = "map"
        doc["properties"] = _tmx_props(root)
        doc["layers"] = [_tmx_layer(c) for c in root if c.tag in ("layer", "objectgroup", "imagelayer", "group")]
        doc["tilesets"] = [_tmx_tileset(t) for t in root.findall("tileset")]
    except ValueError as exc:
        raise MapError(path, None, f"has a malformed number ({exc})") from None
    return doc


def _depth(root: ET.Element) -> int:
    deepest, level = 0, [root]
    while level:
        deepest += 1
        level = [c for e in level for c in e]
    return deepest


def _parse_json(path: str | os.PathLike | None, data: bytes) -> dict:
    try:
        text = data.decode("utf-8-sig")
        check_unicode(path, data)
        doc = loads_json(text)
    except UnicodeDecodeError:
        raise MapError(path, None, "is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise MapError(path, None, _instead(path, data, "a Tiled map")
                       or f"is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise MapError(path, None, "is nested too deeply to be a Tiled map") from None
    if not isinstance(doc, dict):
        raise MapError(path, None, "is not a Tiled map (not a JSON object)")
    if doc.get("type") == "FeatureCollection":
        raise MapError(path, None, _geojson_map("a Tiled map"))
    if doc.get("type", "map") != "map":
        raise MapError(path, None, f"is a Tiled {doc.get('type')!r}, not a map")
    return doc


# -- walking the layers ----------------------------------------------------------
def _number(obj: dict, key: str, default: float = 0.0) -> float:
    v = obj.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise _Skip(f"its {key!r} is not a number ({v!r})")
    return float(v)


def _props(raw) -> tuple[dict, list[str]]:
    """Custom properties as ``{name: (type, value)}``, old (object) and new (list) JSON forms."""
    if raw is None:
        return {}, []
    if isinstance(raw, dict):  # before Tiled 1.2: {name: value}
        return {str(k): ("string" if isinstance(v, str) else "value", v) for k, v in raw.items()}, []
    out, bad = {}, []
    for p in raw if isinstance(raw, list) else []:
        if isinstance(p, dict) and isinstance(p.get("name"), str):
            out[p["name"]] = (p.get("type", "string"), p.get("value"))
        else:
            bad.append(repr(p)[:40])
    return out, bad


def _rotate(points: np.ndarray, degrees: float) -> np.ndarray:
    """Rotate (x, y-down) points clockwise on screen by ``degrees``, exactly for quarter turns."""
    quarter = {0: (1.0, 0.0), 90: (0.0, 1.0), 180: (-1.0, 0.0), 270: (0.0, -1.0)}
    turn = degrees % 360
    c, s = quarter[int(turn)] if turn in quarter else (math.cos(math.radians(turn)), math.sin(math.radians(turn)))
    return np.column_stack([points[:, 0] * c - points[:, 1] * s, points[:, 0] * s + points[:, 1] * c])


def _shape(obj: dict) -> tuple[str, np.ndarray]:
    """The object's shape and its points relative to its position (y down, before rotation)."""
    for key in ("template", "gid", "ellipse", "text"):
        if obj.get(key) not in (None, False):
            what = {"template": "a template instance (its file is not read)", "gid": "a tile object",
                    "ellipse": "an ellipse", "text": "a text object"}[key]
            raise _Skip(f"is {what}, which cannot be imported")
    if obj.get("point"):
        return "point", np.zeros((1, 2))
    for key in ("polygon", "polyline"):
        if key in obj:
            pts = obj[key]
            try:
                xy = np.array([[float(p["x"]), float(p["y"])] for p in pts], dtype=float).reshape(-1, 2)
            except (TypeError, KeyError, ValueError):
                raise _Skip(f"has malformed {key} points") from None
            if not np.isfinite(xy).all():
                raise _Skip(f"has a {key} point that is not a finite number")
            if len(xy) < 2:
                raise _Skip(f"is a {key} of {len(xy)} point{'' if len(xy) == 1 else 's'}")
            return key, xy
    w, h = _number(obj, "width"), _number(obj, "height")
    if w <= 0 or h <= 0:
        raise _Skip("is a rectangle without area")
    return "rectangle", np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=float)


def _walk(layers, offset: np.ndarray, prefix: str, depth: int, out: _Import) -> None:
    if depth > MAX_DEPTH:
        raise MapError(None, None, f"nests layers more than {MAX_DEPTH} groups deep")
    for layer in layers if isinstance(layers, list) else []:
        if not isinstance(layer, dict):
            continue
        name = prefix + str(layer.get("name", ""))
        kind = layer.get("type")
        try:
            here = offset + np.array([_number(layer, "offsetx"), _number(layer, "offsety")])
        except _Skip as why:
            out.warnings.append(f"layer {name!r}: {why}; layer skipped")
            continue
        if kind == "group":
            _walk(layer.get("layers"), here, name + "/", depth + 1, out)
        elif kind == "objectgroup":
            _layer_props(layer, name, out)
            for obj in layer.get("objects") or []:
                _object(obj, here, name, out)
        else:
            what = {"tilelayer": "a tile layer", "imagelayer": "an image layer"}.get(str(kind), f"a {kind!r} layer")
            out.warnings.append(f"layer {name!r} is {what}; only object layers are imported")


def _layer_props(layer: dict, name: str, out: _Import) -> None:
    props, _ = _props(layer.get("properties"))
    if props:
        out.warnings.append(f"layer {name!r}: layer properties ({', '.join(props)}) are not imported")


def _object(obj, offset: np.ndarray, layer: str, out: _Import) -> None:
    if not isinstance(obj, dict):
        out.warnings.append(f"layer {layer!r}: an entry of its objects is not an object; skipped")
        return
    tid = obj.get("id")
    tid = tid if isinstance(tid, int) and not isinstance(tid, bool) else 0
    name = obj.get("name")
    name = name if isinstance(name, str) else ""
    cls = obj.get("class") or obj.get("type") or ""
    props, bad = _props(obj.get("properties"))
    o = _Obj(tid, name, cls if isinstance(cls, str) else "", "", np.empty((0, 2)), props, layer)
    for b in bad:
        out.warnings.append(f"{o.label()}: a malformed custom property ({b}) is not imported")
    try:
        o.shape, local = _shape(obj)
        with np.errstate(over="ignore", invalid="ignore"):
            xy = _rotate(local, _number(obj, "rotation")) + np.array([_number(obj, "x"), _number(obj, "y")]) + offset
        if not (np.abs(xy) <= MAX_COORDINATE).all():
            raise _Skip(f"lies past any map (its position, size or points, with its layers' offsets, beyond"
                        f" ±{MAX_COORDINATE:g})")
    except _Skip as why:
        out.warnings.append(f"{o.label()} {why}; skipped" if str(why).startswith("is ")
                            else f"{o.label()}: {why}; skipped")
        return
    o.points = xy
    out.objects.append(o)


# -- objects to features ------------------------------------------------------------
def _kind(o: _Obj) -> str:
    """What an object becomes (an eidomap kind), or raises _Skip."""
    cls = o.cls.lower()
    if o.shape in ("polygon", "rectangle"):
        if cls in ("road", "stream", "pousa", "fountain"):
            raise _Skip(f"is a {o.shape} of class {o.cls!r}, which must be drawn as a "
                        f"{'polyline' if cls in ('road', 'stream') else 'point'}")
        return "eido"
    if o.shape == "polyline":
        road = o.props.get("road")
        if cls == "road" or (road is not None and road[1] not in (False, None, "")):
            return "road"
        if cls == "stream":
            return "stream"
        raise _Skip(f"is a polyline of class {o.cls!r}; only roads and streams are polylines"
                    if o.cls else "is a polyline without class 'road' or 'stream'")
    if cls in ("pousa", "fountain"):
        return cls
    raise _Skip(f"is a point of class {o.cls!r}; only Pousas and fountains are points"
                if o.cls else "is a point without class 'pousa' or 'fountain'")


def _ids(objects: list[_Obj]) -> list[str]:
    """An id for each object: its name when unique among them, else ``t<object id>`` (made unique, :func:`unique`)."""
    names = Counter(o.name for o in objects if o.name)
    kept = {n for n, c in names.items() if c == 1}
    others = iter(unique((f"t{o.tid}" for o in objects if o.name not in kept), taken=kept))
    return [o.name if o.name in kept else next(others) for o in objects]


def _map_meta(doc: dict, path: str | os.PathLike | None, out: _Import) -> dict:
    """The ``eidomap`` member from the map's custom properties, each checked as the map reader checks it."""
    meta = {"format": 1, "rules": "eido", "name": Path(path).stem if path else "tiled map"}
    props, _ = _props(doc.get("properties"))
    for key, (_, value) in props.items():
        if key not in MAP_KEYS:
            out.warnings.append(f"map property {key!r} is not imported (map properties read: {', '.join(MAP_KEYS)})")
            continue
        try:
            if key == "catalog" and not isinstance(value, str):
                raise MapError(None, None, f"'catalog' must be a file name, got {value!r}")
            parse_meta(None, {"eidomap": {**meta, key: value}})
        except MapError as exc:
            out.warnings.append(f"map property {key!r}: {exc.reason}; ignored")
            continue
        meta[key] = value
    return meta


class _Builder:
    """Turns the collected objects into GeoJSON features."""

    def __init__(self, objects: list[_Obj], height: float, catalog: Catalog, out: _Import):
        self.out = out
        self.height = height
        self.catalog = catalog
        self.kept: list[tuple[_Obj, str]] = []
        for o in objects:
            try:
                self.kept.append((o, _kind(o)))
            except _Skip as why:
                out.warnings.append(f"{o.label()} {why}; skipped")
        self.ids = _ids([o for o, _ in self.kept])

    def xy(self, o: _Obj) -> list:
        xy = np.column_stack([o.points[:, 0], self.height - o.points[:, 1]])
        if not (np.abs(xy) <= MAX_COORDINATE).all():
            raise _Skip(f"lies past any map once upright (coordinates beyond ±{MAX_COORDINATE:g})")
        return xy.tolist()

    def properties(self, o: _Obj, kind: str, fid: str, used: tuple[str, ...]) -> dict:
        props = {"kind": kind}
        if o.name and o.name != fid:
            props["name"] = o.name
        for key, (ptype, value) in o.props.items():
            if key in used:
                continue
            if key in ("kind", "id"):
                self.out.warnings.append(f"{o.label()}: custom property {key!r} would replace the feature's {key};"
                                         " not imported")
            elif isinstance(value, float) and not math.isfinite(value):
                self.out.warnings.append(f"{o.label()}: custom property {key!r} is {value!r}; not imported")
            elif ptype in PLAIN or (ptype == "value" and isinstance(value, str | int | float | bool)):
                props[key] = value
            else:
                self.out.warnings.append(f"{o.label()}: custom property {key!r} of type {ptype!r} is not imported")
        return props

    def features(self) -> list[dict]:
        feats = []
        roads = [(o, fid) for (o, kind), fid in zip(self.kept, self.ids, strict=True) if kind == "road"]
        for (o, kind), fid in zip(self.kept, self.ids, strict=True):
            try:
                f = getattr(self, kind)(o, fid, roads)
            except _Skip as why:
                self.out.warnings.append(f"{o.label()}: {why}; skipped")
                continue
            feats.append(f)
        return feats

    @staticmethod
    def _feature(fid: str, props: dict, gtype: str, coords) -> dict:
        return {"type": "Feature", "id": fid, "properties": props, "geometry": {"type": gtype, "coordinates": coords}}

    def eido(self, o: _Obj, fid: str, roads) -> dict:
        given = o.props.get("terrain")
        terrain = given[1] if given is not None else o.cls
        if not terrain:
            raise _Skip("has no terrain (give it a class or a 'terrain' custom property)")
        if terrain not in self.catalog.terrain_names:
            raise _Skip(f"has terrain {terrain!r}, which is not in the catalog (pass catalog=... with it)")
        if len(o.points) < 3:
            raise _Skip(f"is a polygon with {len(o.points)} points")
        ring = self.xy(o)
        ring.append(ring[0])
        poly = shapely.Polygon(ring)
        if not poly.is_valid:
            self.out.warnings.append(f"{o.label()} is not a valid polygon ({shapely.is_valid_reason(poly)});"
                                     " imported as drawn, `eidomap validate` reports it")
        props = self.properties(o, "eido", fid, ("terrain",))
        props["terrain"] = terrain
        return self._feature(fid, props, "Polygon", [ring])

    def _line(self, o: _Obj, fid: str, kind: str, used=()) -> dict:
        if len(np.unique(o.points, axis=0)) < 2:
            raise _Skip(f"is a {kind} with fewer than two distinct points")
        return self._feature(fid, self.properties(o, kind, fid, used), "LineString", self.xy(o))

    def road(self, o: _Obj, fid: str, roads) -> dict:
        return self._line(o, fid, "road", ("road",))

    def stream(self, o: _Obj, fid: str, roads) -> dict:
        return self._line(o, fid, "stream")

    def fountain(self, o: _Obj, fid: str, roads) -> dict:
        return self._feature(fid, self.properties(o, "fountain", fid, ()), "Point", self.xy(o)[0])

    def pousa(self, o: _Obj, fid: str, roads) -> dict:
        props = self.properties(o, "pousa", fid, ("road",))
        props["road"] = self._road_of(o, roads)
        return self._feature(fid, props, "Point", self.xy(o)[0])

    def _road_of(self, o: _Obj, roads) -> str:
        ref = o.props.get("road")
        if ref is not None:
            ptype, value = ref
            for r, rid in roads:
                if (ptype == "object" and value == r.tid) or (ptype != "object" and str(value) in (rid, r.name)):
                    return rid
            raise _Skip(f"names road {value!r}, which is not a road object of this map")
        if not roads:
            raise _Skip("is a Pousa and the map has no road")
        lines = shapely.linestrings([r.points for r, _ in roads])
        d = shapely.distance(shapely.Point(o.points[0]), lines)
        tol = 1e-9 * max(1.0, float(np.ptp(np.vstack([r.points for r, _ in roads]), axis=0).max()))
        on = np.flatnonzero(d <= tol)
        if len(on) != 1:
            raise _Skip("has no 'road' property and lies on no road's line" if not len(on) else
                        f"has no 'road' property and lies on {len(on)} roads; give it one")
        return roads[int(on[0])][1]


def _parse(data: bytes, path: str | os.PathLike | None) -> dict:
    """A Tiled map (JSON or TMX bytes) as the JSON map structure."""
    is_xml = data.lstrip()[:1] == b"<" if path is None or Path(path).suffix.lower() != ".tmx" else True
    doc = _parse_tmx(path, data) if is_xml else _parse_json(path, data)
    if not isinstance(doc.get("layers"), list):
        raise MapError(path, None, "is not a Tiled map (it has no 'layers' list)")
    return doc


def read_tiled(data: bytes, path: str | os.PathLike | None = None,
               catalog: Catalog | str | os.PathLike | None = None) -> tuple[dict, list[str]]:
    """A Tiled map (JSON or TMX bytes) as an eidomap GeoJSON document, and the warnings.

    Parameters
    ----------
    data : bytes
        The Tiled file's bytes (``.tmj``/``.json`` or ``.tmx``).
    path : str or Path, optional
        Its name, for messages and for a catalog it names.
    catalog : str, Path or Catalog, optional
        Terrains beyond the default catalog.

    Returns
    -------
    doc : dict
        The GeoJSON document.
    warnings : list of str
        What could not be imported, and why.

    Raises
    ------
    MapError
        When the file is not a Tiled map (or a TMX file declares a DOCTYPE or entity).

    See Also
    --------
    import_tiled : Read a file and write the map.

    Examples
    --------
    >>> doc, warnings = read_tiled(b'{"type": "map", "height": 2, "tileheight": 10, "layers": [{"type":'
    ...     b' "objectgroup", "name": "E", "objects": [{"id": 1, "name": "a", "type": "meadow", "x": 0,'
    ...     b' "y": 0, "width": 10, "height": 5}]}]}')
    >>> doc["features"][0]["id"], doc["features"][0]["properties"]["terrain"], warnings
    ('a', 'meadow', [])
    """
    data, path = params.instance(data, "data", bytes, "bytes"), params.maybe(params.path, path, "path")
    Catalog.checked(catalog)
    doc = _parse(data, path)
    out = _Import()
    meta = _map_meta(doc, path, out)
    cat = resolve_catalog(path, meta, catalog)
    orientation = doc.get("orientation", "orthogonal")
    if orientation != "orthogonal":
        out.warnings.append(f"the map is {orientation!r}: object positions are imported as Tiled stores them"
                            " (borders, and so adjacency, are kept; shapes are not projected)")
    try:
        height = _number(doc, "height") * _number(doc, "tileheight")
    except _Skip:
        height = 0.0
    if not abs(height) <= MAX_COORDINATE:
        raise MapError(path, None, f"is {height:g} pixels high (height x tileheight), more than any map holds"
                                   f" (±{MAX_COORDINATE:g})")
    try:
        _walk(doc["layers"], np.zeros(2), "", 0, out)
    except MapError as exc:
        raise MapError(path, None, exc.reason) from None
    features = _Builder(out.objects, height, cat, out).features()
    source = {"source": Path(path).name if path else None, "tiledversion": doc.get("tiledversion"),
              "orientation": orientation}
    return {"type": "FeatureCollection", "eidomap": meta, "tiled": source, "features": features}, out.warnings


def import_tiled(source: str | os.PathLike, out: str | os.PathLike,
                 catalog: str | os.PathLike | None = None) -> tuple[dict, list[str]]:
    """Read a Tiled map file and write it as an eidomap GeoJSON map (atomically).

    Parameters
    ----------
    source : str or Path
        The Tiled map.
    out : str or Path
        The GeoJSON map to write.
    catalog : str or Path, optional
        A TOML file of terrains beyond the default catalog; when it lies in the output's folder, the output
        names it.

    Returns
    -------
    doc : dict
        The document written.
    warnings : list of str
        What could not be imported, and why.

    Raises
    ------
    MapError
        When the file is not a Tiled map, or holds no object that becomes an Eido.
    RequestError
        When ``out`` is ``source``.

    See Also
    --------
    read_tiled : The same, in memory.
    import_tiled_grid : A d20 battle grid from a Tiled map's tile layers.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> work = Path(tempfile.mkdtemp())
    >>> _ = (work / "board.tmj").write_text('{"type": "map", "height": 1, "tileheight": 10, "layers": [{"type":'
    ...     ' "objectgroup", "objects": [{"id": 1, "name": "a", "type": "meadow", "x": 0, "y": 0, "width": 10,'
    ...     ' "height": 10}, {"id": 2, "name": "b", "type": "forest", "x": 10, "y": 0, "width": 10,'
    ...     ' "height": 10}]}]}')
    >>> doc, warnings = import_tiled(work / "board.tmj", work / "board.geojson")
    >>> eidomap.load(work / "board.geojson").neighbors("a")
    ['b']
    """
    src, dst = Path(params.path(source, "source")), Path(params.path(out, "out"))
    catalog = params.maybe(params.path, catalog, "catalog")
    if dst.exists() and dst.resolve() == src.resolve():
        raise RequestError(f"{shown(out)}: is the Tiled map being imported; choose another output file")
    doc, warnings = read_tiled(read_bounded(src, MAX_TILED_BYTES), src, catalog)
    write_import(doc, warnings, source, out, catalog, "object")
    return doc, warnings


def write_import(doc: dict, warnings: list[str], source: str | os.PathLike, out: str | os.PathLike,
                 catalog: str | os.PathLike | None = None, what: str = "object") -> None:
    """Write an imported map (atomically), naming ``catalog`` when it lies beside the output; warns otherwise.

    A map without Eidos, which no command loads, is refused instead (a
    :class:`MapError` naming the source and the first ``what`` skipped).
    """
    src, dst = Path(source), Path(out)
    if not any(f["properties"]["kind"] == "eido" for f in doc["features"]):
        why = f" ({warnings[0]}{'...' if len(warnings) > 1 else ''})" if warnings else ""
        raise MapError(source, None, f"has no {what} that becomes an Eido: nothing to import{why}")
    if catalog is None and "catalog" in doc["eidomap"] and src.resolve().parent != dst.resolve().parent:
        warnings.append(f"the map names the catalog {doc['eidomap']['catalog']!r}, which is beside"
                        f" {shown(source)}: copy it beside {shown(out)}")
    if catalog is not None:
        cat = Path(catalog).resolve()
        if cat.parent == dst.resolve().parent:
            doc["eidomap"]["catalog"] = cat.name
        else:
            warnings.append(f"the terrains come from {shown(catalog)}, which is not beside {shown(out)}:"
                            f" pass catalog={str(catalog)!r} when you use it")
    write_atomic(dst, (json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8"))


# -- tile layers to a d20 battle grid ------------------------------------------------------
#: Tiled's flip and rotation bits of a global tile id, and the largest id (32 bits, flags included).
_GID_FLAGS = 0xF0000000
_GID_MAX = 0xFFFFFFFF


def _d20_tiles(doc: dict, path: str | os.PathLike | None) -> dict[int, tuple[int, int]]:
    """Global tile id -> (flags, occupant) for every tile with a ``d20`` property (embedded tilesets)."""
    from eidomap.io.grid import TERMS

    out = {}
    for ts in doc.get("tilesets") or []:
        if not isinstance(ts, dict):
            continue
        if ts.get("source"):
            raise MapError(path, None, f"uses the external tileset {ts['source']!r}; embed it in the map"
                           " (Tiled: Map > Embed Tilesets) to import a grid")
        first = ts.get("firstgid", 1)
        for tile in ts.get("tiles") or []:
            props, _ = _props(tile.get("properties") if isinstance(tile, dict) else None)
            if "d20" not in props or not isinstance(first, int) or not isinstance(tile.get("id"), int):
                continue
            if not 0 <= first + tile["id"] <= _GID_MAX & ~_GID_FLAGS:
                raise MapError(path, None, f"tile {tile['id']} of tileset {ts.get('name', '')!r} (first id {first})"
                               f" has the tile id {first + tile['id']}, not one of Tiled's 0 to"
                               f" {_GID_MAX & ~_GID_FLAGS:,}")
            flags = occupant = 0
            for term in re.split(r"[+,\s]+", str(props["d20"][1]).strip().lower()):
                if term not in TERMS:
                    raise MapError(path, None, f"tile {tile['id']} of tileset {ts.get('name', '')!r} has d20"
                                   f" {props['d20'][1]!r}: {term!r} is not one of {', '.join(TERMS)}")
                v = TERMS[term]
                flags, occupant = (flags | v, occupant) if v >= 0 else (flags, -v)
            out[first + tile["id"]] = (flags, occupant)
    return out


def _tile_layers(layers, depth: int = 0):
    for layer in layers if isinstance(layers, list) else []:
        if isinstance(layer, dict) and layer.get("type") == "tilelayer":
            yield layer
        elif isinstance(layer, dict) and layer.get("type") == "group" and depth < MAX_DEPTH:
            yield from _tile_layers(layer.get("layers"), depth + 1)


def _gids(layer: dict, path: str | os.PathLike | None) -> np.ndarray:
    """The layer's global tile ids, a (height, width) array, decoded with every size bounded."""
    import base64
    import zlib

    from eidomap.record.grid import MAX_SIDE

    name = layer.get("name", "")
    w, h = layer.get("width"), layer.get("height")
    if not all(isinstance(v, int | float) and 0 < v <= MAX_SIDE and v == int(v) for v in (w, h)):
        raise MapError(path, None, f"tile layer {name!r} is not 1 to {MAX_SIDE} tiles wide and high ({w} x {h})")
    w, h = int(w), int(h)  # type: ignore[arg-type]  # (numbers: checked above)
    data = layer.get("data")
    if layer.get("chunks"):
        raise MapError(path, None, f"tile layer {name!r} is an infinite map's chunks; make the map finite")
    encoding, compression = layer.get("encoding") or "", layer.get("compression") or ""
    try:
        if isinstance(data, list):
            gids = np.array(data, dtype=np.int64)
        elif encoding == "csv" and isinstance(data, str):
            gids = np.array([int(x) for x in data.replace("\n", "").split(",") if x.strip()], dtype=np.int64)
        elif encoding == "base64" and isinstance(data, str):
            raw = base64.b64decode(data.strip()[: 8 * w * h + 64])
            if compression in ("zlib", "gzip"):
                d = zlib.decompressobj(zlib.MAX_WBITS | (16 if compression == "gzip" else 0))
                raw = d.decompress(raw, 4 * w * h + 1)
            elif compression:
                raise MapError(path, None, f"tile layer {name!r} is compressed with {compression!r};"
                               " eidomap reads none, zlib or gzip")
            gids = np.frombuffer(raw, dtype="<u4").astype(np.int64)
        else:
            raise MapError(path, None, f"tile layer {name!r} has data eidomap cannot read (encoding {encoding!r})")
    except (ValueError, TypeError, zlib.error) as exc:
        raise MapError(path, None, f"tile layer {name!r} has malformed data ({exc})") from None
    except OverflowError:  # beyond 64 bits
        gids = np.array([-1])
    if ((gids < 0) | (gids > _GID_MAX)).any():
        raise MapError(path, None, f"tile layer {name!r} holds a tile id beyond Tiled's 0 to {_GID_MAX:,}")
    if gids.shape != (w * h,):
        raise MapError(path, None, f"tile layer {name!r} holds {gids.size} tiles, not {w} x {h}")
    return (gids & ~_GID_FLAGS).reshape(h, w)


def read_tiled_grid(data: bytes, path: str | Path | None = None) -> tuple[Grid, list[str]]:
    """A d20 battle grid from a Tiled map's tile layers whose tiles carry a ``d20`` property.

    The property is ``difficult``, ``obstacle``, ``poor_visibility``, ``impassable`` (or ``ally``, ``enemy``),
    combinable (``difficult+obstacle``); tiles without it are clear.  Every tile layer holding such a tile
    counts, their flags combined.

    Parameters
    ----------
    data : bytes
        The Tiled file's bytes.
    path : str or Path, optional
        Its name, for messages.

    Returns
    -------
    grid : Grid
        The battle grid.
    warnings : list of str
        What was skipped (a layer of another size).

    Raises
    ------
    MapError
        When the file is not a Tiled map, or no tile layer's tiles carry a ``d20`` property.

    See Also
    --------
    import_tiled_grid : Read a file and write the grid.

    Examples
    --------
    >>> grid, warnings = read_tiled_grid(b'{"type": "map", "width": 3, "height": 1, "tilesets": [{"firstgid": 1,'
    ...     b' "tiles": [{"id": 0, "properties": [{"name": "d20", "type": "string", "value": "difficult"}]}]}],'
    ...     b' "layers": [{"type": "tilelayer", "width": 3, "height": 1, "data": [0, 1, 0]}]}')
    >>> grid.shape, grid.flags.tolist()
    ((1, 3), [[0, 1, 0]])
    """
    from eidomap.record.grid import grid_from_array

    data = params.instance(data, "data", bytes, "bytes")
    params.maybe(params.path, path, "path")
    doc = _parse(data, path)
    tiles = _d20_tiles(doc, path)
    layers = [(layer, _gids(layer, path)) for layer in _tile_layers(doc["layers"])]
    used = [(layer, g) for layer, g in layers if tiles and np.isin(g, list(tiles)).any()]
    if not used:
        raise MapError(path, None, "has no tile layer whose tiles carry a 'd20' property")
    shape = used[0][1].shape
    warnings = [f"tile layer {layer.get('name', '')!r} is {g.shape[1]} x {g.shape[0]} tiles, not"
                f" {shape[1]} x {shape[0]}; skipped" for layer, g in used if g.shape != shape]
    keys = np.array(sorted(tiles), np.int64)
    table = np.array([tiles[k] for k in keys.tolist()], np.int64)
    flags = np.zeros(shape, np.int64)
    occupant = np.zeros(shape, np.int64)
    for _, g in (x for x in used if x[1].shape == shape):
        at = np.clip(np.searchsorted(keys, g), 0, len(keys) - 1)
        hit = keys[at] == g
        flags |= np.where(hit, table[at, 0], 0)
        occupant = np.maximum(occupant, np.where(hit, table[at, 1], 0))
    return grid_from_array(flags, occupant, str(path)), warnings


def import_tiled_grid(source: str | Path, out: str | Path) -> tuple[Grid, list[str]]:
    """Read a Tiled map and write its d20 battle grid as a grid text file (atomically).

    Parameters
    ----------
    source : str or Path
        The Tiled map.
    out : str or Path
        The grid file to write.

    Returns
    -------
    grid : Grid
        The grid written.
    warnings : list of str
        What was skipped, and allies or enemies standing on hampered squares (the file marks them clear).

    Raises
    ------
    MapError
        When the file is not a Tiled map, or no tile layer's tiles carry a ``d20`` property.
    RequestError
        When ``out`` is ``source``.

    See Also
    --------
    read_tiled_grid : The same, in memory.
    eidomap.answers.grid.load_grid : Read the grid file.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from eidomap.answers.grid import load_grid
    >>> work = Path(tempfile.mkdtemp())
    >>> _ = (work / "battle.tmj").write_text('{"type": "map", "width": 2, "height": 1, "tilesets": [{"firstgid": 1,'
    ...     ' "tiles": [{"id": 0, "properties": [{"name": "d20", "type": "string", "value": "impassable"}]}]}],'
    ...     ' "layers": [{"type": "tilelayer", "width": 2, "height": 1, "data": [1, 0]}]}')
    >>> grid, warnings = import_tiled_grid(work / "battle.tmj", work / "battle.txt")
    >>> (work / "battle.txt").read_text().splitlines()[1]
    '#.'
    """
    from eidomap.io.grid import flags_char
    from eidomap.record.grid import ALLY, ENEMY

    src, dst = Path(params.path(source, "source")), Path(params.path(out, "out"))
    if dst.exists() and dst.resolve() == src.resolve():
        raise RequestError(f"{shown(out)}: is the Tiled map being imported; choose another output file")
    grid, warnings = read_tiled_grid(read_bounded(src, MAX_TILED_BYTES), src)
    chars = flags_char(grid.flags)
    for who, ch in ((ALLY, "a"), (ENEMY, "e")):
        here = grid.occupant == who
        if (grid.flags[here] != 0).any():
            warnings.append(f"{'an ally' if who == ALLY else 'an enemy'} stands on hampered or impassable squares;"
                            f" the grid file marks those squares '{ch}' (clear)")
        chars[here] = ch
    text = f"; imported from {shown(src.name)} by eidomap import-tiled --grid\n" + "\n".join(map("".join, chars)) + "\n"
    write_atomic(dst, text.encode("utf-8"))
    return grid, warnings
