"""Import boards drawn in Inkscape or Illustrator (SVG).

* **Eidos**: closed shapes -- ``path`` whose every sub-path is closed (``Z``,
  or ends where it starts), ``polygon``, ``rect`` -- outside the layers below.
  Several closed sub-paths make holes and parts (even-odd).  The id is the
  shape's ``inkscape:label`` when unique, else its ``id``, else ``svg<k>``.
  The terrain is the ``data-terrain`` attribute (on the shape or a group
  around it), else the name of its layer when that is a terrain (or is mapped
  to one by the legend's ``[layers]``), else its fill colour through the
  legend's ``[fill]`` table.
* **Roads**: open paths, polylines and lines in a layer named ``roads``; a
  small circle there is a **Pousa** of the road it lies on (its centre is put
  on the road's line).  Open shapes in a layer named ``streams`` are streams
  (drawn from source to mouth), circles in a layer named ``fountains``
  fountains.  A layer is an Inkscape layer (``inkscape:groupmode="layer"``)
  or, in other editors, any group, by its label or id.
* **Geometry**: every ``transform`` (``matrix``, ``translate``, ``scale``,
  ``rotate``, ``skewX``, ``skewY``) of the shape and its groups is applied,
  and so is the viewport of a nested ``<svg>`` (its ``x``, ``y``, ``width``,
  ``height``, ``viewBox`` and ``preserveAspectRatio``); map units are the
  SVG's user units (its ``viewBox``), and the y axis is flipped (the top of the
  ``viewBox`` becomes its height), so the board is upright.  Curves (``C S Q T
  A``) are flattened into segments that stay within :data:`FLATNESS` of the
  board's larger side of the curve.
* **Bounds**: a number no board holds (not finite, or beyond ±1e15, as the
  map reader's coordinates) or transforms that scale a shape past that skip
  the shape with a warning; so does one of more than :data:`MAX_VERTICES`
  vertices, counted before each curve is drawn (a huge arc is never
  flattened).  A board with no shape that becomes an Eido is refused.
* **Borders drawn twice** by hand -- two neighbours each drawn with their own
  copy of the border -- are snapped together by the rules of ``eidomap fix``
  (:func:`eidomap.validate.fix.fix_geometries`, near-miss snapping only: no gap is
  filled), so that they share it.

The file is parsed safely, as TMX is (:func:`eidomap.io.tiled.parse_xml`):
UTF-8 only, and a file holding a DOCTYPE or ENTITY declaration is refused
before parsing.  What cannot be imported becomes a warning, never a crash.

>>> doc, warnings = read_svg(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10">'
...     b'<rect id="a" x="0" y="0" width="10" height="10" data-terrain="meadow"/>'
...     b'<path id="b" d="M10 0 H20 V10 H10 Z" data-terrain="sea"/></svg>')
>>> [f["id"] for f in doc["features"]], doc["features"][0]["geometry"]["coordinates"][0][:2]
(['a', 'b'], [[0.0, 10.0], [10.0, 10.0]])
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

import numpy as np
import shapely

from eidomap.base import params
from eidomap.base.errors import MapError, RequestError
from eidomap.base.files import MAX_SIDE_FILE_BYTES, parse_toml, read_bounded
from eidomap.base.names import shown, unique
from eidomap.io.features import MAX_COORDINATE, MAX_EIDO_VERTICES, geometry_coords, resolve_catalog
from eidomap.io.tiled import MAX_DEPTH, parse_xml, write_import
from eidomap.record.catalog import Catalog

__all__ = ["import_svg", "read_svg"]

#: Largest SVG file read (bytes).
MAX_SVG_BYTES = 256 * 1024**2
#: Curves are flattened to within this fraction of the board's larger side.
FLATNESS = 1e-4
#: Most vertices of one shape, its curves flattened (an Eido may have no more): counted before each curve is drawn.
MAX_VERTICES = MAX_EIDO_VERTICES
#: Layers whose shapes are not Eidos, and what they hold.
FEATURE_LAYERS = {"roads": "road", "streams": "stream", "fountains": "fountain"}
_INKSCAPE = "{http://www.inkscape.org/namespaces/inkscape}"
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_PATH_TOKEN = re.compile(r"([MmLlHhVvCcSsQqTtAaZz])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
_TRANSFORM = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")
_ARGS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7, "Z": 0}


class _Skip(Exception):
    """A shape that cannot be imported (the message says why)."""


@dataclass
class _Shape:
    """One drawn shape: its sub-paths in map units (y up), closed or not, and what it carries."""

    tag: str
    label: str
    sid: str
    layer: str
    terrain: str | None
    fill: str | None
    rings: list[np.ndarray]
    closed: bool
    radius: float = 0.0

    def name(self) -> str:
        said = shown(self.label or self.sid) if self.label or self.sid else "(no id)"
        return f"<{self.tag}> {said} (layer {self.layer or '(none)'!r})"


@dataclass
class _Walk:
    tol: float
    height: float  # of the board: the y axis is flipped about it
    shapes: list[_Shape] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# -- numbers, transforms, path data ---------------------------------------------------
def _numbers(text: str | None) -> list[float]:
    """The numbers of ``text`` (:func:`_finite`)."""
    return _finite([float(x) for x in _NUMBER.findall(text or "")])


def _finite(v: list[float]) -> list[float]:
    """``v``, or :class:`_Skip` for a number no board holds (not finite, or beyond ±1e15)."""
    if not all(abs(x) <= MAX_COORDINATE for x in v):  # (NaN and infinity fail too)
        raise _Skip(f"has a number no board holds ({next(x for x in v if not abs(x) <= MAX_COORDINATE)!r};"
                    f" at most ±{MAX_COORDINATE:g})")
    return v


def _length(text: str | None, default: float = 0.0) -> float:
    """The number ``text`` starts with (a length, its unit left out), else ``default``."""
    m = _NUMBER.match((text or "").strip())
    return _numbers(m.group())[0] if m else default


def _transform(text: str | None) -> np.ndarray:
    """The 3x3 affine matrix of an SVG ``transform`` list."""
    out = np.eye(3)
    for name, args in _TRANSFORM.findall(text or ""):
        v = _numbers(args)
        t = np.eye(3)
        if name == "matrix" and len(v) == 6:
            t[:2] = [[v[0], v[2], v[4]], [v[1], v[3], v[5]]]
        elif name == "translate" and v:
            t[:2, 2] = [v[0], v[1] if len(v) > 1 else 0.0]
        elif name == "scale" and v:
            t[0, 0], t[1, 1] = v[0], v[1] if len(v) > 1 else v[0]
        elif name == "rotate" and v:
            a = math.radians(v[0])
            c, s = math.cos(a), math.sin(a)
            cx, cy = (v[1], v[2]) if len(v) == 3 else (0.0, 0.0)
            t[:2] = [[c, -s, cx - c * cx + s * cy], [s, c, cy - s * cx - c * cy]]
        elif name in ("skewX", "skewY") and v:
            t[0 if name == "skewX" else 1, 1 if name == "skewX" else 0] = math.tan(math.radians(v[0]))
        else:
            raise _Skip(f"has a malformed transform {name}({args.strip()})")
        out = _compose(out, t)
    return out


def _compose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b``, or :class:`_Skip` when the product leaves what a double holds (scales of 1e300 twice)."""
    with np.errstate(over="ignore", invalid="ignore"):
        m = a @ b
    if not np.isfinite(m).all():
        raise _Skip("has transforms that scale it past any board")
    return m


def _room(n: float, left: int) -> int:
    """``n`` vertices of a curve, when the shape has room for them (``left``); :class:`_Skip` otherwise."""
    if not n <= left:
        raise _Skip(f"has more than {MAX_VERTICES:,} vertices, its curves drawn within the flatness (simplify it)")
    return int(n)


def _bezier(points: np.ndarray, tol: float, left: int) -> np.ndarray:
    """A quadratic or cubic Bezier (3 or 4 control points) as points after the first, within ``tol``.

    At most 1,000 points a curve, and no more than ``left``.
    """
    p = points
    second = np.hypot(*(p[:-2] - 2 * p[1:-1] + p[2:]).T).max() * (len(p) - 1) * (len(p) - 2)  # bound of |B''|
    n = math.ceil(min(math.sqrt(second / (8 * tol)), 1000.0)) if tol > 0 else 16
    t = np.linspace(0, 1, _room(max(1, n), left) + 1)[1:, None]
    if len(p) == 3:
        return (1 - t) ** 2 * p[0] + 2 * (1 - t) * t * p[1] + t**2 * p[2]
    return (1 - t) ** 3 * p[0] + 3 * (1 - t) ** 2 * t * p[1] + 3 * (1 - t) * t**2 * p[2] + t**3 * p[3]


def _arc(p0, rx, ry, phi, large, sweep, p1, tol: float, left: int) -> np.ndarray:
    """An elliptical arc (SVG endpoint form) as points after ``p0``, within ``tol`` (SVG 1.1 appendix F.6).

    At most 1,000 points a curve, and no more than ``left``.
    """
    rx, ry = np.float64(abs(rx)), np.float64(abs(ry))
    if rx == 0 or ry == 0 or np.allclose(p0, p1):
        return np.array([p1])
    with np.errstate(all="ignore"):  # radii and ends too far apart in size for doubles: said below
        c, s = math.cos(math.radians(phi)), math.sin(math.radians(phi))
        dx, dy = (p0 - p1) / 2
        x1, y1 = c * dx + s * dy, -s * dx + c * dy
        scale = x1**2 / rx**2 + y1**2 / ry**2
        if scale > 1:
            rx, ry = rx * np.sqrt(scale), ry * np.sqrt(scale)
        num = rx**2 * ry**2 - rx**2 * y1**2 - ry**2 * x1**2
        k = np.sqrt(max(num, 0.0) / (rx**2 * y1**2 + ry**2 * x1**2)) * (-1 if large == sweep else 1)
        cx1, cy1 = k * rx * y1 / ry, -k * ry * x1 / rx
        centre = np.array([c * cx1 - s * cy1, s * cx1 + c * cy1]) + (p0 + p1) / 2
        a0 = math.atan2((y1 - cy1) / ry, (x1 - cx1) / rx)
        a1 = math.atan2((-y1 - cy1) / ry, (-x1 - cx1) / rx)
    delta = (a1 - a0) % (2 * math.pi)
    if not (np.isfinite(centre).all() and math.isfinite(delta) and rx < math.inf and ry < math.inf):
        raise _Skip("has an arc no double can draw (its radii and its ends too far apart in size)")
    if not sweep and delta > 0:
        delta -= 2 * math.pi
    x = tol / max(rx, ry)  # the angle a chord may span: 2 acos(1 - x), about 2 sqrt(2 x) when x is small
    step = math.pi / 2 if x >= 1 else 2 * math.acos(1 - x) if x > 1e-6 else 2 * math.sqrt(2 * x)
    n = _room(min(max(2, math.ceil(abs(delta) / step)), 1000) if step > 0 else 1000, left)
    a = a0 + np.linspace(0, delta, n + 1)[1:]
    xy = np.column_stack([rx * np.cos(a), ry * np.sin(a)])
    out = xy @ np.array([[c, s], [-s, c]]) + centre
    out[-1] = p1
    return out


def _path(d: str, tol: float) -> list[tuple[np.ndarray, bool]]:
    """Sub-paths of path data ``d``: (points, closed), curves flattened within ``tol`` (local units).

    At most :data:`MAX_VERTICES` points in all, counted before each curve is drawn.
    """
    subs: list[tuple[list, bool]] = []
    pts: list = []
    count = 0
    cur = start = np.zeros(2)
    prev_ctrl, prev_cmd = None, ""
    tokens = _PATH_TOKEN.finditer(d)  # one at a time: a path past the vertex limit is never read whole
    tok, cmd = next(tokens, None), ""
    while tok is not None:
        letter = tok.group(1)
        if letter:
            cmd = letter
            tok = next(tokens, None)
            if cmd in "Zz":
                if pts:
                    subs.append((pts, True))
                pts, cur, prev_cmd = [], start, "Z"
                continue
        elif not cmd or cmd in "Zz":
            raise _Skip(f"has path data that does not start with a command ({d[:30]!r})")
        n = _ARGS[cmd.upper()]
        args: list[float] = []
        while len(args) < n and tok is not None and tok.group(2):
            args.append(float(tok.group(2)))
            tok = next(tokens, None)
        if len(args) < n:
            raise _Skip(f"has malformed path data near {cmd!r}")
        _finite(args)
        rel = cmd.islower() and cmd != "z"
        up = cmd.upper()
        base = cur if rel else np.zeros(2)
        if up == "M":
            if pts:
                subs.append((pts, False))
            cur = start = base + args
            pts = [cur]
            count += _room(1, MAX_VERTICES - count)
            cmd = "l" if rel else "L"  # further pairs are lines
            prev_cmd = "M"
            continue
        if not pts:
            pts = [cur]
        left = MAX_VERTICES - count
        if up in "LHV":
            new = cur.copy()
            if up == "L":
                new = base + args
            elif up == "H":
                new[0] = (cur[0] if rel else 0) + args[0]
            else:
                new[1] = (cur[1] if rel else 0) + args[0]
            pts.append(new)
            count += _room(1, left)
            cur, prev_ctrl = new, None
        elif up in "CSQT":
            xy = np.asarray(args, dtype=float).reshape(-1, 2) + base
            reflect = 2 * cur - prev_ctrl if prev_ctrl is not None and prev_cmd in (
                "CS" if up == "S" else "QT") else cur
            ctrl = np.vstack([cur, reflect, xy]) if up in "ST" else np.vstack([cur, xy])
            drawn = _bezier(ctrl, tol, left)
            pts.extend(drawn)
            count += len(drawn)
            prev_ctrl, cur = ctrl[-2], ctrl[-1]
        else:  # A
            end = base + args[5:7]
            drawn = _arc(cur, args[0], args[1], args[2], bool(args[3]), bool(args[4]), end, tol, left)
            pts.extend(drawn)
            count += len(drawn)
            cur, prev_ctrl = end, None
        prev_cmd = up
    if pts:
        subs.append((pts, False))
    return [(np.asarray(p, dtype=float), closed or (len(p) > 2 and np.allclose(p[0], p[-1])))
            for p, closed in subs if len(p) > 1 or closed]


# -- walking the document ----------------------------------------------------------------
def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _style(elem, key: str) -> str | None:
    for part in (elem.get("style") or "").split(";"):
        k, _, v = part.partition(":")
        if k.strip() == key:
            return v.strip()
    return elem.get(key)


def _colour(text: str | None) -> str | None:
    """``#rgb``/``#rrggbb`` as lower-case ``#rrggbb``; other paints as written."""
    if not text:
        return None
    t = text.strip().lower()
    if re.fullmatch(r"#[0-9a-f]{3}", t):
        return "#" + "".join(ch * 2 for ch in t[1:])
    return t


def _geometry(elem, tag: str, tol: float) -> tuple[list[tuple[np.ndarray, bool]], float]:
    """Sub-paths of a shape element (local units) and, for circles, the radius."""
    def num(key: str) -> float:
        return _length(elem.get(key))

    if tag == "path":
        return _path(elem.get("d") or "", tol), 0.0
    if tag in ("polygon", "polyline"):
        v = _numbers(elem.get("points"))
        if len(v) < 4 or len(v) % 2:
            raise _Skip("has malformed points")
        _room(len(v) // 2, MAX_VERTICES)
        return [(np.asarray(v).reshape(-1, 2), tag == "polygon")], 0.0
    if tag == "line":
        return [(np.array([[num("x1"), num("y1")], [num("x2"), num("y2")]]), False)], 0.0
    if tag == "rect":
        x, y, w, h = num("x"), num("y"), num("width"), num("height")
        if w <= 0 or h <= 0:
            raise _Skip("is a rectangle without area")
        return [(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]), True)], 0.0
    r = num("r") if tag == "circle" else max(num("rx"), num("ry"))
    return [(np.array([[num("cx"), num("cy")]]), False)], r


_SHAPES = ("path", "polygon", "polyline", "line", "rect", "circle", "ellipse")


def _walk(elem, matrix: np.ndarray, inherited: dict, depth: int, out: _Walk) -> None:
    if depth > MAX_DEPTH:
        raise MapError(None, None, f"nests groups more than {MAX_DEPTH} deep")
    for child in elem:
        tag = _local(child.tag) if isinstance(child.tag, str) else ""
        if tag in ("defs", "metadata", "title", "desc", "style", "clipPath", "mask", "symbol", "pattern"):
            continue
        sid, label = child.get("id") or "", child.get(f"{_INKSCAPE}label") or ""
        try:
            m = _compose(matrix, _transform(child.get("transform")))
        except _Skip as why:
            out.warnings.append(f"<{tag}> {shown(label or sid)}: {why}; skipped")
            continue
        here = dict(inherited)
        if child.get("data-terrain"):
            here["terrain"] = child.get("data-terrain")
        here["fill"] = _colour(_style(child, "fill")) or inherited.get("fill")
        if tag == "svg":  # a nested viewport: its content is placed and scaled into it
            try:
                view, here["viewport"] = _viewport(child, inherited["viewport"])
                m = _compose(m, view)
            except _Skip as why:
                out.warnings.append(f"<svg> {shown(label or sid)}: {why}; skipped")
                continue
        if tag in ("g", "svg", "a", "switch"):
            layer = child.get(f"{_INKSCAPE}groupmode") == "layer" if inherited.get("inkscape") else depth == 0
            if tag == "g" and layer:
                here["layer"] = label or sid or inherited.get("layer", "")
            _walk(child, m, here, depth + 1, out)
        elif tag in _SHAPES:
            _shape(child, tag, m, here, sid, label, out)
        elif tag == "use":
            out.warnings.append(f"<use> {shown(label or sid)}: clones are not imported (unlink the clone); skipped")


def _box(elem) -> list[float] | None:
    """The ``viewBox`` of an ``<svg>`` element: x, y, width, height (both above 0), else None."""
    box = _numbers(elem.get("viewBox"))
    return box if len(box) == 4 and box[2] > 0 and box[3] > 0 else None


def _size(text: str | None, whole: float) -> float:
    """A viewport's width or height: a length, a percentage of ``whole``, or all of it when not given."""
    text = (text or "").strip()
    if not text:
        return whole
    return whole * _length(text) / 100 if text.endswith("%") else _length(text)


def _viewport(elem, outer: tuple[float, float]) -> tuple[np.ndarray, tuple[float, float]]:
    """The matrix of a nested ``<svg>`` (into the user units around it) and the size of the view inside it.

    Its ``x``, ``y``, ``width``, ``height`` (default: all of the viewport
    around it, ``outer``) and ``viewBox``, fitted as ``preserveAspectRatio``
    says (default ``xMidYMid meet``; clipping to the viewport is not applied).
    """
    x, y = _length(elem.get("x")), _length(elem.get("y"))
    w, h = _size(elem.get("width"), outer[0]), _size(elem.get("height"), outer[1])
    box = _box(elem)
    if box is None:
        return _compose(np.eye(3), np.array([[1.0, 0, x], [0, 1, y], [0, 0, 1]])), (w, h)
    with np.errstate(over="ignore"):
        sx, sy = w / box[2], h / box[3]
    words = (elem.get("preserveAspectRatio") or "").replace("defer", "").split() or ["xMidYMid"]
    if words[0] != "none":
        sx = sy = max(sx, sy) if words[-1] == "slice" else min(sx, sy)
    shift = {"Min": 0.0, "Mid": 0.5, "Max": 1.0}
    fx, fy = (shift.get(words[0][k : k + 3], 0.5) if words[0] != "none" else 0.0 for k in (1, 5))
    m = np.array([[sx, 0, x + fx * (w - box[2] * sx) - box[0] * sx],
                  [0, sy, y + fy * (h - box[3] * sy) - box[1] * sy], [0, 0, 1]])
    return _compose(np.eye(3), m), (box[2], box[3])


def _shape(elem, tag: str, m: np.ndarray, here: dict, sid: str, label: str, out: _Walk) -> None:
    s = _Shape(tag, label, sid, here.get("layer", ""), here.get("terrain"), here.get("fill"), [], False)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            scale = math.sqrt(abs(m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0])) or 1.0
            subs, radius = _geometry(elem, tag, out.tol / scale)
            if not subs:
                raise _Skip("has no usable coordinates")
            s.rings = [np.column_stack([xy[:, 0], out.height - xy[:, 1]])  # upright: y up
                       for xy in (p @ m[:2, :2].T + m[:2, 2] for p, _ in subs)]
            s.radius = radius * scale
        if not all((np.abs(r) <= MAX_COORDINATE).all() for r in s.rings) or not s.radius <= MAX_COORDINATE:
            raise _Skip(f"lies past any board once transformed (coordinates beyond ±{MAX_COORDINATE:g})")
    except _Skip as why:
        out.warnings.append(f"{s.name()}: {why}; skipped")
        return
    s.closed = all(c for _, c in subs)
    out.shapes.append(s)


# -- shapes to features ------------------------------------------------------------------------
def _legend(path: str | os.PathLike | None) -> tuple[dict, dict]:
    """The legend's ``[fill]`` (colour -> terrain) and ``[layers]`` (layer name -> terrain) tables."""
    if path is None:
        return {}, {}
    data = read_bounded(path, MAX_SIDE_FILE_BYTES, lambda p, _, reason: RequestError(f"{shown(p)}: {reason}"))
    try:
        doc = parse_toml(data)
    except ValueError as exc:  # not UTF-8, not TOML, nested too deeply
        raise RequestError(f"{shown(path)}: is not a TOML legend ({exc})") from None
    tables = [doc.get(k, {}) for k in ("fill", "layers")]
    if not all(isinstance(t, dict) and all(isinstance(v, str) for v in t.values()) for t in tables):
        raise RequestError(f"{shown(path)}: [fill] and [layers] must map colours and layer names to terrain names")
    return {_colour(k): v for k, v in tables[0].items()}, {k.lower(): v for k, v in tables[1].items()}


def _ids(shapes: list[_Shape]) -> list[str]:
    """Each shape's id: its label when unique, else its XML id, else ``svg<k>`` (made unique, :func:`unique`)."""
    labels = Counter(s.label for s in shapes if s.label)
    return unique(s.label if s.label and labels[s.label] == 1 else s.sid or f"svg{k + 1}" for k, s in enumerate(shapes))


def _feature(fid: str, props: dict, gtype: str, coords) -> dict:
    return {"type": "Feature", "id": fid, "properties": props, "geometry": {"type": gtype, "coordinates": coords}}


class _Board:
    def __init__(self, shapes: list[_Shape], tol: float, catalog, legend, warnings: list[str]):
        self.shapes, self.tol, self.catalog, self.warnings = shapes, tol, catalog, warnings
        self.fills, self.layer_terrains = legend

    def kind(self, s: _Shape) -> str:
        if s.tag in ("circle", "ellipse") and not s.radius > 0:
            raise _Skip("is a circle without a radius")
        role = FEATURE_LAYERS.get(s.layer.lower())
        if role == "fountain" or (role == "road" and s.radius > 0):
            if s.radius <= 0:
                raise _Skip(f"is not a circle, and the {s.layer!r} layer holds circles")
            return "pousa" if role == "road" else "fountain"
        if s.radius > 0:
            raise _Skip("is a circle outside the roads and fountains layers")
        if role:
            if s.closed:
                raise _Skip(f"is a closed shape in the {s.layer!r} layer, which holds open lines")
            if not np.hypot(*np.diff(s.rings[0], axis=0).T).sum() > self.tol:  # (GEOS cannot measure along 1e-300)
                raise _Skip("is a line no longer than the flatness of the board, a point")
            return role
        if not s.closed:
            raise _Skip("is an open line outside the roads and streams layers")
        if any(len(r) < 3 for r in s.rings):
            raise _Skip("is a closed shape of fewer than 3 points")
        return "eido"

    def terrain(self, s: _Shape) -> str:
        names = self.catalog.terrain_names
        layer = self.layer_terrains.get(s.layer.lower(), s.layer if s.layer in names else None)
        terrain = s.terrain or layer or self.fills.get(s.fill)
        if terrain is None:
            raise _Skip(f"has no terrain (no data-terrain, its layer is no terrain, and its fill {s.fill!r}"
                        " is not in the legend)")
        if terrain not in names:
            raise _Skip(f"has terrain {terrain!r}, which is not in the catalog (pass catalog=... with it)")
        return terrain

    def features(self) -> list[dict]:
        kept = []
        for s in self.shapes:
            try:
                kept.append((s, self.kind(s)))
            except _Skip as why:
                self.warnings.append(f"{s.name()} {why}; skipped")
        ids = _ids([s for s, _ in kept])
        roads = [(fid, shapely.LineString(s.rings[0])) for (s, k), fid in zip(kept, ids, strict=True)
                 if k == "road"]
        feats = []
        for (s, kind), fid in zip(kept, ids, strict=True):
            props = {"kind": kind, **({"name": s.label} if s.label and s.label != fid else {})}
            try:
                if kind == "eido":
                    props["terrain"] = self.terrain(s)
                    rings = [shapely.Polygon(r) for r in s.rings]
                    poly = shapely.symmetric_difference_all(rings) if len(rings) > 1 else rings[0]
                    feats.append(_feature(fid, props, *self._polygon(poly, s)))
                elif kind in ("road", "stream"):
                    if len(s.rings) > 1:
                        self.warnings.append(f"{s.name()}: only its first sub-path is imported")
                    feats.append(_feature(fid, props, "LineString", s.rings[0].tolist()))
                else:
                    xy = s.rings[0][0]
                    if kind == "pousa":
                        props["road"], xy = self._road(xy, s.radius, roads)
                    feats.append(_feature(fid, props, "Point", [float(xy[0]), float(xy[1])]))
            except _Skip as why:
                self.warnings.append(f"{s.name()}: {why}; skipped")
        return feats

    def _polygon(self, poly, s: _Shape) -> tuple[str, list]:
        if poly.is_empty:
            raise _Skip("encloses no area")
        if not poly.is_valid:
            self.warnings.append(f"{s.name()} is not a valid polygon ({shapely.is_valid_reason(poly)}); imported as"
                                 " drawn, `eidomap validate` reports it")
        c = geometry_coords(poly)
        return c.type, c.tolist()

    def _road(self, xy: np.ndarray, radius: float, roads) -> tuple[str, np.ndarray]:
        """The road a Pousa circle lies on (its line within the circle's radius), and the point on it."""
        if not roads:
            raise _Skip("is a Pousa and the board has no road")
        pt = shapely.Point(xy)
        d = shapely.distance(pt, np.array([line for _, line in roads], dtype=object))
        k = int(np.argmin(d))
        if d[k] > max(radius, 1e-9):
            raise _Skip("is a circle in the roads layer on no road's line")
        on = roads[k][1].interpolate(roads[k][1].project(pt))
        return roads[k][0], np.array([on.x, on.y])


#: What snaps a document's borders drawn twice onto each other: ``snap(doc, catalog, warnings)``, changing ``doc``
#: in place and adding a warning for each snap (:func:`eidomap.validate.fix.snap_borders`, by fix's rules).
Snap: TypeAlias = Callable[[dict, Catalog, list[str]], None]


def read_svg(data: bytes, path: str | os.PathLike | None = None, catalog: Catalog | str | os.PathLike | None = None,
             legend: str | os.PathLike | None = None, snap: Snap | None = None) -> tuple[dict, list[str]]:
    """An SVG board (bytes) as an eidomap GeoJSON document, and the warnings.

    Parameters
    ----------
    data : bytes
        The SVG file's bytes (UTF-8; a DOCTYPE or entity declaration is refused).
    path : str or Path, optional
        Its name, for messages, the map's name and a catalog it names.
    catalog : str, Path or Catalog, optional
        Terrains beyond the default catalog.
    legend : str or Path, optional
        A TOML file with ``[fill]`` (``"#3d7fc1" = "sea"``) and ``[layers]`` (``Forests = "forest"``) tables:
        how a shape's fill or layer names its terrain (else its ``data-terrain`` attribute).
    snap : callable, optional
        What snaps borders drawn twice onto each other (the ``svg`` format of :func:`eidomap.io.readers.read`
        passes ``eidomap.validate.fix.snap_borders``); none: the shapes as drawn.

    Returns
    -------
    doc : dict
        The GeoJSON document; with ``snap``, borders drawn twice are snapped onto each other.
    warnings : list of str
        What could not be imported (a shape with no terrain...), and each snap.

    Raises
    ------
    MapError
        When the file is not an SVG drawing, or its viewBox, width or height cannot be read.

    See Also
    --------
    import_svg : Read a file and write the map.

    Examples
    --------
    >>> doc, warnings = read_svg(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10">'
    ...     b'<rect id="a" x="0" y="0" width="10" height="10" data-terrain="meadow"/>'
    ...     b'<rect id="b" x="10" y="0" width="10" height="10" fill="#3d7fc1"/></svg>')
    >>> [f["id"] for f in doc["features"]], len(warnings)  # b has no terrain: skipped, with a warning
    (['a'], 1)
    """
    data, path = params.instance(data, "data", bytes, "bytes"), params.maybe(params.path, path, "path")
    Catalog.checked(catalog)
    legend = params.maybe(params.path, legend, "legend")
    snap = params.maybe(params.function, snap, "snap", "a function snap(doc, catalog, warnings)")
    root = parse_xml(path, data, "SVG")
    if _local(root.tag) != "svg":
        raise MapError(path, None, f"is not an SVG drawing (its root element is <{_local(root.tag)}>)")
    try:
        box = _box(root)
        view = (box[2], box[3]) if box else (_length(root.get("width")), _length(root.get("height")))
    except _Skip as why:
        raise MapError(path, None, f"its viewBox, width or height {why}") from None
    height = box[1] + box[3] if box else view[1]
    meta = {"format": 1, "rules": "eido", "name": Path(path).stem if path else "svg board"}
    cat = resolve_catalog(path, meta, catalog)
    out = _Walk(FLATNESS * (max(view) if max(view) > 0 else 1.0), height)
    inkscape = any(e.get(f"{_INKSCAPE}groupmode") == "layer" for e in root.iter())
    try:
        _walk(root, np.eye(3), {"inkscape": inkscape, "viewport": view}, 0, out)
    except MapError as exc:
        raise MapError(path, None, exc.reason) from None
    warnings = out.warnings
    feats = _Board(out.shapes, out.tol, cat, _legend(legend), warnings).features()
    doc = {"type": "FeatureCollection", "eidomap": meta, "svg": {"source": Path(path).name if path else None},
           "features": feats}
    if snap is None:
        return doc, warnings
    try:  # borders drawn twice snapped onto each other (by the rules of fix, a layer above, which passes it)
        snap(doc, cat, warnings)
    except MapError as exc:  # what the map reader refuses of the whole board (a board 1e-298 across)
        raise MapError(path, None, exc.reason) from None
    return doc, warnings


def import_svg(source: str | os.PathLike, out: str | os.PathLike, legend: str | os.PathLike | None = None,
               catalog: str | os.PathLike | None = None, snap: Snap | None = None) -> tuple[dict, list[str]]:
    """Read an SVG board and write it as an eidomap GeoJSON map (atomically).

    Parameters
    ----------
    source : str or Path
        The SVG drawing (Inkscape, Illustrator...).
    out : str or Path
        The GeoJSON map to write.
    legend : str or Path, optional
        The fill and layer legend (see :func:`read_svg`).
    catalog : str or Path, optional
        A TOML file of terrains beyond the default catalog; when it lies in the output's folder, the output
        names it.
    snap : callable, optional
        As for :func:`read_svg` (``eidomap import-svg`` passes ``eidomap.validate.fix.snap_borders``).

    Returns
    -------
    doc : dict
        The document written.
    warnings : list of str
        What could not be imported, and each snap.

    Raises
    ------
    MapError
        When the file is not an SVG drawing, or holds no shape that becomes an Eido.
    RequestError
        When ``out`` is ``source``.

    See Also
    --------
    read_svg : The same, in memory.
    eidomap.io.tiled.import_tiled : A map drawn in Tiled.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> work = Path(tempfile.mkdtemp())
    >>> _ = (work / "board.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10">'
    ...     '<rect id="a" x="0" y="0" width="10" height="10" data-terrain="meadow"/>'
    ...     '<rect id="b" x="10" y="0" width="10" height="10" data-terrain="forest"/></svg>')
    >>> doc, warnings = import_svg(work / "board.svg", work / "board.geojson")
    >>> eidomap.load(work / "board.geojson").pairs()
    [('a', 'b')]
    """
    src, dst = Path(params.path(source, "source")), Path(params.path(out, "out"))
    legend, catalog = params.maybe(params.path, legend, "legend"), params.maybe(params.path, catalog, "catalog")
    snap = params.maybe(params.function, snap, "snap", "a function snap(doc, catalog, warnings)")
    if dst.exists() and dst.resolve() == src.resolve():
        raise RequestError(f"{shown(out)}: is the SVG board being imported; choose another output file")
    doc, warnings = read_svg(read_bounded(src, MAX_SVG_BYTES), src, catalog, legend, snap)
    write_import(doc, warnings, source, out, catalog, "shape")
    return doc, warnings
